/* Helpers for the Lomb-Scargle suites: the plugin's table from the
 * registry, reading reference CSV files, and small synthetic light curves. */
#ifndef SL_LS_TEST_H
#define SL_LS_TEST_H

#include "sl_test.h"
#include "starling/plugins/lombscargle/lombscargle.h"

typedef struct slt_ls {
    sl_registry *reg;
    const sl_periodogram *ls;
} slt_ls;

static SLT_UNUSED void slt_ls_load(slt_ls *p)
{
    SLT_OK(sl_registry_create(&p->reg));
    SLT_OK(sl_registry_load_default(p->reg));
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_PERIODOGRAM, "lombscargle", &t));
    p->ls = t;
}

static SLT_UNUSED void slt_ls_unload(slt_ls *p) { sl_registry_destroy(p->reg); }

/* A numeric CSV file with one header line: columns into a malloc'd
 * row-major table; returns the number of rows. Non-numeric first fields
 * (ids) are skipped by `skip` leading columns. */
static SLT_UNUSED int64_t slt_read_csv(const char *name, int skip, int ncol, double **out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SL_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char line[8192];
    cr_assert_not_null(fgets(line, sizeof line, f));
    int64_t n = 0, cap = 1024;
    double *v = malloc((size_t)cap * (size_t)ncol * sizeof *v);
    while (fgets(line, sizeof line, f)) {
        if (n == cap) {
            cap *= 2;
            v = realloc(v, (size_t)cap * (size_t)ncol * sizeof *v);
        }
        char *p = line;
        for (int s = 0; s < skip; s++)
            p = strchr(p, ',') + 1;
        for (int c = 0; c < ncol; c++) {
            char *end;
            v[n * ncol + c] = strtod(p, &end);
            cr_assert(end != p, "%s: row %lld column %d", path, (long long)n + 1, c + 1);
            p = end + (*end == ',');
        }
        n++;
    }
    fclose(f);
    *out = v;
    return n;
}

/* The fast engine's documented accuracy with its defaults (docs/GUIDE.md):
 * max |P_fast - P_direct| / P_peak over the grid, CPU (FFTW) and GPU (cuFFT). */
#define SLT_LS_FAST_BOUND 1e-10

/* Relative difference, with 0 vs 0 = 0. */
static SLT_UNUSED double slt_rel(double a, double b)
{
    double s = fmax(fabs(a), fabs(b));
    return s == 0 ? 0 : fabs(a - b) / s;
}

/* A synthetic light curve: n points over `span`, sinusoid of `period`,
 * deterministic noise from a simple LCG (the values do not matter, only
 * that CPU and GPU see the same ones). */
static SLT_UNUSED void slt_ls_curve(int64_t n, double span, double period, uint64_t seed,
                                    double *t, double *y, double *dy)
{
    uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(s >> 11) / 9007199254740992.0;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double v = (double)(s >> 11) / 9007199254740992.0;
        t[i] = span * ((double)i + 0.8 * u) / (double)n;
        if (dy)
            dy[i] = 0.1 + 0.2 * v;
        y[i] = 3.0 + sin(2 * M_PI * t[i] / period) + 0.5 * (v - 0.5);
    }
}

/* Uniform in [0, 1) from a 64-bit LCG state (53 high bits). */
static SLT_UNUSED double slt_u01(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* Standard normal (Box-Muller), two draws in a fixed order. */
static SLT_UNUSED double slt_gauss(uint64_t *s)
{
    double r = sqrt(-2.0 * log(1.0 - slt_u01(s)));
    return r * cos(2.0 * M_PI * slt_u01(s));
}

/* A survey-like light curve in the manner of a MACHO field star: nights
 * from MJD 49000 over 7.5 years, observed in a 240-day season each year
 * (a ~4-month gap), on about half the nights (weather), sometimes twice,
 * always at a similar time of night (so the points are nearly commensurate
 * with 1 day and the sampling is far from random); a red magnitude ~17.8
 * with a pulsation of `period` days (three harmonics, `amp` mag), a
 * 154-day modulation, correlated (red) noise and heteroscedastic errors
 * 0.02 .. 0.14 mag, white noise drawn from them. Deterministic (LCG, seed).
 * Fills at most n_max points and returns how many it made. */
static SLT_UNUSED int64_t slt_ls_macho(int64_t n_max, double period, double amp, uint64_t seed,
                                       double *t, double *y, double *dy)
{
    uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    const double t0 = 49000.0, span = 7.5 * 365.25;
    double red = 0.0, last = t0;
    int64_t n = 0;
    for (int64_t night = 0; night < (int64_t)span && n < n_max; night++) {
        if (fmod((double)night, 365.25) > 240.0 || slt_u01(&s) > 0.5)
            continue; /* out of season, or clouded out */
        int visits = slt_u01(&s) < 0.1 ? 2 : 1;
        double at = t0 + (double)night + 0.55 + 0.2 * slt_u01(&s);
        for (int v = 0; v < visits && n < n_max; v++) {
            double tn = at + 0.08 * v;
            /* AR(1) red noise, correlation time 30 d */
            double rho = exp(-(tn - last) / 30.0);
            red = rho * red + sqrt(1.0 - rho * rho) * 0.03 * slt_gauss(&s);
            last = tn;
            double e = 0.02 + 0.12 * pow(slt_u01(&s), 2.0);
            double wn = slt_gauss(&s);
            double ph = 2.0 * M_PI * (tn - t0) / period;
            t[n] = tn;
            dy[n] = e;
            y[n] = 17.8 + amp * (sin(ph) + 0.45 * sin(2.0 * ph + 0.7) + 0.2 * sin(3.0 * ph + 1.9)) +
                   0.02 * sin(2.0 * M_PI * (tn - t0) / 154.0) + red + e * wn;
            n++;
        }
    }
    return n;
}

#endif
