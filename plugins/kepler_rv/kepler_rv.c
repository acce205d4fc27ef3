/* kepler_rv: chi² and Gaussian log-likelihood of many multi-planet
 * Keplerian RV models against one data set (Ford 2009), double or mixed
 * precision, on the CPU (OpenMP over models) or CUDA (kepler_rv_cuda.cu).
 *
 * Per model: ln L = −½ Σ_k [ r_k²/(σ_k² + s_i²) + ln 2π(σ_k² + s_i²) ],
 * r_k = v_k − model(t_k), s_i the jitter of observation k's instrument.
 * A model outside the domain (P <= 0, K < 0, e >= 1, jitter < 0, a value
 * not finite) gets ln L = −inf and chi² = +inf rather than an error, so a
 * sampler can propose freely. */
#include "kepler_rv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/likelihood.h"
#include "starling/plugin.h"

enum { OPT_PLANETS, OPT_BASIS, OPT_TREND, OPT_PRECISION, OPT_EPOCH, N_OPT };

static const sl_param options[N_OPT] = {
    {"planets", SL_PARAM_INTEGER, 1, 1, SL_KRV_MAX_PL, 0, "number of Keplerians"},
    {"basis", SL_PARAM_INTEGER, 0, 0, 2, 0,
     "0: P K e w M0; 1: lnP lnK secosw sesinw tp; 2: lnP lnK secosw sesinw tc"},
    {"trend", SL_PARAM_INTEGER, 0, 0, 2, 0, "0: none; 1: + dvdt; 2: + dvdt and curv"},
    {"precision", SL_PARAM_INTEGER, 0, 0, 1, 0,
     "0: double; 1: mixed (double phase, float rest, Kahan sums)"},
    {"epoch", SL_PARAM_NUMBER, 0, -1e300, 1e300, 0,
     "reference time of M0 and of the trend (default: first observation)"},
};

/* ---- parameter names and bounds ------------------------------------------ */

static const char *const basis_names[3][SL_KRV_NPP] = {
    {"P", "K", "e", "w", "M0"},
    {"lnP", "lnK", "secosw", "sesinw", "tp"},
    {"lnP", "lnK", "secosw", "sesinw", "tc"},
};
static const double basis_lo[3][SL_KRV_NPP] = {
    {0, 0, 0, -INFINITY, -INFINITY},
    {-INFINITY, -INFINITY, -1, -1, -INFINITY},
    {-INFINITY, -INFINITY, -1, -1, -INFINITY},
};
static const double basis_hi[3][SL_KRV_NPP] = {
    {INFINITY, INFINITY, 1, INFINITY, INFINITY},
    {INFINITY, INFINITY, 1, 1, INFINITY},
    {INFINITY, INFINITY, 1, 1, INFINITY},
};

static void set_name(sl_krv_ctx *c, size_t k, double lo, double hi, const char *fmt,
                     const char *a, int j)
{
    if (j > 0)
        snprintf(c->names[k], sizeof c->names[k], fmt, a, j);
    else
        snprintf(c->names[k], sizeof c->names[k], fmt, a);
    c->name_ptrs[k] = c->names[k];
    c->lo[k] = lo, c->hi[k] = hi;
}

static sl_status build_names(sl_krv_ctx *c)
{
    size_t n = c->n_par;
    c->names = calloc(n, sizeof *c->names);
    c->name_ptrs = calloc(n, sizeof *c->name_ptrs);
    c->lo = calloc(n, sizeof *c->lo);
    c->hi = calloc(n, sizeof *c->hi);
    if (!c->names || !c->name_ptrs || !c->lo || !c->hi)
        return sl_fail(SL_ERR_NOMEM, "kepler_rv: out of memory for parameter names");
    size_t k = 0;
    for (int j = 1; j <= c->n_pl; j++)
        for (int q = 0; q < SL_KRV_NPP; q++, k++)
            set_name(c, k, basis_lo[c->basis][q], basis_hi[c->basis][q], "%s%d",
                     basis_names[c->basis][q], j);
    for (int i = 0; i < c->n_inst; i++, k++)
        set_name(c, k, -INFINITY, INFINITY, "gamma_%s", c->data.inst_names[i], 0);
    for (int i = 0; i < c->n_inst; i++, k++)
        set_name(c, k, 0, INFINITY, "jit_%s", c->data.inst_names[i], 0);
    if (c->trend >= 1)
        set_name(c, k++, -INFINITY, INFINITY, "%s", "dvdt", 0);
    if (c->trend >= 2)
        set_name(c, k++, -INFINITY, INFINITY, "%s", "curv", 0);
    return SL_OK;
}

static sl_status krv_params(void *ctx, size_t *n, const char *const **names, const double **lo,
                            const double **hi)
{
    sl_krv_ctx *c = ctx;
    *n = c->n_par;
    *names = c->name_ptrs;
    *lo = c->lo;
    *hi = c->hi;
    return SL_OK;
}

