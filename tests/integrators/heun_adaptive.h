/* A small adaptive integrator for the tests of the adaptive contract
 * (launch.h): Heun's method with an Euler predictor, the difference of the
 * two as the error estimate (an embedded 1(2) pair, advancing with the
 * second-order solution), and a standard controller:
 *   err = max over components of |Heun - Euler| / (1 + max(|y0|, |y1|)),
 *   keep the step when err <= tol, next h = h * clamp(0.9 (tol/err)^(1/2), 0.2, 5),
 * and never above h_max. The acceleration at the start of a step is kept
 * (PERSIST), so a step costs two force calls: the predictor's, and the
 * new state's, which starts the next step; a rejected step must therefore
 * undo ps as well as x and v.
 *
 * pp[0] is the first try, taken as given even above h_max: a first try
 * above h_max is rejected once (control returns h_max), which is how the
 * tests force one rejection. pp[1] = tol, pp[2] = h_max (0: none).
 *
 * ps per body, in blocks of 3n (n for the last): a0 | xc | vc | err. */
#ifndef SLT_HEUN_ADAPTIVE_H
#define SLT_HEUN_ADAPTIVE_H

#include <math.h>
#include "starling/hd.h"

#define SL_PROP_slt_heun_NSTAGES 2
#define SL_PROP_slt_heun_SCRATCH 10
#define SL_PROP_slt_heun_PERSIST 3
#define SL_PROP_slt_heun_JERK 0
#define SL_PROP_slt_heun_PERTURB 0
#define SL_PROP_slt_heun_SYNC 0
#define SL_PROP_slt_heun_ADAPTIVE 1

SL_HD SL_INLINE void sl_prop_slt_heun_begin(int n, int S, const double *x, const double *v,
                                            const double *m, double *ps, const double *a,
                                            const double *j, const double *pp)
{
    (void)x, (void)v, (void)m, (void)j, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        ps[S * k] = a[S * k];
}

/* Stage 0 at the Euler predictor, stage 1 at the Heun solution. */
SL_HD SL_INLINE void sl_prop_slt_heun_point(int st, int n, int S, double h, const double *x,
                                            const double *v, const double *m, const double *ps,
                                            double *xe, double *ve, const double *pp)
{
    (void)m, (void)pp;
    const double *a0 = ps, *xc = ps + S * 3 * n, *vc = ps + S * 6 * n;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        xe[S * k] = st == 0 ? x[S * k] + h * v[S * k] : xc[S * k];
        ve[S * k] = st == 0 ? v[S * k] + h * a0[S * k] : vc[S * k];
    }
}

SL_HD SL_INLINE double slt_heun_scaled(double e, double y0, double y1)
{
    return fabs(e) / (1.0 + fmax(fabs(y0), fabs(y1)));
}

SL_HD SL_INLINE void sl_prop_slt_heun_apply(int st, int n, int S, double h, double *x, double *v,
                                            const double *m, double *ps, const double *a,
                                            const double *j, const double *pp)
{
    (void)m, (void)j, (void)pp;
    double *a0 = ps, *xc = ps + S * 3 * n, *vc = ps + S * 6 * n, *eb = ps + S * 9 * n;
    if (st == 0) {
        SL_UNROLL
        for (int b = 0; b < n; b++) {
            double e = 0.0;
            SL_UNROLL
            for (int c = 0; c < 3; c++) {
                const int k = 3 * b + c;
                const double xp = x[S * k] + h * v[S * k], vp = v[S * k] + h * a0[S * k];
                xc[S * k] = x[S * k] + 0.5 * h * (v[S * k] + vp);
                vc[S * k] = v[S * k] + 0.5 * h * (a0[S * k] + a[S * k]);
                e = fmax(e, slt_heun_scaled(xc[S * k] - xp, x[S * k], xc[S * k]));
                e = fmax(e, slt_heun_scaled(vc[S * k] - vp, v[S * k], vc[S * k]));
            }
            eb[S * b] = e;
        }
    } else {
        SL_UNROLL
        for (int k = 0; k < 3 * n; k++) {
            x[S * k] = xc[S * k];
            v[S * k] = vc[S * k];
            a0[S * k] = a[S * k];
        }
    }
}

SL_HD SL_INLINE double sl_prop_slt_heun_control(int n, int S, double h, const double *x,
                                                const double *v, const double *m, double *ps,
                                                const double *pp, int *accept)
{
    (void)x, (void)v, (void)m;
    const double tol = pp[1], h_max = pp[2] > 0.0 ? pp[2] : INFINITY;
    if (h == 0.0)
        return pp[0];
    if (h > h_max) {
        *accept = 0;
        return h_max;
    }
    double err = 0.0;
    SL_UNROLL
    for (int b = 0; b < n; b++)
        err = fmax(err, ps[S * (9 * n + b)]);
    const double ratio = err / tol;
    *accept = ratio <= 1.0;
    double f = ratio > 0.0 ? 0.9 / sqrt(ratio) : ratio == 0.0 ? 5.0 : 0.2; /* NaN: shrink */
    f = fmin(5.0, fmax(0.2, f));
    return fmin(h * f, h_max);
}

#endif
