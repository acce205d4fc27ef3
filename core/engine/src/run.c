#define _POSIX_C_SOURCE 200809L
#include "starling/run.h"
#include "starling/fparams.h"
#include "starling/registry.h"

#include "starling/cancel.h"
#include "starling/nomem.h"
#include "monitor_user.h"
#include "run_diag.h"
#include "run_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SL_DEFAULT_LAUNCH_STEPS = 1000 };
static const double SL_LOG_BUDGET_BYTES = 256.0 * 1024 * 1024;

void sl_run_config_init(sl_run_config *c)
{
    memset(c, 0, sizeof *c);
    sl_monitor_config_default(&c->mon);
}

void sl_run_result_free(sl_run_result *res)
{
    free(res->energy_error);
    free(res->angmom_error);
    res->energy_error = res->angmom_error = NULL;
}

void sl_system_energy(const sl_ensemble *e, int64_t s, const sl_force *f, const double *fp,
                      double *energy, double L[3])
{
    double x[3 * SL_NBODY_MAX], v[3 * SL_NBODY_MAX], m[SL_NBODY_MAX];
    int n = 0;
    double kin = 0;
    L[0] = L[1] = L[2] = 0;
    for (int k = 0; k < e->n_body; k++) {
        if (sl_ensemble_body_removed(e, s, k))
            continue;
        int b = n++;
        sl_ensemble_get_body(e, s, k, &m[b], &x[3 * b], &v[3 * b]);
        const double *r = &x[3 * b], *u = &v[3 * b];
        kin += 0.5 * m[b] * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        L[0] += m[b] * (r[1] * u[2] - r[2] * u[1]);
        L[1] += m[b] * (r[2] * u[0] - r[0] * u[2]);
        L[2] += m[b] * (r[0] * u[1] - r[1] * u[0]);
    }
    *energy = kin + f->potential(n, x, m, fp);
}

/* What the tables promise that the loops rely on and only run time can
 * tell (launch.h; the registry checks the same when it loads a plugin). */
static sl_status check_tables(const sl_run_config *c)
{
    const sl_propagator *p = c->prop;
    const sl_force *f = c->force;
    if (p->n_packed < 1 || p->n_packed > SL_PROP_PACKED_MAX)
        return sl_fail(SL_ERR_PLUGIN, "integrate: integrator '%s' declares n_packed = %d: expected "
                       "1..%d (pp[0] is the step; pp[%d] is the core's)", p->name, p->n_packed,
                       SL_PROP_PACKED_MAX, SL_PP_SMOOTH);
    if (f->n_packed < 0 || f->n_packed > SL_FORCE_PARAMS_MAX)
        return sl_fail(SL_ERR_PLUGIN, "integrate: force '%s' declares n_packed = %d: expected "
                       "0..%d", f->name, f->n_packed, SL_FORCE_PARAMS_MAX);
    if (p->adaptive != 0 && p->adaptive != 1)
        return sl_fail(SL_ERR_PLUGIN, "integrate: integrator '%s' declares adaptive = %d: "
                       "expected 0 or 1 (SL_PROP_%s_ADAPTIVE)", p->name, p->adaptive, p->name);
    if (p->persist_per_body < 0)
        return sl_fail(SL_ERR_PLUGIN, "integrate: integrator '%s' declares persist_per_body = %d: "
                       "expected >= 0", p->name, p->persist_per_body);
    /* the loops step by pp[0] (an adaptive one starts from it), whatever
     * the key that sets it is called */
    if (!(c->pp[SL_PP_DT] > 0) || !isfinite(c->pp[SL_PP_DT]))
        return sl_fail(SL_ERR_ARG, "integrate: integrator '%s': pp[0] = %g: its pack must put the "
                       "step there, a finite number > 0 (is dt set?)", p->name, c->pp[SL_PP_DT]);
    for (int k = 1; k < p->n_packed; k++)
        if (!isfinite(c->pp[k]))
            return sl_fail(SL_ERR_ARG, "integrate: integrator '%s': pp[%d] = %g: expected a finite "
                           "number", p->name, k, c->pp[k]);
    return SL_OK;
}

