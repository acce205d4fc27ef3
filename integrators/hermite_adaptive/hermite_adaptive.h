/* Fourth-order Hermite PEC^2 (the stages of hermite.h) with a step per
 * system from Aarseth's simplest criterion, as Swarm-NG's adaptive Hermite:
 *
 *   h = eta min_i |a_i| / |j_i|      over the bodies i of the system,
 *
 * eta a key (sl_hermite_adaptive_params). The accelerations and jerks hermite.h keeps for the next
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
 * - The first step is min(dt, eta min |a|/|j|) at the initial state,
 *   dt being the user's or DBL_MAX when none was given. A system
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
#include "starling/named_params.h"

/* The keys (named_params.h), in the order `starling plugins` shows them;
 * the field dt is the key dt or, without it, DBL_MAX (the pack's). */
#define SL_PARAMS_hermite_adaptive(ARG, KEY, VAL)                                          \
    VAL(dt, "the first step's cap: the key dt, else DBL_MAX")                              \
    ARG(eta, SL_PARAM_NUMBER, 0.02, 1e-300, 1.0, 0,                                        \
        "step factor: each step is eta min |a|/|j| over the system's bodies", NULL, NULL)  \
    KEY(dt, SL_PARAM_NUMBER, NAN, 1e-300, 1e300, 0,                                        \
        "largest first step (later steps follow the criterion)", NULL,                     \
        "none: eta min |a|/|j| at the start")
SL_PARAMS_PROPAGATOR(sl_hermite_adaptive_params, SL_PARAMS_hermite_adaptive)

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
    const sl_hermite_adaptive_params *p = sl_hermite_adaptive_params_of(pp);
    const double crit = sl_hermite_aarseth_step(n, S, ps, p->eta);
    if (h == 0.0) {
        const double h0 = fmin(p->dt, crit);
        return h0 < DBL_MAX ? h0 : INFINITY;
    }
    *accept = !(h > SL_HERMITE_ADAPTIVE_REJECT * crit);
    return *accept ? fmin(crit, SL_HERMITE_ADAPTIVE_GROW * h) : crit;
}

#endif
