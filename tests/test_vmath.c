/* The vectorisable sincos, cbrt and log (plugins/kepler_rv/vmath.h)
 * against libm: the double functions against glibc's long double ones
 * (sinl, cbrtl, logl), the float functions against glibc's double ones, on
 * dense grids, random values and the awkward points (near multiples of
 * π/2, subnormals, around 1 for log), with the error in ulps of the
 * correctly rounded result. Also: the same bits from the vectorised lane
 * loop (whichever ISA clone this machine runs) as from scalar calls, and
 * exact floor. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "vmath.h"

/* ---- measuring -------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s) { return (double)(splitmix(s) >> 11) * 0x1p-53; }

/* |got − ref| in ulps of the double nearest ref (the subnormal spacing
 * below 2^-1022). */
static double ulps_d(double got, long double ref)
{
    if (!isfinite(got) || !isfinite(ref))
        return (isnan(got) && isnan(ref)) || got == ref ? 0.0 : INFINITY;
    long double a = fabsl(ref);
    int e = a < 0x1p-1022L ? -1022 : ilogbl(a);
    return (double)(fabsl((long double)got - ref) / ldexpl(1.0L, e - 52));
}

static double ulps_f(float got, double ref)
{
    if (!isfinite(got) || !isfinite(ref))
        return (isnan(got) && isnan(ref)) || got == ref ? 0.0 : INFINITY;
    double a = fabs(ref);
    int e = a < 0x1p-126 ? -126 : ilogb(a);
    return fabs((double)got - ref) / ldexp(1.0, e - 23);
}

typedef struct worst {
    double ulps, x;
    long n;
} worst;

static void note(worst *w, double ulps, double x)
{
    w->n++;
    if (!(ulps <= w->ulps))
        w->ulps = ulps, w->x = x;
}

static void check(const worst *w, double bound, const char *what)
{
    cr_log_info("%s: %ld values, max error %.4g ulp at x = %.17g", what, w->n, w->ulps, w->x);
    cr_assert(w->ulps <= bound, "%s: %.3g ulp at x = %.17g (bound %.3g)", what, w->ulps, w->x,
              bound);
}

/* The measure itself: one ulp is one, and a wrong sine is caught. */
Test(vmath, ulp_measure_sees_errors)
{
    cr_assert_eq(ulps_d(nextafter(1.0, 2.0), 1.0L), 1.0);
    cr_assert_eq(ulps_d(0x1p-1074, 0.0L), 1.0);
    cr_assert_eq(ulps_f(nextafterf(1.0f, 2.0f), 1.0), 1.0);
    cr_assert_eq(ulps_d(0.5 + 0x1p-53, 0.5L), 1.0);
    double x = 0.7, taylor = x - x * x * x / 6 + x * x * x * x * x / 120;
    cr_assert(ulps_d(taylor, sinl(x)) > 1e9);
    cr_assert(ulps_d(NAN, 1.0L) == INFINITY && ulps_d(NAN, (long double)NAN) == 0.0);
}

/* ---- sincos -------------------------------------------------------------------- */

#define PIO2L 1.570796326794896619231321691639751442L

static void sincos_d(double x, worst *ws, worst *wc)
{
    double s, c;
    sl_vsincos(x, &s, &c);
    note(ws, ulps_d(s, sinl(x)), x);
    note(wc, ulps_d(c, cosl(x)), x);
}

static void sincos_f(float x, worst *ws, worst *wc)
{
    float s, c;
    sl_vsincosf(x, &s, &c);
    note(ws, ulps_f(s, sin(x)), x);
    note(wc, ulps_f(c, cos(x)), x);
}

/* Dense over [−8, 8] (Kepler's E lives there), uniform over ±1e5,
 * log-uniform magnitudes from 1e-300, and the doubles (floats) nearest
 * k π/2 with their neighbours, where the reduction cancels most. */
