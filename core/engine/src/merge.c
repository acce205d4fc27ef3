/* Collision merging (the collision monitor's `merge`) and ensembles with
 * removed bodies. The kernels only stop a system whose bodies touch
 * (SL_REASON_COLLISION): merging inside a kernel would change a mass under
 * what integrators keep between steps. So a merging call is a sequence of
 * ordinary passes (sl__integrate_pass): after each, the host joins every
 * touching pair, removes the second body, and the next pass takes those
 * systems on, compacted to their survivors, in a smaller ensemble of their
 * own (one per number of survivors) that runs with the kernel for that
 * number. Each system thus integrates its live bodies only, with the same
 * kernels as any run of that size, and merges cost nothing to the systems
 * that do not collide. docs/ARCHITECTURE.md, "Merging", says more. */
#define _POSIX_C_SOURCE 200809L
#include "merge_internal.h"
#include "run_internal.h"

#include "monitor_user.h"
#include "run_diag.h"
#include "starling/fparams.h"
#include "starling/nomem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int merge_on(const sl_run_config *c)
{
    return c->mon.collide_merge && (c->mon.collide_radius > 0 || c->mon.collide_density > 0);
}

int sl__merging(const sl_ensemble *e, const sl_run_config *c)
{
    return merge_on(c) || sl_ensemble_has_removed(e);
}

/* Systems in a smaller ensemble of their live bodies; bmap[k * L + b]
 * is the original index of body b of system k. */
typedef struct sl_group {
    const int64_t *sys;
    int64_t n;
    int L;
    sl_ensemble *sub;
    int *bmap;
} sl_group;

static void group_free(sl_group *g)
{
    sl_ensemble_destroy(g->sub);
    free(g->bmap);
    g->sub = NULL;
    g->bmap = NULL;
}

static sl_status gather(const sl_ensemble *e, sl_group *g)
{
    sl_status st = sl_ensemble_create(g->n, g->L, &g->sub);
    if (st)
        return sl_fail_context(st, "integrate: systems of %d live bodies", g->L);
    g->bmap = malloc((size_t)g->n * (size_t)g->L * sizeof *g->bmap);
    if (!g->bmap) {
        group_free(g);
        return sl_fail_nomem((double)g->n * g->L * sizeof(int), "integrate: body maps");
    }
    sl_ensemble *sub = g->sub;
    for (int a = 0; a < e->n_attr && !st; a++) {
        int idx;
        if (!(st = sl_ensemble_attr(sub, e->attr_name[a], &idx)))
            for (int64_t k = 0; k < g->n; k++)
                sub->attr[(size_t)idx * (size_t)g->n + (size_t)k] =
                    e->attr[(size_t)a * (size_t)e->n_sys + (size_t)g->sys[k]];
    }
    /* the same stop sources in the same slots, so details keep their meaning */
    for (int i = 0; i < e->n_stop_sources && !st; i++) {
        int slot;
        const sl_stop_source *src = &e->stop_sources[i];
        st = sl_ensemble_stop_source(sub, src->name, (const char *const *)src->codes, &slot);
    }
    if (st) {
        group_free(g);
        return st;
    }
    for (int64_t k = 0; k < g->n; k++) {
        int64_t s = g->sys[k];
        int b2 = 0;
        for (int b = 0; b < e->n_body; b++) {
            if (sl_ensemble_body_removed(e, s, b))
                continue;
            for (int f = 0; f < SL_NFIELD; f++)
                sub->state[sl_state_index(k, g->L, b2, f)] = sl_ensemble_get(e, s, b, f);
            g->bmap[k * g->L + b2++] = b;
        }
        sub->time[k] = e->time[s];
        sub->steps[k] = e->steps[s];
        sub->status[k] = e->status[s];
        sub->reason[k] = e->reason[s];
        sub->detail[k] = e->detail[s];
        sub->stop_time[k] = e->stop_time[s];
    }
    return SL_OK;
}

/* A stop's detail names bodies of the compacted system: name the originals. */
static int32_t original_detail(int32_t reason, int32_t detail, const int *bmap)
{
    switch (reason) {
    case SL_REASON_EJECTION:
    case SL_REASON_UNBOUND:
        return detail >= 0 ? bmap[detail] : detail;
    case SL_REASON_CLOSE_ENCOUNTER:
    case SL_REASON_COLLISION:
        return detail >= 0 ? bmap[detail / 256] * 256 + bmap[detail % 256] : detail;
    default:
        return detail;
    }
}

