/* The conformance suite: the monitor checks and the whole-plugin driver.
 * Reports and the schema checks every kind shares are in
 * conformance_report.c, integrators and forces in conformance_orbit.c,
 * likelihoods in conformance_data.c; a periodogram's layout is its
 * plugin's, so its checks come as extras from front ends. */
#define _GNU_SOURCE
#include "conformance_internal.h"
#include "monitor_table.h"
#include "starling/rng.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- monitors ----------------------------------------------------------------- */

static int config_finite(const sl_monitor_config *mc)
{
    return !isnan(mc->log_every_dt) && !isnan(mc->eject_r) && !isnan(mc->unbound_r) &&
           !isnan(mc->close_hill) && !isnan(mc->energy_max) && !isnan(mc->collide_radius) &&
           !isnan(mc->collide_density) && !isnan(mc->collide_central);
}

/* Defaults first; a monitor whose defaults are "off" (and refused as
 * such) must accept one key switched on. */
static void check_configure(sl_check_report *r, const sl_monitor *m)
{
    sl_param_values pv;
    sl_monitor_config mc;
    if (!m->configure && m->check) {
        sl_check_add(r, SL_CHECK_SKIP, "configure", "a user monitor without configure");
        return;
    }
    if (!m->configure) {
        sl_check_add(r, SL_CHECK_FAIL, "configure", "the table has no configure entry");
        return;
    }
    if (sl_check_valid_values(m->params, m->n_params, &pv)) {
        sl_check_add(r, SL_CHECK_FAIL, "configure", "defaults: %s", sl_last_error());
        return;
    }
    sl_monitor_config_default(&mc);
    sl_clear_error();
    if (m->configure(&pv, &mc) == SL_OK) {
        sl_check_add(r, config_finite(&mc) ? SL_CHECK_PASS : SL_CHECK_FAIL, "configure",
                     "defaults %s", config_finite(&mc) ? "accepted" : "gave a NaN setting");
        return;
    }
    char first[SL_CHECK_DETAIL_MAX / 2];
    snprintf(first, sizeof first, "%s", sl_last_error());
    if (!*first) {
        sl_check_add(r, SL_CHECK_FAIL, "configure", "defaults refused without a message");
        return;
    }
    for (size_t i = 0; i < m->n_params; i++) {
        const sl_param *p = &m->params[i];
        if (p->required || p->def != 0.0)
            continue;
        sl_check_valid_values(m->params, m->n_params, &pv);
        if (sl_params_set(&pv, p->name, sl_check_valid_value(p)) != SL_OK)
            continue;
        sl_monitor_config_default(&mc);
        if (m->configure(&pv, &mc) == SL_OK && config_finite(&mc)) {
            sl_check_add(r, SL_CHECK_PASS, "configure", "defaults refused (\"%s\"); accepted "
                         "with %s = %g", first, p->name, sl_check_valid_value(p));
            return;
        }
    }
    sl_check_add(r, SL_CHECK_FAIL, "configure", "no configuration accepted: \"%s\"", first);
}

/* ---- user monitors ---------------------------------------------------------------- */

enum { UM_SYSTEMS = 96 };

/* Test systems for check: a central mass 1 and 1..4 planets of mass 1e-3 on
 * circular orbits of log-uniform radius in [1e-3, 1e3] (so that distance
 * rules meet both sides), random orientation, time and step count. */
typedef struct um_systems {
    double x[UM_SYSTEMS][3 * 5], v[UM_SYSTEMS][3 * 5], m[UM_SYSTEMS][5];
    sl_monitor_system sys[UM_SYSTEMS];
} um_systems;

static void um_make(um_systems *u, uint64_t seed)
{
    sl_rng g;
    sl_rng_init(&g, seed, 9);
    for (int s = 0; s < UM_SYSTEMS; s++) {
        int n = 2 + s % 4;
        memset(u->x[s], 0, sizeof u->x[s]);
        memset(u->v[s], 0, sizeof u->v[s]);
        u->m[s][0] = 1.0;
        for (int b = 1; b < n; b++) {
            double a = pow(10.0, -3.0 + 6.0 * sl_rng_uniform(&g));
            double ph = 2 * M_PI * sl_rng_uniform(&g), inc = M_PI * (sl_rng_uniform(&g) - 0.5);
            double sp = sqrt(1.001 / a);
            u->m[s][b] = 1e-3;
            u->x[s][3 * b] = a * cos(ph) * cos(inc);
            u->x[s][3 * b + 1] = a * sin(ph) * cos(inc);
            u->x[s][3 * b + 2] = a * sin(inc);
            u->v[s][3 * b] = -sp * sin(ph);
            u->v[s][3 * b + 1] = sp * cos(ph);
        }
        u->sys[s] = (sl_monitor_system){s, n, 1000.0 * sl_rng_uniform(&g),
                                        (int64_t)(1e6 * sl_rng_uniform(&g)), u->x[s], u->v[s],
                                        u->m[s]};
    }
}

