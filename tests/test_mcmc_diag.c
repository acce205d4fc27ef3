/* MCMC diagnostics against ArviZ (tests/data/mcmc_diag_*.csv, made by
 * tests/reference/make_mcmc_diag_reference.py) and the normal quantile. */
#include "sl_test.h"
#include "starling/mcmc_diag.h"
#include "starling/stats.h"

typedef struct ref_case {
    char name[16];
    double rhat, ess_bulk, ess_tail, mean, sd;
} ref_case;

/* The draws of one case, chains x draws (chain-major). */
static double *read_draws(const char *name, int64_t *n, int64_t *m)
{
    char path[512], cs[16];
    snprintf(path, sizeof path, "%s/mcmc_diag_draws.csv", SL_TEST_DATA_DIR);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[256];
    cr_assert_not_null(fgets(line, sizeof line, f));
    size_t cap = 1 << 14, len = 0;
    double *x = malloc(cap * sizeof *x);
    long c, t, cmax = -1, tmax = -1;
    double v;
    while (fscanf(f, "%15[^,],%ld,%ld,%lf\n", cs, &c, &t, &v) == 4) {
        if (strcmp(cs, name))
            continue;
        if (len == cap)
            x = realloc(x, (cap *= 2) * sizeof *x);
        x[len++] = v; /* written chain by chain, draw by draw */
        cmax = c > cmax ? c : cmax;
        tmax = t > tmax ? t : tmax;
    }
    fclose(f);
    *m = cmax + 1, *n = tmax + 1;
    cr_assert_eq((int64_t)len, *m * *n, "%s: %zu draws", name, len);
    return x;
}

static ref_case read_ref(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/mcmc_diag_ref.csv", SL_TEST_DATA_DIR);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[256];
    cr_assert_not_null(fgets(line, sizeof line, f));
    ref_case r;
    while (fscanf(f, "%15[^,],%lf,%lf,%lf,%lf,%lf\n", r.name, &r.rhat, &r.ess_bulk,
                  &r.ess_tail, &r.mean, &r.sd) == 6)
        if (!strcmp(r.name, name)) {
            fclose(f);
            return r;
        }
    cr_assert_fail("case %s not in %s", name, path);
    return r;
}

static void close_to(double got, double want, double rel, const char *what, const char *name)
{
    cr_assert(fabs(got - want) <= rel * fabs(want), "%s, %s: %.15g, ArviZ %.15g", name, what,
              got, want);
}

static void as_arviz(const char *name)
{
    int64_t n, m;
    double *x = read_draws(name, &n, &m);
    ref_case r = read_ref(name);
    sl_mcmc_diag d;
    SLT_OK(sl_mcmc_diagnose(x, n, m, 1, n, &d));
    close_to(d.rhat, r.rhat, 1e-10, "R-hat", name);
    close_to(d.ess_bulk, r.ess_bulk, 1e-8, "bulk ESS", name);
    close_to(d.ess_tail, r.ess_tail, 1e-8, "tail ESS", name);
    close_to(d.mean, r.mean, 1e-12, "mean", name);
    close_to(d.sd, r.sd, 1e-12, "sd", name);
    cr_assert(d.q16 < d.q50 && d.q50 < d.q84);
    free(x);
}

Test(mcmc_diag, autocorrelated_as_arviz) { as_arviz("ar09"); }
Test(mcmc_diag, shifted_chain_as_arviz) { as_arviz("offset"); }
Test(mcmc_diag, heavy_tails_as_arviz) { as_arviz("heavy"); }

/* The same draws laid out draws x chains x parameters, as a sampler writes
 * them, give the same numbers. */
Test(mcmc_diag, strided_layout)
{
    int64_t n, m;
    double *x = read_draws("heavy", &n, &m);
    const int D = 3, p = 1;
    double *y = calloc((size_t)(n * m * D), sizeof *y);
    for (int64_t c = 0; c < m; c++)
        for (int64_t t = 0; t < n; t++)
            y[(t * m + c) * D + p] = x[c * n + t];
    sl_mcmc_diag a, b;
    SLT_OK(sl_mcmc_diagnose(x, n, m, 1, n, &a));
    SLT_OK(sl_mcmc_diagnose(y + p, n, m, m * D, D, &b));
    cr_assert(a.rhat == b.rhat && a.ess_bulk == b.ess_bulk && a.ess_tail == b.ess_tail &&
              a.tau == b.tau);
    free(x), free(y);
}

/* tau of an AR(1) chain is (1 + phi) / (1 - phi): 19 for phi = 0.9. */
Test(mcmc_diag, autocorrelation_time_of_ar1)
{
    const int64_t m = 8, n = 20000;
    double *x = malloc((size_t)(m * n) * sizeof *x), phi = 0.9;
    sl_rng r;
    for (int64_t c = 0; c < m; c++) {
        sl_rng_init(&r, 5, (uint64_t)c);
        double s = 0.0;
        for (int64_t t = 0; t < n; t++) {
            double u1 = sl_rng_uniform(&r), u2 = sl_rng_uniform(&r);
            double e = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
            s = t ? phi * s + e : e / sqrt(1.0 - phi * phi);
            x[c * n + t] = s;
        }
    }
    sl_mcmc_diag d;
    SLT_OK(sl_mcmc_diagnose(x, n, m, 1, n, &d));
    cr_assert(fabs(d.tau - 19.0) < 1.5, "tau %g, expected 19", d.tau);
    cr_assert(d.rhat < 1.01, "R-hat %g", d.rhat);
    free(x);
}

Test(mcmc_diag, constant_draws_have_no_rhat)
{
    double x[40];
    for (int i = 0; i < 40; i++)
        x[i] = 2.5;
    sl_mcmc_diag d;
    SLT_OK(sl_mcmc_diagnose(x, 10, 4, 1, 10, &d));
    cr_assert(isnan(d.rhat) && isnan(d.ess_bulk) && d.mean == 2.5 && d.sd == 0.0);
    cr_assert_neq(sl_mcmc_diagnose(x, 3, 4, 1, 3, &d), SL_OK);
    cr_assert(strstr(sl_last_error(), "3 draws"), "%s", sl_last_error());
}

Test(mcmc_diag, normal_quantile)
{
    const double p[] = {1e-300, 1e-10, 0.001, 0.02425, 0.1, 0.5, 0.7, 0.97575, 0.999};
    /* a rounding of x moves the CDF by a factor (1 + x^2) of it (its
     * condition number), which is what a quantile at rounding can promise */
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
        double x = sl_norm_quantile(p[i]), q = fmin(p[i], 1.0 - p[i]);
        cr_assert(fabs(sl_norm_cdf(x) - p[i]) <= 4.0 * (1.0 + x * x) * 2.3e-16 * q,
                  "p %g: x %.17g gives %.17g", p[i], x, sl_norm_cdf(x));
    }
    cr_assert(sl_norm_quantile(0.5) == 0.0);
    cr_assert(isinf(sl_norm_quantile(0.0)) && isnan(sl_norm_quantile(1.5)));
}
