/* The DE-MCMC sampler on the host: known posteriors recovered, the priors'
 * support respected, NaN counted, reproducible and resumable bit for bit,
 * bad settings refused before work. */
#include "sl_test.h"
#include "starling/demcmc.h"
#include "starling/mcmc_diag.h"
#include "starling/stats.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- targets ------------------------------------------------------------------ */

/* A correlated Gaussian: zero mean, covariance C_ij = s_i s_j rho^|i-j|,
 * through its precision matrix. */
typedef struct gauss {
    int d;
    double prec[30 * 30], cov[30 * 30];
    int64_t calls;
} gauss;

/* Gauss-Jordan inverse of the d x d matrix a into inv. */
static void invert(int d, const double *a, double *inv)
{
    double m[30 * 60];
    for (int i = 0; i < d; i++)
        for (int j = 0; j < 2 * d; j++)
            m[i * 2 * d + j] = j < d ? a[i * d + j] : (j - d == i);
    for (int c = 0; c < d; c++) {
        int p = c;
        for (int r = c + 1; r < d; r++)
            if (fabs(m[r * 2 * d + c]) > fabs(m[p * 2 * d + c]))
                p = r;
        for (int j = 0; j < 2 * d; j++) {
            double t = m[c * 2 * d + j];
            m[c * 2 * d + j] = m[p * 2 * d + j];
            m[p * 2 * d + j] = t;
        }
        double piv = m[c * 2 * d + c];
        for (int j = 0; j < 2 * d; j++)
            m[c * 2 * d + j] /= piv;
        for (int r = 0; r < d; r++)
            if (r != c) {
                double f = m[r * 2 * d + c];
                for (int j = 0; j < 2 * d; j++)
                    m[r * 2 * d + j] -= f * m[c * 2 * d + j];
            }
    }
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
            inv[i * d + j] = m[i * 2 * d + d + j];
}

static void gauss_init(gauss *g, int d, double rho)
{
    memset(g, 0, sizeof *g);
    g->d = d;
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            double si = 1.0 + i, sj = 1.0 + j; /* scales 1..d */
            g->cov[i * d + j] = si * sj * pow(rho, abs(i - j));
        }
    invert(d, g->cov, g->prec);
}

static sl_status gauss_ll(void *ud, const double *p, int64_t n, double *out)
{
    gauss *g = ud;
    g->calls++;
    for (int64_t r = 0; r < n; r++) {
        const double *x = p + r * g->d;
        double q = 0.0;
        for (int i = 0; i < g->d; i++)
            for (int j = i > 0 ? i - 1 : 0; j <= i + 1 && j < g->d; j++)
                q += x[i] * g->prec[i * g->d + j] * x[j]; /* tridiagonal (AR(1) form) */
        out[r] = -0.5 * q;
    }
    return SL_OK;
}

static void wide_uniform(sl_prior *pr, int d, double half)
{
    for (int k = 0; k < d; k++)
        pr[k] = (sl_prior){.kind = SL_PRIOR_UNIFORM, .lo = -half, .hi = half};
}

/* The sampler's variant: DE-MCz, the snooker's probability. */
typedef struct variant {
    int archive;
    double snooker;
} variant;

/* Posterior mean within 5 Monte-Carlo errors (sd / sqrt(ESS)), variances
 * and correlations within 10 %, R-hat < 1.01, for every parameter. */
static void recovers_gaussian_as(int d, int64_t chains, int64_t generations, int64_t thin,
                                 variant v)
{
    gauss g;
    gauss_init(&g, d, 0.8);
    sl_prior pr[30];
    wide_uniform(pr, d, 200.0);
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = chains, c.generations = generations, c.burn = generations / 2, c.seed = 11;
    c.thin = thin;
    c.archive = v.archive, c.snooker = v.snooker;
    sl_demcmc_result r;
    SLT_OK(sl_demcmc_run(&c, d, pr, NULL, gauss_ll, &g, NULL, 0, &r));
    cr_assert_eq(r.kept, (generations - c.burn + thin - 1) / thin);
    const int64_t K = r.kept, N = r.chains, S = K * N;
    for (int i = 0; i < d; i++) {
        sl_mcmc_diag di;
        SLT_OK(sl_mcmc_diagnose(r.samples + i, K, N, N * d, d, &di));
        double sd = sqrt(g.cov[i * d + i]);
        cr_assert(di.rhat < 1.01, "d %d, parameter %d: R-hat %g", d, i + 1, di.rhat);
        cr_assert(fabs(di.mean) < 5.0 * sd / sqrt(di.ess_bulk), "d %d, parameter %d: mean %g, "
                  "sd %g, ESS %g", d, i + 1, di.mean, sd, di.ess_bulk);
        cr_assert(fabs(di.sd / sd - 1.0) < 0.1, "d %d, parameter %d: sd %g, expected %g", d,
                  i + 1, di.sd, sd);
        if (i + 1 < d) { /* the neighbour's correlation: 0.8 */
            double cxy = 0.0, mx = 0.0, my = 0.0;
            for (int64_t k = 0; k < S; k++)
                mx += r.samples[k * d + i] / S, my += r.samples[k * d + i + 1] / S;
            for (int64_t k = 0; k < S; k++)
                cxy += (r.samples[k * d + i] - mx) * (r.samples[k * d + i + 1] - my) / S;
            double want = g.cov[i * d + i + 1];
            cr_assert(fabs(cxy / want - 1.0) < 0.1, "d %d, cov(%d, %d): %g, expected %g", d,
                      i + 1, i + 2, cxy, want);
        }
    }
    int64_t acc = 0;
    for (int64_t i = 0; i < N; i++)
        acc += r.accepted[i];
    cr_assert(acc > 0.05 * (double)r.proposals, "acceptance %g", (double)acc / r.proposals);
    int64_t per = v.archive ? 1 : 2; /* DE-MCz: all chains at once */
    cr_assert(g.calls <= 1 + per * generations && g.calls > generations, "%lld calls: one "
              "batched call a half (DE-MCz: a generation), unless the priors refused all, and "
              "the start's", (long long)g.calls);
    if (v.archive)
        cr_assert_eq(r.archive_rows, chains * (1 + generations / 10), "the start and every "
                     "10th generation");
    sl_demcmc_result_free(&r);
}

