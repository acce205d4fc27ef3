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

#endif
