/* Pictures of a sampler's draws, as PNG files through PLplot: a trace
 * (each parameter against generation, a few chains) and a corner plot
 * (histograms on the diagonal, pairs of parameters below). Each file
 * appears whole or not at all (a temporary file renamed into place). */
#ifndef SL_MCMC_PLOT_H
#define SL_MCMC_PLOT_H

#include <stdint.h>
#include "starling/status.h"

/* Draws laid out kept x chains x n_params; which: the n_which parameters
 * to show, by index; kept generation k is generation first_gen + k thin. */
typedef struct sl_plot_draws {
    const double *samples;
    int64_t kept, chains;
    int n_params;
    const char *const *names;
    const int *which;
    int n_which;
    int64_t first_gen, thin;
} sl_plot_draws;

sl_status sl_plot_trace(const char *path, unsigned flags, const sl_plot_draws *d,
                        int n_shown, const char *title);
/* At most max_points draws (evenly thinned) in each pair panel. */
sl_status sl_plot_corner(const char *path, unsigned flags, const sl_plot_draws *d,
                         int max_points, const char *title);



/* Points (with error bars, coloured by group) and lines sampled on one
 * grid: data and models, e.g. radial velocities and posterior draws. */
typedef struct sl_plot_points_spec {
    const double *x, *y, *err; /* n points; err may be NULL */
    const int *group;          /* n, from 0; may be NULL */
    int64_t n;
    const double *grid;        /* n_grid abscissae */
    const double *lines;       /* n_lines x n_grid ordinates */
    int64_t n_grid, n_lines;
    int last_bold;             /* the last line in black, the others grey */
    const char *title, *xlabel, *ylabel;
    int width, height;
} sl_plot_points_spec;

sl_status sl_plot_points(const char *path, unsigned flags, const sl_plot_points_spec *p);
#endif