static void recovers_gaussian(int d, int64_t chains, int64_t generations, int64_t thin)
{
    recovers_gaussian_as(d, chains, generations, thin, (variant){0, 0.0});
}

Test(demcmc, correlated_gaussian_d2) { recovers_gaussian(2, 16, 4000, 1); }
Test(demcmc, correlated_gaussian_d10) { recovers_gaussian(10, 40, 20000, 5); }
Test(demcmc, correlated_gaussian_d30, .timeout = 300) { recovers_gaussian(30, 90, 30000, 10); }

/* DE-MCz: fewer chains than 2 d are enough with an archive to draw from
 * (ter Braak & Vrugt 2008 ran 3), but the check keeps N >= 2 d. */
Test(demcmc, dez_correlated_gaussian_d2) { recovers_gaussian_as(2, 8, 8000, 1, (variant){1, 0}); }
Test(demcmc, dez_correlated_gaussian_d10)
{
    recovers_gaussian_as(10, 20, 40000, 5, (variant){1, 0.0});
}

/* The snooker update needs its Jacobian factor (|x* - z| / |x - z|)^(d - 1):
 * without it the variances in d = 5 come out far too small. */
Test(demcmc, snooker_correlated_gaussian_d5)
{
    recovers_gaussian_as(5, 20, 20000, 2, (variant){0, 0.5});
}
Test(demcmc, dez_snooker_correlated_gaussian_d5)
{
    recovers_gaussian_as(5, 10, 40000, 2, (variant){1, 0.5});
}

/* A Rosenbrock banana, exp(-(1 - x)^2 / 2 - 5 (y - x^2)^2): x ~ N(1, 1)
 * and y | x ~ N(x^2, 0.1), so E x = 1, Var x = 1, E y = E x^2 = 2, Var y =
 * Var x^2 + 0.1 = 6.1 and Cov(x, y) = E x^3 - E x E x^2 = 2. */
static sl_status banana_ll(void *ud, const double *p, int64_t n, double *out)
{
    (void)ud;
    for (int64_t r = 0; r < n; r++) {
        double x = p[2 * r], y = p[2 * r + 1];
        out[r] = -0.5 * (1.0 - x) * (1.0 - x) - 5.0 * (y - x * x) * (y - x * x);
    }
    return SL_OK;
}

Test(demcmc, banana)
{
    sl_prior pr[2] = {{.kind = SL_PRIOR_UNIFORM, .lo = -20, .hi = 20},
                      {.kind = SL_PRIOR_UNIFORM, .lo = -20, .hi = 400}};
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = 64, c.generations = 30000, c.burn = 5000, c.thin = 5, c.seed = 3;
    sl_demcmc_result r;
    SLT_OK(sl_demcmc_run(&c, 2, pr, NULL, banana_ll, NULL, NULL, 0, &r));
    sl_mcmc_diag dx, dy;
    SLT_OK(sl_mcmc_diagnose(r.samples, r.kept, r.chains, r.chains * 2, 2, &dx));
    SLT_OK(sl_mcmc_diagnose(r.samples + 1, r.kept, r.chains, r.chains * 2, 2, &dy));
    cr_assert(dx.rhat < 1.01 && dy.rhat < 1.01, "R-hat %g, %g", dx.rhat, dy.rhat);
    cr_assert(fabs(dx.mean - 1.0) < 5.0 / sqrt(dx.ess_bulk), "E x %g (ESS %g)", dx.mean,
              dx.ess_bulk);
    cr_assert(fabs(dy.mean - 2.0) < 5.0 * sqrt(6.1 / dy.ess_bulk), "E y %g (ESS %g)", dy.mean,
              dy.ess_bulk);
    cr_assert(fabs(dx.sd * dx.sd - 1.0) < 0.1, "Var x %g, expected 1", dx.sd * dx.sd);
    cr_assert(fabs(dy.sd * dy.sd / 6.1 - 1.0) < 0.15, "Var y %g, expected 6.1", dy.sd * dy.sd);
    double cxy = 0.0;
    int64_t S = r.kept * r.chains;
    for (int64_t k = 0; k < S; k++)
        cxy += (r.samples[2 * k] - dx.mean) * (r.samples[2 * k + 1] - dy.mean) / (double)S;
    cr_assert(fabs(cxy / 2.0 - 1.0) < 0.15, "Cov(x, y) %g, expected 2", cxy);
    sl_demcmc_result_free(&r);
}