Test(vmath, sincos_double)
{
    worst ws = {0, 0, 0}, wc = {0, 0, 0};
    for (long i = -(1L << 21); i <= (1L << 21); i++)
        sincos_d(i * 0x1p-18, &ws, &wc);
    uint64_t seed = 1;
    for (int i = 0; i < 1000000; i++) {
        sincos_d(2e5 * (uniform(&seed) - 0.5), &ws, &wc);
        sincos_d((uniform(&seed) < 0.5 ? -1 : 1) * pow(10.0, -300.0 + 305.0 * uniform(&seed)),
                 &ws, &wc);
    }
    for (long k = 1; k <= 65000; k++) {
        double x = (double)(k * PIO2L);
        for (int d = -2; d <= 2; d++) {
            double y = x;
            for (int j = 0; j < abs(d); j++)
                y = nextafter(y, d < 0 ? 0.0 : INFINITY);
            sincos_d(y, &ws, &wc);
            sincos_d(-y, &ws, &wc);
        }
    }
    check(&ws, 1.0, "sin (double)");
    check(&wc, 1.0, "cos (double)");
}

Test(vmath, sincos_float)
{
    worst ws = {0, 0, 0}, wc = {0, 0, 0};
    for (long i = -(1L << 21); i <= (1L << 21); i++)
        sincos_f((float)(i * 0x1p-18), &ws, &wc);
    uint64_t seed = 2;
    for (int i = 0; i < 1000000; i++) {
        sincos_f((float)(2e5 * (uniform(&seed) - 0.5)), &ws, &wc);
        sincos_f((float)((uniform(&seed) < 0.5 ? -1 : 1) * pow(10.0, -37.0 + 42.0 * uniform(&seed))),
                 &ws, &wc);
    }
    for (long k = 1; k <= 63000; k++) {
        float x = (float)(k * PIO2L);
        for (int d = -2; d <= 2; d++) {
            float y = x;
            for (int j = 0; j < abs(d); j++)
                y = nextafterf(y, d < 0 ? 0.0f : INFINITY);
            sincos_f(y, &ws, &wc);
            sincos_f(-y, &ws, &wc);
        }
    }
    check(&ws, 1.5, "sin (float)");
    check(&wc, 1.5, "cos (float)");
}

/* The float-only variant, on its domain |x| <= 100. */
Test(vmath, sincos_float_small)
{
    worst ws = {0, 0, 0}, wc = {0, 0, 0};
    for (long i = -(1L << 21); i <= (1L << 21); i++) {
        float x = (float)(i * (100.0 / (1L << 21)));
        float s, c;
        sl_vsincosf_small(x, &s, &c);
        note(&ws, ulps_f(s, sin(x)), x);
        note(&wc, ulps_f(c, cos(x)), x);
    }
    for (long k = 1; k <= 63; k++)
        for (int d = -8; d <= 8; d++) {
            float x = (float)(k * PIO2L), s, c;
            for (int j = 0; j < abs(d); j++)
                x = nextafterf(x, d < 0 ? 0.0f : INFINITY);
            for (int sign = -1; sign <= 1; sign += 2) {
                sl_vsincosf_small(sign * x, &s, &c);
                note(&ws, ulps_f(s, sin(sign * x)), sign * x);
                note(&wc, ulps_f(c, cos(sign * x)), sign * x);
            }
        }
    check(&ws, 1.5, "sin (float, |x| <= 100)");
    check(&wc, 1.5, "cos (float, |x| <= 100)");
}

Test(vmath, sincos_special_values)
{
    double s, c;
    sl_vsincos(0.0, &s, &c);
    cr_assert(s == 0.0 && c == 1.0);
    sl_vsincos(INFINITY, &s, &c);
    cr_assert(isnan(s) && isnan(c));
    sl_vsincos(NAN, &s, &c);
    cr_assert(isnan(s) && isnan(c));
    float sf, cf;
    sl_vsincosf(-INFINITY, &sf, &cf);
    cr_assert(isnan(sf) && isnan(cf));
}

/* ---- cbrt ----------------------------------------------------------------------- */

/* Random bit patterns: every finite double, subnormals included. */
static double random_double(uint64_t *s)
{
    for (;;) {
        double x = sl_as_f64(splitmix(s));
        if (isfinite(x))
            return x;
    }
}

static float random_float(uint64_t *s, float lim)
{
    for (;;) {
        float x = sl_as_f32((uint32_t)splitmix(s));
        if (fabsf(x) < lim)
            return x;
    }
}

