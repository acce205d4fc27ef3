/* Differential-evolution MCMC on the host (demcmc.h says what and why). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demcmc_dev.h"
#include "starling/cancel.h"
#include "starling/demcmc.h"
#include "starling/demcmc_move.h"
#include "starling/mcmc_diag.h"
#include "starling/nomem.h"
#include "starling/params.h"
#include "starling/rng.h"
#include "starling/stats.h"
#include "starling/version.h"

#if !SL_CORE_HAS_CUDA
/* A build without CUDA refuses a device target at the opening; the rest is
 * never reached. */
sl_status sl__dm_dev_open(sl__dm_dev **out, const sl_dm_move *m, int64_t N, int64_t zcap,
                          int64_t keep, int64_t time_every)
{
    (void)m, (void)N, (void)zcap, (void)keep, (void)time_every;
    *out = NULL;
    return sl_fail(SL_ERR_NODEVICE, "demcmc: a device target, but starling was built without "
                   "CUDA");
}
void sl__dm_dev_close(sl__dm_dev *d) { (void)d; }
#define SL__DM_NODEV return sl_fail(SL_ERR_NODEVICE, "demcmc: built without CUDA")
sl_status sl__dm_dev_put(sl__dm_dev *d, const double *x, const double *lp, const double *ll,
                         const int64_t *accepted)
{
    (void)d, (void)x, (void)lp, (void)ll, (void)accepted;
    SL__DM_NODEV;
}
sl_status sl__dm_dev_get(sl__dm_dev *d, double *x, double *lp, double *ll, int64_t *accepted)
{
    (void)d, (void)x, (void)lp, (void)ll, (void)accepted;
    SL__DM_NODEV;
}
sl_status sl__dm_dev_archive_put(sl__dm_dev *d, const double *z, int64_t rows)
{
    (void)d, (void)z, (void)rows;
    SL__DM_NODEV;
}
sl_status sl__dm_dev_archive_add(sl__dm_dev *d) { (void)d; SL__DM_NODEV; }
sl_status sl__dm_dev_archive_get(sl__dm_dev *d, double *z) { (void)d, (void)z; SL__DM_NODEV; }
sl_status sl__dm_dev_step(sl__dm_dev *d, int64_t g, int64_t lo, int64_t olo, int64_t n,
                          int archive, sl__dm_dev_target target, void *ud)
{
    (void)d, (void)g, (void)lo, (void)olo, (void)n, (void)archive, (void)target, (void)ud;
    SL__DM_NODEV;
}
void sl__dm_dev_set_half(sl__dm_dev *d, sl__dm_dev_half half, void *ud)
{
    (void)d, (void)half, (void)ud;
}
sl_status sl__dm_dev_counts(sl__dm_dev *d, int64_t *outside, int64_t *nan, int64_t *evaluated,
                            double *target_s)
{
    (void)d, (void)outside, (void)nan, (void)evaluated, (void)target_s;
    SL__DM_NODEV;
}
int sl__dm_dev_keep_full(const sl__dm_dev *d) { (void)d; return 0; }
sl_status sl__dm_dev_keep(sl__dm_dev *d, int64_t slot) { (void)d, (void)slot; SL__DM_NODEV; }
sl_status sl__dm_dev_flush(sl__dm_dev *d, double *samples, double *logpost, double *loglike)
{
    (void)d, (void)samples, (void)logpost, (void)loglike;
    SL__DM_NODEV;
}
sl_status sl__dm_dev_flush_async(sl__dm_dev *d, double *samples, double *logpost,
                                 double *loglike)
{
    (void)d, (void)samples, (void)logpost, (void)loglike;
    SL__DM_NODEV;
}
#endif

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