/* ---- the priors' support, NaN, periodic and fixed parameters ----------------- */

typedef struct watch {
    const sl_prior *pr;
    int d;
    int64_t outside, rows;
} watch;

/* A unit normal about 0.9 per parameter, recording rows outside the priors,
 * NaN where x_0 > 0.95. */
static sl_status watched_ll(void *ud, const double *p, int64_t n, double *out)
{
    watch *w = ud;
    for (int64_t r = 0; r < n; r++) {
        double q = 0.0;
        for (int k = 0; k < w->d; k++) {
            double x = p[r * w->d + k];
            w->outside += sl_prior_logpdf(&w->pr[k], x) == -INFINITY;
            q += (x - 0.9) * (x - 0.9);
        }
        out[r] = p[r * w->d] > 0.95 ? NAN : -0.5 * q / 0.01;
    }
    w->rows += n;
    return SL_OK;
}

Test(demcmc, support_and_nan)
{
    sl_prior pr[3] = {{.kind = SL_PRIOR_UNIFORM, .lo = 0, .hi = 1},
                      {.kind = SL_PRIOR_TRUNC_NORMAL, .lo = 0.5, .hi = 1, .mu = 1, .sigma = 1},
                      {.kind = SL_PRIOR_FIXED, .value = 0.25}};
    watch w = {pr, 3, 0, 0};
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = 8, c.generations = 2000;
    sl_demcmc_result r;
    SLT_OK(sl_demcmc_run(&c, 3, pr, NULL, watched_ll, &w, NULL, 0, &r));
    cr_assert_eq(w.outside, 0, "%lld rows outside the priors reached the likelihood",
                 (long long)w.outside);
    cr_assert(r.outside > 0, "no proposal left the support: the test shows nothing");
    cr_assert(r.nan > 0, "no NaN met");
    cr_assert_eq(r.evaluations, w.rows);
    cr_assert_eq(r.evaluations + r.outside, r.proposals + r.chains, "every proposal evaluated "
                 "or refused by the priors");
    for (int64_t k = 0; k < r.kept * r.chains; k++) {
        const double *x = r.samples + 3 * k;
        cr_assert(x[0] >= 0 && x[0] <= 0.95 && x[1] >= 0.5 && x[1] <= 1 && x[2] == 0.25,
                  "sample %lld: %g %g %g", (long long)k, x[0], x[1], x[2]);
        cr_assert(isfinite(r.loglike[k]));
    }
    sl_demcmc_result_free(&r);
}

/* A von Mises density about 0.1 on a periodic [0, 2 pi): chains cross the
 * boundary and the circular mean comes out 0.1. */
static sl_status circle_ll(void *ud, const double *p, int64_t n, double *out)
{
    (void)ud;
    for (int64_t r = 0; r < n; r++)
        out[r] = 4.0 * cos(p[r] - 0.1);
    return SL_OK;
}

Test(demcmc, periodic_parameter_wraps)
{
    const double two_pi = 6.283185307179586;
    sl_prior pr[1] = {{.kind = SL_PRIOR_UNIFORM, .lo = 0, .hi = two_pi, .periodic = 1}};
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = 16, c.generations = 4000, c.burn = 1000;
    sl_demcmc_result r;
    SLT_OK(sl_demcmc_run(&c, 1, pr, NULL, circle_ll, NULL, NULL, 0, &r));
    double sx = 0, sy = 0;
    int64_t low = 0, high = 0, S = r.kept * r.chains;
    for (int64_t k = 0; k < S; k++) {
        double x = r.samples[k];
        cr_assert(x >= 0 && x < two_pi, "%g", x);
        sx += cos(x), sy += sin(x);
        low += x < 1.0, high += x > two_pi - 1.0;
    }
    cr_assert(low > S / 10 && high > S / 10, "both sides of 0: %lld, %lld", (long long)low,
              (long long)high);
    cr_assert(fabs(atan2(sy, sx) - 0.1) < 0.02, "circular mean %g", atan2(sy, sx));
    cr_assert_eq(r.outside, 0, "a periodic prior has no outside");
    sl_demcmc_result_free(&r);
}

