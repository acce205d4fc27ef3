/* Xallarap: the source on a circular orbit about a companion, which moves
 * its path as parallax does. MulensModel's circular xallarap, parameters
 * and conventions: period P (days), semi-major axis a (Einstein radii),
 * Omega_node and inclination i (degrees), and the argument of latitude u0
 * (degrees) at the reference epoch t0_xi. The orbit passes its ascending
 * node at t_node = t0_xi - P u0 / 2 pi; at t its position in the sky is
 * the orbital plane's (a cos M, a sin M cos i), M = 2 pi (t - t_node) / P,
 * turned by Omega_node. The shift to (tau, beta) is that position less the
 * one at t0_xi, so the path at t0_xi is the model's own. SL_HD: both
 * backends. */
#ifndef STARLING_ML_XALLARAP_H
#define STARLING_ML_XALLARAP_H

#include <math.h>
#include "starling/hd.h"

/* Parameters xallarap adds, after parallax's and the lens orbit's. */
#define SL_ML_XI_NPAR 5

typedef struct sl_ml_xi {
    double P, a, cos_node, sin_node, cos_i, t_node;
    double ref[2]; /* the position at t0_xi */
    int ok;        /* P > 0, a >= 0 and everything finite */
} sl_ml_xi;

/* The orbit's position at t in the sky's (tau, beta) frame. */
SL_HD SL_INLINE void sl_ml_xi_position(const sl_ml_xi *x, double t, double *dtau, double *dbeta)
{
    const double M = 2.0 * 3.14159265358979323846 * (t - x->t_node) / x->P;
    const double X = x->a * cos(M), Y = x->a * sin(M) * x->cos_i;
    *dtau = x->cos_node * X - x->sin_node * Y;
    *dbeta = x->sin_node * X + x->cos_node * Y;
}

/* The orbit of the parameters xi (P, a, Omega_node, inclination, u0) about
 * the reference epoch t0_xi. */
SL_HD SL_INLINE sl_ml_xi sl_ml_xi_init(const double *xi, double t0_xi)
{
    const double deg = 3.14159265358979323846 / 180.0;
    sl_ml_xi x;
    x.P = xi[0], x.a = xi[1];
    x.cos_node = cos(xi[2] * deg), x.sin_node = sin(xi[2] * deg);
    x.cos_i = cos(xi[3] * deg);
    x.t_node = t0_xi - x.P * (xi[4] * deg) / (2.0 * 3.14159265358979323846);
    x.ok = x.P > 0.0 && x.a >= 0.0 && isfinite(x.t_node) && isfinite(x.cos_node + x.cos_i);
    x.ref[0] = x.ref[1] = 0.0;
    if (x.ok)
        sl_ml_xi_position(&x, t0_xi, &x.ref[0], &x.ref[1]);
    return x;
}

/* The shift of the source's (tau, beta) at t: NaN when the orbit is not
 * one (P <= 0, a < 0), so that the model is outside the domain. */
SL_HD SL_INLINE void sl_ml_xi_shift(const sl_ml_xi *x, double t, double *dtau, double *dbeta)
{
    if (!x->ok) {
        *dtau = *dbeta = NAN;
        return;
    }
    sl_ml_xi_position(x, t, dtau, dbeta);
    *dtau -= x->ref[0];
    *dbeta -= x->ref[1];
}

#endif