/* ---- prepare / release ------------------------------------------------------ */

static void krv_release(void *ctx)
{
    sl_krv_ctx *c = ctx;
    if (!c)
        return;
#if SL_HAVE_CUDA
    sl_krv_cuda_release(c);
#endif
    sl_rv_free(&c->data);
    free(c->dt), free(c->v), free(c->var), free(c->vf), free(c->varf);
    free(c->names), free(c->name_ptrs), free(c->lo), free(c->hi);
    free(c);
}

/* Copies the observations grouped by instrument (stable within a group). */
static sl_status group_obs(sl_krv_ctx *c)
{
    size_t n = c->n_obs;
    c->dt = malloc(n * sizeof *c->dt);
    c->v = malloc(n * sizeof *c->v);
    c->var = malloc(n * sizeof *c->var);
    c->vf = malloc(n * sizeof *c->vf);
    c->varf = malloc(n * sizeof *c->varf);
    if (!c->dt || !c->v || !c->var || !c->vf || !c->varf)
        return sl_fail(SL_ERR_NOMEM, "kepler_rv: out of memory for %zu observations", n);
    size_t k = 0;
    for (int i = 0; i < c->n_inst; i++) {
        c->inst_start[i] = k;
        for (size_t m = 0; m < n; m++) {
            if (c->data.inst[m] != i)
                continue;
            c->dt[k] = c->data.t[m] - c->epoch;
            c->v[k] = c->data.v[m];
            c->var[k] = c->data.err[m] * c->data.err[m];
            c->vf[k] = (float)c->v[k];
            c->varf[k] = (float)c->var[k];
            k++;
        }
    }
    c->inst_start[c->n_inst] = k;
    return SL_OK;
}

static sl_status krv_prepare(const sl_param_values *opt, const char *data_path, void **out)
{
    *out = NULL;
    if (!data_path)
        return sl_fail(SL_ERR_ARG, "kepler_rv: no data file given");
    sl_krv_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return sl_fail(SL_ERR_NOMEM, "kepler_rv: out of memory");
    sl_status st = sl_rv_read(data_path, &c->data);
    if (st != SL_OK) {
        free(c);
        return st;
    }
    c->n_pl = (int)opt->v[OPT_PLANETS];
    c->basis = (int)opt->v[OPT_BASIS];
    c->trend = (int)opt->v[OPT_TREND];
    c->mixed = (int)opt->v[OPT_PRECISION];
    c->epoch = opt->given[OPT_EPOCH] ? opt->v[OPT_EPOCH] : c->data.t[0];
    c->n_inst = c->data.n_inst;
    c->n_obs = c->data.n;
    c->n_par = (size_t)(SL_KRV_NPP * c->n_pl + 2 * c->n_inst + c->trend);
    if ((st = group_obs(c)) != SL_OK || (st = build_names(c)) != SL_OK) {
        krv_release(c);
        return st;
    }
    *out = c;
    return SL_OK;
}

/* ---- CPU evaluation -------------------------------------------------------- */

static void eval_one(const sl_krv_ctx *c, const double *p, double *ll, double *chi2)
{
    sl_krv_orbit o[SL_KRV_MAX_PL];
    double gamma[SL_RV_MAX_INST], jit2[SL_RV_MAX_INST];
    sl_krv_extra x;
    if (!sl_krv_unpack(p, c->n_pl, c->basis, c->n_inst, c->trend, c->epoch, o, gamma, jit2,
                       &x.dvdt, &x.curv)) {
        *ll = -INFINITY, *chi2 = INFINITY;
        return;
    }
    if (!c->mixed) {
        sl_krv_sums s = {0, 0};
        for (int i = 0; i < c->n_inst; i++) {
            x.gamma = gamma[i], x.jit2 = jit2[i];
            for (size_t k = c->inst_start[i]; k < c->inst_start[i + 1]; k++)
                sl_krv_obs_d(c->n_pl, o, &x, c->dt[k], c->v[k], c->var[k], &s);
        }
        *chi2 = s.chi2;
        *ll = -0.5 * (s.chi2 + s.lnw);
        return;
    }
    sl_krv_orbitf of[SL_KRV_MAX_PL];
    for (int j = 0; j < c->n_pl; j++)
        sl_krv_orbit_to_f(&o[j], &of[j]);
    sl_krv_sumsf s = {0, 0, 0, 0};
    for (int i = 0; i < c->n_inst; i++) {
        x.gamma = gamma[i], x.jit2 = jit2[i];
        for (size_t k = c->inst_start[i]; k < c->inst_start[i + 1]; k++)
            sl_krv_obs_f(c->n_pl, of, &x, c->dt[k], c->vf[k], c->varf[k], &s);
    }
    *chi2 = (double)s.chi2;
    *ll = -0.5 * ((double)s.chi2 + (double)s.lnw);
}