static sl_status check_config(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c,
                              const sl_kernel_entry **kernel)
{
    if (!c->prop || !c->force)
        return sl_fail(SL_ERR_ARG, "integrate: an integrator and a force are required");
    if (!isfinite(c->t_end))
        return sl_fail(SL_ERR_ARG, "integrate: t_end = %g: expected a finite time", c->t_end);
    sl_status st0 = check_tables(c);
    if (st0)
        return st0;
    if (c->max_steps < 0 || c->steps_per_launch < 0)
        return sl_fail(SL_ERR_ARG, "integrate: max_steps and steps_per_launch must be >= 0");
    if (c->mon.log_every_steps < 0 || c->mon.log_every_dt < 0 || !(c->mon.check_every >= 1))
        return sl_fail(SL_ERR_ARG, "integrate: log and check periods must be >= 0 (check >= 1)");
    if (!(c->mon.collide_radius >= 0) || !(c->mon.collide_density >= 0) ||
        !(c->mon.collide_central >= -1.0))
        return sl_fail(SL_ERR_ARG, "integrate: collision radius %g, density %g, central radius "
                       "%g: expected numbers >= 0 (central -1: as the others)",
                       c->mon.collide_radius, c->mon.collide_density, c->mon.collide_central);
    /* The kernels only step forward: a t_end behind a system's time would
     * leave it where it is and report success. */
    int64_t ahead = -1;
    for (int64_t s = 0; s < e->n_sys; s++)
        if (e->status[s] == SL_SYS_ACTIVE && e->time[s] > c->t_end &&
            (ahead < 0 || e->time[s] > e->time[ahead]))
            ahead = s;
    if (ahead >= 0) {
        char te[40], t[40];
        sl_fmt_num(te, sizeof te, c->t_end);
        sl_fmt_num(t, sizeof t, e->time[ahead]);
        return sl_fail(SL_ERR_ARG, "integrate: t_end = %s is before the ensemble's time (t = %s "
                       "in system %lld): starling integrates forward only, so there is no option "
                       "to ask for this; give t_end >= %s, or integrate a fresh ensemble", te, t,
                       (long long)ahead + 1, t);
    }
    if (c->prop->check_systems) {
        sl_status sc = c->prop->check_systems(e, c->pp);
        if (sc)
            return sl_fail_context(sc, "integrate: integrator '%s'", c->prop->name);
    }
    return sl__check_kernel(be, c, e->n_body, kernel);
}

sl_status sl__check_kernel(const sl_backend *be, const sl_run_config *c, int n_body,
                           const sl_kernel_entry **kernel)
{
    sl_status st = sl_registry_kernel(c->registry, c->prop, c->force->name, n_body, kernel);
    if (st)
        return st;
    if (be->kind == SL_BACKEND_CUDA && !(*kernel)->cuda)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "integrator '%s' with force '%s' has no CUDA kernel in this build",
                       c->prop->name, c->force->name);
    return SL_OK;
}

/* The energy monitor measures |E/E0 - 1|, undefined for a system whose
 * initial energy is zero. */
static sl_status check_energies(const sl_ensemble *e, const sl_run_config *c,
                                const sl_fparams *fpar)
{
    if (!(c->mon.energy_max > 0))
        return SL_OK;
    for (int64_t s = 0; s < e->n_sys; s++) {
        double en, L[3], fp[SL_FORCE_PARAMS_MAX];
        if (e->status[s] != SL_SYS_ACTIVE)
            continue;
        sl_fparams_get(fpar, s, fp);
        sl_system_energy(e, s, c->force, fp, &en, L);
        if (!(fabs(en) > 0))
            return sl_fail(SL_ERR_ARG, "integrate: system %lld has zero energy, so the energy "
                           "monitor's relative error is undefined", (long long)s + 1);
    }
    return SL_OK;
}

/* Everything refused before work starts; on success *fpar holds the
 * systems' force parameters (the caller frees them). */
static sl_status check_all(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c,
                           const sl_kernel_entry **k, sl_fparams *fpar)
{
    memset(fpar, 0, sizeof *fpar);
    sl_status st = check_config(be, e, c, k);
    if (st)
        return st;
    if ((st = sl_fparams_build(c->force, c->force_values, c->fp, e, fpar)))
        return sl_fail_context(st, "integrate");
    st = check_energies(e, c, fpar);
    if (st)
        sl_fparams_free(fpar);
    return st;
}

sl_status sl__run_check_plain(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c)
{
    const sl_kernel_entry *k = NULL;
    sl_fparams fpar;
    sl_status st = check_all(be, e, c, &k, &fpar);
    sl_fparams_free(&fpar);
    return st ? st : sl_user_monitors_valid(c);
}

/* Steps per launch: the default, capped so that the log buffer (sized for
 * the most records one launch can produce) stays within its budget. */
static int64_t plan_launch(const sl_ensemble *e, const sl_run_config *c, int64_t *log_cap)
{
    int64_t steps = c->steps_per_launch > 0 ? c->steps_per_launch : SL_DEFAULT_LAUNCH_STEPS;
    double rec_bytes = 8.0 * (SL_LOG_HEAD + 6 * e->n_body);
    for (;;) {
        double per_sys = 1.0; /* a stop record */
        if (c->mon.log_every_steps > 0)
            per_sys += (double)steps / (double)c->mon.log_every_steps + 1.0;
        /* at most one periodic record per step; an adaptive step may be any size */
        if (c->mon.log_every_dt > 0)
            per_sys += (c->prop->adaptive ? (double)steps
                                          : (double)steps * c->pp[SL_PP_DT] / c->mon.log_every_dt) +
                       1.0;
        int logging = c->mon.log_every_steps > 0 || c->mon.log_every_dt > 0 || c->mon.log_on_stop;
        double cap = logging ? per_sys * (double)e->n_sys : 0.0;
        if (cap * rec_bytes <= SL_LOG_BUDGET_BYTES || steps == 1) {
            *log_cap = (int64_t)ceil(cap);
            return steps;
        }
        steps = steps / 2 > 0 ? steps / 2 : 1;
    }
}

