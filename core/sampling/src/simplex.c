/* Batched Nelder-Mead (simplex.h). Each round evaluates, in one batch,
 * the reflections of every live simplex; then, in a second batch, the
 * expansions and contractions that the reflections call for; then, in a
 * third, the shrunk vertices of the simplices whose contraction failed. */
#include "starling/simplex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "starling/cancel.h"
#include "starling/nomem.h"

enum { NM_DIM_MAX = 32 };

/* What a simplex waits for in the second batch. */
enum { NM_DONE = 0, NM_NONE, NM_EXPAND, NM_OUTSIDE, NM_INSIDE, NM_SHRINK };

typedef struct nm_state {
    int dim;
    size_t n;
    double *v;     /* n x (dim + 1) x dim vertices */
    double *fv;    /* n x (dim + 1) values, sorted best first after nm_order */
    double *xr, *fr; /* n reflections */
    double *xt, *ft; /* n trial points of the second batch */
    double *xs, *fs; /* shrink points: n x dim x dim */
    double *c;     /* n centroids */
    int *want, *iters;
    size_t *idx;   /* simplices in a batch */
    size_t *own;   /* the simplex of each point of a batch */
    double *buf, *fbuf; /* a batch's points and values */
} nm_state;

static double nm_val(double f) { return isfinite(f) ? f : INFINITY; }

static double *vert(const nm_state *s, size_t i, int k)
{
    return s->v + (i * (size_t)(s->dim + 1) + (size_t)k) * (size_t)s->dim;
}

/* Insertion sort of simplex i's vertices by value (stable: ties keep
 * their order, so the result does not depend on anything but the values). */
static void nm_order(nm_state *s, size_t i)
{
    int d = s->dim;
    double *f = s->fv + i * (size_t)(d + 1), tmp[NM_DIM_MAX];
    for (int a = 1; a <= d; a++)
        for (int b = a; b > 0 && f[b] < f[b - 1]; b--) {
            double x = f[b];
            f[b] = f[b - 1], f[b - 1] = x;
            memcpy(tmp, vert(s, i, b), d * sizeof *tmp);
            memcpy(vert(s, i, b), vert(s, i, b - 1), d * sizeof *tmp);
            memcpy(vert(s, i, b - 1), tmp, d * sizeof *tmp);
        }
}

static void nm_free(nm_state *s)
{
    free(s->v), free(s->fv), free(s->xr), free(s->fr), free(s->xt), free(s->ft), free(s->xs);
    free(s->fs), free(s->c), free(s->want), free(s->iters), free(s->idx), free(s->own), free(s->buf);
    free(s->fbuf);
}

static sl_status nm_alloc(nm_state *s, int dim, size_t n)
{
    memset(s, 0, sizeof *s);
    s->dim = dim, s->n = n;
    size_t d = (size_t)dim, v = d + 1, big = n * v * d;
    s->v = malloc(big * sizeof *s->v);
    s->fv = malloc(n * v * sizeof *s->fv);
    s->xr = malloc(n * d * sizeof *s->xr);
    s->fr = malloc(n * sizeof *s->fr);
    s->xt = malloc(n * d * sizeof *s->xt);
    s->ft = malloc(n * sizeof *s->ft);
    s->xs = malloc(n * d * d * sizeof *s->xs);
    s->fs = malloc(n * d * sizeof *s->fs);
    s->c = malloc(n * d * sizeof *s->c);
    s->want = malloc(n * sizeof *s->want);
    s->iters = calloc(n, sizeof *s->iters);
    s->idx = malloc(n * sizeof *s->idx);
    s->own = malloc(n * v * sizeof *s->own);
    s->buf = malloc(big * sizeof *s->buf);
    s->fbuf = malloc(n * v * sizeof *s->fbuf);
    if (!s->v || !s->fv || !s->xr || !s->fr || !s->xt || !s->ft || !s->xs || !s->fs || !s->c ||
        !s->want || !s->iters || !s->idx || !s->own || !s->buf || !s->fbuf) {
        nm_free(s);
        return sl_fail_nomem((double)big * 3 * sizeof(double), "simplex: %zu simplices of "
                             "dimension %d", n, dim);
    }
    return SL_OK;
}