static void eval_cpu(const sl_krv_ctx *c, const double *params, size_t n, double *ll,
                     double *chi2)
{
    long long nn = (long long)n;
#pragma omp parallel for schedule(dynamic, 256)
    for (long long m = 0; m < nn; m++) {
        double x2;
        eval_one(c, params + (size_t)m * c->n_par, &ll[m], &x2);
        if (chi2)
            chi2[m] = x2;
    }
}

static sl_status krv_eval_chi2(void *ctx, const sl_backend *be, const double *params, size_t n,
                               double *loglik, double *chi2)
{
    sl_krv_ctx *c = ctx;
    if (n == 0)
        return SL_OK;
    if (!params || !loglik)
        return sl_fail(SL_ERR_ARG, "kepler_rv: eval: params and output must not be NULL");
    c->kernel_s = 0.0;
    if (be && be->kind == SL_BACKEND_CUDA) {
#if SL_HAVE_CUDA
        return sl_krv_cuda_eval(c, params, n, loglik, chi2);
#else
        return sl_fail(SL_ERR_UNSUPPORTED, "kepler_rv: this plugin was built without CUDA");
#endif
    }
    eval_cpu(c, params, n, loglik, chi2);
    return SL_OK;
}

static sl_status krv_eval(void *ctx, const sl_backend *be, const double *params, size_t n,
                          double *out)
{
    return krv_eval_chi2(ctx, be, params, n, out, NULL);
}

/* The predicted curve (double): Keplerians + trend, + the offset of
 * instrument `series` when it is >= 0. */
static sl_status krv_model(void *ctx, const double *p, const double *t, size_t n_t, int series,
                           double *out)
{
    sl_krv_ctx *c = ctx;
    if (series >= c->n_inst)
        return sl_fail(SL_ERR_ARG, "kepler_rv: model: instrument %d: expected 0..%d", series,
                       c->n_inst - 1);
    sl_krv_orbit o[SL_KRV_MAX_PL];
    double gamma[SL_RV_MAX_INST], jit2[SL_RV_MAX_INST], dvdt, curv;
    if (!sl_krv_unpack(p, c->n_pl, c->basis, c->n_inst, c->trend, c->epoch, o, gamma, jit2,
                       &dvdt, &curv)) {
        for (int j = 0; j < c->n_pl; j++) {
            sl_krv_orbit oj;
            const double *q = p + SL_KRV_NPP * j;
            if (!sl_krv_orbit_from(q, c->basis, c->epoch, &oj)) {
                const char *const *nm = c->name_ptrs + SL_KRV_NPP * j;
                return sl_fail(SL_ERR_ARG, "kepler_rv: model: planet %d (%s = %.17g, %s = %.17g, "
                               "%s = %.17g, %s = %.17g, %s = %.17g) is outside the domain "
                               "(P > 0, K >= 0, 0 <= e < 1, all finite)", j + 1, nm[0], q[0],
                               nm[1], q[1], nm[2], q[2], nm[3], q[3], nm[4], q[4]);
            }
        }
        return sl_fail(SL_ERR_ARG, "kepler_rv: model: parameters outside the model's domain "
                       "(P > 0, K >= 0, 0 <= e < 1, jitter >= 0, all finite)");
    }
    for (size_t k = 0; k < n_t; k++) {
        double dt = t[k] - c->epoch;
        out[k] = sl_krv_vsum(c->n_pl, o, dt) + dt * (dvdt + dt * curv) +
                 (series >= 0 ? gamma[series] : 0.0);
    }
    return SL_OK;
}

static double krv_last_kernel_s(void *ctx)
{
    return ((const sl_krv_ctx *)ctx)->kernel_s;
}

/* ---- the plugin ---------------------------------------------------------------- */

static const sl_likelihood kepler_rv_table = {
    .abi = SL_ABI_VERSION,
    .name = "kepler_rv",
    .description = "Keplerian radial-velocity chi^2 and log-likelihood with jitter, offsets "
                   "and trends (Ford 2009); double or mixed precision",
    .options = options,
    .n_options = N_OPT,
    .params = krv_params,
    .prepare = krv_prepare,
    .eval_batch = krv_eval,
    .release = krv_release,
    .eval_batch_chi2 = krv_eval_chi2,
    .model = krv_model,
    .last_kernel_s = krv_last_kernel_s,
};

static const sl_plugin_table tables[] = {
    {SL_KIND_LIKELIHOOD, "kepler_rv", &kepler_rv_table},
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "kepler_rv",
    .version = "0.1.0",
    .description = "Keplerian radial-velocity likelihood",
    .tables = tables,
    .n_tables = 1,
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
