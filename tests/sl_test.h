/* Shared helpers for the Criterion suites: loading the real plugins, setting
 * up runs, counting log records, and the GPU skip rule. Header-only (static
 * functions) so each suite stays one executable. */
#ifndef SL_TEST_H
#define SL_TEST_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/starling.h"

#if defined(__GNUC__)
#define SLT_UNUSED __attribute__((unused))
#else
#define SLT_UNUSED
#endif

/* Asserts that a starling call succeeded, printing the library's message. */
#define SLT_OK(call)                                                                       \
    do {                                                                                   \
        sl_status st_ = (call);                                                            \
        cr_assert_eq(st_, SL_OK, "%s failed: %s (%s)", #call, sl_status_name(st_),         \
                     sl_last_error());                                                     \
    } while (0)

/* The real plugins of this build tree, loaded from the default path
 * (lib/starling/plugins beside libstarling.so). */
typedef struct slt_plugins {
    sl_registry *reg;
    const sl_propagator *hermite;
    const sl_force *newton;
} slt_plugins;

static SLT_UNUSED void slt_load(slt_plugins *p)
{
    SLT_OK(sl_registry_create(&p->reg));
    SLT_OK(sl_registry_load_default(p->reg));
    for (size_t i = 0; i < sl_registry_problem_count(p->reg); i++)
        cr_log_warn("plugin problem: %s", sl_registry_problem(p->reg, i));
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_PROPAGATOR, "hermite", &t));
    p->hermite = t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_FORCE, "newton", &t));
    p->newton = t;
}

static SLT_UNUSED void slt_unload(slt_plugins *p)
{
    sl_registry_destroy(p->reg);
    memset(p, 0, sizeof *p);
}

/* A run config for hermite + newton with step dt to t_end; monitors at
 * their defaults (only the non-finite check on). */
static SLT_UNUSED void slt_config(const slt_plugins *p, sl_run_config *c, double dt, double t_end)
{
    sl_run_config_init(c);
    c->registry = p->reg; /* where hermite's kernel sets are */
    c->prop = p->hermite;
    c->force = p->newton;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, p->hermite->params, p->hermite->n_params));
    SLT_OK(sl_params_set(&pv, "dt", dt));
    SLT_OK(sl_params_complete(&pv));
    SLT_OK(p->hermite->pack(&pv, c->pp));
    SLT_OK(sl_params_init(&pv, p->newton->params, p->newton->n_params));
    SLT_OK(p->newton->pack(&pv, c->fp));
    c->t_end = t_end;
}

/* A run config for integrator `name` with step dt to t_end, force newton;
 * key, if not NULL, set to value too (other keys at their defaults). */
static SLT_UNUSED void slt_config_with(const slt_plugins *p, sl_run_config *c, const char *name,
                                       double dt, double t_end, const char *key, double value)
{
    slt_config(p, c, dt, t_end);
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_PROPAGATOR, name, &t));
    c->prop = t;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, c->prop->params, c->prop->n_params));
    SLT_OK(sl_params_set(&pv, "dt", dt));
    if (key)
        SLT_OK(sl_params_set(&pv, key, value));
    SLT_OK(sl_params_complete(&pv));
    SLT_OK(c->prop->pack(&pv, c->pp));
}

/* Configures one monitor plugin by name with (key, value) pairs. */
static SLT_UNUSED void slt_monitor(const slt_plugins *p, sl_run_config *c, const char *name,
                                   int n_kv, const char *const *keys, const double *vals)
{
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_MONITOR, name, &t));
    const sl_monitor *m = t;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, m->params, m->n_params));
    for (int i = 0; i < n_kv; i++)
        SLT_OK(sl_params_set(&pv, keys[i], vals[i]));
    SLT_OK(sl_params_complete(&pv));
    SLT_OK(m->configure(&pv, &c->mon));
}

/* A log sink that keeps every record (and per-system, per-event counts). */
enum { SLT_NEV = SL_LOG_MERGE + 1 }; /* events SL_LOG_* */
typedef struct slt_log {
    int64_t n_sys;
    int rec_len;
    int64_t n;      /* records received */
    int64_t cap;
    double *rec;    /* n * rec_len */
    int64_t *count; /* n_sys * SLT_NEV: per system, per event (SL_LOG_*) */
    int64_t calls;
    int bad;        /* a record with an out-of-range system or event */
    int unsorted;   /* a sink call whose records were not sorted by system, then step */
    int regress;    /* a system whose records went back in step across calls */
    int64_t *last;  /* per system: last step seen (for `regress`) */
} slt_log;

static SLT_UNUSED void slt_log_init(slt_log *l, int64_t n_sys)
{
    memset(l, 0, sizeof *l);
    l->n_sys = n_sys;
    l->count = calloc((size_t)n_sys * SLT_NEV, sizeof(int64_t));
    l->last = calloc((size_t)n_sys, sizeof(int64_t));
    cr_assert_not_null(l->count);
    cr_assert_not_null(l->last);
}

static SLT_UNUSED void slt_log_free(slt_log *l)
{
    free(l->rec);
    free(l->count);
    free(l->last);
    memset(l, 0, sizeof *l);
}