/* The truncated normal by inversion of its CDF. Where the interval holds
 * at least 1e-6 of the normal's mass, the difference of the two CDFs keeps
 * p to 1e-10 and the quantile inverts it directly. Below that (an interval
 * far in a tail, or very narrow) the differences of CDFs near 0 or 1 lose
 * every digit: every draw would land on a bound, and differential
 * evolution cannot move a parameter on which all chains agree. There the
 * interval is mirrored into the lower half (where ln Phi is relatively
 * accurate), and ln Phi(x) = ln Phi(b) + ln(u + (1 - u) Phi(a) / Phi(b))
 * inverted in logs. */
static double trunc_normal_draw(const sl_prior *p, double u)
{
    double a = (p->lo - p->mu) / p->sigma, b = (p->hi - p->mu) / p->sigma;
    double pa = sl_norm_cdf(a), pb = sl_norm_cdf(b), x;
    if (pb - pa >= 1e-6) {
        x = p->mu + p->sigma * sl_norm_quantile(pa + u * (pb - pa));
    } else {
        double sign = a + b > 0.0 ? -1.0 : 1.0;
        double lo = sign > 0.0 ? a : -b, hi = sign > 0.0 ? b : -a;
        double la = sl_norm_logcdf(lo), lb = sl_norm_logcdf(hi);
        double r = exp(la - lb); /* in [0, 1] */
        double z = sl_norm_logcdf_quantile(lb + log(u + (1.0 - u) * r));
        z = fmin(fmax(z, lo), hi);
        x = p->mu + sign * p->sigma * z;
    }
    return fmin(fmax(x, p->lo), p->hi); /* rounding at the edges */
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
    case SL_PRIOR_TRUNC_NORMAL:
        return trunc_normal_draw(p, u1);
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
    c->archive_every = 10;
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
    if (c->device_half && !c->device_target)
        return sl_fail(SL_ERR_ARG, "demcmc: a fused half-generation (device_half) without "
                       "the device target it stands in for (device_target)");
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
        return sl_fail(SL_ERR_ARG, "demcmc: noise = %s: expected a relative scale in [0, 1) "
                       "(default 1e-4)", a);
    }
    if (c->device_batch < 0)
        return sl_fail(SL_ERR_ARG, "demcmc: device_batch = %lld: expected >= 0 (0: as many "
                       "kept generations as fit in 4 MiB)", (long long)c->device_batch);
    if (c->device_time_every < 0)
        return sl_fail(SL_ERR_ARG, "demcmc: device_time_every = %lld: expected >= 0 (0: "
                       "every 16th step, 1: every step)", (long long)c->device_time_every);
    if (c->checkpoint && c->checkpoint_every < 1)
        return sl_fail(SL_ERR_ARG, "demcmc: checkpoint_every = %lld: expected >= 1",
                       (long long)c->checkpoint_every);
    if (c->gamma1_every < 0 || c->burn < 0 || c->thin < 1)
        return sl_fail(SL_ERR_ARG, "demcmc: gamma1_every = %lld, burn = %lld, thin = %lld: "
                       "expected >= 0, >= 0 and >= 1", (long long)c->gamma1_every,
                       (long long)c->burn, (long long)c->thin);
    if (c->archive && c->archive_every < 1)
        return sl_fail(SL_ERR_ARG, "demcmc: archive_every = %lld: expected >= 1",
                       (long long)c->archive_every);
    if (c->archive_start_rows > 0 && !c->archive_start)
        return sl_fail(SL_ERR_ARG, "demcmc: archive_start_rows = %lld but no archive_start",
                       (long long)c->archive_start_rows);
    if (!(c->snooker >= 0.0 && c->snooker <= 1.0)) {
        sl_fmt_num(a, sizeof a, c->snooker);
        return sl_fail(SL_ERR_ARG, "demcmc: snooker = %s: expected a probability in [0, 1]", a);
    }
    if (c->snooker > 0.0 && !c->archive && c->chains < 6)
        return sl_fail(SL_ERR_ARG, "demcmc: chains = %lld with the snooker update and no "
                       "archive: expected >= 6 (it draws three chains of the other half)",
                       (long long)c->chains);
    if (!(c->stop_rhat == 0.0 || (c->stop_rhat > 1.0 && isfinite(c->stop_rhat)))) {
        sl_fmt_num(a, sizeof a, c->stop_rhat);
        return sl_fail(SL_ERR_ARG, "demcmc: stop_rhat = %s: expected a threshold > 1 (e.g. "
                       "1.01), or 0: not asked", a);
    }
    if (!(c->stop_ess >= 0.0 && isfinite(c->stop_ess)) || c->stop_every < 0) {
        sl_fmt_num(a, sizeof a, c->stop_ess);
        return sl_fail(SL_ERR_ARG, "demcmc: stop_ess = %s, stop_every = %lld: expected an "
                       "ESS >= 0 and a check interval >= 0", a, (long long)c->stop_every);
    }
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
    sl_dm_move m;              /* the proposal's constants (demcmc_move.h) */
    double *x, *lp, *ll;       /* chains x D; chains; chains */
    double *prop, *plp, *ljac; /* a step's proposals (n x D), their log priors and */
                               /* log Jacobian factors (snooker) */
    double *z;                 /* DE-MCz archive: zn of zcap rows x D */
    int64_t zn, zcap;
    sl__dm_dev *dev;           /* the chains on the device (device_target), or NULL */
    double *rows, *out;        /* the proposals inside the support, packed; their values */
    int64_t *row_of;           /* proposal -> chain */
    sl_demcmc_result *res;
    const char *const *names;  /* for messages; may be NULL */
    int64_t drawn;             /* kept generations handed to c->draws */
} sampler;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void rng_at(const sampler *S, sl_rng *r, int64_t chain, int64_t g, uint64_t block)
{
    sl_dm_rng_at(&S->m, r, chain, g, block);
}

