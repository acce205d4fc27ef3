/* Kepler's equation, written once as SL_HD C for the CPU and for CUDA.
 *
 * Elliptic: E − e sin E = M (0 <= e < 1). Two solvers, float and double:
 *
 *  - sl_kepler_danby[_f]: the seed's solver (Ford 2009, after Danby 1988):
 *    start E0 = M + 0.85 e sign(sin M), then Danby's quartic Newton
 *    corrections until |f| is below a tolerance, at most SL_KEPLER_MAXIT
 *    times (a GPU thread must never loop unbounded).
 *  - sl_kepler_markley[_f]: Markley (1995, Celest. Mech. 63, 101): a Padé
 *    starter whose error is ~1e-4 rad at worst, then one fifth-order
 *    correction, then one Newton step that mops up what the fifth-order
 *    step leaves near e -> 1, M -> 0. No data-dependent loop, so neighbouring
 *    GPU threads never diverge; bench/rv_bench measures both.
 *
 * Both reduce M to [−π, π] (where the starters are designed and where float
 * has its finest spacing) and return E on the same branch as the M given,
 * so E − e sin E − M is small for any finite M.
 *
 * Hyperbolic: e sinh F − F = M (e > 1), for the N-body Kepler drift:
 * sl_kepler_hyperbolic, double only.
 *
 * Accuracy (tests/test_kepler_solver.c, dense grid and random draws over
 * e in [0, 0.999], M in [0, 2π) with M -> 0): |E − e sin E − M| <= 1e-13
 * in double and <= 2e-6 in float (residual evaluated in double). */
#ifndef STARLING_KEPLER_H
#define STARLING_KEPLER_H

#include <math.h>
#include "starling/hd.h"

#define SL_KEPLER_MAXIT 10
#define SL_KEPLER_TWO_PI 6.283185307179586476925286766559
#define SL_KEPLER_PI 3.141592653589793238462643383280

/* One sincos: the device has it as an intrinsic; on the host GCC fuses a
 * sin and a cos of the same argument into one sincos call itself. */
SL_HD SL_INLINE void sl_sincos(double x, double *s, double *c)
{
#if defined(__CUDA_ARCH__)
    sincos(x, s, c);
#else
    *s = sin(x);
    *c = cos(x);
#endif
}

SL_HD SL_INLINE void sl_sincosf(float x, float *s, float *c)
{
#if defined(__CUDA_ARCH__)
    sincosf(x, s, c);
#else
    *s = sinf(x);
    *c = cosf(x);
#endif
}

/* M − 2πk with k the nearest integer: the representative in [−π, π]. */
SL_HD SL_INLINE double sl_kepler_reduce(double M)
{
    return M - SL_KEPLER_TWO_PI * floor(M * (1.0 / SL_KEPLER_TWO_PI) + 0.5);
}

SL_HD SL_INLINE float sl_kepler_reduce_f(float M)
{
    return M - (float)SL_KEPLER_TWO_PI * floorf(M * (float)(1.0 / SL_KEPLER_TWO_PI) + 0.5f);
}

/* x / y where a few ulps do not matter (a last small correction): the
 * device's approximate division is two instructions, the IEEE one a
 * dozen with a slow-path branch. */
SL_HD SL_INLINE float sl_fast_divf(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fdividef(x, y);
#else
    return x / y;
#endif
}

/* sin and cos at E + d from those at E, to second order in d (error
 * ~|d|³/6): for the small last step of a solver, whose sincos is not redone. */
SL_HD SL_INLINE void sl_kepler_sc_step(double d, double *s, double *c)
{
    double h = 0.5 * d * d, s0 = *s, c0 = *c;
    *s = s0 + d * c0 - h * s0;
    *c = c0 - d * s0 - h * c0;
}

SL_HD SL_INLINE void sl_kepler_sc_step_f(float d, float *s, float *c)
{
    float h = 0.5f * d * d, s0 = *s, c0 = *c;
    *s = s0 + d * c0 - h * s0;
    *c = c0 - d * s0 - h * c0;
}

/* ---- Danby's quartic iteration (the seed's solver) ----------------------- */

/* The seed prints δ3 = −f/(f' + δ2(f'' + δ2² f''')/3)/2); Danby's form,
 * used here, is δ3 = −f/(f' + δ2 f''/2 + δ2² f'''/6).
 * The seed stops once |f| is below the tolerance and keeps that E, whose
 * error is then up to |f|/f' (1e-4 rad in float for e = 0.99 near
 * periastron, where f' ~ 0.01). In float, one Newton step from that last
 * f is still taken (an approximate division, no further sincos: sin and
 * cos follow by sl_kepler_sc_step), which leaves ~(f''/2f')(|f|/f')². In
 * double the seed's 1e-15 leaves ~1e-12 at worst and nothing is added.
 * (The full quartic correction there halves the GPU's solves/s, an IEEE
 * Newton division costs a quarter.) */
