#include "starling/ensemble.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/nomem.h"
#include "starling/rng.h"

sl_status sl_ensemble_create(int64_t n_sys, int n_body, sl_ensemble **out)
{
    *out = NULL;
    if (n_sys < 1)
        return sl_fail(SL_ERR_ARG, "ensemble size %lld: expected at least 1 system",
                       (long long)n_sys);
    if (n_body < 1 || n_body > SL_NBODY_MAX)
        return sl_fail(SL_ERR_ARG, "ensemble of %d bodies: expected 1..%d", n_body,
                       SL_NBODY_MAX);
    /* in double: the product must not wrap for absurd sizes */
    double chunks = (double)((n_sys + SL_CHUNK - 1) / SL_CHUNK);
    double bytes = chunks * SL_CHUNK * n_body * SL_NFIELD * sizeof(double) +
                   (double)n_sys * (2 * sizeof(double) + sizeof(int64_t) + 3 * sizeof(int32_t));
    sl_status st = sl_host_fits(bytes, "ensemble of %lld systems x %d bodies", (long long)n_sys,
                                n_body);
    if (st)
        return st;
    sl_ensemble *e = calloc(1, sizeof *e);
    if (!e)
        return sl_fail_nomem(sizeof *e, "ensemble header");
    e->n_sys = n_sys;
    e->n_body = n_body;
    e->n_chunks = (n_sys + SL_CHUNK - 1) / SL_CHUNK;
    size_t ns = (size_t)n_sys;
    e->state = calloc(sl_state_len(n_sys, n_body), sizeof(double));
    e->time = calloc(ns, sizeof(double));
    e->steps = calloc(ns, sizeof(int64_t));
    e->status = calloc(ns, sizeof(int32_t));
    e->reason = calloc(ns, sizeof(int32_t));
    e->detail = calloc(ns, sizeof(int32_t));
    e->stop_time = malloc(ns * sizeof(double));
    if (!e->state || !e->time || !e->steps || !e->status || !e->reason || !e->detail ||
        !e->stop_time) {
        sl_ensemble_destroy(e);
        return sl_fail_nomem(bytes, "ensemble of %lld systems x %d bodies", (long long)n_sys,
                             n_body);
    }
    for (size_t i = 0; i < ns; i++)
        e->stop_time[i] = NAN;
    *out = e;
    return SL_OK;
}

void sl_ensemble_destroy(sl_ensemble *e)
{
    if (!e)
        return;
    free(e->state);
    free(e->time);
    free(e->steps);
    free(e->status);
    free(e->reason);
    free(e->detail);
    free(e->stop_time);
    for (int i = 0; i < e->n_attr; i++)
        free(e->attr_name[i]);
    free(e->attr_name);
    free(e->attr);
    for (int i = 0; i < e->n_stop_sources; i++) {
        sl_stop_source *src = &e->stop_sources[i];
        for (int k = 0; k < src->n_codes; k++)
            free(src->codes[k]);
        free(src->codes);
        free(src->name);
    }
    free(e->stop_sources);
    free(e);
}

sl_status sl_ensemble_clone(const sl_ensemble *e, sl_ensemble **out)
{
    sl_status st = sl_ensemble_create(e->n_sys, e->n_body, out);
    if (st)
        return st;
    sl_ensemble *c = *out;
    size_t ns = (size_t)e->n_sys;
    memcpy(c->state, e->state, sl_state_len(e->n_sys, e->n_body) * sizeof(double));
    memcpy(c->time, e->time, ns * sizeof(double));
    memcpy(c->steps, e->steps, ns * sizeof(int64_t));
    memcpy(c->status, e->status, ns * sizeof(int32_t));
    memcpy(c->reason, e->reason, ns * sizeof(int32_t));
    memcpy(c->detail, e->detail, ns * sizeof(int32_t));
    memcpy(c->stop_time, e->stop_time, ns * sizeof(double));
    for (int a = 0; a < e->n_attr; a++) {
        int idx;
        if ((st = sl_ensemble_attr(c, e->attr_name[a], &idx))) {
            sl_ensemble_destroy(c);
            *out = NULL;
            return st;
        }
        memcpy(c->attr + (size_t)idx * ns, e->attr + (size_t)a * ns, ns * sizeof(double));
    }
    /* the clone's stopped systems keep their details, so its slots must match */
    for (int i = 0; i < e->n_stop_sources; i++) {
        int slot;
        const sl_stop_source *src = &e->stop_sources[i];
        if ((st = sl_ensemble_stop_source(c, src->name, (const char *const *)src->codes, &slot)) ||
            slot != i) {
            sl_ensemble_destroy(c);
            *out = NULL;
            return st ? st : sl_fail(SL_ERR_INTERNAL, "clone: stop source %d became %d", i, slot);
        }
    }
    return SL_OK;
}

