/* The O(N log N) engine on the CPU: Press & Rybicki (1989).
 *
 * Every sum the power needs is a trigonometric sum
 *   T(h)[k] = sum_j h_j exp(2 pi i (f0 + k df) t_j),   k < n_f,
 * with h = w (C, S), h = w y (YC, YS), and, at twice the frequency, h = w
 * (C2, S2), from which CC = (W + C2)/2, SS = (W - C2)/2, CS = S2/2 (W =
 * sum w). Writing x_j = Nfft * frac(df t_j), exp(2 pi i k df t_j) =
 * exp(2 pi i k x_j / Nfft): each point is spread ("extirpolated") onto the
 * M nearest nodes of a regular grid of Nfft cells with Lagrange weights, so
 * that sum_m g_m exp(2 pi i k m / Nfft) approximates the point's term, and
 * one inverse FFT of g gives all k at once. The nodes wrap around the grid
 * (the exponential is periodic in x with period Nfft), which is more
 * accurate near the ends than clipping them.
 *
 * Error: each term's, relative to its weight h_j, is the Lagrange
 * remainder of exp(i theta x) over M nodes, theta = 2 pi k / Nfft <=
 * 2 pi n_f / Nfft <= 2 pi / oversampling, bounded by sl_ls_fast_bound. It
 * falls quickly with M and the oversampling, but a fixed order is not
 * enough: the FFT length is rounded up to a power of 2, so the top of the
 * grid sees anything from 1x to 2x the requested oversampling, and survey
 * cadences (nightly visits at the same hour) line the terms' errors up so
 * that they add instead of averaging out. With fast_order 0 (the default)
 * each object gets the least even M whose bound at its own top frequency
 * is <= fast_accuracy (default 1e-10: M = 24 at exactly 8x, 14 to 22
 * above). Extirpolation is O(N M), the FFT O(Nfft log Nfft): for a
 * survey curve (N ~ 10^3, Nfft ~ 10^6) the larger M costs nothing
 * measurable, while doubling the oversampling would double the FFT. The
 * power formula afterwards is the direct engine's (ls_math.h), so
 * normalisations and FAPs are shared. The bounds reached are in the test
 * suite and docs/GUIDE.md. */
#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ls_internal.h"
#include "starling/nomem.h"

/* FFTW's planner is not re-entrant (executing plans is): plans are made
 * and destroyed under this lock. */
static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t threads_once = PTHREAD_ONCE_INIT;
static int threads_ok;

static void threads_setup(void) { threads_ok = fftw_init_threads(); }

/* FFTW keeps its planner and thread data until told otherwise, and only
 * this plugin links it, so the library is unloaded with the plugin (each
 * registry unloads its plugins): free them first, or every load and unload
 * leaks them (LeakSanitizer, scripts/sanitize.sh, test_lombscargle). */
__attribute__((destructor)) static void fftw_teardown(void)
{
    if (threads_ok)
        fftw_cleanup_threads(); /* also does fftw_cleanup() */
    else
        fftw_cleanup();
}

int64_t sl_ls_fast_size(int64_t n_f, double oversampling)
{
    double want = oversampling * (double)n_f;
    int64_t n = 16;
    while ((double)n < want)
        n *= 2;
    return n;
}

double sl_ls_fast_bound(int m, double theta)
{
    /* theta^m / m! max |prod_q (x - node_q)|: the remainder bound for any
     * function with |f^(m)| <= theta^m (Hermite-Genocchi; complex f
     * included). The node product peaks at the middle of the centre cell,
     * prod_{i < m/2} (i + 1/2)^2; with m! = prod_{i < m/2} (2i + 1)(2i + 2)
     * the bound is one product of m/2 factors, which cannot overflow. */
    double b = 1.0;
    for (int i = 0; i < m / 2; i++) {
        double a = theta * (i + 0.5);
        b *= a * a / ((2.0 * i + 1.0) * (2.0 * i + 2.0));
    }
    return b;
}

