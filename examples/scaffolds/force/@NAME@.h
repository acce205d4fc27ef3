/* @NAME@: softened gravity, G = 1. The potential of a pair is
 * -m_i m_k / sqrt(r^2 + eps^2), so close encounters stay finite; eps = 0 is
 * Newtonian gravity. Parameter 0 is eps^2 (packed by @NAME@.c); like every
 * array it is strided by S, fp[S*0], so each system may have its own eps
 * (an ensemble attribute named eps).
 *
 * These SL_HD functions follow the contract of <starling/integrate.h>: x, v,
 * m, fp, a, j are strided by S (component c of body b is x[S*(3b+c)]), and each
 * integrator calls acc (accelerations only) or acc_jerk (with jerks, for
 * Hermite-like methods); potential serves the energy monitor. */
#ifndef @NAME_UPPER@_H
#define @NAME_UPPER@_H

#include <math.h>
#include <starling/hd.h>

/* What this force provides besides acc and potential, each 0 or 1: an
 * integrator whose stages need a part the force lacks gets no kernels for
 * it, and a run asking for the pair is refused, naming the part. */
#define SL_FORCE_@NAME@_JERK 1    /* acc_jerk, for Hermite-like integrators */
#define SL_FORCE_@NAME@_PERTURB 0 /* no acc_perturb: softening bends body 0's Kepler pull */

/* Adds the pair (i, k)'s accelerations (and jerks when j is not NULL). */
SL_HD SL_INLINE void sl_@NAME@_pair(int S, int i, int k, const double *x, const double *v,
                                     const double *m, double eps2, double *a, double *j)
{
    double d[3], dv[3];
    SL_UNROLL
    for (int c = 0; c < 3; c++) {
        d[c] = x[S * (3 * k + c)] - x[S * (3 * i + c)];
        dv[c] = j ? v[S * (3 * k + c)] - v[S * (3 * i + c)] : 0.0;
    }
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
    double rinv = 1.0 / sqrt(r2), rinv3 = rinv * rinv * rinv;
    double rv = 3.0 * (d[0] * dv[0] + d[1] * dv[1] + d[2] * dv[2]) / r2;
    SL_UNROLL
    for (int c = 0; c < 3; c++) {
        a[S * (3 * i + c)] += m[S * k] * rinv3 * d[c];
        a[S * (3 * k + c)] -= m[S * i] * rinv3 * d[c];
        if (j) {
            double jc = rinv3 * (dv[c] - rv * d[c]);
            j[S * (3 * i + c)] += m[S * k] * jc;
            j[S * (3 * k + c)] -= m[S * i] * jc;
        }
    }
}

SL_HD SL_INLINE void sl_force_@NAME@_acc_jerk(int n, int S, const double *x, const double *v,
                                               const double *m, const double *fp, double *a,
                                               double *j)
{
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        a[S * k] = j[S * k] = 0.0;
    SL_UNROLL
    for (int i = 0; i < n; i++) {
        SL_UNROLL
        for (int k = i + 1; k < n; k++)
            sl_@NAME@_pair(S, i, k, x, v, m, fp[S * 0], a, j);
    }
}

SL_HD SL_INLINE void sl_force_@NAME@_acc(int n, int S, const double *x, const double *v,
                                          const double *m, const double *fp, double *a)
{
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        a[S * k] = 0.0;
    SL_UNROLL
    for (int i = 0; i < n; i++) {
        SL_UNROLL
        for (int k = i + 1; k < n; k++)
            sl_@NAME@_pair(S, i, k, x, v, m, fp[S * 0], a, NULL);
    }
}

SL_HD SL_INLINE double sl_force_@NAME@_potential(int n, int S, const double *x, const double *m,
                                                  const double *fp)
{
    double u = 0.0;
    SL_UNROLL
    for (int i = 0; i < n; i++) {
        SL_UNROLL
        for (int k = i + 1; k < n; k++) {
            double r2 = fp[S * 0];
            SL_UNROLL
            for (int c = 0; c < 3; c++) {
                double d = x[S * (3 * k + c)] - x[S * (3 * i + c)];
                r2 += d * d;
            }
            u -= m[S * i] * m[S * k] / sqrt(r2);
        }
    }
    return u;
}

#endif