static double log_prior(const sampler *S, const double *x)
{
    return sl_dm_log_prior(&S->m, x);
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

/* Chain i's proposal from chains [olo, ...) or the archive (`on` rows). */
static double propose(const sampler *S, int64_t i, int64_t g, int64_t olo, int64_t on,
                      double *y)
{
    const double *src = S->c->archive ? S->z : S->x + olo * S->D;
    return sl_dm_propose(&S->m, i, g, S->x + i * S->D, src, on, y);
}

/* Chain ch takes proposal i (value ll) or not; returns 1 when ll is NaN. */
static int decide(sampler *S, int64_t ch, int64_t i, double ll, int64_t g)
{
    if (isnan(ll))
        return 1;
    double post = S->plp[i] + ll + S->ljac[i], cur = S->lp[ch] + S->ll[ch];
    if (sl_dm_accept(&S->m, ch, g, post, cur)) {
        memcpy(S->x + ch * S->D, S->prop + i * S->D, (size_t)S->D * sizeof(double));
        S->lp[ch] = S->plp[i];
        S->ll[ch] = ll;
        S->res->accepted[ch]++;
    }
    return 0;
}

/* Chains [lo, lo + n) propose in generation g from the other half
 * [olo, olo + n), or (DE-MCz) all chains at once from the archive. The
 * proposals and the decisions are per chain, from the chain's own random
 * numbers, so the threads that share them change no result. */
static sl_status step(sampler *S, int64_t g, int64_t lo, int64_t olo, int64_t n)
{
    int64_t on = S->c->archive ? S->zn : n;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        double *y = S->prop + i * S->D;
        S->ljac[i] = propose(S, lo + i, g, olo, on, y);
        S->plp[i] = isnan(S->ljac[i]) ? -INFINITY : log_prior(S, y);
    }
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (S->plp[i] == -INFINITY) {
            S->res->outside += !isnan(S->ljac[i]);
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

/* On up to 8 of the host's threads: one thread copying kept batches out of
 * pinned memory (first touches of the result's pages included) bounds a
 * device run that keeps every generation, 60-70 us a half-generation at
 * 4,096 chains; 8 threads make that run 0.18-0.19 s instead of 0.40-0.45 s
 * on the H100's host. Each element is copied or
 * added alone, so the result does not depend on the thread count. */
void sl__dm_unpack(double *samples, double *logpost, double *loglike, const double *x,
                   const double *lp, const double *ll, size_t rows, size_t D)
{
    const int64_t parts = 64;
#ifdef _OPENMP /* the fuzzing build has none */
    int threads = omp_get_max_threads() < 8 ? omp_get_max_threads() : 8;
#else
    int threads = 1;
#endif
    (void)threads;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t c = 0; c < parts; c++) {
        size_t a = rows * (size_t)c / (size_t)parts, b = rows * (size_t)(c + 1) / (size_t)parts;
        memcpy(samples + a * D, x + a * D, (b - a) * D * sizeof(double));
        memcpy(loglike + a, ll + a, (b - a) * sizeof(double));
        for (size_t j = a; j < b; j++)
            logpost[j] = lp[j] + ll[j];
    }
}

/* DE-MCz: every chain's state joins the archive. */
static sl_status archive_add(sampler *S)
{
    const int64_t N = S->c->chains;
    if (S->dev) {
        sl_status st = sl__dm_dev_archive_add(S->dev);
        if (st)
            return st;
    } else {
        memcpy(S->z + S->zn * S->D, S->x, (size_t)(N * S->D) * sizeof(double));
    }
    S->zn += N;
    return SL_OK;
}

/* One step of chains [lo, lo + n), on the device or here. */
static sl_status any_step(sampler *S, int64_t g, int64_t lo, int64_t olo, int64_t n)
{
    if (!S->dev)
        return step(S, g, lo, olo, n);
    return sl__dm_dev_step(S->dev, g, lo, olo, n, S->c->archive, S->c->device_target,
                           S->c->device_target_ud);
}

/* The device's chains (and archive) to the host arrays. */
static sl_status pull(sampler *S, int archive)
{
    if (!S->dev)
        return SL_OK;
    sl_status st = sl__dm_dev_get(S->dev, S->x, S->lp, S->ll, S->res->accepted);
    if (!st && archive && S->c->archive)
        st = sl__dm_dev_archive_get(S->dev, S->z);
    return st;
}

/* The device's kept generations, into the result. */
static sl_status flush(sampler *S)
{
    sl_demcmc_result *r = S->res;
    return S->dev ? sl__dm_dev_flush(S->dev, r->samples, r->logpost, r->loglike) : SL_OK;
}

/* Opens the device sampler with the host's chains and archive. */
static sl_status device_open(sampler *S)
{
    const sl_demcmc_config *c = S->c;
    int64_t kept = (c->generations - c->burn + c->thin - 1) / c->thin;
    double bytes = (double)c->chains * (S->D + 2) * sizeof(double);
    /* two batches of up to 4 MiB: one fills while the other goes out.
     * Pinning is the cost: 32 MiB batches take 26 ms to set up and 18 ms
     * to release on the H100's host, a fifth of a 2,000-generation run of
     * 4,096 chains, and are no faster to copy out */
    int64_t batch = c->device_batch > 0 ? c->device_batch : (int64_t)(4.0 * 1048576.0 / bytes);
    batch = batch < 1 ? 1 : batch > kept ? kept : batch;
    int64_t every = c->device_time_every > 0 ? c->device_time_every : 16;
    sl_status st = sl__dm_dev_open(&S->dev, &S->m, c->chains, c->archive ? S->zcap : 0, batch,
                                   every);
    if (!st)
        st = sl__dm_dev_put(S->dev, S->x, S->lp, S->ll, S->res->accepted);
    if (!st && c->device_half) {
        sl__dm_dev_set_half(S->dev, c->device_half, c->device_half_ud);
        S->res->fused = 1;
    }
    if (!st && S->c->archive)
        st = sl__dm_dev_archive_put(S->dev, S->z, S->zn);
    return st ? sl_fail_context(st, "demcmc: on the device") : SL_OK;
}

/* The device's counts and chains, back in the result at the end. */
static sl_status device_close(sampler *S)
{
    int64_t outside = 0, nan = 0, evaluated = 0;
    double target_s = 0.0;
    sl_status st = flush(S);
    if (!st)
        st = pull(S, 1);
    if (!st)
        st = sl__dm_dev_counts(S->dev, &outside, &nan, &evaluated, &target_s);
    S->res->outside += outside, S->res->nan += nan, S->res->evaluations += evaluated;
    S->res->target_s += target_s;
    sl__dm_dev_close(S->dev);
    S->dev = NULL;
    return st;
}

/* Chain i's parameters as "name = value, ..." into buf. */
static void describe_chain(const sampler *S, int64_t i, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < S->D && at + 1 < size; k++) {
        char v[40], nm[16];
        sl_fmt_num(v, sizeof v, S->x[i * S->D + k]);
        snprintf(nm, sizeof nm, "p%d", k + 1);
        int w = snprintf(buf + at, size - at, "%s%s = %s", k ? ", " : "",
                         S->names && S->names[k] ? S->names[k] : nm, v);
        at += w > 0 ? (size_t)w : 0;
    }
}

