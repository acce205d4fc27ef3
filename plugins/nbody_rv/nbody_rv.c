/* nbody_rv and ttv: Gaussian log-likelihoods of many N-body models of a
 * planetary system, against radial velocities (nbody_rv) or transit times
 * (ttv), on the CPU (OpenMP, one model a thread at a time) or CUDA
 * (nbody_cuda.cu, one model a thread or a pair of threads).
 *
 * Per model: the planets' Jacobi elements at the epoch (nbody_like.h,
 * nbody_elements.h) made into a system, integrated by a fixed-step
 * integrator of the family (mvs in Jacobi coordinates by default, or
 * hermite) forward and backward from the epoch on its own grid, each
 * observation reached by a sub-step (nbody_path.inc). ln L = −½ Σ [r²/w +
 * ln 2πw]: for nbody_rv r the velocity residual with the instrument's
 * offset and trend, w = σ² + s_i²; for ttv r the difference from the
 * nearest computed mid-transit, w = σ². A model outside the domain, or
 * whose integration breaks, gets ln L = −inf and χ² = +inf, and the reason
 * is counted (counters). */
#include "nbody_rv.h"
#include "nbody_eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/force.h"
#include "starling/likelihood.h"
#include "starling/propagator.h"
#include "starling/nomem.h"
#include "starling/output.h"
#include "starling/rng.h"
#include "starling/plugin.h"
#include "starling/table.h"

/* ---- options ------------------------------------------------------------------ */

static const char *const basis_words[] = {"M0", "tp", "tc", NULL};
static const char *const integrator_words[] = {"mvs", "hermite", NULL};

#define OPT_COMMON(X)                                                                      \
    X(PLANETS, {"planets", SL_PARAM_INTEGER, 1, 1, SL_NBODY_MAX_PL, 0,                      \
                "number of planets, innermost first", NULL, NULL})                          \
    X(EPOCH, {"epoch", SL_PARAM_NUMBER, NAN, -1e300, 1e300, 0,                               \
              "time (days) of the elements, where the integration starts", NULL,            \
              "nbody_rv: the earliest observation; ttv: a day before the earliest transit"}) \
    X(MSTAR, {"mstar", SL_PARAM_NUMBER, 1.0, 1e-6, 1e6, 0, "the star's mass (M_sun)", NULL,  \
              NULL})                                                                        \
    X(INCLINED, {"inclined", SL_PARAM_BOOL, 0, 0, 1, 0,                                     \
                 "fit each planet's inclination inc and node Omega (radians); otherwise "    \
                 "edge-on (pi/2) and 0", NULL, NULL})                                        \
    X(INTEGRATOR, {"integrator", SL_PARAM_WORD, 0, 0, 0, 0,                                 \
                   "mvs: Wisdom-Holman in Jacobi coordinates; hermite: "    \
                   "4th-order Hermite", integrator_words, NULL})                            \
    X(DT, {"dt", SL_PARAM_NUMBER, 0, 0, 1e300, 0,                                           \
           "the step (days); 0: the innermost period over `steps`, per model", NULL, NULL})  \
    X(STEPS, {"steps", SL_PARAM_NUMBER, 100, 4, 1e7, 0,                                     \
              "steps per innermost period when dt is 0", NULL, NULL})                        \
    X(CORRECTOR, {"corrector", SL_PARAM_INTEGER, 0, 0, 17, 0,                                \
                  "mvs's symplectic corrector order (0, 3, 5, 7, 11 or 17); over years of "   \
                  "data 0 is as accurate and faster", NULL, NULL})                           \
    X(THREADS, {"threads_per_model", SL_PARAM_INTEGER, 1, 1, 2, 0,                          \
                "cuda: 1, or 2 to run forward and backward from the epoch on two threads "   \
                "(measured no faster on an H100; the CPU ignores it)", NULL, NULL})
