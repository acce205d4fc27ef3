/* The Keplerian RV model as SL_HD functions, shared by the CPU loop and
 * the CUDA kernels.
 *
 * Velocity of the star from one planet (RadVel's convention: ω is the
 * argument of periastron of the star's orbit, ν the true anomaly):
 *   v = K [cos(ν + ω) + e cos ω]
 *     = (a cos E + b sin E) / (1 − e cos E),
 *   a = K (1 − e²) cos ω,  b = −K sqrt(1 − e²) sin ω,
 * which needs one Kepler solve (returning sin E, cos E) per planet and time.
 *
 * Mean anomaly: M = 2π frac((t − epoch)/P + φ0), with φ0 = M0/(2π) or
 * (epoch − t_p)/P; the fractional phase is always taken in double (Ford
 * 2009: single precision there is not enough for real data), the rest is
 * float in the mixed mode. */
#ifndef STARLING_KRV_MODEL_H
#define STARLING_KRV_MODEL_H

#include <math.h>
#include "starling/kepler.h"

#define SL_KRV_MAX_PL 16
#define SL_KRV_NPP 5 /* parameters per planet */

enum {
    SL_KRV_BASIS_PKEWM0 = 0, /* P, K, e, ω, M0 (mean anomaly at epoch) */
    SL_KRV_BASIS_LN_TP = 1,  /* ln P, ln K, √e cos ω, √e sin ω, t_p */
    SL_KRV_BASIS_LN_TC = 2   /* ln P, ln K, √e cos ω, √e sin ω, t_c */
};

/* One planet, ready for the inner loop. */
typedef struct sl_krv_orbit {
    double inv_p, ph0; /* 1/P and the phase at epoch, in [0, 1) */
    double e, a, b;
} sl_krv_orbit;

typedef struct sl_krv_orbitf {
    double inv_p, ph0; /* the phase stays double */
    float e, a, b;
} sl_krv_orbitf;

/* Time of periastron from time of conjunction: the true anomaly there is
 * ν = π/2 − ω; E from ν (half-angle form, atan2 keeps the quadrant), then
 * t_p = t_c − P (E − e sin E)/(2π). */
SL_HD SL_INLINE double sl_krv_tc_to_tp(double tc, double P, double e, double w)
{
    double h = 0.5 * (0.5 * SL_KEPLER_PI - w), sh, ch;
    sl_sincos(h, &sh, &ch);
    double E = 2.0 * atan2(sqrt(1.0 - e) * sh, sqrt(1.0 + e) * ch);
    return tc - P * (E - e * sin(E)) * (1.0 / SL_KEPLER_TWO_PI);
}

/* Converts one planet's 5 parameters; returns 0 when they are outside the
 * model's domain (P <= 0, K < 0, e outside [0, 1), not finite). */
SL_HD SL_INLINE int sl_krv_orbit_from(const double *p, int basis, double epoch, sl_krv_orbit *o)
{
    double P, K, e, cw, sw, ph0;
    if (basis == SL_KRV_BASIS_PKEWM0) {
        P = p[0], K = p[1], e = p[2];
        sl_sincos(p[3], &sw, &cw);
        ph0 = p[4] * (1.0 / SL_KEPLER_TWO_PI);
    } else {
        P = exp(p[0]), K = exp(p[1]);
        e = p[2] * p[2] + p[3] * p[3];
        if (e > 0.0) {
            double r = sqrt(e);
            cw = p[2] / r, sw = p[3] / r;
        } else {
            cw = 1.0, sw = 0.0;
        }
        double tp = p[4];
        if (basis == SL_KRV_BASIS_LN_TC && e < 1.0)
            tp = sl_krv_tc_to_tp(p[4], P, e, atan2(sw, cw));
        ph0 = (epoch - tp) / P;
    }
    if (!(P > 0.0 && K >= 0.0 && e >= 0.0 && e < 1.0) || !isfinite(P) || !isfinite(K) ||
        !isfinite(ph0) || !isfinite(cw) || !isfinite(sw))
        return 0;
    double beta2 = (1.0 - e) * (1.0 + e);
    o->inv_p = 1.0 / P;
    o->ph0 = ph0 - floor(ph0);
    o->e = e;
    o->a = K * beta2 * cw;
    o->b = -K * sqrt(beta2) * sw;
    return 1;
}

SL_HD SL_INLINE double sl_krv_phase(double inv_p, double ph0, double dt)
{
    double x = dt * inv_p + ph0;
    return x - floor(x);
}

/* Kepler solver of the velocity loops; the CUDA kernels are stamped for
 * both (bench/rv_bench measures them), the CPU uses Markley's. */
enum { SL_KRV_MARKLEY = 0, SL_KRV_DANBY = 1 };

/* One planet's velocity at dt = t − epoch, double. The solver returns
 * sin E and cos E with E, so one planet and time costs one solve. */
SL_HD SL_INLINE double sl_krv_v1s(const sl_krv_orbit *o, double dt, int solver)
{
    double M = SL_KEPLER_TWO_PI * sl_krv_phase(o->inv_p, o->ph0, dt), s, c;
    if (solver == SL_KRV_DANBY)
        sl_kepler_danby_sc(M, o->e, &s, &c);
    else
        sl_kepler_markley_sc(M, o->e, &s, &c);
    return (o->a * c + o->b * s) / (1.0 - o->e * c);
}

