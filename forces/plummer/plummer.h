/* Plummer-softened gravity, G = 1: the potential of a pair is
 * -m_i m_k / sqrt(r^2 + eps^2), so close encounters stay finite (star
 * clusters, discs of planetesimals). eps = 0 is Newtonian gravity, bit for
 * bit. The kernels read eps^2 (sl_plummer_params, the field eps2): each
 * system may have its own eps (an ensemble attribute 'eps'). Arrays are strided by S (see newton.h). */
#ifndef STARLING_FORCE_PLUMMER_H
#define STARLING_FORCE_PLUMMER_H

#include <math.h>
#include "starling/hd.h"
#include "starling/named_params.h"

/* The key eps (named_params.h) and the value the kernels read, eps^2. */
#define SL_PARAMS_plummer(ARG, KEY, VAL)                                                   \
    KEY(eps, SL_PARAM_NUMBER, 0.0, 0.0, 1e150, 0,                                          \
        "softening length (units of x); 0: Newtonian", NULL, NULL)                         \
    VAL(eps2, "eps^2")
SL_PARAMS_STRUCT(sl_plummer_params, SL_PARAMS_plummer)

/* acc_jerk for Hermite; no perturbation part: softening bends body 0's
 * pull away from a Kepler orbit, so mvs-like integrators cannot use it. */
#define SL_FORCE_plummer_NPACKED SL_PARAMS_COUNT(SL_PARAMS_plummer)
#define SL_FORCE_plummer_JERK 1
#define SL_FORCE_plummer_PERTURB 0

SL_HD SL_INLINE void sl_force_plummer_acc(int n, int S, const double *x, const double *v,
                                          const double *m, const double *fp, double *a)
{
    (void)v;
    const double eps2 = sl_plummer_params_load(fp, S).eps2;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        a[S * k] = 0.0;
    SL_UNROLL
    for (int i = 0; i < n; i++) {
        SL_UNROLL
        for (int k = i + 1; k < n; k++) {
            double dx = x[S * (3 * k)] - x[S * (3 * i)];
            double dy = x[S * (3 * k + 1)] - x[S * (3 * i + 1)];
            double dz = x[S * (3 * k + 2)] - x[S * (3 * i + 2)];
            double rinv = SL_RSQRT(dx * dx + dy * dy + dz * dz + eps2);
            double rinv3 = rinv * rinv * rinv;
            double fi = m[S * k] * rinv3, fk = m[S * i] * rinv3;
            a[S * (3 * i)] += fi * dx;
            a[S * (3 * i + 1)] += fi * dy;
            a[S * (3 * i + 2)] += fi * dz;
            a[S * (3 * k)] -= fk * dx;
            a[S * (3 * k + 1)] -= fk * dy;
            a[S * (3 * k + 2)] -= fk * dz;
        }
    }
}

/* Jerk of a softened pair: d/dt [d s^-3] = dv s^-3 - 3 (d.dv) d s^-5, s^2 = r^2 + eps^2. */
SL_HD SL_INLINE void sl_force_plummer_acc_jerk(int n, int S, const double *x, const double *v,
                                               const double *m, const double *fp, double *a,
                                               double *j)
{
    const double eps2 = sl_plummer_params_load(fp, S).eps2;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        a[S * k] = 0.0;
        j[S * k] = 0.0;
    }
    SL_UNROLL
    for (int i = 0; i < n; i++) {
        SL_UNROLL
        for (int k = i + 1; k < n; k++) {
            double dx = x[S * (3 * k)] - x[S * (3 * i)];
            double dy = x[S * (3 * k + 1)] - x[S * (3 * i + 1)];
            double dz = x[S * (3 * k + 2)] - x[S * (3 * i + 2)];
            double du = v[S * (3 * k)] - v[S * (3 * i)];
            double dv = v[S * (3 * k + 1)] - v[S * (3 * i + 1)];
            double dw = v[S * (3 * k + 2)] - v[S * (3 * i + 2)];
            double rinv = SL_RSQRT(dx * dx + dy * dy + dz * dz + eps2);
            double rinv2 = rinv * rinv;
            double rinv3 = rinv * rinv2;
            double rv = 3.0 * (dx * du + dy * dv + dz * dw) * rinv2;
            double ax = dx * rinv3, ay = dy * rinv3, az = dz * rinv3;
            double jx = (du - rv * dx) * rinv3, jy = (dv - rv * dy) * rinv3,
                   jz = (dw - rv * dz) * rinv3;
            double mi = m[S * i], mk = m[S * k];
            a[S * (3 * i)] += mk * ax;
            a[S * (3 * i + 1)] += mk * ay;
            a[S * (3 * i + 2)] += mk * az;
            a[S * (3 * k)] -= mi * ax;
            a[S * (3 * k + 1)] -= mi * ay;
            a[S * (3 * k + 2)] -= mi * az;
            j[S * (3 * i)] += mk * jx;
            j[S * (3 * i + 1)] += mk * jy;
            j[S * (3 * i + 2)] += mk * jz;
            j[S * (3 * k)] -= mi * jx;
            j[S * (3 * k + 1)] -= mi * jy;
            j[S * (3 * k + 2)] -= mi * jz;
        }
    }
}

SL_HD SL_INLINE double sl_force_plummer_potential(int n, int S, const double *x,
                                                  const double *m, const double *fp)
{
    const double eps2 = sl_plummer_params_load(fp, S).eps2;
    double u = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++) {
            double dx = x[S * (3 * k)] - x[S * (3 * i)];
            double dy = x[S * (3 * k + 1)] - x[S * (3 * i + 1)];
            double dz = x[S * (3 * k + 2)] - x[S * (3 * i + 2)];
            u -= m[S * i] * m[S * k] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
        }
    return u;
}

#endif
