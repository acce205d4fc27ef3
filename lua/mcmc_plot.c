/* Trace and corner plots of MCMC draws through PLplot (mcmc_plot.h). */
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcmc_plot.h"
#include "starling/plot_guard.h"
#include "plot_ticks.h"
#include "starling/nomem.h"

/* cmap0 1..8: colours that stay apart on white */
static void palette(void)
{
    static const int rgb[8][3] = {{31, 119, 180}, {214, 39, 40},  {44, 160, 44},
                                  {255, 127, 14}, {148, 103, 189}, {23, 190, 207},
                                  {140, 86, 75},  {127, 127, 127}};
    plscol0(15, 0, 0, 0);
    for (int i = 0; i < 8; i++)
        plscol0(i + 1, rgb[i][0], rgb[i][1], rgb[i][2]);
}

/* The colours and the character size every picture here uses. */
static void style(void)
{
    palette();
    plschr(0, 0.7);
}

/* Range of values v[k * stride] over n, widened by 5 % (and made non-empty). */
static void range(const double *v, int64_t n, int64_t stride, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (int64_t k = 0; k < n; k++) {
        double x = v[k * stride];
        if (isfinite(x))
            a = fmin(a, x), b = fmax(b, x);
    }
    if (!(b > a)) {
        double c = isfinite(a) ? a : 0.0, w = fabs(c) > 0 ? 0.01 * fabs(c) : 1.0;
        a = c - w, b = c + w;
    }
    double m = 0.05 * (b - a);
    *lo = a - m, *hi = b + m;
}

/* The trace picture's panels, one per parameter, on a stream that is open. */
typedef struct trace_ctx {
    const sl_plot_draws *d;
    int show;
    PLFLT *x, *y;
    const char *title;
} trace_ctx;

static void trace_draw(void *ctx)
{
    const trace_ctx *t = ctx;
    const sl_plot_draws *d = t->d;
    PLFLT *x = t->x, *y = t->y;
    const char *title = t->title;
    const int np = d->n_which, show = t->show;
    style();
    plssub(1, np);
    for (int q = 0; q < np; q++) {
        int p = d->which[q];
        const double *col = d->samples + p;
        double lo, hi;
        range(col, d->kept * d->chains, d->n_params, &lo, &hi);
        pladv(0);
        plvpor(0.1, 0.97, q == np - 1 ? 0.28 : 0.15, 0.85); /* room for the x label */
        plwind(x[0], x[d->kept - 1] > x[0] ? x[d->kept - 1] : x[0] + 1, lo, hi);
        plcol0(15);
        plbox("bcnst", 0, 0, "bcnstv", 0, 0);
        pllab(q == np - 1 ? "generation" : "", d->names[p], q == 0 && title ? title : "");
        for (int c = 0; c < show; c++) {
            for (int64_t k = 0; k < d->kept; k++)
                y[k] = (PLFLT)col[(k * d->chains + c) * d->n_params];
            plcol0(1 + c % 8);
            plwidth(1.0);
            plline((PLINT)d->kept, x, y);
        }
    }
}

sl_status sl_plot_trace(const char *path, unsigned flags, const sl_plot_draws *d,
                        int n_shown, const char *title)
{
    sl_status ready = sl_plot_png_ready(path, flags);
    if (ready)
        return ready;
    const int np = d->n_which;
    int show = n_shown < d->chains ? n_shown : (int)d->chains;
    PLFLT *x = malloc((size_t)d->kept * sizeof *x), *y = malloc((size_t)d->kept * sizeof *y);
    if (!x || !y) {
        free(x), free(y);
        return sl_fail_nomem((double)d->kept * 2 * sizeof(PLFLT), "trace plot");
    }
    for (int64_t k = 0; k < d->kept; k++)
        x[k] = (PLFLT)(d->first_gen + k * d->thin);
    trace_ctx t = {d, show, x, y, title};
    sl_status st = sl_plot_run(path, flags, 1000, 140 + 170 * np, trace_draw, &t);
    free(x), free(y);
    return st;
}

/* The x tick step of a panel `chars` characters wide: the most ticks (up
 * to 4) whose labels stand at least 2 characters apart. PLplot's own
 * choice (5 or 6 labels such as 1190 1200 1210 1220 under a panel a sixth
 * of the picture wide) runs the labels together. */
