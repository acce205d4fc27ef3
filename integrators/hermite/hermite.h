/* Fourth-order Hermite integrator, fixed step, PEC^2 (Kokubo, Yoshinaga &
 * Makino 1998): predict with a and jerk, evaluate, correct, evaluate,
 * correct. The forces at the first corrected state start the next step, so
 * a step costs two force evaluations.
 *
 * Working state per body (ps, in blocks of 3n): a0 | j0 | xc | vc; the first
 * two blocks persist between launches. */
#ifndef STARLING_HERMITE_H
#define STARLING_HERMITE_H

#include "starling/hd.h"

#define SL_PROP_hermite_NSTAGES 2
#define SL_PROP_hermite_SCRATCH 12
#define SL_PROP_hermite_PERSIST 6
#define SL_PROP_hermite_JERK 1

SL_HD SL_INLINE void sl_prop_hermite_begin(int n, const double *x, const double *v,
                                           const double *m, double *ps, const double *a,
                                           const double *j, const double *pp)
{
    (void)x, (void)v, (void)m, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        ps[k] = a[k];
        ps[3 * n + k] = j[k];
    }
}

SL_HD SL_INLINE void sl_prop_hermite_point(int st, int n, double h, const double *x,
                                           const double *v, const double *ps, double *xe,
                                           double *ve, const double *pp)
{
    (void)pp;
    const double *a0 = ps, *j0 = ps + 3 * n, *xc = ps + 6 * n, *vc = ps + 9 * n;
    if (st == 0) {
        const double h2 = 0.5 * h * h, h3 = h * h * h / 6.0;
        SL_UNROLL
        for (int k = 0; k < 3 * n; k++) {
            xe[k] = x[k] + h * v[k] + h2 * a0[k] + h3 * j0[k];
            ve[k] = v[k] + h * a0[k] + h2 * j0[k];
        }
    } else {
        SL_UNROLL
        for (int k = 0; k < 3 * n; k++) {
            xe[k] = xc[k];
            ve[k] = vc[k];
        }
    }
}

SL_HD SL_INLINE void sl_prop_hermite_apply(int st, int n, double h, double *x, double *v,
                                           double *ps, const double *a1, const double *j1,
                                           const double *pp)
{
    (void)pp;
    double *a0 = ps, *j0 = ps + 3 * n, *xc = ps + 6 * n, *vc = ps + 9 * n;
    const double h2 = 0.5 * h, h12 = h * h / 12.0;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        double v1 = v[k] + h2 * (a0[k] + a1[k]) + h12 * (j0[k] - j1[k]);
        double x1 = x[k] + h2 * (v[k] + v1) + h12 * (a0[k] - a1[k]);
        if (st == 0) {
            xc[k] = x1;
            vc[k] = v1;
        } else {
            x[k] = x1;
            v[k] = v1;
            a0[k] = a1[k];
            j0[k] = j1[k];
        }
    }
}

#endif
