/* Differential-evolution MCMC on the host (demcmc.h says what and why). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "starling/demcmc.h"
#include "starling/nomem.h"
#include "starling/params.h"
#include "starling/rng.h"
#include "starling/stats.h"

static const double TWO_PI = 6.283185307179586476925286766559;

/* ---- priors ------------------------------------------------------------------- */

const char *sl_prior_kind_name(int kind)
{
    switch (kind) {
    case SL_PRIOR_UNIFORM: return "uniform";
    case SL_PRIOR_LOG_UNIFORM: return "log_uniform";
    case SL_PRIOR_NORMAL: return "normal";
    case SL_PRIOR_TRUNC_NORMAL: return "truncated_normal";
    case SL_PRIOR_FIXED: return "fixed";
    default: return NULL;
    }
}

static int has_bounds(int kind)
{
    return kind == SL_PRIOR_UNIFORM || kind == SL_PRIOR_LOG_UNIFORM ||
           kind == SL_PRIOR_TRUNC_NORMAL;
}

sl_status sl_prior_check(const sl_prior *p, const char *name)
{
    char a[40], b[40];
    const char *kind = sl_prior_kind_name(p->kind);
    name = name ? name : "?";
    if (!kind)
        return sl_fail(SL_ERR_ARG, "prior of '%s': kind %d: expected uniform, log_uniform, "
                       "normal, truncated_normal or fixed", name, p->kind);
    if (has_bounds(p->kind) && !(isfinite(p->lo) && isfinite(p->hi) && p->lo < p->hi)) {
        sl_fmt_num(a, sizeof a, p->lo);
        sl_fmt_num(b, sizeof b, p->hi);
        return sl_fail(SL_ERR_ARG, "prior of '%s' (%s): lower = %s, upper = %s: expected "
                       "finite bounds with lower < upper", name, kind, a, b);
    }
    if (p->kind == SL_PRIOR_LOG_UNIFORM && !(p->lo > 0.0)) {
        sl_fmt_num(a, sizeof a, p->lo);
        return sl_fail(SL_ERR_ARG, "prior of '%s' (log_uniform): lower = %s: expected a "
                       "lower bound > 0", name, a);
    }
    if ((p->kind == SL_PRIOR_NORMAL || p->kind == SL_PRIOR_TRUNC_NORMAL) &&
        !(isfinite(p->mu) && p->sigma > 0.0 && isfinite(p->sigma))) {
        sl_fmt_num(a, sizeof a, p->mu);
        sl_fmt_num(b, sizeof b, p->sigma);
        return sl_fail(SL_ERR_ARG, "prior of '%s' (%s): mean = %s, sigma = %s: expected a "
                       "finite mean and a finite sigma > 0", name, kind, a, b);
    }
    if (p->kind == SL_PRIOR_FIXED && !isfinite(p->value)) {
        sl_fmt_num(a, sizeof a, p->value);
        return sl_fail(SL_ERR_ARG, "prior of '%s' (fixed): value = %s: expected a finite "
                       "number", name, a);
    }
    if (p->periodic && p->kind != SL_PRIOR_UNIFORM)
        return sl_fail(SL_ERR_ARG, "prior of '%s' (%s): periodic: only a uniform prior can "
                       "wrap (its bounds are the period)", name, kind);
    return SL_OK;
}

double sl_prior_draw(const sl_prior *p, double u1, double u2)
{
    switch (p->kind) {
    case SL_PRIOR_UNIFORM:
        return p->lo + u1 * (p->hi - p->lo);
    case SL_PRIOR_LOG_UNIFORM:
        return exp(log(p->lo) + u1 * (log(p->hi) - log(p->lo)));
    case SL_PRIOR_NORMAL: /* Box-Muller; 1 - u1 is in (0, 1] */
        return p->mu + p->sigma * sqrt(-2.0 * log(1.0 - u1)) * cos(TWO_PI * u2);
    case SL_PRIOR_TRUNC_NORMAL: {
        double a = sl_norm_cdf((p->lo - p->mu) / p->sigma);
        double b = sl_norm_cdf((p->hi - p->mu) / p->sigma);
        double x = p->mu + p->sigma * sl_norm_quantile(a + u1 * (b - a));
        return fmin(fmax(x, p->lo), p->hi); /* rounding at the edges */
    }
    case SL_PRIOR_FIXED:
        return p->value;
    default:
        return NAN;
    }
}

