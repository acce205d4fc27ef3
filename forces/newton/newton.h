/* Newtonian point-mass gravity, G = 1 (AU, M_sun, yr/2pi). No parameters,
 * and no dependence on velocities but through the jerk.
 *
 * Arrays are strided by S: component c of body b is x[S*(3b+c)], the mass
 * m[S*b], parameter k fp[S*k]. The GPU and the scalar loops pass S = 1; the
 * CPU's lane loop passes the chunk width, so that neighbouring systems are
 * neighbouring doubles and the loop over systems vectorises (the contract:
 * <starling/launch.h>). */
#ifndef STARLING_FORCE_NEWTON_H
#define STARLING_FORCE_NEWTON_H

#include <math.h>
#include "starling/hd.h"

#define SL_FORCE_newton_NPACKED 0 /* no parameters */
#define SL_FORCE_newton_JERK 1    /* acc_jerk: for Hermite */
#define SL_FORCE_newton_PERTURB 1 /* acc_perturb: for mvs */
#define SL_FORCE_newton_AT 1      /* acc_at, acc_jerk_at: for grouped kernels */
#define SL_FORCE_newton_PAIR 1    /* pair, pair_jerk: grouped kernels share pair terms */
#define SL_FORCE_newton_PERTURB_AT 1 /* acc_perturb_at: for mvs's grouped kernels */

