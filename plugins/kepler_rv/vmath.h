/* sincos, cbrt, log and floor that GCC can vectorise inside `omp simd`
 * lane loops.
 *
 * A call to libm in a lane loop keeps the loop scalar (glibc's vector
 * variants need -ffast-math, and GCC vectorises floor only with
 * -fno-trapping-math; this project uses neither), so the CPU backends
 * that evaluate many models in lockstep use these instead. They are
 * branch-free straight-line code: integer work on the bit patterns, mask
 * selects instead of ifs, IEEE +, −, ×, ÷ and sqrt only. Under
 * -ffp-contract=off every target_clones variant therefore returns the
 * same bits, vectorised or not (AVX-512 and AVX2 vectorise all of them;
 * baseline SSE2 lacks 64-bit integer compares and leaves the double
 * cbrt and log scalar).
 *
 * The kernels are the classic published ones: fdlibm/FreeBSD (k_sin.c,
 * k_cos.c, s_cbrt.c, s_cbrtf.c, e_log.c, e_logf.c) and Cephes (sinf.c,
 * cosf.c). Measured against libm (tests/test_vmath.c: dense grids, random
 * values, the floating-point numbers nearest multiples of π/2), in ulps:
 *   sin, cos   double 0.78, float 1.3 (|x| <= 1e5; the reductions are
 *              exact to |x| < 1.6e6), sl_vsincosf_small 1.3 (|x| <= 100)
 *   cbrt       double 0.67, float 0.73 (all finite x; float |x| < 1e38)
 *   log        double 0.87, float 0.87 (all x) */
#ifndef STARLING_VMATH_H
#define STARLING_VMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "starling/hd.h"

/* ---- bit patterns ------------------------------------------------------------ */