/* ---- configuration ------------------------------------------------------------ */

void sl_demcmc_config_default(sl_demcmc_config *c)
{
    memset(c, 0, sizeof *c);
    c->seed = 1;
    c->gamma1_every = 10;
    c->noise = 1e-4;
    c->thin = 1;
    c->outliers = 1;
}

static int n_free(int n_params, const sl_prior *priors)
{
    int d = 0;
    for (int k = 0; k < n_params; k++)
        d += priors[k].kind != SL_PRIOR_FIXED;
    return d;
}

sl_status sl_demcmc_check(const sl_demcmc_config *c, int n_params, const sl_prior *priors,
                          const char *const *names)
{
    if (n_params < 1)
        return sl_fail(SL_ERR_ARG, "demcmc: %d parameters: expected at least one", n_params);
    for (int k = 0; k < n_params; k++) {
        sl_status st = sl_prior_check(&priors[k], names ? names[k] : NULL);
        if (st)
            return sl_fail_context(st, "demcmc");
    }
    int d = n_free(n_params, priors);
    if (d < 1)
        return sl_fail(SL_ERR_ARG, "demcmc: every parameter is fixed: nothing to sample");
    int64_t need = 2 * (int64_t)d > 4 ? 2 * (int64_t)d : 4;
    if (c->chains < need || c->chains % 2)
        return sl_fail(SL_ERR_ARG, "demcmc: chains = %lld: expected an even number >= %lld "
                       "(at least 2 d for %d free parameters, and 4: each half proposes "
                       "from two chains of the other)", (long long)c->chains, (long long)need, d);
    if (c->generations < 1)
        return sl_fail(SL_ERR_ARG, "demcmc: generations = %lld: expected >= 1",
                       (long long)c->generations);
    char a[40];
    if (!(c->gamma >= 0.0) || !isfinite(c->gamma)) {
        sl_fmt_num(a, sizeof a, c->gamma);
        return sl_fail(SL_ERR_ARG, "demcmc: gamma = %s: expected a number > 0 (or 0: "
                       "2.38 / sqrt(2 d))", a);
    }
    if (!(c->noise >= 0.0 && c->noise < 1.0)) {
        sl_fmt_num(a, sizeof a, c->noise);
        return sl_fail(SL_ERR_ARG, "demcmc: noise = %s: expected a relative spread in [0, 1) "
                       "(default 1e-4)", a);
    }
    if (c->checkpoint && c->checkpoint_every < 1)
        return sl_fail(SL_ERR_ARG, "demcmc: checkpoint_every = %lld: expected >= 1",
                       (long long)c->checkpoint_every);
    if (c->gamma1_every < 0 || c->burn < 0 || c->thin < 1)
        return sl_fail(SL_ERR_ARG, "demcmc: gamma1_every = %lld, burn = %lld, thin = %lld: "
                       "expected >= 0, >= 0 and >= 1", (long long)c->gamma1_every,
                       (long long)c->burn, (long long)c->thin);
    if (c->burn >= c->generations)
        return sl_fail(SL_ERR_ARG, "demcmc: burn = %lld of %lld generations: nothing would be "
                       "kept", (long long)c->burn, (long long)c->generations);
    return SL_OK;
}

/* ---- the run ------------------------------------------------------------------ */

