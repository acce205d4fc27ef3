/* MEGNO by shadow trajectories (megno.h says what and why). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/megno.h"
#include "starling/nomem.h"
#include "starling/params.h"
#include "starling/propagator.h"
#include "starling/fparams.h"
#include "starling/rng.h"
#include "run_diag.h"

enum { DEFAULT_STEPS = 10 };

void sl_megno_config_default(sl_megno_config *m)
{
    m->interval = 0.0;
    m->delta = 1e-7;
    m->seed = 1;
}

static double resolved_interval(const sl_run_config *c, const sl_megno_config *m)
{
    return m->interval > 0.0 ? m->interval : DEFAULT_STEPS * c->pp[0];
}

/* How many times `step` fits in `span`, when it is a whole number of
 * times (to 1e-9 of it); -1 otherwise. */
static double whole_times(double span, double step)
{
    double r = span / step, k = round(r);
    return k >= 1.0 && fabs(r - k) <= 1e-9 * k ? k : -1.0;
}

sl_status sl_megno_check(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c,
                         const sl_megno_config *m)
{
    if (c->mon.collide_merge)
        return sl_fail(SL_ERR_UNSUPPORTED, "megno: the collision monitor's merge cannot be "
                       "combined with megno: a merge would change a system and not its shadow "
                       "(leave merge out: a collision then stops the system)");
    if (sl_ensemble_has_removed(e))
        return sl_fail(SL_ERR_UNSUPPORTED, "megno: the ensemble has removed (merged) bodies; "
                       "megno measures systems with all their bodies");
    sl_status st = sl_run_check(be, e, c);
    if (st)
        return st;
    char a[40], b[40];
    if (!(m->interval >= 0.0) || !isfinite(m->interval)) {
        sl_fmt_num(a, sizeof a, m->interval);
        return sl_fail(SL_ERR_ARG, "megno: interval = %s: expected a time > 0 (or 0: %d steps)",
                       a, DEFAULT_STEPS);
    }
    if (!(m->delta >= 1e-12 && m->delta <= 1e-3)) {
        sl_fmt_num(a, sizeof a, m->delta);
        return sl_fail(SL_ERR_ARG, "megno: delta = %s: expected a relative distance in [1e-12, "
                       "1e-3] (the default 1e-7: far from both the rounding noise below and "
                       "the nonlinear regime above)", a);
    }
    if (c->n_user_monitors > 0)
        return sl_fail(SL_ERR_UNSUPPORTED, "megno: user monitors (here '%s') cannot be combined "
                       "with megno: they would be shown the shadow systems as systems",
                       c->user_monitors[0].monitor->name);
    if (e->n_sys > INT64_MAX / 4)
        return sl_fail(SL_ERR_ARG, "megno: %lld systems: too many to double",
                       (long long)e->n_sys);
    double iv = resolved_interval(c, m);
    sl_fmt_num(a, sizeof a, iv);
    if (!c->prop->adaptive && whole_times(iv, c->pp[0]) < 0) {
        sl_fmt_num(b, sizeof b, c->pp[0]);
        double k = fmax(1.0, floor(iv / c->pp[0]));
        char lo[40], hi[40]; /* to 15 digits: what a user would type */
        snprintf(lo, sizeof lo, "%.15g", k * c->pp[0]);
        snprintf(hi, sizeof hi, "%.15g", (k + 1.0) * c->pp[0]);
        return sl_fail(SL_ERR_ARG, "megno: interval = %s is not a whole number of steps of "
                       "integrator '%s' (dt = %s), whose sequence of equal steps it would break: "
                       "give %s or %s", a, c->prop->name, b, lo, hi);
    }
    if (c->mon.log_every_dt > 0.0 && whole_times(iv, c->mon.log_every_dt) < 0) {
        sl_fmt_num(b, sizeof b, c->mon.log_every_dt);
        return sl_fail(SL_ERR_ARG, "megno: interval = %s is not a whole number of the log's "
                       "period every_dt = %s: the log's times restart at each interval", a, b);
    }
    return SL_OK;
}

/* ---- the doubled ensemble ----------------------------------------------------- */

static void copy_system(const sl_ensemble *from, int64_t s, sl_ensemble *to, int64_t d)
{
    for (int b = 0; b < from->n_body; b++)
        for (int f = 0; f < SL_NFIELD; f++)
            to->state[sl_state_index(d, to->n_body, b, f)] =
                from->state[sl_state_index(s, from->n_body, b, f)];
    to->time[d] = from->time[s];
    to->steps[d] = from->steps[s];
    to->status[d] = from->status[s];
    to->reason[d] = from->reason[s];
    to->detail[d] = from->detail[s];
    to->stop_time[d] = from->stop_time[s];
}