SL_HD SL_INLINE void sl_force_newton_acc(int n, int S, const double *x, const double *v,
                                         const double *m, const double *fp, double *a)
{
    (void)v, (void)fp;
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
            double rinv = SL_RSQRT(dx * dx + dy * dy + dz * dz);
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

SL_HD SL_INLINE void sl_force_newton_acc_jerk(int n, int S, const double *x, const double *v,
                                              const double *m, const double *fp, double *a,
                                              double *j)
{
    (void)fp;
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
            double rinv = SL_RSQRT(dx * dx + dy * dy + dz * dz);
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

/* One pair's terms per unit mass, d = x_k - x_i and du = v_k - v_i: body i
 * feels m_k t, body k feels -m_i t (t[0..2] the pull, t[3..5] its jerk).
 * For the grouped CUDA kernels at one body per thread (internal/group.h),
 * where each pair is evaluated once and its reaction passed by a shuffle. */
SL_HD SL_INLINE void sl_force_newton_pair(const double *d, const double *du, const double *fp,
                                          double *t)
{
    (void)du, (void)fp;
    double rinv = SL_RSQRT(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double rinv3 = rinv * rinv * rinv;
    t[0] = d[0] * rinv3;
    t[1] = d[1] * rinv3;
    t[2] = d[2] * rinv3;
}

SL_HD SL_INLINE void sl_force_newton_pair_jerk(const double *d, const double *du,
                                               const double *fp, double *t)
{
    (void)fp;
    double rinv = SL_RSQRT(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double rinv2 = rinv * rinv;
    double rinv3 = rinv * rinv2;
    double rv = 3.0 * (d[0] * du[0] + d[1] * du[1] + d[2] * du[2]) * rinv2;
    SL_UNROLL
    for (int c = 0; c < 3; c++) {
        t[c] = d[c] * rinv3;
        t[3 + c] = (du[c] - rv * d[c]) * rinv3;
    }
}

/* The pull on body i from bodies first..n-1, arrays not strided (S = 1):
 * acc_at's and acc_perturb_at's sum. */
SL_HD SL_INLINE void sl_force_newton_pull_from(int n, int first, const double *x,
                                               const double *m, int i, double *a)
{
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    double ax = 0.0, ay = 0.0, az = 0.0;
    SL_UNROLL
    for (int k = first; k < n; k++) {
        double dx = x[3 * k] - xi, dy = x[3 * k + 1] - yi, dz = x[3 * k + 2] - zi;
        double rinv = k == i ? 0.0 : SL_RSQRT(dx * dx + dy * dy + dz * dz);
        double f = m[k] * rinv * rinv * rinv;
        ax += f * dx;
        ay += f * dy;
        az += f * dz;
    }
    a[0] = ax;
    a[1] = ay;
    a[2] = az;
}

/* The pull (and its jerk) on body i alone from every other body, arrays not
 * strided (S = 1): for the grouped CUDA kernels (internal/group.h), where a
 * thread sums the pulls on the bodies it owns. i is known only at run time,
 * so body i's own term is masked rather than skipped. */
SL_HD SL_INLINE void sl_force_newton_acc_at(int n, const double *x, const double *v,
                                            const double *m, const double *fp, int i, double *a)
{
    (void)v, (void)fp;
    sl_force_newton_pull_from(n, 0, x, m, i, a);
}

SL_HD SL_INLINE void sl_force_newton_acc_jerk_at(int n, const double *x, const double *v,
                                                 const double *m, const double *fp, int i,
                                                 double *a, double *j)
{
    (void)fp;
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    const double ui = v[3 * i], vi = v[3 * i + 1], wi = v[3 * i + 2];
    double ax = 0.0, ay = 0.0, az = 0.0, jx = 0.0, jy = 0.0, jz = 0.0;
    SL_UNROLL
    for (int k = 0; k < n; k++) {
        double dx = x[3 * k] - xi, dy = x[3 * k + 1] - yi, dz = x[3 * k + 2] - zi;
        double du = v[3 * k] - ui, dv = v[3 * k + 1] - vi, dw = v[3 * k + 2] - wi;
        double rinv = k == i ? 0.0 : SL_RSQRT(dx * dx + dy * dy + dz * dz);
        double rinv2 = rinv * rinv;
        double f = m[k] * rinv * rinv2;
        double rv = 3.0 * (dx * du + dy * dv + dz * dw) * rinv2;
        ax += f * dx;
        ay += f * dy;
        az += f * dz;
        jx += f * (du - rv * dx);
        jy += f * (dv - rv * dy);
        jz += f * (dw - rv * dz);
    }
    a[0] = ax;
    a[1] = ay;
    a[2] = az;
    j[0] = jx;
    j[1] = jy;
    j[2] = jz;
}

/* The perturbation part, for integrators that move each body about body 0
 * on its own (mvs): the pulls between bodies 1..n-1 only. Body 0's row is
 * zero: what body 0 feels is the stages' business (its pull on the others
 * is their Kepler drift). Only differences of x are used, so any frame
 * will do. */
SL_HD SL_INLINE void sl_force_newton_acc_perturb(int n, int S, const double *x, const double *v,
                                                 const double *m, const double *fp, double *a)
{
    (void)v, (void)fp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        a[S * k] = 0.0;
    SL_UNROLL
    for (int i = 1; i < n; i++) {
        SL_UNROLL
        for (int k = i + 1; k < n; k++) {
            double dx = x[S * (3 * k)] - x[S * (3 * i)];
            double dy = x[S * (3 * k + 1)] - x[S * (3 * i + 1)];
            double dz = x[S * (3 * k + 2)] - x[S * (3 * i + 2)];
            double rinv = SL_RSQRT(dx * dx + dy * dy + dz * dz);
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

/* acc_perturb's row i >= 1 alone (S = 1): the pulls on body i from bodies
 * 1..n-1, for a grouped kernel whose threads own planets (mvs). */
SL_HD SL_INLINE void sl_force_newton_acc_perturb_at(int n, const double *x, const double *v,
                                                    const double *m, const double *fp, int i,
                                                    double *a)
{
    (void)v, (void)fp;
    sl_force_newton_pull_from(n, 1, x, m, i, a);
}

SL_HD SL_INLINE double sl_force_newton_potential(int n, int S, const double *x,
                                                 const double *m, const double *fp)
{
    (void)fp;
    double u = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++) {
            double dx = x[S * (3 * k)] - x[S * (3 * i)];
            double dy = x[S * (3 * k + 1)] - x[S * (3 * i + 1)];
            double dz = x[S * (3 * k + 2)] - x[S * (3 * i + 2)];
            u -= m[S * i] * m[S * k] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    return u;
}

#endif
