/* Mixed-variable symplectic integrator (Wisdom & Holman 1991) in
 * democratic heliocentric coordinates (Duncan, Levison & Lee 1998), for
 * systems with a dominant central body 0, with optional symplectic
 * correctors (Wisdom, Holman & Touma 1996).
 *
 * Coordinates: Q_0 the centre of mass, Q_i = x_i - x_0 (heliocentric
 * positions); V_0 the centre-of-mass velocity, V_i = v_i - V_0
 * (barycentric velocities). The Hamiltonian splits into
 *   Kepler      sum_i |p_i|^2 / 2 m_i - m_0 m_i / |Q_i|   (each body about body 0, gm = m_0)
 *   jump        |sum_i p_i|^2 / 2 m_0                    (body 0's motion)
 *   perturbation: the force less body 0's Newtonian pull  (the force's acc_perturb)
 * and a step of size h is the symmetric composition
 *   Kepler(h/2) B(h) Kepler(h/2),  B(h) = jump(h/2) kick(h) jump(h/2)
 * (the order REBOUND's WHFast uses in these coordinates), second order,
 * with one force evaluation. The centre of mass drifts with V_0 alongside
 * the Kepler parts. The Kepler drifts are exact to rounding
 * (kepler_drift.h beside this header: universal variables, every eccentricity,
 * hyperbolic orbits and tiny steps).
 *
 * Unsynchronised (SL_PROP_mvs_SYNC, launch.h): (Q, V) live in ps from step
 * to step with the last step's closing Kepler(h/2) pending, so the next
 * step's opening half joins it and a step costs one drift per body, not
 * two. The loop has x, v written (close) only when it needs them; a close
 * works on a copy, so logging or monitoring never changes the trajectory,
 * and neither do the launches' boundaries.
 *
 * Correctors (the key corrector = order 3, 5, 7, 11 or 17; 0 none): the map M^k is
 * run as C M^k C^-1, C^-1 applied when the run opens and C at every
 * close, which removes the error terms of order eps h^2 .. eps h^p (eps
 * the planets' mass ratio) and leaves eps^2 h^2: the energy error drops
 * by orders of magnitude at no cost per step. C is a product of the
 * operators Z(a, b) = K(a) B(-b) K(-2a) B(b) K(a) (K the Kepler drift, B
 * as above), with a_k = k sqrt(7/40) dt and the b of WHT96 (the values
 * REBOUND's WHFast uses, where they are offered in Jacobi coordinates
 * only; here B carries the jump as well).
 *
 * Jacobi coordinates (coordinates = "jacobi", 1) instead: see below; the same steps
 * without the jump, the same correctors.
 *
 * Working state (ps, blocks of 3n strided by S): Q | V | the pending
 * drift time (one double, the first of a block of n), then scratch for
 * the Jacobi kick. The keys are SL_PARAMS_mvs below; kernels read them as
 * sl_mvs_params_of(pp)->coordinates and so on. */
#ifndef STARLING_MVS_H
#define STARLING_MVS_H

#include "starling/hd.h"
#include "kepler_drift.h"
#include "starling/propagator.h"
#include "starling/launch.h" /* SL_SYNC_OPEN, SL_SYNC_CLOSE */
#include "starling/named_params.h"

/* The keys (named_params.h): the struct sl_mvs_params, its schema and pack.
 * coordinates is a word, its field the word's index: 0 democratic
 * heliocentric, 1 Jacobi. */
#define SL_PARAMS_mvs(ARG, KEY, VAL)                                                       \
    ARG(dt, SL_PARAM_NUMBER, 0.0, 1e-300, 1e300, 1,                                        \
        "time step (G = 1 units; one year = 2 pi); a twentieth of the shortest orbital "   \
        "period or less", NULL, NULL)                                                      \
    ARG(min_mass_ratio, SL_PARAM_NUMBER, 10.0, 1.0, 1e300, 0,                              \
        "the central body's (body 1's) mass over the other bodies' total below which a "   \
        "system is refused: the method's error grows with that share", NULL, NULL)         \
    ARG(corrector, SL_PARAM_INTEGER, 0.0, 0.0, 17.0, 0,                                    \
        "order of the symplectic corrector: 0 (none), 3, 5, 7, 11 or 17; applied only "    \
        "where states are written, it cuts the energy error by orders of magnitude (11 "   \
        "is a good choice)", NULL, NULL)                                                   \
    ARG(coordinates, SL_PARAM_WORD, 0.0, 0.0, 0.0, 0,                                      \
        "democratic_heliocentric (Duncan, Levison & Lee; REBOUND's "                       \
        "democraticheliocentric) or jacobi (Wisdom & Holman; more accurate for "           \
        "hierarchical systems)", sl_mvs_coordinate_words, NULL)                            \
    ARG(kepler_tol, SL_PARAM_NUMBER, 1e-6, 0.0, 1e-6, 0,                                   \
        "the Kepler drift's early stop: an iteration whose step is below kepler_tol of "   \
        "the universal anomaly ends it, the next being below an ulp (1.2x faster on the "  \
        "GPU); 0 converges every drift to the ulp", NULL, NULL)
