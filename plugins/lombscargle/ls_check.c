/* The conformance checks of lombscargle's table layout (ls_check.h): a
 * batch of light curves equals one-object calls, the same input gives the
 * same output, bad options are refused, and the CPU agrees with CUDA. */
#define _GNU_SOURCE
#include "ls_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lombscargle.h"
#include "ls_faces.h"
#include "starling/rng.h"

enum { PG_OBJ = 5 };
static const double PG_TOL = 1e-9; /* fp64 CPU vs CUDA, tests/test_gpu_lombscargle.c */

typedef struct pg_fixture {
    int64_t offset[PG_OBJ + 1];
    double *t, *y, *dy;
    sl_ls_data d;
} pg_fixture;

/* Light curves of 30..90 points: a sinusoid of period 3 + i and noise. */
static sl_status pg_make(uint64_t seed, pg_fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    int64_t n = 0;
    for (int i = 0; i < PG_OBJ; i++) {
        fx->offset[i] = n;
        n += 30 + 15 * i;
    }
    fx->offset[PG_OBJ] = n;
    fx->t = malloc((size_t)n * sizeof(double));
    fx->y = malloc((size_t)n * sizeof(double));
    fx->dy = malloc((size_t)n * sizeof(double));
    if (!fx->t || !fx->y || !fx->dy)
        return sl_fail(SL_ERR_NOMEM, "check: light curves");
    sl_rng g;
    sl_rng_init(&g, seed, 7);
    for (int i = 0; i < PG_OBJ; i++)
        for (int64_t k = fx->offset[i]; k < fx->offset[i + 1]; k++) {
            fx->t[k] = 100.0 * sl_rng_uniform(&g);
            fx->y[k] = sin(2.0 * M_PI * fx->t[k] / (3.0 + i)) + 0.3 * (sl_rng_uniform(&g) - 0.5);
            fx->dy[k] = 0.1 + 0.1 * sl_rng_uniform(&g);
        }
    fx->d = (sl_ls_data){.n_obj = PG_OBJ, .offset = fx->offset, .t = fx->t, .y = fx->y,
                         .dy = fx->dy};
    return SL_OK;
}

static void pg_free(pg_fixture *fx)
{
    free(fx->t), free(fx->y), free(fx->dy);
}

static size_t pg_powers(const sl_ls_result *res, int64_t i, const double **p64, const float **p32)
{
    *p64 = NULL, *p32 = NULL;
    if (!res->power_offset)
        return 0;
    int64_t a = res->power_offset[i], b = res->power_offset[i + 1];
    if (res->power64)
        *p64 = res->power64 + a;
    if (res->power32)
        *p32 = res->power32 + a;
    return (size_t)(b - a);
}

/* Whether object i of a equals object j of b bit for bit (grid, best, powers). */
static int pg_same(const sl_ls_result *a, int64_t i, const sl_ls_result *b, int64_t j)
{
    if (a->flag[i] != b->flag[j] || a->n_f[i] != b->n_f[j] ||
        memcmp(&a->f0[i], &b->f0[j], sizeof(double)) || memcmp(&a->df[i], &b->df[j], sizeof(double)) ||
        memcmp(&a->best_f[i], &b->best_f[j], sizeof(double)) ||
        memcmp(&a->best_p[i], &b->best_p[j], sizeof(double)))
        return 0;
    const double *a64, *b64;
    const float *a32, *b32;
    size_t na = pg_powers(a, i, &a64, &a32), nb = pg_powers(b, j, &b64, &b32);
    if (na != nb)
        return 0;
    if (a64 && (!b64 || memcmp(a64, b64, na * sizeof *a64)))
        return 0;
    return !(a32 && (!b32 || memcmp(a32, b32, na * sizeof *a32)));
}

/* Max relative difference of object powers where they matter (>= 1e-4 of
 * the peak), and of the best powers. */
