/* A magnification map as a PNG through PLplot (ml_plot.h): log10 A on a
 * dark-to-bright colour scale, equal axes in Einstein radii, the caustics
 * drawn over it. Written beside the path and renamed into place. */
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>

#include "ml_plot.h"
#include "starling/plot_guard.h"
#include "starling/nomem.h"

/* cmap1: black, purple, orange, pale yellow (a perceptual ramp like
 * inferno's, so that magnification reads as brightness). */
static void ramp(void)
{
    PLFLT pos[5] = {0.0, 0.3, 0.6, 0.85, 1.0};
    PLFLT r[5] = {0.0, 0.34, 0.87, 0.98, 0.99}, g[5] = {0.0, 0.06, 0.32, 0.65, 0.99},
          b[5] = {0.02, 0.42, 0.23, 0.04, 0.75};
    plscmap1n(256);
    plscmap1l(1, 5, pos, r, g, b, NULL);
}

/* The colours both pictures use, on a stream sl_plot_begin opened. */
static void style(void)
{
    plscol0(15, 0, 0, 0);
    plscol0(2, 80, 200, 255); /* light blue over the warm ramp */
    plschr(0, 0.8);
    ramp();
    plcol0(15);
}

/* The map on a stream that is open: z (log10 A) from lo to hi. */
typedef struct map_ctx {
    PLFLT **z;
    int nx, ny;
    double lo, hi;
    const double *box;
    const sl_plot_curve *curves;
    int n_curves;
    const char *title;
} map_ctx;

static void map_draw(void *ctx)
{
    const map_ctx *m = ctx;
    PLFLT **z = m->z;
    const int nx = m->nx, ny = m->ny, n_curves = m->n_curves;
    const double lo = m->lo, hi = m->hi, *box = m->box;
    const sl_plot_curve *curves = m->curves;
    const char *title = m->title;
    style();
    plenv(box[0], box[1], box[2], box[3], 1, 0);
    /* plimage puts sample i at xmin + i (xmax - xmin)/(nx - 1): give it the
     * pixel centres, so that pixel i is drawn where it lies (the outer half
     * pixels stay blank; plimage draws nothing outside its samples) */
    double hx = 0.5 * (box[1] - box[0]) / nx, hy = 0.5 * (box[3] - box[2]) / ny;
    plimage((const PLFLT *const *)z, nx, ny, box[0] + hx, box[1] - hx, box[2] + hy, box[3] - hy,
            lo, hi, box[0] + hx, box[1] - hx, box[2] + hy, box[3] - hy);
    plcol0(2);
    plwidth(1.2);
    for (int k = 0; k < n_curves; k++)
        plline((PLINT)curves[k].n, curves[k].x, curves[k].y);
    plcol0(15);
    plbox("bcnst", 0, 0, "bcnstv", 0, 0);
    char lab[160];
    snprintf(lab, sizeof lab, "%s  (log10 A from %.2f to %.2f)", title ? title : "", lo, hi);
    pllab("y1 [Einstein radii]", "y2 [Einstein radii]", lab);
}

sl_status sl_plot_map(const char *path, unsigned flags, const double *A, int nx, int ny,
                      const double *box, const sl_plot_curve *curves, int n_curves,
                      const char *title)
{
    sl_status st = sl_plot_png_ready(path, flags);
    if (st)
        return st;
    PLFLT **z;
    plAlloc2dGrid(&z, nx, ny);
    if (!z)
        return sl_fail_nomem((double)nx * ny * sizeof(PLFLT), "map picture");
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            double a = A[(size_t)j * nx + i];
            z[i][j] = a > 0.0 ? log10(a) : NAN;
            if (a > 0.0)
                lo = fmin(lo, z[i][j]), hi = fmax(hi, z[i][j]);
        }
    if (!(hi > lo))
        lo = 0.0, hi = 1.0;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            if (isnan(z[i][j]))
                z[i][j] = lo; /* no ray: as dark as the darkest pixel */
    int h = (int)(900.0 * (box[3] - box[2]) / (box[1] - box[0])) + 60;
    map_ctx m = {z, nx, ny, lo, hi, box, curves, n_curves, title};
    st = sl_plot_run(path, flags, 900, h < 300 ? 300 : h > 2000 ? 2000 : h, map_draw, &m);
    plFree2dGrid(z, nx, ny);
    return st;
}