SL_PARAMS_PROPAGATOR(sl_mvs_params, SL_PARAMS_mvs)

#define SL_PROP_mvs_NSTAGES 1
#define SL_PROP_mvs_SCRATCH 10 /* and, for the Jacobi kick, body 0's pull (3n) */
#define SL_PROP_mvs_PERSIST 7  /* Q | V | the pending drift (one double of the last n) */
#define SL_PROP_mvs_JERK 0
#define SL_PROP_mvs_ADAPTIVE 0
#define SL_PROP_mvs_PERTURB 1 /* the kick takes the force's acc_perturb */
#define SL_PROP_mvs_SYNC 1    /* (Q, V) kept between steps, x, v written when wanted */

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

/* ---- Jacobi coordinates (coordinates = 1) ----
 * Q_0, V_0 the centre of mass; Q_i = x_i - R_{i-1}, V_i likewise, R_{i-1}
 * the centre of mass of bodies 0..i-1 (eta_{i-1} their mass). The Kepler
 * part moves each Q_i about gm = eta_i (Wisdom & Holman 1991); the kick
 * takes the rest: the whole force without the 0-1 pair, in Jacobi
 * accelerations, less the Kepler part's pull eta_i Q_i / |Q_i|^3 (i >= 2),
 * as REBOUND's WHFast does in these coordinates. No jump. */
SL_HD SL_INLINE void sl_mvs_to_jacobi(int n, int S, const double *x, const double *v,
                                      const double *m, double *Q, double *V)
{
    double mt = m[0], c[3], u[3];
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        c[d] = m[0] * x[S * d];
        u[d] = m[0] * v[S * d];
    }
    SL_UNROLL
    for (int i = 1; i < n; i++) {
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            Q[S * (3 * i + d)] = x[S * (3 * i + d)] - c[d] / mt;
            V[S * (3 * i + d)] = v[S * (3 * i + d)] - u[d] / mt;
            c[d] += m[S * i] * x[S * (3 * i + d)];
            u[d] += m[S * i] * v[S * (3 * i + d)];
        }
        mt += m[S * i];
    }
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        Q[S * d] = c[d] / mt;
        V[S * d] = u[d] / mt;
    }
}

/* Jacobi (Q, V) -> inertial (x, v); x, v may be Q, V (in place): from the
 * outermost body in, R_{i-1} = R_i - (m_i / eta_i) Q_i and x_i = R_{i-1} + Q_i. */
SL_HD SL_INLINE void sl_mvs_from_jacobi(int n, int S, const double *m, const double *Q,
                                        const double *V, double *x, double *v)
{
    double eta = 0.0, c[3], u[3];
    SL_UNROLL
    for (int i = 0; i < n; i++)
        eta += m[S * i];
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        c[d] = Q[S * d];
        u[d] = V[S * d];
    }
    SL_UNROLL
    for (int i = n - 1; i >= 1; i--) {
        const double f = m[S * i] / eta;
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            const double q = Q[S * (3 * i + d)], w = V[S * (3 * i + d)];
            c[d] -= f * q;
            u[d] -= f * w;
            x[S * (3 * i + d)] = c[d] + q;
            v[S * (3 * i + d)] = u[d] + w;
        }
        eta -= m[S * i];
    }
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        x[S * d] = c[d];
        v[S * d] = u[d];
    }
}

/* The Kepler part: each body along its orbit for h (about body 0, gm =
 * m_0; in Jacobi coordinates about the bodies inside it, gm = eta_i), the
 * centre of mass along its line. A drift that fails (no convergence,
 * non-finite input) leaves NaN, which the loop's non-finite check reports.
 * how: SL_MVS_INLINE, the drift inlined; SL_MVS_CALL, as a call (the rare
 * paths: opening, closing, correctors). The CPU's lane loop has its own,
 * sl_mvs_K_lanes. */
