/* The Kepler drift: a body moved along its two-body orbit about a fixed
 * centre of gravitational parameter gm, for a time dt of either sign,
 * written once as SL_HD C for the CPU and for CUDA.
 *
 * Universal variables: one code for ellipses, parabolas and hyperbolas,
 * radial orbits included, with no branch on the eccentricity. With
 * r0 = |x|, eta = x.v and beta = 2 gm / r0 - v^2 (gm / a), the universal
 * anomaly X solves Kepler's equation
 *     dt = r0 G1(X) + eta G2(X) + gm G3(X),   G_k(X) = X^k c_k(beta X^2),
 * c_k the Stumpff functions, and the state follows from the Lagrange
 * coefficients f, g, f', g' (Danby 1988, ch. 6.9; Wisdom & Hernandez 2015).
 *
 * Choices that make it robust for every orbit and step:
 *  - c_k by their series for |z| < 1 (no cancellation near z = 0, i.e.
 *    tiny steps or near-parabolic orbits), closed forms beyond, with
 *    1 - cos s written as 2 sin^2(s/2) so that c2 keeps its relative
 *    precision near s = 2 pi k;
 *  - on an ellipse, dt reduced by whole periods first, so a drift of
 *    many orbits solves for at most half an orbit (the phase then carries
 *    the rounding of the period, ~1e-16 per orbit, as any Kepler solver);
 *  - Laguerre-Conway iteration (order n = 5), which converges from poor
 *    starts for every eccentricity, at most SL_KDRIFT_MAXIT times: a GPU
 *    thread must never loop unbounded;
 *  - the update applied as x + ((f - 1) x + g v), v + (f' x + (g' - 1) v),
 *    with f - 1 and g' - 1 computed as such: a tiny step moves x by
 *    ~|v| dt, and its error is then relative to that move, not to |x|.
 *
 * On the GPU the roots and divisions of every drift are hd.h's SL_SQRT,
 * SL_RCP and SL_DIV: CUDA's own bits, without a branch to the special
 * cases each (which a drift's values, normal and far from the ends of the
 * exponent range, never take; a zero distance or discriminant gives NaN,
 * and the drift fails as below).
 *
 * sl_kepler_drift returns the iterations it took, or -1 when it did not
 * converge or met a non-finite value; then x and v are set to NaN, so the
 * run's non-finite check stops the system and names it, rather than the
 * body silently leaving its orbit.
 *
 * Accuracy (tests/test_kepler_drift.c, against long-double references
 * from orbital elements and Barker's equation): see that file. */
#ifndef STARLING_KEPLER_DRIFT_H
#define STARLING_KEPLER_DRIFT_H

#include <float.h>
#include <math.h>
#include "starling/hd.h"
#include "starling/kepler.h"

#define SL_KDRIFT_MAXIT 40

/* c0..c3(z) for |z| < 1: the series to the term z^9 (the next is below
 * 1e-20 of the first), by Horner's rule in the coefficients 1/(2k+2)!
 * and 1/(2k+3)!: one product and one difference a term (the form with
 * the ratios of successive terms took two products). Branch-free:
 * sl_kepler_drift_fast vectorises it. It runs 3-5 times a drift. */
SL_HD SL_INLINE void sl_stumpff_series(double z, double c[4])
{
    c[2] = 1.0 / 2.0 - z * (1.0 / 24.0 - z * (1.0 / 720.0 - z * (1.0 / 40320.0 -
           z * (1.0 / 3628800.0 - z * (1.0 / 479001600.0 - z * (1.0 / 87178291200.0 -
           z * (1.0 / 20922789888000.0 - z * (1.0 / 6402373705728000.0 -
           z * (1.0 / 2432902008176640000.0)))))))));
    c[3] = 1.0 / 6.0 - z * (1.0 / 120.0 - z * (1.0 / 5040.0 - z * (1.0 / 362880.0 -
           z * (1.0 / 39916800.0 - z * (1.0 / 6227020800.0 - z * (1.0 / 1307674368000.0 -
           z * (1.0 / 355687428096000.0 - z * (1.0 / 121645100408832000.0 -
           z * (1.0 / 51090942171709440000.0)))))))));
    c[0] = 1.0 - z * c[2];
    c[1] = 1.0 - z * c[3];
}