static sl_status nm_check(const sl_simplex_spec *s)
{
    if (!s || s->dim < 1 || s->dim > NM_DIM_MAX)
        return sl_fail(SL_ERR_ARG, "simplex: dim = %d: expected 1 to %d", s ? s->dim : 0,
                       NM_DIM_MAX);
    if (s->n < 1 || !s->start || !s->step)
        return sl_fail(SL_ERR_ARG, "simplex: %zu simplices%s: expected at least one, with "
                       "start points and steps", s->n, s->start && s->step ? "" : " (no start "
                       "or no step)");
    if (s->max_iter < 1)
        return sl_fail(SL_ERR_ARG, "simplex: max_iter = %d: expected > 0", s->max_iter);
    if (!(s->ftol >= 0.0) || !isfinite(s->ftol))
        return sl_fail(SL_ERR_ARG, "simplex: ftol = %g: expected a finite number >= 0", s->ftol);
    for (int k = 0; k < s->dim; k++)
        if (!isfinite(s->step[k]) || s->step[k] == 0.0)
            return sl_fail(SL_ERR_ARG, "simplex: step[%d] = %g: expected a finite number != 0",
                           k + 1, s->step[k]);
    for (size_t i = 0; i < s->n * (size_t)s->dim; i++)
        if (!isfinite(s->start[i]))
            return sl_fail(SL_ERR_ARG, "simplex: start point %zu, coordinate %zu = %g: expected "
                           "a finite number", i / (size_t)s->dim + 1, i % (size_t)s->dim + 1,
                           s->start[i]);
    return SL_OK;
}

/* Evaluates m points of dimension dim at x into f, counting. */
static sl_status nm_eval(sl_simplex_fn fn, void *user, const double *x, const size_t *own,
                         size_t m, double *f, sl_simplex_result *out)
{
    if (m == 0)
        return SL_OK;
    sl_status st = fn(user, x, own, m, f);
    if (st)
        return st;
    for (size_t i = 0; i < m; i++)
        f[i] = nm_val(f[i]);
    out->evals += m;
    out->batches++;
    return sl_cancelled() ? sl_fail(SL_ERR_CANCELLED, "simplex: cancelled") : SL_OK;
}

static sl_status nm_init(nm_state *s, const sl_simplex_spec *sp, sl_simplex_fn fn, void *user,
                         sl_simplex_result *out)
{
    int d = s->dim;
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k <= d; k++) {
            double *x = vert(s, i, k);
            memcpy(x, sp->start + i * (size_t)d, (size_t)d * sizeof *x);
            if (k > 0)
                x[k - 1] += sp->step[k - 1];
            s->own[i * (size_t)(d + 1) + (size_t)k] = i;
        }
    sl_status st = nm_eval(fn, user, s->v, s->own, s->n * (size_t)(d + 1), s->fv, out);
    for (size_t i = 0; !st && i < s->n; i++) {
        nm_order(s, i);
        s->want[i] = NM_NONE;
    }
    return st;
}

/* Whether simplex i is finished: its spread within ftol, or out of steps. */
static int nm_finished(const nm_state *s, size_t i, const sl_simplex_spec *sp)
{
    const double *f = s->fv + i * (size_t)(s->dim + 1);
    if (s->iters[i] >= sp->max_iter)
        return 1;
    return isfinite(f[s->dim]) && f[s->dim] - f[0] <= sp->ftol;
}

/* Round step 1: centroids and reflections of live simplices, one batch. */
static sl_status nm_reflect(nm_state *s, sl_simplex_fn fn, void *user, const sl_simplex_spec *sp,
                            sl_simplex_result *out, size_t *live)
{
    int d = s->dim;
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->want[i] == NM_DONE)
            continue;
        if (nm_finished(s, i, sp)) {
            s->want[i] = NM_DONE;
            continue;
        }
        double *c = s->c + i * (size_t)d, *xr = s->xr + i * (size_t)d;
        for (int q = 0; q < d; q++) {
            double a = 0.0;
            for (int k = 0; k < d; k++)
                a += vert(s, i, k)[q];
            c[q] = a / d;
            xr[q] = 2.0 * c[q] - vert(s, i, d)[q];
        }
        memcpy(s->buf + m * (size_t)d, xr, (size_t)d * sizeof *xr);
        s->own[m] = i;
        s->idx[m++] = i;
    }
    *live = m;
    sl_status st = nm_eval(fn, user, s->buf, s->own, m, s->fbuf, out);
    for (size_t j = 0; !st && j < m; j++)
        s->fr[s->idx[j]] = s->fbuf[j];
    return st;
}

static void nm_replace_worst(nm_state *s, size_t i, const double *x, double f)
{
    memcpy(vert(s, i, s->dim), x, (size_t)s->dim * sizeof *x);
    s->fv[i * (size_t)(s->dim + 1) + (size_t)s->dim] = f;
    nm_order(s, i);
}

/* Round step 2: what each reflection calls for, and its trial point. */
static void nm_decide(nm_state *s, size_t i)
{
    int d = s->dim;
    const double *f = s->fv + i * (size_t)(d + 1), *c = s->c + i * (size_t)d;
    const double *xr = s->xr + i * (size_t)d, *xw = vert(s, i, d);
    double fr = s->fr[i], *xt = s->xt + i * (size_t)d;
    if (fr < f[0]) {
        s->want[i] = NM_EXPAND;
        for (int q = 0; q < d; q++)
            xt[q] = c[q] + 2.0 * (xr[q] - c[q]);
    } else if (fr < f[d - 1]) {
        s->want[i] = NM_NONE;
        nm_replace_worst(s, i, xr, fr);
    } else if (fr < f[d]) {
        s->want[i] = NM_OUTSIDE;
        for (int q = 0; q < d; q++)
            xt[q] = c[q] + 0.5 * (xr[q] - c[q]);
    } else {
        s->want[i] = NM_INSIDE;
        for (int q = 0; q < d; q++)
            xt[q] = c[q] + 0.5 * (xw[q] - c[q]);
    }
}

