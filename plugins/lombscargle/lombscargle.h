/* The lombscargle plugin's API: power spectra of many unevenly sampled
 * time series (light curves) in one call. The plugin exports one table of
 * kind SL_KIND_PERIODOGRAM laid out as sl_periodogram below; front ends
 * (Lua, `starling ls`, benchmarks) find it in the registry and include this
 * header, installed as <starling/plugins/lombscargle/lombscargle.h>. Core
 * knows only the table's head (starling/plugin.h): everything sl_ls_* is
 * this plugin's, and lives with it.
 *
 * Data are packed: object i owns points offset[i] .. offset[i+1]-1 of the
 * arrays t, y, dy. One object is a batch of one. A bad object (too few
 * points, NaN, negative error) gets a flag in the result and the others are
 * computed; a batch of one with a flag is an error instead, so single-curve
 * callers see a message. Options that make no sense for any object
 * (f_min >= f_max, ...) fail before any work starts. */
#ifndef STARLING_PLUGINS_LOMBSCARGLE_H
#define STARLING_PLUGINS_LOMBSCARGLE_H

#include <stdint.h>
#include "starling/backend.h"
#include "starling/params.h"
#include "starling/plugin.h"

SL_EXTERN_C_BEGIN

typedef enum sl_ls_method {
    SL_LS_STANDARD = 0,   /* classical Lomb-Scargle on centred data (astropy fit_mean=False) */
    SL_LS_GENERALISED = 1 /* floating mean, weights 1/dy^2 (Zechmeister & Kuerster 2009) */
} sl_ls_method;

/* astropy's normalisations, same names and formulas. */
typedef enum sl_ls_norm {
    SL_LS_NORM_STANDARD = 0,
    SL_LS_NORM_MODEL,
    SL_LS_NORM_LOG,
    SL_LS_NORM_PSD
} sl_ls_norm;

typedef enum sl_ls_precision { SL_LS_FP64 = 0, SL_LS_FP32 = 1 } sl_ls_precision;

typedef enum sl_ls_grid_kind {
    SL_LS_GRID_EXPLICIT = 0, /* f_min + k (f_max - f_min) / n_f, k < n_f: [f_min, f_max) */
    SL_LS_GRID_AUTO,         /* astropy's autofrequency, per object */
    SL_LS_GRID_BASELINE      /* [f_min, f_max) with df = 0.1 / T_max (the seed's 0.2 pi / T
                                in angular frequency), T_max the longest baseline in the batch */
} sl_ls_grid_kind;

/* How the sums are formed. AUTO picks, per object, FAST where it is
 * cheaper and its error is negligible: on the CPU backend when the object
 * has at least SL_LS_FAST_MIN_POINTS points and n_t * n_f >=
 * SL_LS_FAST_MIN_WORK (measured crossover, docs/GUIDE.md), else DIRECT. */
typedef enum sl_ls_engine {
    SL_LS_ENGINE_AUTO = 0,
    SL_LS_ENGINE_DIRECT,   /* the exact sum, one sincos per point and frequency */
    SL_LS_ENGINE_FAST      /* Press & Rybicki (1989): extirpolation + FFT, O(N log N) */
} sl_ls_engine;

#define SL_LS_FAST_MIN_POINTS 10000
#define SL_LS_FAST_MIN_WORK 2e8

/* How full periodograms leave the GPU (CUDA backend; ignored on the CPU). */
typedef enum sl_ls_transfer {
    SL_LS_TRANSFER_STAGED = 0, /* 3 streams through 8 MiB pinned buffers, parallel host copy */
    SL_LS_TRANSFER_PLAIN,      /* one cudaMemcpy into the pageable result */
    SL_LS_TRANSFER_DEVICE      /* stay on the device: result.device_power, no copy */
} sl_ls_transfer;

