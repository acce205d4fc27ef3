/* The dynamic engine: the magnification of a finite, limb-darkened source
 * behind a binary lens by image-centred ray shooting, for any (s, q) with
 * nothing made in advance but the lens's critical curves, written once as
 * SL_HD C.
 *
 * For one source position:
 *
 *  1. Seeds: the point images of the source's centre and of
 *     SL_ML_DYN_LIMB points on its limb (the binary's polynomial,
 *     ml_binary.h), and the critical-curve points whose caustic segment
 *     passes within rho of the centre: where the disk's edge crosses a
 *     fold, the pair of images the crossing makes straddles the critical
 *     curve and may hold none of the limb's images.
 *  2. A lens-plane grid of cells of side h0 = SL_ML_DYN_H0 rho, filled
 *     from the seeds' cells by a queue (eight neighbours): a cell is
 *     active when the image of its centre lies within rho + reach of the
 *     source's centre, reach = SL_ML_DYN_REACH h0 (1 + |kappa|) / sqrt 2
 *     (the largest stretch of the lens map, 1 + |kappa|, across the half
 *     diagonal, with room for its change across the cell). The queue,
 *     once drained, is the list of active cells.
 *  3. Each active cell is integrated by quadtree: a cell whose image lies
 *     wholly inside the disk counts its area times the source's
 *     brightness at its centre's image, wholly outside counts nothing,
 *     and a cell across the limb is split in four, down to depth D, where
 *     the limb is taken as straight across the cell (the lens map
 *     linearised at its centre) and the share inside counted. So rays are
 *     spent along the images' edges, not over their area.
 *  4. The same pass gives the estimate at depth D - 1 (the parents' leaves
 *     in place of their children's). The straight limbs err by the limb's
 *     curvature, one sign along an edge, as h^2: a third of the depths'
 *     difference (per cell in quadrature and in total, the larger) bounds
 *     the error at D, D is raised until that bound meets the tolerance
 *     (relative to A), and the result is Richardson's (4 A_D - A_{D-1}) /
 *     3, whose error is smaller still (on the fold below, 2.7e-6 at a
 *     bound of 1.6e-4).
 *
 * The source's brightness is the linear law I(r) = 1 - a1 (1 - sqrt(1 -
 * r^2/rho^2)), normalised over the disk as MulensModel and VBMicrolensing
 * do. Frame: ml_binary.h's (the centre of mass at the origin). */
#ifndef STARLING_ML_DYNAMIC_H
#define STARLING_ML_DYNAMIC_H

#include <math.h>
#include <stdint.h>
#include "ml_binary.h"
#include "starling/hd.h"

/* Limb points whose images seed the fill. */
#ifndef SL_ML_DYN_LIMB
#define SL_ML_DYN_LIMB 16
#endif
/* The top cell's side, in source radii: a quarter of an image's width
 * across the thinnest arc a source of radius rho makes. */
#ifndef SL_ML_DYN_H0
#define SL_ML_DYN_H0 0.5
#endif
/* Room for the lens map's change across a cell, on top of its stretch at
 * the centre. */
#ifndef SL_ML_DYN_REACH
#define SL_ML_DYN_REACH 1.5
#endif
/* The quadtree's depths: the first tried, and the deepest (h0 / 2^D). */
#ifndef SL_ML_DYN_DEPTH0
#define SL_ML_DYN_DEPTH0 4
#endif
#define SL_ML_DYN_DEPTH_MAX 11

enum {
    SL_ML_DYN_OK = 0,
    SL_ML_DYN_FULL = 1,  /* more active cells than the workspace holds */
    SL_ML_DYN_DEPTH = 2, /* the tolerance not met at SL_ML_DYN_DEPTH_MAX */
};

/* A binary lens as the engine needs it: masses, positions, and its
 * critical curves as closed polylines (the caustic beside each point),
 * each with its caustic's box {x_min, x_max, y_min, y_max}. */