#define OPT_RV(X)                                                                          \
    X(BASIS, {"basis", SL_PARAM_WORD, 0, 0, 0, 0,                                           \
              "M0: P K e w M0; tp: lnP lnK secosw sesinw tp; tc: lnP lnK secosw sesinw tc "  \
              "(kepler_rv's)", basis_words, NULL})                                          \
    X(TREND, {"trend", SL_PARAM_INTEGER, 0, 0, 2, 0, "0: none; 1: + dvdt; 2: + dvdt and curv", \
              NULL, NULL})

#define OPT_ENUM(name, ...) OPT_##name,
#define OPT_ROW(name, ...) __VA_ARGS__,
enum { OPT_COMMON(OPT_ENUM) N_COMMON };
enum { OPT_BASIS = N_COMMON, OPT_TREND, N_RV_OPT };
static const sl_param rv_options[] = {OPT_COMMON(OPT_ROW) OPT_RV(OPT_ROW)};
static const sl_param ttv_options[] = {OPT_COMMON(OPT_ROW)};

static const char *const reason_names[SL_NBODY_N_REASONS] = {
    "ok", "domain", "unstable", "unbound", "no_transit"};

/* ---- parameter names and bounds -------------------------------------------------- */

static const char *const rv_planet_names[3][SL_KRV_NPP] = {
    {"P", "K", "e", "w", "M0"},
    {"lnP", "lnK", "secosw", "sesinw", "tp"},
    {"lnP", "lnK", "secosw", "sesinw", "tc"},
};
static const double rv_lo[3][SL_KRV_NPP] = {
    {0, 0, 0, -INFINITY, -INFINITY},
    {-INFINITY, -INFINITY, -1, -1, -INFINITY},
    {-INFINITY, -INFINITY, -1, -1, -INFINITY},
};
static const double rv_hi[3][SL_KRV_NPP] = {
    {INFINITY, INFINITY, 1, INFINITY, INFINITY},
    {INFINITY, INFINITY, 1, 1, INFINITY},
    {INFINITY, INFINITY, 1, 1, INFINITY},
};
static const char *const ttv_planet_names[SL_KRV_NPP] = {"P", "m", "secosw", "sesinw", "tc"};
static const double ttv_lo[SL_KRV_NPP] = {0, 0, -1, -1, -INFINITY};
static const double ttv_hi[SL_KRV_NPP] = {INFINITY, INFINITY, 1, 1, INFINITY};

static void set_name(sl_nbody_ctx *c, size_t k, double lo, double hi, const char *a,
                     const char *b)
{
    snprintf(c->names[k], sizeof c->names[k], "%s%s", a, b);
    c->name_ptrs[k] = c->names[k];
    c->lo[k] = lo, c->hi[k] = hi;
}

static sl_status build_names(sl_nbody_ctx *c)
{
    const sl_nbody_view *d = &c->view;
    size_t n = c->n_par;
    c->names = calloc(n, sizeof *c->names);
    c->name_ptrs = calloc(n, sizeof *c->name_ptrs);
    c->lo = calloc(n, sizeof *c->lo);
    c->hi = calloc(n, sizeof *c->hi);
    if (!c->names || !c->name_ptrs || !c->lo || !c->hi)
        return sl_fail_nomem((double)n * 64.0, "%s: parameter names", c->name);
    size_t k = 0;
    for (int j = 1; j <= d->n_pl; j++) {
        char num[12];
        snprintf(num, sizeof num, "%d", j);
        for (int q = 0; q < SL_KRV_NPP; q++, k++)
            if (d->kind == SL_NBODY_KIND_RV)
                set_name(c, k, rv_lo[d->basis][q], rv_hi[d->basis][q],
                         rv_planet_names[d->basis][q], num);
            else
                set_name(c, k, ttv_lo[q], ttv_hi[q], ttv_planet_names[q], num);
        if (d->inclined) {
            set_name(c, k++, 0, SL_KEPLER_PI, "inc", num);
            set_name(c, k++, -INFINITY, INFINITY, "Omega", num);
        }
    }
    for (int i = 0; i < d->n_inst; i++, k++)
        set_name(c, k, -INFINITY, INFINITY, "gamma_", c->rv.inst_names[i]);
    for (int i = 0; i < d->n_inst; i++, k++)
        set_name(c, k, 0, INFINITY, "jit_", c->rv.inst_names[i]);
    if (d->trend >= 1)
        set_name(c, k++, -INFINITY, INFINITY, "dvdt", "");
    if (d->trend >= 2)
        set_name(c, k++, -INFINITY, INFINITY, "curv", "");
    return SL_OK;
}