int sl_ls_fast_auto_order(double theta, double accuracy)
{
    for (int m = 2; m <= SL_LS_FAST_MAX_ORDER; m += 2)
        if (sl_ls_fast_bound(m, theta) <= accuracy)
            return m;
    return 0;
}

int sl_ls_fast_order(const sl_ls_job *j, const sl_ls_obj *o)
{
    if (j->fast_order > 0)
        return j->fast_order;
    int64_t nfft = sl_ls_fast_size(o->n_f, j->fast_oversampling);
    int m = sl_ls_fast_auto_order(2.0 * M_PI * (double)o->n_f / (double)nfft, j->fast_accuracy);
    /* nfft >= oversampling n_f, which the options' check showed reachable */
    return m ? m : SL_LS_FAST_MAX_ORDER;
}

/* Spreads value h at grid position x in [0, n) onto m wrapped nodes. The
 * Lagrange weights prod_{q != l} (x - node_q) / (node_l - node_q) are
 * formed as P / (x - node_l) / (l! (m-1-l)! (-1)^(m-1-l)), P the product of
 * all m differences: O(m) per point, not O(m^2). */
static void extirpolate(fftw_complex *g, int64_t n, int m, const double *inv_den, double x,
                        double complex h)
{
    int64_t ix = (int64_t)floor(x), lo = ix - m / 2 + 1;
    if (x == (double)ix) { /* on a node: all of it there */
        g[(ix % n + n) % n] += h;
        return;
    }
    double d[SL_LS_FAST_MAX_ORDER], prod = 1.0;
    for (int q = 0; q < m; q++) {
        d[q] = x - (double)(lo + q);
        prod *= d[q];
    }
    for (int l = 0; l < m; l++) {
        int64_t at = ((lo + l) % n + n) % n;
        g[at] += h * (prod / d[l] * inv_den[l]); /* fftw_complex is double complex here */
    }
}

/* 1 / prod_{q != l} (l - q) = (-1)^(m-1-l) / (l! (m-1-l)!), l < m. */
static void lagrange_denominators(int m, double *inv_den)
{
    for (int l = 0; l < m; l++) {
        double den = 1.0;
        for (int q = 0; q < m; q++)
            if (q != l)
                den *= (double)(l - q);
        inv_den[l] = 1.0 / den;
    }
}

/* T(h)[k] for k < n_f at frequencies ff * (f0 + k df) into out. */
static sl_status trig_sum(const double *t, const double *h, int64_t n, double f0, double df,
                          int ff, int64_t n_f, int64_t nfft, int m, int nthreads,
                          fftw_complex *g, double complex *out)
{
    double inv_den[SL_LS_FAST_MAX_ORDER];
    lagrange_denominators(m, inv_den);
    memset(g, 0, (size_t)nfft * sizeof *g);
    for (int64_t j = 0; j < n; j++) {
        double s, c, r = ff * df * t[j];
        sl_ls_sincos2pi(sl_ls_cycles(ff * f0, t[j]), &s, &c);
        extirpolate(g, nfft, m, inv_den, (double)nfft * (r - floor(r)), h[j] * (c + I * s));
    }
    pthread_mutex_lock(&plan_lock);
    if (threads_ok) /* one long series: FFTW's own threads; a batch: one per object */
        fftw_plan_with_nthreads(nthreads);
    fftw_plan p = fftw_plan_dft_1d((int)nfft, g, g, FFTW_BACKWARD, FFTW_ESTIMATE);
    pthread_mutex_unlock(&plan_lock);
    if (!p)
        return sl_fail(SL_ERR_NOMEM, "lombscargle: FFTW could not plan an FFT of length %lld "
                       "(out of memory?)", (long long)nfft);
    fftw_execute(p);
    pthread_mutex_lock(&plan_lock);
    fftw_destroy_plan(p);
    pthread_mutex_unlock(&plan_lock);
    for (int64_t k = 0; k < n_f; k++)
        out[k] = g[k];
    return SL_OK;
}

