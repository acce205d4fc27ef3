/* Newtonian gravity plus the central body's post-Newtonian correction in
 * the potential form of Nobili & Roxburgh (1986), the one REBOUNDx calls
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
 * Parameter 0 is 1/c^2, fp[S*0]: c may differ between systems (an ensemble
 * attribute 'c'). Arrays are strided by S (see newton.h). */
#ifndef STARLING_FORCE_GR_H
#define STARLING_FORCE_GR_H

#include "starling/forces/newton.h"

#define SL_FORCE_gr_JERK 1
#define SL_FORCE_gr_PERTURB 1
#define SL_FORCE_gr_AT 1
#define SL_FORCE_gr_PERTURB_AT 1

/* Planet i's term (i >= 1), its acceleration ac and jerk jc, arrays
 * strided by S. */
SL_HD SL_INLINE void sl_force_gr_term(int S, const double *x, const double *v, const double *m,
                                      const double *fp, int i, double *ac, double *jc)
{
    const double m0 = m[0];
    const double k = 6.0 * m0 * m0 * fp[S * 0];
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

/* Adds the correction's accelerations (and jerks when j is not NULL) to
 * a (and j). With `react` 0, body 0 gets nothing: the perturbation part. */
SL_HD SL_INLINE void sl_force_gr_add(int n, int S, const double *x, const double *v,
                                     const double *m, const double *fp, double *a, double *j,
                                     int react)
{
    const double m0 = m[0];
    SL_UNROLL
    for (int i = 1; i < n; i++) {
        double ac[3], jc[3];
        sl_force_gr_term(S, x, v, m, fp, i, ac, jc);
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
 * body 0 every planet's reaction, in sl_force_gr_add's order. */
SL_HD SL_INLINE void sl_force_gr_add_at(int n, const double *x, const double *v,
                                        const double *m, const double *fp, int i, double *a,
                                        double *j)
{
    SL_UNROLL
    for (int p = 1; p < n; p++) {
        if (i != 0 && p != i)
            continue;
        double ac[3], jc[3];
        sl_force_gr_term(1, x, v, m, fp, p, ac, jc);
        const double q = i == 0 ? -m[p] / m[0] : 1.0;
        SL_UNROLL
        for (int c = 0; c < 3; c++) {
            a[c] += i == 0 ? q * ac[c] : ac[c];
            if (j)
                j[c] += i == 0 ? q * jc[c] : jc[c];
        }
    }
}

SL_HD SL_INLINE void sl_force_gr_acc(int n, int S, const double *x, const double *v,
                                     const double *m, const double *fp, double *a)
{
    sl_force_newton_acc(n, S, x, v, m, fp, a);
    sl_force_gr_add(n, S, x, v, m, fp, a, (double *)0, 1);
}

SL_HD SL_INLINE void sl_force_gr_acc_jerk(int n, int S, const double *x, const double *v,
                                          const double *m, const double *fp, double *a,
                                          double *j)
{
    sl_force_newton_acc_jerk(n, S, x, v, m, fp, a, j);
    sl_force_gr_add(n, S, x, v, m, fp, a, j, 1);
}

/* The planet-planet pulls and the correction on bodies 1..n-1: the kick of
 * mvs in democratic heliocentric coordinates, where the correction is a
 * function of the heliocentric positions and its reaction on body 0 is
 * carried by the coordinates. */
SL_HD SL_INLINE void sl_force_gr_acc_perturb(int n, int S, const double *x, const double *v,
                                             const double *m, const double *fp, double *a)
{
    sl_force_newton_acc_perturb(n, S, x, v, m, fp, a);
    sl_force_gr_add(n, S, x, v, m, fp, a, (double *)0, 0);
}

/* acc_perturb's row i >= 1 alone (S = 1), for mvs's grouped kernels. */
SL_HD SL_INLINE void sl_force_gr_acc_perturb_at(int n, const double *x, const double *v,
                                               const double *m, const double *fp, int i,
                                               double *a)
{
    sl_force_newton_acc_perturb_at(n, x, v, m, fp, i, a);
    sl_force_gr_add_at(n, x, v, m, fp, i, a, (double *)0);
}

SL_HD SL_INLINE void sl_force_gr_acc_at(int n, const double *x, const double *v,
                                        const double *m, const double *fp, int i, double *a)
{
    sl_force_newton_acc_at(n, x, v, m, fp, i, a);
    sl_force_gr_add_at(n, x, v, m, fp, i, a, (double *)0);
}

SL_HD SL_INLINE void sl_force_gr_acc_jerk_at(int n, const double *x, const double *v,
                                             const double *m, const double *fp, int i,
                                             double *a, double *j)
{
    sl_force_newton_acc_jerk_at(n, x, v, m, fp, i, a, j);
    sl_force_gr_add_at(n, x, v, m, fp, i, a, j);
}

SL_HD SL_INLINE double sl_force_gr_potential(int n, int S, const double *x, const double *m,
                                             const double *fp)
{
    double u = sl_force_newton_potential(n, S, x, m, fp);
    const double k = 3.0 * m[0] * m[0] * fp[S * 0];
    for (int i = 1; i < n; i++) {
        double r2 = 0.0;
        for (int c = 0; c < 3; c++) {
            double d = x[S * (3 * i + c)] - x[S * c];
            r2 += d * d;
        }
        u -= k * m[S * i] / r2;
    }
    return u;
}

#endif