static sl_status nb_params(void *ctx, size_t *n, const char *const **names, const double **lo,
                           const double **hi)
{
    sl_nbody_ctx *c = ctx;
    *n = c->n_par;
    *names = c->name_ptrs;
    *lo = c->lo;
    *hi = c->hi;
    return SL_OK;
}

/* ---- data ---------------------------------------------------------------------------- */

typedef struct obs_key {
    double t;
    int inst;
    double v, err;
} obs_key;

static int cmp_obs(const void *pa, const void *pb)
{
    const obs_key *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->inst != b->inst)
        return a->inst < b->inst ? -1 : 1;
    if (a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return (a->err > b->err) - (a->err < b->err);
}

/* The RV observations sorted by time (then instrument, value), in
 * starling's units relative to the epoch: the order the integration
 * meets them, whatever the file's. */
static sl_status take_rv(sl_nbody_ctx *c, const sl_data *data)
{
    sl_status st = sl_rv_read_data(data, &c->rv);
    if (st != SL_OK)
        return st;
    const size_t n = c->rv.n;
    if (n > 0x7fffffff)
        return sl_fail(SL_ERR_ARG, "nbody_rv: %zu observations: at most 2^31 - 1", n);
    obs_key *o = malloc(n * sizeof *o);
    c->t_rv = malloc(n * sizeof *c->t_rv);
    c->v_rv = malloc(n * sizeof *c->v_rv);
    c->var_rv = malloc(n * sizeof *c->var_rv);
    c->inst_rv = malloc(n * sizeof *c->inst_rv);
    if (!o || !c->t_rv || !c->v_rv || !c->var_rv || !c->inst_rv) {
        free(o);
        return sl_fail_nomem((double)n * 64.0, "nbody_rv: %zu observations", n);
    }
    for (size_t k = 0; k < n; k++)
        o[k] = (obs_key){c->rv.t[k], c->rv.inst[k], c->rv.v[k], c->rv.err[k]};
    qsort(o, n, sizeof *o, cmp_obs);
    for (size_t k = 0; k < n; k++) {
        c->t_rv[k] = (o[k].t - c->view.epoch_days) * SL_NBODY_K_GAUSS;
        c->v_rv[k] = o[k].v;
        c->var_rv[k] = o[k].err * o[k].err;
        c->inst_rv[k] = o[k].inst;
    }
    free(o);
    c->view.n_rv = (int)n;
    c->view.n_inst = c->rv.n_inst;
    return SL_OK;
}

static const char *const tr_planet_names[] = {"planet", "pl", "body", "planet_id", "n_planet",
                                              NULL};
static const char *const tr_time_names[] = {"time", "t", "tc", "tmid", "t_mid", "transit_time",
                                            "bjd", "bjd_tdb", "btjd", "jd", NULL};
static const char *const tr_err_names[] = {"error", "err", "sigma", "e_tc", "tc_err", "unc",
                                           "uncertainty", "e_time", NULL};
enum { TR_PLANET, TR_TIME, TR_ERR, TR_NCOL };
static const sl_table_col tr_cols[TR_NCOL] = {
    {"planet", tr_planet_names, SL_COL_NUMBER, 1, 0, 1},
    {"time", tr_time_names, SL_COL_NUMBER, 1, 1, 1},
    {"error", tr_err_names, SL_COL_NUMBER, 1, 2, 1},
};

typedef struct tr_key {
    int planet;
    double t, err;
} tr_key;

static int cmp_tr(const void *pa, const void *pb)
{
    const tr_key *a = pa, *b = pb;
    if (a->planet != b->planet)
        return a->planet < b->planet ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->err > b->err) - (a->err < b->err);
}

