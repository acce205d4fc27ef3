/* A test force with accelerations only: Newtonian gravity that declares
 * neither a jerk nor a perturbation part, so that integrators needing one
 * (hermite, mvs) get no kernels for it and a run is refused, naming the
 * part (tests/test_composition.c). */
#ifndef SLT_FORCE_NOJERK_H
#define SLT_FORCE_NOJERK_H

#include "starling/hd.h"
#include "starling/forces/newton.h"

#define SL_FORCE_slt_nojerk_JERK 0
#define SL_FORCE_slt_nojerk_PERTURB 0

SL_HD SL_INLINE void sl_force_slt_nojerk_acc(int n, int S, const double *x, const double *v,
                                             const double *m, const double *fp, double *a)
{
    sl_force_newton_acc(n, S, x, v, m, fp, a);
}

SL_HD SL_INLINE double sl_force_slt_nojerk_potential(int n, int S, const double *x,
                                                     const double *m, const double *fp)
{
    return sl_force_newton_potential(n, S, x, m, fp);
}

#endif