/* Round step 3: accept trial points, or mark the simplex for a shrink. */
static void nm_accept(nm_state *s, size_t i)
{
    int d = s->dim;
    const double *f = s->fv + i * (size_t)(d + 1);
    double ft = s->ft[i], fr = s->fr[i];
    const double *xt = s->xt + i * (size_t)d, *xr = s->xr + i * (size_t)d;
    switch (s->want[i]) {
    case NM_EXPAND:
        if (ft < fr)
            nm_replace_worst(s, i, xt, ft);
        else
            nm_replace_worst(s, i, xr, fr);
        s->want[i] = NM_NONE;
        break;
    case NM_OUTSIDE:
        if (ft <= fr) {
            nm_replace_worst(s, i, xt, ft);
            s->want[i] = NM_NONE;
        } else {
            s->want[i] = NM_SHRINK;
        }
        break;
    case NM_INSIDE:
        if (ft < f[d]) {
            nm_replace_worst(s, i, xt, ft);
            s->want[i] = NM_NONE;
        } else {
            s->want[i] = NM_SHRINK;
        }
        break;
    default:
        break;
    }
}

static sl_status nm_trials(nm_state *s, sl_simplex_fn fn, void *user, size_t live,
                           sl_simplex_result *out)
{
    int d = s->dim;
    size_t m = 0;
    for (size_t j = 0; j < live; j++) {
        size_t i = s->idx[j];
        nm_decide(s, i);
        if (s->want[i] != NM_NONE) {
            memcpy(s->buf + m * (size_t)d, s->xt + i * (size_t)d, (size_t)d * sizeof(double));
            s->own[m++] = i;
        }
    }
    sl_status st = nm_eval(fn, user, s->buf, s->own, m, s->fbuf, out);
    for (size_t j = 0, k = 0; !st && j < live; j++) {
        size_t i = s->idx[j];
        if (s->want[i] == NM_NONE)
            continue;
        s->ft[i] = s->fbuf[k++];
        nm_accept(s, i);
    }
    return st;
}

static sl_status nm_shrink(nm_state *s, sl_simplex_fn fn, void *user, size_t live,
                           sl_simplex_result *out)
{
    int d = s->dim;
    size_t m = 0;
    for (size_t j = 0; j < live; j++) {
        size_t i = s->idx[j];
        if (s->want[i] != NM_SHRINK)
            continue;
        const double *b = vert(s, i, 0);
        for (int k = 1; k <= d; k++) {
            double *x = vert(s, i, k);
            for (int q = 0; q < d; q++)
                x[q] = b[q] + 0.5 * (x[q] - b[q]);
            memcpy(s->buf + m * (size_t)d, x, (size_t)d * sizeof *x);
            s->own[m++] = i;
        }
    }
    sl_status st = nm_eval(fn, user, s->buf, s->own, m, s->fbuf, out);
    for (size_t j = 0, k = 0; !st && j < live; j++) {
        size_t i = s->idx[j];
        if (s->want[i] != NM_SHRINK)
            continue;
        for (int v = 1; v <= d; v++)
            s->fv[i * (size_t)(d + 1) + (size_t)v] = s->fbuf[k++];
        nm_order(s, i);
        s->want[i] = NM_NONE;
    }
    return st;
}

sl_status sl_simplex_minimise(const sl_simplex_spec *sp, sl_simplex_fn fn, void *user,
                              sl_simplex_result *out)
{
    sl_status st = nm_check(sp);
    if (st)
        return st;
    if (!fn || !out || !out->x || !out->f)
        return sl_fail(SL_ERR_ARG, "simplex: no objective or no output arrays");
    out->evals = out->batches = 0;
    nm_state s;
    if ((st = nm_alloc(&s, sp->dim, sp->n)))
        return st;
    st = nm_init(&s, sp, fn, user, out);
    size_t live = 1;
    while (!st && live > 0) {
        st = nm_reflect(&s, fn, user, sp, out, &live);
        if (!st && live)
            st = nm_trials(&s, fn, user, live, out);
        if (!st && live)
            st = nm_shrink(&s, fn, user, live, out);
        for (size_t j = 0; j < live; j++)
            s.iters[s.idx[j]]++;
    }
    for (size_t i = 0; !st && i < sp->n; i++) {
        memcpy(out->x + i * (size_t)sp->dim, vert(&s, i, 0), (size_t)sp->dim * sizeof(double));
        out->f[i] = s.fv[i * (size_t)(sp->dim + 1)];
        if (out->iters)
            out->iters[i] = s.iters[i];
    }
    nm_free(&s);
    return st;
}
