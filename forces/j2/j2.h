/* Newtonian gravity plus the oblateness of the central body, G = 1: its
 * quadrupole J2, radius R, spin axis along z. About body 0 each body
 * i >= 1 has the potential energy
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
 * Parameter 0 is J2 R^2, fp[S*0] (J2 and R may be ensemble attributes:
 * each system its own). Arrays are strided by S (see newton.h). */
#ifndef STARLING_FORCE_J2_H
#define STARLING_FORCE_J2_H

#include "starling/forces/newton.h"

#define SL_FORCE_j2_JERK 1
#define SL_FORCE_j2_PERTURB 1
#define SL_FORCE_j2_AT 1
#define SL_FORCE_j2_PERTURB_AT 1

/* Planet i's term (i >= 1), its acceleration ac and jerk jc, arrays
 * strided by S. */
SL_HD SL_INLINE void sl_force_j2_term(int S, const double *x, const double *v, const double *m,
                                      const double *fp, int i, double *ac, double *jc)
{
    const double m0 = m[0];
    const double k = 1.5 * m0 * fp[S * 0];
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

/* Adds the quadrupole's accelerations (and jerks when j is not NULL); with
 * `react` 0 body 0 gets nothing: the perturbation part (see gr.h). */
SL_HD SL_INLINE void sl_force_j2_add(int n, int S, const double *x, const double *v,
                                     const double *m, const double *fp, double *a, double *j,
                                     int react)
{
    const double m0 = m[0];
    SL_UNROLL
    for (int i = 1; i < n; i++) {
        double ac[3], jc[3];
        sl_force_j2_term(S, x, v, m, fp, i, ac, jc);
        double q = m[S * i] / m0;
        SL_UNROLL
        for (int c = 0; c < 3; c++) {
            a[S * (3 * i + c)] += ac[c];
            if (react)
                a[S * c] -= q * ac[c];
            if (j) {
                j[S * (3 * i + c)] += jc[c];
                if (react)
                    j[S * c] -= q * jc[c];
            }
        }
    }
}

/* The term on body i alone (S = 1), for acc_at: planet i's own, or for
 * body 0 every planet's reaction, in sl_force_j2_add's order. */
SL_HD SL_INLINE void sl_force_j2_add_at(int n, const double *x, const double *v,
                                        const double *m, const double *fp, int i, double *a,
                                        double *j)
{
    SL_UNROLL
    for (int p = 1; p < n; p++) {
        if (i != 0 && p != i)
            continue;
        double ac[3], jc[3];
        sl_force_j2_term(1, x, v, m, fp, p, ac, jc);
        const double q = i == 0 ? -m[p] / m[0] : 1.0;
        SL_UNROLL
        for (int c = 0; c < 3; c++) {
            a[c] += i == 0 ? q * ac[c] : ac[c];
            if (j)
                j[c] += i == 0 ? q * jc[c] : jc[c];
        }
    }
}

SL_HD SL_INLINE void sl_force_j2_acc(int n, int S, const double *x, const double *v,
                                     const double *m, const double *fp, double *a)
{
    sl_force_newton_acc(n, S, x, v, m, fp, a);
    sl_force_j2_add(n, S, x, v, m, fp, a, (double *)0, 1);
}

SL_HD SL_INLINE void sl_force_j2_acc_jerk(int n, int S, const double *x, const double *v,
                                          const double *m, const double *fp, double *a,
                                          double *j)
{
    sl_force_newton_acc_jerk(n, S, x, v, m, fp, a, j);
    sl_force_j2_add(n, S, x, v, m, fp, a, j, 1);
}

SL_HD SL_INLINE void sl_force_j2_acc_perturb(int n, int S, const double *x, const double *v,
                                             const double *m, const double *fp, double *a)
{
    sl_force_newton_acc_perturb(n, S, x, v, m, fp, a);
    sl_force_j2_add(n, S, x, v, m, fp, a, (double *)0, 0);
}

/* acc_perturb's row i >= 1 alone (S = 1), for mvs's grouped kernels. */
SL_HD SL_INLINE void sl_force_j2_acc_perturb_at(int n, const double *x, const double *v,
                                               const double *m, const double *fp, int i,
                                               double *a)
{
    sl_force_newton_acc_perturb_at(n, x, v, m, fp, i, a);
    sl_force_j2_add_at(n, x, v, m, fp, i, a, (double *)0);
}

SL_HD SL_INLINE void sl_force_j2_acc_at(int n, const double *x, const double *v,
                                        const double *m, const double *fp, int i, double *a)
{
    sl_force_newton_acc_at(n, x, v, m, fp, i, a);
    sl_force_j2_add_at(n, x, v, m, fp, i, a, (double *)0);
}

SL_HD SL_INLINE void sl_force_j2_acc_jerk_at(int n, const double *x, const double *v,
                                             const double *m, const double *fp, int i,
                                             double *a, double *j)
{
    sl_force_newton_acc_jerk_at(n, x, v, m, fp, i, a, j);
    sl_force_j2_add_at(n, x, v, m, fp, i, a, j);
}

SL_HD SL_INLINE double sl_force_j2_potential(int n, int S, const double *x, const double *m,
                                             const double *fp)
{
    double u = sl_force_newton_potential(n, S, x, m, fp);
    for (int i = 1; i < n; i++) {
        double d[3];
        for (int c = 0; c < 3; c++)
            d[c] = x[S * (3 * i + c)] - x[S * c];
        double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        double r5 = r2 * r2 * sqrt(r2);
        u += 0.5 * m[0] * m[S * i] * fp[S * 0] * (3.0 * d[2] * d[2] - r2) / r5;
    }
    return u;
}

#endif