/* Systems 0..n-1 of w are e's, n..2n-1 their shadows; attributes (which
 * may carry per-system force parameters) go to both. */
static sl_status make_pairs(const sl_ensemble *e, sl_ensemble **out)
{
    int64_t n = e->n_sys;
    sl_ensemble *w;
    sl_status st = sl_ensemble_create(2 * n, e->n_body, &w);
    if (st)
        return sl_fail_context(st, "megno: the systems and their shadows");
    for (int64_t s = 0; s < n; s++) {
        copy_system(e, s, w, s);
        copy_system(e, s, w, s + n);
    }
    for (int a = 0; a < e->n_attr && !st; a++) {
        int i;
        st = sl_ensemble_attr(w, e->attr_name[a], &i);
        if (!st) {
            const double *src = e->attr + (size_t)a * (size_t)n;
            double *dst = w->attr + (size_t)i * (size_t)(2 * n);
            memcpy(dst, src, (size_t)n * sizeof *src);
            memcpy(dst + n, src, (size_t)n * sizeof *src);
        }
    }
    if (st) {
        sl_ensemble_destroy(w);
        return sl_fail_context(st, "megno: copying attributes");
    }
    *out = w;
    return SL_OK;
}

/* The system's spread: RMS distance and speed of its bodies about their
 * mean, the metric's units (0 when degenerate). */
static void spread(const sl_ensemble *w, int64_t s, double *r, double *v)
{
    int n = w->n_body;
    double cx[6] = {0};
    for (int b = 0; b < n; b++)
        for (int f = 0; f < 6; f++)
            cx[f] += w->state[sl_state_index(s, n, b, f)] / n;
    double r2 = 0, v2 = 0;
    for (int b = 0; b < n; b++)
        for (int f = 0; f < 6; f++) {
            double d = w->state[sl_state_index(s, n, b, f)] - cx[f];
            *(f < 3 ? &r2 : &v2) += d * d / n;
        }
    *r = sqrt(r2), *v = sqrt(v2);
}

/* The shadow's distance from its system, in units of the spread. */
static double distance(const sl_ensemble *w, int64_t s, int64_t n, const double *unit)
{
    double d2 = 0;
    for (int b = 0; b < w->n_body; b++)
        for (int f = 0; f < 6; f++) {
            double d = (w->state[sl_state_index(s + n, w->n_body, b, f)] -
                        w->state[sl_state_index(s, w->n_body, b, f)]) / unit[f < 3 ? 0 : 1];
            d2 += d * d;
        }
    return sqrt(d2);
}

/* shadow = system + (shadow - system) * k */
static void pull(sl_ensemble *w, int64_t s, int64_t n, double k)
{
    for (int b = 0; b < w->n_body; b++)
        for (int f = 0; f < 6; f++) {
            size_t i = sl_state_index(s, w->n_body, b, f);
            size_t j = sl_state_index(s + n, w->n_body, b, f);
            w->state[j] = w->state[i] + (w->state[j] - w->state[i]) * k;
        }
}

/* A direction drawn from (seed, s), scaled so the shadow lies at distance
 * delta. unit: the system's spread (r, v). */
static void displace(sl_ensemble *w, int64_t s, int64_t n, const double *unit, uint64_t seed,
                     double delta)
{
    double u[6 * SL_NBODY_MAX], norm = 0;
    int nu = 6 * w->n_body;
    for (int k = 0; k < nu; k += 2) {
        sl_u32x4 r = sl_rng_block(seed, (uint64_t)s, (uint64_t)(k / 2));
        u[k] = 2.0 * sl_u01(r.v[0], r.v[1]) - 1.0;
        u[k + 1] = 2.0 * sl_u01(r.v[2], r.v[3]) - 1.0;
    }
    for (int k = 0; k < nu; k++)
        norm += u[k] * u[k];
    norm = norm > 0 ? sqrt(norm) : 1.0;
    for (int b = 0; b < w->n_body; b++)
        for (int f = 0; f < 6; f++)
            w->state[sl_state_index(s + n, w->n_body, b, f)] +=
                unit[f < 3 ? 0 : 1] * delta * u[6 * b + f] / norm;
}

/* ---- what the inner runs report ------------------------------------------------ */

