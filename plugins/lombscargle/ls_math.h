/* Lomb-Scargle sums and the power formula, written once as SL_HD C for the
 * CPU loops and the CUDA kernels.
 *
 * One pass over the points per frequency (the SciPy/Townsend form): with
 * normalised weights w_j (sum 1), centred values y_j, and c_j, s_j the cosine
 * and sine of omega t_j, accumulate
 *   C = sum w c, S = sum w s, YC = sum w y c, YS = sum w y s,
 *   CC = sum w c^2, SS = sum w s^2, CS = sum w c s.
 * The time shift tau (tan 2 omega tau = S2 / C2) is then applied by rotating
 * these sums instead of making a second pass with cos omega (t - tau): the
 * result is astropy's formula (slow/cython methods) term for term,
 * with one sincos per point and frequency instead of two. */
#ifndef STARLING_LS_MATH_H
#define STARLING_LS_MATH_H

#include <math.h>
#include "starling/hd.h"
#include "lombscargle.h"

typedef struct sl_ls_sums {
    double C, S, YC, YS, CC, SS, CS;
} sl_ls_sums;

/* Per-object constants the power formula needs. */
typedef struct sl_ls_obj {
    int64_t first, n;   /* points first .. first + n - 1 of the packed arrays */
    double f0, df;      /* grid f0 + k df */
    int64_t n_f;
    int64_t out;        /* offset of this object's powers in the full output */
    double Y;           /* sum w y after centring (~0; kept as astropy keeps it) */
    double YY;          /* sum w y^2 */
    double psd;         /* 0.5 * sum dy^-2: the psd normalisation's factor */
    int flag;           /* sl_ls_flag: no work when set */
    int fast;           /* 1: the FAST engine (ls_fast.c) computes it, not the direct sum */
} sl_ls_obj;

/* Fraction of a cycle in [-0.5, 0.5]: the phase f t is formed in double
 * and reduced before any trigonometry, so FP32 paths lose nothing to the
 * size of f t (1e5 cycles would leave float ~0.01 rad of phase). */
SL_HD SL_INLINE double sl_ls_cycles(double f, double t)
{
    double p = f * t;
    return p - rint(p);
}

SL_HD SL_INLINE void sl_ls_sincos2pi(double r, double *s, double *c)
{
#if defined(__CUDA_ARCH__)
    sincospi(2.0 * r, s, c);
#else
    double a = 2.0 * M_PI * r;
    *s = sin(a);
    *c = cos(a);
#endif
}

SL_HD SL_INLINE void sl_ls_sincos2pif(float r, float *s, float *c)
{
#if defined(__CUDA_ARCH__)
    sincospif(2.0f * r, s, c);
#else
    float a = (float)(2.0 * M_PI) * r;
    *s = sinf(a);
    *c = cosf(a);
#endif
}

/* The power at one frequency from the sums; normalised as astropy does.
 * generalised: subtract the floating mean's share (fit_mean=True). */
SL_HD SL_INLINE double sl_ls_power(const sl_ls_sums *m, const sl_ls_obj *o, int generalised,
                                   int norm)
{
    double S2 = 2.0 * m->CS, C2 = m->CC - m->SS;
    if (generalised) {
        S2 -= 2.0 * m->S * m->C;
        C2 -= m->C * m->C - m->S * m->S;
    }
    double th = 0.5 * atan2(S2, C2), st, ct;
#if defined(__CUDA_ARCH__)
    sincos(th, &st, &ct);
#else
    st = sin(th);
    ct = cos(th);
#endif
    /* cos(wt - th) = c ct + s st, sin(wt - th) = s ct - c st */
    double YCt = ct * m->YC + st * m->YS;
    double YSt = ct * m->YS - st * m->YC;
    double cs2 = 2.0 * ct * st * m->CS;
    double CCt = ct * ct * m->CC + cs2 + st * st * m->SS;
    double SSt = ct * ct * m->SS - cs2 + st * st * m->CC;
    if (generalised) {
        double Ct = ct * m->C + st * m->S, Stt = ct * m->S - st * m->C;
        YCt -= o->Y * Ct;
        YSt -= o->Y * Stt;
        CCt -= Ct * Ct;
        SSt -= Stt * Stt;
    }
    double p = YCt * YCt / CCt + YSt * YSt / SSt;
    switch (norm) {
    case SL_LS_NORM_MODEL: return p / (o->YY - p);
    case SL_LS_NORM_LOG: return -log(1.0 - p / o->YY);
    case SL_LS_NORM_PSD: return p * o->psd; /* = standard * 0.5 sum dy^-2 y^2 */
    default: return p / o->YY;
    }
}

SL_HD SL_INLINE void sl_ls_sums_zero(sl_ls_sums *m)
{
    m->C = m->S = m->YC = m->YS = m->CC = m->SS = m->CS = 0.0;
}

/* One point's contribution: w its normalised weight, wy = w * y. */
SL_HD SL_INLINE void sl_ls_add(sl_ls_sums *m, double c, double s, double w, double wy)
{
    double wc = w * c, ws = w * s;
    m->C += wc;
    m->S += ws;
    m->YC += wy * c;
    m->YS += wy * s;
    m->CC += wc * c;
    m->SS += ws * s;
    m->CS += wc * s;
}

#endif