/* A user monitor's stop names a stop source of sub: name e's. */
static sl_status monitor_detail(sl_ensemble *e, const sl_ensemble *sub, int32_t *detail)
{
    int slot = *detail / 256;
    if (slot < 0 || slot >= sub->n_stop_sources)
        return SL_OK;
    const sl_stop_source *src = &sub->stop_sources[slot];
    sl_status st = sl_ensemble_stop_source(e, src->name, (const char *const *)src->codes, &slot);
    if (!st)
        *detail = slot * 256 + *detail % 256;
    return st;
}

static sl_status scatter(sl_ensemble *e, const sl_group *g)
{
    const sl_ensemble *sub = g->sub;
    for (int64_t k = 0; k < g->n; k++) {
        int64_t s = g->sys[k];
        const int *bmap = g->bmap + k * g->L;
        for (int b = 0; b < g->L; b++)
            for (int f = 0; f < SL_NFIELD; f++)
                e->state[sl_state_index(s, e->n_body, bmap[b], f)] =
                    sub->state[sl_state_index(k, g->L, b, f)];
        e->time[s] = sub->time[k];
        e->steps[s] = sub->steps[k];
        e->status[s] = sub->status[k];
        e->reason[s] = sub->reason[k];
        e->detail[s] = original_detail(sub->reason[k], sub->detail[k], bmap);
        e->stop_time[s] = sub->stop_time[k];
        if (e->reason[s] == SL_REASON_MONITOR) {
            sl_status st = monitor_detail(e, sub, &e->detail[s]);
            if (st)
                return st;
        }
    }
    return SL_OK;
}

/* The active systems, by number of live bodies: sys sorted by that number
 * (then index), first[L] the start of those with L in sys. */
static sl_status by_live_count(const sl_ensemble *e, const int64_t *cand, int64_t n,
                               int64_t **sys, int64_t first[SL_NBODY_MAX + 2])
{
    int64_t count[SL_NBODY_MAX + 2] = {0};
    int *live = malloc((size_t)(n ? n : 1) * sizeof *live);
    *sys = malloc((size_t)(n ? n : 1) * sizeof **sys);
    if (!live || !*sys) {
        free(live), free(*sys);
        *sys = NULL;
        return sl_fail_nomem((double)n * 12, "integrate: grouping %lld systems", (long long)n);
    }
    for (int64_t k = 0; k < n; k++) {
        live[k] = e->status[cand[k]] == SL_SYS_ACTIVE ? sl_ensemble_live_bodies(e, cand[k]) : 0;
        count[live[k]]++;
    }
    first[0] = 0;
    for (int L = 1; L <= SL_NBODY_MAX + 1; L++)
        first[L] = first[L - 1] + count[L - 1];
    int64_t at[SL_NBODY_MAX + 2];
    memcpy(at, first, sizeof at);
    for (int64_t k = 0; k < n; k++)
        (*sys)[at[live[k]]++] = cand[k];
    free(live);
    return SL_OK;
}

sl_status sl__merge_check(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c)
{
    if (!c->prop || !c->force)
        return sl_fail(SL_ERR_ARG, "integrate: an integrator and a force are required");
    if (!sl_ensemble_has_removed(e)) {
        sl_status st = sl__run_check_plain(be, e, c);
        if (st)
            return st;
    } else {
        int64_t *all = malloc((size_t)(e->n_sys ? e->n_sys : 1) * sizeof *all), *sys = NULL;
        int64_t first[SL_NBODY_MAX + 2];
        if (!all)
            return sl_fail_nomem((double)e->n_sys * 8, "integrate: system list");
        for (int64_t s = 0; s < e->n_sys; s++)
            all[s] = s;
        sl_status st = by_live_count(e, all, e->n_sys, &sys, first);
        for (int L = 2; L <= e->n_body && !st; L++) {
            sl_group g = {sys + first[L], first[L + 1] - first[L], L, NULL, NULL};
            if (g.n == 0)
                continue;
            if (!(st = gather(e, &g)))
                st = sl__run_check_plain(be, g.sub, c);
            if (st)
                st = sl_fail_context(st, "integrate: the systems with %d live bodies", L);
            group_free(&g);
        }
        free(all), free(sys);
        if (st)
            return st;
    }
    /* every size a merge can leave must have a kernel, before any work */
    for (int n = 2; merge_on(c) && n < e->n_body; n++) {
        const sl_kernel_entry *k;
        sl_status st = sl__check_kernel(be, c, n, &k);
        if (st)
            return sl_fail_context(st, "integrate: merging leaves systems of %d bodies", n);
    }
    return SL_OK;
}

