/* MEGNO (Cincotta & Simó 2000), the chaos indicator REBOUND users ask for,
 * for every system of an ensemble, with any integrator and force on either
 * backend.
 *
 * Method: each system runs beside a shadow copy displaced by a tiny
 * phase-space distance delta (relative to the system's own spread of
 * positions and velocities, so the result does not depend on units). Every
 * `interval` of time the run pauses, the distance d between the system and
 * its shadow is measured in the same metric, ln(d / delta) is added to the
 * log of the growth, and the shadow is pulled back to distance delta along
 * the same direction (Benettin's renormalisation). With L(t) the summed log
 * growth, and its rate taken constant across an interval,
 *
 *   Y(t)   = (2 / t) * integral_0^t s dL(s)        (MEGNO)
 *   <Y>(t) = (1 / t) * integral_0^t Y(s) ds        (its time mean: REBOUND's sim.megno())
 *
 * <Y> tends to 2 for quasi-periodic motion, to 0 for a stable periodic orbit
 * or an isochronous one, and grows as lambda t / 2 for chaotic motion, lambda
 * the maximal Lyapunov exponent. Its estimate is twice the least-squares
 * slope of <Y> against time over the samples (~0 for regular motion);
 * REBOUND's sim.lyapunov() is that slope without the factor 2, lambda / 2.
 * REBOUND integrates the variational equations instead; the shadow is their
 * finite-difference form, exact to O(delta) while the shadow stays in the
 * linear regime, which the renormalisation ensures as long as the growth
 * over one interval stays far below 1/delta (an interval shorter than a few
 * Lyapunov times). delta must also stay far above the integrator's rounding
 * noise: for two Jupiters at 100 steps an orbit the two errors are each
 * about 0.01 in <Y> at delta = 1e-6 and 1e-8, less at the default 1e-7, and
 * rounding takes over below 1e-9.
 *
 * The samples must also resolve the orbits: the distance oscillates with
 * the orbital phase, and samples an orbit apart alias that oscillation
 * into <Y>. For the same two Jupiters (100 steps an orbit) <Y> is the same
 * to 1e-4 sampled every step or every 10 steps, 0.003 higher every 50, and
 * 0.014 higher every 100; hence the default of 10 steps.
 *
 * Running: the systems and their shadows form one ensemble of 2 n_sys
 * systems, so the shadows cost as much as the systems, advanced in one
 * run cut at every interval: each system stops at the interval's end, the
 * pairs are sampled where the run keeps them (on the GPU by a kernel,
 * without a copy to the host) and each integrator starts afresh from there,
 * as a new call of sl_integrate would. Logs, progress and the built-in
 * stop monitors see only the systems, and a log by time goes on across the
 * intervals as in a run without MEGNO. The energy monitor checks each
 * system as sl_integrate does; a system that stops for any reason takes
 * its shadow with it.
 */
#ifndef STARLING_MEGNO_H
#define STARLING_MEGNO_H

#include "starling/run.h"

SL_EXTERN_C_BEGIN

typedef struct sl_megno_config {
    double interval; /* time between renormalisations; 0: 10 steps of pp[0] */
    double delta;    /* the shadow's relative distance, in [1e-12, 1e-3] */
    uint64_t seed;   /* picks each shadow's initial direction */
} sl_megno_config;

/* interval 0 (10 steps), delta 1e-7, seed 1. */
void sl_megno_config_default(sl_megno_config *m);

/* Per system; NAN where nothing was measured (a system inactive from the
 * start, or whose shadow stopped or failed before the first interval). A
 * system whose shadow stops or fails later keeps the values of the last
 * interval both finished, and span says how long that was. */
typedef struct sl_megno_result {
    int64_t n_sys;
    double *megno;    /* <Y>, the time mean of MEGNO */
    double *y;        /* Y at the end of the span */
    double *lyapunov; /* lambda: 2 x the slope of <Y> against time, per unit time */
    double *span;     /* the time the values cover */
    double interval;  /* as used (the default resolved) */
} sl_megno_result;

/* Everything sl_integrate_megno refuses before work, and nothing else. */
sl_status sl_megno_check(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c,
                         const sl_megno_config *m);

/* Integrates e to c->t_end as sl_integrate does and measures MEGNO. res is
 * as from sl_integrate, over the whole run (energy_error against the
 * energy at the start). User monitors are refused: they would be shown the
 * shadows as systems. e changes only when the whole run succeeds (the
 * work happens on a copy): a failure or a cancel leaves it as it was, and
 * mr holds nothing. */
sl_status sl_integrate_megno(const sl_backend *be, sl_ensemble *e, const sl_run_config *c,
                             const sl_megno_config *m, sl_run_result *res,
                             sl_megno_result *mr);
void sl_megno_result_free(sl_megno_result *mr);

SL_EXTERN_C_END

#endif