#define SL_MVS_INLINE 0
#define SL_MVS_CALL 1
/* The drifts' early stop (sl_kepler_drift_tol): the key kepler_tol,
 * none where the run must be smooth to the last bits (SL_PP_SMOOTH:
 * MEGNO's shadows, which the early stop made twice as noisy). */
#define SL_MVS_TOL(pp) ((pp)[SL_PP_SMOOTH] != 0.0 ? 0.0 : sl_mvs_params_of(pp)->kepler_tol)

SL_HD SL_INLINE void sl_mvs_K(int jac, double tol, int how, int n, int S, double h,
                              const double *m, double *Q, double *V)
{
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        Q[S * d] += h * V[S * d];
    double eta = m[0];
    SL_UNROLL
    for (int i = 1; i < n; i++) {
        eta += m[S * i];
        const double gm = jac ? eta : m[0];
        double q[3], u[3];
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            q[d] = Q[S * (3 * i + d)];
            u[d] = V[S * (3 * i + d)];
        }
        if (how == SL_MVS_CALL)
            sl_kepler_drift_call(gm, h, tol, q, u);
        else
            sl_kepler_drift_tol(gm, h, tol, q, u);
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            Q[S * (3 * i + d)] = q[d];
            V[S * (3 * i + d)] = u[d];
        }
    }
}

/* The force's point in inertial coordinates, and in c (3n, strided) body
 * 0's Newtonian pull per unit mass of body 0 on bodies 2..n-1, which
 * acc_perturb leaves out and the Jacobi kick needs. */
SL_HD SL_INLINE void sl_mvs_point_jacobi(int n, int S, const double *m, const double *Q,
                                         const double *V, double *xe, double *ve, double *c)
{
    sl_mvs_from_jacobi(n, S, m, Q, V, xe, ve);
    SL_UNROLL
    for (int i = 2; i < n; i++) {
        double dx = xe[S * (3 * i)] - xe[0], dy = xe[S * (3 * i + 1)] - xe[S],
               dz = xe[S * (3 * i + 2)] - xe[2 * S];
        double r2 = dx * dx + dy * dy + dz * dz, r3i = 1.0 / (r2 * sqrt(r2));
        c[S * (3 * i)] = -dx * r3i;
        c[S * (3 * i + 1)] = -dy * r3i;
        c[S * (3 * i + 2)] = -dz * r3i;
    }
}

/* V_i += h a'_i: the inertial accelerations without the 0-1 pair (a from
 * acc_perturb plus body 0's pulls c), as Jacobi accelerations
 * a'_i = a_i - sum_{k<i} m_k a_k / eta_{i-1}, less eta_i Q_i / |Q_i|^3. */
SL_HD SL_INLINE void sl_mvs_kick_jacobi(int n, int S, double h, const double *m, const double *Q,
                                        double *V, const double *a, const double *c)
{
    double ma[3] = {0.0, 0.0, 0.0}, eta = m[0];
    SL_UNROLL
    for (int i = 2; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            ma[d] -= m[S * i] * c[S * (3 * i + d)]; /* body 0's acceleration */
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        ma[d] *= m[0];
    SL_UNROLL
    for (int i = 1; i < n; i++) {
        double ai[3];
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            ai[d] = a[S * (3 * i + d)] + (i >= 2 ? m[0] * c[S * (3 * i + d)] : 0.0);
        const double eta_prev = eta;
        eta += m[S * i];
        double kp = 0.0;
        if (i >= 2) {
            double qx = Q[S * (3 * i)], qy = Q[S * (3 * i + 1)], qz = Q[S * (3 * i + 2)];
            double r2 = qx * qx + qy * qy + qz * qz;
            kp = eta / (r2 * sqrt(r2));
        }
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            V[S * (3 * i + d)] += h * (ai[d] - ma[d] / eta_prev + kp * Q[S * (3 * i + d)]);
            ma[d] += m[S * i] * ai[d];
        }
    }
}

/* ---- the two coordinate systems behind one set of operators ---- */

/* The jump, democratic heliocentric only. */
SL_HD SL_INLINE void sl_mvs_J(int jac, int n, int S, double h, const double *m, double *Q,
                              const double *V)
{
    if (!jac)
        sl_mvs_jump(n, S, h, m, Q, V);
}

SL_HD SL_INLINE void sl_mvs_kick(int n, int S, double h, double *V, const double *a)
{
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            V[S * (3 * i + d)] += h * a[S * (3 * i + d)];
}

