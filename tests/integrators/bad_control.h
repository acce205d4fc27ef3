/* A test integrator whose step controller misbehaves on purpose, for the
 * guard rails of adaptive stepping (launch.h): every body drifts at its
 * velocity, and control keeps the step pp[0] for systems whose body 1 is
 * lighter than pp[2]; for the others it does what mode pp[1] says:
 *   1  keeps the step and proposes NaN        (SL_STEP_FAULT_NONFINITE)
 *   2  keeps the step and proposes -1         (SL_STEP_FAULT_NONFINITE)
 *   3  rejects every step, proposing h again  (SL_STEP_FAULT_REJECTIONS)
 *   4  keeps steps, proposing h / 1000        (SL_STEP_FAULT_UNDERFLOW)
 *   5  rejects every step, proposing h / 2    (SL_STEP_FAULT_UNDERFLOW)
 *   6  proposes a first step of 0             (SL_STEP_FAULT_NONFINITE)
 * A rejected drift must leave no trace; ps is unused. */
#ifndef SLT_BAD_CONTROL_H
#define SLT_BAD_CONTROL_H

#include <math.h>
#include "starling/hd.h"

#define SL_PROP_slt_badctl_NSTAGES 1
#define SL_PROP_slt_badctl_SCRATCH 0
#define SL_PROP_slt_badctl_PERSIST 0
#define SL_PROP_slt_badctl_JERK 0
#define SL_PROP_slt_badctl_PERTURB 0
#define SL_PROP_slt_badctl_SYNC 0
#define SL_PROP_slt_badctl_ADAPTIVE 1

SL_HD SL_INLINE void sl_prop_slt_badctl_begin(int n, int S, const double *x, const double *v,
                                              const double *m, double *ps, const double *a,
                                              const double *j, const double *pp)
{
    (void)n, (void)S, (void)x, (void)v, (void)m, (void)ps, (void)a, (void)j, (void)pp;
}

SL_HD SL_INLINE void sl_prop_slt_badctl_point(int st, int n, int S, double h, const double *x,
                                              const double *v, const double *m,
                                              const double *ps, double *xe, double *ve,
                                              const double *pp)
{
    (void)st, (void)h, (void)m, (void)ps, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        xe[S * k] = x[S * k];
        ve[S * k] = v[S * k];
    }
}

SL_HD SL_INLINE void sl_prop_slt_badctl_apply(int st, int n, int S, double h, double *x,
                                              double *v, const double *m, double *ps,
                                              const double *a, const double *j,
                                              const double *pp)
{
    (void)st, (void)m, (void)ps, (void)a, (void)j, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        x[S * k] += h * v[S * k];
}

SL_HD SL_INLINE double sl_prop_slt_badctl_control(int n, int S, double h, const double *x,
                                                  const double *v, const double *m, double *ps,
                                                  const double *pp, int *accept)
{
    (void)n, (void)x, (void)v, (void)ps;
    const int bad = m[S] >= pp[2], mode = (int)pp[1];
    *accept = 1;
    if (h == 0.0)
        return bad && mode == 6 ? 0.0 : pp[0];
    if (!bad)
        return pp[0];
    switch (mode) {
    case 1: return NAN;
    case 2: return -1.0;
    case 3: *accept = 0; return h;
    case 4: return h / 1000.0;
    case 5: *accept = 0; return h / 2.0;
    default: return pp[0];
    }
}

#endif