static double pg_diff(const sl_ls_result *a, const sl_ls_result *b)
{
    double worst = 0;
    for (int64_t i = 0; i < a->n_obj; i++) {
        if (a->flag[i] != b->flag[i])
            return INFINITY;
        worst = fmax(worst, sl_check_rel(a->best_p[i], b->best_p[i], 1e-300));
        const double *a64, *b64;
        const float *a32, *b32;
        size_t n = pg_powers(a, i, &a64, &a32), nb = pg_powers(b, i, &b64, &b32);
        if (n != nb)
            return INFINITY;
        for (size_t k = 0; a64 && b64 && k < n; k++)
            if (b64[k] >= 1e-4 * b->best_p[i])
                worst = fmax(worst, sl_check_rel(a64[k], b64[k], 1e-300));
    }
    return worst;
}

static void pg_batch_vs_single(sl_check_report *r, const sl_periodogram *pg, const sl_backend *be,
                               const pg_fixture *fx, const sl_ls_options *o,
                               const sl_ls_result *batch)
{
    for (int64_t i = 0; i < PG_OBJ; i++) {
        int64_t off[2] = {0, fx->offset[i + 1] - fx->offset[i]};
        sl_ls_data one = {.n_obj = 1, .offset = off, .t = fx->t + fx->offset[i],
                          .y = fx->y + fx->offset[i], .dy = fx->dy + fx->offset[i]};
        sl_ls_result res;
        if (pg->compute(be, &one, o, &res)) {
            sl_check_add(r, SL_CHECK_FAIL, "batch_vs_single", "object %lld alone: %s",
                         (long long)i + 1, sl_last_error());
            return;
        }
        int same = pg_same(batch, i, &res, 0);
        pg->result_free(&res);
        if (!same) {
            sl_check_add(r, SL_CHECK_FAIL, "batch_vs_single", "object %lld differs between a "
                         "batch of %d and a call of its own", (long long)i + 1, PG_OBJ);
            return;
        }
    }
    sl_check_add(r, SL_CHECK_PASS, "batch_vs_single", "%d light curves (30..90 points), full "
                 "output: batch = single bit for bit", PG_OBJ);
}

static void pg_refusals(sl_check_report *r, const sl_periodogram *pg, const sl_backend *be,
                        const pg_fixture *fx, const sl_ls_options *base)
{
    sl_ls_options o = *base;
    const char *bad = "sl_check_no_such_key";
    sl_clear_error();
    if (pg->set_choice && (pg->set_choice(&o, bad, "x") == SL_OK || !sl_check_names_key(bad))) {
        sl_check_add(r, SL_CHECK_FAIL, "refuse_bad", "set_choice('%s') %s", bad,
                     sl_last_error()[0] ? "refused without naming the key" : "accepted");
        return;
    }
    o.grid = SL_LS_GRID_EXPLICIT, o.f_min = 2.0, o.f_max = 1.0, o.n_f = 10;
    sl_ls_result res;
    sl_clear_error();
    if (pg->compute(be, &fx->d, &o, &res) == SL_OK) {
        pg->result_free(&res);
        sl_check_add(r, SL_CHECK_FAIL, "refuse_bad", "an explicit grid with f_min 2 > f_max 1 "
                     "was accepted");
        return;
    }
    char first[96];
    snprintf(first, sizeof first, "%s", sl_last_error());
    int64_t off[2] = {0, 2};
    sl_ls_data two = {.n_obj = 1, .offset = off, .t = fx->t, .y = fx->y, .dy = fx->dy};
    sl_clear_error();
    if (pg->compute(be, &two, base, &res) == SL_OK) {
        pg->result_free(&res);
        sl_check_add(r, SL_CHECK_FAIL, "refuse_bad", "a single light curve of 2 points was "
                     "accepted (a batch of one with a flag must be an error)");
        return;
    }
    sl_check_add(r, first[0] && sl_last_error()[0] ? SL_CHECK_PASS : SL_CHECK_FAIL, "refuse_bad",
                 "unknown choice, f_min > f_max (\"%s\") and a 2-point curve refused with "
                 "messages", first);
}