static double x_tick_step(double lo, double hi, double chars)
{
    double step = hi - lo;
    for (int n = 4; n >= 1; n--) {
        step = sl_plot_tick_step(lo, hi, n);
        int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
        char a[64], b[64];
        snprintf(a, sizeof a, "%.*f", decimals, ceil(lo / step) * step);
        snprintf(b, sizeof b, "%.*f", decimals, floor(hi / step) * step);
        double len = (double)(strlen(a) > strlen(b) ? strlen(a) : strlen(b));
        if (step / (hi - lo) * chars >= len + 2)
            break;
    }
    return step;
}

/* The x tick labels' character size: smaller than the rest, so that three
 * or four fit under a panel. */
static const double X_LABEL_SIZE = 0.55;

/* Histogram of column p on the diagonal panel. */
static void diag_panel(const sl_plot_draws *d, int p, int64_t S, double lo, double hi)
{
    enum { BINS = 40 };
    PLFLT bx[BINS], by[BINS];
    double h[BINS] = {0}, top = 0.0;
    for (int64_t k = 0; k < S; k++) {
        double v = d->samples[k * d->n_params + p];
        int b = (int)floor((v - lo) / (hi - lo) * BINS);
        if (b >= 0 && b < BINS)
            h[b] += 1.0;
    }
    for (int b = 0; b < BINS; b++)
        top = fmax(top, h[b]);
    plwind(lo, hi, 0, top > 0 ? 1.1 * top : 1.0);
    for (int b = 0; b < BINS; b++) {
        bx[b] = lo + (b + 0.5) * (hi - lo) / BINS;
        by[b] = h[b];
    }
    plcol0(1);
    plbin(BINS, bx, by, PL_BIN_CENTRED);
}

/* Thinned draws of (px, py), as points. */
static void pair_panel(const sl_plot_draws *d, int px, int py, int64_t S, int64_t every,
                       PLFLT *xs, PLFLT *ys)
{
    PLINT m = 0;
    for (int64_t k = 0; k < S; k += every) {
        xs[m] = d->samples[k * d->n_params + px];
        ys[m] = d->samples[k * d->n_params + py];
        m++;
    }
    plcol0(1);
    plssym(0, 0.35);
    plpoin(m, xs, ys, 1);
}

/* The corner picture's panels on a stream that is open. */
typedef struct corner_ctx {
    const sl_plot_draws *d;
    int64_t S, every;
    int side;
    const double *lo, *hi;
    PLFLT *xs, *ys;
    const char *title;
} corner_ctx;

static void corner_draw(void *ctx)
{
    const corner_ctx *k = ctx;
    const sl_plot_draws *d = k->d;
    const int64_t S = k->S, every = k->every;
    const double *lo = k->lo, *hi = k->hi;
    PLFLT *xs = k->xs, *ys = k->ys;
    const char *title = k->title;
    const int np = d->n_which;
    /* a panel's width in characters of the x labels' size: about 11 pixels
     * each (measured on the pictures) */
    const double chars = (0.95 - 0.08) / np * 0.94 * k->side / 11.0;
    style();
    const double m0 = 0.08, m1 = 0.95, cell = (m1 - m0) / np;
    pladv(0); /* one page; each panel is a viewport on it */
    for (int r = 0; r < np; r++)
        for (int c = 0; c <= r; c++) {
            plvpor(m0 + c * cell + 0.06 * cell, m0 + (c + 1) * cell,
                   m1 - (r + 1) * cell + 0.06 * cell, m1 - r * cell);
            int px = d->which[c], py = d->which[r];
            if (r == c) {
                diag_panel(d, px, S, lo[c], hi[c]);
            } else {
                plwind(lo[c], hi[c], lo[r], hi[r]);
                pair_panel(d, px, py, S, every, xs, ys);
            }
            plcol0(15);
            plschr(0, X_LABEL_SIZE);
            plbox(r == np - 1 ? "bcnst" : "bcst", x_tick_step(lo[c], hi[c], chars), 0, "", 0, 0);
            plschr(0, 0.7);
            plbox("", 0, 0, c == 0 && r > 0 ? "bcnstv" : "bcst", 0, 0);
            if (r == np - 1)
                plmtex("b", 3.2, 0.5, 0.5, d->names[px]);
            if (c == 0 && r > 0)
                plmtex("l", 5.0, 0.5, 0.5, d->names[py]);
            if (r == 0 && c == 0 && title)
                plmtex("t", 1.0, 0.0, 0.0, title);
        }
}