/* The jump by h, then where the force is evaluated (in Jacobi
 * coordinates body 0's pulls kept in ps's scratch for the kick too). In
 * democratic heliocentric coordinates, bodies 1..n-1 in body 0's frame:
 * positions Q_i, velocities v_i - v_0 = V_i + w, w the jump's speed from
 * the same V (the jump leaves V alone), computed once for both. */
SL_HD SL_INLINE void sl_mvs_J_out(int jac, int n, int S, double h, const double *m, double *Q,
                                  const double *V, double *xe, double *ve, double *ps)
{
    if (jac) {
        sl_mvs_point_jacobi(n, S, m, Q, V, xe, ve, ps + S * 7 * n);
        return;
    }
    double w[3];
    sl_mvs_jump_speed(n, S, m, V, w);
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        xe[S * d] = ve[S * d] = 0.0;
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            Q[S * (3 * i + d)] += h * w[d];
            xe[S * (3 * i + d)] = Q[S * (3 * i + d)];
            ve[S * (3 * i + d)] = V[S * (3 * i + d)] + w[d];
        }
}

SL_HD SL_INLINE void sl_mvs_B(int jac, int n, int S, double h, const double *m, const double *Q,
                              double *V, const double *a, const double *ps)
{
    if (jac)
        sl_mvs_kick_jacobi(n, S, h, m, Q, V, a, ps + S * 7 * n);
    else
        sl_mvs_kick(n, S, h, V, a);
}

/* A step: the pending drift and this step's opening half in one, then
 * B(h) around the force, leaving the closing half pending. h = 0 (a lane
 * that does not step) drifts, jumps and kicks by zero: the state keeps its
 * bits. */
SL_HD SL_INLINE void sl_mvs_point(int how, int n, int S, double h, const double *m, double *ps,
                                  double *xe, double *ve, const double *pp)
{
    double *Q = ps, *V = ps + S * 3 * n, *pend = ps + S * 6 * n;
    const int jac = sl_mvs_params_of(pp)->coordinates != 0.0;
    sl_mvs_K(jac, SL_MVS_TOL(pp), how, n, S, h > 0.0 ? *pend + 0.5 * h : 0.0, m, Q, V);
    sl_mvs_J_out(jac, n, S, 0.5 * h, m, Q, V, xe, ve, ps);
}

/* On CUDA from 8 bodies on, the step's drifts are calls too: one thread
 * holds the whole system, and with the drift inlined once per body the
 * kernel spills; called, the same arithmetic ran 1.14x faster at N = 8,
 * 1.30x at 9 and 1.79x at 16, and 1.2x slower at 3 and 5 (H100, Sun +
 * planets, democratic heliocentric). */
#if defined(__CUDA_ARCH__)
#define SL_MVS_STEP_HOW(n) ((n) >= 8 ? SL_MVS_CALL : SL_MVS_INLINE)
#else
#define SL_MVS_STEP_HOW(n) SL_MVS_INLINE
#endif

SL_HD SL_INLINE void sl_prop_mvs_point(int st, int n, int S, double h, const double *x,
                                       const double *v, const double *m, double *ps,
                                       double *xe, double *ve, const double *pp)
{
    (void)st, (void)x, (void)v;
    sl_mvs_point(SL_MVS_STEP_HOW(n), n, S, h, m, ps, xe, ve, pp);
}

/* B(h) and the jump after it: apply's work, and a corrector stage's. */
SL_HD SL_INLINE void sl_mvs_BJ(int jac, int n, int S, double h, const double *m, double *Q,
                               double *V, const double *a, const double *ps)
{
    sl_mvs_B(jac, n, S, h, m, Q, V, a, ps);
    sl_mvs_J(jac, n, S, 0.5 * h, m, Q, V);
}

SL_HD SL_INLINE void sl_prop_mvs_apply(int st, int n, int S, double h, double *x, double *v,
                                       const double *m, double *ps, const double *a,
                                       const double *j, const double *pp)
{
    (void)st, (void)x, (void)v, (void)j;
    double *Q = ps, *V = ps + S * 3 * n, *pend = ps + S * 6 * n;
    sl_mvs_BJ(sl_mvs_params_of(pp)->coordinates != 0.0, n, S, h, m, Q, V, a, ps);
    *pend = h > 0.0 ? 0.5 * h : *pend;
}