typedef struct wrap {
    const sl_run_config *c;
    int64_t n;            /* systems; records of shadows are dropped */
    int first, last;      /* this interval is the run's first, last */
    double t_lo, t_hi;    /* this interval */
    double t_from, t_end; /* the run */
    int64_t launches;     /* before this interval */
    double elapsed;
    int64_t records;
} wrap;

/* Shadows' records, and the snapshots each inner run takes at its start
 * and end except the run's own first and last, are not the user's. */
static int keep_record(const wrap *w, const double *rec)
{
    if (rec[0] >= (double)w->n)
        return 0;
    if (rec[3] == SL_LOG_INITIAL)
        return w->first;
    if (rec[3] == SL_LOG_FINAL)
        return w->last;
    return 1;
}

static sl_status log_filter(void *ud, const double *rec, int64_t nrec, int rec_len)
{
    wrap *w = ud;
    int64_t i = 0;
    while (i < nrec) {
        int64_t j = i; /* a run of records to keep */
        while (j < nrec && keep_record(w, rec + (size_t)j * (size_t)rec_len))
            j++;
        if (j > i) {
            sl_status st = w->c->log_sink(w->c->log_ud, rec + (size_t)i * (size_t)rec_len,
                                          j - i, rec_len);
            if (st)
                return st;
            w->records += j - i;
        }
        i = j + 1;
    }
    return SL_OK;
}

/* The fraction of the whole run, from the inner run's fraction of its interval. */
static int progress_filter(void *ud, double fraction, int64_t launches, double elapsed_s)
{
    wrap *w = ud;
    double span = w->t_end - w->t_from;
    double f = span > 0 ? (w->t_lo - w->t_from + fraction * (w->t_hi - w->t_lo)) / span : 1.0;
    return w->c->progress(w->c->progress_ud, fmin(f, 1.0), w->launches + launches,
                          w->elapsed + elapsed_s);
}

/* ---- the measurement ------------------------------------------------------------- */

typedef struct pair_state {
    double unit[2]; /* the metric: spread in position, velocity */
    double t0;      /* time at the start */
    double tau;     /* time since, at the last sample */
    double I;       /* integral of s dL */
    double J;       /* integral of Y ds */
    double Y;
    /* <Y> against time, least squares: its slope is lambda / 2 for a
     * chaotic orbit (Cincotta & Simo 2000) and ~0 for a regular one */
    double n, mean_t, mean_y, cov_ty, var_t;
    int live;       /* still measured */
} pair_state;

static void fit_add(pair_state *p, double t, double y)
{
    p->n += 1.0;
    double dt = t - p->mean_t; /* from the previous means (Welford) */
    p->mean_t += dt / p->n;
    p->mean_y += (y - p->mean_y) / p->n;
    p->cov_ty += dt * (y - p->mean_y);
    p->var_t += dt * (t - p->mean_t);
}

static void sample(sl_ensemble *w, int64_t s, int64_t n, pair_state *p, double delta)
{
    if (!p->live)
        return;
    if (w->status[s] != SL_SYS_ACTIVE || w->status[s + n] != SL_SYS_ACTIVE) {
        p->live = 0; /* the values stay those of the last interval both finished */
        return;
    }
    double tau = w->time[s] - p->t0;
    if (!(tau > p->tau))
        return;
    double d = distance(w, s, n, p->unit);
    if (!(d > 0.0) || !isfinite(d)) {
        p->live = 0;
        return;
    }
    double dL = log(d / delta);
    p->I += dL * 0.5 * (p->tau + tau);
    double y = 2.0 * p->I / tau;
    p->J += 0.5 * (p->Y + y) * (tau - p->tau);
    p->Y = y, p->tau = tau;
    fit_add(p, tau, p->J / tau);
    pull(w, s, n, delta / d);
}

/* The energy monitor against each system's energy at the start; the
 * shadow stops with its system. */
static void energy_check(sl_ensemble *w, int64_t s, int64_t n, const sl_run_config *c,
                         const sl_fparams *fpar, const double *ref)
{
    if (w->status[s] != SL_SYS_ACTIVE)
        return;
    double en, L[3], fp[SL_FORCE_PARAMS_MAX];
    sl_fparams_get(fpar, s, fp);
    sl_system_energy(w, s, c->force, fp, &en, L);
    double err, dl;
    sl__drift(ref[0], ref + 1, en, L, &err, &dl);
    if (err > c->mon.energy_max || !isfinite(err))
        for (int64_t k = s; k <= s + n; k += n) {
            w->status[k] = SL_SYS_STOPPED;
            w->reason[k] = SL_REASON_ENERGY;
            w->detail[k] = -1;
            w->stop_time[k] = w->time[k];
        }
}