Test(vmath, cbrt_double)
{
    worst w = {0, 0, 0};
    for (long i = 0; i <= 2000000; i++) {
        double x = 0.125 + i * (8.0 - 0.125) / 2000000;
        note(&w, ulps_d(sl_vcbrt(x), cbrtl(x)), x);
    }
    uint64_t seed = 3;
    for (int i = 0; i < 2000000; i++) {
        double x = random_double(&seed);
        note(&w, ulps_d(sl_vcbrt(x), cbrtl(x)), x);
    }
    for (int i = 0; i < 100000; i++) {
        double x = 0x1p-1074 * (double)(splitmix(&seed) >> 12); /* subnormal */
        note(&w, ulps_d(sl_vcbrt(x), cbrtl(x)), x);
        note(&w, ulps_d(sl_vcbrt(-x), cbrtl(-x)), -x);
    }
    check(&w, 0.7, "cbrt (double)"); /* s_cbrt.c: < 0.667 */
    cr_assert(sl_vcbrt(0.0) == 0.0 && !signbit(sl_vcbrt(0.0)) && signbit(sl_vcbrt(-0.0)));
    cr_assert(sl_vcbrt(INFINITY) == INFINITY && sl_vcbrt(-INFINITY) == -INFINITY);
    cr_assert(isnan(sl_vcbrt(NAN)));
    cr_assert_eq(sl_vcbrt(DBL_MAX), (double)cbrtl(DBL_MAX));
}

Test(vmath, cbrt_float)
{
    worst w = {0, 0, 0};
    for (long i = 0; i <= 2000000; i++) {
        float x = (float)(0.125 + i * (8.0 - 0.125) / 2000000);
        note(&w, ulps_f(sl_vcbrtf(x), cbrt(x)), x);
    }
    uint64_t seed = 4;
    for (int i = 0; i < 2000000; i++) {
        float x = random_float(&seed, 1e38f);
        note(&w, ulps_f(sl_vcbrtf(x), cbrt(x)), x);
    }
    check(&w, 1.0, "cbrt (float)");
    cr_assert(sl_vcbrtf(0.0f) == 0.0f && signbit(sl_vcbrtf(-0.0f)));
    cr_assert(sl_vcbrtf(INFINITY) == INFINITY && isnan(sl_vcbrtf(NAN)));
}

/* ---- log ------------------------------------------------------------------------ */

Test(vmath, log_double)
{
    worst w = {0, 0, 0};
    for (long i = 0; i <= 2000000; i++) {
        double x = 0.5 + i * 1.5 / 2000000; /* log x crosses 0 at 1 */
        note(&w, ulps_d(sl_vlog(x), logl(x)), x);
    }
    for (int i = -100000; i <= 100000; i++) {
        double x = 1.0 + i * 0x1p-40;
        note(&w, ulps_d(sl_vlog(x), logl(x)), x);
    }
    uint64_t seed = 5;
    for (int i = 0; i < 2000000; i++) {
        double x = fabs(random_double(&seed));
        note(&w, ulps_d(sl_vlog(x), logl(x)), x);
    }
    check(&w, 1.0, "log (double)");
    cr_assert(sl_vlog(1.0) == 0.0);
    cr_assert(sl_vlog(0.0) == -INFINITY && sl_vlog(-0.0) == -INFINITY);
    cr_assert(isnan(sl_vlog(-1.0)) && isnan(sl_vlog(NAN)) && isnan(sl_vlog(-INFINITY)));
    cr_assert(sl_vlog(INFINITY) == INFINITY);
    cr_assert(ulps_d(sl_vlog(0x1p-1074), logl(0x1p-1074L)) <= 1.0);
}

Test(vmath, log_float)
{
    worst w = {0, 0, 0};
    for (long i = 0; i <= 2000000; i++) {
        float x = (float)(0.5 + i * 1.5 / 2000000);
        note(&w, ulps_f(sl_vlogf(x), log(x)), x);
    }
    uint64_t seed = 6;
    for (int i = 0; i < 2000000; i++) {
        float x = fabsf(random_float(&seed, INFINITY));
        note(&w, ulps_f(sl_vlogf(x), log(x)), x);
    }
    check(&w, 1.0, "log (float)");
    cr_assert(sl_vlogf(1.0f) == 0.0f && sl_vlogf(0.0f) == -INFINITY);
    cr_assert(isnan(sl_vlogf(-1.0f)) && isnan(sl_vlogf(NAN)) && sl_vlogf(INFINITY) == INFINITY);
}

