/* Planets given as a radial-velocity fit names them (kepler_rv's words: P,
 * K, e, ω, the phase at the epoch, plus i and Ω) made into the Cartesian
 * system an N-body integrator starts from, as SL_HD functions for the CPU
 * and CUDA alike.
 *
 * Conventions, the ones the nbody_rv likelihood documents:
 *   - Jacobi elements, planets innermost first: planet j's orbit is that
 *     of its position relative to the centre of mass of the star and the
 *     planets inside it, about their total mass plus its own.
 *   - P is that orbit's period; K the semi-amplitude it gives the inner
 *     centre of mass, which sets the planet's mass from K, sin i, e and the
 *     mass inside it, solved iteratively (sl_nbody_mass_from_k).
 *   - ω is the argument of periastron of the star's reflex orbit and the
 *     phase is kepler_rv's (sl_krv_orbit_from: M0 at the epoch, or t_p, or
 *     t_c), so that with every planet alone kepler_rv's model is the
 *     star's line-of-sight velocity; the planet's own ω is ω + π.
 *   - i from the sky plane (90°: edge-on), Ω from the reference direction;
 *     the line of sight is +z, away from the observer, so the radial
 *     velocity is +v_z of the star.
 *   - starling's units: G = 1, AU, M☉, and a time unit of 1/k days, k the
 *     Gaussian gravitational constant (one year is 2π).
 * At the epoch the Jacobi decomposition is exact: the star's velocity is
 * the sum of the planets' Keplerian terms for any masses, so the N-body
 * model and kepler_rv's agree there to rounding and part only as the
 * planets pull on each other. */
#ifndef STARLING_NBODY_ELEMENTS_H
#define STARLING_NBODY_ELEMENTS_H

#include <math.h>
#include "starling/hd.h"
#include "starling/kepler.h"

/* The Gaussian gravitational constant, AU^(3/2) M☉^(-1/2) day^(-1): one
 * time unit is 1/k days. */
#define SL_NBODY_K_GAUSS 0.01720209895
/* One velocity unit, AU k / day, in m/s (IAU 2012 au). */
#define SL_NBODY_V_UNIT (1.495978707e11 * SL_NBODY_K_GAUSS / 86400.0)
/* Iterations of the mass from K, and the relative change that ends them. */
#define SL_NBODY_MASS_MAXIT 60
#define SL_NBODY_MASS_TOL 1e-15

/* A planet's Jacobi elements in starling's units, angles in radians. */
typedef struct sl_nbody_elements {
    double P;     /* period, time units */
    double K;     /* semi-amplitude, velocity units */
    double e;     /* eccentricity, [0, 1) */
    double w;     /* ω of the star's reflex orbit */
    double M0;    /* mean anomaly at the epoch */
    double inc;   /* inclination, (0, π) */
    double Omega; /* longitude of the ascending node */
} sl_nbody_elements;

/* The mass m of a planet that gives the centre of mass inside it (mass
 * m_in) the semi-amplitude K on an orbit of period P: K = (2π/P)^(1/3)
 * m sin i (m_in + m)^(-2/3) / sqrt(1 - e²) (G = 1). m = A (m_in + m)^(2/3),
 * A = K sqrt(1 - e²) (P/2π)^(1/3) / sin i, by fixed-point iteration, which
 * contracts while m < 8 m_in (the derivative (2/3) m / (m_in + m) < 1,
 * beyond any planet). Returns m, 0 for K = 0, or -1 when the inputs are
 * outside the domain or the iteration does not settle. */
SL_HD SL_INLINE double sl_nbody_mass_from_k(double K, double P, double e, double sin_i,
                                            double m_in)
{
    if (!(K >= 0.0 && P > 0.0 && e >= 0.0 && e < 1.0 && sin_i > 0.0 && m_in > 0.0) ||
        !isfinite(K) || !isfinite(P))
        return -1.0;
    if (K == 0.0)
        return 0.0;
    const double A = K * sqrt((1.0 - e) * (1.0 + e)) * cbrt(P / SL_KEPLER_TWO_PI) / sin_i;
    double m = A * cbrt(m_in * m_in);
    for (int it = 0; it < SL_NBODY_MASS_MAXIT; it++) {
        const double s = cbrt(m_in + m);
        const double next = A * s * s;
        if (fabs(next - m) <= SL_NBODY_MASS_TOL * next)
            return next;
        m = next;
    }
    return -1.0;
}

