/* A small likelihood written against core's API only (the table head,
 * data.h and the table reader), for the suites that check what core
 * promises about likelihoods it knows nothing else of. One case per build:
 *
 *   SLT_CASE_TINY_GOOD       'slt_tiny': ln L = -1/2 sum ((y - a - b t) / err)^2 over
 *                            columns time, y, err, from a file or from memory; CPU only
 *   SLT_CASE_TINY_MEMORY     the same, but data from memory lose their last row:
 *                            check-plugin's data/memory_vs_file must FAIL it
 *   SLT_CASE_TINY_SHARED     the same, but evaluating through scratch shared by every
 *                            context (and slowly, so two threads meet there):
 *                            check-plugin's threads/distinct_contexts must FAIL it
 */
#define _DEFAULT_SOURCE /* usleep */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "starling/likelihood.h"
#include "starling/plugin.h"
#include "starling/table.h"

typedef struct tiny {
    int64_t n;
    double *t, *y, *w;
} tiny;

static const char *const t_names[] = {"time", "t", NULL};
static const char *const y_names[] = {"y", "rv", "vel", NULL};
static const char *const e_names[] = {"err", "errvel", "sigma", NULL};
static const sl_table_col cols[] = {
    {"time", t_names, SL_COL_NUMBER, 1, 0, 1},
    {"y", y_names, SL_COL_NUMBER, 1, 1, 1},
    {"err", e_names, SL_COL_NUMBER, 1, 2, 1},
};

static void tiny_release(void *ctx)
{
    tiny *c = ctx;
    if (c)
        free(c->t), free(c->y), free(c->w);
    free(c);
}

static sl_status tiny_prepare(const sl_param_values *opt, const sl_data *d, void **out)
{
    (void)opt;
    *out = NULL;
    sl_table_spec spec = {.what = "tiny data", .cols = cols, .n_cols = 3};
    sl_table tab;
    sl_status st = sl_table_from_data(d, &spec, &tab);
    if (st)
        return st;
    tiny *c = calloc(1, sizeof *c);
    int64_t n = tab.n_rows;
#if defined(SLT_CASE_TINY_MEMORY)
    if (tab.in_memory && n > 1)
        n--; /* the defect check-plugin must find */
#endif
    if (c) {
        c->n = n;
        c->t = malloc((size_t)n * sizeof *c->t);
        c->y = malloc((size_t)n * sizeof *c->y);
        c->w = malloc((size_t)n * sizeof *c->w);
    }
    if (!c || !c->t || !c->y || !c->w) {
        tiny_release(c);
        sl_table_free(&tab);
        return sl_fail(SL_ERR_NOMEM, "slt_tiny: out of memory");
    }
    for (int64_t i = 0; i < n; i++) {
        c->t[i] = tab.col[0].num[i];
        c->y[i] = tab.col[1].num[i];
        c->w[i] = 1.0 / (tab.col[2].num[i] * tab.col[2].num[i]);
    }
    sl_table_free(&tab);
    *out = c;
    return SL_OK;
}

static const char *const names[] = {"a", "b"};
static const double lo[] = {-100, -10}, hi[] = {100, 10};

static sl_status tiny_free_params(void *ctx, size_t *n, const char *const **nm, const double **l,
                                  const double **h)
{
    (void)ctx;
    *n = 2, *nm = names, *l = lo, *h = hi;
    return SL_OK;
}

#if defined(SLT_CASE_TINY_SHARED)
static double shared[2 * 64]; /* the defect: one scratch for every context */
#endif

static sl_status tiny_eval(void *ctx, const sl_backend *be, const double *p, size_t n,
                           double *out)
{
    const tiny *c = ctx;
    if (be && be->kind != SL_BACKEND_CPU)
        return sl_fail(SL_ERR_UNSUPPORTED, "slt_tiny: CPU only");
#if defined(SLT_CASE_TINY_SHARED)
    if (n > 64)
        return sl_fail(SL_ERR_ARG, "slt_tiny: at most 64 vectors");
    memcpy(shared, p, 2 * n * sizeof *p);
    usleep(5000);
    p = shared;
#endif
    for (size_t k = 0; k < n; k++) {
        double s = 0;
        for (int64_t i = 0; i < c->n; i++) {
            double r = c->y[i] - p[2 * k] - p[2 * k + 1] * c->t[i];
            s += r * r * c->w[i];
        }
        out[k] = -0.5 * s;
    }
    return SL_OK;
}

static const sl_likelihood tiny_table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LIKELIHOOD,
    .name = "slt_tiny",
    .description = "a straight line through (time, y, err)",
    .backends = SL_BACKEND_CAN_CPU,
    .precisions = SL_PRECISION_DOUBLE,
    .free_params = tiny_free_params,
    .prepare = tiny_prepare,
    .eval_batch = tiny_eval,
    .release = tiny_release,
};

static const sl_plugin_table tables[] = {{SL_KIND_LIKELIHOOD, "slt_tiny", &tiny_table}};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = SLT_NAME,
    .version = "0.0",
    .description = "a likelihood on core's API only",
    .tables = tables,
    .n_tables = 1,
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
