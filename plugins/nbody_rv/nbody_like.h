/* The nbody_rv and ttv likelihoods' shared pieces, as SL_HD code for the
 * CPU loop (nbody_rv.c, nbody_eval.c) and the CUDA kernel (nbody_cuda.cu):
 * the data as the evaluation sees it, one model's parameters read into a
 * system, and the reasons a model gets ln L = -inf.
 *
 * Parameter vector of one model:
 *   nbody_rv: planet j (j = 1..n_pl), 5 values in kepler_rv's basis
 *     (P K e w M0 | lnP lnK secosw sesinw tp | ... tc), then inc_j and
 *     Omega_j (radians) when `inclined`; gamma_<inst>, jit_<inst> per
 *     instrument (m/s); dvdt, curv (trend, about the epoch), as kepler_rv.
 *   ttv: planet j, P (days), m (Earth masses), secosw, sesinw, tc (a
 *     mid-transit time, days), then inc_j and Omega_j when `inclined`.
 * Angles follow nbody_elements.h: ω of the star's reflex orbit (the
 * planet's is ω + π), i from the sky plane (π/2 edge-on, the value when
 * not fitted), Ω = 0 when not fitted. */
#ifndef STARLING_NBODY_LIKE_H
#define STARLING_NBODY_LIKE_H

#include <math.h>
#include <stdint.h>
#include "krv_model.h"
#include "nbody_elements.h"

#define SL_NBODY_MAX_PL 6   /* planets: N = 2..7 bodies are compiled */
#define SL_NBODY_MAX_INST 16 /* instruments (rv_data.h's SL_RV_MAX_INST) */
/* The Earth's mass in solar masses (IAU 2015 nominal GM_E / GM_S). */
#define SL_NBODY_M_EARTH (3.986004e14 / 1.3271244e20)

/* Why a model got ln L = -inf (counted per context: sl_likelihood.counters). */
enum {
    SL_NBODY_OK = 0,
    SL_NBODY_DOMAIN,     /* a parameter outside its domain, or a mass from K that does not settle */
    SL_NBODY_UNSTABLE,   /* the state turned non-finite: a close encounter the step cannot follow */
    SL_NBODY_UNBOUND,    /* a planet on an unbound orbit about the star at the end of a pass */
    SL_NBODY_NO_TRANSIT, /* ttv: a planet with observed transits never crosses the star */
    SL_NBODY_N_REASONS
};

/* The integrators a model runs with (the option's words' order). */
enum { SL_NBODY_MVS = 0, SL_NBODY_HERMITE = 1 };
enum { SL_NBODY_KIND_RV = 0, SL_NBODY_KIND_TTV = 1 };

/* The part of a model's run one evaluation makes: both directions from
 * the epoch (one thread a model), or one of them (the device's pair of
 * threads a model, each summing its own terms). */
enum { SL_NBODY_BOTH = 0, SL_NBODY_FORWARD = 1, SL_NBODY_BACKWARD = 2 };

/* The data and options a model is evaluated with, all in starling's units
 * (time 1/k days, velocity SL_NBODY_V_UNIT), read-only during evaluation:
 * the pointers are host memory on the CPU and device memory in a kernel. */
typedef struct sl_nbody_view {
    int kind, n_pl, basis, trend, inclined, n_inst;
    double epoch_days, mstar;
    double dt;     /* > 0: the fixed step; 0: P_1 / steps per model */
    double steps;  /* steps per innermost period when dt = 0 */
    double pp_tail[4]; /* the integrator's packed keys after dt (mvs: ratio, corrector, coordinates, tol) */
    /* RV: n_rv observations sorted by time, t relative to the epoch */
    int n_rv;
    const double *t_rv, *v_rv, *var_rv; /* time units, m/s, (m/s)² */
    const int *inst_rv;
    /* TTV: planet j's observed transits tr_start[j - 1] .. tr_start[j] - 1, sorted */
    int n_tr;
    int tr_start[SL_NBODY_MAX_PL + 1];
    const double *t_tr, *ivar_tr; /* time units after the epoch, 1 / error² */
    double t_tr_last;             /* the latest observed transit */
    int n_par;
} sl_nbody_view;

/* A model's planets and the rest of its parameters. */
typedef struct sl_nbody_model {
    sl_nbody_elements el[SL_NBODY_MAX_PL];
    double gamma[SL_NBODY_MAX_INST], jit2[SL_NBODY_MAX_INST], dvdt, curv; /* m/s, days */
} sl_nbody_model;

/* Per planet: the parameters before the instruments'. */
SL_HD SL_INLINE int sl_nbody_per_planet(const sl_nbody_view *d)
{
    return SL_KRV_NPP + (d->inclined ? 2 : 0);
}

/* One planet's values in nbody_rv's basis into its elements (days, m/s in;
 * starling's units out); 0 outside the domain. */
SL_HD SL_INLINE int sl_nbody_rv_planet(const double *p, int basis, double epoch,
                                       sl_nbody_elements *o)
{
    double P, K, e, w, M0;
    if (basis == SL_KRV_BASIS_PKEWM0) {
        P = p[0], K = p[1], e = p[2], w = p[3], M0 = p[4];
    } else {
        P = exp(p[0]), K = exp(p[1]);
        e = p[2] * p[2] + p[3] * p[3];
        w = e > 0.0 ? atan2(p[3], p[2]) : 0.0;
        double tp = p[4];
        if (basis == SL_KRV_BASIS_LN_TC && e < 1.0)
            tp = sl_krv_tc_to_tp(p[4], P, e, w);
        M0 = SL_KEPLER_TWO_PI * (epoch - tp) / P;
    }
    if (!(P > 0.0 && K >= 0.0 && e >= 0.0 && e < 1.0) || !isfinite(P) || !isfinite(K) ||
        !isfinite(w) || !isfinite(M0))
        return 0;
    o->P = P * SL_NBODY_K_GAUSS, o->K = K / SL_NBODY_V_UNIT, o->e = e, o->w = w;
    o->M0 = fmod(M0, SL_KEPLER_TWO_PI);
    o->inc = 0.5 * SL_KEPLER_PI, o->Omega = 0.0;
    return 1;
}