SL_HD SL_INLINE double sl_krv_v1(const sl_krv_orbit *o, double dt)
{
    return sl_krv_v1s(o, dt, SL_KRV_MARKLEY);
}

/* Mixed: the phase in double, M wrapped into [0, 2π) in float, the rest float. */
SL_HD SL_INLINE float sl_krv_v1fs(const sl_krv_orbitf *o, double dt, int solver)
{
    float M = (float)SL_KEPLER_TWO_PI * (float)sl_krv_phase(o->inv_p, o->ph0, dt), s, c;
    if (M >= (float)SL_KEPLER_TWO_PI)
        M -= (float)SL_KEPLER_TWO_PI;
    if (solver == SL_KRV_DANBY)
        sl_kepler_danby_sc_f(M, o->e, &s, &c);
    else
        sl_kepler_markley_sc_f(M, o->e, &s, &c);
    return (o->a * c + o->b * s) / (1.0f - o->e * c);
}

SL_HD SL_INLINE float sl_krv_v1f(const sl_krv_orbitf *o, double dt)
{
    return sl_krv_v1fs(o, dt, SL_KRV_MARKLEY);
}

SL_HD SL_INLINE void sl_krv_orbit_to_f(const sl_krv_orbit *o, sl_krv_orbitf *f)
{
    f->inv_p = o->inv_p, f->ph0 = o->ph0;
    f->e = (float)o->e, f->a = (float)o->a, f->b = (float)o->b;
}

/* Kahan's compensated sum: s += x with the lost low part kept in c. */
SL_HD SL_INLINE void sl_kahan_addf(float *s, float *c, float x)
{
    float u = x - *c;
    float w = *s + u;
    *c = (w - *s) - u;
    *s = w;
}

/* Sum over planets, double (n_pl a literal after inlining in the kernels). */
SL_HD SL_INLINE double sl_krv_vsums(int n_pl, const sl_krv_orbit *o, double dt, int solver)
{
    double v = 0.0;
    for (int j = 0; j < n_pl; j++)
        v += sl_krv_v1s(&o[j], dt, solver);
    return v;
}

SL_HD SL_INLINE double sl_krv_vsum(int n_pl, const sl_krv_orbit *o, double dt)
{
    return sl_krv_vsums(n_pl, o, dt, SL_KRV_MARKLEY);
}

SL_HD SL_INLINE float sl_krv_vsumfs(int n_pl, const sl_krv_orbitf *o, double dt, int solver)
{
    float s = 0.0f, c = 0.0f;
    for (int j = 0; j < n_pl; j++)
        sl_kahan_addf(&s, &c, sl_krv_v1fs(&o[j], dt, solver));
    return s;
}

SL_HD SL_INLINE float sl_krv_vsumf(int n_pl, const sl_krv_orbitf *o, double dt)
{
    return sl_krv_vsumfs(n_pl, o, dt, SL_KRV_MARKLEY);
}

/* The model's parts that are not Keplerians, for one observation. */
typedef struct sl_krv_extra {
    double gamma, jit2;  /* the current instrument's offset and jitter² */
    double dvdt, curv;   /* trend terms (0 when not fitted) */
} sl_krv_extra;

/* Running sums of one model: chi² and Σ ln 2π(σ² + s²). */
typedef struct sl_krv_sums {
    double chi2, lnw;
} sl_krv_sums;

SL_HD SL_INLINE void sl_krv_obs_ds(int n_pl, const sl_krv_orbit *o, const sl_krv_extra *x,
                                   double dt, double v, double var, sl_krv_sums *acc, int solver)
{
    double m = sl_krv_vsums(n_pl, o, dt, solver) + x->gamma + dt * (x->dvdt + dt * x->curv);
    double r = v - m, w = var + x->jit2;
    acc->chi2 += r * r / w;
    acc->lnw += log(SL_KEPLER_TWO_PI * w);
}

SL_HD SL_INLINE void sl_krv_obs_d(int n_pl, const sl_krv_orbit *o, const sl_krv_extra *x,
                                  double dt, double v, double var, sl_krv_sums *acc)
{
    sl_krv_obs_ds(n_pl, o, x, dt, v, var, acc, SL_KRV_MARKLEY);
}

typedef struct sl_krv_sumsf {
    float chi2, c_chi2, lnw, c_lnw; /* Kahan sums and their compensations */
} sl_krv_sumsf;

SL_HD SL_INLINE void sl_krv_obs_fs(int n_pl, const sl_krv_orbitf *o, const sl_krv_extra *x,
                                   double dt, float v, float var, sl_krv_sumsf *acc, int solver)
{
    float fdt = (float)dt;
    float m = sl_krv_vsumfs(n_pl, o, dt, solver) + (float)x->gamma +
              fdt * ((float)x->dvdt + fdt * (float)x->curv);
    float r = v - m, w = var + (float)x->jit2;
    sl_kahan_addf(&acc->chi2, &acc->c_chi2, r * r / w);
    sl_kahan_addf(&acc->lnw, &acc->c_lnw, logf((float)SL_KEPLER_TWO_PI * w));
}

SL_HD SL_INLINE void sl_krv_obs_f(int n_pl, const sl_krv_orbitf *o, const sl_krv_extra *x,
                                  double dt, float v, float var, sl_krv_sumsf *acc)
{
    sl_krv_obs_fs(n_pl, o, x, dt, v, var, acc, SL_KRV_MARKLEY);
}

#endif