/* One merging call's bookkeeping. */
typedef struct sl_merge_run {
    const sl_backend *be;
    sl_ensemble *e;
    const sl_run_config *c;
    sl_run_result *res;
    sl_fparams fpar;     /* the force's parameters per system of e, for energies */
    double *t0, *e0, *l0, *de, *dl; /* per system: start time, E, L; merges' change */
    int64_t *k0;         /* steps at the start */
    int attr;            /* the 'merges' column, or -1 */
    double wall0, fraction;
    int64_t launches;    /* of the passes before this one */
    const sl_group *group; /* the pass's group (NULL: in place) */
    double *rec;         /* a record with every body, for the log */
} sl_merge_run;

static int progress_all(void *ud, double fraction, int64_t launches, double elapsed)
{
    sl_merge_run *m = ud;
    (void)elapsed;
    m->fraction = fmax(m->fraction, fraction); /* later passes only finish systems */
    return m->c->progress(m->c->progress_ud, m->fraction, m->launches + launches,
                          sl__now_s() - m->wall0);
}

/* A pass's records name its compacted systems: give them the original
 * system and a column for every body, NaN for removed ones. */
static sl_status log_all(void *ud, const double *rec, int64_t n, int rec_len)
{
    sl_merge_run *m = ud;
    const sl_group *g = m->group;
    int N = m->e->n_body, len = SL_LOG_HEAD + 6 * N;
    for (int64_t i = 0; i < n; i++, rec += rec_len) {
        int64_t k = (int64_t)rec[0];
        memcpy(m->rec, rec, SL_LOG_HEAD * sizeof(double));
        m->rec[0] = (double)g->sys[k];
        for (int b = SL_LOG_HEAD; b < len; b++)
            m->rec[b] = NAN;
        for (int b = 0; b < g->L; b++)
            memcpy(m->rec + SL_LOG_HEAD + 6 * g->bmap[k * g->L + b], rec + SL_LOG_HEAD + 6 * b,
                   6 * sizeof(double));
        sl_status st = m->c->log_sink(m->c->log_ud, m->rec, 1, len);
        if (st)
            return st;
    }
    return SL_OK;
}

static void add_result(sl_merge_run *m, const sl_run_result *r)
{
    m->res->kernel_s += r->kernel_s;
    m->res->launches += r->launches;
    m->res->rejected_steps += r->rejected_steps;
    m->res->log_records += r->log_records;
    m->launches += r->launches;
    if (!m->res->kernel[0])
        memcpy(m->res->kernel, r->kernel, sizeof r->kernel);
}

/* The next log_every_dt time of system s on its grid from the call's start. */
static double next_log_time(const sl_merge_run *m, int64_t s)
{
    double dt = m->c->mon.log_every_dt, t0 = m->t0[s], t = m->e->time[s];
    if (!(dt > 0))
        return t;
    double next = t0 + (floor((t - t0) / dt) + 1.0) * dt;
    return next > t ? next : next + dt;
}

static int logging(const sl_run_config *c);
static sl_status log_state(const sl_merge_run *m, int64_t s, int event);

/* A system left with one body has nothing to integrate: the body moves on a
 * straight line to t_end, in no steps (so the step cap cannot stop it), and
 * its final record closes its log. */
static sl_status coast(sl_merge_run *m, int64_t s)
{
    sl_ensemble *e = m->e;
    double dt = m->c->t_end - e->time[s];
    for (int b = 0; b < e->n_body; b++)
        if (!sl_ensemble_body_removed(e, s, b))
            for (int c = 0; c < 3; c++)
                e->state[sl_state_index(s, e->n_body, b, SL_X + c)] +=
                    dt * sl_ensemble_get(e, s, b, SL_VX + c);
    e->time[s] = m->c->t_end;
    const sl_monitor_config *mc = &m->c->mon;
    if (logging(m->c) && (mc->log_every_steps > 0 || mc->log_every_dt > 0))
        return log_state(m, s, SL_LOG_FINAL);
    return SL_OK;
}

