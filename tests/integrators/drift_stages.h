/* A test integrator with many stages: each stage drifts every body by
 * h / SL_PROP_drift9_NSTAGES at its velocity, so a step of h moves a body
 * h v whatever the stage count, and any stage a loop skips shows. */
#ifndef SLT_DRIFT_STAGES_H
#define SLT_DRIFT_STAGES_H

#include "starling/hd.h"

#define SL_PROP_drift9_NSTAGES 9
#define SL_PROP_drift9_SCRATCH 0
#define SL_PROP_drift9_PERSIST 0
#define SL_PROP_drift9_JERK 0
#define SL_PROP_drift9_PERTURB 0
#define SL_PROP_drift9_SYNC 0
#define SL_PROP_drift9_ADAPTIVE 0

SL_HD SL_INLINE void sl_prop_drift9_begin(int n, int S, const double *x, const double *v,
                                          const double *m, double *ps, const double *a,
                                          const double *j, const double *pp)
{
    (void)n, (void)S, (void)x, (void)v, (void)m, (void)ps, (void)a, (void)j, (void)pp;
}

SL_HD SL_INLINE void sl_prop_drift9_point(int st, int n, int S, double h, const double *x,
                                          const double *v, const double *m, const double *ps,
                                          double *xe, double *ve, const double *pp)
{
    (void)st, (void)h, (void)m, (void)ps, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        xe[S * k] = x[S * k];
        ve[S * k] = v[S * k];
    }
}

SL_HD SL_INLINE void sl_prop_drift9_apply(int st, int n, int S, double h, double *x, double *v,
                                          const double *m, double *ps, const double *a,
                                          const double *j, const double *pp)
{
    (void)st, (void)m, (void)ps, (void)a, (void)j, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        x[S * k] += h / SL_PROP_drift9_NSTAGES * v[S * k];
}

#endif
