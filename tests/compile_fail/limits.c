/* The limits of <starling/launch.h> are checked when loops are stamped:
 * each SLT_* case below must fail to compile with its message, under the C
 * compiler and under nvcc (-x cu); SLT_OK must compile. tests/core.cmake
 * runs every case as a test. */
#include "starling/instantiate.h"
#include "forces.h"

#define SL_PROP_slt_lim_NSTAGES 1
#define SL_PROP_slt_lim_SCRATCH 3
#define SL_PROP_slt_lim_PERSIST 3
#define SL_PROP_slt_lim_JERK 0
#define SL_PROP_slt_lim_PERTURB 0
#define SL_PROP_slt_lim_SYNC 0
#define SL_PROP_slt_lim_ADAPTIVE 0
#define SLT_LIM_N 3

#if defined(SLT_NSTAGES_0)
#undef SL_PROP_slt_lim_NSTAGES
#define SL_PROP_slt_lim_NSTAGES 0
#elif defined(SLT_NSTAGES_17)
#undef SL_PROP_slt_lim_NSTAGES
#define SL_PROP_slt_lim_NSTAGES 17
#elif defined(SLT_PERSIST)
#undef SL_PROP_slt_lim_PERSIST
#define SL_PROP_slt_lim_PERSIST 4
#elif defined(SLT_JERK)
#undef SL_PROP_slt_lim_JERK
#define SL_PROP_slt_lim_JERK 2
#define SL_FORCE_EVAL_20 SL_FORCE_EVAL_00 /* so that only the assert can refuse it */
#elif defined(SLT_PERTURB_JERK)
#undef SL_PROP_slt_lim_JERK
#define SL_PROP_slt_lim_JERK 1
#undef SL_PROP_slt_lim_PERTURB
#define SL_PROP_slt_lim_PERTURB 1
#define SL_FORCE_EVAL_11 SL_FORCE_EVAL_10 /* so that only the assert can refuse it */
#elif defined(SLT_PERTURB_MISSING)
#undef SL_PROP_slt_lim_PERTURB /* every integrator must say */
#elif defined(SLT_FORCE_FLAG)
#undef SL_FORCE_newton_PERTURB
#define SL_FORCE_newton_PERTURB 2
#define SL__CAN_0002 1 /* so that only the assert can refuse it */
#elif defined(SLT_ADAPTIVE)
#undef SL_PROP_slt_lim_ADAPTIVE
#define SL_PROP_slt_lim_ADAPTIVE 2
#define SL_PROP_CONTROL_2 SL_PROP_CONTROL_0 /* so that only the assert can refuse it */
#elif defined(SLT_ADAPTIVE_MISSING)
#undef SL_PROP_slt_lim_ADAPTIVE /* every integrator must say */
#elif defined(SLT_CONTROL_MISSING)
#undef SL_PROP_slt_lim_ADAPTIVE
#define SL_PROP_slt_lim_ADAPTIVE 1 /* and defines no sl_prop_slt_lim_control */
#elif defined(SLT_SYNC_ADAPTIVE)
#undef SL_PROP_slt_lim_SYNC
#define SL_PROP_slt_lim_SYNC 1
#undef SL_PROP_slt_lim_ADAPTIVE
#define SL_PROP_slt_lim_ADAPTIVE 1
#elif defined(SLT_SYNC_MISSING)
#undef SL_PROP_slt_lim_SYNC /* every integrator must say */
#elif defined(SLT_NBODY)
#undef SLT_LIM_N
#define SLT_LIM_N 65
#elif !defined(SLT_OK)
#error "define one SLT_* case"
#endif

SL_HD SL_INLINE void sl_prop_slt_lim_begin(int n, int S, const double *x, const double *v,
                                           const double *m, double *ps, const double *a,
                                           const double *j, const double *pp)
{
    (void)n, (void)S, (void)x, (void)v, (void)m, (void)ps, (void)a, (void)j, (void)pp;
}

SL_HD SL_INLINE void sl_prop_slt_lim_point(int st, int n, int S, double h, const double *x,
                                           const double *v, const double *m, const double *ps,
                                           double *xe, double *ve, const double *pp)
{
    (void)st, (void)h, (void)m, (void)ps, (void)pp;
    for (int k = 0; k < 3 * n; k++) {
        xe[S * k] = x[S * k];
        ve[S * k] = v[S * k];
    }
}

SL_HD SL_INLINE void sl_prop_slt_lim_apply(int st, int n, int S, double h, double *x, double *v,
                                           const double *m, double *ps, const double *a,
                                           const double *j, const double *pp)
{
    (void)st, (void)m, (void)ps, (void)j, (void)pp;
    for (int k = 0; k < 3 * n; k++) {
        v[S * k] += h * a[S * k];
        x[S * k] += h * v[S * k];
    }
}

#define SLT_LIM_NBODIES(X, ...) X(__VA_ARGS__, SLT_LIM_N)
#define SL_P slt_lim
#define SL_F newton
#define SL_NBODIES SLT_LIM_NBODIES
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"
