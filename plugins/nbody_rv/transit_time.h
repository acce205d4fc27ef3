/* Transit times from an N-body integration, as SL_HD functions: within a
 * step, a planet's mid-transit is where its projected separation from the
 * star is least with the planet in front (TTVFast's definition: the sky
 * plane is x, y; +z points away from the observer, so in front is z < 0).
 * Over one step the relative orbit is close to the Kepler orbit about
 * the star's and the planet's masses, as in TTVFast: the crossing is found
 * on that orbit, drifted from the step's start by the universal-variable
 * drift of integrators/mvs/kepler_drift.h, by Newton's iteration on
 * g(t) = x vx + y vy (half the rate of change of the squared projected
 * separation), kept inside the bracket where g changes sign. */
#ifndef STARLING_TRANSIT_TIME_H
#define STARLING_TRANSIT_TIME_H

#include <math.h>
#include "starling/hd.h"
#include "kepler_drift.h"

#define SL_TRANSIT_MAXIT 40

/* g and its rate g' = vx² + vy² + x ax + y ay on the Kepler orbit of
 * parameter mu (a = -mu r / |r|³). */
SL_HD SL_INLINE void sl_transit_g(double mu, const double *r, const double *u, double *g,
                                  double *dg)
{
    const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    const double k = -mu / (r2 * sqrt(r2));
    *g = r[0] * u[0] + r[1] * u[1];
    *dg = u[0] * u[0] + u[1] * u[1] + k * (r[0] * r[0] + r[1] * r[1]);
}

/* The mid-transit in [0, h) after a state (r, u) of the planet relative to
 * the star (mu: the two masses, G = 1): 1 with its offset in *dt when g
 * goes from negative at 0 to non-negative at h with the planet in front,
 * else 0. g(0) < 0 <= g(h) brackets the root; Newton's steps that leave
 * the bracket are replaced by bisection. */
SL_HD SL_INLINE int sl_transit_in_step(double mu, const double *r0, const double *u0, double h,
                                       double *dt)
{
    double g0, dg0, r[3], u[3];
    sl_transit_g(mu, r0, u0, &g0, &dg0);
    if (!(g0 < 0.0))
        return 0;
    for (int c = 0; c < 3; c++)
        r[c] = r0[c], u[c] = u0[c];
    sl_kepler_drift(mu, h, r, u);
    double gh, dgh;
    sl_transit_g(mu, r, u, &gh, &dgh);
    if (!(gh >= 0.0))
        return 0;
    double lo = 0.0, hi = h, t = g0 / (g0 - gh) * h; /* the secant's root */
    for (int it = 0; it < SL_TRANSIT_MAXIT; it++) {
        for (int c = 0; c < 3; c++)
            r[c] = r0[c], u[c] = u0[c];
        sl_kepler_drift(mu, t, r, u);
        double g, dg;
        sl_transit_g(mu, r, u, &g, &dg);
        if (g < 0.0)
            lo = t;
        else
            hi = t;
        double next = dg > 0.0 ? t - g / dg : 0.5 * (lo + hi);
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (fabs(next - t) <= 4e-16 * (fabs(t) + h)) {
            t = next;
            break;
        }
        t = next;
    }
    for (int c = 0; c < 3; c++)
        r[c] = r0[c], u[c] = u0[c];
    sl_kepler_drift(mu, t, r, u);
    if (!(r[2] < 0.0))
        return 0; /* the least separation behind the star: an occultation */
    *dt = t;
    return 1;
}

#endif
