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

#include "starling/force_pair.h"

#define SL_FORCE_newton_NPACKED 0 /* no parameters */
#define SL_FORCE_newton_JERK 1    /* acc_jerk: for Hermite */
#define SL_FORCE_newton_PERTURB 1 /* acc_perturb: for mvs */
#define SL_FORCE_newton_AT 1      /* acc_at, acc_jerk_at: for grouped kernels */
#define SL_FORCE_newton_PAIR 1    /* pair, pair_jerk: grouped kernels share pair terms */
#define SL_FORCE_newton_PERTURB_AT 1 /* acc_perturb_at: for mvs's grouped kernels */

/* The pair term (force_pair.h): no parameters to load, and the pull sees
 * the distance itself. force_pair.inc derives acc, acc_jerk, the
 * perturbation part, the per-body and per-pair variants and the potential. */
typedef struct sl_pair_newton_p {
    char none;
} sl_pair_newton_p;

SL_HD SL_INLINE sl_pair_newton_p sl_pair_newton_load(const double *fp, int S)
{
    (void)fp, (void)S;
    sl_pair_newton_p p = {0};
    return p;
}

SL_HD SL_INLINE double sl_pair_newton_s2(double r2, sl_pair_newton_p p)
{
    (void)p;
    return r2;
}

#define SL_PAIR newton
#include "starling/force_pair.inc"

#endif
