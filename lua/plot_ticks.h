/* Tick steps shared by the pictures (PLplot's and plot_png's own). */
#ifndef STARLING_LUA_PLOT_TICKS_H
#define STARLING_LUA_PLOT_TICKS_H

#include <math.h>

/* A major tick step of 1, 2 or 5 times a power of ten giving about n ticks
 * over [lo, hi]. */
static inline double sl_plot_tick_step(double lo, double hi, int n)
{
    double raw = (hi - lo) / n, p = pow(10.0, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

#endif
