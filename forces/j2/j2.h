/* The oblateness of the central body, a term added to a base force
 * (force_term.h), G = 1: its quadrupole J2, radius R, spin axis along z.
 * About body 0 each body i >= 1 has the potential energy
 *
 *   U_i = m_0 m_i J2 R^2 (3 z^2 - r^2) / (2 r^5),     r_i = x_i - x_0 = (x, y, z),
 *
 * so a_i = (3/2) m_0 J2 R^2 / r^5 * (x (5 z^2/r^2 - 1), y (5 z^2/r^2 - 1),
 * z (5 z^2/r^2 - 3)), and body 0 feels the reaction -m_i a_i / m_0. The
 * nodes of an orbit of semi-major axis a, eccentricity e and inclination i
 * regress at 3/2 n J2 (R/p)^2 cos i, p = a (1 - e^2), and its pericentre
 * advances at 3/4 n J2 (R/p)^2 (5 cos^2 i - 1). Like gr it is a function of
 * positions about body 0: every integrator can use it, mvs in its kick.
 *
 * The kernels read J2 R^2 (sl_j2_params, the field J2_R2; J2 and R may be
 * ensemble attributes: each system its own). Arrays are strided by S (see newton.h).
 * `force = "j2"` is Newtonian gravity plus this term. */
#ifndef STARLING_FORCE_J2_H
#define STARLING_FORCE_J2_H

#include <math.h>
#include "starling/hd.h"
#include "starling/named_params.h"

/* The keys J2 and R (named_params.h) and the value the kernels read,
 * J2 R^2. The defaults are check-plugin's examples (params.h): a planet
 * like Jupiter, J2 = 0.0147, of radius 0.1 in the units of its orbits
 * (a = 1). */
#define SL_PARAMS_j2(ARG, KEY, VAL)                                                        \
    KEY(J2, SL_PARAM_NUMBER, 0.0147, -1.0, 1.0, 1,                                         \
        "the central body's quadrupole moment J2 (oblate > 0), spin axis along z", NULL,   \
        NULL)                                                                              \
    KEY(R, SL_PARAM_NUMBER, 0.1, 0.0, 1e150, 1,                                            \
        "the central body's equatorial radius J2 refers to (units of x)", NULL, NULL)      \
    VAL(J2_R2, "J2 R^2")
SL_PARAMS_STRUCT(sl_j2_params, SL_PARAMS_j2)

#define SL_TERM_j2_NPACKED SL_PARAMS_COUNT(SL_PARAMS_j2)
#define SL_TERM_j2_JERK 1
#define SL_TERM_j2_PERTURB 1

SL_HD SL_INLINE void sl_term_j2_central(int S, const double *x, const double *v,
                                        const double *m, const double *fp, int i, double *ac,
                                        double *jc)
{
    const double m0 = m[0];
    const double k = 1.5 * m0 * sl_j2_params_load(fp, S).J2_R2;
    double d[3], u[3];
    SL_UNROLL
    for (int c = 0; c < 3; c++) {
        d[c] = x[S * (3 * i + c)] - x[S * c];
        u[c] = v[S * (3 * i + c)] - v[S * c];
    }
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double rinv2 = 1.0 / r2;
    double rinv5 = rinv2 * rinv2 * SL_RSQRT(r2);
    double z2 = d[2] * d[2] * rinv2;
    /* a = k d_c g_c / r^5, g = 5 z^2/r^2 - 1 (x, y) or - 3 (z) */
    double g[3] = {5.0 * z2 - 1.0, 5.0 * z2 - 1.0, 5.0 * z2 - 3.0};
    /* d/dt: rd = d.u / r^2; (r^-5)' = -5 rd r^-5; (z^2/r^2)' = 2 z w / r^2 - 2 z^2/r^2 rd */
    double rd = (d[0] * u[0] + d[1] * u[1] + d[2] * u[2]) * rinv2;
    double gd = 5.0 * (2.0 * d[2] * u[2] * rinv2 - 2.0 * z2 * rd);
    SL_UNROLL
    for (int c = 0; c < 3; c++) {
        ac[c] = k * d[c] * g[c] * rinv5;
        jc[c] = k * rinv5 * (u[c] * g[c] + d[c] * gd - 5.0 * rd * d[c] * g[c]);
    }
}

SL_HD SL_INLINE double sl_term_j2_potential(int S, const double *x, const double *m,
                                            const double *fp, int i)
{
    double d[3];
    for (int c = 0; c < 3; c++)
        d[c] = x[S * (3 * i + c)] - x[S * c];
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double r5 = r2 * r2 * sqrt(r2);
    return 0.5 * m[0] * m[S * i] * sl_j2_params_load(fp, S).J2_R2 * (3.0 * d[2] * d[2] - r2) / r5;
}

#define SL_TERM j2
#include "starling/force_term.inc"

#endif