/* K (velocity units) of a planet of mass m about the interior mass m_in
 * (the inverse of sl_nbody_mass_from_k). */
SL_HD SL_INLINE double sl_nbody_k_from_mass(double m, double P, double e, double sin_i,
                                            double m_in)
{
    const double s = cbrt(m_in + m);
    return cbrt(SL_KEPLER_TWO_PI / P) * m * sin_i / (s * s) / sqrt((1.0 - e) * (1.0 + e));
}

/* The elements of a model's planets, masses (ttv) made into K in order,
 * the interior mass growing; 0 outside the domain. */
SL_HD SL_INLINE int sl_nbody_unpack(const sl_nbody_view *d, const double *p, sl_nbody_model *M)
{
    const int npp = sl_nbody_per_planet(d);
    double m_in = d->mstar;
    int ok = 1;
    M->dvdt = M->curv = 0.0;
    for (int j = 0; j < d->n_pl && ok; j++) {
        const double *q = p + npp * j;
        sl_nbody_elements *o = &M->el[j];
        if (d->kind == SL_NBODY_KIND_RV) {
            ok = sl_nbody_rv_planet(q, d->basis, d->epoch_days, o);
        } else {
            const double P = q[0], mp = q[1] * SL_NBODY_M_EARTH;
            const double e = q[2] * q[2] + q[3] * q[3];
            const double w = e > 0.0 ? atan2(q[3], q[2]) : 0.0;
            ok = P > 0.0 && mp >= 0.0 && e < 1.0 && isfinite(P) && isfinite(mp) &&
                 isfinite(q[4]) && isfinite(w);
            if (ok) {
                const double tp = sl_krv_tc_to_tp(q[4], P, e, w);
                o->P = P * SL_NBODY_K_GAUSS, o->e = e, o->w = w;
                o->M0 = fmod(SL_KEPLER_TWO_PI * (d->epoch_days - tp) / P, SL_KEPLER_TWO_PI);
                o->inc = 0.5 * SL_KEPLER_PI, o->Omega = 0.0;
                o->K = 0.0; /* set below, once the inclination is known */
            }
        }
        if (ok && d->inclined) {
            o->inc = q[SL_KRV_NPP], o->Omega = q[SL_KRV_NPP + 1];
            ok = o->inc > 0.0 && o->inc < SL_KEPLER_PI && isfinite(o->Omega);
        }
        if (ok && d->kind == SL_NBODY_KIND_TTV) {
            const double mp = q[1] * SL_NBODY_M_EARTH;
            o->K = sl_nbody_k_from_mass(mp, o->P, o->e, sin(o->inc), m_in);
            m_in += mp;
        }
    }
    if (!ok || d->kind != SL_NBODY_KIND_RV)
        return ok;
    const double *q = p + npp * d->n_pl;
    for (int i = 0; i < d->n_inst; i++) {
        const double s = q[d->n_inst + i];
        ok &= isfinite(q[i]) && isfinite(s) && s >= 0.0;
        M->gamma[i] = q[i];
        M->jit2[i] = s * s;
    }
    M->dvdt = d->trend >= 1 ? q[2 * d->n_inst] : 0.0;
    M->curv = d->trend >= 2 ? q[2 * d->n_inst + 1] : 0.0;
    return ok && isfinite(M->dvdt) && isfinite(M->curv);
}

/* The integrator's packed parameters for a model: its step (fixed, or P_1 /
 * steps) and the option's keys after it. */
SL_HD SL_INLINE void sl_nbody_pack(const sl_nbody_view *d, const sl_nbody_model *M, double *pp,
                                   int n_pp)
{
    for (int k = 0; k < n_pp; k++)
        pp[k] = 0.0;
    pp[0] = d->dt > 0.0 ? d->dt : M->el[0].P / d->steps;
    for (int k = 0; k < 4 && k + 1 < n_pp; k++)
        pp[k + 1] = d->pp_tail[k];
}

/* Each planet bound to the star (two-body energy < 0): an ejection shows
 * as one that is not. */
SL_HD SL_INLINE int sl_nbody_bound(int n, const double *x, const double *v, const double *m)
{
    for (int j = 1; j < n; j++) {
        double r2 = 0.0, u2 = 0.0;
        for (int c = 0; c < 3; c++) {
            const double dr = x[3 * j + c] - x[c], du = v[3 * j + c] - v[c];
            r2 += dr * dr, u2 += du * du;
        }
        if (!(0.5 * u2 < (m[0] + m[j]) / sqrt(r2)))
            return 0;
    }
    return 1;
}

/* A model's ln L and chi^2 from its summed terms (x2 = sum r^2/w, lw = sum
 * ln 2 pi w) and the reason of its run: -inf and +inf when refused, and a
 * sum that is not finite counted as unstable. Returns the reason. */
SL_HD SL_INLINE int sl_nbody_finish(int why, double x2, double lw, double *ll, double *chi2)
{
    if (why == SL_NBODY_OK && !isfinite(x2 + lw))
        why = SL_NBODY_UNSTABLE;
    *ll = why == SL_NBODY_OK ? -0.5 * (x2 + lw) : -INFINITY;
    *chi2 = why == SL_NBODY_OK ? x2 : INFINITY;
    return why;
}

#endif