SL_HD SL_INLINE void sl_prop_mvs_open(int n, int S, const double *x, const double *v,
                                      const double *m, double *ps, const double *pp)
{
    if (sl_mvs_params_of(pp)->coordinates != 0.0)
        sl_mvs_to_jacobi(n, S, x, v, m, ps, ps + S * 3 * n);
    else
        sl_mvs_to_dh(n, S, x, v, m, ps, ps + S * 3 * n);
    /* the pending drift and the rest of its block: the loop's non-finite
     * check reads all PERSIST doubles, and garbage there (stack or device
     * memory) would have it close the system every step */
    for (int k = 0; k < n; k++)
        ps[S * (6 * n + k)] = 0.0;
}

/* x, v <- (Q, V) with the pending drift done: the state at the step's end
 * in the integrator's coordinates, which the corrector stages may work on. */
SL_HD SL_INLINE void sl_prop_mvs_close_start(int n, int S, double *x, double *v,
                                             const double *m, const double *ps,
                                             const double *pp)
{
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        x[S * k] = ps[S * k];
        v[S * k] = ps[S * (3 * n + k)];
    }
    sl_mvs_K(sl_mvs_params_of(pp)->coordinates != 0.0, SL_MVS_TOL(pp), SL_MVS_CALL, n, S, ps[S * 6 * n], m, x, v);
}

/* (Q, V) in x, v -> inertial x, v: x_0 from the centre of mass, v_0 from
 * the momentum. */
SL_HD SL_INLINE void sl_prop_mvs_close_end(int n, int S, double *x, double *v,
                                           const double *m, const double *ps, const double *pp)
{
    (void)ps;
    if (sl_mvs_params_of(pp)->coordinates != 0.0) {
        sl_mvs_from_jacobi(n, S, m, x, v, x, v);
        return;
    }
    double mt = 0.0, c[3] = {0.0, 0.0, 0.0}, w[3], x0[3], v0[3];
    SL_UNROLL
    for (int i = 0; i < n; i++)
        mt += m[S * i];
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            c[d] += m[S * i] * x[S * (3 * i + d)];
    sl_mvs_jump_speed(n, S, m, v, w);
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        x0[d] = x[S * d] - c[d] / mt;
        v0[d] = v[S * d] - w[d];
    }
    SL_UNROLL
    for (int i = 1; i < n; i++)
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            x[S * (3 * i + d)] += x0[d];
            v[S * (3 * i + d)] += v[S * d];
        }
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        x[S * d] = x0[d];
        v[S * d] = v0[d];
    }
}

/* ---- symplectic correctors ---- */

/* The Z operators of the corrector of order p: 2 m of them. */
SL_HD SL_INLINE int sl_mvs_corrector_m(int order)
{
    switch (order) {
    case 3: return 1;
    case 5: return 2;
    case 7: return 3;
    case 11: return 5;
    case 17: return 8;
    default: return 0;
    }
}

/* b_k of the corrector of order p, k = 1..m (Wisdom, Holman & Touma 1996;
 * the values REBOUND's WHFast uses). */
SL_HD SL_INLINE double sl_mvs_corrector_b(int order, int k)
{
    switch (order * 100 + k) {
    case 301: return -0.024900596027799867499350357910273437184309981229127;
    case 501: return -0.0083001986759332891664501193034244790614366604097090;
    case 502: return 0.041500993379666445832250596517122395307183302048545;
    case 701: return 0.0024926811426922105779030593952776964450539008582219;
    case 702: return -0.018270923246702131478062356884535264841652263842597;
    case 703: return 0.053964399093127498721765893493510877532452806339655;
    case 1101: return 0.00020361579647854651301632818774633716473696537436847;
    case 1102: return -0.0023487215292295354188307328851055489876255097419754;
    case 1103: return 0.012309078592019946317544564763237909911330686448336;
    case 1104: return -0.038121613681288650508647613260247372125243616270670;
    case 1105: return 0.072593394748842738674253180742744961827622366521517;
    case 1701: return -0.0000043347415473373580190650223498124944896789841432241;
    case 1702: return 0.000076436355227935738363241846979413475106795392377415;
    case 1703: return -0.00063599983075817658983166881625078545864140848560259;
    case 1704: return 0.0033132577069380655655490196833451994080066801611459;
    case 1705: return -0.012071760822342291062449751726959664253913904872527;
    case 1706: return 0.032422198864713580293681523029577130832258806467604;
    case 1707: return -0.065192863576377893658290760803725762027864651086787;
    case 1708: return 0.093056103771425958591541059067553547100903397724386;
    default: return 0.0;
    }
}

/* Z operator z (0..2m-1) of C (inv = 1) or of C^-1 (inv = -1): its a and
 * b. C is Z(-a_m, -b_m') .. Z(-a_1, -b_1') Z(a_1, b_1') .. Z(a_m, b_m'),
 * b_k' = b_{m+1-k} (order 3: the signs of a swapped); C^-1 is the same
 * with b negated, since Z(a, b)^-1 = Z(-a, b) and the product is
 * symmetric. */
