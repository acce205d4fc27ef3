/* @NAME@: the plugin table starling loads, the options, reading the data
 * (a file or named columns in memory, both through <starling/table.h>) and
 * the CPU evaluation. The model itself is in @NAME@.h; the CUDA evaluation
 * in @NAME@_cuda.cu, compiled when the plugin is built with CUDA
 * (SL_HAVE_CUDA = 1). See <starling/likelihood.h> for the whole contract. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starling/likelihood.h>
#include <starling/plugin.h>
#include <starling/table.h>
#include "@NAME@.h"

/* ---- options ----------------------------------------------------------------- */

enum { OPT_T_REF, OPT_PERIOD_MIN, OPT_PERIOD_MAX, N_OPT };

static const sl_param options[N_OPT] = {
    {"t_ref", SL_PARAM_NUMBER, NAN, -1e300, 1e300, 0,
     "reference time of phi and of the trend", NULL, "the midpoint of the observation times"},
    {"period_min", SL_PARAM_NUMBER, 0.5, 1e-300, 1e300, 0, "lower bound of P", NULL, NULL},
    {"period_max", SL_PARAM_NUMBER, 1000.0, 1e-300, 1e300, 0, "upper bound of P", NULL, NULL},
};

/* ---- data -------------------------------------------------------------------- */

/* The columns, and the header names each goes by (the first one a file
 * has wins); a user names others with columns = {y = "flux"}. */
static const char *const t_names[] = {"time", "t", "bjd", "jd", "mjd", "date", NULL};
static const char *const y_names[] = {"y", "value", "flux", "mag", "rv", "vel", NULL};
static const char *const e_names[] = {"err", "error", "sigma", "yerr", "dy", "errvel", NULL};
enum { COL_T, COL_Y, COL_ERR, N_COL };
static const sl_table_col columns[N_COL] = {
    {"time", t_names, SL_COL_NUMBER, 1, 0, 1},
    {"y", y_names, SL_COL_NUMBER, 1, 1, 1},
    {"err", e_names, SL_COL_NUMBER, 1, 2, 1},
};

/* Copies the rows into the context: t - t_ref, y, err^2; an error <= 0 is
 * refused naming its row. */
static sl_status take_rows(const sl_table *tab, const sl_param_values *opt, @NAME@_ctx *c)
{
    size_t n = (size_t)tab->n_rows;
    const double *t = tab->col[COL_T].num, *y = tab->col[COL_Y].num, *e = tab->col[COL_ERR].num;
    double t_min = t[0], t_max = t[0];
    for (size_t k = 1; k < n; k++)
        t_min = fmin(t_min, t[k]), t_max = fmax(t_max, t[k]);
    c->t_ref = opt->given[OPT_T_REF] ? opt->v[OPT_T_REF] : 0.5 * (t_min + t_max);
    c->dt = malloc(n * sizeof *c->dt);
    c->y = malloc(n * sizeof *c->y);
    c->var = malloc(n * sizeof *c->var);
    if (!c->dt || !c->y || !c->var)
        return sl_fail(SL_ERR_NOMEM, "@NAME@: out of memory for %zu observations", n);
    for (size_t k = 0; k < n; k++) {
        if (!(e[k] > 0)) {
            char at[320];
            sl_table_at(tab, COL_ERR, (int64_t)k, at, sizeof at);
            return sl_fail(SL_ERR_ARG, "%s = %g: expected a number > 0", at, e[k]);
        }
        c->dt[k] = t[k] - c->t_ref;
        c->y[k] = y[k];
        c->var[k] = e[k] * e[k];
    }
    c->n = n;
    return SL_OK;
}

/* ---- prepare / release ------------------------------------------------------- */

static void release(void *ctx)
{
    @NAME@_ctx *c = ctx;
    if (!c)
        return;
#if SL_HAVE_CUDA
    @NAME@_cuda_release(c);
#endif
    free(c->dt), free(c->y), free(c->var);
    free(c);
}

/* The schema checks each option alone; prepare checks them together and
 * says which options are at fault. */
static sl_status prepare(const sl_param_values *opt, const sl_data *data, void **out)
{
    *out = NULL;
    double p_min = opt->v[OPT_PERIOD_MIN], p_max = opt->v[OPT_PERIOD_MAX];
    if (!(p_min < p_max))
        return sl_fail(SL_ERR_ARG, "period_min = %g must be below period_max = %g", p_min,
                       p_max);
    if (!data)
        return sl_fail(SL_ERR_ARG, "no data given: expected a file, or columns time, y, err");
    /* the user's picks (columns = {y = "flux"}) are applied here too */
    sl_table_spec spec = {.what = "@NAME@ data", .cols = columns, .n_cols = N_COL,
                          .can_name = 1};
    sl_table tab;
    sl_status st = sl_table_from_data(data, &spec, &tab);
    if (st)
        return st;
    @NAME@_ctx *c = calloc(1, sizeof *c);
    if (!c)
        st = sl_fail(SL_ERR_NOMEM, "@NAME@: out of memory");
    else
        st = take_rows(&tab, opt, c);
    sl_table_free(&tab);
    if (st) {
        release(c);
        return st;
    }
    static const double lo[@NAME_UPPER@_NPAR] = {0, 0, 0, -INFINITY, -INFINITY, -INFINITY};
    static const double hi[@NAME_UPPER@_NPAR] = {0, INFINITY, 2 * M_PI, INFINITY, INFINITY,
                                                 INFINITY};
    memcpy(c->lo, lo, sizeof lo);
    memcpy(c->hi, hi, sizeof hi);
    c->lo[0] = p_min, c->hi[0] = p_max;
    *out = c;
    return SL_OK;
}