/* c0..c3(z): the series for |z| < 1; beyond, closed forms in s = sqrt(|z|). */
SL_HD SL_INLINE void sl_stumpff(double z, double c[4])
{
    if (fabs(z) < 1.0) {
        sl_stumpff_series(z, c);
    } else if (z > 0.0) {
        double s = sqrt(z), sn = sin(s), h = sin(0.5 * s);
        c[0] = cos(s);
        c[1] = sn / s;
        c[2] = 2.0 * h * h / z;
        c[3] = (s - sn) / (z * s);
    } else {
        double s = sqrt(-z), sh = sinh(s), h = sinh(0.5 * s);
        c[0] = cosh(s);
        c[1] = sh / s;
        c[2] = -2.0 * h * h / z;
        c[3] = (sh - s) / (-z * s);
    }
}

/* Whether a step is short: |dt| below a tenth of the dynamical time
 * r0 sqrt(r0 / gm), compared squared (no root or division). */
SL_HD SL_INLINE int sl_kdrift_short(double gm, double dt, double r0)
{
    return dt * dt * gm < 0.01 * (r0 * r0 * r0);
}

/* Whether a step is short against the motion's own scale at r0: dt^2
 * (gm / r0^3 + v^2 / r0^2) below a limit squared, the square of the
 * expansion parameter of X(t) about t = 0 (the dynamical rate and the
 * angular rate |v| / r0, whichever is larger, sets how fast the
 * derivatives of X grow). No root or division. The limits are measured,
 * as iterations a drift (tests/test_kepler_drift.c): on an ellipse the series beats the other starts well past
 * its radius of convergence (random orbits, e < 0.9 and 0.9 .. 1, steps of
 * 0.02 .. 0.3 orbit: fewer iterations a drift at every step with 2.0 than
 * with 0.9, and Mercury at mvs's 8 days, which 0.9 left to the weaker start
 * on the part of its orbit near pericentre, in 2 instead of up to 3); on a
 * hyperbola the start from its elements wins beyond 0.9, and past 2 the
 * series there took dozens of iterations. */
#define SL_KDRIFT_NEAR 0.9
#define SL_KDRIFT_NEAR_ELLIPSE 2.0
SL_HD SL_INLINE int sl_kdrift_near(double gm, double dt, double ir0, double beta)
{
    double v2 = 2.0 * gm * ir0 - beta;
    /* a select between doubles on one comparison: the lanes vectorise it */
    double lim = beta > 0.0 ? SL_KDRIFT_NEAR_ELLIPSE * SL_KDRIFT_NEAR_ELLIPSE
                            : SL_KDRIFT_NEAR * SL_KDRIFT_NEAR;
    return dt * dt * (ir0 * ir0) * (gm * ir0 + v2) < lim;
}

/* X(dt) by its Taylor series to dt^4 (dX/dt = 1 / r): with s = eta / r^2
 * and A = d(eta)/dt = v^2 - gm / r = gm / r - beta,
 *     X'' = -s / r,  X''' = (3 eta s - A) / r^3,
 *     X'''' = s (gm + 9 A r - 15 eta s r) / r^4
 * (using dA/dt = -gm eta / r^3). On a circular orbit every term past
 * dt / r vanishes and X is exact; otherwise the start is off by about
 * e (dt / T)^5, so that the Sun's planets at steps of 8 days converge in
 * one iteration from Venus outwards (the second-order series or the mean
 * anomaly took two: tests/test_kepler_drift.c counts them). */
SL_HD SL_INLINE double sl_kdrift_series_start(double gm, double dt, double r0, double ir0,
                                              double eta, double beta)
{
    double ir2 = ir0 * ir0, A = gm * ir0 - beta, s = eta * ir2;
    double X2 = -s * ir0, X3 = ir0 * ir2 * (3.0 * eta * s - A);
    double X4 = s * ir2 * ir2 * (gm + 9.0 * A * r0 - 15.0 * eta * s * r0);
    return dt * (ir0 + dt * (0.5 * X2 + dt * ((1.0 / 6.0) * X3 + dt * (1.0 / 24.0) * X4)));
}