typedef struct sampler {
    const sl_demcmc_config *c;
    int D, d;                  /* parameters, free ones */
    const sl_prior *pr;
    sl_loglike_fn target;
    void *ud;
    double gamma;
    double *x, *lp, *ll;       /* chains x D; chains; chains */
    double *prop, *plp;        /* a half's proposals (half x D), their log priors */
    double *rows, *out;        /* the proposals inside the support, packed; their values */
    int64_t *row_of;           /* proposal -> chain */
    double *spread;            /* D: the other half's spread */
    sl_demcmc_result *res;
} sampler;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Draws of chain `chain` in generation g (-1: the start): the stream is
 * the chain, and g owns D + 2 blocks of two uniforms: the pair r1, r2,
 * then two normals a block, and the accept test in the last (the start:
 * two uniforms per parameter). */
static void rng_at(sl_rng *r, uint64_t seed, int64_t chain, int64_t g, int D)
{
    sl_rng_init(r, seed, (uint64_t)chain);
    r->counter = (uint64_t)(g + 1) * (uint64_t)(D + 2);
}

/* Two standard normals from one block (Box-Muller). */
static void normals(sl_rng *r, double *z0, double *z1)
{
    double u1 = sl_rng_uniform(r), u2 = sl_rng_uniform(r);
    double a = sqrt(-2.0 * log(1.0 - u1));
    *z0 = a * cos(TWO_PI * u2);
    *z1 = a * sin(TWO_PI * u2);
}

static double log_prior(const sampler *S, const double *x)
{
    double lp = 0.0;
    for (int k = 0; k < S->D && lp > -INFINITY; k++)
        lp += sl_prior_logpdf(&S->pr[k], x[k]);
    return lp;
}

/* The target on the n rows in S->rows, into S->out. */
static sl_status evaluate(sampler *S, int64_t n)
{
    if (n == 0)
        return SL_OK;
    double t = now_s();
    sl_status st = S->target(S->ud, S->rows, n, S->out);
    S->res->target_s += now_s() - t;
    S->res->evaluations += n;
    return st ? sl_fail_context(st, "demcmc: the likelihood") : SL_OK;
}

/* Each parameter's spread (standard deviation) over chains [lo, hi). */
static void spread(sampler *S, int64_t lo, int64_t hi)
{
    for (int k = 0; k < S->D; k++) {
        double m = 0.0, v = 0.0;
        for (int64_t i = lo; i < hi; i++)
            m += S->x[i * S->D + k];
        m /= (double)(hi - lo);
        for (int64_t i = lo; i < hi; i++) {
            double e = S->x[i * S->D + k] - m;
            v += e * e;
        }
        S->spread[k] = sqrt(v / (double)(hi - lo - 1));
    }
}

/* Chain i's proposal in generation g from chains [olo, olo + on). */
static void propose(sampler *S, int64_t i, int64_t g, int64_t olo, int64_t on, double *y)
{
    const sl_demcmc_config *c = S->c;
    sl_rng r;
    rng_at(&r, c->seed, i, g, S->D);
    int64_t r1 = (int64_t)(sl_rng_uniform(&r) * (double)on);
    int64_t r2 = (int64_t)(sl_rng_uniform(&r) * (double)(on - 1));
    r1 = r1 < on ? r1 : on - 1;
    r2 = r2 < on - 1 ? r2 : on - 2;
    r2 += r2 >= r1;
    const double *x = S->x + i * S->D, *a = S->x + (olo + r1) * S->D,
                 *b = S->x + (olo + r2) * S->D;
    double gamma = c->gamma1_every > 0 && (g + 1) % c->gamma1_every == 0 ? 1.0 : S->gamma;
    double z[2];
    for (int k = 0; k < S->D; k++) {
        const sl_prior *p = &S->pr[k];
        if (k % 2 == 0)
            normals(&r, &z[0], &z[1]);
        double e = c->noise * S->spread[k] * z[k % 2];
        y[k] = p->kind == SL_PRIOR_FIXED ? p->value
                                         : sl_prior_wrap(p, x[k] + gamma * (a[k] - b[k]) + e);
    }
}

/* Chain i's accept test; the uniform is the generation's last draw. */
static double accept_u(const sampler *S, int64_t i, int64_t g)
{
    sl_rng r;
    rng_at(&r, S->c->seed, i, g, S->D);
    r.counter += (uint64_t)(S->D + 1); /* past propose's draws */
    return sl_rng_uniform(&r);
}

