/* @NAME@: leapfrog, kick-drift-kick. Second order, symplectic, one force
 * evaluation per step. These SL_HD stage functions follow the contract of
 * <starling/integrate.h>: every array is strided by S (component c of body
 * b is x[S*(3b+c)]), and the loop calls the force between point and apply,
 * so the same code runs on CPU lanes and as a CUDA kernel with any force.
 *
 * Scratch per body: the acceleration at the start of the step (3 doubles),
 * kept between launches (PERSIST) so that a step costs one force call. */
#ifndef @NAME_UPPER@_H
#define @NAME_UPPER@_H

#include <starling/hd.h>
#include <starling/named_params.h>

/* Its keys (named_params.h): the schema, the struct sl_@NAME@_params the
 * stages may read (sl_@NAME@_params_of(pp)->dt) and the pack. An
 * integrator's first field is dt, the step the loop takes. */
#define SL_PARAMS_@NAME@(ARG, KEY, VAL)                                                    \
    ARG(dt, SL_PARAM_NUMBER, 0.0, 1e-300, 1e300, 1, "time step (G = 1 units; one year = 2 pi)", \
        NULL, NULL)
SL_PARAMS_PROPAGATOR(sl_@NAME@_params, SL_PARAMS_@NAME@)

#define SL_PROP_@NAME@_NSTAGES 1 /* force evaluations per step */
#define SL_PROP_@NAME@_SCRATCH 3 /* doubles per body of working state */
#define SL_PROP_@NAME@_PERSIST 3 /* of which kept between launches */
#define SL_PROP_@NAME@_JERK 0    /* accelerations suffice */
#define SL_PROP_@NAME@_PERTURB 0    /* the whole force (not its perturbation part, acc_perturb) */
#define SL_PROP_@NAME@_SYNC 0
#define SL_PROP_@NAME@_ADAPTIVE 0 /* a fixed step, dt */
/* Each stage touches only each body's own entries (3b+c), so CUDA could
 * run systems of 8..16 bodies on a group of threads (docs/PLUGINS.md,
 * "Many bodies"): worth it for integrators with a large state per body
 * (hermite, rkck), not for a leapfrog, whose state one thread holds:
 * #define SL_PROP_@NAME@_BODYWISE 1 */

/* After a force call at (x, v): remember a. */
SL_HD SL_INLINE void sl_prop_@NAME@_begin(int n, int S, const double *x, const double *v,
                                          const double *m, double *ps, const double *a,
                                          const double *j, const double *pp)
{
    (void)x, (void)v, (void)m, (void)j, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        ps[S * k] = a[S * k];
}

/* Kick by h/2, drift by h: where the step's force call is made. */
SL_HD SL_INLINE void sl_prop_@NAME@_point(int st, int n, int S, double h, const double *x,
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
 * kick with the new acceleration a1, which also starts the next step. */
SL_HD SL_INLINE void sl_prop_@NAME@_apply(int st, int n, int S, double h, double *x, double *v,
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

#endif