/* A start for X. With the early stop (series 1): steps short against the
 * motion at r0 (sl_kdrift_near) start from the series above. Full
 * convergence (series 0, MEGNO's shadows) keeps the start it had before
 * the series: measured on test_megno's 32 regular systems, its <Y> moved
 * between shadows 1e-6 and 1e-8 apart by 0.0079 rms with the series
 * against 0.0056 without (cause not found), and the full convergence is
 * the smooth drift, bit for bit the one MEGNO was validated with. Steps
 * short against the dynamical time: the series to second order. Longer ones:
 * on an ellipse X = dM / sqrt(beta) (the mean anomaly's change, off by at
 * most e in E, which Laguerre-Conway absorbs); on a hyperbola the change
 * of the hyperbolic anomaly itself, from Kepler's equation in elements
 * (its functions grow like e^X, where a poor start costs dozens of
 * steps), X = dF / sqrt(-beta). What is left, near-parabolic orbits, behaves
 * like the cubic it tends to, for which Laguerre's iteration converges
 * from any start. */
SL_HD SL_INLINE double sl_kdrift_start(int series, double gm, double dt, double r0, double ir0,
                                       double eta, double beta)
{
    if (series && sl_kdrift_near(gm, dt, ir0, beta))
        return sl_kdrift_series_start(gm, dt, r0, ir0, eta, beta);
    if (sl_kdrift_short(gm, dt, r0))
        return dt * ir0 * (1.0 - 0.5 * eta * dt * (ir0 * ir0));
    if (beta > 0.0)
        return beta * dt / gm;
    if (beta < 0.0) {
        double a = gm / beta, sb = sqrt(-beta);
        double ec = 1.0 - r0 / a, es = eta / sqrt(-gm * a), e2 = ec * ec - es * es;
        if (e2 > 1.0 + 1e-6) {
            double e = sqrt(e2), F0 = asinh(es / e), n = -beta * sb / gm;
            double X = (sl_kepler_hyperbolic(es - F0 + n * dt, e) - F0) / sb;
            if (isfinite(X))
                return X;
        }
    }
    return dt * ir0;
}

/* Whether an ellipse's drift (beta > 0) may span half an orbit or more,
 * so that dt is to be reduced by whole periods: |dt| against 0.47 of the
 * period 2 pi gm / beta^1.5, squared, so that the common short step costs
 * no root or division. Below it floor(dt / period + 0.5) is 0 and the
 * reduction would leave dt as it is, to the bit. */
SL_HD SL_INLINE int sl_kdrift_long(double gm, double dt, double beta)
{
    return dt * dt * (beta * beta * beta) >=
           0.9 * (SL_KEPLER_TWO_PI * SL_KEPLER_TWO_PI / 4.0) * (gm * gm);
}

/* G1, G2 at X + d from G0 = c0, G1, G2 at X, by their Taylor series to
 * d^3 (G_k' = G_{k-1}, G0' = -beta G1): an early stop's last evaluation
 * carried to the accepted X, whose d the stop keeps below tol X, the
 * terms left ~d^4 / 24 below every G's rounding. */
SL_HD SL_INLINE void sl_kdrift_carry(double beta, double d, double G0, double *G1, double *G2)
{
    const double g1 = *G1, g2 = *G2;
    *G1 = g1 + d * (G0 - d * beta * (0.5 * g1 + d * (1.0 / 6.0) * G0));
    *G2 = g2 + d * (g1 + d * (0.5 * G0 - d * (1.0 / 6.0) * beta * g1));
}

