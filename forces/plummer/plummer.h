/* Plummer-softened gravity, G = 1: the potential of a pair is
 * -m_i m_k / sqrt(r^2 + eps^2), so close encounters stay finite (star
 * clusters, discs of planetesimals). eps = 0 is Newtonian gravity, bit for
 * bit. The kernels read eps^2 (sl_plummer_params, the field eps2): each
 * system may have its own eps (an ensemble attribute 'eps'). Arrays are strided by S (see newton.h). */
#ifndef STARLING_FORCE_PLUMMER_H
#define STARLING_FORCE_PLUMMER_H

#include <math.h>
#include "starling/hd.h"
#include "starling/force_pair.h"
#include "starling/named_params.h"

/* The key eps (named_params.h) and the value the kernels read, eps^2. */
#define SL_PARAMS_plummer(ARG, KEY, VAL)                                                   \
    KEY(eps, SL_PARAM_NUMBER, 0.0, 0.0, 1e150, 0,                                          \
        "softening length (units of x); 0: Newtonian", NULL, NULL)                         \
    VAL(eps2, "eps^2")
SL_PARAMS_STRUCT(sl_plummer_params, SL_PARAMS_plummer)

/* acc_jerk for Hermite; no perturbation part: softening bends body 0's
 * pull away from a Kepler orbit, so mvs-like integrators cannot use it.
 * force_pair.inc derives the per-body and per-pair variants too, but the
 * grouped CUDA kernels are not switched on for plummer (AT, PAIR 0): its
 * kernels stay the one-thread-a-system ones they were. */
#define SL_FORCE_plummer_NPACKED SL_PARAMS_COUNT(SL_PARAMS_plummer)
#define SL_FORCE_plummer_JERK 1
#define SL_FORCE_plummer_PERTURB 0
#define SL_FORCE_plummer_AT 0
#define SL_FORCE_plummer_PAIR 0
#define SL_FORCE_plummer_PERTURB_AT 0

/* The pair term (force_pair.h): the pull sees s^2 = r^2 + eps^2. */
typedef sl_plummer_params sl_pair_plummer_p;

SL_HD SL_INLINE sl_pair_plummer_p sl_pair_plummer_load(const double *fp, int S)
{
    return sl_plummer_params_load(fp, S);
}

SL_HD SL_INLINE double sl_pair_plummer_s2(double r2, sl_pair_plummer_p p)
{
    return r2 + p.eps2;
}

#define SL_PAIR plummer
#include "starling/force_pair.inc"

#endif