static sl_status run_group(sl_merge_run *m, sl_group *g)
{
    if (g->L == 1) {
        sl_status st = SL_OK;
        for (int64_t k = 0; k < g->n && !st; k++)
            st = coast(m, g->sys[k]);
        return st;
    }
    size_t n = (size_t)g->n;
    double *t_start = malloc(n * sizeof *t_start), *next = malloc(n * sizeof *next);
    int64_t *k_start = malloc(n * sizeof *k_start);
    sl_status st = gather(m->e, g);
    if (!st && (!t_start || !next || !k_start))
        st = sl_fail_nomem((double)n * 24, "integrate: start of %zu merged systems", n);
    if (!st) {
        for (size_t k = 0; k < n; k++) {
            t_start[k] = m->t0[g->sys[k]];
            k_start[k] = m->k0[g->sys[k]];
            next[k] = next_log_time(m, g->sys[k]);
        }
        sl__monitor_view view = {g->sys, g->bmap, g->L, m->e->n_body};
        sl__pass_start start = {t_start, k_start, next, 1, &view, NULL};
        sl_run_config cc = *m->c;
        if (cc.log_sink) {
            cc.log_sink = log_all;
            cc.log_ud = m;
        }
        if (cc.progress) {
            cc.progress = progress_all;
            cc.progress_ud = m;
        }
        m->group = g;
        sl_run_result r;
        st = sl__integrate_pass(m->be, g->sub, &cc, &start, &r);
        if (!st) {
            add_result(m, &r);
            sl_run_result_free(&r);
            st = scatter(m->e, g);
        } else {
            st = sl_fail_context(st, "integrate: after merges, the systems with %d bodies",
                                 g->L);
        }
    }
    group_free(g);
    free(t_start), free(next), free(k_start);
    return st;
}

/* The whole ensemble in place, when no body is removed yet. */
static sl_status run_in_place(sl_merge_run *m)
{
    sl_run_config cc = *m->c;
    if (cc.progress) {
        cc.progress = progress_all;
        cc.progress_ud = m;
    }
    sl_run_result r;
    sl_status st = sl__integrate_pass(m->be, m->e, &cc, NULL, &r);
    if (!st) {
        add_result(m, &r);
        sl_run_result_free(&r);
    }
    return st;
}

static void system_energy(const sl_merge_run *m, int64_t s, double *en, double L[3])
{
    double fp[SL_FORCE_PARAMS_MAX];
    sl_fparams_get(&m->fpar, s, fp);
    sl_system_energy(m->e, s, m->c->force, fp, en, L);
}

static int logging(const sl_run_config *c)
{
    return c->log_sink &&
           (c->mon.log_every_steps > 0 || c->mon.log_every_dt > 0 || c->mon.log_on_stop);
}

static sl_status log_state(const sl_merge_run *m, int64_t s, int event)
{
    const sl_ensemble *e = m->e;
    int len = SL_LOG_HEAD + 6 * e->n_body;
    double *r = m->rec;
    r[0] = (double)s;
    r[1] = e->time[s];
    r[2] = (double)e->steps[s];
    r[3] = event;
    for (int b = 0; b < e->n_body; b++)
        sl_ensemble_get_body(e, s, b, NULL, r + SL_LOG_HEAD + 6 * b, r + SL_LOG_HEAD + 6 * b + 3);
    return m->c->log_sink(m->c->log_ud, r, 1, len);
}

/* Joins the pair of every candidate a collision stopped; the merged go on. */
static sl_status merge_stopped(sl_merge_run *m, int64_t *cand, int64_t *n)
{
    sl_ensemble *e = m->e;
    int64_t kept = 0;
    for (int64_t k = 0; k < *n; k++) {
        int64_t s = cand[k];
        if (e->status[s] != SL_SYS_STOPPED || e->reason[s] != SL_REASON_COLLISION)
            continue;
        int i = e->detail[s] / 256, j = e->detail[s] % 256;
        double eb, ea, lb[3], la[3];
        system_energy(m, s, &eb, lb);
        sl_ensemble_merge_bodies(e, s, i, j);
        system_energy(m, s, &ea, la);
        m->de[s] += ea - eb;
        for (int c = 0; c < 3; c++)
            m->dl[3 * s + c] += la[c] - lb[c];
        e->status[s] = SL_SYS_ACTIVE;
        e->reason[s] = SL_REASON_NONE;
        e->detail[s] = -1;
        e->stop_time[s] = NAN;
        if (m->attr >= 0)
            e->attr[(size_t)m->attr * (size_t)e->n_sys + (size_t)s] += 1.0;
        if (logging(m->c)) {
            sl_status st = log_state(m, s, SL_LOG_MERGE);
            if (st)
                return st;
        }
        cand[kept++] = s;
    }
    *n = kept;
    return SL_OK;
}

