/* MCMC diagnostics (mcmc_diag.h): the estimators of Vehtari et al. (2021)
 * as Stan computes them; the autocovariances by FFT (FFTW). */
#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "starling/mcmc_diag.h"
#include "starling/nomem.h"
#include "starling/stats.h"

/* Draws of ch chains of n each, chain-major: x[c * n + t]. */
typedef struct chains {
    int64_t ch, n;
    double *x;
} chains;

typedef struct ranked {
    double v;
    int64_t i;
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    return a->v < b->v ? -1 : a->v > b->v ? 1 : (a->i > b->i) - (a->i < b->i);
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Quantile q of sorted v[0..n-1], linear between order statistics. */
static double quantile(const double *v, int64_t n, double q)
{
    double h = q * (double)(n - 1);
    int64_t lo = (int64_t)floor(h);
    if (lo >= n - 1)
        return v[n - 1];
    return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

/* In place: each draw replaced by the normal quantile of its average rank,
 * Phi^-1((r - 3/8) / (S + 1/4)). */
static sl_status rank_normalise(double *x, int64_t S)
{
    ranked *r = malloc((size_t)S * sizeof *r);
    if (!r)
        return sl_fail_nomem((double)S * sizeof *r, "mcmc diagnostics: ranks of %lld draws",
                             (long long)S);
    for (int64_t i = 0; i < S; i++)
        r[i].v = x[i], r[i].i = i;
    qsort(r, (size_t)S, sizeof *r, cmp_ranked);
    for (int64_t a = 0; a < S;) {
        int64_t b = a;
        while (b + 1 < S && r[b + 1].v == r[a].v)
            b++;
        double rank = 0.5 * (double)(a + b) + 1.0; /* ties share their mean rank */
        double z = sl_norm_quantile((rank - 0.375) / ((double)S + 0.25));
        for (int64_t k = a; k <= b; k++)
            x[r[k].i] = z;
        a = b + 1;
    }
    free(r);
    return SL_OK;
}

/* Chain means and the mean of the chains' variances (n - 1 denominators);
 * var_plus as in the papers: (n - 1) / n W + B / n. */
static void moments(const chains *c, double *means, double *W, double *var_plus)
{
    double w = 0.0, mm = 0.0;
    for (int64_t k = 0; k < c->ch; k++) {
        const double *x = c->x + k * c->n;
        double m = 0.0, v = 0.0;
        for (int64_t t = 0; t < c->n; t++)
            m += x[t];
        m /= (double)c->n;
        for (int64_t t = 0; t < c->n; t++)
            v += (x[t] - m) * (x[t] - m);
        means[k] = m;
        w += v / (double)(c->n - 1);
        mm += m;
    }
    *W = w / (double)c->ch;
    mm /= (double)c->ch;
    double b = 0.0;
    for (int64_t k = 0; k < c->ch && c->ch > 1; k++)
        b += (means[k] - mm) * (means[k] - mm) / (double)(c->ch - 1);
    *var_plus = *W * (double)(c->n - 1) / (double)c->n + b;
}

static double rhat(const chains *c, double *means)
{
    double W, vp;
    moments(c, means, &W, &vp);
    return W > 0.0 ? sqrt(vp / W) : NAN;
}

/* The mean over chains of each chain's biased autocovariance, lags 0..n-1,
 * into acov (FFT of each chain zero-padded to 2n). */
static sl_status mean_acov(const chains *c, const double *means, double *acov)
{
    const int64_t n = c->n, L = 2 * n;
    double *buf = fftw_malloc((size_t)L * sizeof(double));
    fftw_complex *f = fftw_malloc((size_t)(n + 1) * sizeof(fftw_complex));
    if (!buf || !f) {
        fftw_free(buf), fftw_free(f);
        return sl_fail_nomem((double)L * 2 * sizeof(double), "mcmc diagnostics: FFT of %lld "
                             "draws", (long long)n);
    }
    fftw_plan fw = fftw_plan_dft_r2c_1d((int)L, buf, f, FFTW_ESTIMATE);
    fftw_plan bw = fftw_plan_dft_c2r_1d((int)L, f, buf, FFTW_ESTIMATE);
    memset(acov, 0, (size_t)n * sizeof *acov);
    for (int64_t k = 0; k < c->ch; k++) {
        for (int64_t t = 0; t < L; t++)
            buf[t] = t < n ? c->x[k * n + t] - means[k] : 0.0;
        fftw_execute(fw);
        for (int64_t j = 0; j <= n; j++) {
            f[j][0] = f[j][0] * f[j][0] + f[j][1] * f[j][1];
            f[j][1] = 0.0;
        }
        fftw_execute(bw);
        for (int64_t t = 0; t < n; t++) /* FFTW's inverse is L times the true one */
            acov[t] += buf[t] / ((double)L * (double)n * (double)c->ch);
    }
    fftw_destroy_plan(fw), fftw_destroy_plan(bw);
    fftw_free(buf), fftw_free(f);
    return SL_OK;
}

/* ESS: Geyer's initial monotone sequence on the multi-chain
 * autocorrelations, with the antithetic improvement, indexed as ArviZ
 * (0.23) does. */
static sl_status ess(const chains *c, double *means, double *acov, double *rho, double *out)
{
    const int64_t n = c->n;
    double W, vp;
    moments(c, means, &W, &vp);
    if (!(W > 0.0)) {
        *out = NAN;
        return SL_OK;
    }
    sl_status st = mean_acov(c, means, acov);
    if (st)
        return st;
    memset(rho, 0, (size_t)(n + 2) * sizeof *rho);
    double even = 1.0, odd = 1.0 - (W - acov[1]) / vp;
    rho[0] = even, rho[1] = odd;
    int64_t s = 1;
    while (s < n - 3 && even + odd > 0.0) {
        even = 1.0 - (W - acov[s + 1]) / vp;
        odd = 1.0 - (W - acov[s + 2]) / vp;
        if (even + odd >= 0.0)
            rho[s + 1] = even, rho[s + 2] = odd;
        s += 2;
    }
    int64_t max_s = s - 2; /* the last pair kept starts at max_s + 1 */
    if (even > 0.0)
        rho[max_s + 1] = even;
    for (int64_t k = 1; k <= max_s - 2; k += 2)
        if (rho[k + 1] + rho[k + 2] > rho[k - 1] + rho[k]) {
            rho[k + 1] = 0.5 * (rho[k - 1] + rho[k]);
            rho[k + 2] = rho[k + 1];
        }
    double total = (double)c->ch * (double)n, tau = -1.0 + rho[max_s + 1];
    for (int64_t k = 0; k <= max_s; k++)
        tau += 2.0 * rho[k];
    tau = fmax(tau, 1.0 / log10(total));
    *out = total / tau;
    return SL_OK;
}

typedef struct work {
    chains split;       /* the split chains, as drawn */
    chains z;           /* a transformed copy */
    double *means, *acov, *rho, *sorted;
} work;

static void work_free(work *w)
{
    free(w->split.x), free(w->z.x), free(w->means), free(w->acov), free(w->rho), free(w->sorted);
}

static sl_status work_alloc(work *w, int64_t n, int64_t m)
{
    memset(w, 0, sizeof *w);
    int64_t h = n / 2, S = 2 * m * h;
    w->split = (chains){2 * m, h, malloc((size_t)S * sizeof(double))};
    w->z = (chains){2 * m, h, malloc((size_t)S * sizeof(double))};
    w->means = malloc((size_t)(2 * m) * sizeof(double));
    w->acov = malloc((size_t)h * sizeof(double));
    w->rho = malloc((size_t)(h + 2) * sizeof(double));
    w->sorted = malloc((size_t)(n * m) * sizeof(double));
    if (!w->split.x || !w->z.x || !w->means || !w->acov || !w->rho || !w->sorted) {
        work_free(w);
        return sl_fail_nomem((double)(3 * n * m) * sizeof(double), "mcmc diagnostics: %lld "
                             "draws of %lld chains", (long long)n, (long long)m);
    }
    return SL_OK;
}

/* The pooled summary and the split chains (first and last n/2 draws). */
static void gather(work *w, const double *x, int64_t n, int64_t m, int64_t step_t,
                   int64_t step_c, sl_mcmc_diag *out)
{
    int64_t h = n / 2;
    double sum = 0.0;
    for (int64_t c = 0; c < m; c++)
        for (int64_t t = 0; t < n; t++) {
            double v = x[t * step_t + c * step_c];
            w->sorted[c * n + t] = v;
            sum += v;
            if (t < h)
                w->split.x[(2 * c) * h + t] = v;
            if (t >= n - h)
                w->split.x[(2 * c + 1) * h + t - (n - h)] = v;
        }
    int64_t S = n * m;
    out->mean = sum / (double)S;
    double v2 = 0.0;
    for (int64_t i = 0; i < S; i++)
        v2 += (w->sorted[i] - out->mean) * (w->sorted[i] - out->mean);
    out->sd = S > 1 ? sqrt(v2 / (double)(S - 1)) : 0.0;
    qsort(w->sorted, (size_t)S, sizeof(double), cmp_double);
    out->q16 = quantile(w->sorted, S, 0.16);
    out->q50 = quantile(w->sorted, S, 0.50);
    out->q84 = quantile(w->sorted, S, 0.84);
}

/* ESS of the indicator I(x <= q) of the split chains. */
static sl_status ess_indicator(work *w, double q, double *out)
{
    int64_t S = w->split.ch * w->split.n;
    for (int64_t i = 0; i < S; i++)
        w->z.x[i] = w->split.x[i] <= q ? 1.0 : 0.0;
    return ess(&w->z, w->means, w->acov, w->rho, out);
}

sl_status sl_mcmc_diagnose(const double *x, int64_t n, int64_t m, int64_t step_t,
                           int64_t step_c, sl_mcmc_diag *out)
{
    memset(out, 0, sizeof *out);
    if (n < 4 || m < 1)
        return sl_fail(SL_ERR_ARG, "mcmc diagnostics: %lld draws of %lld chains: expected at "
                       "least 4 draws and one chain", (long long)n, (long long)m);
    work w;
    sl_status st = work_alloc(&w, n, m);
    if (st)
        return st;
    gather(&w, x, n, m, step_t, step_c, out);
    int64_t S = w.split.ch * w.split.n;
    double r_bulk, r_fold, e5, e95;
    /* bulk: rank-normalised draws */
    memcpy(w.z.x, w.split.x, (size_t)S * sizeof(double));
    st = rank_normalise(w.z.x, S);
    if (!st) {
        r_bulk = rhat(&w.z, w.means);
        st = ess(&w.z, w.means, w.acov, w.rho, &out->ess_bulk);
    }
    /* tails: the folded draws' R-hat, the quantile indicators' ESS */
    if (!st) {
        for (int64_t i = 0; i < S; i++)
            w.z.x[i] = fabs(w.split.x[i] - out->q50);
        st = rank_normalise(w.z.x, S);
    }
    if (!st) {
        r_fold = rhat(&w.z, w.means);
        out->rhat = isnan(r_bulk) || isnan(r_fold) ? NAN : fmax(r_bulk, r_fold);
        st = ess_indicator(&w, quantile(w.sorted, n * m, 0.05), &e5);
    }
    if (!st)
        st = ess_indicator(&w, quantile(w.sorted, n * m, 0.95), &e95);
    if (!st) {
        out->ess_tail = isnan(e5) || isnan(e95) ? NAN : fmin(e5, e95);
        double e_raw;
        st = ess(&w.split, w.means, w.acov, w.rho, &e_raw);
        out->tau = st ? NAN : (double)S / e_raw;
    }
    if (!(out->sd > 0.0))
        out->rhat = out->ess_bulk = out->ess_tail = out->tau = NAN;
    work_free(&w);
    return st;
}