/* ---- reproducibility --------------------------------------------------------- */

static void run_gauss(uint64_t seed, int64_t gens, const double *start, int64_t first,
                      sl_demcmc_result *r)
{
    static gauss g;
    gauss_init(&g, 3, 0.5);
    sl_prior pr[3];
    wide_uniform(pr, 3, 20.0);
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = 12, c.generations = gens, c.seed = seed;
    SLT_OK(sl_demcmc_run(&c, 3, pr, NULL, gauss_ll, &g, start, first, r));
}

Test(demcmc, same_seed_same_chains_and_resume)
{
    sl_demcmc_result a, b, d, first, rest;
    run_gauss(7, 300, NULL, 0, &a);
    run_gauss(7, 300, NULL, 0, &b);
    run_gauss(8, 300, NULL, 0, &d);
    size_t bytes = (size_t)(a.kept * a.chains * 3) * sizeof(double);
    cr_assert(!memcmp(a.samples, b.samples, bytes), "seed 7 twice: different chains");
    cr_assert(memcmp(a.samples, d.samples, bytes), "seeds 7 and 8: the same chains");
    /* 100 generations, then 200 more from where they stopped */
    run_gauss(7, 100, NULL, 0, &first);
    run_gauss(7, 200, first.last, 100, &rest);
    size_t gen = (size_t)(a.chains * 3) * sizeof(double);
    cr_assert(!memcmp(first.samples, a.samples, 100 * gen), "the first 100 generations");
    cr_assert(!memcmp(rest.samples, a.samples + 100 * a.chains * 3, 200 * gen),
              "resumed: not the one run's generations 101..300");
    cr_assert(!memcmp(rest.last_logpost, a.last_logpost, (size_t)a.chains * sizeof(double)));
    sl_demcmc_result_free(&a), sl_demcmc_result_free(&b), sl_demcmc_result_free(&d);
    sl_demcmc_result_free(&first), sl_demcmc_result_free(&rest);
}

/* DE-MCz goes on with the archive it had: 100 + 200 generations are the
 * 300 of one run, bit for bit, snooker included. */
Test(demcmc, dez_resumes_with_its_archive)
{
    gauss g;
    gauss_init(&g, 3, 0.5);
    sl_prior pr[3];
    wide_uniform(pr, 3, 20.0);
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = 6, c.seed = 5, c.archive = 1, c.archive_every = 7, c.snooker = 0.2;
    sl_demcmc_result a, first, rest;
    c.generations = 300;
    SLT_OK(sl_demcmc_run(&c, 3, pr, NULL, gauss_ll, &g, NULL, 0, &a));
    c.generations = 100;
    SLT_OK(sl_demcmc_run(&c, 3, pr, NULL, gauss_ll, &g, NULL, 0, &first));
    cr_assert_eq(first.archive_rows, 6 * (1 + 100 / 7));
    c.generations = 200;
    c.archive_start = first.archive, c.archive_start_rows = first.archive_rows;
    SLT_OK(sl_demcmc_run(&c, 3, pr, NULL, gauss_ll, &g, first.last, 100, &rest));
    size_t gen = 6 * 3 * sizeof(double);
    cr_assert(!memcmp(rest.samples, a.samples + 100 * 6 * 3, 200 * gen),
              "resumed: not the one run's generations 101..300");
    cr_assert_eq(rest.archive_rows, a.archive_rows);
    cr_assert(!memcmp(rest.archive, a.archive, (size_t)a.archive_rows * 3 * sizeof(double)));
    /* without its archive the resumed run is another (valid) chain */
    c.archive_start = NULL, c.archive_start_rows = 0;
    sl_demcmc_result other;
    SLT_OK(sl_demcmc_run(&c, 3, pr, NULL, gauss_ll, &g, first.last, 100, &other));
    cr_assert(memcmp(other.samples, rest.samples, 200 * gen));
    sl_demcmc_result_free(&a), sl_demcmc_result_free(&first), sl_demcmc_result_free(&rest);
    sl_demcmc_result_free(&other);
}

/* ---- stopping rule ----------------------------------------------------------- */

/* Asked for R-hat < 1.01 and ESS > 400, a run of 20000 generations stops
 * at the first check that meets both, the same one for the same seed; the
 * draws it kept meet them, and those kept one check earlier did not. */
