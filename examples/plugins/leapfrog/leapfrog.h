/* Leapfrog, kick-drift-kick: second order, symplectic, one force
 * evaluation per step. The stage functions follow the contract of
 * <starling/launch.h>: every array is strided by S (component c of body b
 * is x[S*(3b+c)], its mass m[S*b]), the loop calls the force between point
 * and apply, and pp[0] is the step.
 *
 * Scratch per body: the acceleration at the start of the step (3 doubles),
 * kept between launches so that a step costs one force call. */
#ifndef LEAPFROG_H
#define LEAPFROG_H

#include <starling/hd.h>

#define SL_PROP_leapfrog_NSTAGES 1
#define SL_PROP_leapfrog_SCRATCH 3
#define SL_PROP_leapfrog_PERSIST 3
#define SL_PROP_leapfrog_JERK 0

/* After a force call at (x, v): remember a. */
SL_HD SL_INLINE void sl_prop_leapfrog_begin(int n, int S, const double *x, const double *v,
                                            const double *m, double *ps, const double *a,
                                            const double *j, const double *pp)
{
    (void)x, (void)v, (void)m, (void)j, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        ps[S * k] = a[S * k];
}

/* Kick by h/2, drift by h: where the step's one force call is made. */
SL_HD SL_INLINE void sl_prop_leapfrog_point(int st, int n, int S, double h, const double *x,
                                            const double *v, const double *m, const double *ps,
                                            double *xe, double *ve, const double *pp)
{
    (void)st, (void)m, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        ve[S * k] = v[S * k] + 0.5 * h * ps[S * k];
        xe[S * k] = x[S * k] + h * ve[S * k];
    }
}

/* The same kick and drift (same operations, same bits), then the second
 * kick with the new acceleration a1, which starts the next step. */
SL_HD SL_INLINE void sl_prop_leapfrog_apply(int st, int n, int S, double h, double *x, double *v,
                                            const double *m, double *ps, const double *a1,
                                            const double *j1, const double *pp)
{
    (void)st, (void)m, (void)j1, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        const double vh = v[S * k] + 0.5 * h * ps[S * k];
        x[S * k] = x[S * k] + h * vh;
        v[S * k] = vh + 0.5 * h * a1[S * k];
        ps[S * k] = a1[S * k];
    }
}

/* Body counts with unrolled, vectorised loops (other N use the runtime-N
 * loop); each one adds a CPU loop and a CUDA kernel per force. */
#define LEAPFROG_NBODIES(X, ...) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3)

#endif