/* The chi^2 grid on a stream that is open: z from 0 to hi, the best cell
 * (bi, bj) of chi^2 lo marked. */
typedef struct chi2_ctx {
    PLFLT **z;
    int nx, ny;
    double lo, hi;
    int bi, bj;
    const double *box;
    const char *title;
} chi2_ctx;

static void chi2_draw(void *ctx)
{
    const chi2_ctx *g = ctx;
    PLFLT **z = g->z;
    const int nx = g->nx, ny = g->ny, bi = g->bi, bj = g->bj;
    const double lo = g->lo, hi = g->hi, *box = g->box;
    const char *title = g->title;
    style();
    plenv(box[0], box[1], box[2], box[3], 0, 0);
    /* one filled rectangle a cell: a grid has few cells, and plimage would
     * treat the values as corners (n - 1 cells a side, none for n = 1) */
    double dx = (box[1] - box[0]) / nx, dy = (box[3] - box[2]) / ny;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            PLFLT cx[4] = {box[0] + i * dx, box[0] + (i + 1) * dx, box[0] + (i + 1) * dx,
                           box[0] + i * dx};
            PLFLT cy[4] = {box[2] + j * dy, box[2] + j * dy, box[2] + (j + 1) * dy,
                           box[2] + (j + 1) * dy};
            plcol1(z[i][j] / hi);
            plfill(4, cx, cy);
        }
    PLFLT mx = box[0] + (bi + 0.5) * dx, my = box[2] + (bj + 0.5) * dy;
    plcol0(2);
    plssym(0, 2.0);
    plpoin(1, &mx, &my, 5); /* a cross on the best cell */
    plcol0(15);
    plbox("bcnst", 0, 0, "bcnstv", 0, 0);
    char lab[200];
    snprintf(lab, sizeof lab, "%s  (log10(1 + chi2 - %.1f), 0 to %.2f)", title ? title : "", lo,
             hi);
    pllab("log10 s", "log10 q", lab);
}

/* A grid search's chi^2 over (log10 s, log10 q): nx x ny cells (row j at
 * chi2 + j nx) over box {x0, x1, y0, y1} (cell edges), coloured by
 * log10(1 + chi2 - min) so that the minimum is darkest and every
 * Delta chi^2 from 1 to 1e6 stays visible; the best cell marked. */
sl_status sl_plot_chi2_grid(const char *path, unsigned flags, const double *chi2, int nx, int ny,
                            const double *box, const char *title)
{
    sl_status st = sl_plot_png_ready(path, flags);
    if (st)
        return st;
    PLFLT **z;
    plAlloc2dGrid(&z, nx, ny);
    if (!z)
        return sl_fail_nomem((double)nx * ny * sizeof(PLFLT), "chi2 picture");
    double lo = INFINITY;
    int bi = 0, bj = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            if (chi2[(size_t)j * nx + i] < lo)
                lo = chi2[(size_t)j * nx + i], bi = i, bj = j;
    double hi = 0.0;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            double c = chi2[(size_t)j * nx + i];
            z[i][j] = isfinite(c) ? log10(1.0 + c - lo) : NAN;
            if (isfinite(z[i][j]))
                hi = fmax(hi, z[i][j]);
        }
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            if (isnan(z[i][j]))
                z[i][j] = hi; /* no fit: as bright as the worst */
    if (!(hi > 0.0))
        hi = 1.0;
    chi2_ctx g = {z, nx, ny, lo, hi, bi, bj, box, title};
    st = sl_plot_run(path, flags, 800, 700, chi2_draw, &g);
    plFree2dGrid(z, nx, ny);
    return st;
}