/* The drift, with an early stop when tol > 0: an iteration whose step d is
 * below tol |X| (not a bisection) ends it, X + d accepted, since
 * Laguerre-Conway converges about cubically and the next step would be
 * below an ulp; the last evaluation's G1, G2 are carried to X + d
 * (sl_kdrift_carry), so the confirming iteration and the final series are
 * saved. With tol = 1e-6 (mvs's kepler_tol) a drift moves by a few ulp at
 * most (test_kepler_drift); but the decision to stop depends on the last
 * bits of the state, and MEGNO's shadow particles, which divide rounding by
 * their distance, came out twice as noisy (test_megno), so they run with
 * tol = 0: the full convergence, bit for bit the drift before the stop. */
SL_HD SL_INLINE int sl_kepler_drift_tol(double gm, double dt, double tol, double *x, double *v)
{
    double r0 = SL_SQRT(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), ir0 = SL_RCP(r0);
    double eta = x[0] * v[0] + x[1] * v[1] + x[2] * v[2];
    double beta = 2.0 * gm * ir0 - (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (beta > 0.0 && sl_kdrift_long(gm, dt, beta)) {
        double period = SL_KEPLER_TWO_PI * gm / (beta * sqrt(beta));
        dt -= period * floor(dt / period + 0.5);
    }
    double X = sl_kdrift_start(tol > 0.0, gm, dt, r0, ir0, eta, beta), c[4], G1 = 0, G2 = 0;
    double r = r0;
    /* f(X) = t(X) - dt increases with X (df/dX = r > 0), so its root lies
     * above 0 for dt > 0 and below for dt < 0; every evaluation narrows
     * the bracket, and a step that leaves it is replaced by bisection. */
    double lo = dt >= 0.0 ? 0.0 : -INFINITY, hi = dt >= 0.0 ? INFINITY : 0.0;
    int it = -1;
    for (int i = 0; i < SL_KDRIFT_MAXIT; i++) {
        sl_stumpff(beta * X * X, c);
        G1 = X * c[1], G2 = X * X * c[2];
        double G3 = X * X * X * c[3];
        double t1 = r0 * G1, t2 = eta * G2, t3 = gm * G3, f = t1 + t2 + t3 - dt;
        r = r0 * c[0] + eta * G1 + gm * G2; /* df/dX */
        if (f < 0.0)
            lo = X;
        else
            hi = X;
        double f2 = eta * c[0] + (gm - beta * r0) * G1;
        double disc = 16.0 * r * r - 20.0 * f * f2;
        double d = SL_DIV(-5.0 * f, r + (r >= 0.0 ? 1.0 : -1.0) * SL_SQRT(fabs(disc)));
        if (!isfinite(d))
            break;
        double Xn = X + d;
        if ((Xn < lo || Xn > hi) && isfinite(lo) && isfinite(hi))
            Xn = 0.5 * (lo + hi);
        /* Done when the step is 4 ulp of X; when f is down to the
         * rounding of its own terms, which may be far larger than dt (a
         * hyperbola drifted from far out through pericentre: X is then
         * known only to that); or when the step returns to an end of the
         * bracket, a point already tried: rounding in f then makes the
         * steps hop between two values for ever. */
        double noise = 4.4e-16 * (fabs(t1) + fabs(t2) + fabs(t3) + fabs(dt));
        int stuck = Xn == lo || Xn == hi, bisected = Xn != X + d;
        d = Xn - X;
        X = Xn;
        if (fabs(d) <= 4.4e-16 * fabs(X) || fabs(f) <= noise || stuck) {
            it = i + 1;
            break;
        }
        /* a step below tol X: the next, about its cube, below an ulp */
        if (!bisected && fabs(d) <= tol * fabs(X)) {
            sl_kdrift_carry(beta, d, c[0], &G1, &G2);
            it = -(i + 1) - 1;
            break;
        }
    }
    if (it < -1) {
        it = -it - 1; /* carried: G1, G2 are X's */
    } else if (it > 0) {
        sl_stumpff(beta * X * X, c);
        G1 = X * c[1], G2 = X * X * c[2];
    }
    /* r from the new position, not from df/dX = r0 c0 + eta G1 + gm G2:
     * coming in from far out, those terms are ~r0 and cancel to the
     * small r, which then carried their rounding into the velocity */
    double fm1 = -gm * G2 * ir0, g = r0 * G1 + eta * G2, xn[3];
    for (int k = 0; k < 3; k++)
        xn[k] = x[k] + (fm1 * x[k] + g * v[k]);
    r = SL_SQRT(xn[0] * xn[0] + xn[1] * xn[1] + xn[2] * xn[2]);
    double ir = SL_RCP(r), fd = -gm * G1 * ir * ir0, gdm1 = -gm * G2 * ir;
    if (it < 0 || !isfinite(fm1 + g + fd + gdm1) || !(r > 0.0)) {
        for (int k = 0; k < 3; k++)
            x[k] = v[k] = NAN;
        return -1;
    }
    for (int k = 0; k < 3; k++) {
        v[k] = v[k] + (fd * x[k] + gdm1 * v[k]);
        x[k] = xn[k];
    }
    return it;
}

/* The full convergence: every iteration to the ulp. */
SL_HD SL_INLINE int sl_kepler_drift(double gm, double dt, double *x, double *v)
{
    return sl_kepler_drift_tol(gm, dt, 0.0, x, v);
}

/* sl_kepler_drift for the common case only, as straight-line code that a
 * compiler vectorises across systems (the CPU's lane loop): an ellipse
 * (or any orbit over a short step) whose universal anomaly stays where
 * the Stumpff series holds (|z| < 1) and that converges within
 * SL_KDRIFT_FAST_IT iterations. Returns 1.0 with x, v drifted, bit for bit
 * as sl_kepler_drift would (the same operations in the same order: a
 * converged iteration is frozen, not repeated), or 0.0 with x, v untouched
 * (a double, so that callers combine it by products, not masks),
 * and the caller runs sl_kepler_drift. Every ulp matters here: a system
 * whose lane takes the fast path and one that falls back must drift alike
 * (the CUDA backend runs sl_kepler_drift only: its warps converge together).
 *
 * SL_KDRIFT_FAST_IT, 4, the counting iteration included: on the test's
 * random orbits 4 take as many drifts as 6 at steps up to 0.3 orbit
 * (98.8 % at 0.1, 53.6 % at 0.3: the rest leave the series' range), 3 take
 * 70 % at 0.1 (measured with the second-order start; the series start
 * only lowers the counts); the Sun and eight planets at 8 days, with
 * the early stop, converge in 1 (Venus outwards) to 3 (Mercury).
 * Each one costs every lane a Laguerre-Conway step, converged or not. */
#define SL_KDRIFT_FAST_IT 4

/* sl_kepler_drift_fast in three pieces, so that the CPU's lane loop can
 * run its iterations outside the loop over lanes and stop them when every
 * lane is done (sl_kepler_drift_fast_lanes); sl_kepler_drift_fast is the
 * three in a row. Scalars by pointer: inlined, they stay registers. */
SL_HD SL_INLINE void sl_kdrift_fast_begin(double gm, double dt, double tol, int S,
                                          const double *xs, const double *vs, double *r0p,
                                          double *ir0p, double *etap, double *betap, double *Xp,
                                          double *lop, double *hip, double *okfp, double *donep)
{
    /* strided (component k at xs[S k]): local copies would stop the
     * vectoriser, which cannot scatter into per-lane arrays */
    double r0 = SL_SQRT(xs[S * 0] * xs[S * 0] + xs[S * 1] * xs[S * 1] + xs[S * 2] * xs[S * 2]);
    double ir0 = SL_RCP(r0);
    double eta = xs[S * 0] * vs[S * 0] + xs[S * 1] * vs[S * 1] + xs[S * 2] * vs[S * 2];
    double beta = 2.0 * gm * ir0 - (vs[S * 0] * vs[S * 0] + vs[S * 1] * vs[S * 1] + vs[S * 2] * vs[S * 2]);
    /* the flags are doubles (1 or 0) and every choice a select between
     * doubles on one comparison: selects between comparisons' results are
     * what the vectoriser (gcc 12, AVX-512 masks) refuses. A drift of half
     * an orbit or more, which the general drift reduces by periods, is
     * refused. */
    double okf = beta > 0.0 ? 1.0 : 0.0;
    okf = sl_kdrift_long(gm, dt, beta) ? 0.0 : okf;
    /* Xe by hd.h's division (the bits of /, as the general drift's start):
     * CUDA's operator / branches to a slow path, a call that cuts the
     * straight-line code of two drifts side by side in two (mvs's narrow
     * group, 3.6 % at Sun + 8) */
    double Xs = dt * ir0 * (1.0 - 0.5 * eta * dt * (ir0 * ir0)), Xe = SL_DIV(beta * dt, gm);
    double Xn = sl_kdrift_series_start(gm, dt, r0, ir0, eta, beta);
    Xs = sl_kdrift_short(gm, dt, r0) ? Xs : Xe;
    Xn = sl_kdrift_near(gm, dt, ir0, beta) ? Xn : Xs;
    *Xp = tol > 0.0 ? Xn : Xs;
    *okfp = sl_kdrift_short(gm, dt, r0) ? 1.0 : okf;
    *lop = dt >= 0.0 ? 0.0 : -INFINITY;
    *hip = dt >= 0.0 ? INFINITY : 0.0;
    *donep = 0.0;
    *r0p = r0, *ir0p = ir0, *etap = eta, *betap = beta;
}

/* One Laguerre-Conway iteration; a lane done already keeps X, its bracket
 * and its flags to the bit (and so does a refused one its okf of 0).
 * What the general drift does rarely, the fast one refuses rather than
 * copies: a step that leaves the bracket or lands on its far end (the
 * general drift then bisects, or stops as stuck) or is not finite, and an
 * argument outside the series' range. A step that lands on the near end,
 * X itself, is a step below the ulp, where both stop as converged. So an
 * accepted lane stops where the general drift stops, by the same tests on
 * the same values, with 11 comparisons an iteration rather than 17: each is
 * a mask on AVX-512, and on Intel's cores comparisons into masks share one
 * port. */
SL_HD SL_INLINE void sl_kdrift_fast_iter(int early_on, double gm, double dt, double tol, double r0,
                                         double eta, double beta, double *Xp, double *lop,
                                         double *hip, double *okfp, double *donep, double *G1p,
                                         double *G2p)
{
    double X = *Xp, lo = *lop, hi = *hip, okf = *okfp, done = *donep, c[4];
    double z = beta * X * X;
    sl_stumpff_series(z, c);
    double G1 = X * c[1], G2 = X * X * c[2];
    double G3 = X * X * X * c[3];
    double t1 = r0 * G1, t2 = eta * G2, t3 = gm * G3, f = t1 + t2 + t3 - dt;
    double r = r0 * c[0] + eta * G1 + gm * G2;
    double nlo = f < 0.0 ? X : lo, nhi = f < 0.0 ? hi : X;
    double f2 = eta * c[0] + (gm - beta * r0) * G1;
    double disc = 16.0 * r * r - 20.0 * f * f2;
    /* r + sign(r) sqrt|disc| (the sign of r >= 0 as +, -0 included) */
    double d = SL_DIV(-5.0 * f, r + (r >= 0.0 ? 1.0 : -1.0) * SL_SQRT(fabs(disc)));
    double Xn = X + d;
    /* in the bracket (NaN fails) and not on its far end (an end it moved
     * to, not X itself): else refused, unless done already. Products of
     * 1.0 / 0.0 selects on one comparison each: what gcc vectorises (a
     * select between lo and hi became a load through a chosen pointer,
     * and the loop ran scalar) */
    double in = Xn >= nlo ? (Xn <= nhi ? 1.0 : 0.0) : 0.0;
    double end = Xn == nlo ? 1.0 : (Xn == nhi ? 1.0 : 0.0), moved = Xn == X ? 0.0 : 1.0;
    double zin = fabs(z) < 1.0 ? 1.0 : 0.0;
    in = in * zin * (1.0 - end * moved);
    okf = okf * (done > 0.0 ? 1.0 : in);
    double noise = 4.4e-16 * (fabs(t1) + fabs(t2) + fabs(t3) + fabs(dt));
    d = Xn - X;
    double conv = fabs(d) <= 4.4e-16 * fabs(Xn) ? 1.0 : (fabs(f) <= noise ? 1.0 : 0.0);
    /* sl_kepler_drift_tol's early stop: done = 2 marks G1, G2 carried
     * (early_on, a literal where inlined: 0 when tol is 0, which then
     * costs the loop nothing) */
    if (early_on) {
        double early = fabs(d) <= tol * fabs(Xn) ? 2.0 : 0.0;
        conv = conv > 0.0 ? conv : early;
        double g1 = G1, g2 = G2;
        sl_kdrift_carry(beta, d, c[0], &g1, &g2);
        *G1p = done > 0.0 ? *G1p : g1;
        *G2p = done > 0.0 ? *G2p : g2;
    }
    *lop = done > 0.0 ? lo : nlo;
    *hip = done > 0.0 ? hi : nhi;
    *Xp = done > 0.0 ? X : Xn;
    *donep = done > 0.0 ? done : conv;
    *okfp = okf;
}

/* The drift from the converged X: returns the lane's flag, x and v
 * drifted where it is 1.0, untouched where 0.0. */
SL_HD SL_INLINE double sl_kdrift_fast_end(int series, double gm, int S, double *xs, double *vs,
                                          double r0, double ir0, double eta, double beta,
                                          double X, double okf, double done, double G1c,
                                          double G2c)
{
    /* series 0 (a literal where inlined): no lane needs the series at X,
     * every one accepted being carried (done 2) */
    double z = beta * X * X, c[4] = {0.0, 0.0, 0.0, 0.0};
    okf = fabs(z) < 1.0 ? (done > 0.0 ? okf : 0.0) : 0.0;
    if (series)
        sl_stumpff_series(z, c);
    double G1 = done > 1.0 ? G1c : X * c[1], G2 = done > 1.0 ? G2c : X * X * c[2];
    double fm1 = -gm * G2 * ir0, g = r0 * G1 + eta * G2, xn[3];
    SL_UNROLL
    for (int k = 0; k < 3; k++)
        xn[k] = xs[S * k] + (fm1 * xs[S * k] + g * vs[S * k]);
    double r = SL_SQRT(xn[0] * xn[0] + xn[1] * xn[1] + xn[2] * xn[2]);
    double ir = SL_RCP(r), fd = -gm * G1 * ir * ir0, gdm1 = -gm * G2 * ir;
    okf = fabs(fm1 + g + fd + gdm1) <= DBL_MAX ? (r > 0.0 ? okf : 0.0) : 0.0;
    SL_UNROLL
    for (int k = 0; k < 3; k++) {
        double vn = vs[S * k] + (fd * xs[S * k] + gdm1 * vs[S * k]);
        vs[S * k] = okf > 0.0 ? vn : vs[S * k];
        xs[S * k] = okf > 0.0 ? xn[k] : xs[S * k];
    }
    return okf;
}

SL_HD SL_INLINE double sl_kepler_drift_fast(double gm, double dt, double tol, int S, double *xs,
                                            double *vs)
{
    double r0, ir0, eta, beta, X, lo, hi, okf, done, G1 = 0.0, G2 = 0.0;
    sl_kdrift_fast_begin(gm, dt, tol, S, xs, vs, &r0, &ir0, &eta, &beta, &X, &lo, &hi, &okf,
                         &done);
    SL_UNROLL
    for (int i = 0; i < SL_KDRIFT_FAST_IT; i++)
        sl_kdrift_fast_iter(1, gm, dt, tol, r0, eta, beta, &X, &lo, &hi, &okf, &done, &G1, &G2);
    return sl_kdrift_fast_end(1, gm, S, xs, vs, r0, ir0, eta, beta, X, okf, done, G1, G2);
}

#if !defined(__CUDACC__)
/* sl_kepler_drift_fast for the W lanes of the CPU's lane loop at once (gm
 * and dt per lane; component k of lane l at xs[W k + l]; k: scratch of
 * SL_KDRIFT_LANES_SCRATCH * W doubles). The iterations run outside the
 * loops over lanes and stop once every lane is done or refused, where
 * sl_kepler_drift_fast runs all SL_KDRIFT_FAST_IT of them for every lane:
 * the same bits, as a lane done keeps its state, and the drifts of a
 * planet's copies, which converge together, cost their own iterations and
 * not the slowest planet's (the Sun and eight planets at 8 days: 2 for the
 * outer planets, up to 4 for Mercury). ok[l] is multiplied by the lane's
 * flag (1.0 drifted, 0.0 refused and untouched). */
#define SL_KDRIFT_LANES_SCRATCH 11
__attribute__((always_inline)) static inline void
sl_kepler_drift_fast_lanes(int W, const double *gm, const double *dt, double tol, double *xs,
                           double *vs, double *ok, double *k)
{
    double *r0 = k, *ir0 = k + W, *eta = k + 2 * W, *beta = k + 3 * W, *X = k + 4 * W;
    double *lo = k + 5 * W, *hi = k + 6 * W, *okf = k + 7 * W, *done = k + 8 * W;
    double *G1 = k + 9 * W, *G2 = k + 10 * W;
#pragma omp simd
    for (int l = 0; l < W; l++) {
        sl_kdrift_fast_begin(gm[l], dt[l], tol, W, xs + l, vs + l, r0 + l, ir0 + l, eta + l,
                             beta + l, X + l, lo + l, hi + l, okf + l, done + l);
        G1[l] = G2[l] = 0.0;
    }
    /* each loop twice, its flag a literal: without the early stop, or with
     * no lane needing the final series, that code is not there */
#define SL__KD_ITER(E)                                                                     \
    for (int i = 0; i < SL_KDRIFT_FAST_IT; i++) {                                          \
        double open = 0.0;                                                                 \
        _Pragma("omp simd reduction(+ : open)")                                            \
        for (int l = 0; l < W; l++) {                                                      \
            sl_kdrift_fast_iter(E, gm[l], dt[l], tol, r0[l], eta[l], beta[l], X + l, lo + l, \
                                hi + l, okf + l, done + l, G1 + l, G2 + l);                \
            open += done[l] > 0.0 ? 0.0 : okf[l];                                          \
        }                                                                                  \
        if (open == 0.0)                                                                   \
            break;                                                                         \
    }
#define SL__KD_END(SER)                                                                    \
    _Pragma("omp simd")                                                                    \
    for (int l = 0; l < W; l++)                                                            \
        ok[l] *= sl_kdrift_fast_end(SER, gm[l], W, xs + l, vs + l, r0[l], ir0[l], eta[l],   \
                                    beta[l], X[l], okf[l], done[l], G1[l], G2[l]);
    if (tol > 0.0) {
        SL__KD_ITER(1)
    } else {
        SL__KD_ITER(0)
    }
    double plain = 0.0; /* lanes accepted without the carry */
#pragma omp simd reduction(+ : plain)
    for (int l = 0; l < W; l++)
        plain += done[l] == 1.0 ? okf[l] : 0.0;
    if (plain > 0.0) {
        SL__KD_END(1)
    } else {
        SL__KD_END(0)
    }
#undef SL__KD_ITER
#undef SL__KD_END
}
#endif

/* The same drift as a call rather than inlined code, for paths that run
 * rarely (mvs's opening and closing stages, its correctors): every
 * inlined copy of the drift is unrolled once per body, and with a dozen
 * copies per body the CUDA file of mvs took ptxas ten minutes and 10 GB
 * (two minutes and 1.6 GB with the calls). */
#if defined(__CUDA_ARCH__)
__device__ __noinline__ static inline int sl_kepler_drift_call(double gm, double dt, double tol,
                                                               double *x, double *v)
#else
__attribute__((noinline, unused)) static int sl_kepler_drift_call(double gm, double dt, double tol,
                                                                  double *x, double *v)
#endif
{
    return sl_kepler_drift_tol(gm, dt, tol, x, v);
}

#endif