typedef struct sl_bufs {
    double *state, *persist, *time, *stop_time, *next_log, *e0, *log, *t_start;
    double *h_next; /* adaptive integrators: each system's next try; else NULL */
    const double *fp_sys; /* per-system force parameters, or NULL */
    int64_t *steps, *step_start;
    int32_t *status, *reason, *detail;
    unsigned long long *counters;
} sl_bufs;

static void free_bufs(const sl_backend *be, sl_bufs *b, const sl_ensemble *e)
{
    if (be->kind == SL_BACKEND_CUDA) {
        sl_dev_free(b->state);
        sl_dev_free(b->time);
        sl_dev_free(b->stop_time);
        sl_dev_free(b->steps);
        sl_dev_free(b->status);
        sl_dev_free(b->reason);
        sl_dev_free(b->detail);
        sl_dev_free(b->persist);
        sl_dev_free(b->next_log);
        sl_dev_free(b->e0);
        sl_dev_free(b->log);
        sl_dev_free(b->counters);
        sl_dev_free(b->t_start);
        sl_dev_free(b->step_start);
        sl_dev_free(b->h_next);
        sl_dev_free((void *)b->fp_sys);
    } else {
        /* The CPU backend works in the ensemble's own arrays. */
        (void)e;
        free(b->persist);
        free(b->next_log);
        free(b->e0);
        free(b->log);
        free(b->counters);
        free(b->t_start);
        free(b->step_start);
        free(b->h_next);
    }
    memset(b, 0, sizeof *b);
}

/* The per-system force parameters where the kernels read them (the CPU
 * reads the host copy, which the caller owns). */
static sl_status place_fparams(const sl_backend *be, const sl_ensemble *e, const sl_fparams *fpar,
                               sl_bufs *b)
{
    if (!fpar->sys || be->kind == SL_BACKEND_CPU) {
        b->fp_sys = fpar->sys;
        return SL_OK;
    }
    size_t bytes = (size_t)e->n_chunks * SL_CHUNK * (size_t)fpar->n_fp * sizeof(double);
    void *d = NULL;
    sl_status st = sl_dev_alloc(&d, bytes, "force parameters per system");
    b->fp_sys = d;
    return st ? st : sl_dev_upload(d, fpar->sys, bytes, "uploading force parameters");
}

/* Each system's step, for adaptive integrators: the loops write it at the
 * end of every launch and read it at the start of the next (the first
 * launch asks the integrator), so it needs no initial values. */
static sl_status alloc_steps(const sl_backend *be, const sl_ensemble *e, sl_bufs *b)
{
    size_t bytes = (size_t)e->n_sys * sizeof(double);
    if (be->kind == SL_BACKEND_CUDA)
        return sl_dev_alloc((void **)&b->h_next, bytes, "step sizes");
    b->h_next = malloc(bytes);
    return b->h_next ? SL_OK : sl_fail_nomem((double)bytes, "integrate: step sizes");
}