static sl_status alloc_result(int64_t n, double interval, sl_megno_result *mr)
{
    memset(mr, 0, sizeof *mr);
    size_t ns = (size_t)n;
    mr->n_sys = n;
    mr->interval = interval;
    mr->megno = malloc(ns * sizeof(double));
    mr->y = malloc(ns * sizeof(double));
    mr->lyapunov = malloc(ns * sizeof(double));
    mr->span = malloc(ns * sizeof(double));
    if (!mr->megno || !mr->y || !mr->lyapunov || !mr->span) {
        sl_megno_result_free(mr);
        return sl_fail_nomem(4.0 * (double)ns * sizeof(double), "megno: results of %lld "
                             "systems", (long long)n);
    }
    return SL_OK;
}

void sl_megno_result_free(sl_megno_result *mr)
{
    free(mr->megno), free(mr->y), free(mr->lyapunov), free(mr->span);
    memset(mr, 0, sizeof *mr);
}

/* Systems, shadows and their bookkeeping, set up. */
static sl_status start(const sl_ensemble *e, const sl_run_config *c, const sl_megno_config *m,
                       sl_ensemble **w, pair_state **ps, double **e0, sl_fparams *fpar)
{
    int64_t n = e->n_sys;
    *w = NULL, *ps = NULL, *e0 = NULL;
    memset(fpar, 0, sizeof *fpar);
    sl_status st = make_pairs(e, w);
    if (!st) {
        *ps = calloc((size_t)n, sizeof **ps);
        *e0 = malloc((size_t)n * 4 * sizeof **e0);
        if (!*ps || !*e0)
            st = sl_fail_nomem((double)n * (sizeof **ps + 4 * sizeof **e0), "megno: bookkeeping "
                               "of %lld systems", (long long)n);
    }
    if (!st)
        st = sl_fparams_build(c->force, c->force_values, c->fp, *w, fpar);
    for (int64_t s = 0; s < n && !st; s++) {
        pair_state *p = &(*ps)[s];
        double fp[SL_FORCE_PARAMS_MAX];
        sl_fparams_get(fpar, s, fp);
        sl_system_energy(*w, s, c->force, fp, &(*e0)[4 * s], &(*e0)[4 * s + 1]);
        p->t0 = (*w)->time[s];
        p->live = (*w)->status[s] == SL_SYS_ACTIVE;
        if (!p->live)
            continue;
        spread(*w, s, p->unit, p->unit + 1);
        if (!(p->unit[0] > 0.0) || !(p->unit[1] > 0.0) || !isfinite(p->unit[0] + p->unit[1]))
            st = sl_fail(SL_ERR_ARG, "megno: system %lld: its bodies %s, so no distance can be "
                         "measured relative to it", (long long)s + 1,
                         p->unit[0] > 0.0 ? "all move alike" : "are all at one point");
        else
            displace(*w, s, n, p->unit, m->seed, m->delta);
    }
    return st;
}

static void finish(sl_ensemble *e, const sl_ensemble *w, const pair_state *ps,
                   const double *e0, const sl_fparams *fpar, const sl_run_config *c,
                   const int64_t *steps0, sl_run_result *res, sl_megno_result *mr)
{
    for (int64_t s = 0; s < e->n_sys; s++) {
        copy_system(w, s, e, s);
        const pair_state *p = &ps[s];
        int any = p->tau > 0.0;
        mr->megno[s] = any ? p->J / p->tau : NAN;
        mr->y[s] = any ? p->Y : NAN;
        mr->lyapunov[s] = any ? (p->var_t > 0 ? 2.0 * p->cov_ty / p->var_t : 0.0) : NAN;
        mr->span[s] = p->tau;
        double en, L[3], fp[SL_FORCE_PARAMS_MAX];
        sl_fparams_get(fpar, s, fp);
        sl_system_energy(e, s, c->force, fp, &en, L);
        sl__drift(e0[4 * s], &e0[4 * s + 1], en, L, &res->energy_error[s],
                  &res->angmom_error[s]);
        res->system_steps += (double)(e->steps[s] - steps0[s]);
        res->n_active += e->status[s] == SL_SYS_ACTIVE;
        res->n_stopped += e->status[s] == SL_SYS_STOPPED;
        res->n_failed += e->status[s] == SL_SYS_FAILED;
    }
}