/* Why an object has no result (per object in a batch). */
typedef enum sl_ls_flag {
    SL_LS_OK = 0,
    SL_LS_FLAG_TOO_FEW,    /* fewer than 3 points */
    SL_LS_FLAG_NONFINITE,  /* a t, y or dy that is NaN or infinite */
    SL_LS_FLAG_BAD_ERROR,  /* dy <= 0 */
    SL_LS_FLAG_BASELINE,   /* all times equal: no frequency resolution */
    SL_LS_FLAG_CONSTANT,   /* y constant: power undefined */
    SL_LS_FLAG_GRID,       /* empty or invalid frequency grid for this object */
    SL_LS_FLAG_NUMERIC     /* non-finite power */
} sl_ls_flag;

typedef struct sl_ls_data {
    int64_t n_obj;
    const int64_t *offset; /* n_obj + 1 entries, offset[0] = 0, non-decreasing */
    const double *t, *y;
    const double *dy;      /* NULL: unit errors */
    /* Where the points came from, for messages (both may be NULL): the file
     * and each packed point's 1-based line in it. */
    const char *source;
    const int64_t *line;
} sl_ls_data;

typedef struct sl_ls_options {
    sl_ls_method method;
    sl_ls_norm norm;
    sl_ls_precision precision;
    sl_ls_engine engine;
    sl_ls_grid_kind grid;
    double f_min, f_max;      /* EXPLICIT and BASELINE; cycles per unit of t */
    int64_t n_f;              /* EXPLICIT */
    double samples_per_peak;  /* AUTO (and the FAP's frequency limit), default 5 */
    double nyquist_factor;    /* AUTO, default 5 */
    double minimum_frequency; /* AUTO; NaN: astropy's default 0.5 df */
    double maximum_frequency; /* AUTO; NaN: nyquist_factor times the average Nyquist frequency */
    int full;                 /* 1: return every power (else best frequency / top-k only) */
    int top_k;                /* 0: none; else the k highest distinct local maxima */
    int fap;                  /* 1: Baluev (2008) false-alarm probabilities of best and peaks */
    sl_ls_transfer transfer;  /* full output on CUDA: staged (default), plain or device */
    int fast_order;           /* FAST: extirpolation points per sample, 2 .. 64; 0 (default):
                               * per object, the least even order meeting fast_accuracy */
    double fast_oversampling; /* FAST: FFT length / n_f, rounded up to a power of 2 (default 8) */
    double fast_accuracy;     /* FAST, fast_order 0: bound on the extirpolation error of each
                               * trigonometric sum, relative to sum |weights| (default 1e-10) */
} sl_ls_options;

/* Defaults: generalised, standard normalisation, FP64, autofrequency 5/5,
 * best only, no FAP. Inline, so the core library needs no code for it. */
static inline void sl_ls_options_default(sl_ls_options *o)
{
    *o = (sl_ls_options){.method = SL_LS_GENERALISED, .norm = SL_LS_NORM_STANDARD,
                         .precision = SL_LS_FP64, .engine = SL_LS_ENGINE_AUTO,
                         .grid = SL_LS_GRID_AUTO, .samples_per_peak = 5.0,
                         .nyquist_factor = 5.0, .minimum_frequency = __builtin_nan(""),
                         .maximum_frequency = __builtin_nan(""), .fast_order = 0,
                         .fast_oversampling = 8.0, .fast_accuracy = 1e-10};
}

typedef struct sl_ls_result {
    int64_t n_obj;
    sl_ls_flag *flag;        /* n_obj */
    int64_t *flag_at;        /* n_obj: index (within the object) of the offending point, or -1 */
    double *f0, *df;         /* n_obj: object i's grid is f0[i] + k df[i], k < n_f[i] */
    int64_t *n_f;
    double *best_f, *best_p, *best_fap; /* n_obj; NaN when flagged (fap: NaN unless asked) */
    int top_k;
    double *peak_f, *peak_p, *peak_fap; /* n_obj * top_k, NaN-padded; NULL when top_k = 0 */
    int64_t *power_offset;   /* n_obj + 1 (full output only) */
    double *power64;         /* full output, FP64 */
    float *power32;          /* full output, FP32 (one of the two is set) */
    double kernel_s, wall_s; /* time in the sums (device kernels on CUDA), and in total */
    double prep_s;           /* of wall_s: host preparation (checks, weights, grids) */
    double transfer_s;       /* of wall_s: staging and copies to and from the GPU */
    char engine[64];         /* what ran, e.g. "direct/fp64/cuda" */
    /* transfer = device: the periodograms on the GPU (float or double as
     * the precision, layout power_offset), freed by result_free; power64
     * and power32 are then NULL. */
    void *device_power;
    int64_t n_fast;          /* objects that ran on the FAST engine */
} sl_ls_result;