static int same_codes(const sl_stop_source *src, const char *const *codes)
{
    int k = 0;
    for (; k < src->n_codes; k++)
        if (!codes[k] || strcmp(codes[k], src->codes[k]))
            return 0;
    return codes[k] == NULL;
}

sl_status sl_ensemble_stop_source(sl_ensemble *e, const char *name, const char *const *codes,
                                  int *slot)
{
    static const char *const none[] = {NULL};
    if (!codes)
        codes = none;
    for (int i = 0; i < e->n_stop_sources; i++)
        if (!strcmp(e->stop_sources[i].name, name) && same_codes(&e->stop_sources[i], codes)) {
            *slot = i;
            return SL_OK;
        }
    int n = 0;
    while (codes[n])
        n++;
    sl_stop_source *all = realloc(e->stop_sources, (size_t)(e->n_stop_sources + 1) * sizeof *all);
    if (!all)
        return sl_fail_nomem((double)(e->n_stop_sources + 1) * sizeof *all, "stop sources");
    e->stop_sources = all;
    sl_stop_source src = {strdup(name), calloc((size_t)n + 1, sizeof(char *)), n};
    int ok = src.name && src.codes;
    for (int k = 0; ok && k < n; k++)
        ok = (src.codes[k] = strdup(codes[k])) != NULL;
    if (!ok) {
        for (int k = 0; src.codes && k < n; k++)
            free(src.codes[k]);
        free(src.codes);
        free(src.name);
        return sl_fail_nomem(256.0 * (n + 1), "the stop source '%s'", name);
    }
    e->stop_sources[e->n_stop_sources] = src;
    *slot = e->n_stop_sources++;
    return SL_OK;
}

int sl_stop_source_of(const sl_ensemble *e, int32_t detail, const char **name, const char **code)
{
    int slot = detail >= 0 ? detail / 256 : -1, k = detail >= 0 ? detail % 256 : 0;
    if (slot < 0 || slot >= e->n_stop_sources || k < 1 || k > e->stop_sources[slot].n_codes)
        return 0;
    *name = e->stop_sources[slot].name;
    *code = e->stop_sources[slot].codes[k - 1];
    return 1;
}

void sl_stop_label(const sl_ensemble *e, int32_t reason, int32_t detail, char *buf, size_t cap)
{
    const char *name, *code;
    if (reason == SL_REASON_MONITOR && e && sl_stop_source_of(e, detail, &name, &code))
        snprintf(buf, cap, "monitor %s: %s", name, code);
    else if (reason == SL_REASON_STEP_SIZE && sl_step_fault_label(detail))
        snprintf(buf, cap, "step_size: %s", sl_step_fault_label(detail));
    else
        snprintf(buf, cap, "%s", sl_reason_label(reason));
}

sl_status sl_ensemble_set_body(sl_ensemble *e, int64_t s, int b, double m, const double x[3],
                               const double v[3])
{
    if (s < 0 || s >= e->n_sys || b < 0 || b >= e->n_body)
        return sl_fail(SL_ERR_ARG, "system %lld body %d: outside the ensemble (%lld x %d)",
                       (long long)s, b, (long long)e->n_sys, e->n_body);
    if (!isfinite(m) || m < 0)
        return sl_fail(SL_ERR_ARG, "system %lld body %d: mass %.17g: expected a finite number >= 0",
                       (long long)s, b, m);
    for (int c = 0; c < 3; c++)
        if (!isfinite(x[c]) || !isfinite(v[c]))
            return sl_fail(SL_ERR_ARG, "system %lld body %d: non-finite position or velocity",
                           (long long)s, b);
    for (int c = 0; c < 3; c++) {
        e->state[sl_state_index(s, e->n_body, b, SL_X + c)] = x[c];
        e->state[sl_state_index(s, e->n_body, b, SL_VX + c)] = v[c];
    }
    e->state[sl_state_index(s, e->n_body, b, SL_M)] = m;
    return SL_OK;
}

