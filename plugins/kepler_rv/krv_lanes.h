/* One planet's velocity (krv_model.h) for the CPU's lane loops, where a
 * block of models is evaluated in lockstep, one model per SIMD lane.
 *
 * The arithmetic is that of sl_krv_v1 / sl_krv_v1f with Markley's solver
 * (kepler.h's _sc forms: starter, fifth-order correction, in double one
 * Newton step; sin E and cos E carried through the last correction by
 * Taylor), with these differences:
 *  - sin, cos, cbrt and floor come from vmath.h, so the lane loop
 *    vectorises (libm calls would keep it scalar), and the results are the
 *    same bits on every ISA clone;
 *  - the starter and Halley's step take one division where kepler.h takes
 *    two (a/b/c as a/(bc), a/b + c as (a + bc)/b): divisions are what the
 *    lane loop waits on, and these steps are followed by further
 *    corrections, so their rounding does not reach the result;
 *  - the solver stays on the branch of the reduced anomaly m in [−π, π]
 *    (E + (M − m) is never formed; the velocity needs only sin E, cos E),
 *    which also keeps the float sincos on its cheap domain |E| <= 100.
 * tests/test_krv_lanes.c checks them against Kepler's equation and
 * krv_model.h. */
#ifndef STARLING_KRV_LANES_H
#define STARLING_KRV_LANES_H

#include "krv_model.h"
#include "starling/kepler.h"
#include "vmath.h"

/* Models per block: two AVX-512 vectors of doubles (one of floats). Two
 * independent chains of divisions per lane loop keep the divider busy;
 * with 8 lanes the double mode ran at half the speed, 32 gained nothing. */
#define SL_KRV_LANES 16

/* sl_krv_phase and sl_kepler_reduce[_f] with the vectorisable floor (the
 * same values: floor is exact either way). */
SL_HD SL_INLINE double sl_krv_phase_v(double inv_p, double ph0, double dt)
{
    double x = dt * inv_p + ph0;
    return x - sl_vfloor(x);
}

SL_HD SL_INLINE double sl_krv_reduce_v(double M)
{
    return M - SL_KEPLER_TWO_PI * sl_vfloor(M * (1.0 / SL_KEPLER_TWO_PI) + 0.5);
}

SL_HD SL_INLINE float sl_krv_reduce_vf(float M)
{
    return M - (float)SL_KEPLER_TWO_PI * sl_vfloorf(M * (float)(1.0 / SL_KEPLER_TWO_PI) + 0.5f);
}

/* sl_kepler_markley_start with the vectorisable cbrt and two divisions
 * fewer. */
SL_HD SL_INLINE double sl_krv_markley_start_v(double m, double e)
{
    const double pi = SL_KEPLER_PI, pi2 = SL_KEPLER_PI * SL_KEPLER_PI;
    double am = fabs(m);
    double alpha = (3.0 * pi2 * (1.0 + e) + 1.6 * pi * (pi - am)) / ((pi2 - 6.0) * (1.0 + e));
    double d = 3.0 * (1.0 - e) + alpha * e;
    double q = 2.0 * alpha * d * (1.0 - e) - m * m;
    double r = 3.0 * alpha * d * (d - 1.0 + e) * m + m * m * m;
    double w = sl_vcbrt(fabs(r) + sqrt(q * q * q + r * r));
    w *= w;
    double den = w * w + w * q + q * q;
    return (2.0 * r * w + m * den) / (den * d);
}

/* E − e sin E = m for m in [−π, π], as sl_kepler_markley_sc: E on that
 * branch, with sin E and cos E taken from the sincos before the Newton
 * step by Taylor to second order in its tiny correction. */