/* Chain ch takes proposal i (value ll) or not; returns 1 when ll is NaN. */
static int decide(sampler *S, int64_t ch, int64_t i, double ll, int64_t g)
{
    if (isnan(ll))
        return 1;
    double post = S->plp[i] + ll, cur = S->lp[ch] + S->ll[ch];
    /* -inf - -inf: a chain still outside the model's domain moves to any
     * proposal that is not worse */
    int take = cur == -INFINITY ? post > -INFINITY || post == cur
                                : log(accept_u(S, ch, g)) < post - cur;
    if (take) {
        memcpy(S->x + ch * S->D, S->prop + i * S->D, (size_t)S->D * sizeof(double));
        S->lp[ch] = S->plp[i];
        S->ll[ch] = ll;
        S->res->accepted[ch]++;
    }
    return 0;
}

/* Half [lo, lo + n) proposes from [olo, olo + n) in generation g. The
 * proposals and the decisions are per chain, from the chain's own random
 * numbers, so the threads that share them change no result. */
static sl_status half_step(sampler *S, int64_t g, int64_t lo, int64_t olo, int64_t n)
{
    spread(S, olo, olo + n);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        double *y = S->prop + i * S->D;
        propose(S, lo + i, g, olo, n, y);
        S->plp[i] = log_prior(S, y);
    }
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (S->plp[i] == -INFINITY) {
            S->res->outside++;
            continue;
        }
        memcpy(S->rows + m * S->D, S->prop + i * S->D, (size_t)S->D * sizeof(double));
        S->row_of[m++] = i;
    }
    sl_status st = evaluate(S, m);
    if (st)
        return st;
    int64_t nan = 0;
#pragma omp parallel for schedule(static) reduction(+ : nan)
    for (int64_t k = 0; k < m; k++)
        nan += decide(S, lo + S->row_of[k], S->row_of[k], S->out[k], g);
    S->res->nan += nan;
    return SL_OK;
}

/* The start: given, or drawn from the priors; then evaluated. A start
 * outside the support is refused: every chain must begin where the
 * posterior is defined. */