static sl_status alloc_bufs(const sl_backend *be, sl_ensemble *e, int persist_doubles,
                            int64_t log_cap, const sl__pass_start *start, sl_bufs *b)
{
    const double *t_start = start && start->time ? start->time : e->time;
    const int64_t *step_start = start && start->steps ? start->steps : e->steps;
    size_t ns = (size_t)e->n_sys;
    size_t nstate = sl_state_len(e->n_sys, e->n_body);
    size_t npersist = (size_t)e->n_chunks * SL_CHUNK * (size_t)persist_doubles;
    size_t nlog = (size_t)log_cap * (size_t)(SL_LOG_HEAD + 6 * e->n_body);
    memset(b, 0, sizeof *b);
    if (be->kind == SL_BACKEND_CPU) {
        b->state = e->state;
        b->time = e->time;
        b->stop_time = e->stop_time;
        b->steps = e->steps;
        b->status = e->status;
        b->reason = e->reason;
        b->detail = e->detail;
        b->persist = malloc((npersist ? npersist : 1) * sizeof(double));
        b->next_log = malloc(ns * sizeof(double));
        b->e0 = malloc(ns * sizeof(double));
        b->log = malloc((nlog ? nlog : 1) * sizeof(double));
        b->counters = calloc(SL_NCOUNTERS, sizeof(unsigned long long));
        b->t_start = malloc(ns * sizeof(double));
        b->step_start = malloc(ns * sizeof(int64_t));
        if (!b->persist || !b->next_log || !b->e0 || !b->log || !b->counters || !b->t_start ||
            !b->step_start)
            return sl_fail_nomem(((double)npersist + (double)nlog + 4.0 * (double)ns) *
                                     sizeof(double) + SL_NCOUNTERS * sizeof(unsigned long long),
                                 "integrate: work buffers for %zu systems", ns);
        memcpy(b->t_start, t_start, ns * sizeof(double));
        memcpy(b->step_start, step_start, ns * sizeof(int64_t));
        return SL_OK;
    }
    sl_status st;
    if ((st = sl_dev_alloc((void **)&b->state, nstate * sizeof(double), "ensemble state")) ||
        (st = sl_dev_alloc((void **)&b->time, ns * sizeof(double), "system times")) ||
        (st = sl_dev_alloc((void **)&b->stop_time, ns * sizeof(double), "stop times")) ||
        (st = sl_dev_alloc((void **)&b->steps, ns * sizeof(int64_t), "step counts")) ||
        (st = sl_dev_alloc((void **)&b->status, ns * sizeof(int32_t), "statuses")) ||
        (st = sl_dev_alloc((void **)&b->reason, ns * sizeof(int32_t), "stop reasons")) ||
        (st = sl_dev_alloc((void **)&b->detail, ns * sizeof(int32_t), "stop details")) ||
        (st = sl_dev_alloc((void **)&b->persist, npersist * sizeof(double), "integrator state")) ||
        (st = sl_dev_alloc((void **)&b->next_log, ns * sizeof(double), "log times")) ||
        (st = sl_dev_alloc((void **)&b->e0, ns * sizeof(double), "initial energies")) ||
        (st = sl_dev_alloc((void **)&b->log, nlog * sizeof(double), "log buffer")) ||
        (st = sl_dev_alloc((void **)&b->counters, SL_NCOUNTERS * sizeof(unsigned long long),
                           "counters")) ||
        (st = sl_dev_alloc((void **)&b->t_start, ns * sizeof(double), "start times")) ||
        (st = sl_dev_alloc((void **)&b->step_start, ns * sizeof(int64_t), "start steps")))
        return st;
    if ((st = sl_dev_upload(b->state, e->state, nstate * sizeof(double), "uploading the ensemble")) ||
        (st = sl_dev_upload(b->time, e->time, ns * sizeof(double), "uploading times")) ||
        (st = sl_dev_upload(b->stop_time, e->stop_time, ns * sizeof(double), "uploading times")) ||
        (st = sl_dev_upload(b->steps, e->steps, ns * sizeof(int64_t), "uploading steps")) ||
        (st = sl_dev_upload(b->status, e->status, ns * sizeof(int32_t), "uploading statuses")) ||
        (st = sl_dev_upload(b->reason, e->reason, ns * sizeof(int32_t), "uploading reasons")) ||
        (st = sl_dev_upload(b->detail, e->detail, ns * sizeof(int32_t), "uploading details")) ||
        (st = sl_dev_upload(b->t_start, t_start, ns * sizeof(double), "uploading times")) ||
        (st = sl_dev_upload(b->step_start, step_start, ns * sizeof(int64_t), "uploading steps")))
        return st;
    return SL_OK;
}

static sl_status download_bufs(const sl_backend *be, sl_ensemble *e, const sl_bufs *b)
{
    if (be->kind == SL_BACKEND_CPU)
        return SL_OK;
    size_t ns = (size_t)e->n_sys;
    sl_status st;
    if ((st = sl_dev_download(e->state, b->state, sl_state_len(e->n_sys, e->n_body) * sizeof(double),
                              "downloading the ensemble")) ||
        (st = sl_dev_download(e->time, b->time, ns * sizeof(double), "downloading times")) ||
        (st = sl_dev_download(e->stop_time, b->stop_time, ns * sizeof(double), "downloading times")) ||
        (st = sl_dev_download(e->steps, b->steps, ns * sizeof(int64_t), "downloading steps")) ||
        (st = sl_dev_download(e->status, b->status, ns * sizeof(int32_t), "downloading statuses")) ||
        (st = sl_dev_download(e->reason, b->reason, ns * sizeof(int32_t), "downloading reasons")) ||
        (st = sl_dev_download(e->detail, b->detail, ns * sizeof(int32_t), "downloading details")))
        return st;
    return SL_OK;
}

static int cmp_record(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    if (a[2] != b[2])
        return a[2] < b[2] ? -1 : 1;
    return (a[3] > b[3]) - (a[3] < b[3]);
}

/* Records arrive in atomic order; sorting makes logs reproducible. The
 * record size is known only at run time, so sort keys with an index. */
static sl_status sort_records(double *rec, int64_t n, int len)
{
    double *tmp = malloc((size_t)n * (size_t)len * sizeof(double));
    double *kx = malloc((size_t)n * 5 * sizeof(double)); /* sys, t, step, event, index */
    if (!tmp || !kx) {
        free(tmp), free(kx);
        return sl_fail_nomem((double)n * (len + 5) * sizeof(double), "sorting %lld log records",
                             (long long)n);
    }
    for (int64_t i = 0; i < n; i++) {
        memcpy(kx + 5 * i, rec + (size_t)i * (size_t)len, 4 * sizeof(double));
        kx[5 * i + 4] = (double)i;
    }
    qsort(kx, (size_t)n, 5 * sizeof(double), cmp_record);
    for (int64_t i = 0; i < n; i++)
        memcpy(tmp + (size_t)i * (size_t)len, rec + (size_t)kx[5 * i + 4] * (size_t)len,
               (size_t)len * sizeof(double));
    memcpy(rec, tmp, (size_t)n * (size_t)len * sizeof(double));
    free(tmp), free(kx);
    return SL_OK;
}