/* One object: three trigonometric sums, then the power per frequency. */
static sl_status fast_object(sl_ls_job *j, int64_t i, int nthreads)
{
    const sl_ls_obj *o = &j->obj[i];
    int64_t nfft = sl_ls_fast_size(o->n_f, j->fast_oversampling);
    if (nfft > 0x7fffffffLL)
        return sl_fail(SL_ERR_ARG, "lombscargle: fast engine: FFT of %lld points exceeds FFTW's "
                       "int plans (lower n_f or fast_oversampling)", (long long)nfft);
    fftw_complex *g = fftw_malloc((size_t)nfft * sizeof *g);
    double complex *tw = malloc((size_t)o->n_f * 3 * sizeof *tw);
    if (!g || !tw) {
        fftw_free(g), free(tw);
        return sl_fail_nomem((double)nfft * sizeof *g + (double)o->n_f * 3 * sizeof *tw,
                             "lombscargle: fast engine: FFT of %lld points", (long long)nfft);
    }
    const double *t = j->t + o->first, *w = j->w + o->first, *wy = j->wy + o->first;
    double W = 0.0;
    for (int64_t q = 0; q < o->n; q++)
        W += w[q];
    double complex *T1 = tw, *TY = tw + o->n_f, *T2 = tw + 2 * o->n_f;
    int m = sl_ls_fast_order(j, o);
    sl_status st = trig_sum(t, wy, o->n, o->f0, o->df, 1, o->n_f, nfft, m, nthreads, g, TY);
    if (!st)
        st = trig_sum(t, w, o->n, o->f0, o->df, 2, o->n_f, nfft, m, nthreads, g, T2);
    if (!st && j->generalised)
        st = trig_sum(t, w, o->n, o->f0, o->df, 1, o->n_f, nfft, m, nthreads, g, T1);
    fftw_free(g);
    if (st) {
        free(tw);
        return st;
    }
    double bp = NAN;
    int64_t bk = -1;
    for (int64_t k = 0; k < o->n_f; k++) {
        sl_ls_sums m = {0};
        if (j->generalised)
            m.C = creal(T1[k]), m.S = cimag(T1[k]);
        m.YC = creal(TY[k]), m.YS = cimag(TY[k]);
        m.CC = 0.5 * (W + creal(T2[k]));
        m.SS = 0.5 * (W - creal(T2[k]));
        m.CS = 0.5 * cimag(T2[k]);
        double p = sl_ls_power(&m, o, j->generalised, j->norm);
        sl_ls_put(j, o, k, p);
        if (sl_ls_better(p, k, bp, bk))
            bp = p, bk = k;
    }
    free(tw);
    j->best_p[i] = bp;
    j->best_k[i] = bk;
    return SL_OK;
}

sl_status sl_ls_fast_run(sl_ls_job *j)
{
    double t0 = sl_ls_now();
    sl_status st = SL_OK;
    char msg[512] = "";
    int64_t n_fast = 0;
    for (int64_t i = 0; i < j->n_obj; i++)
        n_fast += j->obj[i].fast && !j->obj[i].flag;
    pthread_once(&threads_once, threads_setup);
    int nthreads = n_fast == 1 ? omp_get_max_threads() : 1;
    /* one object: outside any parallel region, so FFTW's own threads run
     * (nested in an OpenMP loop they would get a team of one) */
#pragma omp parallel for schedule(dynamic, 1) if (n_fast > 1)
    for (int64_t i = 0; i < j->n_obj; i++) {
        if (j->obj[i].flag || !j->obj[i].fast)
            continue;
        sl_status s = fast_object(j, i, nthreads);
        if (s) {
#pragma omp critical(ls_fast_err)
            if (!st) {
                st = s;
                snprintf(msg, sizeof msg, "%s", sl_last_error());
            }
        }
    }
    j->kernel_s += sl_ls_now() - t0;
    if (st)
        return sl_fail(st, "%s", msg); /* the message was set on a worker thread */
    return SL_OK;
}
