/* User monitors: host code that may stop a system, run between launches.
 * The kernel knows nothing of them; run.c brings the state to the host after
 * each launch (CUDA) and calls sl_user_monitors_check. */
#include "monitor_user.h"
#include "monitor_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/integrate.h"
#include "starling/nomem.h"

sl_status sl_user_monitors_valid(const sl_run_config *c)
{
    if (c->n_user_monitors && !c->user_monitors)
        return sl_fail(SL_ERR_ARG, "integrate: %zu user monitors but no list",
                       c->n_user_monitors);
    for (size_t i = 0; i < c->n_user_monitors; i++) {
        const sl_monitor *m = c->user_monitors[i].monitor;
        char why[256];
        if (!m || !m->check)
            return sl_fail(SL_ERR_ARG, "integrate: user monitor %zu has no check entry", i + 1);
        if (sl_monitor_table_problem(m, why, sizeof why))
            return sl_fail(SL_ERR_PLUGIN, "integrate: monitor '%s' %s", m->name, why);
        for (size_t j = 0; j < i; j++)
            if (c->user_monitors[j].monitor == m)
                return sl_fail(SL_ERR_ARG, "integrate: monitor '%s' is given twice (user "
                               "monitors %zu and %zu)", m->name, j + 1, i + 1);
    }
    return SL_OK;
}

/* Runs the monitors on system s; returns the code of the first that stops
 * it, with its index in *which. */
static int check_system(const sl_ensemble *e, int64_t s, const sl_run_config *c,
                        const sl__monitor_view *view, int *which)
{
    double x[3 * SL_NBODY_MAX], v[3 * SL_NBODY_MAX], m[SL_NBODY_MAX];
    sl_monitor_system sys = {s, e->n_body, e->time[s], e->steps[s], x, v, m};
    if (view) {
        sys.index = view->sys[s];
        sys.n_body = view->n_body;
        for (int b = 0; b < view->n_body; b++) {
            m[b] = 0.0;
            for (int k = 0; k < 3; k++)
                x[3 * b + k] = v[3 * b + k] = NAN;
        }
        for (int b = 0; b < e->n_body; b++) {
            int o = view->bmap[s * view->L + b];
            sl_ensemble_get_body(e, s, b, &m[o], &x[3 * o], &v[3 * o]);
        }
    } else {
        for (int b = 0; b < e->n_body; b++)
            sl_ensemble_get_body(e, s, b, &m[b], &x[3 * b], &v[3 * b]);
    }
    for (size_t k = 0; k < c->n_user_monitors; k++) {
        const sl_monitor_use *u = &c->user_monitors[k];
        int code = u->monitor->check(u->ctx, &sys);
        if (code != 0) {
            *which = (int)k;
            return code;
        }
    }
    return 0;
}

/* One stop record per system in hit order (by system), sent at once. */
static sl_status log_stops(const sl_ensemble *e, const sl_run_config *c, const int32_t *hit,
                           int64_t n)
{
    int len = SL_LOG_HEAD + 6 * e->n_body;
    double *rec = malloc((size_t)n * (size_t)len * sizeof(double));
    if (!rec)
        return sl_fail_nomem((double)n * len * sizeof(double), "integrate: %lld stop records",
                             (long long)n);
    double *r = rec;
    for (int64_t s = 0; s < e->n_sys; s++) {
        if (!hit[2 * s + 1])
            continue;
        r[0] = (double)s;
        r[1] = e->time[s];
        r[2] = (double)e->steps[s];
        r[3] = SL_LOG_STOP;
        for (int b = 0; b < e->n_body; b++)
            sl_ensemble_get_body(e, s, b, NULL, r + SL_LOG_HEAD + 6 * b,
                                 r + SL_LOG_HEAD + 6 * b + 3);
        r += len;
    }
    sl_status st = c->log_sink(c->log_ud, rec, n, len);
    free(rec);
    return st;
}

sl_status sl_user_monitors_check(sl_ensemble *e, const sl_run_config *c,
                                 const sl__monitor_view *view, int64_t *stopped, int64_t *ended)
{
    *stopped = *ended = 0;
    if (c->n_user_monitors == 0)
        return SL_OK;
    size_t ns = (size_t)e->n_sys;
    int32_t *hit = calloc(2 * ns, sizeof *hit); /* per system: monitor index, code */
    int *slot = malloc(c->n_user_monitors * sizeof *slot);
    if (!hit || !slot) {
        free(hit), free(slot);
        return sl_fail_nomem(2.0 * (double)ns * sizeof *hit, "integrate: user monitor results");
    }
    /* serial for small ensembles: a parallel region per launch costs more
     * than a few checks (and much more on a loaded machine) */
#pragma omp parallel for schedule(dynamic, 64) if (e->n_sys > 256)
    for (int64_t s = 0; s < e->n_sys; s++) {
        int which = 0;
        if (e->status[s] != SL_SYS_ACTIVE)
            continue;
        int code = check_system(e, s, c, view, &which);
        hit[2 * s] = which;
        hit[2 * s + 1] = code;
    }
    sl_status st = SL_OK;
    for (int64_t s = 0; s < e->n_sys && !st; s++) {
        const sl_monitor *m = c->user_monitors[hit[2 * s]].monitor;
        int code = hit[2 * s + 1], n = sl_monitor_code_count(m);
        if (code < 0 || code > n) {
            char t[40];
            sl_fmt_num(t, sizeof t, e->time[s]);
            st = sl_fail(SL_ERR_PLUGIN, "integrate: monitor '%s' returned %d for system %lld at "
                         "t = %s: expected 0 (go on) or a code in 1..%d (its codes: %s%s)",
                         m->name, code, (long long)s + 1, t, n, m->codes[0],
                         n > 1 ? ", ..." : "");
        }
    }
    for (size_t k = 0; k < c->n_user_monitors; k++)
        slot[k] = -1;
    for (int64_t s = 0; s < e->n_sys && !st; s++) {
        int k = hit[2 * s], code = hit[2 * s + 1];
        if (!code)
            continue;
        if (slot[k] < 0) {
            const sl_monitor *m = c->user_monitors[k].monitor;
            if ((st = sl_ensemble_stop_source(e, m->name, m->codes, &slot[k])))
                break;
        }
        e->status[s] = SL_SYS_STOPPED;
        e->reason[s] = SL_REASON_MONITOR;
        e->detail[s] = slot[k] * 256 + code;
        e->stop_time[s] = e->time[s];
        (*stopped)++;
        *ended += e->time[s] < c->t_end;
    }
    if (!st && *stopped && c->mon.log_on_stop && c->log_sink)
        st = log_stops(e, c, hit, *stopped);
    free(hit), free(slot);
    return st;
}