/* Initial or final snapshots of the active systems, written by the host. */
static sl_status host_snapshot(const sl_ensemble *e, const sl_run_config *c, int event)
{
    int len = SL_LOG_HEAD + 6 * e->n_body;
    double *rec = malloc((size_t)len * sizeof(double));
    if (!rec)
        return sl_fail_nomem((double)len * sizeof(double), "snapshot record");
    sl_status st = SL_OK;
    for (int64_t s = 0; s < e->n_sys && !st; s++) {
        if (e->status[s] != SL_SYS_ACTIVE)
            continue;
        rec[0] = (double)s;
        rec[1] = e->time[s];
        rec[2] = (double)e->steps[s];
        rec[3] = event;
        for (int b = 0; b < e->n_body; b++)
            sl_ensemble_get_body(e, s, b, NULL, rec + SL_LOG_HEAD + 6 * b,
                                 rec + SL_LOG_HEAD + 6 * b + 3);
        st = c->log_sink(c->log_ud, rec, 1, len);
    }
    free(rec);
    return st;
}

/* The earliest time of an active system, which the run has reached. */
static double reached_time(const sl_backend *be, const sl_ensemble *e, const sl_bufs *b)
{
    const double *t = e->time;
    double *host = NULL;
    size_t ns = (size_t)e->n_sys;
    if (be->kind == SL_BACKEND_CUDA) {
        host = malloc(ns * sizeof *host);
        if (!host || sl_dev_download(host, b->time, ns * sizeof *host, "reading times")) {
            free(host);
            return NAN;
        }
        t = host;
    }
    double t_min = INFINITY;
    for (size_t s = 0; s < ns; s++)
        if (e->status[s] == SL_SYS_ACTIVE && t[s] < t_min)
            t_min = t[s];
    free(host);
    return t_min;
}

/* SL_ERR_CANCELLED naming how far the run got; the caller abandons it. */
static sl_status fail_cancelled(const sl_backend *be, const sl_ensemble *e, const sl_bufs *b,
                                const sl_run_config *c, int64_t launches, int64_t expect)
{
    char t[40], end[40];
    sl_fmt_num(t, sizeof t, reached_time(be, e, b));
    sl_fmt_num(end, sizeof end, c->t_end);
    if (expect <= 0) /* adaptive: the count is not known in advance */
        return sl_fail(SL_ERR_CANCELLED, "integrate: cancelled: run abandoned at t = %s of "
                       "t_end = %s, after %lld launches", t, end, (long long)launches);
    return sl_fail(SL_ERR_CANCELLED, "integrate: cancelled: run abandoned at t = %s of t_end = "
                   "%s, after %lld of about %lld launches", t, end, (long long)launches,
                   (long long)expect);
}

/* User monitors between launches: the launch's state to the host (the CPU
 * backend works in the ensemble's arrays already), the checks, and the
 * statuses of the systems they stopped back to the device. *ended counts
 * stopped systems that the launch had counted as unfinished. */
static sl_status user_monitors_after_launch(const sl_backend *be, sl_ensemble *e,
                                            const sl_run_config *c, const sl_bufs *b,
                                            const sl__monitor_view *view, int64_t *ended)
{
    int64_t stopped = 0;
    *ended = 0;
    if (c->n_user_monitors == 0)
        return SL_OK;
    sl_status st = download_bufs(be, e, b);
    if (!st)
        st = sl_user_monitors_check(e, c, view, &stopped, ended);
    if (st || stopped == 0 || be->kind != SL_BACKEND_CUDA)
        return st;
    size_t ns = (size_t)e->n_sys;
    if ((st = sl_dev_upload(b->status, e->status, ns * sizeof(int32_t), "uploading statuses")) ||
        (st = sl_dev_upload(b->reason, e->reason, ns * sizeof(int32_t), "uploading reasons")) ||
        (st = sl_dev_upload(b->detail, e->detail, ns * sizeof(int32_t), "uploading details")) ||
        (st = sl_dev_upload(b->stop_time, e->stop_time, ns * sizeof(double), "uploading times")))
        return st;
    return SL_OK;
}