Test(demcmc, stops_once_converged)
{
    gauss g;
    gauss_init(&g, 4, 0.8);
    sl_prior pr[4];
    wide_uniform(pr, 4, 50.0);
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = 16, c.generations = 20000, c.burn = 500, c.seed = 3;
    c.stop_rhat = 1.01, c.stop_ess = 400, c.stop_every = 50;
    sl_demcmc_result r, again;
    SLT_OK(sl_demcmc_run(&c, 4, pr, NULL, gauss_ll, &g, NULL, 0, &r));
    SLT_OK(sl_demcmc_run(&c, 4, pr, NULL, gauss_ll, &g, NULL, 0, &again));
    cr_assert(r.converged, "never converged in 20000 generations");
    cr_assert(r.generations < 5000, "stopped after %lld generations", (long long)r.generations);
    cr_assert_eq(r.generations, again.generations, "the same seed, another stop");
    cr_assert_eq(r.kept, r.generations - c.burn);
    cr_assert_eq(r.kept % 50, 0, "checked every 50 kept generations: %lld", (long long)r.kept);
    double worst_rhat = 0, worst_ess = INFINITY, prev_rhat = 0, prev_ess = INFINITY;
    for (int k = 0; k < 4; k++) {
        sl_mcmc_diag d, p;
        SLT_OK(sl_mcmc_diagnose(r.samples + k, r.kept, 16, 64, 4, &d));
        SLT_OK(sl_mcmc_diagnose(r.samples + k, r.kept - 50, 16, 64, 4, &p));
        worst_rhat = fmax(worst_rhat, d.rhat), prev_rhat = fmax(prev_rhat, p.rhat);
        worst_ess = fmin(worst_ess, fmin(d.ess_bulk, d.ess_tail));
        prev_ess = fmin(prev_ess, fmin(p.ess_bulk, p.ess_tail));
    }
    cr_assert(worst_rhat < 1.01 && worst_ess > 400, "R-hat %g, ESS %g", worst_rhat, worst_ess);
    cr_assert_float_eq(r.rhat, worst_rhat, 1e-12);
    cr_assert_float_eq(r.ess, worst_ess, 1e-9);
    cr_assert(!(prev_rhat < 1.01 && prev_ess > 400), "met one check earlier: R-hat %g, ESS %g",
              prev_rhat, prev_ess);
    /* a target out of reach runs every generation asked */
    c.generations = 2000, c.stop_ess = 1e9;
    sl_demcmc_result all;
    SLT_OK(sl_demcmc_run(&c, 4, pr, NULL, gauss_ll, &g, NULL, 0, &all));
    cr_assert(!all.converged);
    cr_assert_eq(all.generations, 2000);
    cr_assert_eq(all.kept, 1500);
    cr_assert(all.rhat < 1.1 && isfinite(all.ess), "the last check's figures: %g %g", all.rhat,
              all.ess);
    sl_demcmc_result_free(&r), sl_demcmc_result_free(&again), sl_demcmc_result_free(&all);
}

/* The chains do not depend on how many threads share a generation. */
Test(demcmc, same_chains_on_any_thread_count)
{
#ifdef _OPENMP
    sl_demcmc_result a, b;
    int was = omp_get_max_threads();
    omp_set_num_threads(1);
    run_gauss(9, 200, NULL, 0, &a);
    omp_set_num_threads(3);
    run_gauss(9, 200, NULL, 0, &b);
    omp_set_num_threads(was);
    cr_assert(!memcmp(a.samples, b.samples, (size_t)(a.kept * a.chains * 3) * sizeof(double)));
    cr_assert(!memcmp(a.accepted, b.accepted, (size_t)a.chains * sizeof(int64_t)));
    sl_demcmc_result_free(&a), sl_demcmc_result_free(&b);
#else
    cr_skip_test("built without OpenMP");
#endif
}

/* ---- priors ------------------------------------------------------------------ */

Test(demcmc, prior_draws)
{
    sl_prior lu = {.kind = SL_PRIOR_LOG_UNIFORM, .lo = 0.01, .hi = 100};
    sl_prior tn = {.kind = SL_PRIOR_TRUNC_NORMAL, .lo = 1, .hi = 3, .mu = 0, .sigma = 1};
    sl_rng r;
    sl_rng_init(&r, 1, 0);
    int below1 = 0;
    double m = 0.0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        double u1 = sl_rng_uniform(&r), u2 = sl_rng_uniform(&r);
        double a = sl_prior_draw(&lu, u1, u2), b = sl_prior_draw(&tn, u1, u2);
        cr_assert(a >= 0.01 && a <= 100 && b >= 1 && b <= 3, "%g %g", a, b);
        below1 += a < 1.0;
        m += b / n;
    }
    /* log-uniform: half the draws below the geometric middle, 1 */
    cr_assert(abs(below1 - n / 2) < 1000, "%d of %d below 1", below1, n);
    /* N(0, 1) cut to [1, 3]: mean (phi(1) - phi(3)) / (Phi(3) - Phi(1)) = 1.5101 */
    cr_assert(fabs(m - 1.51008) < 0.005, "truncated normal mean %g", m);
    cr_assert_eq(sl_prior_logpdf(&lu, 200.0), -INFINITY);
    cr_assert(fabs(sl_prior_logpdf(&lu, 2.0) + log(2.0)) < 1e-15);
    sl_prior per = {.kind = SL_PRIOR_UNIFORM, .lo = -1, .hi = 1, .periodic = 1};
    cr_assert(fabs(sl_prior_wrap(&per, 1.5) + 0.5) < 1e-15 &&
              fabs(sl_prior_wrap(&per, -3.25) - 0.75) < 1e-15);
}

