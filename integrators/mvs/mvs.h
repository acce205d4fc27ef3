/* Mixed-variable symplectic integrator (Wisdom & Holman 1991) in
 * democratic heliocentric coordinates (Duncan, Levison & Lee 1998), for
 * systems with a dominant central body 0.
 *
 * Coordinates: Q_0 the centre of mass, Q_i = x_i - x_0 (heliocentric
 * positions); V_0 the centre-of-mass velocity, V_i = v_i - V_0
 * (barycentric velocities). The Hamiltonian splits into
 *   Kepler      sum_i |p_i|^2 / 2 m_i - m_0 m_i / |Q_i|   (each body about body 0, gm = m_0)
 *   jump        |sum_i p_i|^2 / 2 m_0                    (body 0's motion)
 *   perturbation: the force less body 0's Newtonian pull  (the force's acc_perturb)
 * and a step of size h is the symmetric composition
 *   Kepler(h/2) jump(h/2) kick(h) jump(h/2) Kepler(h/2)
 * (the order REBOUND's WHFast uses in these coordinates), second order,
 * with one force evaluation: the stage's point is the state after the
 * first half, its apply the kick and the second half. The centre of mass
 * drifts with V_0 alongside the Kepler parts. The Kepler drifts are exact
 * to rounding (<starling/kepler_drift.h>: universal variables, every
 * eccentricity, hyperbolic orbits and tiny steps).
 *
 * A step converts x, v to (Q, V) and back ("safe mode"): the stored state
 * is always the inertial one, so monitors, logs and launches see positions
 * and velocities, at the cost of a rounding per step (~1e-16 relative).
 *
 * Working state per body (ps, blocks of 3n strided by S): Q | V. pp[0] is
 * the step. */
#ifndef STARLING_MVS_H
#define STARLING_MVS_H

#include "starling/hd.h"
#include "starling/kepler_drift.h"

#define SL_PROP_mvs_NSTAGES 1
#define SL_PROP_mvs_SCRATCH 6
#define SL_PROP_mvs_PERSIST 0
#define SL_PROP_mvs_JERK 0
#define SL_PROP_mvs_ADAPTIVE 0
#define SL_PROP_mvs_PERTURB 1 /* the kick takes the force's acc_perturb */

SL_HD SL_INLINE void sl_prop_mvs_begin(int n, int S, const double *x, const double *v,
                                       const double *m, double *ps, const double *a,
                                       const double *j, const double *pp)
{
    (void)n, (void)S, (void)x, (void)v, (void)m, (void)ps, (void)a, (void)j, (void)pp;
}

/* (x, v) -> (Q, V) into ps. */
SL_HD SL_INLINE void sl_mvs_to_dh(int n, int S, const double *x, const double *v,
                                  const double *m, double *Q, double *V)
{
    double mt = 0.0, c[3] = {0.0, 0.0, 0.0}, u[3] = {0.0, 0.0, 0.0};
    SL_UNROLL
    for (int i = 0; i < n; i++) {
        mt += m[S * i];
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            c[d] += m[S * i] * x[S * (3 * i + d)];
            u[d] += m[S * i] * v[S * (3 * i + d)];
        }
    }
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        Q[S * d] = c[d] / mt;
        V[S * d] = u[d] / mt;
    }
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            Q[S * (3 * i + d)] = x[S * (3 * i + d)] - x[S * d];
            V[S * (3 * i + d)] = v[S * (3 * i + d)] - V[S * d];
        }
}

/* The momentum of bodies 1..n-1 per unit mass of body 0: the jump's speed. */
SL_HD SL_INLINE void sl_mvs_jump_speed(int n, int S, const double *m, const double *V,
                                       double w[3])
{
    w[0] = w[1] = w[2] = 0.0;
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            w[d] += m[S * i] * V[S * (3 * i + d)];
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        w[d] /= m[0];
}

SL_HD SL_INLINE void sl_mvs_jump(int n, int S, double h, const double *m, double *Q,
                                 const double *V)
{
    double w[3];
    sl_mvs_jump_speed(n, S, m, V, w);
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            Q[S * (3 * i + d)] += h * w[d];
}

/* Each body along its orbit about body 0 for h, the centre of mass along
 * its line. A drift that fails (no convergence, non-finite input) leaves
 * NaN, which the loop's non-finite check reports. */
SL_HD SL_INLINE void sl_mvs_kepler(int n, int S, double h, const double *m, double *Q,
                                   double *V)
{
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        Q[S * d] += h * V[S * d];
    SL_UNROLL
    for (int i = 1; i < n; i++) {
        double q[3], u[3];
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            q[d] = Q[S * (3 * i + d)];
            u[d] = V[S * (3 * i + d)];
        }
        sl_kepler_drift(m[0], h, q, u);
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            Q[S * (3 * i + d)] = q[d];
            V[S * (3 * i + d)] = u[d];
        }
    }
}

/* The state after the first half step, in body 0's frame (body 0 at rest
 * at the origin): the force sees only differences, and this frame gives
 * them without a conversion back. */
SL_HD SL_INLINE void sl_prop_mvs_point(int st, int n, int S, double h, const double *x,
                                       const double *v, const double *m, double *ps,
                                       double *xe, double *ve, const double *pp)
{
    (void)st, (void)pp;
    double *Q = ps, *V = ps + S * 3 * n;
    sl_mvs_to_dh(n, S, x, v, m, Q, V);
    sl_mvs_kepler(n, S, 0.5 * h, m, Q, V);
    sl_mvs_jump(n, S, 0.5 * h, m, Q, V);
    double w[3];
    sl_mvs_jump_speed(n, S, m, V, w);
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        xe[S * d] = ve[S * d] = 0.0;
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            xe[S * (3 * i + d)] = Q[S * (3 * i + d)];
            ve[S * (3 * i + d)] = V[S * (3 * i + d)] + w[d]; /* v_i - v_0 */
        }
}

SL_HD SL_INLINE void sl_prop_mvs_apply(int st, int n, int S, double h, double *x, double *v,
                                       const double *m, double *ps, const double *a,
                                       const double *j, const double *pp)
{
    (void)st, (void)j, (void)pp;
    double *Q = ps, *V = ps + S * 3 * n;
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            V[S * (3 * i + d)] += h * a[S * (3 * i + d)];
    sl_mvs_jump(n, S, 0.5 * h, m, Q, V);
    sl_mvs_kepler(n, S, 0.5 * h, m, Q, V);
    /* back to inertial: x_0 from the centre of mass, v_0 from the momentum */
    double mt = 0.0, c[3] = {0.0, 0.0, 0.0}, w[3];
    SL_UNROLL
    for (int i = 0; i < n; i++)
        mt += m[S * i];
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            c[d] += m[S * i] * Q[S * (3 * i + d)];
    sl_mvs_jump_speed(n, S, m, V, w);
    /* h = 0 (a lane that does not step) must leave the state's bits: the
     * round trip through (Q, V) would not */
    const int keep = h == 0.0;
    double x0[3], v0[3];
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        x0[d] = Q[S * d] - c[d] / mt;
        v0[d] = V[S * d] - w[d];
    }
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            double xi = Q[S * (3 * i + d)] + x0[d], vi = V[S * (3 * i + d)] + V[S * d];
            x[S * (3 * i + d)] = keep ? x[S * (3 * i + d)] : xi;
            v[S * (3 * i + d)] = keep ? v[S * (3 * i + d)] : vi;
        }
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        x[S * d] = keep ? x[S * d] : x0[d];
        v[S * d] = keep ? v[S * d] : v0[d];
    }
}

#endif