/* One pass's launches: the run's span, the segment under way, the counts. */
typedef struct sl_launcher {
    const sl_backend *be;
    sl_ensemble *e;
    const sl_run_config *c;
    const sl_kernel_entry *k;
    sl_bufs *b;
    const sl__monitor_view *view;
    sl_run_args a;
    double *host_log;    /* CUDA: where records are read to */
    double t_min, span;  /* the run: its earliest active system, to t_end */
    double f_lo, f_hi;   /* the segment's share of the span, as fractions */
    int64_t expect;      /* launches a fixed step needs in the segment; 0 adaptive */
    int64_t launches;    /* in the whole pass */
    int64_t n_seg;
    double t0;           /* the pass's start, wall clock */
} sl_launcher;

/* How far the run is after a launch that left the segment `within` done
 * (fixed step, by launches) or by the earliest active system's time
 * (adaptive). */
static double progress_fraction(const sl_launcher *L, double within)
{
    if (!L->c->prop->adaptive)
        return fmin(1.0, L->f_lo + within * (L->f_hi - L->f_lo));
    double t = reached_time(L->be, L->e, L->b);
    if (!(L->span > 0) || !isfinite(t))
        return 1.0;
    return fmin(1.0, fmax(0.0, (t - L->t_min) / L->span));
}

/* The launch's counters read, its log records passed on, the user
 * monitors run; *left: the systems still short of the segment's end. */
static sl_status after_launch(sl_launcher *L, int64_t *left, sl_run_result *res)
{
    const sl_backend *be = L->be;
    unsigned long long cnt[SL_NCOUNTERS] = {0};
    int rec_len = SL_LOG_HEAD + 6 * L->e->n_body;
    sl_status st;
    if (be->kind == SL_BACKEND_CUDA)
        st = sl_dev_download(cnt, L->b->counters, sizeof cnt, "reading counters");
    else
        memcpy(cnt, L->b->counters, sizeof cnt), st = SL_OK;
    if (st)
        return st;
    if (cnt[SL_CNT_LOST])
        return sl_fail(SL_ERR_INTERNAL, "integrate: %llu log records did not fit the buffer",
                       cnt[SL_CNT_LOST]);
    int64_t nrec = (int64_t)cnt[SL_CNT_LOG];
    if (nrec > 0 && L->c->log_sink) {
        double *rec = L->b->log;
        if (be->kind == SL_BACKEND_CUDA) {
            st = sl_dev_download(L->host_log, L->b->log, (size_t)nrec * rec_len * sizeof(double),
                                 "reading log records");
            rec = L->host_log;
        }
        if (!st)
            st = sort_records(rec, nrec, rec_len);
        if (!st)
            st = L->c->log_sink(L->c->log_ud, rec, nrec, rec_len);
        if (st)
            return st;
    }
    res->log_records += nrec;
    res->rejected_steps += (int64_t)cnt[SL_CNT_REJECTED];
    int64_t ended = 0;
    if ((st = user_monitors_after_launch(be, L->e, L->c, L->b, L->view, &ended)))
        return st;
    *left = (int64_t)cnt[SL_CNT_UNFINISHED] - ended;
    return SL_OK;
}

/* The launches the whole pass needs, where known (one segment, fixed step). */
static int64_t planned(const sl_launcher *L)
{
    return L->n_seg == 1 ? L->expect : 0;
}

/* Launches until every system has reached a.t_end or stopped. */
static sl_status run_segment(sl_launcher *L, sl_run_result *res)
{
    const sl_backend *be = L->be;
    sl_status st = SL_OK;
    for (int64_t launch = 0;; launch++) {
        L->a.first_launch = launch == 0;
        if (be->kind == SL_BACKEND_CUDA)
            st = sl_dev_zero(L->b->counters, SL_NCOUNTERS * sizeof(unsigned long long),
                             "resetting counters");
        else
            memset(L->b->counters, 0, SL_NCOUNTERS * sizeof(unsigned long long));
        if (st)
            return st;
        if (sl_cancelled())
            return fail_cancelled(be, L->e, L->b, L->c, L->launches, planned(L));
        double tk = sl__now_s();
        st = be->kind == SL_BACKEND_CUDA ? L->k->cuda(&L->a) : L->k->cpu(&L->a);
        res->kernel_s += sl__now_s() - tk;
        res->launches++;
        L->launches++;
        if (st)
            return st;
        if (sl_cancelled()) /* the launch may have skipped chunks: abandon it */
            return fail_cancelled(be, L->e, L->b, L->c, L->launches, planned(L));
        int64_t left = 0;
        if ((st = after_launch(L, &left, res)))
            return st;
        double within = L->expect > 0 ? (launch + 1.0) / (double)L->expect : 1.0;
        if (L->c->progress && L->c->progress(L->c->progress_ud,
                                             progress_fraction(L, left == 0 ? 1.0 : within),
                                             L->launches, sl__now_s() - L->t0))
            return sl_fail(SL_ERR_CANCELLED, "integrate: cancelled by the progress function "
                           "after %lld launches", (long long)L->launches);
        if (left == 0)
            return SL_OK;
        if (L->expect > 0 && launch > L->expect + 2)
            return sl_fail(SL_ERR_INTERNAL, "integrate: %lld systems still short of t = %g after "
                           "%lld launches", (long long)left, L->a.t_end, (long long)launch + 1);
    }
}