/* ---- a flat likelihood returns the prior ---------------------------------------- */

static sl_status flat_ll(void *ud, const double *p, int64_t n, double *out)
{
    (void)ud, (void)p;
    for (int64_t r = 0; r < n; r++)
        out[r] = 0.0;
    return SL_OK;
}

static int cmp_dbl(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* ln Phi(z) for the tests' CDFs, written apart from the library's: erfc
 * above -30, below it the Mills ratio to its 1/z^4 term (relative error
 * 15 / z^6 < 2e-8). */
static double t_log_phi(double z)
{
    if (z > -30.0)
        return log(0.5 * erfc(-z / sqrt(2.0)));
    double t = 1.0 / (z * z);
    return -0.5 * z * z - log(-z) - 0.91893853320467274 + log(1.0 - t + 3.0 * t * t);
}

/* The prior's CDF at x. */
static double prior_cdf(const sl_prior *p, double x)
{
    switch (p->kind) {
    case SL_PRIOR_UNIFORM:
        return (x - p->lo) / (p->hi - p->lo);
    case SL_PRIOR_LOG_UNIFORM:
        return log(x / p->lo) / log(p->hi / p->lo);
    case SL_PRIOR_NORMAL:
        return 0.5 * erfc(-(x - p->mu) / (p->sigma * sqrt(2.0)));
    default: { /* truncated normal, mirrored so that its interval leans below the mean */
        double a = (p->lo - p->mu) / p->sigma, b = (p->hi - p->mu) / p->sigma;
        double z = (x - p->mu) / p->sigma;
        int up = a + b > 0.0;
        double lo = up ? -b : a, hi = up ? -a : b, w = up ? -z : z;
        double fa = exp(t_log_phi(lo) - t_log_phi(hi)), fw = exp(t_log_phi(w) - t_log_phi(hi));
        double f = (fw - fa) / (1.0 - fa); /* P(X <= x), mirrored: P(X >= x) */
        return up ? 1.0 - f : f;
    }
    }
}

/* Under a flat likelihood the posterior is the prior: the pooled kept
 * draws pass a Kolmogorov-Smirnov test against the prior's CDF. The draws
 * are autocorrelated, so the test's n is the effective sample size (the
 * smaller of the bulk and tail ESS, the conservative one), and the
 * threshold is the KS critical value at alpha = 0.001, sqrt(ln(2 / alpha)
 * / 2) / sqrt(n) = 1.95 / sqrt(ESS). The seed is fixed, so the outcome
 * is too; a correct sampler fails it once in a thousand seeds, a start on
 * one point (D near 1) always. */
static void flat_returns_prior(const char *what, sl_prior p)
{
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = 16, c.generations = 3000, c.burn = 500, c.seed = 7;
#ifdef _OPENMP
    omp_set_num_threads(1); /* the chains are the same on any count; 8 chains a half are */
                            /* too few to share, and a busy machine's spinning threads */
                            /* would slow the test a hundredfold */
#endif
    sl_demcmc_result r;
    SLT_OK(sl_demcmc_run(&c, 1, &p, NULL, flat_ll, NULL, NULL, 0, &r));
    const int64_t n = r.kept * r.chains;
    sl_mcmc_diag dg;
    SLT_OK(sl_mcmc_diagnose(r.samples, r.kept, r.chains, r.chains, 1, &dg));
    double ess = fmin(dg.ess_bulk, dg.ess_tail);
    cr_assert(ess > 100.0, "%s: ESS %g (bulk %g, tail %g): the chains hardly move", what, ess,
              dg.ess_bulk, dg.ess_tail);
    double *x = malloc((size_t)n * sizeof *x);
    cr_assert(x);
    memcpy(x, r.samples, (size_t)n * sizeof *x);
    qsort(x, (size_t)n, sizeof *x, cmp_dbl);
    double dmax = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double f = prior_cdf(&p, x[i]);
        dmax = fmax(dmax, fmax(fabs(f - (double)i / n), fabs(f - (double)(i + 1) / n)));
    }
    double crit = sqrt(log(2.0 / 0.001) / 2.0) / sqrt(ess);
    cr_assert(dmax < crit, "%s: KS D = %g over %lld draws (ESS %g): above %g; median %.10g, "
              "range [%.10g, %.10g]", what, dmax, (long long)n, ess, crit, x[n / 2], x[0],
              x[n - 1]);
    free(x);
    sl_demcmc_result_free(&r);
}