/* check over every test system; parallel: from OpenMP threads at once, as
 * runs call it. */
static void um_run(const sl_monitor *m, const void *ctx, const um_systems *u, int *code,
                   int parallel)
{
    if (parallel) {
#pragma omp parallel for schedule(dynamic, 1)
        for (int s = 0; s < UM_SYSTEMS; s++)
            code[s] = m->check(ctx, &u->sys[s]);
    } else {
        for (int s = 0; s < UM_SYSTEMS; s++)
            code[s] = m->check(ctx, &u->sys[s]);
    }
}

static void check_user(sl_check_report *r, const sl_monitor *m, const sl_check_options *o)
{
    char why[SL_CHECK_DETAIL_MAX];
    if (sl_monitor_table_problem(m, why, sizeof why)) {
        sl_check_add(r, SL_CHECK_FAIL, "codes", "%s", why);
        return;
    }
    int nc = sl_monitor_code_count(m);
    char names[SL_CHECK_DETAIL_MAX / 2] = "";
    for (int k = 0, used = 0; k < nc && used < (int)sizeof names; k++)
        used += snprintf(names + used, sizeof names - (size_t)used, "%s%s", k ? ", " : "",
                         m->codes[k]);
    sl_check_add(r, SL_CHECK_PASS, "codes", "%d code%s (%s), names of letters, digits and _, "
                 "all different", nc, nc == 1 ? "" : "s", names);
    sl_param_values pv;
    void *ctx[2] = {NULL, NULL};
    if (sl_check_valid_values(m->params, m->n_params, &pv)) {
        sl_check_add(r, SL_CHECK_FAIL, "prepare", "defaults: %s", sl_last_error());
        return;
    }
    for (int k = 0; k < 2; k++) {
        sl_clear_error();
        if (m->prepare && m->prepare(&pv, &ctx[k]) != SL_OK) {
            sl_check_add(r, SL_CHECK_FAIL, "prepare", "defaults refused: %s",
                         *sl_last_error() ? sl_last_error() : "(no message)");
            if (k == 1 && m->release)
                m->release(ctx[0]);
            return;
        }
    }
    sl_check_add(r, SL_CHECK_PASS, "prepare", m->prepare ? "defaults accepted, twice"
                                                       : "no prepare (the context is NULL)");
    um_systems *u = malloc(sizeof *u);
    int *code = malloc(3 * UM_SYSTEMS * sizeof *code);
    if (!u || !code) {
        sl_check_add(r, SL_CHECK_FAIL, "check", "out of memory for the test systems");
    } else {
        um_make(u, sl_check_seed(o));
        um_run(m, ctx[0], u, code, 0);
        int bad = -1, count[SL_MONITOR_CODES_MAX + 1] = {0};
        for (int s = 0; s < UM_SYSTEMS && bad < 0; s++)
            if (code[s] < 0 || code[s] > nc)
                bad = s;
            else
                count[code[s]]++;
        if (bad >= 0)
            sl_check_add(r, SL_CHECK_FAIL, "check", "system %d (%d bodies) got %d: expected 0 "
                         "(go on) or a code in 1..%d", bad + 1, u->sys[bad].n_body, code[bad], nc);
        else
            sl_check_add(r, SL_CHECK_PASS, "check", "%d systems of 2..5 bodies, radii 1e-3..1e3:"
                         " every answer in 0..%d (%d go on, %d stopped)", UM_SYSTEMS, nc,
                         count[0], UM_SYSTEMS - count[0]);
        um_run(m, ctx[0], u, code + UM_SYSTEMS, 0);
        um_run(m, ctx[1], u, code + 2 * UM_SYSTEMS, 1);
        int diff = -1;
        for (int s = 0; s < UM_SYSTEMS && diff < 0; s++)
            if (code[s] != code[UM_SYSTEMS + s] || code[s] != code[2 * UM_SYSTEMS + s])
                diff = s;
        if (diff >= 0)
            sl_check_add(r, SL_CHECK_FAIL, "repeat", "system %d: %d, then %d, then %d (another "
                         "context, from parallel threads)", diff + 1, code[diff],
                         code[UM_SYSTEMS + diff], code[2 * UM_SYSTEMS + diff]);
        else
            sl_check_add(r, SL_CHECK_PASS, "repeat", "the same %d answers twice with one "
                         "context and from parallel threads with a second", UM_SYSTEMS);
    }
    free(u), free(code);
    if (m->release) {
        m->release(ctx[0]);
        m->release(ctx[1]);
    }
}