SL_HD SL_INLINE void sl_krv_markley_v(double m, double e, double *E, double *sE, double *cE)
{
    double x = sl_krv_markley_start_v(m, e), s, c;
    sl_vsincos(x, &s, &c);
    double f0 = x - e * s - m, f1 = 1.0 - e * c, f2 = e * s, f3 = e * c;
    double d3 = -f0 * f1 / (f1 * f1 - 0.5 * f0 * f2);
    double d4 = -f0 / (f1 + 0.5 * d3 * f2 + d3 * d3 * f3 * (1.0 / 6.0));
    double d5 = -f0 / (f1 + 0.5 * d4 * f2 + d4 * d4 * f3 * (1.0 / 6.0) -
                       d4 * d4 * d4 * f2 * (1.0 / 24.0));
    x += d5;
    sl_vsincos(x, &s, &c);
    double d = -(x - e * s - m) / (1.0 - e * c);
    sl_kepler_sc_step(d, &s, &c);
    *E = x + d, *sE = s, *cE = c;
}

SL_HD SL_INLINE float sl_krv_markley_start_vf(float m, float e)
{
    const float pi = (float)SL_KEPLER_PI, pi2 = (float)(SL_KEPLER_PI * SL_KEPLER_PI);
    float am = fabsf(m);
    float alpha = (3.0f * pi2 * (1.0f + e) + 1.6f * pi * (pi - am)) / ((pi2 - 6.0f) * (1.0f + e));
    float d = 3.0f * (1.0f - e) + alpha * e;
    float q = 2.0f * alpha * d * (1.0f - e) - m * m;
    float r = 3.0f * alpha * d * (d - 1.0f + e) * m + m * m * m;
    float w = sl_vcbrtf(fabsf(r) + sqrtf(q * q * q + r * r));
    w *= w;
    float den = w * w + w * q + q * q;
    return (2.0f * r * w + m * den) / (den * d);
}

/* As sl_kepler_markley_sc_f: no Newton step (float has no digits left
 * for it), sin E and cos E from the starter's by Taylor in d5. */
SL_HD SL_INLINE void sl_krv_markley_vf(float m, float e, float *E, float *sE, float *cE)
{
    float x = sl_krv_markley_start_vf(m, e), s, c;
    sl_vsincosf_small(x, &s, &c);
    float f0 = x - e * s - m, f1 = 1.0f - e * c, f2 = e * s, f3 = e * c;
    float d3 = -f0 * f1 / (f1 * f1 - 0.5f * f0 * f2);
    float d4 = -f0 / (f1 + 0.5f * d3 * f2 + d3 * d3 * f3 * (1.0f / 6.0f));
    float d5 = -f0 / (f1 + 0.5f * d4 * f2 + d4 * d4 * f3 * (1.0f / 6.0f) -
                      d4 * d4 * d4 * f2 * (1.0f / 24.0f));
    sl_kepler_sc_step_f(d5, &s, &c);
    *E = x + d5, *sE = s, *cE = c;
}

/* sl_krv_v1 for one lane: the orbit passed as scalars so that the lane
 * loop reads structure-of-arrays blocks. */
SL_HD SL_INLINE double sl_krv_v1_lane(double inv_p, double ph0, double e, double a, double b,
                                      double dt)
{
    double m = sl_krv_reduce_v(SL_KEPLER_TWO_PI * sl_krv_phase_v(inv_p, ph0, dt));
    double E, s, c;
    sl_krv_markley_v(m, e, &E, &s, &c);
    return (a * c + b * s) / (1.0 - e * c);
}

/* sl_krv_v1f for one lane: the phase in double, the rest in float. */
SL_HD SL_INLINE float sl_krv_v1f_lane(double inv_p, double ph0, float e, float a, float b,
                                      double dt)
{
    const float two_pi = (float)SL_KEPLER_TWO_PI;
    float M = two_pi * (float)sl_krv_phase_v(inv_p, ph0, dt);
    M = sl_vself(M >= two_pi, M - two_pi, M);
    float E, s, c;
    sl_krv_markley_vf(sl_krv_reduce_vf(M), e, &E, &s, &c);
    return (a * c + b * s) / (1.0f - e * c);
}

#endif
