/* kepler_rv: chi² and Gaussian log-likelihood of many multi-planet
 * Keplerian RV models against one data set (Ford 2009), double or mixed
 * precision, on the CPU (OpenMP over blocks of 16 models, vectorised over
 * the models of a block: krv_lanes.h) or CUDA (kepler_rv_cuda.cu).
 *
 * Per model: ln L = −½ Σ_k [ r_k²/(σ_k² + s_i²) + ln 2π(σ_k² + s_i²) ],
 * r_k = v_k − model(t_k), s_i the jitter of observation k's instrument.
 * A model outside the domain (P <= 0, K < 0, e >= 1, jitter < 0, a value
 * not finite) gets ln L = −inf and chi² = +inf rather than an error, so a
 * sampler can propose freely. */
#include "kepler_rv.h"
#include "krv_faces.h"
#include "krv_lanes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/likelihood.h"
#include "starling/nomem.h"
#include "starling/plugin.h"

enum { OPT_PLANETS, OPT_BASIS, OPT_TREND, OPT_PRECISION, OPT_EPOCH, N_OPT };

/* Word options store the word's index: basis 0..2, precision 0..1. */
static const char *const basis_words[] = {"M0", "tp", "tc", NULL};
static const char *const precision_words[] = {"double", "mixed", NULL};