sl_status sl_check_monitor(const sl_monitor *m, const sl_check_options *o, sl_check_report *r)
{
    sl_check_begin(r, SL_KIND_MONITOR, m ? m->name : NULL);
    if (!m)
        return sl_fail(SL_ERR_ARG, "check monitor: no table");
    sl_check_schema(r, "params", m->params, m->n_params);
    check_configure(r, m);
    if (m->check)
        check_user(r, m, o);
    return SL_OK;
}

/* A table whose layout core does not know: its head, the rest is left to
 * the front end's extra checks. */
static sl_status check_head_only(sl_kind kind, const void *table, sl_check_report *r)
{
    const sl_table_head *h = sl_head(table);
    sl_check_begin(r, kind, h->name);
    sl_check_schema(r, "params", h->params, h->n_params);
    return SL_OK;
}

static int extra_matches(const sl_check_extra *x, sl_kind kind, const char *name)
{
    return x->check && x->kind == kind && (!x->table || (name && !strcmp(x->table, name)));
}

sl_status sl_check_table(sl_kind kind, const void *table, const sl_check_options *o,
                         sl_check_report *r)
{
    sl_status st;
    switch (kind) {
    case SL_KIND_PROPAGATOR: st = sl_check_propagator(table, o, r); break;
    case SL_KIND_FORCE: st = sl_check_force(table, o, r); break;
    case SL_KIND_MONITOR: st = sl_check_monitor(table, o, r); break;
    case SL_KIND_LIKELIHOOD: st = sl_check_likelihood(table, o, r); break;
    case SL_KIND_KERNELS: st = sl_check_kernel_set(table, o, r); break;
    case SL_KIND_PERIODOGRAM:
    case SL_KIND_LENS:
    case SL_KIND_LUA_FACE: /* front ends' tables: the registry checked their fields */
    case SL_KIND_COMMAND:
    case SL_KIND_CHECKS: st = table ? check_head_only(kind, table, r)
                                         : sl_fail(SL_ERR_ARG, "check: no table"); break;
    default:
        sl_check_begin(r, kind, NULL);
        return sl_fail(SL_ERR_ARG, "check: unknown table kind %d", (int)kind);
    }
    int extra = 0;
    for (size_t i = 0; !st && o && o->extra && i < o->n_extra; i++)
        if (extra_matches(&o->extra[i], kind, sl_head(table)->name)) {
            st = o->extra[i].check(table, o, r);
            extra = 1;
        }
    if (!st && !extra && (kind == SL_KIND_PERIODOGRAM || kind == SL_KIND_LENS))
        sl_check_add(r, SL_CHECK_SKIP, "layout", "a %s table's layout is its "
                     "plugin's; this front end has no checks for '%s'", sl_kind_name(kind),
                     r->table);
    return st;
}

/* ---- a whole plugin file ------------------------------------------------------- */

void sl_check_plugin_result_free(sl_check_plugin_result *res)
{
    if (!res)
        return;
    free(res->reports);
    for (size_t i = 0; i < res->n_problems; i++)
        free(res->problems[i]);
    free(res->problems);
    memset(res, 0, sizeof *res);
}

size_t sl_check_plugin_failures(const sl_check_plugin_result *res)
{
    size_t n = 0;
    for (size_t i = 0; i < res->n_reports; i++)
        n += res->reports[i].n_fail;
    return n;
}

static sl_status keep_problems(const sl_registry *reg, sl_check_plugin_result *res)
{
    size_t n = sl_registry_problem_count(reg);
    if (n == 0)
        return SL_OK;
    res->problems = calloc(n, sizeof *res->problems);
    if (!res->problems)
        return sl_fail(SL_ERR_NOMEM, "check-plugin: problem list");
    for (size_t i = 0; i < n; i++)
        if ((res->problems[res->n_problems] = strdup(sl_registry_problem(reg, i))))
            res->n_problems++;
    return SL_OK;
}

/* Whether the caller's extra checks already cover (kind, table). */
static int extra_given(const sl_check_options *o, const sl_check_extra *x)
{
    for (size_t i = 0; o->extra && i < o->n_extra; i++)
        if (o->extra[i].kind == x->kind &&
            (!o->extra[i].table || !x->table || !strcmp(o->extra[i].table, x->table)))
            return 1;
    return 0;
}