void sl_ensemble_get_body(const sl_ensemble *e, int64_t s, int b, double *m, double x[3],
                          double v[3])
{
    for (int c = 0; c < 3; c++) {
        if (x)
            x[c] = e->state[sl_state_index(s, e->n_body, b, SL_X + c)];
        if (v)
            v[c] = e->state[sl_state_index(s, e->n_body, b, SL_VX + c)];
    }
    if (m)
        *m = e->state[sl_state_index(s, e->n_body, b, SL_M)];
}

int sl_ensemble_body_removed(const sl_ensemble *e, int64_t s, int b)
{
    return sl_ensemble_get(e, s, b, SL_M) == 0.0 && isnan(sl_ensemble_get(e, s, b, SL_X));
}

void sl_ensemble_remove_body(sl_ensemble *e, int64_t s, int b)
{
    for (int f = SL_X; f <= SL_VZ; f++)
        e->state[sl_state_index(s, e->n_body, b, f)] = NAN;
    e->state[sl_state_index(s, e->n_body, b, SL_M)] = 0.0;
}

int sl_ensemble_live_bodies(const sl_ensemble *e, int64_t s)
{
    int n = 0;
    for (int b = 0; b < e->n_body; b++)
        n += !sl_ensemble_body_removed(e, s, b);
    return n;
}

int sl_ensemble_has_removed(const sl_ensemble *e)
{
    /* a removed body's x is NaN, and nothing else stores one: scan that first */
    for (int64_t s = 0; s < e->n_sys; s++)
        for (int b = 0; b < e->n_body; b++)
            if (isnan(sl_ensemble_get(e, s, b, SL_X)) && sl_ensemble_body_removed(e, s, b))
                return 1;
    return 0;
}

void sl_ensemble_merge_bodies(sl_ensemble *e, int64_t s, int i, int j)
{
    double mi, mj, xi[3], xj[3], vi[3], vj[3];
    sl_ensemble_get_body(e, s, i, &mi, xi, vi);
    sl_ensemble_get_body(e, s, j, &mj, xj, vj);
    double m = mi + mj;
    double wi = m > 0 ? mi / m : 0.5, wj = m > 0 ? mj / m : 0.5;
    for (int c = 0; c < 3; c++) {
        e->state[sl_state_index(s, e->n_body, i, SL_X + c)] = wi * xi[c] + wj * xj[c];
        e->state[sl_state_index(s, e->n_body, i, SL_VX + c)] = wi * vi[c] + wj * vj[c];
    }
    e->state[sl_state_index(s, e->n_body, i, SL_M)] = m;
    sl_ensemble_remove_body(e, s, j);
}

sl_status sl_ensemble_attr(sl_ensemble *e, const char *name, int *index)
{
    for (int i = 0; i < e->n_attr; i++)
        if (strcmp(e->attr_name[i], name) == 0) {
            *index = i;
            return SL_OK;
        }
    size_t ns = (size_t)e->n_sys;
    char **names = realloc(e->attr_name, (size_t)(e->n_attr + 1) * sizeof *names);
    if (!names)
        return sl_fail_nomem((double)(e->n_attr + 1) * sizeof *names, "attribute '%s'", name);
    e->attr_name = names;
    double *vals = realloc(e->attr, (size_t)(e->n_attr + 1) * ns * sizeof(double));
    if (!vals)
        return sl_fail_nomem((double)(e->n_attr + 1) * (double)ns * sizeof(double),
                             "attribute '%s' of %lld systems", name, (long long)e->n_sys);
    e->attr = vals;
    memset(e->attr + (size_t)e->n_attr * ns, 0, ns * sizeof(double));
    e->attr_name[e->n_attr] = strdup(name);
    if (!e->attr_name[e->n_attr])
        return sl_fail_nomem((double)strlen(name) + 1, "attribute '%s'", name);
    *index = e->n_attr++;
    return SL_OK;
}

void sl_ensemble_to_barycentric(sl_ensemble *e)
{
    for (int64_t s = 0; s < e->n_sys; s++) {
        double mt = 0, cx[3] = {0, 0, 0}, cv[3] = {0, 0, 0};
        for (int b = 0; b < e->n_body; b++) {
            double m, x[3], v[3];
            if (sl_ensemble_body_removed(e, s, b))
                continue;
            sl_ensemble_get_body(e, s, b, &m, x, v);
            mt += m;
            for (int c = 0; c < 3; c++) {
                cx[c] += m * x[c];
                cv[c] += m * v[c];
            }
        }
        if (mt <= 0)
            continue;
        for (int b = 0; b < e->n_body; b++)
            for (int c = 0; c < 3; c++) {
                e->state[sl_state_index(s, e->n_body, b, SL_X + c)] -= cx[c] / mt;
                e->state[sl_state_index(s, e->n_body, b, SL_VX + c)] -= cv[c] / mt;
            }
    }
}