SL_HD SL_INLINE void sl_mvs_corrector_z(int order, int z, double inv, double dt, double *a,
                                        double *b)
{
    const int mz = sl_mvs_corrector_m(order);
    int k = z < mz ? -(mz - z) : z - mz + 1;
    double bz = z < mz ? -sl_mvs_corrector_b(order, z + 1) : sl_mvs_corrector_b(order, 2 * mz - z);
    if (order == 3)
        k = -k;
    *a = k * 0.41833001326703777398908601289259374469640768464934 * dt; /* k sqrt(7/40) dt */
    *b = inv * bz * dt;
}

SL_HD SL_INLINE int sl_prop_mvs_sync_stages(int mode, const double *pp)
{
    (void)mode;
    return 4 * sl_mvs_corrector_m((int)sl_mvs_params_of(pp)->corrector);
}

/* Stage 2z of Z(a, b): K(a), then B(-b) around the force; stage 2z+1:
 * K(-2a), B(b), K(a). Opening (C^-1) works on ps, closing (C) on the
 * copy close_start left in x, v. */
SL_HD SL_INLINE void sl_mvs_sync_region(int mode, int n, int S, double *x, double *v,
                                        double *ps, double **Q, double **V)
{
    *Q = mode == SL_SYNC_OPEN ? ps : x;
    *V = mode == SL_SYNC_OPEN ? ps + S * 3 * n : v;
}

SL_HD SL_INLINE void sl_prop_mvs_sync_point(int mode, int st, int n, int S, double *x,
                                            double *v, const double *m, double *ps,
                                            double *xe, double *ve, const double *pp)
{
    double *Q, *V, a, b;
    sl_mvs_sync_region(mode, n, S, x, v, ps, &Q, &V);
    sl_mvs_corrector_z((int)sl_mvs_params_of(pp)->corrector, st / 2, mode == SL_SYNC_OPEN ? 1.0 : -1.0, sl_mvs_params_of(pp)->dt, &a, &b);
    const double sgn = st % 2 ? 1.0 : -1.0;
    const int jac = sl_mvs_params_of(pp)->coordinates != 0.0;
    sl_mvs_K(jac, SL_MVS_TOL(pp), SL_MVS_CALL, n, S, st % 2 ? -2.0 * a : a, m, Q, V);
    sl_mvs_J_out(jac, n, S, 0.5 * sgn * b, m, Q, V, xe, ve, ps);
}

SL_HD SL_INLINE void sl_prop_mvs_sync_apply(int mode, int st, int n, int S, double *x,
                                            double *v, const double *m, double *ps,
                                            const double *acc, const double *pp)
{
    double *Q, *V, a, b;
    sl_mvs_sync_region(mode, n, S, x, v, ps, &Q, &V);
    sl_mvs_corrector_z((int)sl_mvs_params_of(pp)->corrector, st / 2, mode == SL_SYNC_OPEN ? 1.0 : -1.0, sl_mvs_params_of(pp)->dt, &a, &b);
    const double sgn = st % 2 ? 1.0 : -1.0;
    const int jac = sl_mvs_params_of(pp)->coordinates != 0.0;
    sl_mvs_BJ(jac, n, S, sgn * b, m, Q, V, acc, ps);
    if (st % 2)
        sl_mvs_K(jac, SL_MVS_TOL(pp), SL_MVS_CALL, n, S, a, m, Q, V);
}

#if !defined(__CUDACC__)
/* ---- The CPU's lane loop: the chunk's lanes at once ----
 * The stages that drift, for the group's W (SL_LANES) lanes at once, so
 * that the drifts are sl_kepler_drift_fast_lanes, whose iterations stop
 * when the chunk's copies of a planet have converged, and the corrector's
 * drifts at every open and close run vectorised too (one by one, called,
 * they took a seventh of a run with corrector 11 on the CPU). Each lane
 * gets the bits of the one-lane stages. */
#include "starling/ensemble.h"

/* sl_mvs_K for every lane (h[l] each lane's time): the fast drift for all
 * lanes, then the general one on the (lane, body) it refused and left
 * untouched, so each lane has the bits of sl_mvs_K. */