sl_status sl_nbody_read_transits(const sl_data *data, int n_pl, sl_nbody_transits *out)
{
    memset(out, 0, sizeof *out);
    sl_table_spec spec = {.what = "transit times", .cols = tr_cols, .n_cols = TR_NCOL,
                          .can_name = 1};
    sl_table tab;
    sl_status st = sl_table_from_data(data, &spec, &tab);
    if (st != SL_OK)
        return st;
    size_t n = (size_t)tab.n_rows;
    out->planet = malloc((n ? n : 1) * sizeof *out->planet);
    out->t = malloc((n ? n : 1) * sizeof *out->t);
    out->err = malloc((n ? n : 1) * sizeof *out->err);
    if (!out->planet || !out->t || !out->err) {
        sl_table_free(&tab);
        sl_nbody_free_transits(out);
        return sl_fail_nomem((double)n * 24.0, "%s: %zu transits", tab.path, n);
    }
    out->n = n;
    char at[320], num[40];
    for (size_t i = 0; i < n && st == SL_OK; i++) {
        const double pl = tab.col[TR_PLANET].num[i];
        out->t[i] = tab.col[TR_TIME].num[i];
        out->err[i] = tab.col[TR_ERR].num[i];
        if (!(pl >= 1 && pl <= n_pl && pl == floor(pl))) {
            sl_table_at(&tab, TR_PLANET, (int64_t)i, at, sizeof at);
            sl_fmt_num(num, sizeof num, pl);
            st = sl_fail(SL_ERR_ARG, "%s = %s: expected a planet number 1..%d (planets = %d)",
                         at, num, n_pl, n_pl);
        } else if (!(out->err[i] > 0)) {
            sl_table_at(&tab, TR_ERR, (int64_t)i, at, sizeof at);
            sl_fmt_num(num, sizeof num, out->err[i]);
            st = sl_fail(SL_ERR_ARG, "%s = %s: expected a number > 0 (days)", at, num);
        }
        out->planet[i] = (int)pl;
    }
    if (st == SL_OK && n == 0)
        st = sl_fail(SL_ERR_ARG, "%s: no transit times", tab.path);
    sl_table_free(&tab);
    if (st != SL_OK)
        sl_nbody_free_transits(out);
    return st;
}

void sl_nbody_free_transits(sl_nbody_transits *t)
{
    free(t->planet), free(t->t), free(t->err);
    memset(t, 0, sizeof *t);
}

/* The transits by planet, then time, after the epoch (starling's units). */
static sl_status take_transits(sl_nbody_ctx *c, const sl_data *data, int epoch_given)
{
    sl_nbody_transits tr;
    sl_status st = sl_nbody_read_transits(data, c->view.n_pl, &tr);
    if (st != SL_OK)
        return st;
    const size_t n = tr.n;
    tr_key *o = malloc(n * sizeof *o);
    c->t_tr = malloc(n * sizeof *c->t_tr);
    c->ivar_tr = malloc(n * sizeof *c->ivar_tr);
    if (!o || !c->t_tr || !c->ivar_tr) {
        free(o);
        sl_nbody_free_transits(&tr);
        return sl_fail_nomem((double)n * 40.0, "ttv: %zu transits", n);
    }
    double first = INFINITY, last = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        o[k] = (tr_key){tr.planet[k], tr.t[k], tr.err[k]};
        first = fmin(first, tr.t[k]), last = fmax(last, tr.t[k]);
    }
    sl_nbody_free_transits(&tr);
    if (!epoch_given)
        c->view.epoch_days = first - 1.0;
    if (first < c->view.epoch_days) {
        free(o);
        return sl_fail(SL_ERR_ARG, "%s: epoch = %.10g: transits are found forward from the "
                       "epoch, and one is observed at %.10g: expected an epoch at or before "
                       "it", c->name, c->view.epoch_days, first);
    }
    qsort(o, n, sizeof *o, cmp_tr);
    int j = 0;
    for (size_t k = 0; k < n; k++) {
        while (j < o[k].planet)
            c->view.tr_start[j++] = (int)k;
        c->t_tr[k] = (o[k].t - c->view.epoch_days) * SL_NBODY_K_GAUSS;
        const double s = o[k].err * SL_NBODY_K_GAUSS;
        c->ivar_tr[k] = 1.0 / (s * s);
    }
    while (j <= c->view.n_pl)
        c->view.tr_start[j++] = (int)n;
    free(o);
    c->view.n_tr = (int)n;
    c->view.t_tr_last = (last - c->view.epoch_days) * SL_NBODY_K_GAUSS;
    return SL_OK;
}

