/* Fourth-order Hermite PEC^2 (the stages of hermite.h) with a step per
 * system from Aarseth's simplest criterion, as Swarm-NG's adaptive Hermite:
 *
 *   h = eta min_i |a_i| / |j_i|      over the bodies i of the system,
 *
 * eta = pp[1]. The accelerations and jerks hermite.h keeps for the next
 * step (the persistent a0 | j0, at the state a step ends on) are the ones
 * the criterion reads, so choosing the step costs no extra force call.
 *
 * Decisions, and why:
 * - The step is taken, not tested: Hermite has no error estimate, and the
 *   criterion only sets a time scale. A step is rejected only when the
 *   criterion at its end is less than half the step just taken: the state
 *   then changed faster than the start of the step showed (a close
 *   approach that the start's a/j did not foresee), so the step under-
 *   resolved it; it is retried with the new criterion. On a smooth orbit
 *   the criterion moves by O(eta) per step and this never fires.
 * - A step grows at most 2x over the one before: a body's jerk passing
 *   near zero makes its |a|/|j| large for an instant, and one such moment
 *   should not set a step its neighbours in time do not support (Aarseth's
 *   codes limit growth the same way).
 * - The first step is min(pp[0], eta min |a|/|j|) at the initial state,
 *   pp[0] being the user's dt or DBL_MAX when none was given. A system
 *   whose bodies all have zero jerk (all at rest) has no time scale: with
 *   no dt either, control returns an infinite step and the loop stops that
 *   system with reason step_size (nonfinite) instead of guessing.
 *
 * ps per body: hermite.h's a0 | j0 | xc | vc (a0, j0 persist). */
#ifndef STARLING_HERMITE_ADAPTIVE_H
#define STARLING_HERMITE_ADAPTIVE_H

#include <float.h>
#include <math.h>
#include "starling/hd.h"
#include "starling/integrators/hermite.h"

#define SL_PROP_hermite_adaptive_NSTAGES SL_PROP_hermite_NSTAGES
#define SL_PROP_hermite_adaptive_SCRATCH SL_PROP_hermite_SCRATCH
#define SL_PROP_hermite_adaptive_PERSIST SL_PROP_hermite_PERSIST
#define SL_PROP_hermite_adaptive_JERK 1
#define SL_PROP_hermite_adaptive_PERTURB 0
#define SL_PROP_hermite_adaptive_SYNC 0
#define SL_PROP_hermite_adaptive_ADAPTIVE 1

/* A step is redone when the criterion at its end is below 1/REJECT of it;
 * the next step is at most GROW times the last. */
#define SL_HERMITE_ADAPTIVE_REJECT 2.0
#define SL_HERMITE_ADAPTIVE_GROW 2.0

SL_HD SL_INLINE void sl_prop_hermite_adaptive_begin(int n, int S, const double *x,
                                                    const double *v, const double *m,
                                                    double *ps, const double *a,
                                                    const double *j, const double *pp)
{
    sl_prop_hermite_begin(n, S, x, v, m, ps, a, j, pp);
}

SL_HD SL_INLINE void sl_prop_hermite_adaptive_point(int st, int n, int S, double h,
                                                    const double *x, const double *v,
                                                    const double *m, const double *ps,
                                                    double *xe, double *ve, const double *pp)
{
    sl_prop_hermite_point(st, n, S, h, x, v, m, ps, xe, ve, pp);
}

SL_HD SL_INLINE void sl_prop_hermite_adaptive_apply(int st, int n, int S, double h, double *x,
                                                    double *v, const double *m, double *ps,
                                                    const double *a, const double *j,
                                                    const double *pp)
{
    sl_prop_hermite_apply(st, n, S, h, x, v, m, ps, a, j, pp);
}

/* eta min_i |a_i| / |j_i| from the a0 | j0 blocks of ps; +inf when no body
 * has a jerk. Compared as squares: one square root per system. */
SL_HD SL_INLINE double sl_hermite_aarseth_step(int n, int S, const double *ps, double eta)
{
    const double *a = ps, *j = ps + S * 3 * n;
    double q = INFINITY;
    SL_UNROLL
    for (int b = 0; b < n; b++) {
        double a2 = 0.0, j2 = 0.0;
        SL_UNROLL
        for (int c = 0; c < 3; c++) {
            a2 += a[S * (3 * b + c)] * a[S * (3 * b + c)];
            j2 += j[S * (3 * b + c)] * j[S * (3 * b + c)];
        }
        if (j2 > 0.0 && a2 < q * j2)
            q = a2 / j2;
    }
    return eta * sqrt(q);
}

SL_HD SL_INLINE double sl_prop_hermite_adaptive_control(int n, int S, double h,
                                                        const double *x, const double *v,
                                                        const double *m, double *ps,
                                                        const double *pp, int *accept)
{
    (void)x, (void)v, (void)m;
    const double crit = sl_hermite_aarseth_step(n, S, ps, pp[1]);
    if (h == 0.0) {
        const double h0 = fmin(pp[0], crit);
        return h0 < DBL_MAX ? h0 : INFINITY;
    }
    *accept = !(h > SL_HERMITE_ADAPTIVE_REJECT * crit);
    return *accept ? fmin(crit, SL_HERMITE_ADAPTIVE_GROW * h) : crit;
}

#endif