Test(demcmc_flat, uniform)
{
    flat_returns_prior("uniform", (sl_prior){.kind = SL_PRIOR_UNIFORM, .lo = -2, .hi = 3});
}
Test(demcmc_flat, periodic_uniform)
{
    flat_returns_prior("periodic uniform", (sl_prior){.kind = SL_PRIOR_UNIFORM, .lo = 0,
                                                      .hi = 6.283185307179586, .periodic = 1});
}
Test(demcmc_flat, log_uniform)
{
    flat_returns_prior("log_uniform", (sl_prior){.kind = SL_PRIOR_LOG_UNIFORM, .lo = 0.1,
                                                 .hi = 100});
}
Test(demcmc_flat, normal)
{
    flat_returns_prior("normal", (sl_prior){.kind = SL_PRIOR_NORMAL, .mu = 3, .sigma = 0.5});
}
Test(demcmc_flat, truncated_normal)
{
    flat_returns_prior("truncated_normal", (sl_prior){.kind = SL_PRIOR_TRUNC_NORMAL, .mu = 0,
                                                      .sigma = 0.3, .lo = 0, .hi = 0.95});
}
/* The mean 410 sigma above the upper bound: the prior is a sliver of
 * width ~sigma / 410 at 0.9 (median 0.89998). */
Test(demcmc_flat, truncated_normal_far_above)
{
    flat_returns_prior("truncated_normal far above", (sl_prior){.kind = SL_PRIOR_TRUNC_NORMAL,
                       .mu = 5, .sigma = 0.01, .lo = 0, .hi = 0.9});
}
Test(demcmc_flat, truncated_normal_far_below)
{
    flat_returns_prior("truncated_normal far below", (sl_prior){.kind = SL_PRIOR_TRUNC_NORMAL,
                       .mu = -3, .sigma = 0.2, .lo = 1, .hi = 4});
}
/* 8 sigma out: the CDFs' difference there, 6e-16, is all rounding. */
Test(demcmc_flat, truncated_normal_moderate_tail)
{
    flat_returns_prior("truncated_normal 8 sigma", (sl_prior){.kind = SL_PRIOR_TRUNC_NORMAL,
                       .mu = 0, .sigma = 1, .lo = 8, .hi = 9});
}

Test(demcmc, norm_logcdf_and_its_inverse)
{
    const double z[] = {3.0, 0.5, -1.0, -8.0, -29.9, -30.1, -40.0, -410.0, -1e4};
    for (size_t i = 0; i < sizeof z / sizeof *z; i++) {
        double l = sl_norm_logcdf(z[i]);
        cr_assert(fabs(l - t_log_phi(z[i])) <= 1e-8 * fabs(l) + 1e-15, "z %g: %.17g vs %.17g",
                  z[i], l, t_log_phi(z[i]));
        double back = sl_norm_logcdf_quantile(l);
        cr_assert(fabs(back - z[i]) <= 1e-12 * fabs(z[i]) + 1e-13, "z %g: back %.17g", z[i],
                  back);
    }
}

/* ---- likelihoods with no finite value ------------------------------------------- */

/* NaN, -inf or +inf everywhere; `finite_first` rows of the first call
 * (the start's evaluation) get 0 instead. */
typedef struct odd_ll {
    double value;
    int64_t finite_first, calls;
} odd_ll;

static sl_status odd_target(void *ud, const double *p, int64_t n, double *out)
{
    odd_ll *o = ud;
    (void)p;
    for (int64_t r = 0; r < n; r++)
        out[r] = o->calls == 0 && r < o->finite_first ? 0.0 : o->value;
    o->calls++;
    return SL_OK;
}

static sl_status odd_run(odd_ll *o, sl_demcmc_result *r)
{
    sl_prior pr[2];
    wide_uniform(pr, 2, 1.0);
    const char *names[2] = {"a", "b"};
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = 8, c.generations = 200;
    return sl_demcmc_run(&c, 2, pr, names, odd_target, o, NULL, 0, r);
}

Test(demcmc, refuses_a_start_with_no_finite_chain)
{
    sl_demcmc_result r;
    odd_ll nan_ll = {NAN, 0, 0};
    cr_assert_neq(odd_run(&nan_ll, &r), SL_OK, "a NaN likelihood sampled");
    cr_assert(strstr(sl_last_error(), "no chain starts with a finite log-posterior: of 8 chains "
                     "the likelihood gave NaN at 8, -inf at 0 and +inf at 0 (chain 1: a = "),
              "%s", sl_last_error());
    cr_assert(strstr(sl_last_error(), "narrow the priors"), "%s", sl_last_error());
    cr_assert_eq(nan_ll.calls, 1, "went on after the start");
    odd_ll ninf = {-INFINITY, 0, 0};
    cr_assert_neq(odd_run(&ninf, &r), SL_OK, "a -inf likelihood sampled");
    cr_assert(strstr(sl_last_error(), "NaN at 0, -inf at 8"), "%s", sl_last_error());
    cr_assert_eq(ninf.calls, 1);
}