/* ---- prepare / release --------------------------------------------------------------- */

static void nb_release(void *ctx)
{
    sl_nbody_ctx *c = ctx;
    if (!c)
        return;
#if SL_HAVE_CUDA
    sl_nbody_cuda_release(c);
#endif
    sl_rv_free(&c->rv);
    free(c->t_rv), free(c->v_rv), free(c->var_rv), free(c->inst_rv);
    free(c->t_tr), free(c->ivar_tr);
    free(c->names), free(c->name_ptrs), free(c->lo), free(c->hi);
    free(c);
}

static double earliest(const sl_rv_data *d)
{
    double t = d->t[0];
    for (size_t i = 1; i < d->n; i++)
        t = d->t[i] < t ? d->t[i] : t;
    return t;
}

static sl_status check_corrector(const sl_param_values *opt, const char *name)
{
    const int k = (int)opt->v[OPT_CORRECTOR];
    if (k == 0 || k == 3 || k == 5 || k == 7 || k == 11 || k == 17)
        return SL_OK;
    return sl_fail(SL_ERR_ARG, "%s: corrector = %d: expected 0, 3, 5, 7, 11 or 17", name, k);
}

static sl_status prepare_kind(int kind, const sl_param_values *opt, const sl_data *data,
                              void **out)
{
    const char *name = kind == SL_NBODY_KIND_RV ? "nbody_rv" : "ttv";
    *out = NULL;
    if (!data)
        return sl_fail(SL_ERR_ARG, "%s: no data given: expected a file, or columns %s", name,
                       kind == SL_NBODY_KIND_RV ? "time, velocity, error[, instrument]"
                                                : "planet, time, error");
    sl_status st = check_corrector(opt, name);
    if (st != SL_OK)
        return st;
    sl_nbody_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return sl_fail_nomem(sizeof *c, "%s: likelihood state", name);
    c->name = name;
    sl_nbody_view *d = &c->view;
    d->kind = kind;
    d->n_pl = (int)opt->v[OPT_PLANETS];
    d->inclined = (int)opt->v[OPT_INCLINED];
    d->mstar = opt->v[OPT_MSTAR];
    d->dt = opt->v[OPT_DT] * SL_NBODY_K_GAUSS;
    d->steps = opt->v[OPT_STEPS];
    c->integrator = (int)opt->v[OPT_INTEGRATOR];
    c->threads_per_model = (int)opt->v[OPT_THREADS];
    if (c->integrator == SL_NBODY_MVS) { /* min_mass_ratio, corrector, Jacobi, kepler_tol */
        d->pp_tail[0] = 10.0, d->pp_tail[1] = opt->v[OPT_CORRECTOR];
        d->pp_tail[2] = 1.0, d->pp_tail[3] = 1e-6;
    }
    d->epoch_days = opt->given[OPT_EPOCH] ? opt->v[OPT_EPOCH] : NAN;
    if (kind == SL_NBODY_KIND_RV) {
        d->basis = (int)opt->v[OPT_BASIS];
        d->trend = (int)opt->v[OPT_TREND];
        sl_rv_data probe;
        if ((st = sl_rv_read_data(data, &probe)) == SL_OK) { /* the epoch comes first */
            if (!opt->given[OPT_EPOCH])
                d->epoch_days = earliest(&probe);
            sl_rv_free(&probe);
            st = take_rv(c, data);
        }
        const sl_data *tr = sl_data_more(data, "transits");
        if (st == SL_OK && tr) /* joined: one integration serves both */
            st = take_transits(c, tr, 1);
    } else {
        st = take_transits(c, data, opt->given[OPT_EPOCH]);
    }
    c->n_par = (size_t)(sl_nbody_per_planet(d) * d->n_pl + 2 * d->n_inst + d->trend);
    d->n_par = (int)c->n_par;
    d->t_rv = c->t_rv, d->v_rv = c->v_rv, d->var_rv = c->var_rv, d->inst_rv = c->inst_rv;
    d->t_tr = c->t_tr, d->ivar_tr = c->ivar_tr;
    if (st == SL_OK)
        st = build_names(c);
    if (st != SL_OK) {
        nb_release(c);
        return st;
    }
    *out = c;
    return SL_OK;
}

