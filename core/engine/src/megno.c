/* MEGNO by shadow trajectories (megno.h says what and why). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/megno.h"
#include "starling/nomem.h"
#include "starling/params.h"
#include "starling/propagator.h"
#include "starling/rng.h"
#include "megno_pairs.h"
#include "run_diag.h"
#include "run_internal.h"
#include "starling/version.h"

#if !SL_CORE_HAS_CUDA
/* A build without CUDA never opens a CUDA backend, so never gets here. */
sl_status sl__megno_sample_cuda(const sl__pass_view *w, int64_t n, sl__megno_pair *pairs,
                                double delta)
{
    (void)w, (void)n, (void)pairs, (void)delta;
    return sl_fail(SL_ERR_NODEVICE, "megno: starling was built without CUDA");
}
#endif

enum { DEFAULT_STEPS = 10 };

void sl_megno_config_default(sl_megno_config *m)
{
    m->interval = 0.0;
    m->delta = 1e-7;
    m->seed = 1;
}

static double resolved_interval(const sl_run_config *c, const sl_megno_config *m)
{
    return m->interval > 0.0 ? m->interval : DEFAULT_STEPS * c->pp[SL_PP_DT];
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
    if (!c->prop->adaptive && whole_times(iv, c->pp[SL_PP_DT]) < 0) {
        sl_fmt_num(b, sizeof b, c->pp[SL_PP_DT]);
        double k = fmax(1.0, floor(iv / c->pp[SL_PP_DT]));
        char lo[40], hi[40]; /* to 15 digits: what a user would type */
        snprintf(lo, sizeof lo, "%.15g", k * c->pp[SL_PP_DT]);
        snprintf(hi, sizeof hi, "%.15g", (k + 1.0) * c->pp[SL_PP_DT]);
        return sl_fail(SL_ERR_ARG, "megno: interval = %s is not a whole number of steps of "
                       "integrator '%s' (dt = %s), whose sequence of equal steps it would break: "
                       "give %s or %s", a, c->prop->name, b, lo, hi);
    }
    /* <Y> is a mean over whole intervals: a run shorter than one would
     * report a number measured over a fraction of one */
    for (int64_t s = 0; s < e->n_sys; s++) {
        double span = c->t_end - e->time[s];
        if (e->status[s] != SL_SYS_ACTIVE || !(span > 0.0) || span >= iv)
            continue;
        sl_fmt_num(b, sizeof b, span);
        return sl_fail(SL_ERR_ARG, "megno: system %lld runs %s (to t_end), less than one "
                       "interval (%s): MEGNO needs at least one whole interval; give a later "
                       "t_end or interval <= %s", (long long)s + 1, b, a, b);
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

/* ---- the run --------------------------------------------------------------------- */

typedef struct megno_run {
    const sl_backend *be;
    const sl_run_config *c;
    int64_t n;               /* systems; n..2n-1 are their shadows */
    sl__megno_pair *pairs;   /* host */
    sl__megno_pair *d_pairs; /* CUDA: the device's copy, which the run works on */
    double delta;
    int64_t records;
} megno_run;

/* Shadows' log records are not the user's. */
static sl_status log_filter(void *ud, const double *rec, int64_t nrec, int rec_len)
{
    megno_run *r = ud;
    int64_t i = 0;
    while (i < nrec) {
        int64_t j = i; /* a run of records to keep */
        while (j < nrec && rec[(size_t)j * (size_t)rec_len] < (double)r->n)
            j++;
        if (j > i) {
            sl_status st = r->c->log_sink(r->c->log_ud, rec + (size_t)i * (size_t)rec_len,
                                          j - i, rec_len);
            if (st)
                return st;
            r->records += j - i;
        }
        i = j + 1;
    }
    return SL_OK;
}

/* Between intervals, where the pass keeps the systems. */
static sl_status sample_pairs(void *ud, const sl__pass_view *w)
{
    megno_run *r = ud;
    if (r->be->kind == SL_BACKEND_CUDA)
        return sl__megno_sample_cuda(w, r->n, r->d_pairs, r->delta);
    int64_t n = r->n;
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < n; s++)
        sl__megno_sample(w, s, n, &r->pairs[s], r->delta);
    return SL_OK;
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

/* Systems, shadows and their pairs' bookkeeping, set up. */
static sl_status start(const sl_ensemble *e, const sl_megno_config *m, sl_ensemble **w,
                       sl__megno_pair **ps)
{
    int64_t n = e->n_sys;
    *w = NULL, *ps = NULL;
    sl_status st = make_pairs(e, w);
    if (!st && !(*ps = calloc((size_t)n, sizeof **ps)))
        st = sl_fail_nomem((double)n * sizeof **ps, "megno: bookkeeping of %lld systems",
                           (long long)n);
    for (int64_t s = 0; s < n && !st; s++) {
        sl__megno_pair *p = &(*ps)[s];
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

/* The systems back into e, the values per system, and res over the
 * systems alone from the pass's (ri: 2n systems). */
static void finish(sl_ensemble *e, const sl_ensemble *w, const sl__megno_pair *ps,
                   const int64_t *steps0, const sl_run_result *ri, sl_run_result *res,
                   sl_megno_result *mr)
{
    for (int64_t s = 0; s < e->n_sys; s++) {
        copy_system(w, s, e, s);
        const sl__megno_pair *p = &ps[s];
        int any = p->tau > 0.0;
        mr->megno[s] = any ? p->J / p->tau : NAN;
        mr->y[s] = any ? p->Y : NAN;
        mr->lyapunov[s] = any ? (p->var_t > 0 ? 2.0 * p->cov_ty / p->var_t : 0.0) : NAN;
        mr->span[s] = p->tau;
        res->energy_error[s] = ri->energy_error[s];
        res->angmom_error[s] = ri->angmom_error[s];
        res->system_steps += (double)(e->steps[s] - steps0[s]);
        res->n_active += e->status[s] == SL_SYS_ACTIVE;
        res->n_stopped += e->status[s] == SL_SYS_STOPPED;
        res->n_failed += e->status[s] == SL_SYS_FAILED;
    }
    res->kernel_s = ri->kernel_s;
    res->launches = ri->launches;
    res->rejected_steps = ri->rejected_steps;
    memcpy(res->kernel, ri->kernel, sizeof res->kernel);
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

/* The pairs on the device for a CUDA run (*d NULL on the CPU). */
static sl_status pairs_to_device(const sl_backend *be, const sl__megno_pair *ps, int64_t n,
                                 sl__megno_pair **d)
{
    *d = NULL;
    if (be->kind != SL_BACKEND_CUDA)
        return SL_OK;
    size_t bytes = (size_t)n * sizeof *ps;
    sl_status st = sl_dev_alloc((void **)d, bytes, "megno: the pairs' bookkeeping");
    return st ? st : sl_dev_upload(*d, ps, bytes, "megno: uploading the pairs");
}

/* One pass over systems and shadows, cut at every interval. */
static sl_status run_pairs(const sl_backend *be, sl_ensemble *w, const sl_run_config *c,
                           double t_from, double iv, megno_run *r, sl_run_result *ri)
{
    sl_run_config ci = *c;
    ci.pp[SL_PP_SMOOTH] = 1.0; /* early stops off: the shadows divide rounding by delta */
    if (c->log_sink)
        ci.log_sink = log_filter, ci.log_ud = r;
    sl__segments seg = {t_from, iv, sample_pairs, r};
    sl__pass_start from = {NULL, NULL, NULL, 0, NULL, &seg};
    sl_status st = sl__integrate_pass(be, w, &ci, &from, ri);
    if (!st && r->d_pairs)
        st = sl_dev_download(r->pairs, r->d_pairs, (size_t)r->n * sizeof *r->pairs,
                             "megno: reading the pairs");
    return st;
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
    sl_ensemble *w = NULL;
    megno_run r = {be, c, n, NULL, NULL, m->delta, 0};
    sl_run_result ri;
    memset(&ri, 0, sizeof ri);
    int64_t *steps0 = malloc((size_t)n * sizeof *steps0);
    res->energy_error = malloc((size_t)n * sizeof(double));
    res->angmom_error = malloc((size_t)n * sizeof(double));
    if (!steps0 || !res->energy_error || !res->angmom_error)
        st = sl_fail_nomem((double)n * 24.0, "megno: diagnostics of %lld systems", (long long)n);
    if (!st)
        st = alloc_result(n, iv, mr);
    if (!st)
        st = start(e, m, &w, &r.pairs);
    if (!st)
        st = pairs_to_device(be, r.pairs, n, &r.d_pairs);
    for (int64_t s = 0; s < n && steps0; s++)
        steps0[s] = e->steps[s];
    if (!st)
        st = run_pairs(be, w, c, first_time(e), iv, &r, &ri);
    if (!st) {
        finish(e, w, r.pairs, steps0, &ri, res, mr);
        res->log_records = r.records;
    }
    sl_run_result_free(&ri);
    sl_dev_free(r.d_pairs);
    sl_ensemble_destroy(w);
    free(r.pairs), free(steps0);
    res->wall_s = sl__now_s() - wall0;
    if (st) {
        sl_run_result_free(res);
        sl_megno_result_free(mr);
    }
    return st;
}