static sl_status start_chains(sampler *S, const double *start)
{
    const int64_t N = S->c->chains;
    for (int64_t i = 0; i < N; i++) {
        double *x = S->x + i * S->D;
        sl_rng r;
        rng_at(&r, S->c->seed, i, -1, S->D);
        for (int k = 0; k < S->D; k++) {
            double u1 = sl_rng_uniform(&r), u2 = sl_rng_uniform(&r);
            x[k] = start ? start[i * S->D + k] : sl_prior_draw(&S->pr[k], u1, u2);
        }
        S->lp[i] = log_prior(S, x);
        if (S->lp[i] == -INFINITY) {
            for (int k = 0; k < S->D; k++)
                if (sl_prior_logpdf(&S->pr[k], x[k]) == -INFINITY) {
                    char v[40];
                    sl_fmt_num(v, sizeof v, x[k]);
                    return sl_fail(SL_ERR_ARG, "demcmc: chain %lld starts at parameter %d = "
                                   "%s, outside its %s prior", (long long)i + 1, k + 1, v,
                                   sl_prior_kind_name(S->pr[k].kind));
                }
        }
    }
    memcpy(S->rows, S->x, (size_t)N * (size_t)S->D * sizeof(double));
    sl_status st = evaluate(S, N);
    for (int64_t i = 0; i < N && !st; i++) {
        S->ll[i] = S->out[i];
        if (isnan(S->ll[i])) { /* worse than anything: the first proposal replaces it */
            S->res->nan++;
            S->ll[i] = -INFINITY;
        }
    }
    return st;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Burn-in only: a chain stuck far below the others (log posterior under
 * Q1 - 2 IQR of the population's; Vrugt et al. 2009's rule for DE) would
 * hold R-hat up forever, since the differences of the converged chains are
 * too short to bring it back; it restarts from a chain of the upper half,
 * drawn with the second uniform of its accept block. */
static void reset_outliers(sampler *S, int64_t g)
{
    const int64_t N = S->c->chains;
    double *q = S->out; /* free between generations */
    for (int64_t i = 0; i < N; i++)
        q[i] = S->lp[i] + S->ll[i];
    qsort(q, (size_t)N, sizeof *q, cmp_double);
    double q1 = q[N / 4], q3 = q[(3 * N) / 4], median = q[N / 2];
    double cut = q1 - 2.0 * (q3 - q1);
    int64_t upper = 0;
    for (int64_t i = 0; i < N; i++)
        upper += S->lp[i] + S->ll[i] >= median;
    for (int64_t i = 0; i < N; i++) {
        if (!(S->lp[i] + S->ll[i] < cut))
            continue;
        sl_rng r;
        rng_at(&r, S->c->seed, i, g, S->D);
        r.counter += (uint64_t)(S->D + 1);
        (void)sl_rng_uniform(&r); /* the accept test's */
        int64_t k = (int64_t)(sl_rng_uniform(&r) * (double)upper), j = 0;
        for (; j < N; j++)
            if (S->lp[j] + S->ll[j] >= median && k-- == 0)
                break;
        memcpy(S->x + i * S->D, S->x + j * S->D, (size_t)S->D * sizeof(double));
        S->lp[i] = S->lp[j];
        S->ll[i] = S->ll[j];
        S->res->reset++;
    }
}

static void keep(sampler *S, int64_t slot)
{
    sl_demcmc_result *r = S->res;
    const int64_t N = S->c->chains;
    memcpy(r->samples + slot * N * S->D, S->x, (size_t)(N * S->D) * sizeof(double));
    for (int64_t i = 0; i < N; i++) {
        r->loglike[slot * N + i] = S->ll[i];
        r->logpost[slot * N + i] = S->lp[i] + S->ll[i];
    }
}

static sl_status alloc_result(const sl_demcmc_config *c, int D, sl_demcmc_result *r)
{
    const int64_t N = c->chains;
    memset(r, 0, sizeof *r);
    r->chains = N;
    r->n_params = D;
    r->kept = (c->generations - c->burn + c->thin - 1) / c->thin;
    size_t nk = (size_t)r->kept * (size_t)N;
    r->samples = malloc(nk * (size_t)D * sizeof(double));
    r->logpost = malloc(nk * sizeof(double));
    r->loglike = malloc(nk * sizeof(double));
    r->last = malloc((size_t)N * (size_t)D * sizeof(double));
    r->last_logpost = malloc((size_t)N * sizeof(double));
    r->last_loglike = malloc((size_t)N * sizeof(double));
    r->accepted = calloc((size_t)N, sizeof(int64_t));
    if (!r->samples || !r->logpost || !r->loglike || !r->last || !r->last_logpost ||
        !r->last_loglike || !r->accepted) {
        sl_demcmc_result_free(r);
        return sl_fail_nomem((double)nk * (D + 2) * sizeof(double), "demcmc: %lld kept "
                             "generations of %lld chains", (long long)r->kept, (long long)N);
    }
    return SL_OK;
}

void sl_demcmc_result_free(sl_demcmc_result *r)
{
    free(r->samples), free(r->logpost), free(r->loglike), free(r->last);
    free(r->last_logpost), free(r->last_loglike), free(r->accepted);
    memset(r, 0, sizeof *r);
}

static sl_status alloc_sampler(sampler *S)
{
    const int64_t N = S->c->chains;
    size_t nd = (size_t)N * (size_t)S->D;
    S->x = malloc(nd * sizeof(double));
    S->lp = malloc((size_t)N * sizeof(double));
    S->ll = malloc((size_t)N * sizeof(double));
    S->prop = malloc(nd * sizeof(double));
    S->plp = malloc((size_t)N * sizeof(double));
    S->rows = malloc(nd * sizeof(double));
    S->out = malloc((size_t)N * sizeof(double));
    S->row_of = malloc((size_t)N * sizeof(int64_t));
    S->spread = malloc((size_t)S->D * sizeof(double));
    if (!S->x || !S->lp || !S->ll || !S->prop || !S->plp || !S->rows || !S->out ||
        !S->row_of || !S->spread)
        return sl_fail_nomem((double)nd * 4 * sizeof(double), "demcmc: %lld chains",
                             (long long)N);
    return SL_OK;
}

static void free_sampler(sampler *S)
{
    free(S->x), free(S->lp), free(S->ll), free(S->prop), free(S->plp);
    free(S->rows), free(S->out), free(S->row_of), free(S->spread);
}

static sl_status generations(sampler *S, int64_t first)
{
    const sl_demcmc_config *c = S->c;
    const int64_t N = c->chains, h = N / 2;
    int64_t acc0 = 0;
    for (int64_t k = 0; k < c->generations; k++) {
        int64_t g = first + k;
        sl_status st = half_step(S, g, 0, h, h);
        if (!st)
            st = half_step(S, g, h, 0, h);
        if (st)
            return st;
        int64_t every = c->burn / 10;
        if (c->outliers && k < c->burn && every > 0 && (k + 1) % every == 0)
            reset_outliers(S, g);
        S->res->generations = k + 1;
        S->res->proposals += N;
        if (c->checkpoint && c->checkpoint_every > 0 && (k + 1) % c->checkpoint_every == 0 &&
            (st = c->checkpoint(c->checkpoint_ud, g + 1, S->x, S->lp, S->ll)))
            return sl_fail_context(st, "demcmc: checkpoint after generation %lld",
                                   (long long)(g + 1));
        if (k >= c->burn && (k - c->burn) % c->thin == 0)
            keep(S, (k - c->burn) / c->thin);
        if (c->progress) {
            int64_t acc = 0;
            for (int64_t i = 0; i < N; i++)
                acc += S->res->accepted[i];
            int stop = c->progress(c->progress_ud, g + 1, (double)(acc - acc0) / (double)N);
            acc0 = acc;
            if (stop)
                return sl_fail(SL_ERR_CANCELLED, "demcmc: cancelled by the progress function "
                               "after %lld generations", (long long)k + 1);
        }
    }
    return SL_OK;
}

sl_status sl_demcmc_run(const sl_demcmc_config *c, int n_params, const sl_prior *priors,
                        const char *const *names, sl_loglike_fn target, void *target_ud,
                        const double *start, int64_t first, sl_demcmc_result *res)
{
    double t0 = now_s();
    memset(res, 0, sizeof *res);
    sl_status st = sl_demcmc_check(c, n_params, priors, names);
    if (st)
        return st;
    if (!target)
        return sl_fail(SL_ERR_ARG, "demcmc: no likelihood given");
    if (first < 0)
        return sl_fail(SL_ERR_ARG, "demcmc: first = %lld: expected >= 0", (long long)first);
    sampler S;
    memset(&S, 0, sizeof S);
    S.c = c, S.D = n_params, S.d = n_free(n_params, priors), S.pr = priors;
    S.target = target, S.ud = target_ud, S.res = res;
    S.gamma = c->gamma > 0.0 ? c->gamma : 2.38 / sqrt(2.0 * S.d);
    st = alloc_result(c, n_params, res);
    if (!st)
        st = alloc_sampler(&S);
    if (!st)
        st = start_chains(&S, start);
    if (!st)
        st = generations(&S, first);
    if (!st) {
        memcpy(res->last, S.x, (size_t)(c->chains * n_params) * sizeof(double));
        for (int64_t i = 0; i < c->chains; i++) {
            res->last_loglike[i] = S.ll[i];
            res->last_logpost[i] = S.lp[i] + S.ll[i];
        }
    }
    free_sampler(&S);
    res->wall_s = now_s() - t0;
    if (st)
        sl_demcmc_result_free(res);
    return st;
}