static const sl_param options[N_OPT] = {
    {"planets", SL_PARAM_INTEGER, 1, 1, SL_KRV_MAX_PL, 0, "number of Keplerians", NULL, NULL},
    {"basis", SL_PARAM_WORD, 0, 0, 0, 0,
     "M0: P K e w M0; tp: lnP lnK secosw sesinw tp; tc: lnP lnK secosw sesinw tc",
     basis_words, NULL},
    {"trend", SL_PARAM_INTEGER, 0, 0, 2, 0, "0: none; 1: + dvdt; 2: + dvdt and curv", NULL, NULL},
    {"precision", SL_PARAM_WORD, 0, 0, 0, 0,
     "mixed: double phase, float rest, Kahan sums", precision_words, NULL},
    {"epoch", SL_PARAM_NUMBER, NAN, -1e300, 1e300, 0, "reference time of M0 and of the trend",
     NULL, "the earliest observation"},
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
        return sl_fail_nomem((double)n * (sizeof *c->names + sizeof *c->name_ptrs +
                                          2 * sizeof(double)),
                             "kepler_rv: parameter names");
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

/* Observation order for group_obs: by instrument, then time (then value),
 * so the result does not depend on how the file was sorted (files
 * concatenated per instrument, repeated exposures). */
typedef struct obs_key {
    int inst;
    double t, v, err;
    size_t row;
} obs_key;

static int cmp_obs(const void *pa, const void *pb)
{
    const obs_key *a = pa, *b = pb;
    if (a->inst != b->inst)
        return a->inst < b->inst ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->v != b->v) /* repeated exposures: by value, so no file order shows */
        return a->v < b->v ? -1 : 1;
    if (a->err != b->err)
        return a->err < b->err ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* Copies the observations grouped by instrument, sorted by time in each. */
static sl_status group_obs(sl_krv_ctx *c)
{
    size_t n = c->n_obs;
    obs_key *order = malloc(n * sizeof *order);
    if (!order)
        return sl_fail_nomem((double)n * sizeof *order, "kepler_rv: %zu observations", n);
    for (size_t m = 0; m < n; m++)
        order[m] = (obs_key){c->data.inst[m], c->data.t[m], c->data.v[m], c->data.err[m], m};
    qsort(order, n, sizeof *order, cmp_obs);
    c->dt = malloc(n * sizeof *c->dt);
    c->v = malloc(n * sizeof *c->v);
    c->var = malloc(n * sizeof *c->var);
    c->vf = malloc(n * sizeof *c->vf);
    c->varf = malloc(n * sizeof *c->varf);
    if (!c->dt || !c->v || !c->var || !c->vf || !c->varf) {
        free(order);
        return sl_fail_nomem((double)n * (3 * sizeof(double) + 2 * sizeof(float)),
                             "kepler_rv: %zu observations", n);
    }
    for (int i = 0; i <= c->n_inst; i++)
        c->inst_start[i] = n;
    for (size_t k = n; k-- > 0;) {
        size_t m = order[k].row;
        c->inst_start[c->data.inst[m]] = k;
        c->dt[k] = c->data.t[m] - c->epoch;
        c->v[k] = c->data.v[m];
        c->var[k] = c->data.err[m] * c->data.err[m];
        c->vf[k] = (float)c->v[k];
        c->varf[k] = (float)c->var[k];
    }
    free(order);
    return SL_OK;
}

static double earliest(const sl_rv_data *d)
{
    double t = d->t[0];
    for (size_t i = 1; i < d->n; i++)
        t = d->t[i] < t ? d->t[i] : t;
    return t;
}

static sl_status krv_prepare(const sl_param_values *opt, const sl_data *data, void **out)
{
    *out = NULL;
    if (!data)
        return sl_fail(SL_ERR_ARG, "kepler_rv: no data given: expected a file, or columns "
                       "time, velocity, error[, instrument]");
    sl_krv_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return sl_fail_nomem(sizeof *c, "kepler_rv: likelihood state");
    sl_status st = sl_rv_read_data(data, &c->data);
    if (st != SL_OK) {
        free(c);
        return st;
    }
    c->n_pl = (int)opt->v[OPT_PLANETS];
    c->basis = (int)opt->v[OPT_BASIS];
    c->trend = (int)opt->v[OPT_TREND];
    c->mixed = (int)opt->v[OPT_PRECISION];
    c->epoch = opt->given[OPT_EPOCH] ? opt->v[OPT_EPOCH] : earliest(&c->data);
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

/* Models are evaluated in blocks of LANES, one model per SIMD lane: each
 * observation's lane loop runs the same branch-free code for every model
 * (krv_lanes.h), so it vectorises over models. A lane's arithmetic never
 * looks at its neighbours, so a model's result does not depend on the
 * block it falls in, on the batch size or on the thread count. */

enum { LANES = SL_KRV_LANES };

/* A block of models in structure-of-arrays form; the float copies are the
 * mixed mode's (the phase terms inv_p and ph0 stay double there). */
typedef struct krv_block {
    int ok[LANES]; /* 0: outside the domain */
    double inv_p[SL_KRV_MAX_PL][LANES], ph0[SL_KRV_MAX_PL][LANES];
    double e[SL_KRV_MAX_PL][LANES], a[SL_KRV_MAX_PL][LANES], b[SL_KRV_MAX_PL][LANES];
    double gamma[SL_RV_MAX_INST][LANES], jit2[SL_RV_MAX_INST][LANES];
    double dvdt[LANES], curv[LANES];
    float ef[SL_KRV_MAX_PL][LANES], af[SL_KRV_MAX_PL][LANES], bf[SL_KRV_MAX_PL][LANES];
    float gammaf[SL_RV_MAX_INST][LANES], jit2f[SL_RV_MAX_INST][LANES];
    float dvdtf[LANES], curvf[LANES];
} krv_block;

/* Lane l holds p (NULL for a tail lane). A lane that is out of the domain
 * or unused gets a model with K = 0, e = 0 and no jitter: finite all the
 * way through, and its result is thrown away. */
static void load_lane(const sl_krv_ctx *c, const double *p, int l, krv_block *B)
{
    sl_krv_orbit o[SL_KRV_MAX_PL];
    double gamma[SL_RV_MAX_INST], jit2[SL_RV_MAX_INST], dvdt = 0, curv = 0;
    B->ok[l] = p && sl_krv_unpack(p, c->n_pl, c->basis, c->n_inst, c->trend, c->epoch, o,
                                  gamma, jit2, &dvdt, &curv);
    if (!B->ok[l]) {
        memset(o, 0, sizeof o);
        memset(gamma, 0, sizeof gamma);
        memset(jit2, 0, sizeof jit2);
        dvdt = curv = 0;
    }
    for (int j = 0; j < c->n_pl; j++) {
        sl_krv_orbitf of;
        sl_krv_orbit_to_f(&o[j], &of);
        B->inv_p[j][l] = o[j].inv_p, B->ph0[j][l] = o[j].ph0;
        B->e[j][l] = o[j].e, B->a[j][l] = o[j].a, B->b[j][l] = o[j].b;
        B->ef[j][l] = of.e, B->af[j][l] = of.a, B->bf[j][l] = of.b;
    }
    for (int i = 0; i < c->n_inst; i++) {
        B->gamma[i][l] = gamma[i], B->jit2[i][l] = jit2[i];
        B->gammaf[i][l] = (float)gamma[i], B->jit2f[i][l] = (float)jit2[i];
    }
    B->dvdt[l] = dvdt, B->curv[l] = curv;
    B->dvdtf[l] = (float)dvdt, B->curvf[l] = (float)curv;
}

static void store_block(const krv_block *B, int n, const double *x2, const double *lw,
                        double *ll, double *chi2)
{
    for (int l = 0; l < n; l++) {
        ll[l] = B->ok[l] ? -0.5 * (x2[l] + lw[l]) : -INFINITY;
        if (chi2)
            chi2[l] = B->ok[l] ? x2[l] : INFINITY;
    }
}

/* Double: sl_krv_obs_d for every lane, term for term. Cloned per ISA level
 * like the integrators' lane loops (integrate.h); no libm call is left in
 * the lane loops, so the clones give the same bits. */
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static void eval_block_d(const sl_krv_ctx *c, const krv_block *B, int n, double *ll,
                         double *chi2)
{
    double x2[LANES] = {0}, lw[LANES] = {0}, vs[LANES];
    for (int i = 0; i < c->n_inst; i++)
        for (size_t k = c->inst_start[i]; k < c->inst_start[i + 1]; k++) {
            const double dt = c->dt[k], v = c->v[k], var = c->var[k];
            for (int l = 0; l < LANES; l++)
                vs[l] = 0.0;
            for (int j = 0; j < c->n_pl; j++) {
#pragma omp simd
                for (int l = 0; l < LANES; l++)
                    vs[l] += sl_krv_v1_lane(B->inv_p[j][l], B->ph0[j][l], B->e[j][l],
                                            B->a[j][l], B->b[j][l], dt);
            }
#pragma omp simd
            for (int l = 0; l < LANES; l++) {
                double m = vs[l] + B->gamma[i][l] + dt * (B->dvdt[l] + dt * B->curv[l]);
                double r = v - m, w = var + B->jit2[i][l];
                x2[l] += r * r / w;
                lw[l] += sl_vlog(SL_KEPLER_TWO_PI * w);
            }
        }
    store_block(B, n, x2, lw, ll, chi2);
}

/* Mixed: sl_krv_obs_f for every lane, with its Kahan sums over planets
 * and over observations. */
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static void eval_block_f(const sl_krv_ctx *c, const krv_block *B, int n, double *ll,
                         double *chi2)
{
    float x2[LANES] = {0}, cx2[LANES] = {0}, lw[LANES] = {0}, clw[LANES] = {0};
    float vs[LANES], vc[LANES];
    const float two_pi = (float)SL_KEPLER_TWO_PI;
    for (int i = 0; i < c->n_inst; i++)
        for (size_t k = c->inst_start[i]; k < c->inst_start[i + 1]; k++) {
            const double dt = c->dt[k];
            const float fdt = (float)dt, v = c->vf[k], var = c->varf[k];
            for (int l = 0; l < LANES; l++)
                vs[l] = vc[l] = 0.0f;
            for (int j = 0; j < c->n_pl; j++) {
#pragma omp simd
                for (int l = 0; l < LANES; l++)
                    sl_kahan_addf(&vs[l], &vc[l],
                                  sl_krv_v1f_lane(B->inv_p[j][l], B->ph0[j][l], B->ef[j][l],
                                                  B->af[j][l], B->bf[j][l], dt));
            }
#pragma omp simd
            for (int l = 0; l < LANES; l++) {
                float m = vs[l] + B->gammaf[i][l] + fdt * (B->dvdtf[l] + fdt * B->curvf[l]);
                float r = v - m, w = var + B->jit2f[i][l];
                sl_kahan_addf(&x2[l], &cx2[l], r * r / w);
                sl_kahan_addf(&lw[l], &clw[l], sl_vlogf(two_pi * w));
            }
        }
    double x2d[LANES], lwd[LANES];
    for (int l = 0; l < LANES; l++)
        x2d[l] = (double)x2[l], lwd[l] = (double)lw[l];
    store_block(B, n, x2d, lwd, ll, chi2);
}

static void eval_cpu(const sl_krv_ctx *c, const double *params, size_t n, double *ll,
                     double *chi2)
{
    long long n_blocks = (long long)((n + LANES - 1) / LANES);
    /* one block per grab: a block is tens of microseconds of work, and a
     * sampler's few hundred walkers are then still spread over every core */
#pragma omp parallel for schedule(dynamic, 1)
    for (long long blk = 0; blk < n_blocks; blk++) {
        size_t m0 = (size_t)blk * LANES;
        int nb = n - m0 < LANES ? (int)(n - m0) : LANES;
        krv_block B;
        for (int l = 0; l < LANES; l++)
            load_lane(c, l < nb ? params + (m0 + (size_t)l) * c->n_par : NULL, l, &B);
        if (c->mixed)
            eval_block_f(c, &B, nb, ll + m0, chi2 ? chi2 + m0 : NULL);
        else
            eval_block_d(c, &B, nb, ll + m0, chi2 ? chi2 + m0 : NULL);
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

#if SL_HAVE_CUDA
static sl_status krv_eval_device(void *ctx, const double *params, size_t n, const int *count,
                                 double *out, void *stream)
{
    return sl_krv_cuda_eval_device(ctx, params, n, count, out, stream);
}

static sl_status krv_half_device(void *ctx, const struct sl_dm_half *h, void *stream)
{
    return sl_krv_cuda_demcmc_half(ctx, h, stream);
}
#endif

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
    .kind = SL_KIND_LIKELIHOOD,
    .name = "kepler_rv",
    .description = "Keplerian radial-velocity chi^2 and log-likelihood with jitter, offsets "
                   "and trends (Ford 2009); double or mixed precision",
    .params = options,
    .n_params = N_OPT,
    .backends = SL_BACKEND_CAN_CPU | (SL_HAVE_CUDA ? SL_BACKEND_CAN_CUDA : 0),
    .precisions = SL_PRECISION_DOUBLE | SL_PRECISION_MIXED,
    .free_params = krv_params,
    .prepare = krv_prepare,
    .eval_batch = krv_eval,
    .release = krv_release,
    .eval_batch_chi2 = krv_eval_chi2,
    .model = krv_model,
    .last_kernel_s = krv_last_kernel_s,
#if SL_HAVE_CUDA
    .eval_batch_device = krv_eval_device,
    .demcmc_half_device = krv_half_device,
#endif
};

static const sl_plugin_table tables[] = {
    {SL_KIND_LIKELIHOOD, "kepler_rv", &kepler_rv_table},
    {SL_KIND_LUA_FACE, "kepler_rv", &sl_krv_lua_face},
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "kepler_rv",
    .version = "0.1.0",
    .description = "Keplerian radial-velocity likelihood",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