static sl_status rv_prepare(const sl_param_values *opt, const sl_data *data, void **out)
{
    return prepare_kind(SL_NBODY_KIND_RV, opt, data, out);
}

static sl_status ttv_prepare(const sl_param_values *opt, const sl_data *data, void **out)
{
    return prepare_kind(SL_NBODY_KIND_TTV, opt, data, out);
}

/* ---- evaluation -------------------------------------------------------------------- */

static void eval_cpu(sl_nbody_ctx *c, const double *params, size_t n, double *ll, double *chi2)
{
    const sl_nbody_one_fn f = sl_nbody_cpu_ones[c->integrator][c->view.n_pl];
    uint64_t counts[SL_NBODY_N_REASONS] = {0};
#pragma omp parallel
    {
        uint64_t mine[SL_NBODY_N_REASONS] = {0};
        /* one model per grab: a model is a whole integration (milliseconds) */
#pragma omp for schedule(dynamic, 1)
        for (long long i = 0; i < (long long)n; i++) {
            double x2;
            mine[f(&c->view, params + (size_t)i * c->n_par, &ll[i], &x2)]++;
            if (chi2)
                chi2[i] = x2;
        }
#pragma omp critical(sl_nbody_counts)
        for (int r = 0; r < SL_NBODY_N_REASONS; r++)
            counts[r] += mine[r];
    }
    for (int r = 0; r < SL_NBODY_N_REASONS; r++)
        c->counts[r] += counts[r];
}

#if SL_HAVE_CUDA
/* The cuda backend's refusal of the (integrator, planets) it has no kernel
 * for: hermite, and the planet counts whose bodies the build's
 * SL_CUDA_NBODIES leaves out (nbody_cuda.cu; each kernel costs minutes of
 * ptxas). The message lists the counts this build runs. */
static sl_status cuda_can(const sl_nbody_ctx *c)
{
    if (sl_nbody_cuda_can(c->integrator, c->view.n_pl))
        return SL_OK;
    char have[64] = "";
    size_t at = 0;
    for (int n = 1; n <= SL_NBODY_MAX_PL; n++)
        if (sl_nbody_cuda_can(0, n) && at + 8 < sizeof have)
            at += (size_t)snprintf(have + at, sizeof have - at, "%s%d", at ? ", " : "", n);
    return sl_fail(SL_ERR_UNSUPPORTED, "%s: this build's cuda backend runs integrator = \"mvs\" "
                   "with %s planet%s (here %s with %d; SL_CUDA_NBODIES in CMake lists the body "
                   "counts, planets + 1): use backend = \"cpu\"", c->name, at ? have : "no",
                   strcmp(have, "1") ? "s" : "", c->integrator ? "hermite" : "mvs",
                   c->view.n_pl);
}
#endif

static sl_status nb_eval_chi2(void *ctx, const sl_backend *be, const double *params, size_t n,
                              double *loglik, double *chi2)
{
    sl_nbody_ctx *c = ctx;
    if (n == 0)
        return SL_OK;
    if (!params || !loglik)
        return sl_fail(SL_ERR_ARG, "%s: eval: params and output must not be NULL", c->name);
    c->kernel_s = 0.0;
    if (be && be->kind == SL_BACKEND_CUDA) {
#if SL_HAVE_CUDA
        sl_status st = cuda_can(c);
        return st != SL_OK ? st : sl_nbody_cuda_eval(c, params, n, loglik, chi2);
#else
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: this plugin was built without CUDA", c->name);
#endif
    }
    eval_cpu(c, params, n, loglik, chi2);
    return SL_OK;
}