/* How many chains hold a finite log-posterior; *ninf, *pinf: how many hold
 * -inf and +inf. */
static int64_t finite_chains(const sampler *S, int64_t *ninf, int64_t *pinf)
{
    int64_t f = 0, n = 0, p = 0;
    for (int64_t i = 0; i < S->c->chains; i++) {
        double v = S->lp[i] + S->ll[i];
        f += isfinite(v), n += v == -INFINITY, p += v == INFINITY || isnan(v);
    }
    *ninf = n, *pinf = p;
    return f;
}

/* A start where no chain has a finite log-posterior leaves the sampler
 * nothing to compare proposals with: every one would be taken or none,
 * and the draws would be a random walk or the start. It is refused. */
static sl_status finite_start(const sampler *S, int64_t nan, int given)
{
    int64_t ninf, pinf;
    if (finite_chains(S, &ninf, &pinf) > 0)
        return SL_OK;
    char at[400];
    describe_chain(S, 0, at, sizeof at);
    return sl_fail(SL_ERR_ARG, "demcmc: no chain starts with a finite log-posterior: of %lld "
                   "chains the likelihood gave NaN at %lld, -inf at %lld and +inf at %lld "
                   "(chain 1: %s). Check the likelihood at the %s (its data, units and "
                   "parameter order), or %s",
                   (long long)S->c->chains, (long long)nan, (long long)(ninf - nan),
                   (long long)pinf, at, given ? "start" : "priors' draws",
                   given ? "start the chains where it is finite" :
                           "narrow the priors to where it is finite");
}