static sl_status run_passes(sl_merge_run *m)
{
    sl_ensemble *e = m->e;
    int64_t *cand = malloc((size_t)(e->n_sys ? e->n_sys : 1) * sizeof *cand), n = 0;
    if (!cand)
        return sl_fail_nomem((double)e->n_sys * 8, "integrate: system list");
    for (int64_t s = 0; s < e->n_sys; s++)
        if (e->status[s] == SL_SYS_ACTIVE)
            cand[n++] = s;
    sl_status st = SL_OK;
    int in_place = !sl_ensemble_has_removed(e);
    while (n > 0 && !st) {
        if (in_place) {
            st = run_in_place(m);
            in_place = 0;
        } else {
            int64_t *sys = NULL, first[SL_NBODY_MAX + 2];
            st = by_live_count(e, cand, n, &sys, first);
            for (int L = 1; L <= e->n_body && !st; L++) {
                sl_group g = {sys + first[L], first[L + 1] - first[L], L, NULL, NULL};
                if (g.n > 0)
                    st = run_group(m, &g);
            }
            free(sys);
        }
        if (!st)
            st = merge_stopped(m, cand, &n);
    }
    free(cand);
    return st;
}

static void free_run(sl_merge_run *m)
{
    free(m->t0), free(m->e0), free(m->l0), free(m->de), free(m->dl), free(m->k0), free(m->rec);
    sl_fparams_free(&m->fpar);
}

static sl_status start_run(sl_merge_run *m)
{
    sl_ensemble *e = m->e;
    size_t ns = (size_t)e->n_sys;
    sl_status st = sl_fparams_build(m->c->force, m->c->force_values, m->c->fp, e, &m->fpar);
    if (st)
        return sl_fail_context(st, "integrate");
    m->t0 = malloc(ns * sizeof(double));
    m->e0 = malloc(ns * sizeof(double));
    m->l0 = malloc(3 * ns * sizeof(double));
    m->de = calloc(ns ? ns : 1, sizeof(double));
    m->dl = calloc(3 * (ns ? ns : 1), sizeof(double));
    m->k0 = malloc(ns * sizeof(int64_t));
    m->rec = malloc((SL_LOG_HEAD + 6 * (size_t)e->n_body) * sizeof(double));
    m->res->energy_error = malloc(ns * sizeof(double));
    m->res->angmom_error = malloc(ns * sizeof(double));
    if ((ns && (!m->t0 || !m->e0 || !m->l0 || !m->k0 || !m->res->energy_error ||
                !m->res->angmom_error)) ||
        !m->de || !m->dl || !m->rec)
        return sl_fail_nomem((double)ns * 12 * sizeof(double), "integrate: diagnostics for %zu "
                             "systems", ns);
    memcpy(m->t0, e->time, ns * sizeof(double));
    memcpy(m->k0, e->steps, ns * sizeof(int64_t));
    for (int64_t s = 0; s < e->n_sys; s++)
        system_energy(m, s, &m->e0[s], &m->l0[3 * s]);
    m->attr = -1;
    if (merge_on(m->c) && (st = sl_ensemble_attr(e, "merges", &m->attr)))
        return st;
    return SL_OK;
}

/* Energy and angular momentum drift leave out what the merges changed:
 * the integrators' error, as REBOUND's energy offset does. */
static void finish_run(sl_merge_run *m)
{
    sl_ensemble *e = m->e;
    sl_run_result *res = m->res;
    for (int64_t s = 0; s < e->n_sys; s++) {
        double en, L[3];
        system_energy(m, s, &en, L);
        en -= m->de[s];
        for (int c = 0; c < 3; c++)
            L[c] -= m->dl[3 * s + c];
        sl__drift(m->e0[s], &m->l0[3 * s], en, L, &res->energy_error[s], &res->angmom_error[s]);
        res->system_steps += (double)(e->steps[s] - m->k0[s]);
        res->n_active += e->status[s] == SL_SYS_ACTIVE;
        res->n_stopped += e->status[s] == SL_SYS_STOPPED;
        res->n_failed += e->status[s] == SL_SYS_FAILED;
    }
}

sl_status sl__integrate_merging(const sl_backend *be, sl_ensemble *e, const sl_run_config *c,
                                sl_run_result *res)
{
    memset(res, 0, sizeof *res);
    sl_status st = sl__merge_check(be, e, c);
    if (st)
        return st;
    sl_merge_run m = {.be = be, .e = e, .c = c, .res = res, .wall0 = sl__now_s()};
    st = start_run(&m);
    if (!st)
        st = run_passes(&m);
    if (!st)
        finish_run(&m);
    free_run(&m);
    res->wall_s = sl__now_s() - m.wall0;
    if (st)
        sl_run_result_free(res);
    return st;
}