static sl_status nb_eval(void *ctx, const sl_backend *be, const double *params, size_t n,
                         double *out)
{
    return nb_eval_chi2(ctx, be, params, n, out, NULL);
}

#if SL_HAVE_CUDA
static sl_status nb_eval_device(void *ctx, const double *params, size_t n, const int *count,
                                double *out, void *stream)
{
    sl_status st = cuda_can(ctx);
    return st != SL_OK ? st : sl_nbody_cuda_eval_device(ctx, params, n, count, out, stream);
}
#endif

static double nb_last_kernel_s(void *ctx)
{
    return ((const sl_nbody_ctx *)ctx)->kernel_s;
}

static sl_status nb_counters(void *ctx, size_t *n, const char *const **names,
                             const uint64_t **counts)
{
    sl_nbody_ctx *c = ctx;
#if SL_HAVE_CUDA
    sl_status st = sl_nbody_cuda_counts(c, c->shown);
    if (st != SL_OK)
        return st;
#else
    memset(c->shown, 0, sizeof c->shown);
#endif
    for (int r = 0; r < SL_NBODY_N_REASONS; r++)
        c->shown[r] += c->counts[r];
    *n = SL_NBODY_N_REASONS;
    *names = reason_names;
    *counts = c->shown;
    return SL_OK;
}

/* ---- the model curve (nbody_rv: velocities; ttv: none) ------------------------------ */

static sl_status nb_model(void *ctx, const double *p, const double *t, size_t n_t, int series,
                          double *out)
{
    sl_nbody_ctx *c = ctx;
    const sl_nbody_view *d = &c->view;
    if (series >= d->n_inst)
        return sl_fail(SL_ERR_ARG, "%s: model: instrument %d: expected 0..%d", c->name, series,
                       d->n_inst - 1);
    sl_nbody_model M;
    if (!sl_nbody_unpack(d, p, &M)) {
        const int npp = sl_nbody_per_planet(d);
        for (int j = 0; j < d->n_pl; j++) {
            sl_nbody_view one = *d;
            one.n_pl = j + 1, one.n_inst = 0, one.trend = 0, one.kind = SL_NBODY_KIND_RV;
            sl_nbody_model Mj;
            const double *q = p + npp * j;
            if (!sl_nbody_unpack(&one, p, &Mj))
                return sl_fail(SL_ERR_ARG, "%s: model: planet %d (%s = %.17g, %s = %.17g, "
                               "%s = %.17g, %s = %.17g, %s = %.17g) is outside the domain "
                               "(P > 0, K >= 0, 0 <= e < 1, 0 < inc < pi, all finite)", c->name,
                               j + 1, c->name_ptrs[npp * j], q[0], c->name_ptrs[npp * j + 1],
                               q[1], c->name_ptrs[npp * j + 2], q[2], c->name_ptrs[npp * j + 3],
                               q[3], c->name_ptrs[npp * j + 4], q[4]);
        }
        return sl_fail(SL_ERR_ARG, "%s: model: parameters outside the model's domain (jitter "
                       ">= 0, all finite)", c->name);
    }
    double pp[SL_PROP_PARAMS_MAX], fp[SL_FORCE_PARAMS_MAX] = {0};
    sl_nbody_pack(d, &M, pp, SL_PROP_PARAMS_MAX);
    if (n_t > 0x7fffffff)
        return sl_fail(SL_ERR_ARG, "%s: model: %zu times: at most 2^31 - 1", c->name, n_t);
    int why = sl_nbody_cpu_curve(c->integrator, d, &M, pp, fp, t, (int)n_t, out);
    if (why < 0)
        return sl_fail_nomem((double)n_t * 24.0, "%s: model: %zu times", c->name, n_t);
    if (why != SL_NBODY_OK)
        return sl_fail(SL_ERR_ARG, "%s: model: the system %s", c->name,
                       why == SL_NBODY_UNSTABLE ? "turned unstable (a state not finite)"
                                                : "has a planet outside the domain");
    for (size_t k = 0; k < n_t; k++) {
        const double td = t[k] - d->epoch_days;
        out[k] += td * (M.dvdt + td * M.curv) + (series >= 0 ? M.gamma[series] : 0.0);
    }
    return SL_OK;
}