/* Segment g of n_seg (1-based): where it ends. */
static double segment_end(const sl__segments *seg, int64_t g, int64_t n_seg, double t_end)
{
    return g == n_seg ? t_end : seg->t_from + (double)g * seg->length;
}

/* Segments of a pass; one for a pass not cut. The last may be shorter; one
 * whose length would be a rounding remainder is merged into the one before. */
static int64_t segment_count(const sl__segments *seg, double t_end)
{
    if (!seg || !(t_end > seg->t_from))
        return 1;
    return (int64_t)fmax(1.0, ceil((t_end - seg->t_from) / seg->length * (1.0 - 1e-12)));
}

/* A new segment counts its grid of fixed steps, and the step cap, from where
 * each system is now, as a new call would. */
static sl_status restart_grid(sl_launcher *L)
{
    size_t ns = (size_t)L->e->n_sys;
    if (L->be->kind != SL_BACKEND_CUDA) {
        memcpy(L->b->t_start, L->b->time, ns * sizeof(double));
        memcpy(L->b->step_start, L->b->steps, ns * sizeof(int64_t));
        return SL_OK;
    }
    sl_status st = sl_dev_copy(L->b->t_start, L->b->time, ns * sizeof(double), "segment times");
    return st ? st : sl_dev_copy(L->b->step_start, L->b->steps, ns * sizeof(int64_t),
                                 "segment steps");
}

static void launcher_args(sl_launcher *L, const sl_fparams *fpar, int64_t launch_steps,
                          int64_t log_cap)
{
    const sl_bufs *b = L->b;
    const sl_run_config *c = L->c;
    sl_run_args *a = &L->a;
    memset(a, 0, sizeof *a);
    a->state = b->state;
    a->persist = b->persist;
    a->time = b->time;
    a->steps = b->steps;
    a->status = b->status;
    a->reason = b->reason;
    a->detail = b->detail;
    a->stop_time = b->stop_time;
    a->next_log = b->next_log;
    a->t_start = b->t_start;
    a->step_start = b->step_start;
    a->e0 = b->e0;
    a->log = b->log;
    a->counters = b->counters;
    a->log_cap = log_cap;
    a->n_sys = L->e->n_sys;
    a->n_body = L->e->n_body;
    a->t_end = c->t_end;
    a->launch_steps = launch_steps;
    a->max_steps = c->max_steps;
    a->mon = c->mon;
    memcpy(a->fp, fpar->fp, sizeof a->fp);
    a->fp_sys = b->fp_sys;
    a->n_fp = fpar->n_fp;
    memcpy(a->pp, c->pp, sizeof a->pp);
    a->h_next = b->h_next;
}

static sl_status run_launches(const sl_backend *be, sl_ensemble *e, const sl_run_config *c,
                              const sl_kernel_entry *k, sl_bufs *b, const sl_fparams *fpar,
                              int64_t launch_steps, int64_t log_cap,
                              const sl__monitor_view *view, const sl__segments *seg,
                              sl_run_result *res)
{
    sl_launcher L;
    memset(&L, 0, sizeof L);
    L.be = be, L.e = e, L.c = c, L.k = k, L.b = b, L.view = view;
    launcher_args(&L, fpar, launch_steps, log_cap);
    L.t_min = INFINITY;
    for (int64_t s = 0; s < e->n_sys; s++)
        if (e->status[s] == SL_SYS_ACTIVE && e->time[s] < L.t_min)
            L.t_min = e->time[s];
    L.span = isfinite(L.t_min) && c->t_end > L.t_min ? c->t_end - L.t_min : 0.0;
    int rec_len = SL_LOG_HEAD + 6 * e->n_body;
    if (be->kind == SL_BACKEND_CUDA && log_cap > 0) {
        L.host_log = malloc((size_t)log_cap * (size_t)rec_len * sizeof(double));
        if (!L.host_log)
            return sl_fail_nomem((double)log_cap * rec_len * sizeof(double),
                                 "integrate: host log buffer of %lld records", (long long)log_cap);
    }
    sl__pass_view w = {b->state, b->time, b->stop_time, b->status, b->reason, b->detail,
                       e->n_sys, e->n_body};
    L.t0 = sl__now_s();
    L.n_seg = segment_count(seg, c->t_end);
    sl_status st = SL_OK;
    double lo = L.t_min;
    for (int64_t g = 1; g <= L.n_seg && !st; g++) {
        double hi = seg ? segment_end(seg, g, L.n_seg, c->t_end) : c->t_end;
        L.a.t_end = hi;
        L.f_lo = L.span > 0 ? (fmax(lo, L.t_min) - L.t_min) / L.span : 0.0;
        L.f_hi = L.span > 0 ? (hi - L.t_min) / L.span : 1.0;
        /* launches a fixed step needs; 0 for an adaptive integrator, whose
         * every launch still moves each unfinished system on or stops it */
        double need = (double)sl_steps_needed(0.0, isfinite(lo) ? hi - fmax(lo, L.t_min) : 0.0,
                                              c->pp[SL_PP_DT]);
        L.expect = c->prop->adaptive ? 0 : (int64_t)ceil(need / (double)launch_steps);
        if (g > 1)
            st = restart_grid(&L);
        if (!st)
            st = run_segment(&L, res);
        if (!st && seg)
            st = seg->between(seg->ud, &w);
        lo = hi;
    }
    free(L.host_log);
    return st;
}