#define SL_ML_DYN_CURVES 6
typedef struct sl_ml_dyn_lens {
    double z1, z2, m1, m2;
    int n_curves;
    int64_t n[SL_ML_DYN_CURVES];
    const double *x[SL_ML_DYN_CURVES], *y[SL_ML_DYN_CURVES];   /* critical curves */
    const double *cx[SL_ML_DYN_CURVES], *cy[SL_ML_DYN_CURVES]; /* caustics */
    double box[SL_ML_DYN_CURVES][4];
} sl_ml_dyn_lens;

/* The caller's memory: a hash set of cells (cap a power of two) and the
 * queue of active cells (cap entries each). */
typedef struct sl_ml_dyn_ws {
    int cap;
    uint64_t *keys; /* SL_ML_DYN_EMPTY where free */
    int32_t *ci, *cj;
} sl_ml_dyn_ws;

#define SL_ML_DYN_EMPTY UINT64_MAX

/* What one evaluation reports beside A. */
typedef struct sl_ml_dyn_info {
    int depth;        /* the quadtree's final depth */
    int cells;        /* active top cells */
    double rays;      /* rays shot (lens-map evaluations) */
    double err;       /* the error bound of the depth above, relative to A */
} sl_ml_dyn_info;

SL_HD SL_INLINE uint64_t sl_ml_dyn_key(int32_t i, int32_t j)
{
    return ((uint64_t)(uint32_t)i << 32) | (uint64_t)(uint32_t)j;
}

