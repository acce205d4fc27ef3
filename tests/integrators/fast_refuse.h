/* A test integrator for the lane loop's POINT_FAST path (launch.h): its
 * fast form refuses about a third of the lanes at each step, after
 * spoiling their working state, so a lane that is not run again from its
 * snapshot, or run again without it, shows.
 *
 * slt_fref (one stage, one PERSIST double per body: a step counter that
 * point increments when h > 0): apply moves x_x by h v_x and sets x_z to
 * the counter, so after k steps every body has z = k and x_x = x_x0 + k h v_x. The fast
 * form refuses when (y of body 0 + counter) is a multiple of 3, with y the
 * system's number in the test, leaving its counters at 1e300 and xe NaN. */
#ifndef SLT_FAST_REFUSE_H
#define SLT_FAST_REFUSE_H

#include <math.h>

#include "starling/hd.h"

#define SL_PROP_slt_fref_NSTAGES 1
#define SL_PROP_slt_fref_SCRATCH 1
#define SL_PROP_slt_fref_PERSIST 1
#define SL_PROP_slt_fref_JERK 0
#define SL_PROP_slt_fref_PERTURB 0
#define SL_PROP_slt_fref_SYNC 0
#define SL_PROP_slt_fref_ADAPTIVE 0
#define SL_PROP_slt_fref_POINT_FAST 1

SL_HD SL_INLINE void sl_prop_slt_fref_begin(int n, int S, const double *x, const double *v,
                                            const double *m, double *ps, const double *a,
                                            const double *j, const double *pp)
{
    (void)x, (void)v, (void)m, (void)a, (void)j, (void)pp;
    for (int b = 0; b < n; b++)
        ps[S * b] = 0.0;
}

SL_HD SL_INLINE void sl_prop_slt_fref_point(int st, int n, int S, double h, const double *x,
                                            const double *v, const double *m, double *ps,
                                            double *xe, double *ve, const double *pp)
{
    (void)st, (void)m, (void)pp;
    for (int b = 0; b < n; b++)
        ps[S * b] += h > 0.0 ? 1.0 : 0.0; /* h = 0 changes nothing (launch.h) */
    for (int k = 0; k < 3 * n; k++) {
        xe[S * k] = x[S * k];
        ve[S * k] = v[S * k];
    }
}

SL_HD SL_INLINE double sl_prop_slt_fref_point_fast(int st, int n, int S, double h,
                                                   const double *x, const double *v,
                                                   const double *m, double *ps, double *xe,
                                                   double *ve, const double *pp)
{
    (void)st, (void)m, (void)pp;
    for (int b = 0; b < n; b++)
        ps[S * b] += h > 0.0 ? 1.0 : 0.0; /* h = 0 changes nothing (launch.h) */
    const double ok = fmod(x[S * 1] + ps[0], 3.0) != 0.0 ? 1.0 : 0.0;
    for (int b = 0; b < n; b++)
        ps[S * b] = ok != 0.0 ? ps[S * b] : 1e300;
    for (int k = 0; k < 3 * n; k++) {
        xe[S * k] = ok != 0.0 ? x[S * k] : NAN;
        ve[S * k] = v[S * k];
    }
    return ok;
}

SL_HD SL_INLINE void sl_prop_slt_fref_apply(int st, int n, int S, double h, double *x, double *v,
                                            const double *m, double *ps, const double *a,
                                            const double *j, const double *pp)
{
    (void)st, (void)v, (void)m, (void)a, (void)j, (void)pp;
    for (int b = 0; b < n; b++) {
        x[S * (3 * b)] += h * v[S * (3 * b)];
        x[S * (3 * b + 2)] = ps[S * b];
    }
}

#endif