static SLT_UNUSED sl_status slt_log_sink(void *ud, const double *records, int64_t n, int rec_len)
{
    slt_log *l = ud;
    l->calls++;
    if (l->rec_len && l->rec_len != rec_len)
        l->bad = 1;
    l->rec_len = rec_len;
    if (l->n + n > l->cap) {
        int64_t cap = (l->n + n) * 2;
        double *r = realloc(l->rec, (size_t)cap * (size_t)rec_len * sizeof(double));
        if (!r)
            return sl_fail(SL_ERR_NOMEM, "test log");
        l->rec = r;
        l->cap = cap;
    }
    memcpy(l->rec + (size_t)l->n * (size_t)rec_len, records,
           (size_t)n * (size_t)rec_len * sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        const double *r = records + (size_t)i * (size_t)rec_len;
        int64_t s = (int64_t)r[0];
        int ev = (int)r[3];
        if (s < 0 || s >= l->n_sys || (double)s != r[0] || ev < 0 || ev >= SLT_NEV) {
            l->bad = 1;
            continue;
        }
        l->count[SLT_NEV * s + ev]++;
        if (r[2] < (double)l->last[s])
            l->regress = 1;
        l->last[s] = (int64_t)r[2];
        if (i > 0) {
            const double *q = r - rec_len;
            if (q[0] > r[0] || (q[0] == r[0] && q[2] > r[2]))
                l->unsorted = 1;
        }
    }
    l->n += n;
    return SL_OK;
}

/* Sorts all records received by (system, step, event): sink calls are
 * sorted one by one, so the whole stream is in launch order. */
static SLT_UNUSED int slt_cmp_rec_(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    for (int k = 0; k < 4; k++) {
        int key = k == 0 ? 0 : k == 1 ? 2 : k == 2 ? 3 : 1;
        if (a[key] != b[key])
            return a[key] < b[key] ? -1 : 1;
    }
    return 0;
}
static SLT_UNUSED void slt_log_sort(slt_log *l)
{
    if (l->n > 1)
        qsort(l->rec, (size_t)l->n, (size_t)l->rec_len * sizeof(double), slt_cmp_rec_);
}

static SLT_UNUSED void slt_log_attach(sl_run_config *c, slt_log *l)
{
    c->log_sink = slt_log_sink;
    c->log_ud = l;
}

/* Bitwise equality of two doubles (NaN payloads included). */
#ifdef SL_UNROLL_NBODIES_LIST
/* Whether N is in the build's SL_UNROLL_NBODIES ("2,3,...", from CMake):
 * the body counts whose kernels the in-tree integrators unroll. */
static SLT_UNUSED int slt_unrolled(int n)
{
    const char *p = SL_UNROLL_NBODIES_LIST;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v == n)
            return 1;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}
#endif

static SLT_UNUSED int slt_same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Asserts that two ensembles hold bitwise-identical state and bookkeeping. */
static SLT_UNUSED void slt_assert_same_ensemble(const sl_ensemble *a, const sl_ensemble *b,
                                                const char *what)
{
    cr_assert_eq(a->n_sys, b->n_sys);
    cr_assert_eq(a->n_body, b->n_body);
    for (int64_t s = 0; s < a->n_sys; s++) {
        cr_assert_eq(a->status[s], b->status[s], "%s: system %lld status %d vs %d", what,
                     (long long)s, a->status[s], b->status[s]);
        cr_assert_eq(a->reason[s], b->reason[s], "%s: system %lld reason", what, (long long)s);
        cr_assert_eq(a->detail[s], b->detail[s], "%s: system %lld detail", what, (long long)s);
        cr_assert_eq(a->steps[s], b->steps[s], "%s: system %lld steps %lld vs %lld", what,
                     (long long)s, (long long)a->steps[s], (long long)b->steps[s]);
        cr_assert(slt_same_bits(a->time[s], b->time[s]), "%s: system %lld time %.17g vs %.17g",
                  what, (long long)s, a->time[s], b->time[s]);
        cr_assert(slt_same_bits(a->stop_time[s], b->stop_time[s]),
                  "%s: system %lld stop_time %.17g vs %.17g", what, (long long)s,
                  a->stop_time[s], b->stop_time[s]);
        for (int bd = 0; bd < a->n_body; bd++)
            for (int f = 0; f < SL_NFIELD; f++) {
                double x = sl_ensemble_get(a, s, bd, f), y = sl_ensemble_get(b, s, bd, f);
                cr_assert(slt_same_bits(x, y),
                          "%s: system %lld body %d field %d: %.17g vs %.17g (diff %.3g)", what,
                          (long long)s, bd, f, x, y, x - y);
            }
    }
}

/* GPU suites: skip when no CUDA device is usable, unless SL_REQUIRE_GPU=1,
 * in which case the absence is a failure. Call at the top of each GPU
 * test, inside the (forked) test process, so CUDA initialises there. */
#define SLT_REQUIRE_GPU()                                                                  \
    do {                                                                                   \
        int ndev_ = sl_cuda_device_count();                                                \
        if (ndev_ < 1) {                                                                   \
            const char *req_ = getenv("SL_REQUIRE_GPU");                                   \
            if (req_ && strcmp(req_, "1") == 0)                                            \
                cr_assert_fail("SL_REQUIRE_GPU=1 but no usable CUDA device was found "           \
                         "(CUDA built: %d)", sl_cuda_built());                             \
            /* on stderr too: Criterion shows skip messages only with --verbose, and */ \
            /* ctest's SKIP_REGULAR_EXPRESSION looks for this line */                     \
            fprintf(stderr, "SL_GPU_SKIP: %s: no usable CUDA device (CUDA built: %d)\n",  \
                    __func__, sl_cuda_built());                                            \
            cr_skip_test("SL_GPU_SKIP: no usable CUDA device (CUDA built: %d); set "      \
                         "SL_REQUIRE_GPU=1 to make this a failure", sl_cuda_built());      \
        }                                                                                  \
    } while (0)

#endif
