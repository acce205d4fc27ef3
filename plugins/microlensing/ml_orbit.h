/* The binary lens's orbit, for both backends (SL_HD): the secondary's
 * position relative to the primary at any epoch, projected on the sky as
 * the binary's s and alpha.
 *
 * Linear: s + ds_dt dt and alpha + dalpha_dt dt (dt in years from t0_kep).
 *
 * Keplerian (MulensModel's parameters and conventions): at t0_kep the
 * secondary is at r0 = (s, 0, s_z) in Einstein radii, x along the binary's
 * axis, y across it on the sky, z along the line of sight, and moves at
 * v0 = (ds_dt, -s dalpha_dt pi/180, ds_z_dt) per year. The orbit is the
 * Kepler ellipse through r0 and v0 whose semi-major axis is a_s |r0|,
 * which fixes G M by vis-viva: G M = |v0|^2 |r0| a_s / (2 a_s - 1), bound
 * for a_s > 1/2. A circular orbit is a_s = 1 with r0 . v0 = 0, so ds_z_dt
 * = -ds_dt s / s_z follows from s_z. At epoch t the position is r0 and v0
 * carried by Gauss's f and g functions:
 *   r(t) = f r0 + g v0,  f = 1 - (a/|r0|)(1 - cos dE),
 *   g = dt + (sin dE - dE)/n,
 * where dE is the change of eccentric anomaly, from Kepler's equation
 * (the shared solver of starling/kepler.h) at mean anomaly M0 + n dt;
 * n = sqrt(G M / a^3). This form needs no direction of periapsis, so a
 * circular orbit (e = 0) is no special case. s(t) = |(x, y)|, and the
 * binary's axis turns by atan2(y, x), which turns the source's path
 * against it the other way: alpha(t) = alpha - atan2(y, x). So at t0_kep
 * s and alpha change at ds_dt and dalpha_dt, as under linear motion, and
 * a fit's rates carry over from one kind to the other. (MulensModel 3.12
 * adds atan2(y, x), so its Keplerian alpha turns at -dalpha_dt while its
 * linear one turns at +dalpha_dt; its Keplerian curves are ours with
 * dalpha_dt negated.) */
#ifndef STARLING_ML_ORBIT_H
#define STARLING_ML_ORBIT_H

#include <math.h>
#include "starling/hd.h"
#include "starling/kepler.h"

/* orbital_motion: its kinds, and the parameters each adds */
enum { SL_ML_ORBIT_NONE, SL_ML_ORBIT_LINEAR, SL_ML_ORBIT_CIRCULAR, SL_ML_ORBIT_KEPLERIAN };

SL_HD SL_INLINE int sl_ml_orbit_npar(int kind)
{
    return kind == SL_ML_ORBIT_LINEAR ? 2 : kind == SL_ML_ORBIT_CIRCULAR ? 3
                                        : kind == SL_ML_ORBIT_KEPLERIAN ? 5
                                                                        : 0;
}

/* One model's orbit, set up once (sl_ml_orbit_init) for all its epochs. */
typedef struct sl_ml_orbit {
    int kind;
    int ok;        /* 0: no bound orbit through these parameters */
    double x0;     /* s at t0_kep */
    double vx, vy; /* the velocity on the sky, Einstein radii a year */
    double rate;   /* linear: dalpha_dt (degrees a year) */
    double a_r;    /* a / |r0| */
    double n;      /* mean motion, radians a year (0: the lens does not move) */
    double e, E0, M0;
} sl_ml_orbit;

/* The orbit of the parameters om (after the model's and parallax's) of a
 * binary with separation s at t0_kep. */
SL_HD SL_INLINE sl_ml_orbit sl_ml_orbit_init(int kind, double s, const double *om)
{
    sl_ml_orbit o = {kind, 1, s, om[0], 0.0, om[1], 1.0, 0.0, 0.0, 0.0, 0.0};
    if (kind == SL_ML_ORBIT_LINEAR)
        return o;
    const double s_z = om[2];
    double dsz, a_s = 1.0;
    if (kind == SL_ML_ORBIT_CIRCULAR) /* r0 . v0 = 0 */
        dsz = om[0] == 0.0 ? 0.0 : -om[0] * s / s_z;
    else
        dsz = om[3], a_s = om[4];
    o.vy = -om[1] * (3.14159265358979323846 / 180.0) * s;
    const double r = sqrt(s * s + s_z * s_z);
    const double v2 = om[0] * om[0] + o.vy * o.vy + dsz * dsz;
    if (!isfinite(dsz) || !(a_s > 0.5) || !(r > 0.0)) {
        o.ok = 0;
        return o;
    }
    if (v2 == 0.0) /* at rest: the static binary */
        return o;
    const double gm = v2 * r * a_s / (2.0 * a_s - 1.0), a = a_s * r;
    const double ec = 1.0 - 1.0 / a_s, es = (s * om[0] + s_z * dsz) / sqrt(gm * a);
    o.a_r = a_s;
    o.n = sqrt(gm / (a * a * a));
    o.e = sqrt(ec * ec + es * es);
    o.E0 = atan2(es, ec);
    o.M0 = o.E0 - es;
    o.ok = o.e < 1.0 && isfinite(o.n);
    return o;
}

/* s and alpha (degrees) at dt years from t0_kep, from those at t0_kep;
 * 0 when there is no orbit or s has shrunk to 0 or below. */
SL_HD SL_INLINE int sl_ml_orbit_at(const sl_ml_orbit *o, double dt, double s0, double alpha0,
                                   double *s, double *alpha)
{
    if (!o->ok)
        return 0;
    if (o->kind == SL_ML_ORBIT_LINEAR) {
        *s = s0 + o->vx * dt;
        *alpha = alpha0 + o->rate * dt;
        return *s > 0.0;
    }
    if (o->n == 0.0) {
        *s = s0, *alpha = alpha0;
        return 1;
    }
    double sE, cE, sd, cd;
    const double E = sl_kepler_markley_sc(o->M0 + o->n * dt, o->e, &sE, &cE);
    const double dE = E - o->E0;
    sl_sincos(dE, &sd, &cd);
    const double f = 1.0 - o->a_r * (1.0 - cd), g = dt + (sd - dE) / o->n;
    const double x = f * o->x0 + g * o->vx, y = g * o->vy;
    *s = sqrt(x * x + y * y);
    *alpha = alpha0 - atan2(y, x) * (180.0 / 3.14159265358979323846);
    return *s > 0.0;
}

#endif
