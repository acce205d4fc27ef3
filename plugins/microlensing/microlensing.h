/* The microlensing plugin's API: magnifications of many lens models at
 * many epochs in one call, on the CPU or CUDA backend. The plugin exports
 * one table of kind SL_KIND_LENS laid out as sl_lens below; front ends
 * (Lua, tests, benchmarks) find it in the registry and include this header,
 * installed as <starling/plugins/microlensing/microlensing.h>.
 *
 * Conventions are MulensModel's (docs/microlensing.md): times in days,
 * lengths in Einstein radii of the total lens mass, tau = (t - t0)/tE.
 * Binary lens: the origin at the centre of mass, lens 1 (mass fraction
 * 1/(1+q)) at x = -s q/(1+q), lens 2 (q/(1+q)) at x = s/(1+q), and the
 * source at (y1, y2) = (-tau cos alpha + u0 sin alpha,
 * -tau sin alpha - u0 cos alpha), alpha in degrees. */
#ifndef STARLING_PLUGINS_MICROLENSING_H
#define STARLING_PLUGINS_MICROLENSING_H

#include <stdint.h>
#include "starling/backend.h"
#include "starling/plugin.h"

SL_EXTERN_C_BEGIN

/* The models, and the parameters of each, in row order. */
typedef enum sl_ml_model {
    SL_ML_PSPL = 0, /* point source, point lens: t0, u0, tE */
    SL_ML_FSPL,     /* finite source, point lens: t0, u0, tE, rho, a1 (linear limb darkening,
                     * I(r) = 1 - a1 (1 - sqrt(1 - r^2/rho^2)); 0: a uniform disk) */
    SL_ML_BINARY_PS /* binary lens, point source: t0, u0, tE, s, q, alpha (degrees) */
} sl_ml_model;

#define SL_ML_NPAR_MAX 6

/* Parameters per model of kind m, and their names. */
static inline int sl_ml_npar(sl_ml_model m)
{
    return m == SL_ML_PSPL ? 3 : m == SL_ML_FSPL ? 5 : 6;
}
static inline const char *sl_ml_param_name(sl_ml_model m, int k)
{
    static const char *const pspl[] = {"t0", "u0", "tE"};
    static const char *const fspl[] = {"t0", "u0", "tE", "rho", "a1"};
    static const char *const bin[] = {"t0", "u0", "tE", "s", "q", "alpha"};
    if (k < 0 || k >= sl_ml_npar(m))
        return "?";
    return m == SL_ML_PSPL ? pspl[k] : m == SL_ML_FSPL ? fspl[k] : bin[k];
}
static inline const char *sl_ml_model_name(sl_ml_model m)
{
    return m == SL_ML_PSPL ? "pspl" : m == SL_ML_FSPL ? "fspl" : "binary";
}

/* n_models models of one kind, each evaluated at the same n_t epochs. */
typedef struct sl_ml_batch {
    sl_ml_model model;
    int64_t n_models;
    const double *params; /* n_models rows of sl_ml_npar(model) values */
    int64_t n_t;
    const double *t;      /* epochs (days) */
} sl_ml_batch;

/* n point lenses for critical curves and caustics: positions in Einstein
 * radii of the total mass, masses as fractions of it (summing to 1). */
#define SL_ML_LENS_MAX 8
typedef struct sl_ml_lenses {
    int n;
    double x[SL_ML_LENS_MAX], y[SL_ML_LENS_MAX], m[SL_ML_LENS_MAX];
} sl_ml_lenses;

/* One closed critical curve (x, y) and its caustic (cx, cy), n points each,
 * the last equal to the first; box = the caustic's {x_min, x_max, y_min,
 * y_max}. */
typedef struct sl_ml_curve {
    int64_t n;
    double *x, *y, *cx, *cy;
    double box[4];
} sl_ml_curve;

/* binary_mag's partition (sl_lens): the engine within SL_ML_FS_HEXA rho
 * of a caustic's box, the hexadecapole (Gould 2008) out to SL_ML_FS_FAR
 * rho when the tolerance allows its error (measured below 5e-5 there),
 * the point source (error ~ (1/SL_ML_FS_FAR)^2 / 8) beyond. */
#define SL_ML_FS_ENGINE_ONLY 1u
#define SL_ML_FS_HEXA 10.0
#define SL_ML_FS_FAR 100.0
#define SL_ML_FS_HEXA_TOL 1e-4
#define SL_ML_FS_HEXA_ERR 5e-5
#define SL_ML_FS_FAR_ERR 1.25e-5

typedef struct sl_ml_caustic_set {
    int n_curves;
    sl_ml_curve curve[2 * SL_ML_LENS_MAX];
    double box[4];      /* all caustics */
    double crit_box[4]; /* all critical curves */
} sl_ml_caustic_set;

/* A magnification map by inverse ray shooting: the source-plane box
 * [x0, x1) x [y0, y1) in nx x ny pixels (row j, column i at
 * A[j * nx + i]); rays_per_pixel rays per pixel's worth of lens-plane
 * area, uniform at random in each active lens-plane cell (Philox keyed
 * (seed, cell, ray): the same rays on every backend). */
typedef struct sl_ml_map_spec {
    sl_ml_lenses lenses;
    double x0, x1, y0, y1;
    int nx, ny;
    double rays_per_pixel;
    uint64_t seed;
    /* Rows per tile (0: automatic). A map whose counts do not fit in half
     * the GPU's memory is shot in bands of rows, each its own lens-plane
     * grid (so its own rays, statistically the same), and stitched on the
     * host; tile_rows > 0 asks for bands of that many rows on any backend. */
    int tile_rows;
} sl_ml_map_spec;