Test(demcmc, stops_when_no_chain_is_finite)
{
    sl_demcmc_result r;
    odd_ll pinf = {INFINITY, 8, 0}; /* a finite start, then +inf everywhere */
    cr_assert_neq(odd_run(&pinf, &r), SL_OK, "sampled +inf");
    cr_assert(strstr(sl_last_error(), "no chain has a finite log-posterior (0 at -inf, 8 at "
                     "+inf or NaN; chain 1: a = "), "%s", sl_last_error());
    cr_assert(strstr(sl_last_error(), "never +inf"), "%s", sl_last_error());
    cr_assert(pinf.calls < 200, "ran on after every chain went to +inf");
}

Test(demcmc, warns_when_nothing_is_accepted)
{
    sl_demcmc_result r;
    odd_ll nan_after = {NAN, 8, 0}; /* a finite start, then NaN everywhere */
    SLT_OK(odd_run(&nan_after, &r));
    cr_assert(strstr(r.warnings, "no proposal was accepted in 200 generations (1600 proposals"),
              "warnings: '%s'", r.warnings);
    sl_demcmc_result_free(&r);
    gauss g;
    gauss_init(&g, 2, 0.0);
    sl_prior pr[2];
    wide_uniform(pr, 2, 5.0);
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = 8, c.generations = 200;
    SLT_OK(sl_demcmc_run(&c, 2, pr, NULL, gauss_ll, &g, NULL, 0, &r));
    cr_assert_str_eq(r.warnings, "", "a sound run warned: %s", r.warnings);
    sl_demcmc_result_free(&r);
}

/* ---- refusals ---------------------------------------------------------------- */

static void refused(const sl_demcmc_config *c, int d, const sl_prior *pr, const double *start,
                    const char *want)
{
    const char *names[3] = {"P", "K", "e"};
    sl_demcmc_result r;
    gauss g;
    gauss_init(&g, d, 0.0);
    g.calls = 0;
    sl_status st = sl_demcmc_run(c, d, pr, names, gauss_ll, &g, start, 0, &r);
    cr_assert_neq(st, SL_OK, "accepted; wanted '%s'", want);
    cr_assert(strstr(sl_last_error(), want), "'%s' not in: %s", want, sl_last_error());
    cr_assert_eq(g.calls, 0, "refused after the likelihood was called");
}

Test(demcmc, refuses_bad_settings_before_work)
{
    sl_prior pr[3];
    wide_uniform(pr, 3, 1.0);
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = 5, c.generations = 10;
    refused(&c, 3, pr, NULL, "chains = 5: expected an even number >= 6");
    c.chains = 4;
    refused(&c, 3, pr, NULL, "at least 2 d for 3 free parameters");
    c.chains = 6;
    pr[1].lo = 2.0;
    refused(&c, 3, pr, NULL, "prior of 'K' (uniform): lower = 2, upper = 1");
    pr[1].lo = -1.0;
    pr[2] = (sl_prior){.kind = SL_PRIOR_LOG_UNIFORM, .lo = 0, .hi = 1};
    refused(&c, 3, pr, NULL, "'e' (log_uniform): lower = 0");
    pr[2] = (sl_prior){.kind = SL_PRIOR_NORMAL, .mu = 0, .sigma = 1, .periodic = 1};
    refused(&c, 3, pr, NULL, "only a uniform prior can wrap");
    wide_uniform(pr, 3, 1.0);
    c.burn = 10;
    refused(&c, 3, pr, NULL, "burn = 10 of 10 generations");
    c.burn = 0;
    c.snooker = 1.5;
    refused(&c, 3, pr, NULL, "snooker = 1.5: expected a probability in [0, 1]");
    c.snooker = 0.1, c.chains = 4;
    wide_uniform(pr, 1, 1.0);
    refused(&c, 1, pr, NULL, "chains = 4 with the snooker update and no archive: expected >= 6");
    c.snooker = 0, c.chains = 6;
    c.stop_rhat = 0.9;
    refused(&c, 3, pr, NULL, "stop_rhat = 0.9: expected a threshold > 1");
    c.stop_rhat = 0;
    c.archive = 1, c.archive_every = 0;
    refused(&c, 3, pr, NULL, "archive_every = 0: expected >= 1");
    c.archive = 0;
    c.device_batch = -1;
    refused(&c, 3, pr, NULL, "device_batch = -1: expected >= 0 (0: as many kept generations "
                             "as fit in 4 MiB)");
    c.device_batch = 0, c.device_time_every = -2;
    refused(&c, 3, pr, NULL, "device_time_every = -2: expected >= 0");
    c.device_time_every = 0;
    double start[18] = {0};
    start[7] = 3.0; /* chain 3, parameter 2 */
    refused(&c, 3, pr, start, "chain 3 starts at parameter 2 = 3, outside its uniform prior");
}
