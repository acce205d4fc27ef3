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
sl_status sl_plot_map(const char *path, const double *A, int nx, int ny, const double *box,
                      const sl_plot_curve *curves, int n_curves, const char *title);

#endif