/* Owned light curves as read from a file: the packed arrays and one id
 * (text) per object, in order of first appearance. */
typedef struct sl_ls_set {
    sl_ls_data data;
    int64_t *offset;
    double *t, *y, *dy; /* dy NULL when the file has no error column */
    char **id;
    char *path;
    int64_t *line;      /* per packed point: its line in the file (-1: FITS rows) */
    char *source;       /* the file those lines are in (NULL: several files) */
} sl_ls_set;

/* FITS binary-table columns (NULL: the first column whose name matches,
 * case-insensitively, TIME/T/MJD/..., FLUX/MAG/Y/..., FLUX_ERR/MAGERR/DY/...,
 * ID/OBJECT/...), and the HDU (0: the first binary or ASCII table). */
typedef struct sl_ls_columns {
    const char *t, *y, *dy, *id;
    int hdu;
    /* Text files: the most bytes read of one file (0: SL_LS_MAX_BYTES), so
     * that an input that never ends (a device, a FIFO) is an error naming
     * the file and the limit. */
    int64_t max_bytes;
} sl_ls_columns;

/* The default of max_bytes: 1 GiB. */
#define SL_LS_MAX_BYTES ((int64_t)1 << 30)

typedef struct sl_periodogram {
    SL_TABLE_HEAD; /* kind SL_KIND_PERIODOGRAM; params: numeric keys front ends validate
                    * generically */
    /* Fills options from a parameter table (schema above); the string-valued
     * choices (method, normalisation, precision, grid) are set by name. */
    sl_status (*configure)(const sl_param_values *pv, sl_ls_options *o);
    sl_status (*set_choice)(sl_ls_options *o, const char *key, const char *value);
    sl_status (*compute)(const sl_backend *be, const sl_ls_data *d, const sl_ls_options *o,
                         sl_ls_result *res);
    void (*result_free)(sl_ls_result *res);
    /* Light curves from a text file: columns t, y[, dy] or, for a batch,
     * id, t, y[, dy] (ids group rows; rows of one id need not be adjacent),
     * by the rules of starling/table.h: a header's names choose the
     * columns. Errors name the file, line and column. */
    sl_status (*read)(const char *path, int with_id, sl_ls_set **out);
    void (*set_free)(sl_ls_set *s);
    /* Light curves from a FITS table (read() also takes FITS files, with
     * default columns). Errors name the file, HDU and column. */
    sl_status (*read_fits)(const char *path, const sl_ls_columns *cols, int with_id,
                           sl_ls_set **out);
    /* Text, FITS or a folder, with columns named by the user (cols may be
     * NULL; hdu is for FITS). Text files follow starling/table.h. The path
     * "-" reads text from stdin (its objects named "stdin"); other files
     * that are not regular (FIFOs, /dev/stdin) are read once, as text. */
    sl_status (*read_with)(const char *path, const sl_ls_columns *cols, int with_id,
                           sl_ls_set **out);
} sl_periodogram;

/* What a flag means, for messages and outputs. */
static inline const char *sl_ls_flag_name(sl_ls_flag f)
{
    switch (f) {
    case SL_LS_OK: return "ok";
    case SL_LS_FLAG_TOO_FEW: return "fewer than 3 points";
    case SL_LS_FLAG_NONFINITE: return "non-finite value";
    case SL_LS_FLAG_BAD_ERROR: return "error dy <= 0";
    case SL_LS_FLAG_BASELINE: return "zero time baseline";
    case SL_LS_FLAG_CONSTANT: return "constant values";
    case SL_LS_FLAG_GRID: return "empty frequency grid";
    case SL_LS_FLAG_NUMERIC: return "non-finite power";
    }
    return "unknown flag";
}

SL_EXTERN_C_END

#endif