SL_HD SL_INLINE uint64_t sl_as_u64(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

SL_HD SL_INLINE double sl_as_f64(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

SL_HD SL_INLINE uint32_t sl_as_u32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

SL_HD SL_INLINE float sl_as_f32(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* 0 <= u < 2^52 as a double. An int64 -> double conversion would need
 * AVX-512DQ to vectorise; 2^52 + u is exact, so this needs integer OR and
 * one subtraction on every ISA. */
SL_HD SL_INLINE double sl_u52_to_f64(uint64_t u)
{
    return sl_as_f64(0x4330000000000000ull | u) - 0x1p52;
}

/* c ? a : b for c = 0 or 1 (a comparison's value), as masks. Under
 * -ftrapping-math GCC will not if-convert a ?: whose arms do arithmetic
 * unless the ISA can mask it (AVX-512 can, AVX2 cannot), so every choice
 * between computed values goes through these: both arms are computed, and
 * the choice is integer AND/OR. Conditions are comparisons of floats, or
 * bits already 0/1: SSE2 has no 64-bit integer compare. */
SL_HD SL_INLINE uint64_t sl_vsel_u64(int c, uint64_t a, uint64_t b)
{
    uint64_t m = (uint64_t)0 - (uint64_t)c;
    return (a & m) | (b & ~m);
}

SL_HD SL_INLINE double sl_vsel(int c, double a, double b)
{
    return sl_as_f64(sl_vsel_u64(c, sl_as_u64(a), sl_as_u64(b)));
}

SL_HD SL_INLINE uint32_t sl_vsel_u32(int c, uint32_t a, uint32_t b)
{
    uint32_t m = (uint32_t)0 - (uint32_t)c;
    return (a & m) | (b & ~m);
}

SL_HD SL_INLINE float sl_vself(int c, float a, float b)
{
    return sl_as_f32(sl_vsel_u32(c, sl_as_u32(a), sl_as_u32(b)));
}

/* floor, exactly: GCC vectorises libm's floor only with -fno-trapping-math.
 * Adding and taking away 2^52 rounds |x| < 2^52 to an integer; one less
 * where that rounded up. Larger |x|, inf and nan are their own floor. */
SL_HD SL_INLINE double sl_vfloor(double x)
{
    double ax = fabs(x);
    double r = copysign((ax + 0x1p52) - 0x1p52, x);
    r = r - sl_vsel(r > x, 1.0, 0.0);
    return sl_vsel(ax < 0x1p52, r, x);
}

SL_HD SL_INLINE float sl_vfloorf(float x)
{
    float ax = fabsf(x);
    float r = copysignf((ax + 0x1p23f) - 0x1p23f, x);
    r = r - sl_vself(r > x, 1.0f, 0.0f);
    return sl_vself(ax < 0x1p23f, r, x);
}

/* ---- sincos --------------------------------------------------------------------- */

/* sin and cos of x + y on [−π/4, π/4], y a tail below an ulp of x
 * (FreeBSD k_sin.c and k_cos.c, with their tail terms). */
SL_HD SL_INLINE double sl_vsin_kernel(double x, double y)
{
    const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                 S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                 S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    double z = x * x, w = z * z, v = z * x;
    double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}

SL_HD SL_INLINE double sl_vcos_kernel(double x, double y)
{
    const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                 C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                 C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
    double z = x * x, w = z * z;
    double r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
    double hz = 0.5 * z, v = 1.0 - hz;
    /* 1 − z/2 rounded, plus what that rounding lost, plus the rest */
    return v + (((1.0 - v) - hz) + (z * r - x * y));
}

/* Puts the kernels' results in the quadrant q (mod 4) of x = qπ/2 + r:
 * q odd swaps sin and cos, and the sign bits follow sin(x + π) = −sin x. */
SL_HD SL_INLINE void sl_vquadrant(uint64_t q, double ks, double kc, double *s, double *c)
{
    double ss = sl_vsel((int)(q & 1), kc, ks), cc = sl_vsel((int)(q & 1), ks, kc);
    *s = sl_as_f64(sl_as_u64(ss) ^ ((q & 2) << 62));
    *c = sl_as_f64(sl_as_u64(cc) ^ (((q + 1) & 2) << 62));
}

/* a + b = s + e exactly (Knuth's TwoSum: no condition on the sizes). */
SL_HD SL_INLINE double sl_vtwo_sum(double a, double b, double *e)
{
    double s = a + b, bv = s - a, av = s - bv;
    *e = (a - av) + (b - bv);
    return s;
}

/* x = qπ/2 + r + y, |r| <= π/4 (a hair more at the rounding boundaries).
 * q = rint(2x/π) by the 1.5·2^52 trick, whose low mantissa bits are q mod
 * 4. π/2 is split as fdlibm splits it (pio2_1, pio2_2, pio2_3 of 33 bits,
 * so q·pio2_i is exact for |q| < 2^20, i.e. |x| < 1.6e6; then pio2_3t):
 * x − q·pio2_1 is exact (Sterbenz), the next subtraction keeps its
 * rounding error, and r + y carries ~1e-32 absolute error, so that even
 * the doubles nearest a multiple of π/2, where |sin x| ~ 1e-16 or less,
 * come out right. */
SL_HD SL_INLINE void sl_vsincos(double x, double *s, double *c)
{
    const double pio2_1 = 1.57079632673412561417e+00, pio2_2 = 6.07710050630396597660e-11,
                 pio2_3 = 2.02226624871116645580e-21, pio2_3t = 8.47842766036889956997e-32,
                 two_over_pi = 6.36619772367581382433e-01;
    double t = x * two_over_pi + 0x1.8p52;
    double q = t - 0x1.8p52;
    double e, h = sl_vtwo_sum(x - q * pio2_1, -(q * pio2_2), &e);
    double y, r = sl_vtwo_sum(h, (e - q * pio2_3) - q * pio2_3t, &y);
    sl_vquadrant(sl_as_u64(t), sl_vsin_kernel(r, y), sl_vcos_kernel(r, y), s, c);
}

/* Float: Cephes' sinf/cosf polynomials on [−π/4, π/4]. */
SL_HD SL_INLINE float sl_vsin_kernelf(float x)
{
    float z = x * x;
    return ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * x + x;
}

SL_HD SL_INLINE float sl_vcos_kernelf(float x)
{
    float z = x * x;
    return ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) *
               z * z - 0.5f * z + 1.0f;
}

SL_HD SL_INLINE void sl_vquadrantf(uint32_t q, float ks, float kc, float *s, float *c)
{
    float ss = sl_vself((int)(q & 1), kc, ks), cc = sl_vself((int)(q & 1), ks, kc);
    *s = sl_as_f32(sl_as_u32(ss) ^ ((q & 2) << 30));
    *c = sl_as_f32(sl_as_u32(cc) ^ (((q + 1) & 2) << 30));
}

/* The reduction is done in double: in float, q·(part of π/2) is exact
 * only for parts of a few bits, and the near-multiples of π/2 up to 1e5
 * would need five or six of them. r is then split into a float and its
 * float tail y, which enters as sin(r + y) = sin r + y cos r. Good for
 * |x| < 1.6e6, like sl_vsincos. */
SL_HD SL_INLINE void sl_vsincosf(float x, float *s, float *c)
{
    const double pio2_1 = 1.57079632673412561417e+00, pio2_1t = 6.07710050650619224932e-11,
                 two_over_pi = 6.36619772367581382433e-01;
    double t = (double)x * two_over_pi + 0x1.8p52;
    double q = t - 0x1.8p52;
    double rd = ((double)x - q * pio2_1) - q * pio2_1t;
    float r = (float)rd, y = (float)(rd - (double)r);
    float ks = sl_vsin_kernelf(r), kc = sl_vcos_kernelf(r);
    sl_vquadrantf((uint32_t)sl_as_u64(t), ks + y * kc, kc - y * ks, s, c);
}

SL_HD SL_INLINE float sl_vtwo_sumf(float a, float b, float *e)
{
    float s = a + b, bv = s - a, av = s - bv;
    *e = (a - av) + (b - bv);
    return s;
}

/* As sl_vsincosf for |x| <= 100 (|q| < 64), all in float and cheaper: π/2
 * in two 18-bit parts, so q·part is exact, and a float tail; the rounding
 * of the second subtraction is kept, as in sl_vsincos. Beyond 100 the
 * error grows with |x| (about 1e-12 absolute at 1e5). */
SL_HD SL_INLINE void sl_vsincosf_small(float x, float *s, float *c)
{
    const float p1 = 0x1.921f8p0f, p2 = 0x1.aa22p-19f, p3 = 0x1.68c234p-39f;
    float t = x * 0.636619772f + 0x1.8p23f; /* 2x/π */
    float q = t - 0x1.8p23f;
    float e, h = sl_vtwo_sumf(x - q * p1, -(q * p2), &e);
    float y, r = sl_vtwo_sumf(h, e - q * p3, &y);
    float ks = sl_vsin_kernelf(r), kc = sl_vcos_kernelf(r);
    sl_vquadrantf(sl_as_u32(t), ks + y * kc, kc - y * ks, s, c);
}

/* ---- cbrt ----------------------------------------------------------------------- */

/* ⌊h/3⌋ for 0 <= h < 2^32 without a 64-bit integer divide (which does not
 * vectorise): (h − 1)/3 is within 1/3 of the quotient, so rounding it to
 * an integer by adding 2^52 gives the quotient exactly. */
SL_HD SL_INLINE uint64_t sl_vdiv3(uint64_t h)
{
    double q = (sl_u52_to_f64(h) - 1.0) * (1.0 / 3.0) + 0x1p52;
    return sl_as_u64(q) & 0xffffffffull;
}

/* FreeBSD s_cbrt.c: a 5-bit start from the exponent divided by 3, a
 * polynomial to 23 bits, rounded away from zero to 23 bits so that t·t is
 * exact, then one Halley step: error < 0.667 ulp. Both starts (normal and,
 * scaled by 2^54, subnormal) are formed and one is selected. */
SL_HD SL_INLINE double sl_vcbrt(double x)
{
    const double P0 = 1.87595182427177009643, P1 = -1.88497979543377169875,
                 P2 = 1.621429720105354466140, P3 = -0.758397934778766047437,
                 P4 = 0.145996192886612446982;
    const uint64_t B1 = 715094163, B2 = 696219795;
    uint64_t u = sl_as_u64(x), sign = u & 0x8000000000000000ull;
    uint64_t hx = (u ^ sign) >> 32;
    uint64_t hs = (sl_as_u64(fabs(x) * 0x1p54) >> 32) & 0x7fffffffull;
    uint64_t h = sl_vsel_u64(fabs(x) < 0x1p-1022, sl_vdiv3(hs) + B2, sl_vdiv3(hx) + B1);
    double t = sl_as_f64(sign | (h << 32));
    double r = (t * t) * (t / x);
    t = t * ((P0 + r * (P1 + r * P2)) + ((r * r) * r) * (P3 + r * P4));
    t = sl_as_f64((sl_as_u64(t) + 0x80000000ull) & 0xffffffffc0000000ull);
    double s = t * t;
    r = x / s;
    r = (r - t) / ((t + t) + r);
    t = t + t * r;
    /* 0, inf and nan are their own cube roots */
    return sl_vsel((x == 0.0) | !(fabs(x) <= 0x1.fffffffffffffp1023), x + x, t);
}

/* FreeBSD s_cbrtf.c's start (5 bits), then in float (the original works
 * in double) a Halley step to ~16 bits and a Newton step,
 * t += (x/t² − t)/3, to float precision: two divisions. Valid for
 * |x| < 1e38 (the first step forms 3x). */
SL_HD SL_INLINE float sl_vcbrtf(float x)
{
    const uint32_t B1 = 709958130, B2 = 642849266;
    uint32_t u = sl_as_u32(x), sign = u & 0x80000000u, hx = u ^ sign;
    uint32_t hs = sl_as_u32(fabsf(x) * 0x1p24f) & 0x7fffffffu;
    uint32_t h = sl_vsel_u32(fabsf(x) < 0x1p-126f, hs / 3u + B2, hx / 3u + B1);
    float t = sl_as_f32(sign | h);
    float r = t * t * t;
    t = t * (((x + x) + r) / (x + (r + r)));
    t = t + (x / (t * t) - t) * (1.0f / 3.0f);
    return sl_vself((x == 0.0f) | !(fabsf(x) <= 0x1.fffffep127f), x + x, t);
}

/* ---- log ------------------------------------------------------------------------ */

/* FreeBSD e_log.c: x = 2^k (1 + f) with 1 + f in [√2/2, √2), s = f/(2 + f),
 * log(1 + f) = f − s(f − R(s²)) or, where f is large, with ½f² split out;
 * both are formed and one selected. Subnormals are scaled by 2^54 first. */
SL_HD SL_INLINE double sl_vlog(double x)
{
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10,
                 Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
                 Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
                 Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
                 Lg7 = 1.479819860511658591e-01;
    int sub = x < 0x1p-1022;
    double xs = sl_vsel(sub, x * 0x1p54, x);
    uint64_t u = sl_as_u64(xs);
    uint64_t hx = (u >> 32) & 0x000fffff;
    uint64_t i = (hx + 0x95f64) & 0x100000;
    /* the mantissa scaled into [√2/2, √2): exponent 0, or −1 when i is set */
    double y = sl_as_f64((u & 0x000fffffffffffffull) | ((i ^ 0x3ff00000ull) << 32));
    double dk = sl_u52_to_f64(((u >> 52) & 0x7ff) + (i >> 20)) - sl_vsel(sub, 1077.0, 1023.0);
    double f = y - 1.0;
    double s = f / (2.0 + f), z = s * s, w = z * z;
    double t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
    double t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
    double R = t2 + t1, hfsq = 0.5 * f * f;
    /* fdlibm's 0x6147a <= hx <= 0x6b851, on the mantissa in [1, 2) */
    double m1 = sl_as_f64((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    int big = (m1 >= 1.0 + 0x6147a * 0x1p-20) & (m1 < 1.0 + 0x6b852 * 0x1p-20);
    double l = sl_vsel(big, dk * ln2_hi - ((hfsq - (s * (hfsq + R) + dk * ln2_lo)) - f),
                       dk * ln2_hi - ((s * (f - R) - dk * ln2_lo) - f));
    /* log 0 = −inf, log of a negative = nan, log inf = inf, nan stays */
    double odd = sl_vsel(x == 0.0, -INFINITY, sl_vsel(x < 0.0, NAN, x + x));
    return sl_vsel((x > 0.0) & (x <= 0x1.fffffffffffffp1023), l, odd);
}

SL_HD SL_INLINE float sl_vlogf(float x)
{
    const float ln2_hi = 6.9313812256e-01f, ln2_lo = 9.0580006145e-06f,
                Lg1 = 0xaaaaaa.0p-24f, Lg2 = 0xccce13.0p-25f, Lg3 = 0x91e9ee.0p-25f,
                Lg4 = 0xf89e26.0p-26f;
    int sub = x < 0x1p-126f;
    float xs = sl_vself(sub, x * 0x1p25f, x);
    uint32_t u = sl_as_u32(xs);
    int32_t ix = (int32_t)(u & 0x007fffff);
    uint32_t i = (uint32_t)(ix + (0x95f64 << 3)) & 0x800000u;
    float y = sl_as_f32((uint32_t)ix | (i ^ 0x3f800000u));
    /* k is at most 9 bits: exact in float */
    float dk = (float)(int32_t)(((u >> 23) & 0xff) + (i >> 23)) - sl_vself(sub, 152.0f, 127.0f);
    float f = y - 1.0f;
    float s = f / (2.0f + f), z = s * s, w = z * z;
    float t1 = w * (Lg2 + w * Lg4), t2 = z * (Lg1 + w * Lg3);
    float R = t2 + t1, hfsq = 0.5f * f * f;
    int32_t big = (ix - (0x6147a << 3)) | ((0x6b851 << 3) - ix);
    float l = sl_vself(big > 0, dk * ln2_hi - ((hfsq - (s * (hfsq + R) + dk * ln2_lo)) - f),
                       dk * ln2_hi - ((s * (f - R) - dk * ln2_lo) - f));
    float odd = sl_vself(x == 0.0f, -INFINITY, sl_vself(x < 0.0f, NAN, x + x));
    return sl_vself((x > 0.0f) & (x <= 0x1.fffffep127f), l, odd);
}

#endif