sl_status sl__integrate_pass(const sl_backend *be, sl_ensemble *e, const sl_run_config *c,
                             const sl__pass_start *start, sl_run_result *res)
{
    double t0 = sl__now_s();
    memset(res, 0, sizeof *res);
    const sl_kernel_entry *k = NULL;
    sl_fparams fpar;
    sl_status st = check_all(be, e, c, &k, &fpar);
    if (!st && (st = sl_user_monitors_valid(c)))
        sl_fparams_free(&fpar);
    if (st)
        return st;
    snprintf(res->kernel, sizeof res->kernel, "%s/%s/%s%.0d", c->prop->name, c->force->name,
             k->n_body ? "" : "any", k->n_body);
    size_t ns = (size_t)e->n_sys;
    res->energy_error = malloc(ns * sizeof(double));
    res->angmom_error = malloc(ns * sizeof(double));
    double *e0 = malloc(ns * sizeof(double)), *l0 = malloc(ns * 3 * sizeof(double));
    int64_t *steps0 = malloc(ns * sizeof(int64_t));
    if (!res->energy_error || !res->angmom_error || !e0 || !l0 || !steps0) {
        free(e0), free(l0), free(steps0);
        sl_fparams_free(&fpar);
        sl_run_result_free(res);
        return sl_fail_nomem((double)ns * (6 * sizeof(double) + sizeof(int64_t)),
                             "integrate: diagnostics for %zu systems", ns);
    }
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < e->n_sys; s++) {
        double fp[SL_FORCE_PARAMS_MAX];
        sl_fparams_get(&fpar, s, fp);
        sl_system_energy(e, s, c->force, fp, &e0[s], &l0[3 * s]);
        steps0[s] = e->steps[s];
    }

    int64_t log_cap = 0;
    int64_t launch_steps = plan_launch(e, c, &log_cap);
    sl_bufs b;
    st = alloc_bufs(be, e, c->prop->persist_per_body * e->n_body, log_cap, start, &b);
    if (!st && c->prop->adaptive)
        st = alloc_steps(be, e, &b);
    if (!st)
        st = place_fparams(be, e, &fpar, &b);
    if (!st) {
        double *next = malloc(ns * sizeof(double));
        if (!next)
            st = sl_fail_nomem((double)ns * sizeof(double), "integrate: log schedule");
        else {
            for (size_t s = 0; s < ns; s++)
                next[s] = start && start->next_log ? start->next_log[s]
                                                   : e->time[s] + c->mon.log_every_dt;
            if (be->kind == SL_BACKEND_CUDA) {
                st = sl_dev_upload(b.next_log, next, ns * sizeof(double), "uploading log times");
                if (!st)
                    st = sl_dev_upload(b.e0, e0, ns * sizeof(double), "uploading energies");
            } else {
                memcpy(b.next_log, next, ns * sizeof(double));
                memcpy(b.e0, e0, ns * sizeof(double));
            }
            free(next);
        }
    }
    int logging = c->log_sink && (c->mon.log_every_steps > 0 || c->mon.log_every_dt > 0);
    if (!st && logging && !(start && start->skip_initial))
        st = host_snapshot(e, c, SL_LOG_INITIAL);
    if (!st)
        st = run_launches(be, e, c, k, &b, &fpar, launch_steps, log_cap,
                          start ? start->view : NULL, start ? start->seg : NULL, res);
    if (!st)
        st = download_bufs(be, e, &b);
    free_bufs(be, &b, e);
    if (!st && logging)
        st = host_snapshot(e, c, SL_LOG_FINAL);

#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < e->n_sys; s++) {
        double en, L[3], fp[SL_FORCE_PARAMS_MAX];
        sl_fparams_get(&fpar, s, fp);
        sl_system_energy(e, s, c->force, fp, &en, L);
        sl__drift(e0[s], &l0[3 * s], en, L, &res->energy_error[s], &res->angmom_error[s]);
    }
    for (int64_t s = 0; s < e->n_sys; s++) {
        res->system_steps += (double)(e->steps[s] - steps0[s]);
        res->n_active += e->status[s] == SL_SYS_ACTIVE;
        res->n_stopped += e->status[s] == SL_SYS_STOPPED;
        res->n_failed += e->status[s] == SL_SYS_FAILED;
    }
    free(e0), free(l0), free(steps0);
    sl_fparams_free(&fpar);
    res->wall_s = sl__now_s() - t0;
    if (st)
        sl_run_result_free(res);
    return st;
}
