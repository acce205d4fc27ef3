/* Pictures of microlensing results (ml_plot.c, PLplot): a magnification
 * map with its caustics over it. */
#ifndef STARLING_LUA_ML_PLOT_H
#define STARLING_LUA_ML_PLOT_H

#include <stdint.h>
#include "starling/status.h"

typedef struct sl_plot_curve {
    int64_t n;
    const double *x, *y;
} sl_plot_curve;

/* A (nx x ny, row j at A + j nx) over box {x0, x1, y0, y1} as a PNG at
 * path (log10 colour scale), the curves drawn over it. */
sl_status sl_plot_map(const char *path, unsigned flags, const double *A, int nx, int ny,
                      const double *box, const sl_plot_curve *curves, int n_curves,
                      const char *title);

/* A grid search's chi^2 (nx x ny cells, row j at chi2 + j nx) over box
 * {log10 s from, to, log10 q from, to} (cell edges) as a PNG: log10(1 +
 * chi2 - min), the best cell marked. */
sl_status sl_plot_chi2_grid(const char *path, unsigned flags, const double *chi2, int nx, int ny,
                            const double *box, const char *title);

#endif