__attribute__((always_inline)) static inline void sl_mvs_K_lanes(int jac, double tol, int n,
                                                                 int W, const double *h,
                                                                 const double *m, double *Q,
                                                                 double *V)
{
    enum { L = SL_LANES };
    _Alignas(64) double gm[L], eta[L], ok[L], k[SL_KDRIFT_LANES_SCRATCH * L];
#pragma omp simd
    for (int l = 0; l < W; l++) {
        eta[l] = m[l];
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            Q[W * d + l] += h[l] * V[W * d + l];
    }
    for (int i = 1; i < n; i++) {
        double *q = Q + W * 3 * i, *u = V + W * 3 * i;
#pragma omp simd
        for (int l = 0; l < W; l++) {
            eta[l] += m[W * i + l];
            gm[l] = jac ? eta[l] : m[l];
            ok[l] = 1.0;
        }
        sl_kepler_drift_fast_lanes(W, gm, h, tol, q, u, ok, k);
        /* refusals are rare: one vector test, not a branch a lane */
        double refused = 0.0;
#pragma omp simd reduction(+ : refused)
        for (int l = 0; l < W; l++)
            refused += ok[l] == 0.0 ? 1.0 : 0.0;
        for (int l = 0; refused > 0.0 && l < W; l++)
            if (ok[l] == 0.0) {
                double qq[3], uu[3];
                for (int d = 0; d < 3; d++)
                    qq[d] = q[W * d + l], uu[d] = u[W * d + l];
                sl_kepler_drift_call(gm[l], h[l], tol, qq, uu);
                for (int d = 0; d < 3; d++)
                    q[W * d + l] = qq[d], u[W * d + l] = uu[d];
            }
    }
}

/* The stages' work after the drifts, for the chunk, with the coordinates
 * (the field coordinates) a literal: each caller branches once, outside
 * the loop over lanes. A branch on it inside an `omp simd` loop is if-converted by
 * gcc, and every lane would run both coordinates' kick, jump and force
 * point, selecting one: the Sun and eight planets in democratic
 * heliocentric coordinates take 1.28x longer on the CPU that way, for the
 * Jacobi work thrown away. jac is a literal
 * where these are inlined; the branch then folds. J by h[l] / 2, then the
 * force's point (xe, ve). */
__attribute__((always_inline)) static inline void sl_mvs_JO_lanes(int jac, int n, int W,
                                                                  const double *h,
                                                                  const double *m, double *Q,
                                                                  double *V, double *xe,
                                                                  double *ve, double *ps)
{
#pragma omp simd
    for (int l = 0; l < W; l++)
        sl_mvs_J_out(jac, n, W, 0.5 * h[l], m + l, Q + l, V + l, xe + l, ve + l, ps + l);
}

/* B by h[l], then J by h[l] / 2. */
__attribute__((always_inline)) static inline void sl_mvs_BJ_lanes(int jac, int n, int W,
                                                                  const double *h,
                                                                  const double *m, double *Q,
                                                                  double *V, const double *a,
                                                                  double *ps)
{
#pragma omp simd
    for (int l = 0; l < W; l++)
        sl_mvs_BJ(jac, n, W, h[l], m + l, Q + l, V + l, a + l, ps + l);
}

/* point for the chunk (launch.h, POINT_LANES): the drifts' own fallback
 * runs inside. */
#define SL_PROP_mvs_POINT_LANES 1
__attribute__((always_inline)) static inline void
sl_prop_mvs_point_lanes(int st, int n, int W, const double *h, const double *x, const double *v,
                        const double *m, double *ps, double *xe, double *ve, const double *pp)
{
    (void)st, (void)x, (void)v;
    enum { L = SL_LANES }; /* the lane loop's W */
    double *Q = ps, *V = ps + W * 3 * n, *pend = ps + W * 6 * n;
    const int jac = sl_mvs_params_of(pp)->coordinates != 0.0;
    _Alignas(64) double hd[L];
#pragma omp simd
    for (int l = 0; l < W; l++) {
        hd[l] = h[l] > 0.0 ? pend[l] + 0.5 * h[l] : 0.0;
    }
    sl_mvs_K_lanes(jac, SL_MVS_TOL(pp), n, W, hd, m, Q, V);
    if (jac)
        sl_mvs_JO_lanes(1, n, W, h, m, Q, V, xe, ve, ps);
    else
        sl_mvs_JO_lanes(0, n, W, h, m, Q, V, xe, ve, ps);
}

/* apply for the chunk (launch.h, APPLY_LANES): the force at every lane's
 * point is in a; the kick and jump run with the coordinates a literal. */