SL_HD SL_INLINE double sl_kepler_danby_sc(double M, double e, double *sE, double *cE)
{
    double m = sl_kepler_reduce(M);
    double E = m + 0.85 * e * (m >= 0.0 ? 1.0 : -1.0); /* sign(sin m) on [−π, π] */
    double s, c;
    int done = 0;
    for (int i = 0; i < SL_KEPLER_MAXIT; i++) {
        sl_sincos(E, &s, &c);
        double f = E - e * s - m;
        /* 1e-15 is a few ulps of π: below it the residual is rounding */
        if (fabs(f) < 1e-15) {
            done = 1;
            break;
        }
        double f1 = 1.0 - e * c, f2 = e * s, f3 = e * c;
        double d1 = -f / f1;
        double d2 = -f / (f1 + 0.5 * d1 * f2);
        double d3 = -f / (f1 + 0.5 * d2 * f2 + d2 * d2 * f3 * (1.0 / 6.0));
        E += d3;
    }
    if (!done)
        sl_sincos(E, &s, &c);
    *sE = s, *cE = c;
    return E + (M - m);
}

SL_HD SL_INLINE double sl_kepler_danby(double M, double e)
{
    double s, c;
    return sl_kepler_danby_sc(M, e, &s, &c);
}

SL_HD SL_INLINE float sl_kepler_danby_sc_f(float M, float e, float *sE, float *cE)
{
    float m = sl_kepler_reduce_f(M);
    float E = m + 0.85f * e * (m >= 0.0f ? 1.0f : -1.0f);
    float s, c;
    int done = 0;
    float f = 0.0f, f1 = 1.0f;
    for (int i = 0; i < SL_KEPLER_MAXIT; i++) {
        sl_sincosf(E, &s, &c);
        f = E - e * s - m;
        f1 = 1.0f - e * c;
        if (fabsf(f) < 1e-6f) { /* the seed's single-precision tolerance */
            done = 1;
            break;
        }
        float f2 = e * s, f3 = e * c;
        float d1 = -f / f1;
        float d2 = -f / (f1 + 0.5f * d1 * f2);
        float d3 = -f / (f1 + 0.5f * d2 * f2 + d2 * d2 * f3 * (1.0f / 6.0f));
        E += d3;
    }
    if (done) {
        float d = -sl_fast_divf(f, f1);
        E += d;
        sl_kepler_sc_step_f(d, &s, &c);
    } else {
        sl_sincosf(E, &s, &c);
    }
    *sE = s, *cE = c;
    return E + (M - m);
}

SL_HD SL_INLINE float sl_kepler_danby_f(float M, float e)
{
    float s, c;
    return sl_kepler_danby_sc_f(M, e, &s, &c);
}

/* ---- Markley's non-iterative solver ----------------------------------------- */

/* Markley's starter for m in [−π, π]: the root of a cubic that matches a
 * Padé approximant of sin E, taken in closed form. */
SL_HD SL_INLINE double sl_kepler_markley_start(double m, double e)
{
    const double pi = SL_KEPLER_PI, pi2 = SL_KEPLER_PI * SL_KEPLER_PI;
    double am = fabs(m);
    double alpha = (3.0 * pi2 + 1.6 * pi * (pi - am) / (1.0 + e)) / (pi2 - 6.0);
    double d = 3.0 * (1.0 - e) + alpha * e;
    double q = 2.0 * alpha * d * (1.0 - e) - m * m;
    double r = 3.0 * alpha * d * (d - 1.0 + e) * m + m * m * m;
    double w = cbrt(fabs(r) + sqrt(q * q * q + r * r));
    w *= w;
    return (2.0 * r * w / (w * w + w * q + q * q) + m) / d;
}

/* The _sc forms also return sin E and cos E, which an RV model needs next:
 * Danby's come from its last iteration's sincos; Markley's last (Newton)
 * step δ is tiny, so sin and cos follow from the sincos before it by
 * Taylor to second order (error ~δ³/6, below rounding for |δ| < 1e-5). */
