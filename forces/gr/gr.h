/* The central body's post-Newtonian correction, a term added to a base
 * force (force_term.h), in the potential form of Nobili & Roxburgh (1986), the one REBOUNDx calls
 * `gr_potential`, G = 1: each body i >= 1 feels, about body 0,
 *
 *   U_i = -3 m_0^2 m_i / (c^2 r_i^2),   a_i = -6 m_0^2 r_i / (c^2 r_i^4),
 *
 * r_i = x_i - x_0, and body 0 the reaction -m_i a_i / m_0 (momentum is
 * conserved). It reproduces the relativistic perihelion advance,
 * 6 pi m_0 / (c^2 a (1 - e^2)) per orbit, at leading order, and depends on
 * positions alone, so it is a potential every integrator can use: mvs
 * kicks with it (it is part of the perturbation, a function of heliocentric
 * positions) and Hermite gets its jerk. Planet-planet relativistic terms
 * are neglected, as in REBOUNDx.
 *
 * The kernels read 1/c^2 (sl_gr_params, the field inv_c2): c may differ
 * between systems (an ensemble attribute 'c'). Arrays are strided by S (see newton.h). `force = "gr"`
 * is Newtonian gravity plus this term. */
#ifndef STARLING_FORCE_GR_H
#define STARLING_FORCE_GR_H

#include "starling/hd.h"
#include "starling/named_params.h"

/* The speed of light in starling's default units (G = 1, AU, solar masses,
 * time unit yr/2pi = 1/k days, k the Gaussian constant): 299792.458 km/s
 * over k AU/day = 29.7846918 km/s. */
#define SL_GR_C_GAUSSIAN 10065.320121

/* The key c (named_params.h) and the value the kernels read, 1/c^2. */
#define SL_PARAMS_gr(ARG, KEY, VAL)                                                        \
    KEY(c, SL_PARAM_NUMBER, SL_GR_C_GAUSSIAN, 1e-150, 1e150, 0,                            \
        "speed of light in the units of the state (default: AU per yr/2pi, G = 1)", NULL,  \
        NULL)                                                                              \
    VAL(inv_c2, "1/c^2")
SL_PARAMS_STRUCT(sl_gr_params, SL_PARAMS_gr)

#define SL_TERM_gr_NPACKED SL_PARAMS_COUNT(SL_PARAMS_gr)
#define SL_TERM_gr_JERK 1
#define SL_TERM_gr_PERTURB 1

SL_HD SL_INLINE void sl_term_gr_central(int S, const double *x, const double *v,
                                        const double *m, const double *fp, int i, double *ac,
                                        double *jc)
{
    const double m0 = m[0];
    const double k = 6.0 * m0 * m0 * sl_gr_params_load(fp, S).inv_c2;
    double d[3], u[3];
    SL_UNROLL
    for (int c = 0; c < 3; c++) {
        d[c] = x[S * (3 * i + c)] - x[S * c];
        u[c] = v[S * (3 * i + c)] - v[S * c];
    }
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double r4inv = 1.0 / (r2 * r2);
    /* d/dt (d / r^4) = u / r^4 - 4 (d.u) d / r^6 */
    double du4 = 4.0 * (d[0] * u[0] + d[1] * u[1] + d[2] * u[2]) / r2;
    SL_UNROLL
    for (int c = 0; c < 3; c++) {
        ac[c] = -k * d[c] * r4inv;
        jc[c] = -k * (u[c] - du4 * d[c]) * r4inv;
    }
}

SL_HD SL_INLINE double sl_term_gr_potential(int S, const double *x, const double *m,
                                            const double *fp, int i)
{
    const double k = 3.0 * m[0] * m[0] * sl_gr_params_load(fp, S).inv_c2;
    double r2 = 0.0;
    for (int c = 0; c < 3; c++) {
        double d = x[S * (3 * i + c)] - x[S * c];
        r2 += d * d;
    }
    return -(k * m[S * i] / r2);
}

#define SL_TERM gr
#include "starling/force_term.inc"

#endif
