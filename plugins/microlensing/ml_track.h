/* Finite-source light curves read from a magnification map, written once
 * as SL_HD C: the map by bilinear interpolation between pixel centres, the
 * source as a square grid of points inside its disk, each weighted by the
 * two-coefficient limb-darkening law of Ling (2013),
 *   S = 1 - l1 (1 - mu) - l2 (1 - sqrt mu),  mu = sqrt(1 - r^2 / rho^2)
 * (l2 = 0: the linear law, l1 = a1). The grid's step is the map's pixel or
 * rho / SL_ML_TRACK_MIN_STEPS, whichever is finer, so a small source still
 * has ~300 points. A source that reaches outside the map gives NaN. */
#ifndef STARLING_ML_TRACK_H
#define STARLING_ML_TRACK_H

#include <math.h>
#include "microlensing.h"

#ifndef SL_ML_TRACK_MIN_STEPS
#define SL_ML_TRACK_MIN_STEPS 20
#endif
#ifndef SL_ML_TRACK_PER_PIXEL
#define SL_ML_TRACK_PER_PIXEL 2
#endif

/* The map as the readers see it: pixel (i, j) centred at
 * (x0 + (i + 1/2) dx, y0 + (j + 1/2) dy). */
typedef struct sl_ml_grid2 {
    const double *A;
    int nx, ny;
    double x0, y0, dx, dy;
} sl_ml_grid2;

/* A at (x, y) between the four nearest pixel centres; NaN outside them. */
SL_HD SL_INLINE double sl_ml_bilinear(const sl_ml_grid2 *g, double x, double y)
{
    double fx = (x - g->x0) / g->dx - 0.5, fy = (y - g->y0) / g->dy - 0.5;
    if (!(fx >= 0.0 && fy >= 0.0 && fx <= g->nx - 1 && fy <= g->ny - 1))
        return NAN;
    int i = (int)fx, j = (int)fy;
    if (i > g->nx - 2)
        i = g->nx - 2;
    if (j > g->ny - 2)
        j = g->ny - 2;
    double tx = fx - i, ty = fy - j;
    const double *r0 = g->A + (size_t)j * g->nx + i, *r1 = r0 + g->nx;
    return (1.0 - ty) * ((1.0 - tx) * r0[0] + tx * r0[1]) + ty * ((1.0 - tx) * r1[0] + tx * r1[1]);
}

/* Steps of the source grid across its radius: SL_ML_TRACK_PER_PIXEL per
 * map pixel, at least SL_ML_TRACK_MIN_STEPS. The ratio is rounded with a
 * margin: rho / h = 10.000000000000002 must not give 11 steps on one
 * backend and 10 on the other (dx computed two ways), which moved the
 * result by 0.7 % next to a fold. */
SL_HD SL_INLINE int sl_ml_track_steps(const sl_ml_grid2 *g, double rho)
{
    double h = fmin(g->dx, g->dy);
    int k = (int)ceil(SL_ML_TRACK_PER_PIXEL * rho / h * (1.0 - 1e-9));
    return k < SL_ML_TRACK_MIN_STEPS ? SL_ML_TRACK_MIN_STEPS : k;
}

/* Weight of the grid point (i, j) of a source with k steps per radius (0
 * outside the disk). */
SL_HD SL_INLINE double sl_ml_track_weight(int i, int j, int k, double l1, double l2)
{
    double r2 = ((double)i * i + (double)j * j) / ((double)k * k);
    if (r2 > 1.0)
        return 0.0;
    double mu = sqrt(1.0 - r2);
    return 1.0 - l1 * (1.0 - mu) - l2 * (1.0 - sqrt(mu));
}

/* The source centred at (cx, cy) of radius rho on a grid of k steps per
 * radius: sum S A over sum S. */
SL_HD SL_INLINE double sl_ml_track_point_k(const sl_ml_grid2 *g, double cx, double cy,
                                           double rho, double l1, double l2, int k)
{
    double step = rho / k, sw = 0.0, swa = 0.0;
    for (int j = -k; j <= k; j++)
        for (int i = -k; i <= k; i++) {
            double w = sl_ml_track_weight(i, j, k, l1, l2);
            if (w == 0.0)
                continue;
            swa += w * sl_ml_bilinear(g, cx + i * step, cy + j * step);
            sw += w;
        }
    return swa / sw;
}

SL_HD SL_INLINE double sl_ml_track_point(const sl_ml_grid2 *g, double cx, double cy, double rho,
                                         double l1, double l2)
{
    return sl_ml_track_point_k(g, cx, cy, rho, l1, l2, sl_ml_track_steps(g, rho));
}

#endif
