/* Velocity Verlet (leapfrog, kick-drift-kick): second order, symplectic and
 * time-reversible for forces that depend on positions only, fixed step
 * dt, one force evaluation per step.
 *
 * This is the in-tree worked example of an integrator: the smallest one
 * that uses every part of the kernel contract (<starling/launch.h>,
 * docs/PLUGINS.md "The kernel contract"). The generic loops call, for each
 * system:
 *
 *   begin(x, v, a(x, v))                  once per run
 *   per step of size h, for stage k = 0 .. NSTAGES-1:
 *     point(k)  -> (xe, ve)               where stage k wants the force
 *     a(xe, ve) computed by the loop      (the integrator never calls a force)
 *     apply(k, a)                         updates x, v and the scratch ps
 *
 * One step of size h from (x, v) with a0 = a(x):
 *
 *   kick   v' = v + h/2 a0
 *   drift  x1 = x + h v'
 *   (the loop evaluates a1 = a(x1))
 *   kick   v1 = v' + h/2 a1
 *
 * a1 is the a0 of the next step ("first same as last"): keeping it in the
 * scratch makes a step cost one force evaluation instead of two. Because
 * it must survive from one launch to the next, it is the persistent part of
 * the scratch (PERSIST = 3 doubles per body); begin fills it before the
 * first step.
 *
 * Arrays are strided by S (the CPU lane loop passes its width so that the
 * loop over systems vectorises; the GPU passes 1): component c of body b is
 * x[S*(3b+c)], and ps[S*k] is scratch double k. Write every index that way. */
#ifndef STARLING_VERLET_H
#define STARLING_VERLET_H

#include "starling/hd.h"
#include "starling/named_params.h"

/* The keys (named_params.h): the struct sl_verlet_params, its schema and pack. */
#define SL_PARAMS_verlet(ARG, KEY, VAL)                                                   \
    ARG(dt, SL_PARAM_NUMBER, 0.0, 1e-300, 1e300, 1, "time step (G = 1 units; one year = 2 pi)", \
        NULL, NULL)
SL_PARAMS_PROPAGATOR(sl_verlet_params, SL_PARAMS_verlet)

/* The contract's six constants. The loops paste JERK, PERTURB and ADAPTIVE into
 * macro names, so they must be the literals 0 or 1. */
#define SL_PROP_verlet_NSTAGES 1  /* force evaluations per step */
#define SL_PROP_verlet_SCRATCH 3  /* doubles per body of ps: a0 */
#define SL_PROP_verlet_PERSIST 3  /* ... all of which is carried between launches */
#define SL_PROP_verlet_JERK 0     /* accelerations only: the loop calls the force's acc */
#define SL_PROP_verlet_PERTURB 0  /* the whole force, not the part beyond the central body's pull */
#define SL_PROP_verlet_SYNC 0
#define SL_PROP_verlet_ADAPTIVE 0 /* fixed step dt: no control function */
/* Its stages act per body, but verlet does not declare BODYWISE: one
 * thread per system holds its small state (no jerks, 3 doubles of ps per
 * body) well enough that a group of threads is 3.6x slower at N = 9 and
 * no faster at N = 16 on the H100. */

/* Called after the loop evaluated the force at the initial state: keep it
 * as the a0 of the first step. j is not written when JERK is 0. */
SL_HD SL_INLINE void sl_prop_verlet_begin(int n, int S, const double *x, const double *v,
                                          const double *m, double *ps, const double *a,
                                          const double *j, const double *pp)
{
    (void)x, (void)v, (void)m, (void)j, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        ps[S * k] = a[S * k];
}

/* Where the one stage evaluates the force: the drifted positions x1. A
 * force that depends on velocities (drag, post-Newtonian terms) also needs
 * v1, which the step has not computed yet (it needs a1): v + h a0 predicts
 * it to O(h^2), which keeps the step's local error O(h^3), i.e. the method
 * second order. (v' alone, O(h) off, would make it first order for such
 * forces.) For forces of positions only ve is not read. */
SL_HD SL_INLINE void sl_prop_verlet_point(int st, int n, int S, double h, const double *x,
                                          const double *v, const double *m, const double *ps,
                                          double *xe, double *ve, const double *pp)
{
    (void)st, (void)m, (void)pp;
    const double *a0 = ps;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        const double vh = v[S * k] + 0.5 * h * a0[S * k];
        xe[S * k] = x[S * k] + h * vh;
        ve[S * k] = v[S * k] + h * a0[S * k];
    }
}

/* The whole step, with a1 = a(x1). x1 is recomputed with point's
 * arithmetic, so the force was evaluated exactly where the bodies end up.
 * With h = 0 (a system that is not stepping) x and v are left bit for bit
 * as they were, as the contract requires. */
SL_HD SL_INLINE void sl_prop_verlet_apply(int st, int n, int S, double h, double *x, double *v,
                                          const double *m, double *ps, const double *a1,
                                          const double *j, const double *pp)
{
    (void)st, (void)m, (void)j, (void)pp;
    double *a0 = ps;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        const double vh = v[S * k] + 0.5 * h * a0[S * k]; /* kick */
        x[S * k] = x[S * k] + h * vh;                     /* drift: point's xe */
        v[S * k] = vh + 0.5 * h * a1[S * k];              /* kick */
        a0[S * k] = a1[S * k];                            /* first same as last */
    }
}

#endif
