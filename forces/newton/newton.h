/* Newtonian point-mass gravity, G = 1 (AU, M_sun, yr/2pi). No parameters. */
#ifndef STARLING_FORCE_NEWTON_H
#define STARLING_FORCE_NEWTON_H

#include <math.h>
#include "starling/hd.h"

SL_HD SL_INLINE void sl_force_newton_acc(int n, const double *x, const double *m,
                                         const double *fp, double *a)
{
    (void)fp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        a[k] = 0.0;
    SL_UNROLL
    for (int i = 0; i < n; i++) {
        SL_UNROLL
        for (int k = i + 1; k < n; k++) {
            double dx = x[3 * k] - x[3 * i], dy = x[3 * k + 1] - x[3 * i + 1],
                   dz = x[3 * k + 2] - x[3 * i + 2];
            double rinv = SL_RSQRT(dx * dx + dy * dy + dz * dz);
            double rinv3 = rinv * rinv * rinv;
            double fi = m[k] * rinv3, fk = m[i] * rinv3;
            a[3 * i] += fi * dx;
            a[3 * i + 1] += fi * dy;
            a[3 * i + 2] += fi * dz;
            a[3 * k] -= fk * dx;
            a[3 * k + 1] -= fk * dy;
            a[3 * k + 2] -= fk * dz;
        }
    }
}

SL_HD SL_INLINE void sl_force_newton_acc_jerk(int n, const double *x, const double *v,
                                              const double *m, const double *fp, double *a,
                                              double *j)
{
    (void)fp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        a[k] = 0.0;
        j[k] = 0.0;
    }
    SL_UNROLL
    for (int i = 0; i < n; i++) {
        SL_UNROLL
        for (int k = i + 1; k < n; k++) {
            double dx = x[3 * k] - x[3 * i], dy = x[3 * k + 1] - x[3 * i + 1],
                   dz = x[3 * k + 2] - x[3 * i + 2];
            double du = v[3 * k] - v[3 * i], dv = v[3 * k + 1] - v[3 * i + 1],
                   dw = v[3 * k + 2] - v[3 * i + 2];
            double rinv = SL_RSQRT(dx * dx + dy * dy + dz * dz);
            double rinv2 = rinv * rinv;
            double rinv3 = rinv * rinv2;
            double rv = 3.0 * (dx * du + dy * dv + dz * dw) * rinv2;
            double ax = dx * rinv3, ay = dy * rinv3, az = dz * rinv3;
            double jx = (du - rv * dx) * rinv3, jy = (dv - rv * dy) * rinv3,
                   jz = (dw - rv * dz) * rinv3;
            a[3 * i] += m[k] * ax;
            a[3 * i + 1] += m[k] * ay;
            a[3 * i + 2] += m[k] * az;
            a[3 * k] -= m[i] * ax;
            a[3 * k + 1] -= m[i] * ay;
            a[3 * k + 2] -= m[i] * az;
            j[3 * i] += m[k] * jx;
            j[3 * i + 1] += m[k] * jy;
            j[3 * i + 2] += m[k] * jz;
            j[3 * k] -= m[i] * jx;
            j[3 * k + 1] -= m[i] * jy;
            j[3 * k + 2] -= m[i] * jz;
        }
    }
}

SL_HD SL_INLINE double sl_force_newton_potential(int n, const double *x, const double *m,
                                                 const double *fp)
{
    (void)fp;
    double u = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++) {
            double dx = x[3 * k] - x[3 * i], dy = x[3 * k + 1] - x[3 * i + 1],
                   dz = x[3 * k + 2] - x[3 * i + 2];
            u -= m[i] * m[k] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    return u;
}

#endif
