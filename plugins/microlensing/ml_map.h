/* Inverse ray shooting, written once as SL_HD C: the lens map of n point
 * lenses (the binary unrolled), a ray's position in its cell from the
 * project's Philox (starling/rng.h, cuRAND's generator), and its pixel. */
#ifndef STARLING_ML_MAP_H
#define STARLING_ML_MAP_H

#include <math.h>
#include <stdint.h>
#include "microlensing.h"
#include "starling/rng.h"

/* zeta = z - sum m_i / conj(z - z_i), as (sx, sy). */
SL_HD SL_INLINE void sl_ml_shoot_map(const sl_ml_lenses *L, double x, double y, double *sx,
                                     double *sy)
{
    double ax = x, ay = y;
    if (L->n == 2) { /* the binary, the common case, without the loop */
        double dx0 = x - L->x[0], dy0 = y - L->y[0], dx1 = x - L->x[1], dy1 = y - L->y[1];
        double f0 = L->m[0] / (dx0 * dx0 + dy0 * dy0), f1 = L->m[1] / (dx1 * dx1 + dy1 * dy1);
        *sx = ax - f0 * dx0 - f1 * dx1;
        *sy = ay - f0 * dy0 - f1 * dy1;
        return;
    }
    for (int i = 0; i < L->n; i++) {
        double dx = x - L->x[i], dy = y - L->y[i];
        double f = L->m[i] / (dx * dx + dy * dy);
        ax -= f * dx;
        ay -= f * dy;
    }
    *sx = ax;
    *sy = ay;
}

/* The pixel a ray from (x, y) lands in, or -1. */
SL_HD SL_INLINE int64_t sl_ml_ray_pixel(const sl_ml_map_spec *m, double inv_dx, double inv_dy,
                                        double x, double y)
{
    double sx, sy;
    sl_ml_shoot_map(&m->lenses, x, y, &sx, &sy);
    double fx = (sx - m->x0) * inv_dx, fy = (sy - m->y0) * inv_dy;
    if (!(fx >= 0.0 && fx < m->nx && fy >= 0.0 && fy < m->ny))
        return -1;
    return (int64_t)fy * m->nx + (int64_t)fx;
}

/* Ray k of cell c (column cx, row cy of the lens-plane grid from (lx0, ly0),
 * side h): uniform in the cell from Philox block (seed, c, k). */
SL_HD SL_INLINE void sl_ml_ray(uint64_t seed, int64_t c, int64_t k, double lx0, double ly0,
                               double h, int64_t cx, int64_t cy, double *x, double *y)
{
    sl_u32x4 r = sl_rng_block(seed, (uint64_t)c, (uint64_t)k);
    *x = lx0 + h * ((double)cx + sl_u01(r.v[0], r.v[1]));
    *y = ly0 + h * ((double)cy + sl_u01(r.v[2], r.v[3]));
}

/* Whether cell (cx, cy) of a grid from (lx0, ly0) with side h must be
 * shot: it holds a lens (whose neighbourhood maps everywhere), or the box
 * around the images of its corners and centre meets the source box. */
SL_HD SL_INLINE int sl_ml_cell_active(const sl_ml_map_spec *m, double lx0, double ly0, double h,
                                      int64_t cx, int64_t cy)
{
    double x = lx0 + h * (double)cx, y = ly0 + h * (double)cy;
    for (int i = 0; i < m->lenses.n; i++)
        if (m->lenses.x[i] >= x && m->lenses.x[i] < x + h && m->lenses.y[i] >= y &&
            m->lenses.y[i] < y + h)
            return 1;
    double bx0 = INFINITY, bx1 = -INFINITY, by0 = INFINITY, by1 = -INFINITY;
    for (int k = 0; k < 5; k++) {
        double sx, sy;
        double px = k == 4 ? 0.5 : (double)(k & 1), py = k == 4 ? 0.5 : (double)(k >> 1);
        sl_ml_shoot_map(&m->lenses, x + h * px, y + h * py, &sx, &sy);
        /* comparisons, not fmin/fmax: without -ffast-math GCC calls libm's
         * (NaN rules) and they took a tenth of a CPU map's time */
        bx0 = sx < bx0 ? sx : bx0;
        bx1 = sx > bx1 ? sx : bx1;
        by0 = sy < by0 ? sy : by0;
        by1 = sy > by1 ? sy : by1;
    }
    return bx1 >= m->x0 && bx0 < m->x1 && by1 >= m->y0 && by0 < m->y1;
}

/* The rays of one active cell c into count (atomics: CUDA's, or the
 * compiler's on the CPU). */
#if defined(__CUDA_ARCH__)
#define SL_ML_COUNT(p) atomicAdd(&count[p], 1u)
#else
#define SL_ML_COUNT(p) __atomic_fetch_add(&count[p], 1u, __ATOMIC_RELAXED)
#endif
SL_HD SL_INLINE void sl_ml_shoot_cell(const sl_ml_map_spec *m, double lx0, double ly0, double h,
                                      int64_t ncx, int64_t rays_per_cell, int64_t c,
                                      double inv_dx, double inv_dy, uint32_t *count)
{
    int64_t cy = c / ncx, cx = c - cy * ncx;
    for (int64_t k = 0; k < rays_per_cell; k++) {
        double x, y;
        sl_ml_ray(m->seed, c, k, lx0, ly0, h, cx, cy, &x, &y);
        int64_t p = sl_ml_ray_pixel(m, inv_dx, inv_dy, x, y);
        if (p >= 0)
            SL_ML_COUNT(p);
    }
}

#endif