static const char *const param_names[@NAME_UPPER@_NPAR] = {"P",  "A",  "phi",
                                                           "c0", "c1", "log_jitter"};

static sl_status free_params(void *ctx, size_t *n, const char *const **names, const double **lo,
                             const double **hi)
{
    const @NAME@_ctx *c = ctx;
    *n = @NAME_UPPER@_NPAR;
    *names = param_names;
    *lo = c->lo;
    *hi = c->hi;
    return SL_OK;
}

/* ---- evaluation ---------------------------------------------------------------- */

/* One model per iteration, each a sum over the points in their order: a
 * model's value does not depend on the batch it is in or on the threads. */
static void eval_cpu(const @NAME@_ctx *c, const double *params, size_t n, double *ll,
                     double *chi2)
{
#pragma omp parallel for schedule(static)
    for (long long m = 0; m < (long long)n; m++) {
        double x2;
        ll[m] = @NAME@_loglik(params + (size_t)m * @NAME_UPPER@_NPAR, c->n, c->dt, c->y, c->var,
                              &x2);
        if (chi2)
            chi2[m] = x2;
    }
}

static sl_status eval_chi2(void *ctx, const sl_backend *be, const double *params, size_t n,
                           double *loglik, double *chi2)
{
    @NAME@_ctx *c = ctx;
    if (n == 0)
        return SL_OK;
    if (!params || !loglik)
        return sl_fail(SL_ERR_ARG, "@NAME@: eval: params and output must not be NULL");
    c->kernel_s = 0.0;
    if (be && be->kind == SL_BACKEND_CUDA) {
#if SL_HAVE_CUDA
        return @NAME@_cuda_eval(c, params, n, loglik, chi2);
#else
        return sl_fail(SL_ERR_UNSUPPORTED, "@NAME@: this plugin was built without CUDA");
#endif
    }
    eval_cpu(c, params, n, loglik, chi2);
    return SL_OK;
}

static sl_status eval(void *ctx, const sl_backend *be, const double *params, size_t n,
                      double *out)
{
    return eval_chi2(ctx, be, params, n, out, NULL);
}

/* The curve y(t) for one vector (series: this model has no data subsets). */
static sl_status model(void *ctx, const double *p, const double *t, size_t n_t, int series,
                       double *out)
{
    const @NAME@_ctx *c = ctx;
    @NAME@_model m;
    if (series >= 0)
        return sl_fail(SL_ERR_ARG, "@NAME@: model: series %d: this model has no offsets per "
                       "instrument", series);
    if (!@NAME@_unpack(p, &m))
        return sl_fail(SL_ERR_ARG, "@NAME@: model: P = %g, A = %g, ...: expected P > 0, A >= 0 "
                       "and every value finite", p[0], p[1]);
    for (size_t k = 0; k < n_t; k++)
        out[k] = @NAME@_at(&m, t[k] - c->t_ref);
    return SL_OK;
}

static double last_kernel_s(void *ctx)
{
    return ((const @NAME@_ctx *)ctx)->kernel_s;
}

/* ---- the plugin ---------------------------------------------------------------- */

static const sl_likelihood @NAME@ = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LIKELIHOOD,
    .name = "@NAME@",
    .description = "a sinusoid plus a linear trend, Gaussian log-likelihood with jitter",
    .params = options,
    .n_params = N_OPT,
    /* CUDA only when this build compiled @NAME@_cuda.cu */
    .backends = SL_BACKEND_CAN_CPU | (SL_HAVE_CUDA ? SL_BACKEND_CAN_CUDA : 0),
    .precisions = SL_PRECISION_DOUBLE,
    .free_params = free_params,
    .prepare = prepare,
    .eval_batch = eval,
    .release = release,
    .eval_batch_chi2 = eval_chi2,
    .model = model,
    .last_kernel_s = last_kernel_s,
};

static const sl_plugin_table tables[] = {
    {SL_KIND_LIKELIHOOD, "@NAME@", &@NAME@},
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "@NAME@",
    .version = "0.1",
    .description = "@NAME@: a sinusoid plus a linear trend (CPU; CUDA when built with it)",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