/* Inserts cell (i, j); 1 when new, 0 when there already, -1 when full. */
SL_HD SL_INLINE int sl_ml_dyn_insert(sl_ml_dyn_ws *ws, int32_t i, int32_t j)
{
    const uint64_t k = sl_ml_dyn_key(i, j);
    const uint32_t mask = (uint32_t)ws->cap - 1u;
    uint32_t h = (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    for (int probe = 0; probe < ws->cap; probe++, h = (h + 1u) & mask) {
        if (ws->keys[h] == k)
            return 0;
        if (ws->keys[h] == SL_ML_DYN_EMPTY) {
            ws->keys[h] = k;
            return 1;
        }
    }
    return -1;
}

/* The image of lens-plane point (x, y): its distance from the source's
 * centre (w1, w2) and the lens map's largest stretch there, 1 + |kappa|. */
SL_HD SL_INLINE double sl_ml_dyn_ray(const sl_ml_dyn_lens *L, double x, double y, double w1,
                                     double w2, double *stretch)
{
    sl_cplx kap;
    const sl_cplx w = sl_ml_lens_map(L->z1, L->z2, L->m1, L->m2, sl_c(x, y), &kap);
    *stretch = 1.0 + sl_cabs(kap);
    const double a = w.re - w1, b = w.im - w2;
    return sqrt(a * a + b * b);
}

/* The source's brightness at distance d from its centre (0 outside). */
SL_HD SL_INLINE double sl_ml_dyn_light(double d, double rho, double a1)
{
    if (d >= rho)
        return 0.0;
    const double u = d / rho;
    return 1.0 - a1 * (1.0 - sqrt(1.0 - u * u));
}

typedef struct sl_ml_dyn_src {
    double w1, w2, rho, a1;
    double ld_room; /* a limb-darkened cell's reach over its distance from the limb, at most */
    int depth;
} sl_ml_dyn_src;

/* The cell of side h centred at (x, y) on level lev: its light at depth D
 * (*fine) and at depth D - 1 (*coarse); *rays counts the lens map's
 * evaluations. */
/* The share of a square whose signed distance is f0 + gx x + gy y over x,
 * y in [-1, 1] (a, b = |gx|, |gy|) that is negative: the sum of two uniform
 * variables' distribution at -f0 (a trapezoid's integral). */
SL_HD SL_INLINE double sl_ml_dyn_share(double f0, double a, double b)
{
    if (a < b) {
        const double t = a;
        a = b, b = t;
    }
    const double t = -f0;
    if (t <= -(a + b))
        return 0.0;
    if (t >= a + b)
        return 1.0;
    if (b <= 1e-12 * a) /* a line along a side */
        return 0.5 * (t + a) / a;
    if (t < b - a)
        return (t + a + b) * (t + a + b) / (8.0 * a * b);
    if (t <= a - b)
        return 0.5 * (t + a) / a;
    return 1.0 - (a + b - t) * (a + b - t) / (8.0 * a * b);
}

/* A bottom cell across the limb: its light with the limb taken as straight
 * across it (the lens map linearised at the centre, z + dz -> w + dz +
 * kappa conj(dz), so the distance from the source's centre moves by
 * Re((conj n + n conj kappa) dz), n the unit vector from the centre to w):
 * the uniform part of the brightness is the share of the cell inside, and
 * the square root's part, continuous and zero at the limb, is read at the
 * centre. Its error is the limb's curvature across the cell, not the
 * cell's whole area as a single ray's. */
SL_HD SL_INLINE double sl_ml_dyn_leaf(double d, sl_cplx n, sl_cplx kap, double h,
                                      const sl_ml_dyn_src *S)
{
    const sl_cplx a = sl_cadd(sl_cconj(n), sl_cmul(n, sl_cconj(kap)));
    const double share = sl_ml_dyn_share(d - S->rho, 0.5 * h * fabs(a.re), 0.5 * h * fabs(a.im));
    double v = (1.0 - S->a1) * share;
    if (S->a1 > 0.0 && d < S->rho) {
        const double u = d / S->rho;
        v += S->a1 * sqrt(1.0 - u * u);
    }
    return h * h * v;
}

/* The cell of side h centred at (x, y) on level lev: its light at depth D
 * (*fine) and at depth D - 1 (*coarse); *rays counts the lens map's
 * evaluations. */
SL_HD static void sl_ml_dyn_cell(const sl_ml_dyn_lens *L, const sl_ml_dyn_src *S, double x,
                                 double y, double h, int lev, double *fine, double *coarse,
                                 double *rays)
{
    sl_cplx kap;
    const sl_cplx w = sl_ml_lens_map(L->z1, L->z2, L->m1, L->m2, sl_c(x, y), &kap);
    const double e1 = w.re - S->w1, e2 = w.im - S->w2;
    const double d = sqrt(e1 * e1 + e2 * e2);
    *rays += 1.0;
    const double reach = SL_ML_DYN_REACH * 0.70710678118654752 * h * (1.0 + sl_cabs(kap));
    const double area = h * h;
    if (d - reach >= S->rho) { /* wholly outside */
        *fine = *coarse = 0.0;
        return;
    }
    /* wholly inside; with limb darkening, not where the brightness curves
     * steeply across the cell (near the limb) unless at the bottom */
    if (d + reach <= S->rho &&
        (S->a1 == 0.0 || lev >= S->depth || reach <= S->ld_room * (S->rho - d))) {
        *fine = *coarse = area * sl_ml_dyn_light(d, S->rho, S->a1);
        return;
    }
    const sl_cplx n = d > 0.0 ? sl_c(e1 / d, e2 / d) : sl_c(1.0, 0.0);
    const double own = sl_ml_dyn_leaf(d, n, kap, h, S);
    if (lev >= S->depth) { /* the bottom */
        *fine = *coarse = own;
        return;
    }
    double f = 0.0, c = 0.0;
    const double q = 0.25 * h;
    for (int k = 0; k < 4; k++) {
        double fk, ck;
        sl_ml_dyn_cell(L, S, x + ((k & 1) ? q : -q), y + ((k & 2) ? q : -q), 0.5 * h, lev + 1,
                       &fk, &ck, rays);
        f += fk, c += ck;
    }
    *fine = f;
    *coarse = lev + 1 >= S->depth ? own : c; /* at depth D - 1 this cell is a leaf */
}

/* Seeds the cell holding lens-plane point (x, y), h0 the cells' side:
 * queued when new. Returns 0, or SL_ML_DYN_FULL. */
SL_HD SL_INLINE int sl_ml_dyn_seed(sl_ml_dyn_ws *ws, int *n_q, double x, double y, double h0)
{
    const double fi = floor(x / h0), fj = floor(y / h0);
    if (!(fabs(fi) < 2e9 && fabs(fj) < 2e9))
        return SL_ML_DYN_OK; /* an image at a lens's singularity */
    const int32_t i = (int32_t)fi, j = (int32_t)fj;
    const int r = sl_ml_dyn_insert(ws, i, j);
    if (r < 0 || (r > 0 && *n_q >= ws->cap))
        return SL_ML_DYN_FULL;
    if (r > 0)
        ws->ci[*n_q] = i, ws->cj[*n_q] = j, (*n_q)++;
    return SL_ML_DYN_OK;
}

/* The images of source point zeta (ml_binary.h's solver and polish) as
 * seeds. */
SL_HD SL_INLINE int sl_ml_dyn_seed_images(const sl_ml_dyn_lens *L, sl_cplx zeta, double h0,
                                          sl_ml_dyn_ws *ws, int *n_q)
{
    sl_cplx z[SL_ML_DEG];
    double det[SL_ML_DEG];
    const int n = sl_ml_binary_images(L->z1, L->z2, L->m1, L->m2, zeta, z, det);
    for (int k = 0; k < n; k++)
        if (sl_ml_dyn_seed(ws, n_q, z[k].re, z[k].im, h0) != SL_ML_DYN_OK)
            return SL_ML_DYN_FULL;
    return SL_ML_DYN_OK;
}

/* The critical-curve points whose caustic segment passes within rho of
 * (w1, w2) as seeds, with points along the segment's lens-plane side
 * every h0. */
SL_HD SL_INLINE int sl_ml_dyn_seed_caustics(const sl_ml_dyn_lens *L, double w1, double w2,
                                            double rho, double h0, sl_ml_dyn_ws *ws, int *n_q)
{
    for (int c = 0; c < L->n_curves; c++) {
        const double *b = L->box[c];
        if (w1 + rho < b[0] || w1 - rho > b[1] || w2 + rho < b[2] || w2 - rho > b[3])
            continue;
        const double *X = L->x[c], *Y = L->y[c], *CX = L->cx[c], *CY = L->cy[c];
        for (int64_t k = 0; k + 1 < L->n[c]; k++) {
            const double ax = CX[k], ay = CY[k];
            const double ex = CX[k + 1] - ax, ey = CY[k + 1] - ay;
            const double ee = ex * ex + ey * ey;
            double t = ee > 0.0 ? ((w1 - ax) * ex + (w2 - ay) * ey) / ee : 0.0;
            t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
            const double dx = ax + t * ex - w1, dy = ay + t * ey - w2;
            if (dx * dx + dy * dy > rho * rho)
                continue;
            const double lx = X[k + 1] - X[k], ly = Y[k + 1] - Y[k];
            const int steps = 1 + (int)fmin(1e4, sqrt(lx * lx + ly * ly) / h0);
            for (int s = 0; s <= steps; s++)
                if (sl_ml_dyn_seed(ws, n_q, X[k] + lx * s / steps, Y[k] + ly * s / steps, h0) !=
                    SL_ML_DYN_OK)
                    return SL_ML_DYN_FULL;
        }
    }
    return SL_ML_DYN_OK;
}

/* The active cells: seeds first, then the fill, in a workspace whose keys
 * are all SL_ML_DYN_EMPTY; on return ws->ci, cj [0, *n_active) are the
 * active cells. */
SL_HD SL_INLINE int sl_ml_dyn_fill(const sl_ml_dyn_lens *L, double w1, double w2, double rho,
                                   double h0, sl_ml_dyn_ws *ws, int *n_active, double *rays)
{
    int n_q = 0;
    int st = sl_ml_dyn_seed_images(L, sl_c(w1, w2), h0, ws, &n_q);
    for (int k = 0; k < SL_ML_DYN_LIMB && st == SL_ML_DYN_OK; k++) {
        const double a = 6.283185307179586 * (k + 0.5) / SL_ML_DYN_LIMB;
        st = sl_ml_dyn_seed_images(L, sl_c(w1 + rho * cos(a), w2 + rho * sin(a)), h0, ws, &n_q);
    }
    if (st == SL_ML_DYN_OK)
        st = sl_ml_dyn_seed_caustics(L, w1, w2, rho, h0, ws, &n_q);
    if (st != SL_ML_DYN_OK)
        return st;
    /* the fill: the queue's head walks over cells taken; an active cell's
     * neighbours are queued, an inactive one is dropped from the list */
    const int n_seeds = n_q;
    int head = 0, kept = 0;
    while (head < n_q) {
        const int32_t i = ws->ci[head], j = ws->cj[head];
        const int seed = head < n_seeds;
        head++;
        double stretch;
        const double d = sl_ml_dyn_ray(L, (i + 0.5) * h0, (j + 0.5) * h0, w1, w2, &stretch);
        *rays += 1.0;
        const double reach = SL_ML_DYN_REACH * 0.70710678118654752 * h0 * stretch;
        const int active = d - reach < rho;
        if (!active && !seed)
            continue;
        if (active)
            ws->ci[kept] = i, ws->cj[kept] = j, kept++;
        for (int di = -1; di <= 1; di++)
            for (int dj = -1; dj <= 1; dj++) {
                if (!di && !dj)
                    continue;
                const int r = sl_ml_dyn_insert(ws, i + di, j + dj);
                if (r < 0 || (r > 0 && n_q >= ws->cap))
                    return SL_ML_DYN_FULL;
                if (r > 0)
                    ws->ci[n_q] = i + di, ws->cj[n_q] = j + dj, n_q++;
            }
    }
    *n_active = kept;
    return SL_ML_DYN_OK;
}

/* The source as the quadtree reads it, at the first depth. A cell wholly
 * inside a limb-darkened source counts the brightness at its centre's
 * image: too much, as the profile is concave, by ~ (reach / (rho - d))^2 /
 * 384 of the cell's light where the cell's reach is a fraction of its
 * distance d from the limb (the square root's curvature there), and this is
 * not what the depths' difference sees; so that fraction is held to
 * sqrt(96 tol) (then a quarter of tol). */
SL_HD SL_INLINE sl_ml_dyn_src sl_ml_dyn_source(double w1, double w2, double rho, double a1,
                                               double tol)
{
    sl_ml_dyn_src S = {w1, w2, rho, a1, fmin(0.5, sqrt(96.0 * tol)), SL_ML_DYN_DEPTH0};
    return S;
}

/* The error bound of depth D relative to its light: a third of the
 * depths' difference (the error goes as h^2), in total and per top cell in
 * quadrature (sq), the larger. The extrapolated light is better still. */
SL_HD SL_INLINE double sl_ml_dyn_err(double fine, double coarse, double sq)
{
    return fmax(fabs(fine - coarse), sqrt(sq)) / (3.0 * fine);
}

/* The light at depth D with the leading error removed: the bottom cells'
 * straight limbs err by the limb's curvature, the same sign along an
 * image's edge, as h^2, so (4 fine - coarse) / 3 (Richardson). */
SL_HD SL_INLINE double sl_ml_dyn_extrapolate(double fine, double coarse)
{
    return fine + (fine - coarse) / 3.0;
}

/* Whether depth `depth` is the last: its bound meets the tolerance, or the
 * deepest is reached. */
SL_HD SL_INLINE int sl_ml_dyn_done(double err, double tol, int depth)
{
    return err <= tol || depth >= SL_ML_DYN_DEPTH_MAX;
}

/* The magnification of the source of radius rho > 0 at (w1, w2) with
 * linear limb darkening a1, to tolerance tol (relative). Returns
 * SL_ML_DYN_OK, or a reason with *A the best estimate made. */
SL_HD SL_INLINE int sl_ml_dyn_mag(const sl_ml_dyn_lens *L, double w1, double w2, double rho,
                                  double a1, double tol, sl_ml_dyn_ws *ws, double *A,
                                  sl_ml_dyn_info *info)
{
    const double h0 = SL_ML_DYN_H0 * rho;
    const double norm = 1.0 / (3.14159265358979324 * rho * rho * (1.0 - a1 / 3.0));
    int n_active = 0;
    double rays = 0.0;
    *A = NAN;
    for (int k = 0; k < ws->cap; k++)
        ws->keys[k] = SL_ML_DYN_EMPTY;
    int st = sl_ml_dyn_fill(L, w1, w2, rho, h0, ws, &n_active, &rays);
    if (st != SL_ML_DYN_OK) {
        if (info)
            info->depth = 0, info->cells = n_active, info->rays = rays, info->err = INFINITY;
        return st;
    }
    sl_ml_dyn_src S = sl_ml_dyn_source(w1, w2, rho, a1, tol);
    double err = INFINITY;
    for (;; S.depth++) {
        double fine = 0.0, coarse = 0.0, sq = 0.0;
        for (int k = 0; k < n_active; k++) {
            double f, c;
            sl_ml_dyn_cell(L, &S, (ws->ci[k] + 0.5) * h0, (ws->cj[k] + 0.5) * h0, h0, 0, &f, &c,
                           &rays);
            fine += f, coarse += c, sq += (f - c) * (f - c);
        }
        *A = sl_ml_dyn_extrapolate(fine, coarse) * norm;
        err = sl_ml_dyn_err(fine, coarse, sq);
        if (sl_ml_dyn_done(err, tol, S.depth))
            break;
    }
    if (info)
        info->depth = S.depth, info->cells = n_active, info->rays = rays, info->err = err;
    return err <= tol ? SL_ML_DYN_OK : SL_ML_DYN_DEPTH;
}

#ifndef __CUDACC__
#include "microlensing.h"
#include "ml_caustics.h"
#include "ml_fsbl.h"
SL_EXTERN_C_BEGIN
/* The binary (s, q) for the engine (ml_dynamic.c): its critical curves
 * sampled so that consecutive caustic points are at most `resolution`
 * apart, kept in *cs (free with sl_ml_caustics_free) and pointed to. */
sl_status sl_ml_dyn_lens_make(double s, double q, double resolution, sl_ml_caustic_set *cs,
                              sl_ml_dyn_lens *out);
/* A binary (s, q) prepared for sources of radius rho (limb darkening a1)
 * to tolerance tol: its critical curves and caustic boxes, for the
 * partition (flags: SL_ML_FS_ENGINE_ONLY or 0). Read-only once open, so
 * threads share it; close with sl_ml_dyn_binary_close. */
typedef struct sl_ml_dyn_binary {
    double s, q, rho, a1, tol;
    unsigned flags;
    sl_ml_caustic_set cs;
    sl_ml_dyn_lens L;
    sl_ml_fsbl f; /* the caustic boxes and moments the partition reads */
} sl_ml_dyn_binary;

sl_status sl_ml_dyn_binary_open(double s, double q, double rho, double a1, double tol,
                                unsigned flags, sl_ml_dyn_binary *b);
void sl_ml_dyn_binary_close(sl_ml_dyn_binary *b);

/* One source at (y1, y2) on the calling thread: *A, its error bound *err
 * and (when not NULL) the partition's *method (0 point, 1 hexadecapole, 2
 * engine); ws is the thread's, grown as the images need (free it with
 * sl_ml_dyn_ws_free; {0} to begin). Returns SL_ML_DYN_OK, SL_ML_DYN_DEPTH
 * (*A the best estimate, short of tol), SL_ML_DYN_FULL, or -1 without
 * memory. The arguments are the caller's to check (binary_mag's checks). */
int sl_ml_dyn_binary_one(const sl_ml_dyn_binary *b, double y1, double y2, sl_ml_dyn_ws *ws,
                         double *A, double *err, int *method);
void sl_ml_dyn_ws_free(sl_ml_dyn_ws *ws);

/* sl_lens.binary_mag (microlensing.h): the magnifications A[k] of sources
 * of radius rho (linear limb darkening a1) at (y1[k], y2[k]) behind the
 * binary (s, q), to tol relative, partitioned by distance from the
 * caustics unless flags has SL_ML_FS_ENGINE_ONLY, on the CPU's threads
 * (be NULL or the cpu backend; another is refused). */
sl_status sl_ml_dyn_binary_mag(const sl_backend *be, double s, double q, double rho, double a1,
                               double tol, unsigned flags, int64_t n, const double *y1,
                               const double *y2, double *A, double *err);
/* The same, with the method each source took into method[k] (NULL
 * allowed): 0 the point source, 1 the hexadecapole, 2 the engine. */
sl_status sl_ml_dyn_binary_mag_m(const sl_backend *be, double s, double q, double rho, double a1,
                                 double tol, unsigned flags, int64_t n, const double *y1,
                                 const double *y2, double *A, double *err, int *method);
SL_EXTERN_C_END
#endif

#endif