static void pg_cuda(sl_check_report *r, const sl_periodogram *pg, const pg_fixture *fx,
                    const sl_ls_options *o, const sl_ls_result *cpu_res,
                    const sl_check_options *opt)
{
    sl_backend gpu;
    sl_check_result why_res;
    char why[160];
    if (!sl_check_cuda_backend(opt, &gpu, &why_res, why, sizeof why)) {
        sl_check_add(r, why_res, "cuda", "%s", why);
        return;
    }
    sl_ls_result res;
    sl_status st = pg->compute(&gpu, &fx->d, o, &res);
    if (st == SL_ERR_UNSUPPORTED) {
        sl_check_add(r, SL_CHECK_SKIP, "cuda", "the plugin has no CUDA path: %s", sl_last_error());
        return;
    }
    if (st) {
        sl_check_add(r, SL_CHECK_FAIL, "cuda", "CUDA compute: %s", sl_last_error());
        return;
    }
    double d = pg_diff(&res, cpu_res);
    pg->result_free(&res);
    sl_check_add(r, d <= PG_TOL ? SL_CHECK_PASS : SL_CHECK_FAIL, "cuda", "%d light curves, "
                 "fp64: max relative difference CPU vs CUDA %.3g (bound %g)", PG_OBJ, d, PG_TOL);
}

static void pg_data_checks(sl_check_report *r, const sl_periodogram *pg, const sl_ls_options *o,
                           const sl_check_options *opt)
{
    pg_fixture fx;
    sl_backend cpu;
    sl_ls_result res[2];
    if (pg_make(sl_check_seed(opt), &fx) || sl_backend_open("cpu", &cpu)) {
        sl_check_add(r, SL_CHECK_FAIL, "compute", "setup: %s", sl_last_error());
        pg_free(&fx);
        return;
    }
    if (pg->compute(&cpu, &fx.d, o, &res[0])) {
        sl_check_add(r, SL_CHECK_FAIL, "compute", "%d light curves: %s", PG_OBJ, sl_last_error());
        pg_free(&fx);
        return;
    }
    if (pg->compute(&cpu, &fx.d, o, &res[1]) == SL_OK) {
        int same = 1;
        for (int64_t i = 0; i < PG_OBJ; i++)
            same &= pg_same(&res[0], i, &res[1], i);
        sl_check_add(r, same ? SL_CHECK_PASS : SL_CHECK_FAIL, "repeat",
                     same ? "the same batch twice: bit-identical"
                          : "the same batch twice gave different results");
        pg->result_free(&res[1]);
    } else
        sl_check_add(r, SL_CHECK_FAIL, "repeat", "second call: %s", sl_last_error());
    pg_batch_vs_single(r, pg, &cpu, &fx, o, &res[0]);
    pg_refusals(r, pg, &cpu, &fx, o);
    pg_cuda(r, pg, &fx, o, &res[0], opt);
    pg->result_free(&res[0]);
    pg_free(&fx);
}

sl_status sl_ls_check(const void *table, const sl_check_options *o, sl_check_report *r)
{
    const sl_periodogram *pg = table;
    if (!pg->configure || !pg->compute || !pg->result_free) {
        sl_check_add(r, SL_CHECK_FAIL, "entries", "configure, compute and result_free are "
                     "required");
        return SL_OK;
    }
    sl_param_values pv;
    sl_ls_options opt;
    sl_ls_options_default(&opt);
    if (sl_check_valid_values(pg->params, pg->n_params, &pv) || pg->configure(&pv, &opt)) {
        sl_check_add(r, SL_CHECK_FAIL, "configure", "defaults refused: %s", sl_last_error());
        return SL_OK;
    }
    sl_check_add(r, SL_CHECK_PASS, "configure", "defaults accepted");
    opt.full = 1; /* compare every power, not only the best */
    pg_data_checks(r, pg, &opt, o);
    return SL_OK;
}

const sl_check_extra sl_ls_check_extra = {SL_KIND_PERIODOGRAM, "lombscargle", sl_ls_check};

/* The same checks as the plugin's table: check-plugin runs them on any
 * front end's behalf. */
const sl_check_set sl_ls_check_table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_CHECKS,
    .name = "lombscargle",
    .description = "the checks of the periodogram table's layout",
    .extra = {SL_KIND_PERIODOGRAM, "lombscargle", sl_ls_check},
};