/* After a generation: the chains only move to finite values unless the
 * likelihood gives +inf, which is taken over anything; then nothing is
 * left to sample. */
static sl_status check_generation(const sampler *S, int64_t g)
{
    int64_t ninf, pinf;
    if (finite_chains(S, &ninf, &pinf) > 0)
        return SL_OK;
    char at[400];
    describe_chain(S, 0, at, sizeof at);
    return sl_fail(SL_ERR_ARG, "demcmc: after generation %lld no chain has a finite "
                   "log-posterior (%lld at -inf, %lld at +inf or NaN; chain 1: %s): a "
                   "log-likelihood must be finite or -inf, never +inf",
                   (long long)(g + 1), (long long)ninf, (long long)pinf, at);
}

/* The warnings a finished run leaves in its result. */
static void add_warnings(sampler *S)
{
    sl_demcmc_result *r = S->res;
    int64_t acc = 0;
    for (int64_t i = 0; i < r->chains; i++)
        acc += r->accepted[i];
    if (acc == 0 && r->proposals > 0)
        snprintf(r->warnings, sizeof r->warnings, "no proposal was accepted in %lld "
                 "generations (%lld proposals, %lld outside the priors, %lld NaN): the chains "
                 "never moved and the draws are the start, not the posterior\n",
                 (long long)r->generations, (long long)r->proposals, (long long)r->outside,
                 (long long)r->nan);
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
        rng_at(S, &r, i, -1, 0);
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
    if (st)
        return st;
    int64_t nan = 0;
    for (int64_t i = 0; i < N; i++) {
        S->ll[i] = S->out[i];
        if (isnan(S->ll[i])) { /* worse than anything: the first proposal replaces it */
            nan++;
            S->ll[i] = -INFINITY;
        }
    }
    S->res->nan += nan;
    return finite_start(S, nan, start != NULL);
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
    /* the chains at or above the median, listed before any is replaced
     * (an outlier is below the median, so none of these changes) */
    int64_t *up = S->row_of, upper = 0; /* free between generations */
    for (int64_t i = 0; i < N; i++)
        if (S->lp[i] + S->ll[i] >= median)
            up[upper++] = i;
    for (int64_t i = 0; i < N; i++) {
        if (!(S->lp[i] + S->ll[i] < cut))
            continue;
        sl_rng r;
        rng_at(S, &r, i, g, (uint64_t)S->D + 1);
        (void)sl_rng_uniform(&r); /* the accept test's */
        int64_t k = (int64_t)(sl_rng_uniform(&r) * (double)upper);
        int64_t j = up[k < upper ? k : upper - 1];
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
    r->rhat = r->ess = NAN;
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
        int64_t kept = r->kept;
        sl_demcmc_result_free(r);
        return sl_fail_nomem((double)nk * (D + 2) * sizeof(double), "demcmc: %lld kept "
                             "generations of %lld chains", (long long)kept, (long long)N);
    }
    return SL_OK;
}