/* ---- floor ------------------------------------------------------------------------ */

Test(vmath, floor_is_exact)
{
    uint64_t seed = 7;
    for (int i = 0; i < 2000000; i++) {
        double x = (uniform(&seed) - 0.5) * pow(2.0, 60.0 * uniform(&seed) - 4.0);
        cr_assert(sl_vfloor(x) == floor(x) && signbit(sl_vfloor(x)) == signbit(floor(x)),
                  "floor(%.17g)", x);
        float xf = (float)x;
        cr_assert(sl_vfloorf(xf) == floorf(xf), "floorf(%.9g)", xf);
    }
    const double odd[] = {-0.0, 0.0, -0.5, 0.5, 0x1p52 - 0.5, -0x1p52 + 0.5, 0x1p53, INFINITY};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
        cr_assert(sl_vfloor(odd[i]) == floor(odd[i]) &&
                  signbit(sl_vfloor(odd[i])) == signbit(floor(odd[i])), "floor(%g)", odd[i]);
    cr_assert(isnan(sl_vfloor(NAN)));
}

/* ---- vector lanes == scalar calls ------------------------------------------------- */

enum { NV = 4096, NOUT = 7 };

__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static void lanes(const double *x, double *out)
{
#pragma omp simd
    for (int i = 0; i < NV; i++) {
        double s, c;
        sl_vsincos(x[i], &s, &c);
        out[5 * NV + i] = sl_vcbrt(x[i]);
        out[i] = s, out[NV + i] = c;
        out[2 * NV + i] = sl_vlog(fabs(x[i]));
        float sf, cf;
        sl_vsincosf((float)x[i], &sf, &cf);
        out[3 * NV + i] = sf + (double)cf * 0x1p-30 + sl_vlogf(fabsf((float)x[i]));
        out[4 * NV + i] = sl_vcbrtf((float)x[i]) + sl_vfloor(x[i] * 3.0);
        sl_vsincosf_small((float)x[i], &sf, &cf);
        out[6 * NV + i] = sf + (double)cf * 0x1p-30 + sl_vfloorf((float)x[i] * 3.0f);
    }
}

/* Not vectorised, not cloned: the reference the lane loop must match. */
__attribute__((noinline, optimize("no-tree-vectorize", "no-tree-slp-vectorize")))
static void scalar(const double *x, double *out)
{
    for (int i = 0; i < NV; i++) {
        double s, c;
        sl_vsincos(x[i], &s, &c);
        out[5 * NV + i] = sl_vcbrt(x[i]);
        out[i] = s, out[NV + i] = c;
        out[2 * NV + i] = sl_vlog(fabs(x[i]));
        float sf, cf;
        sl_vsincosf((float)x[i], &sf, &cf);
        out[3 * NV + i] = sf + (double)cf * 0x1p-30 + sl_vlogf(fabsf((float)x[i]));
        out[4 * NV + i] = sl_vcbrtf((float)x[i]) + sl_vfloor(x[i] * 3.0);
        sl_vsincosf_small((float)x[i], &sf, &cf);
        out[6 * NV + i] = sf + (double)cf * 0x1p-30 + sl_vfloorf((float)x[i] * 3.0f);
    }
}

Test(vmath, lanes_match_scalar_bits)
{
    double *x = malloc(NV * sizeof *x), *a = malloc(NOUT * NV * sizeof *a),
           *b = malloc(NOUT * NV * sizeof *b);
    uint64_t seed = 8;
    for (int i = 0; i < NV; i++)
        x[i] = (uniform(&seed) - 0.5) * pow(10.0, 10.0 * uniform(&seed) - 5.0);
    x[0] = 0.0, x[1] = -0.0, x[2] = 1e-310;
    lanes(x, a);
    scalar(x, b);
    for (int i = 0; i < NOUT * NV; i++)
        cr_assert(sl_as_u64(a[i]) == sl_as_u64(b[i]) || (isnan(a[i]) && isnan(b[i])),
                  "output %d of x = %.17g: lanes %.17g, scalar %.17g", i / NV, x[i % NV], a[i],
                  b[i]);
    free(x), free(a), free(b);
}
