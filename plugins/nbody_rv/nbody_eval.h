/* The compiled evaluations of nbody_like.inc, one per likelihood kind,
 * integrator and body count, for the CPU (nbody_eval.c). */
#ifndef STARLING_NBODY_EVAL_H
#define STARLING_NBODY_EVAL_H

#include "nbody_like.h"
#include "starling/backend.h"

SL_EXTERN_C_BEGIN

/* One model: ln L and χ² (-inf, +inf when refused); returns the reason
 * (SL_NBODY_*). */
typedef int (*sl_nbody_one_fn)(const sl_nbody_view *d, const double *p, double *ll,
                               double *chi2);

/* The star's velocity along the path through n sorted times (nbody_path.inc). */
typedef int (*sl_nbody_path_fn)(const double *x, const double *v, const double *m,
                                const double *pp, const double *fp, const double *times,
                                int n_t, int body, double *out);

/* [integrator][planets]: NULL for planets 0; a row per integrator, each
 * compiled in its own unit (nbody_eval_<P>.c). */
extern const sl_nbody_one_fn *const sl_nbody_cpu_ones[2];
extern const sl_nbody_one_fn sl_nbody_cpu_ones_mvs[SL_NBODY_MAX_PL + 1];
extern const sl_nbody_one_fn sl_nbody_cpu_ones_hermite[SL_NBODY_MAX_PL + 1];
extern const sl_nbody_path_fn sl_nbody_cpu_paths_mvs[SL_NBODY_MAX_PL + 1];
extern const sl_nbody_path_fn sl_nbody_cpu_paths_hermite[SL_NBODY_MAX_PL + 1];

/* The star's velocity (m/s, no offset or trend) at n times t (days, any
 * order) for one model: SL_NBODY_OK, a reason, or -1 without memory. */
int sl_nbody_cpu_curve(int integrator, const sl_nbody_view *d, const sl_nbody_model *M,
                       const double *pp, const double *fp, const double *t, int n, double *out);

SL_EXTERN_C_END

#endif