void sl_demcmc_result_free(sl_demcmc_result *r)
{
    free(r->samples), free(r->logpost), free(r->loglike), free(r->last);
    free(r->last_logpost), free(r->last_loglike), free(r->accepted), free(r->archive);
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
    S->ljac = malloc((size_t)N * sizeof(double));
    S->rows = malloc(nd * sizeof(double));
    S->out = malloc((size_t)N * sizeof(double));
    S->row_of = malloc((size_t)N * sizeof(int64_t));
    if (!S->x || !S->lp || !S->ll || !S->prop || !S->plp || !S->ljac || !S->rows || !S->out ||
        !S->row_of)
        return sl_fail_nomem((double)nd * 4 * sizeof(double), "demcmc: %lld chains",
                             (long long)N);
    if (!S->c->archive)
        return SL_OK;
    /* the archive it starts with (a resumed run's, or the start), and a
     * copy of the chains every archive_every generations */
    const sl_demcmc_config *c = S->c;
    int64_t start = c->archive_start_rows > 0 ? c->archive_start_rows : N;
    S->zcap = start + N * (c->generations / c->archive_every + 1);
    S->z = malloc((size_t)S->zcap * (size_t)S->D * sizeof(double));
    if (!S->z)
        return sl_fail_nomem((double)S->zcap * S->D * sizeof(double), "demcmc: an archive of "
                             "%lld states", (long long)S->zcap);
    if (c->archive_start_rows > 0) {
        memcpy(S->z, c->archive_start, (size_t)(start * S->D) * sizeof(double));
        S->zn = start;
    }
    return SL_OK;
}

static void free_sampler(sampler *S)
{
    free(S->x), free(S->lp), free(S->ll), free(S->prop), free(S->plp), free(S->ljac), free(S->z);
    free(S->rows), free(S->out), free(S->row_of);
}

/* The stopping rule on the `kept` generations kept so far: the worst
 * free parameter's R-hat and min(bulk, tail) ESS into res; 1 when met. */