#define SL_PROP_mvs_APPLY_LANES 1
__attribute__((always_inline)) static inline void
sl_prop_mvs_apply_lanes(int st, int n, int W, const double *h, double *x, double *v,
                        const double *m, double *ps, const double *a, const double *j,
                        const double *pp)
{
    (void)st, (void)x, (void)v, (void)j;
    double *Q = ps, *V = ps + W * 3 * n, *pend = ps + W * 6 * n;
    if (sl_mvs_params_of(pp)->coordinates != 0.0)
        sl_mvs_BJ_lanes(1, n, W, h, m, Q, V, a, ps);
    else
        sl_mvs_BJ_lanes(0, n, W, h, m, Q, V, a, ps);
#pragma omp simd
    for (int l = 0; l < W; l++)
        pend[l] = h[l] > 0.0 ? 0.5 * h[l] : pend[l];
}

/* close_start, sync_point and sync_apply (launch.h, SYNC_LANES). */
#define SL_PROP_mvs_SYNC_LANES 1
__attribute__((always_inline)) static inline void
sl_prop_mvs_close_start_lanes(int n, int W, double *x, double *v, const double *m,
                              const double *ps, const double *pp)
{
    enum { L = SL_LANES };
    _Alignas(64) double hd[L];
#pragma omp simd
    for (int l = 0; l < W; l++) {
        hd[l] = ps[W * 6 * n + l];
        SL_UNROLL
        for (int k = 0; k < 3 * n; k++) {
            x[W * k + l] = ps[W * k + l];
            v[W * k + l] = ps[W * (3 * n + k) + l];
        }
    }
    sl_mvs_K_lanes(sl_mvs_params_of(pp)->coordinates != 0.0, SL_MVS_TOL(pp), n, W, hd, m, x, v);
}

__attribute__((always_inline)) static inline void
sl_prop_mvs_sync_point_lanes(int mode, int st, int n, int W, double *x, double *v,
                             const double *m, double *ps, double *xe, double *ve,
                             const double *pp)
{
    enum { L = SL_LANES };
    _Alignas(64) double hd[L];
    double *Q, *V, a, b;
    sl_mvs_sync_region(mode, n, W, x, v, ps, &Q, &V);
    sl_mvs_corrector_z((int)sl_mvs_params_of(pp)->corrector, st / 2, mode == SL_SYNC_OPEN ? 1.0 : -1.0, sl_mvs_params_of(pp)->dt, &a, &b);
    const double sgn = st % 2 ? 1.0 : -1.0, ka = st % 2 ? -2.0 * a : a;
    const int jac = sl_mvs_params_of(pp)->coordinates != 0.0;
    for (int l = 0; l < W; l++)
        hd[l] = ka;
    sl_mvs_K_lanes(jac, SL_MVS_TOL(pp), n, W, hd, m, Q, V);
    /* J by 0.5 (sgn b): the bits of 0.5 sgn b, both products exact */
    for (int l = 0; l < W; l++)
        hd[l] = sgn * b;
    if (jac)
        sl_mvs_JO_lanes(1, n, W, hd, m, Q, V, xe, ve, ps);
    else
        sl_mvs_JO_lanes(0, n, W, hd, m, Q, V, xe, ve, ps);
}

__attribute__((always_inline)) static inline void
sl_prop_mvs_sync_apply_lanes(int mode, int st, int n, int W, double *x, double *v,
                             const double *m, double *ps, const double *acc, const double *pp)
{
    enum { L = SL_LANES };
    _Alignas(64) double hd[L];
    double *Q, *V, a, b;
    sl_mvs_sync_region(mode, n, W, x, v, ps, &Q, &V);
    sl_mvs_corrector_z((int)sl_mvs_params_of(pp)->corrector, st / 2, mode == SL_SYNC_OPEN ? 1.0 : -1.0, sl_mvs_params_of(pp)->dt, &a, &b);
    const double sgn = st % 2 ? 1.0 : -1.0;
    const int jac = sl_mvs_params_of(pp)->coordinates != 0.0;
    for (int l = 0; l < W; l++)
        hd[l] = sgn * b;
    if (jac)
        sl_mvs_BJ_lanes(1, n, W, hd, m, Q, V, acc, ps);
    else
        sl_mvs_BJ_lanes(0, n, W, hd, m, Q, V, acc, ps);
    if (st % 2) {
        for (int l = 0; l < W; l++)
            hd[l] = a;
        sl_mvs_K_lanes(jac, SL_MVS_TOL(pp), n, W, hd, m, Q, V);
    }
}
#endif


/* CUDA from 8 bodies: a group of threads per system. */
#include "mvs_group.h"

#endif