typedef struct sl_ml_map {
    int nx, ny;
    double x0, x1, y0, y1;
    double *A;              /* nx * ny magnifications */
    uint32_t *count;        /* nx * ny rays that landed in each pixel */
    double lens_box[4];     /* the lens-plane region shot: x_min, x_max, y_min, y_max */
    double cell;            /* its cells' side */
    int64_t cells, active;  /* cells in the region, and those shot */
    int64_t rays_per_cell;
    uint64_t rays;          /* rays shot */
    int enlarged;           /* times the region grew to hold every image */
    double seconds;         /* shooting time (kernel time on CUDA) */
} sl_ml_map;

/* Finite-source light curves read from a map (ml_track.h): n_models rows
 * of t0, u0, tE, alpha (degrees), rho, each at the same n_t epochs, the
 * source centre on the trajectory above and its brightness
 * S = 1 - ld1 (1 - mu) - ld2 (1 - sqrt mu), mu = sqrt(1 - r^2/rho^2). */
#define SL_ML_TRACK_NPAR 5
typedef struct sl_ml_tracks {
    int64_t n_models;
    const double *params;
    int64_t n_t;
    const double *t;
    double ld1, ld2;
} sl_ml_tracks;

typedef struct sl_lens {
    SL_TABLE_HEAD; /* kind SL_KIND_LENS, name "microlensing"; no params */
    /* Checks every parameter and epoch (the message names the model, the
     * parameter, its value and what was expected) before any work, then
     * writes A[i * n_t + j], model i at epoch j. */
    sl_status (*magnification)(const sl_backend *be, const sl_ml_batch *b, double *A);
    /* The source position (y1, y2) of a binary model (SL_ML_BINARY_PS row
     * p) at epoch t, in the frame above. */
    void (*source_position)(const double *p, double t, double *y1, double *y2);
    /* The point-source magnification of the binary lens (s, q) with the
     * source at (y1, y2), and the number of images (3 or 5; NULL allowed). */
    double (*binary_mag0)(double s, double q, double y1, double y2, int *n_images);
    /* Critical curves and caustics of the lenses: each closed curve with at
     * least min_points points (>= 8), phases refined until consecutive
     * caustic points are at most `resolution` apart (Einstein radii); a
     * resolution that would take more than 2^19 phases is refused. Free
     * with caustics_free. */
    sl_status (*caustics)(const sl_ml_lenses *lenses, int min_points, double resolution,
                          sl_ml_caustic_set *out);
    void (*caustics_free)(sl_ml_caustic_set *c);
    /* The lenses of the binary (s, q) in the frame above. */
    void (*binary_lenses)(double s, double q, sl_ml_lenses *out);
    /* det J of the lens map at (x, y) in the lens plane (0 on a critical curve). */
    double (*det_jacobian)(const sl_ml_lenses *lenses, double x, double y);
    /* A magnification map (sl_ml_map_spec); checks the spec and the memory
     * it needs before any work. Free with map_free. */
    sl_status (*map)(const sl_backend *be, const sl_ml_map_spec *spec, sl_ml_map *out);
    void (*map_free)(sl_ml_map *m);
    /* The map as a FITS image (64-bit floats, a linear WCS in Einstein
     * radii, the lenses, rays and seed in the header), written as
     * starling/output.h says; flags are its SL_OUT_* flags. */
    sl_status (*map_write_fits)(const sl_ml_map *m, const sl_ml_map_spec *spec, const char *path,
                                unsigned flags);
    /* Light curves of finite sources over the map m: A[i n_t + j], model i
     * at epoch j; NaN where the source reaches outside the map. Checks the
     * models before any work. */
    sl_status (*lightcurves)(const sl_backend *be, const sl_ml_map *m, const sl_ml_tracks *tr,
                             double *A);
    /* The point-source magnification of 1 to 4 point lenses (ml_multi.h:
     * the degree n^2 + 1 polynomial's roots polished on the lens equation)
     * at n sources (y1[k], y2[k]) into A[k], and the images found into
     * n_images[k] when it is not NULL, on be (NULL: the CPU). Checks the
     * lenses and every source before any work. */
    sl_status (*multi_mag0)(const sl_backend *be, const sl_ml_lenses *lenses, int64_t n,
                            const double *y1, const double *y2, double *A, int *n_images);
    /* The magnification of a finite source of radius rho (linear limb
     * darkening a1) behind the binary (s, q) at n sources (y1[k], y2[k])
     * into A[k], to tol relative, with the error bound each met into
     * err[k] (NULL allowed), on the CPU's threads (be NULL or the cpu
     * backend; another is refused). Near the caustics by
     * image-centred ray shooting (the dynamic engine); unless flags has
     * SL_ML_FS_ENGINE_ONLY, the point source where the source is more
     * than SL_ML_FS_FAR rho from every caustic's box and, when tol >=
     * SL_ML_FS_HEXA_TOL, the hexadecapole beyond SL_ML_FS_HEXA rho. Checks
     * every argument before any work. */
    sl_status (*binary_mag)(const sl_backend *be, double s, double q, double rho, double a1,
                            double tol, unsigned flags, int64_t n, const double *y1,
                            const double *y2, double *A, double *err);
} sl_lens;

SL_EXTERN_C_END

#endif