/* The caller's extra checks, then those the loaded plugins export
 * (SL_KIND_CHECKS) for a kind and table the caller's do not cover: the
 * layout a plugin defines is checked by the plugin that knows it. */
static sl_status gather_extras(const sl_registry *reg, sl_check_options *opt,
                               sl_check_extra **owned)
{
    size_t n = sl_registry_count(reg), k = opt->n_extra;
    *owned = calloc(n + k + 1, sizeof **owned);
    if (!*owned)
        return sl_fail(SL_ERR_NOMEM, "check-plugin: %zu extra checks", n + k);
    for (size_t i = 0; i < k; i++)
        (*owned)[i] = opt->extra[i];
    for (size_t i = 0; i < n; i++) {
        const sl_registry_item *it = sl_registry_at(reg, i);
        const sl_check_set *c = it->table;
        if (it->kind == SL_KIND_CHECKS && !extra_given(opt, &c->extra))
            (*owned)[k++] = c->extra;
    }
    opt->extra = *owned;
    opt->n_extra = k;
    return SL_OK;
}

/* Whether kernel set `it` sits in the file beside its integrator's table
 * (the first n_items of the registry): the integrator's checks run it with
 * its force through the pooled kernels, so the set's own would repeat them. */
static int beside_its_integrator(const sl_registry *reg, size_t n_items,
                                 const sl_registry_item *it)
{
    const sl_kernel_set *k = it->table;
    if (it->kind != SL_KIND_KERNELS || k->n_kernels == 0)
        return 0;
    for (size_t i = 0; i < n_items; i++) {
        const sl_registry_item *p = sl_registry_at(reg, i);
        if (p->kind == SL_KIND_PROPAGATOR && !strcmp(p->name, k->integrator))
            return 1;
    }
    return 0;
}

static sl_status check_set_beside(const sl_kernel_set *k, sl_check_report *r)
{
    sl_check_begin(r, SL_KIND_KERNELS, k->name);
    sl_check_add(r, SL_CHECK_PASS, "kernels", "%zu entries for %s, run by the checks of "
                 "integrator '%s' with force '%s'", k->n_kernels, k->name, k->integrator,
                 k->force);
    return SL_OK;
}

static sl_status run_reports(const sl_registry *reg, size_t n_items, const sl_check_options *o,
                             sl_check_plugin_result *res)
{
    res->reports = calloc(n_items, sizeof *res->reports);
    if (!res->reports)
        return sl_fail(SL_ERR_NOMEM, "check-plugin: %zu reports", n_items);
    sl_check_options opt;
    if (o)
        opt = *o;
    else
        sl_check_options_default(&opt);
    opt.reg = reg;
    sl_check_extra *extras;
    sl_status st0 = gather_extras(reg, &opt, &extras);
    if (st0)
        return st0;
    for (size_t i = 0; i < n_items; i++) {
        const sl_registry_item *it = sl_registry_at(reg, i);
        sl_status st = beside_its_integrator(reg, n_items, it)
                           ? check_set_beside(it->table, &res->reports[i])
                           : sl_check_table(it->kind, it->table, &opt, &res->reports[i]);
        res->n_reports++;
        if (st) {
            free(extras);
            return sl_fail_context(st, "check-plugin: %s '%s'", sl_kind_name(it->kind), it->name);
        }
    }
    free(extras);
    return SL_OK;
}

sl_status sl_check_plugin(const char *path, const sl_check_options *o,
                          sl_check_plugin_result *res)
{
    memset(res, 0, sizeof *res);
    char canon[PATH_MAX];
    if (!path || !realpath(path, canon))
        return sl_fail(SL_ERR_IO, "plugin %s: no such file", path ? path : "(null)");
    snprintf(res->path, sizeof res->path, "%s", canon);
    sl_registry *reg;
    sl_status st = sl_registry_create(&reg);
    if (st)
        return st;
    /* The file first, so that its tables are the registry's first items and
     * a clash with the plugin path is reported against the other file. */
    st = sl_registry_load_file(reg, canon);
    size_t n_items = sl_registry_count(reg);
    if (!st)
        st = sl_registry_load_default(reg);
    if (!st && n_items > 0) {
        const sl_plugin *p = sl_registry_at(reg, 0)->plugin;
        snprintf(res->plugin, sizeof res->plugin, "%s", p->name);
        snprintf(res->version, sizeof res->version, "%s", p->version ? p->version : "");
        st = keep_problems(reg, res);
    }
    if (!st)
        st = run_reports(reg, n_items, o, res);
    sl_registry_destroy(reg);
    return st;
}