/* The run's first time: the earliest active system's. */
static double first_time(const sl_ensemble *e)
{
    double t = INFINITY;
    for (int64_t s = 0; s < e->n_sys; s++)
        if (e->status[s] == SL_SYS_ACTIVE && e->time[s] < t)
            t = e->time[s];
    return t;
}

/* One interval: the inner run, its figures added to res, then the samples. */
static sl_status interval(const sl_backend *be, sl_ensemble *w, const sl_run_config *c,
                          wrap *wr, pair_state *ps, const double *e0, const sl_fparams *fpar,
                          double delta, sl_run_result *res)
{
    sl_run_config ci = *c;
    ci.t_end = wr->t_hi;
    ci.mon.energy_max = 0.0; /* against the start of the run, below */
    if (c->log_sink)
        ci.log_sink = log_filter, ci.log_ud = wr;
    if (c->progress)
        ci.progress = progress_filter, ci.progress_ud = wr;
    sl_run_result ri;
    sl_status st = sl_integrate(be, w, &ci, &ri);
    if (st)
        return st;
    res->kernel_s += ri.kernel_s;
    res->launches += ri.launches;
    res->rejected_steps += ri.rejected_steps;
    memcpy(res->kernel, ri.kernel, sizeof res->kernel);
    wr->launches += ri.launches;
    wr->elapsed += ri.wall_s;
    sl_run_result_free(&ri);
    int64_t n = wr->n;
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < n; s++) {
        if (c->mon.energy_max > 0.0)
            energy_check(w, s, n, c, fpar, &e0[4 * s]);
        sample(w, s, n, &ps[s], delta);
    }
    return SL_OK;
}

sl_status sl_integrate_megno(const sl_backend *be, sl_ensemble *e, const sl_run_config *c,
                             const sl_megno_config *m, sl_run_result *res,
                             sl_megno_result *mr)
{
    double wall0 = sl__now_s();
    memset(res, 0, sizeof *res);
    memset(mr, 0, sizeof *mr);
    sl_status st = sl_megno_check(be, e, c, m);
    if (st)
        return st;
    int64_t n = e->n_sys;
    double iv = resolved_interval(c, m);
    sl_ensemble *w;
    pair_state *ps;
    double *e0; /* per system: energy and angular momentum at the start */
    sl_fparams fpar;
    int64_t *steps0 = malloc((size_t)n * sizeof *steps0);
    res->energy_error = malloc((size_t)n * sizeof(double));
    res->angmom_error = malloc((size_t)n * sizeof(double));
    if (!steps0 || !res->energy_error || !res->angmom_error)
        st = sl_fail_nomem((double)n * 24.0, "megno: diagnostics of %lld systems", (long long)n);
    if (!st)
        st = alloc_result(n, iv, mr);
    if (!st)
        st = start(e, c, m, &w, &ps, &e0, &fpar);
    else
        w = NULL, ps = NULL, e0 = NULL, memset(&fpar, 0, sizeof fpar);
    for (int64_t s = 0; s < n && steps0; s++)
        steps0[s] = e->steps[s];

    wrap wr = {c, n, 1, 0, 0, 0, first_time(e), c->t_end, 0, 0, 0};
    double span = isfinite(wr.t_from) && c->t_end > wr.t_from ? c->t_end - wr.t_from : 0.0;
    /* the last interval may be shorter; one whose length is a rounding
     * remainder of the others is merged into them */
    int64_t k_max = span > 0 ? (int64_t)ceil(span / iv * (1.0 - 1e-12)) : 0;
    for (int64_t k = 1; k <= k_max && !st; k++) {
        wr.t_lo = wr.t_from + (double)(k - 1) * iv;
        wr.t_hi = k == k_max ? c->t_end : wr.t_from + (double)k * iv;
        wr.first = k == 1, wr.last = k == k_max;
        st = interval(be, w, c, &wr, ps, e0, &fpar, m->delta, res);
    }
    if (!st) {
        finish(e, w, ps, e0, &fpar, c, steps0, res, mr);
        res->log_records = wr.records;
    }
    sl_ensemble_destroy(w);
    free(ps), free(e0), free(steps0);
    sl_fparams_free(&fpar);
    res->wall_s = sl__now_s() - wall0;
    if (st) {
        sl_run_result_free(res);
        sl_megno_result_free(mr);
    }
    return st;
}