/* The relative orbit of one planet: position and velocity of the planet
 * relative to the inner centre of mass, for gravitational parameter mu =
 * m_in + m, from its elements (the planet's ω is the star's + π). */
SL_HD SL_INLINE void sl_nbody_orbit_state(const sl_nbody_elements *o, double mu, double *r,
                                          double *u)
{
    const double n = SL_KEPLER_TWO_PI / o->P;
    const double a = cbrt(mu / (n * n));
    double sE, cE;
    sl_kepler_markley_sc(o->M0, o->e, &sE, &cE);
    const double b = sqrt((1.0 - o->e) * (1.0 + o->e));
    const double edot = n / (1.0 - o->e * cE);
    /* perifocal frame: periastron along +p, motion along +q */
    const double xp = a * (cE - o->e), yq = a * b * sE;
    const double vp = -a * sE * edot, vq = a * b * cE * edot;
    double sw, cw, si, ci, sO, cO;
    sl_sincos(o->w + SL_KEPLER_PI, &sw, &cw);
    sl_sincos(o->inc, &si, &ci);
    sl_sincos(o->Omega, &sO, &cO);
    /* the rotation R_z(Ω) R_x(i) R_z(ω_planet), its first two columns */
    const double px = cO * cw - sO * sw * ci, py = sO * cw + cO * sw * ci, pz = sw * si;
    const double qx = -cO * sw - sO * cw * ci, qy = -sO * sw + cO * cw * ci, qz = cw * si;
    r[0] = px * xp + qx * yq, r[1] = py * xp + qy * yq, r[2] = pz * xp + qz * yq;
    u[0] = px * vp + qx * vq, u[1] = py * vp + qy * vq, u[2] = pz * vp + qz * vq;
}

/* The system of a star of mass mstar and n_pl planets (Jacobi elements,
 * innermost first): masses into m[0..n_pl], barycentric positions and
 * velocities into x, v (3 per body, body 0 the star). Returns 0 when a
 * planet's elements are outside the domain or its mass does not settle
 * (the planet's index + 1 in *bad), else 1. */
SL_HD SL_INLINE int sl_nbody_system(int n_pl, const sl_nbody_elements *el, double mstar,
                                    double *x, double *v, double *m, int *bad)
{
    double R[3] = {0.0, 0.0, 0.0}, V[3] = {0.0, 0.0, 0.0}, M = mstar;
    m[0] = mstar;
    for (int c = 0; c < 3; c++)
        x[c] = v[c] = 0.0;
    for (int j = 0; j < n_pl; j++) {
        const sl_nbody_elements *o = &el[j];
        const double si = sin(o->inc);
        const double mj = sl_nbody_mass_from_k(o->K, o->P, o->e, si, M);
        if (!(mj >= 0.0) || !(o->inc > 0.0 && o->inc < SL_KEPLER_PI) || !isfinite(o->w) ||
            !isfinite(o->M0) || !isfinite(o->Omega)) {
            *bad = j + 1;
            return 0;
        }
        double r[3], u[3];
        sl_nbody_orbit_state(o, M + mj, r, u);
        m[j + 1] = mj;
        for (int c = 0; c < 3; c++) {
            x[3 * (j + 1) + c] = R[c] + r[c];
            v[3 * (j + 1) + c] = V[c] + u[c];
            R[c] = (M * R[c] + mj * x[3 * (j + 1) + c]) / (M + mj);
            V[c] = (M * V[c] + mj * v[3 * (j + 1) + c]) / (M + mj);
        }
        M += mj;
    }
    for (int b = 0; b <= n_pl; b++)
        for (int c = 0; c < 3; c++) {
            x[3 * b + c] -= R[c];
            v[3 * b + c] -= V[c];
        }
    return 1;
}

#endif