static int converged(sampler *S, int64_t kept)
{
    sl_demcmc_result *r = S->res;
    const sl_demcmc_config *c = S->c;
    const int64_t N = c->chains;
    double rhat = 0.0, ess = INFINITY;
    for (int k = 0; k < S->D; k++) {
        if (S->pr[k].kind == SL_PRIOR_FIXED)
            continue;
        sl_mcmc_diag d;
        if (sl_mcmc_diagnose(r->samples + k, kept, N, N * S->D, S->D, &d)) {
            sl_clear_error();
            return 0; /* too few draws yet */
        }
        rhat = isnan(d.rhat) || d.rhat > rhat ? d.rhat : rhat;
        double e = fmin(d.ess_bulk, d.ess_tail);
        ess = isnan(e) || e < ess ? e : ess;
    }
    r->rhat = rhat, r->ess = ess;
    return (c->stop_rhat > 0.0 || c->stop_ess > 0.0) &&
           (c->stop_rhat == 0.0 || rhat < c->stop_rhat) &&
           (c->stop_ess == 0.0 || ess > c->stop_ess);
}

static int64_t stop_every(const sl_demcmc_config *c)
{
    if (c->stop_every > 0)
        return c->stop_every;
    int64_t kept = (c->generations - c->burn + c->thin - 1) / c->thin;
    return kept / 20 > 50 ? kept / 20 : 50;
}

/* After generation k of this call: keep it (on the device, kept there in
 * batches), check the stopping rule; *done when it is met. */
static sl_status keep_and_check(sampler *S, int64_t k, int *done)
{
    const sl_demcmc_config *c = S->c;
    *done = 0;
    if (k < c->burn || (k - c->burn) % c->thin)
        return SL_OK;
    int64_t slot = (k - c->burn) / c->thin;
    sl_status st = SL_OK;
    if (!S->dev)
        keep(S, slot);
    else if (sl__dm_dev_keep_full(S->dev) &&
             (st = sl__dm_dev_flush_async(S->dev, S->res->samples, S->res->logpost,
                                          S->res->loglike)))
        return st;
    else if ((st = sl__dm_dev_keep(S->dev, slot)))
        return st;
    int asked = c->stop_rhat > 0.0 || c->stop_ess > 0.0;
    if (!asked || (slot + 1) % stop_every(c))
        return SL_OK;
    if ((st = flush(S)))
        return st;
    if (!converged(S, slot + 1))
        return SL_OK;
    S->res->kept = slot + 1;
    S->res->converged = 1;
    *done = 1;
    return SL_OK;
}

/* The kept generations not yet handed to c->draws, through `to`. */
static sl_status hand_draws(sampler *S, int64_t to)
{
    const sl_demcmc_config *c = S->c;
    if (!c->draws || to <= S->drawn)
        return SL_OK;
    sl_status st = flush(S);
    if (!st)
        st = c->draws(c->draws_ud, S->res, S->drawn, to);
    if (st)
        return sl_fail_context(st, "demcmc: the draws through kept generation %lld",
                               (long long)to);
    S->drawn = to;
    return SL_OK;
}

/* After generation k of this call (g in all): the draws kept so far, then
 * the state, so that a checkpoint never runs ahead of the draws saved. */
static sl_status save_point(sampler *S, int64_t k, int64_t g)
{
    const sl_demcmc_config *c = S->c;
    int64_t kept = k < c->burn ? 0 : (k - c->burn) / c->thin + 1;
    sl_status st = hand_draws(S, kept);
    if (st || !c->checkpoint)
        return st;
    sl_demcmc_state now = {g + 1, S->x, S->lp, S->ll, S->z, S->zn};
    if ((st = c->checkpoint(c->checkpoint_ud, &now)))
        return sl_fail_context(st, "demcmc: checkpoint after generation %lld",
                               (long long)(g + 1));
    return SL_OK;
}