SL_HD SL_INLINE double sl_kepler_markley_sc(double M, double e, double *sE, double *cE)
{
    double m = sl_kepler_reduce(M);
    double E = sl_kepler_markley_start(m, e);
    double s, c;
    sl_sincos(E, &s, &c);
    double f0 = E - e * s - m, f1 = 1.0 - e * c, f2 = e * s, f3 = e * c;
    /* third-, fourth- then fifth-order corrections, each built on the last */
    double d3 = -f0 / (f1 - 0.5 * f0 * f2 / f1);
    double d4 = -f0 / (f1 + 0.5 * d3 * f2 + d3 * d3 * f3 * (1.0 / 6.0));
    double d5 = -f0 / (f1 + 0.5 * d4 * f2 + d4 * d4 * f3 * (1.0 / 6.0) -
                       d4 * d4 * d4 * f2 * (1.0 / 24.0));
    E += d5;
    /* one Newton step: near e -> 1, M -> 0, f' is ~1e-3 and the fifth-order
     * step alone leaves residuals of ~1e-12 there */
    sl_sincos(E, &s, &c);
    double d = -(E - e * s - m) / (1.0 - e * c);
    E += d;
    sl_kepler_sc_step(d, &s, &c);
    *sE = s, *cE = c;
    return E + (M - m);
}

SL_HD SL_INLINE double sl_kepler_markley(double M, double e)
{
    double s, c;
    return sl_kepler_markley_sc(M, e, &s, &c);
}

SL_HD SL_INLINE float sl_kepler_markley_start_f(float m, float e)
{
    const float pi = (float)SL_KEPLER_PI, pi2 = (float)(SL_KEPLER_PI * SL_KEPLER_PI);
    float am = fabsf(m);
    float alpha = (3.0f * pi2 + 1.6f * pi * (pi - am) / (1.0f + e)) / (pi2 - 6.0f);
    float d = 3.0f * (1.0f - e) + alpha * e;
    float q = 2.0f * alpha * d * (1.0f - e) - m * m;
    float r = 3.0f * alpha * d * (d - 1.0f + e) * m + m * m * m;
    float w = cbrtf(fabsf(r) + sqrtf(q * q * q + r * r));
    w *= w;
    return (2.0f * r * w / (w * w + w * q + q * q) + m) / d;
}

/* Float: no Newton step; sin and cos at E + d5 by Taylor to second order
 * (|d5| is ~1e-4 at worst, so the error is ~1e-13, far below float). */
SL_HD SL_INLINE float sl_kepler_markley_sc_f(float M, float e, float *sE, float *cE)
{
    float m = sl_kepler_reduce_f(M);
    float E = sl_kepler_markley_start_f(m, e);
    float s, c;
    sl_sincosf(E, &s, &c);
    float f0 = E - e * s - m, f1 = 1.0f - e * c, f2 = e * s, f3 = e * c;
    float d3 = -f0 / (f1 - 0.5f * f0 * f2 / f1);
    float d4 = -f0 / (f1 + 0.5f * d3 * f2 + d3 * d3 * f3 * (1.0f / 6.0f));
    float d5 = -f0 / (f1 + 0.5f * d4 * f2 + d4 * d4 * f3 * (1.0f / 6.0f) -
                      d4 * d4 * d4 * f2 * (1.0f / 24.0f));
    sl_kepler_sc_step_f(d5, &s, &c);
    *sE = s, *cE = c;
    return E + d5 + (M - m);
}

SL_HD SL_INLINE float sl_kepler_markley_f(float M, float e)
{
    float s, c;
    return sl_kepler_markley_sc_f(M, e, &s, &c);
}

/* ---- hyperbolic: e sinh F − F = M, e > 1 ----------------------------------- */

/* The start is an upper bound of the root for M > 0, from
 * e sinh F − F >= e F³/6 and e sinh F − F >= (e − 1) sinh F; f is convex
 * there, so Newton-type steps from above decrease towards the root without
 * overshooting far. Odd symmetry gives M < 0. */
SL_HD SL_INLINE double sl_kepler_hyperbolic(double M, double e)
{
    double am = fabs(M);
    double F = fmin(cbrt(6.0 * am / e), asinh(am / (e - 1.0)));
    for (int i = 0; i < 4 * SL_KEPLER_MAXIT; i++) {
        double sh = sinh(F), ch = cosh(F);
        double f = e * sh - F - am;
        double f1 = e * ch - 1.0, f2 = e * sh, f3 = e * ch;
        double d1 = -f / f1;
        double d2 = -f / (f1 + 0.5 * d1 * f2);
        double d3 = -f / (f1 + 0.5 * d2 * f2 + d2 * d2 * f3 * (1.0 / 6.0));
        F += d3;
        if (!(fabs(d3) > 1e-15 * (1.0 + F)))
            break;
    }
    return M < 0.0 ? -F : F;
}

#endif