sl_status sl_plot_corner(const char *path, unsigned flags, const sl_plot_draws *d,
                         int max_points, const char *title)
{
    sl_status ready = sl_plot_png_ready(path, flags);
    if (ready)
        return ready;
    const int np = d->n_which;
    const int64_t S = d->kept * d->chains;
    int64_t every = S > max_points ? (S + max_points - 1) / max_points : 1;
    PLFLT *xs = malloc((size_t)(S / every + 1) * sizeof *xs);
    PLFLT *ys = malloc((size_t)(S / every + 1) * sizeof *ys);
    double *lo = malloc((size_t)np * sizeof *lo), *hi = malloc((size_t)np * sizeof *hi);
    if (!xs || !ys || !lo || !hi) {
        free(xs), free(ys), free(lo), free(hi);
        return sl_fail_nomem((double)S * 2 * sizeof(PLFLT), "corner plot");
    }
    for (int q = 0; q < np; q++)
        range(d->samples + d->which[q], S, d->n_params, &lo[q], &hi[q]);
    int side = 120 + 190 * np;
    corner_ctx k = {d, S, every, side, lo, hi, xs, ys, title};
    sl_status st = sl_plot_run(path, flags, side, side, corner_draw, &k);
    free(xs), free(ys), free(lo), free(hi);
    return st;
}

/* The points picture on a stream that is open, over [xa, xb] x [ya, yb]. */
typedef struct points_ctx {
    const sl_plot_points_spec *p;
    double xa, xb, ya, yb;
    PLFLT *gx, *gy;
} points_ctx;

static void points_draw(void *ctx)
{
    const points_ctx *c = ctx;
    const sl_plot_points_spec *p = c->p;
    const double xa = c->xa, xb = c->xb, ya = c->ya, yb = c->yb;
    PLFLT *gx = c->gx, *gy = c->gy;
    style();
    plscol0(9, 150, 150, 150);
    plcol0(15);
    plenv(xa, xb, ya, yb, 0, 0);
    pllab(p->xlabel ? p->xlabel : "", p->ylabel ? p->ylabel : "", p->title ? p->title : "");
    for (int64_t k = 0; k < p->n_grid; k++)
        gx[k] = p->grid[k];
    for (int64_t l = 0; l < p->n_lines; l++) {
        for (int64_t k = 0; k < p->n_grid; k++)
            gy[k] = p->lines[l * p->n_grid + k];
        plcol0(l == p->n_lines - 1 && p->last_bold ? 15 : 9);
        plwidth(l == p->n_lines - 1 && p->last_bold ? 1.5 : 0.5);
        plline((PLINT)p->n_grid, gx, gy);
    }
    plwidth(1.0);
    for (int64_t i = 0; i < p->n; i++) {
        PLFLT x = p->x[i], y = p->y[i];
        plcol0(1 + (p->group ? p->group[i] : 0) % 8);
        if (p->err) {
            PLFLT lo = y - p->err[i], hi = y + p->err[i];
            plerry(1, &x, &lo, &hi);
        }
        plssym(0, 0.6);
        plpoin(1, &x, &y, 17);
    }
}

sl_status sl_plot_points(const char *path, unsigned flags, const sl_plot_points_spec *p)
{
    sl_status ready = sl_plot_png_ready(path, flags);
    if (ready)
        return ready;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int64_t i = 0; i < p->n; i++) {
        double e = p->err ? p->err[i] : 0.0;
        x0 = fmin(x0, p->x[i]), x1 = fmax(x1, p->x[i]);
        y0 = fmin(y0, p->y[i] - e), y1 = fmax(y1, p->y[i] + e);
    }
    for (int64_t k = 0; k < p->n_lines * p->n_grid; k++)
        if (isfinite(p->lines[k]))
            y0 = fmin(y0, p->lines[k]), y1 = fmax(y1, p->lines[k]);
    for (int64_t k = 0; k < p->n_grid; k++)
        x0 = fmin(x0, p->grid[k]), x1 = fmax(x1, p->grid[k]);
    if (!(x1 > x0) || !(y1 > y0))
        return sl_fail(SL_ERR_ARG, "nothing to draw: the points and lines span no area");
    double mx = 0.02 * (x1 - x0), my = 0.05 * (y1 - y0);
    PLFLT *gx = malloc((size_t)(p->n_grid > 0 ? p->n_grid : 1) * sizeof *gx);
    PLFLT *gy = malloc((size_t)(p->n_grid > 0 ? p->n_grid : 1) * sizeof *gy);
    if (!gx || !gy) {
        free(gx), free(gy);
        return sl_fail_nomem((double)p->n_grid * 2 * sizeof(PLFLT), "points plot");
    }
    points_ctx c = {p, x0 - mx, x1 + mx, y0 - my, y1 + my, gx, gy};
    sl_status st = sl_plot_run(path, flags, p->width, p->height, points_draw, &c);
    free(gx), free(gy);
    return st;
}