/* ---- example data (check-plugin) ------------------------------------------------ */

/* One planet's transits (planets = 1, the default): P = 12.3 d, every
 * transit in 200 days with errors of 2 to 4 minutes and their Gaussian
 * noise, drawn from seed: the data check-plugin prepares ttv on. */
static sl_status ttv_example(const char *path, uint64_t seed)
{
    sl_out o;
    if (sl_out_open(&o, path, SL_OUT_OVERWRITE))
        return sl_fail_context(SL_ERR_IO, "ttv: example data");
    sl_rng g;
    sl_rng_init(&g, seed, 50);
    fprintf(o.f, "# one planet, P = 12.3 d, tc = 2.1 d\nplanet,time,error\n");
    for (int k = 0; k < 16; k++) {
        const double e = (2.0 + 2.0 * sl_rng_uniform(&g)) / 1440.0;
        const double z = sqrt(-2.0 * log(1.0 - sl_rng_uniform(&g))) *
                         cos(SL_KEPLER_TWO_PI * sl_rng_uniform(&g));
        fprintf(o.f, "1,%.6f,%.6f\n", 2.1 + 12.3 * k + e * z, e);
    }
    if (sl_out_commit(&o))
        return sl_fail_context(SL_ERR_IO, "ttv: example data");
    return SL_OK;
}

/* ---- the plugin ------------------------------------------------------------------ */

/* transit times joined to the velocities: starling.ttv.read's data */
static const char *const rv_more_data[] = {"transits", NULL};

static const sl_likelihood nbody_rv_table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LIKELIHOOD,
    .name = "nbody_rv",
    .description = "radial velocities of interacting planets: an N-body integration per "
                   "model (mvs or hermite) from Jacobi elements, with kepler_rv's offsets, "
                   "jitters and trends; transit times joined through `transits`",
    .params = rv_options,
    .n_params = N_RV_OPT,
    .backends = SL_BACKEND_CAN_CPU | (SL_HAVE_CUDA ? SL_BACKEND_CAN_CUDA : 0),
    .precisions = SL_PRECISION_DOUBLE,
    .free_params = nb_params,
    .prepare = rv_prepare,
    .eval_batch = nb_eval,
    .release = nb_release,
    .eval_batch_chi2 = nb_eval_chi2,
    .model = nb_model,
    .last_kernel_s = nb_last_kernel_s,
#if SL_HAVE_CUDA
    .eval_batch_device = nb_eval_device,
#endif
    .counters = nb_counters,
    .more_data = rv_more_data,
};

static const sl_likelihood ttv_table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LIKELIHOOD,
    .name = "ttv",
    .description = "transit times of interacting planets: mid-transits found on an N-body "
                   "integration per model (mvs or hermite), matched to the observed ones",
    .params = ttv_options,
    .n_params = N_COMMON,
    .backends = SL_BACKEND_CAN_CPU | (SL_HAVE_CUDA ? SL_BACKEND_CAN_CUDA : 0),
    .precisions = SL_PRECISION_DOUBLE,
    .free_params = nb_params,
    .prepare = ttv_prepare,
    .eval_batch = nb_eval,
    .release = nb_release,
    .eval_batch_chi2 = nb_eval_chi2,
    .last_kernel_s = nb_last_kernel_s,
#if SL_HAVE_CUDA
    .eval_batch_device = nb_eval_device,
#endif
    .counters = nb_counters,
    .example_data = ttv_example,
};

static const sl_plugin_table tables[] = {
    {SL_KIND_LIKELIHOOD, "nbody_rv", &nbody_rv_table},
    {SL_KIND_LIKELIHOOD, "ttv", &ttv_table},
    {SL_KIND_LUA_FACE, "nbody_rv", &sl_nbody_lua_face},
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "nbody_rv",
    .version = "0.1.0",
    .description = "N-body radial-velocity and transit-time likelihoods",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