const char *sl_status_label(int32_t status)
{
    switch (status) {
    case SL_SYS_ACTIVE: return "active";
    case SL_SYS_STOPPED: return "stopped";
    case SL_SYS_FAILED: return "failed";
    }
    return "unknown";
}

const char *sl_reason_label(int32_t reason)
{
    switch (reason) {
    case SL_REASON_NONE: return "none";
    case SL_REASON_EJECTION: return "ejection";
    case SL_REASON_UNBOUND: return "unbound";
    case SL_REASON_CLOSE_ENCOUNTER: return "close_encounter";
    case SL_REASON_NONFINITE: return "nonfinite";
    case SL_REASON_STEP_CAP: return "step_cap";
    case SL_REASON_ENERGY: return "energy";
    case SL_REASON_MONITOR: return "monitor";
    case SL_REASON_STEP_SIZE: return "step_size";
    case SL_REASON_COLLISION: return "collision";
    }
    return "unknown";
}

const char *sl_step_fault_label(int32_t detail)
{
    switch (detail) {
    case SL_STEP_FAULT_NONFINITE: return "nonfinite";
    case SL_STEP_FAULT_UNDERFLOW: return "underflow";
    case SL_STEP_FAULT_REJECTIONS: return "rejections";
    }
    return NULL;
}

sl_status sl_ensemble_test_systems(const sl_test_system_spec *sp, int64_t n_sys,
                                   sl_ensemble **out)
{
    *out = NULL;
    if (sp->n_planets < 1 || sp->n_planets + 1 > SL_NBODY_MAX)
        return sl_fail(SL_ERR_ARG, "planets = %d: expected 1..%d", sp->n_planets,
                       SL_NBODY_MAX - 1);
    if (!(sp->planet_mass >= 0 && isfinite(sp->planet_mass)))
        return sl_fail(SL_ERR_ARG, "planet_mass = %.17g: expected a finite number >= 0",
                       sp->planet_mass);
    if (!(sp->a1 > 0 && isfinite(sp->a1)))
        return sl_fail(SL_ERR_ARG, "a1 = %.17g: expected a finite number > 0", sp->a1);
    if (!(sp->perturb >= 0 && sp->perturb < 1))
        return sl_fail(SL_ERR_ARG, "perturb = %.17g: expected a number in [0, 1)", sp->perturb);
    for (int64_t s = 0; s < n_sys; s++) {
        double sp_s = sp->spacing_per_sys ? sp->spacing_per_sys[s] : sp->spacing;
        if (!(sp_s > -1 && isfinite(sp_s)))
            return sl_fail(SL_ERR_ARG, "spacing = %.17g (system %lld): expected a finite number > -1",
                           sp_s, (long long)s + 1);
    }
    sl_status st = sl_ensemble_create(n_sys, sp->n_planets + 1, out);
    if (st)
        return st;
    sl_ensemble *e = *out;
    for (int64_t s = 0; s < n_sys; s++) {
        sl_rng rng;
        sl_rng_init(&rng, sp->seed, (uint64_t)s);
        double zero[3] = {0, 0, 0};
        sl_ensemble_set_body(e, s, 0, 1.0, zero, zero);
        double spacing = sp->spacing_per_sys ? sp->spacing_per_sys[s] : sp->spacing;
        for (int k = 1; k <= sp->n_planets; k++) {
            double r = sp->a1 * pow(1.0 + spacing, k - 1);
            double speed = sqrt((1.0 + sp->planet_mass) / r);
            double phase = sp->random_phase ? 2.0 * M_PI * sl_rng_uniform(&rng) : 0.0;
            double x[3] = {r * cos(phase), r * sin(phase), 0.0};
            double v[3] = {-speed * sin(phase), speed * cos(phase), 0.0};
            for (int c = 0; c < 3; c++) {
                x[c] *= 1.0 + sp->perturb * (2.0 * sl_rng_uniform(&rng) - 1.0);
                v[c] *= 1.0 + sp->perturb * (2.0 * sl_rng_uniform(&rng) - 1.0);
            }
            sl_ensemble_set_body(e, s, k, sp->planet_mass, x, v);
        }
    }
    sl_ensemble_to_barycentric(e);
    return SL_OK;
}
