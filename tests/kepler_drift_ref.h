/* Long-double references for the Kepler drift (kepler_drift.h), shared by
 * the CPU suite (test_kepler_drift.c) and the GPU one: the drift from
 * orbital elements, the bound a computed drift is held to, test orbits. */
#ifndef SLT_KEPLER_DRIFT_REF_H
#define SLT_KEPLER_DRIFT_REF_H

#include <math.h>

#ifndef SLT_UNUSED
#if defined(__GNUC__)
#define SLT_UNUSED __attribute__((unused))
#else
#define SLT_UNUSED
#endif
#endif

typedef long double ld;

static SLT_UNUSED ld dot3(const ld *a, const ld *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* E - e sin E = M for M in [-pi, pi]: Newton kept inside [-pi, pi]'s
 * bracket of the root by bisection. */
static SLT_UNUSED ld ref_kepler_e(ld M, ld e)
{
    ld lo = -M_PI - 1, hi = M_PI + 1, E = M + (e < 0.8L ? 0 : e * (M >= 0 ? 1 : -1) * 0.85L);
    for (int i = 0; i < 200; i++) {
        ld f = E - e * sinl(E) - M;
        if (f > 0) hi = E; else lo = E;
        ld En = E - f / (1 - e * cosl(E));
        if (!(En > lo && En < hi))
            En = 0.5L * (lo + hi);
        if (fabsl(En - E) <= 1e-19L * (1 + fabsl(E)))
            return En;
        E = En;
    }
    return E;
}

/* e sinh F - F = M: the same, on a bracket wide enough for |M| < 1e300. */
static SLT_UNUSED ld ref_kepler_h(ld M, ld e)
{
    ld lo = -800, hi = 800, F = asinhl(M / e);
    for (int i = 0; i < 400; i++) {
        ld f = e * sinhl(F) - F - M;
        if (f > 0) hi = F; else lo = F;
        ld Fn = F - f / (e * coshl(F) - 1);
        if (!(Fn > lo && Fn < hi))
            Fn = 0.5L * (lo + hi);
        if (fabsl(Fn - F) <= 1e-19L * (1 + fabsl(F)))
            return Fn;
        F = Fn;
    }
    return F;
}

/* An ellipse (beta > 0) from r0, eta = x.v and beta = 2 gm / r0 - v^2:
 * its a, n, e and the eccentric anomaly at the start (E0) and after dt
 * (E, whole turns included). */
static SLT_UNUSED void ref_ellipse(ld gm, ld dt, ld r0, ld eta, ld beta, ld *a_, ld *n_, ld *e_,
                                   ld *E0_, ld *E_)
{
    ld a = gm / beta, n = sqrtl(gm / (a * a * a));
    ld ec = 1 - r0 / a, es = eta / sqrtl(gm * a), e = sqrtl(ec * ec + es * es);
    ld E0 = e > 0 ? atan2l(es, ec) : 0, M = E0 - es + n * dt;
    ld k = floorl(M / (2 * M_PI) + 0.5L);
    *E_ = ref_kepler_e(M - 2 * M_PI * k, e) + 2 * M_PI * k;
    *a_ = a, *n_ = n, *e_ = e, *E0_ = E0;
}

/* The reference drift from elements; beta == 0 exactly: the parabola. */
static SLT_UNUSED void ref_drift(double gm_d, double dt_d, const double *x0, const double *v0, double *x,
                      double *v)
{
    ld gm = gm_d, dt = dt_d, xs[3], vs[3];
    for (int k = 0; k < 3; k++)
        xs[k] = x0[k], vs[k] = v0[k];
    ld r0 = sqrtl(dot3(xs, xs)), eta = dot3(xs, vs), beta = 2 * gm / r0 - dot3(vs, vs);
    ld f, g, fd, gd;
    /* the parabola when it is one in double: the long-double beta of the
     * same numbers is then ~1e-17, whose elements would be meaningless */
    if (fabsl(beta) < 1e-15L * gm / r0)
        beta = 0;
    if (beta > 0) {
        ld a, n, e, E0, E;
        ref_ellipse(gm, dt, r0, eta, beta, &a, &n, &e, &E0, &E);
        ld dE = E - E0, r = a * (1 - e * cosl(E));
        f = 1 - a / r0 * (1 - cosl(dE));
        g = dt - (dE - sinl(dE)) / n;
        fd = -sqrtl(gm * a) * sinl(dE) / (r * r0);
        gd = 1 - a / r * (1 - cosl(dE));
    } else if (beta < 0) {
        ld a = gm / beta, n = sqrtl(gm / (-a * a * a));
        ld ec = 1 - r0 / a, es = eta / sqrtl(-gm * a), e = sqrtl(ec * ec - es * es);
        ld F0 = atanhl(es / ec), M = e * sinhl(F0) - F0 + n * dt;
        ld F = ref_kepler_h(M, e), dF = F - F0;
        ld r = a * (1 - e * coshl(F));
        f = 1 - a / r0 * (1 - coshl(dF));
        g = dt - (sinhl(dF) - dF) / n;
        fd = -sqrtl(-gm * a) * sinhl(dF) / (r * r0);
        gd = 1 - a / r * (1 - coshl(dF));
    } else {
        /* Barker: tau = (D + D^3/3) sqrt(p^3/gm)/2, D = tan(nu/2) = eta/sqrt(gm p) */
        ld h[3] = {xs[1] * vs[2] - xs[2] * vs[1], xs[2] * vs[0] - xs[0] * vs[2],
                   xs[0] * vs[1] - xs[1] * vs[0]};
        ld p = dot3(h, h) / gm, q = sqrtl(p * p * p / gm);
        ld D0 = eta / sqrtl(gm * p), B = D0 + D0 * D0 * D0 / 3 + 2 * dt / q;
        /* D is odd in B: solve for |B|, where nothing cancels */
        ld y = cbrtl((3 * fabsl(B) + sqrtl(9 * B * B + 4)) / 2), D = (y - 1 / y) * (B < 0 ? -1 : 1);
        ld r = p * (1 + D * D) / 2;
        /* in the frame of the orbit: f, g from the positions at D0 and D */
        ld nu = 2 * atanl(D), nu0 = 2 * atanl(D0), dnu = nu - nu0;
        f = 1 - r / p * (1 - cosl(dnu));
        g = r * r0 * sinl(dnu) / sqrtl(gm * p);
        fd = sqrtl(gm / p) * tanl(dnu / 2) * ((1 - cosl(dnu)) / p - 1 / r - 1 / r0);
        gd = 1 - r0 / p * (1 - cosl(dnu));
    }
    for (int k = 0; k < 3; k++) {
        x[k] = (double)(f * xs[k] + g * vs[k]);
        v[k] = (double)(fd * xs[k] + gd * vs[k]);
    }
}

static SLT_UNUSED double norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* max over components of |a - b| / |b| */
static SLT_UNUSED double rel_err(const double *a, const double *b)
{
    double w = 0;
    for (int k = 0; k < 3; k++)
        w = fmax(w, fabs(a[k] - b[k]));
    return w / norm3(b);
}

/* The error of a drift from s0 to s, reference sr: relative to the larger
 * of |s0| and |sr|. The drift adds terms of the size of both ends (f x0,
 * g v0), so rounding is relative to the larger: a hyperbola drifted from
 * far out to pericentre cannot end closer than eps |x0|, nor a parabola's
 * speed far out closer than eps |v0|. */
static SLT_UNUSED double drift_err(const double *s0, const double *s, const double *sr)
{
    double w = 0;
    for (int k = 0; k < 3; k++)
        w = fmax(w, fabs(s[k] - sr[k]));
    return w / fmax(norm3(s0), norm3(sr));
}

/* A state on the orbit of pericentre distance q and eccentricity e at
 * true anomaly nu, tilted out of the plane so that every component is
 * exercised. */
static SLT_UNUSED void orbit_state(double gm, double q, double e, double nu, double *x, double *v)
{
    double p = q * (1 + e), r = p / (1 + e * cos(nu)), s = sqrt(gm / p);
    double px = r * cos(nu), py = r * sin(nu), qx = -s * sin(nu), qy = s * (e + cos(nu));
    /* rotation: inclination 0.7, node 0.3, argument of pericentre 1.1 */
    const double R[3][2] = {{0.5547, -0.7801}, {0.7513, 0.2371}, {0.3574, 0.5790}};
    for (int k = 0; k < 3; k++) {
        x[k] = R[k][0] * px + R[k][1] * py;
        v[k] = R[k][0] * qx + R[k][1] * qy;
    }
}

/* How far 1-ulp changes of the start move the exact end: the largest
 * move over the 6 coordinates, nudged one at a time (drift_err's
 * measure). A drift computed in double cannot beat this, and a backward
 * stable one stays within a few times it: that is the bound the tests
 * hold the drift to, plus 1e-14 for the rounding of the result itself.
 * "A few": the drift rounds r0, eta and beta (each a sum of 3 products,
 * beta a difference that loses up to a bit more) from all six coordinates
 * at once, where a nudge moves one coordinate by one ulp; 16 nudges cover
 * that (8 did not: a 3.7-orbit ellipse of e = 0.96 came to 8.2).
 * It matters for long drifts: the energy, hence the period and the
 * speed far out, is known only to the rounding of 2 gm / r0 - v^2. */
static SLT_UNUSED double conditioning(double gm, double dt, const double *x0, const double *v0)
{
    double xr[3], vr[3], w = 0;
    ref_drift(gm, dt, x0, v0, xr, vr);
    for (int q = 0; q < 6; q++) {
        double xs[3] = {x0[0], x0[1], x0[2]}, vs[3] = {v0[0], v0[1], v0[2]}, xn[3], vn[3];
        double *c = q < 3 ? &xs[q] : &vs[q - 3];
        *c = nextafter(*c, INFINITY);
        ref_drift(gm, dt, xs, vs, xn, vn);
        w = fmax(w, fmax(drift_err(x0, xn, xr), drift_err(v0, vn, vr)));
    }
    return w;
}

#define SLT_BACKWARD_ULPS 16.0
#define SLT_FLOOR 1e-14

/* The bound a drift is held to: backward stable to SLT_BACKWARD_ULPS
 * 1-ulp nudges, plus SLT_FLOOR for the rounding of the result, plus one
 * known loss. On a hyperbola that comes from far out to near the centre
 * (or goes from near to far out), Kepler's equation in X is a sum of terms
 * ~e^s that cancel to dt, so X, and the state, carry ~eps rho^2 of error,
 * rho the ratio of the farthest to the nearest distance on the path
 * (measured: 0.6 to 1.1 eps rho^2 from far out to pericentre for rho = 14
 * to 400, up to 2.3 eps rho^2 over the random draws; the bound allows 4);
 * past rho ~ 1000 the problem itself is that ill-conditioned and the 1-ulp
 * term dominates. Writing the
 * hyperbolic functions as e^{+-s} with coefficients from |h|^2 (no
 * cancellation) would remove the loss: not done yet. */
static SLT_UNUSED double drift_bound(double gm, double dt, const double *x0, const double *v0)
{
    double xr[3], vr[3];
    ref_drift(gm, dt, x0, v0, xr, vr);
    double r0 = norm3(x0), r = norm3(xr), w0 = norm3(v0), rho = 1.0;
    if (2 * gm / r0 - w0 * w0 < 0) {
        /* the nearest point of the path: pericentre if it passes it */
        double in0 = (x0[0] * v0[0] + x0[1] * v0[1] + x0[2] * v0[2]) * dt < 0;
        double out1 = (xr[0] * vr[0] + xr[1] * vr[1] + xr[2] * vr[2]) * dt > 0;
        double h[3] = {x0[1] * v0[2] - x0[2] * v0[1], x0[2] * v0[0] - x0[0] * v0[2],
                       x0[0] * v0[1] - x0[1] * v0[0]};
        double e = sqrt(1 + (w0 * w0 - 2 * gm / r0) * (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) /
                                (gm * gm));
        double q = (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) / (gm * (1 + e));
        double near = in0 && out1 ? q : fmin(r0, r);
        rho = fmax(r0, r) / near;
    }
    return SLT_FLOOR + SLT_BACKWARD_ULPS * conditioning(gm, dt, x0, v0) +
           4.0 * 2.2e-16 * rho * rho;
}

#endif