static sl_status generations(sampler *S, int64_t first)
{
    const sl_demcmc_config *c = S->c;
    const int64_t N = c->chains, h = N / 2;
    int64_t acc0 = 0;
    for (int64_t k = 0; k < c->generations; k++) {
        int64_t g = first + k;
        sl_status st = c->archive ? any_step(S, g, 0, 0, N) : any_step(S, g, 0, h, h);
        if (!st && !c->archive)
            st = any_step(S, g, h, 0, h);
        if (st)
            return st;
        int64_t every = c->burn / 10;
        if (c->outliers && k < c->burn && every > 0 && (k + 1) % every == 0) {
            if ((st = pull(S, 0)))
                return st;
            reset_outliers(S, g);
            if (S->dev && (st = sl__dm_dev_put(S->dev, S->x, S->lp, S->ll, NULL)))
                return st;
        }
        if (c->archive && (g + 1) % c->archive_every == 0 && (st = archive_add(S)))
            return st;
        S->res->generations = k + 1;
        S->res->proposals += N;
        if ((st = sl_cancel_check("demcmc")))
            return st;
        int ckpt = (c->checkpoint || c->draws) && c->checkpoint_every > 0 &&
                   (k + 1) % c->checkpoint_every == 0;
        int kept = k >= c->burn && (k - c->burn) % c->thin == 0;
        if ((ckpt || (kept && !S->dev)) && (st = pull(S, ckpt)))
            return st;
        if ((!S->dev || ckpt) && (st = check_generation(S, g)))
            return st;
        if (!ckpt && !kept && c->progress && S->dev &&
            (st = sl__dm_dev_get(S->dev, NULL, NULL, NULL, S->res->accepted)))
            return st;
        int done;
        if ((st = keep_and_check(S, k, &done)))
            return st;
        if (ckpt && (st = save_point(S, k, g)))
            return st;
        if (c->progress) {
            int64_t acc = 0;
            for (int64_t i = 0; i < N; i++)
                acc += S->res->accepted[i];
            sl_demcmc_progress p = {g + 1, first + c->generations,
                                    (double)(acc - acc0) / (double)N, S->res->rhat,
                                    S->res->ess};
            acc0 = acc;
            if (c->progress(c->progress_ud, &p))
                return sl_fail(SL_ERR_CANCELLED, "demcmc: cancelled by the progress function "
                               "after %lld generations", (long long)k + 1);
        }
        if (done)
            break;
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
    S.target = target, S.ud = target_ud, S.res = res, S.names = names;
    S.m = (sl_dm_move){c->seed, (uint64_t)n_params + (c->snooker > 0.0 ? 4 : 2), n_params, S.d,
                       c->gamma > 0.0 ? c->gamma : 2.38 / sqrt(2.0 * S.d), c->gamma1_every,
                       c->noise, c->snooker, priors};
    st = alloc_result(c, n_params, res);
    if (!st)
        st = alloc_sampler(&S);
    if (!st)
        st = start_chains(&S, start);
    if (!st && c->archive && S.zn == 0)
        st = archive_add(&S); /* the start */
    if (!st && c->device_target)
        st = device_open(&S);
    double t1 = now_s(), t2 = t1;
    if (!st) {
        st = generations(&S, first);
        t2 = now_s();
    }
    if (S.dev) {
        sl_status cl = device_close(&S);
        st = st ? st : cl;
    }
    if (!st)
        st = hand_draws(&S, res->kept);
    if (!st) {
        memcpy(res->last, S.x, (size_t)(c->chains * n_params) * sizeof(double));
        for (int64_t i = 0; i < c->chains; i++) {
            res->last_loglike[i] = S.ll[i];
            res->last_logpost[i] = S.lp[i] + S.ll[i];
        }
        res->archive = S.z, res->archive_rows = S.zn;
        S.z = NULL;
        add_warnings(&S);
    }
    free_sampler(&S);
    res->wall_s = now_s() - t0;
    res->setup_s = t1 - t0, res->finish_s = res->wall_s - (t2 - t0);
    if (st)
        sl_demcmc_result_free(res);
    return st;
}
