/* Point lens magnifications, written once as SL_HD C for the CPU and CUDA
 * backends: the point source (Paczynski 1986), the uniform disk (Witt & Mao
 * 1994, through Carlson's symmetric elliptic integrals) and the linearly
 * limb-darkened disk (the uniform disk integrated over radius, as Lee et
 * al. 2009 do). Lengths in Einstein radii of the lens. */
#ifndef STARLING_ML_POINT_H
#define STARLING_ML_POINT_H

#include <math.h>
#include "starling/hd.h"

/* Carlson's duplication algorithms (Carlson 1995, Numer. Algorithms 10,
 * 13): R_F, R_D, R_C and R_J. Each step quarters the spread of the
 * arguments; the loops stop once the fifth-order series is exact to double
 * precision (spread < (eps/tol)^(1/6) with the series' error constant). */
#define SL_ML_CARLSON_TOL 1e-3  /* relative spread where the series is exact to ~1e-17 */
#define SL_ML_CARLSON_MAXIT 40

SL_HD SL_INLINE double sl_ml_rf(double x, double y, double z)
{
    for (int i = 0; i < SL_ML_CARLSON_MAXIT; i++) {
        double mu = (x + y + z) / 3.0;
        double dx = 1.0 - x / mu, dy = 1.0 - y / mu, dz = 1.0 - z / mu;
        double e = fmax(fabs(dx), fmax(fabs(dy), fabs(dz)));
        if (e < SL_ML_CARLSON_TOL) {
            double e2 = dx * dy - dz * dz, e3 = dx * dy * dz;
            return (1.0 + e2 * (-0.1 + e2 / 24.0 - 3.0 * e3 / 44.0) + e3 / 14.0) / sqrt(mu);
        }
        double sx = sqrt(x), sy = sqrt(y), sz = sqrt(z);
        double l = sx * (sy + sz) + sy * sz;
        x = 0.25 * (x + l);
        y = 0.25 * (y + l);
        z = 0.25 * (z + l);
    }
    return NAN;
}

/* R_C(x, y), y > 0: the degenerate R_F(x, y, y). */
SL_HD SL_INLINE double sl_ml_rc(double x, double y)
{
    for (int i = 0; i < SL_ML_CARLSON_MAXIT; i++) {
        double mu = (x + 2.0 * y) / 3.0;
        double s = (y - mu) / mu;
        if (fabs(s) < SL_ML_CARLSON_TOL)
            return (1.0 + s * s * (0.3 + s * (1.0 / 7.0 + s * (0.375 + s * 9.0 / 22.0)))) /
                   sqrt(mu);
        double l = 2.0 * sqrt(x) * sqrt(y) + y;
        x = 0.25 * (x + l);
        y = 0.25 * (y + l);
    }
    return NAN;
}

/* R_J(x, y, z, p), p > 0; R_D(x, y, z) = R_J(x, y, z, z). */
SL_HD SL_INLINE double sl_ml_rj(double x, double y, double z, double p)
{
    double sum = 0.0, fac = 1.0;
    for (int i = 0; i < SL_ML_CARLSON_MAXIT; i++) {
        double mu = 0.2 * (x + y + z + 2.0 * p);
        double dx = 1.0 - x / mu, dy = 1.0 - y / mu, dz = 1.0 - z / mu, dp = 1.0 - p / mu;
        double e = fmax(fmax(fabs(dx), fabs(dy)), fmax(fabs(dz), fabs(dp)));
        if (e < SL_ML_CARLSON_TOL) {
            double xyz = dx * dy * dz, p2 = dp * dp;
            double e2 = dx * dy + dx * dz + dy * dz - 3.0 * p2;
            double e3 = xyz + 2.0 * e2 * dp + 4.0 * p2 * dp;
            double e4 = (2.0 * xyz + e2 * dp + 3.0 * p2 * dp) * dp;
            double e5 = xyz * p2;
            double series = 1.0 - 3.0 * e2 / 14.0 + e3 / 6.0 + 9.0 * e2 * e2 / 88.0 -
                            3.0 * e4 / 22.0 - 9.0 * e2 * e3 / 52.0 + 3.0 * e5 / 26.0;
            return 3.0 * sum + fac * series / (mu * sqrt(mu));
        }
        double sx = sqrt(x), sy = sqrt(y), sz = sqrt(z);
        double l = sx * (sy + sz) + sy * sz;
        double a = p * (sx + sy + sz) + sx * sy * sz;
        double b = p * (p + l) * (p + l);
        sum += fac * sl_ml_rc(a * a, b);
        fac *= 0.25;
        x = 0.25 * (x + l);
        y = 0.25 * (y + l);
        z = 0.25 * (z + l);
        p = 0.25 * (p + l);
    }
    return NAN;
}

/* Point source: A(u) = (u^2 + 2) / (u sqrt(u^2 + 4)); infinite at u = 0. */
SL_HD SL_INLINE double sl_ml_pspl(double u)
{
    double u2 = u * u;
    return (u2 + 2.0) / (u * sqrt(u2 + 4.0));
}

/* Uniform disk of radius rho at distance u >= 0 (Witt & Mao 1994, eq. 9):
 * A = [b1 K(k) + b2 E(k) + b3 Pi(n, k)] / (2 pi rho^2 sqrt(4 + (u - rho)^2)),
 * with n = 4 u rho / (u + rho)^2 and k^2 = 4 n / (4 + (u - rho)^2). At
 * u = rho the Pi term's weight (rho - u)^2 vanishes while Pi diverges: the
 * limit is taken in closed form. 1 - n = ((u - rho)/(u + rho))^2 is formed
 * directly, so that u close to rho keeps its digits. */
/* Far from the lens (u > SL_ML_FAR rho) the three terms of Witt & Mao's
 * form cancel to (rho/u)^2 of their size and lose as many digits; there
 * the disk's mean of the point-source A is summed instead,
 * A + rho^2/8 LA + rho^4/192 L^2A + rho^6/9216 L^3A (L the Laplacian, the
 * k-th term's weight 1/(4^k k! (k+1)!)), whose next term is ~0.02 (rho/u)^8
 * of A. At u = 30 rho both are good to ~1e-13. */
#define SL_ML_FAR 30.0

SL_HD SL_INLINE double sl_ml_disk_far(double u, double rho)
{
    double u2 = u * u, w = u2 + 4.0, sw = sqrt(w), r2 = rho * rho;
    double w2 = w * w, w4 = w2 * w2;
    double l1 = 32.0 * (u2 + 1.0) / (u2 * u * w2 * sw);
    double l2 = 384.0 * (((3.0 * u2 + 6.0) * u2 + 14.0) * u2 + 12.0) /
                (u2 * u2 * u * w4 * sw);
    double l3 = 36864.0 *
                (((((2.0 * u2 + 2.0) * u2 + 22.0) * u2 + 57.0) * u2 + 82.0) * u2 + 50.0) /
                (u2 * u2 * u2 * u * w4 * w2 * sw);
    return sl_ml_pspl(u) + r2 * (l1 / 8.0 + r2 * (l2 / 192.0 + r2 * l3 / 9216.0));
}

SL_HD SL_INLINE double sl_ml_disk(double u, double rho)
{
    const double pi = 3.14159265358979323846;
    if (u > SL_ML_FAR * rho)
        return sl_ml_disk_far(u, rho);
    double d = u - rho, s = u + rho;
    if (d == 0.0) {
        double r2 = rho * rho;
        /* pi/2 + asin((rho^2 - 1)/(rho^2 + 1)) written as 2 atan(rho): the
         * asin form loses (1/rho) eps near its branch point */
        return (2.0 / rho + (1.0 + r2) / r2 * 2.0 * atan(rho)) / pi;
    }
    double w = 4.0 + d * d;
    double n = 4.0 * u * rho / (s * s);
    double k2 = 4.0 * n / w;
    double kc2 = d * d * (4.0 + s * s) / (w * s * s); /* 1 - k^2, without the cancellation */
    double p = (d / s) * (d / s);                                           /* 1 - n */
    double rf = sl_ml_rf(0.0, kc2, 1.0);
    double rd = sl_ml_rj(0.0, kc2, 1.0, 1.0);
    double K = rf, E = rf - k2 / 3.0 * rd;
    double Pi = rf + n / 3.0 * sl_ml_rj(0.0, kc2, 1.0, p);
    double b1 = -(8.0 - rho * rho + u * u) * d;
    double b2 = w * s;
    double b3 = 4.0 * (1.0 + rho * rho) * d * d / s;
    return (b1 * K + b2 * E + b3 * Pi) / (2.0 * pi * rho * rho * sqrt(w));
}

/* Nodes per piece of the limb-darkening integral (midpoint rule after a
 * sine change of variable, which flattens the ends where the integrand has
 * its log-type kinks). */
#define SL_ML_LD_NODES 48

/* The integral of f(theta) = sin^3(theta) A_disk(u, rho sin theta) over
 * [a, b], theta = a + (b - a)(t - sin(2 pi t) / (2 pi)), t in [0, 1]. */
SL_HD SL_INLINE double sl_ml_ld_piece(double u, double rho, double a, double b)
{
    const double two_pi = 6.28318530717958647692;
    double sum = 0.0;
    for (int i = 0; i < SL_ML_LD_NODES; i++) {
        double t = (i + 0.5) / SL_ML_LD_NODES;
        double th = a + (b - a) * (t - sin(two_pi * t) / two_pi);
        double dth = (b - a) * (1.0 - cos(two_pi * t));
        double st = sin(th);
        sum += st * st * st * sl_ml_disk(u, rho * st) * dth;
    }
    return sum / SL_ML_LD_NODES;
}

/* Linearly limb-darkened disk, I(r) = 1 - a1 (1 - sqrt(1 - r^2/rho^2)):
 * the flux-weighted sum of uniform disks of radius r <= rho. Integrating by
 * parts over r and putting r = rho sin(theta),
 * A = [(1 - a1) A_disk(u, rho) + a1 int_0^{pi/2} sin^3 A_disk(u, rho sin) dtheta]
 *     / (1 - a1/3).
 * When 0 < u < rho the integrand has a kink at r = u: the integral is split there. */
SL_HD SL_INLINE double sl_ml_disk_ld(double u, double rho, double a1)
{
    const double half_pi = 1.57079632679489661923;
    double edge = sl_ml_disk(u, rho);
    if (a1 == 0.0)
        return edge;
    double in;
    if (u > 0.0 && u < rho) {
        double tk = asin(u / rho);
        in = sl_ml_ld_piece(u, rho, 0.0, tk) + sl_ml_ld_piece(u, rho, tk, half_pi);
    } else {
        in = sl_ml_ld_piece(u, rho, 0.0, half_pi);
    }
    return ((1.0 - a1) * edge + a1 * in) / (1.0 - a1 / 3.0);
}

/* The two-coefficient law of Ling (2013), I(r) = 1 - l1 (1 - mu)
 * - l2 (1 - sqrt mu), mu = sqrt(1 - r^2/rho^2), by the same integration by
 * parts, written in nu = sqrt(mu) (r = rho sqrt(1 - nu^4)), where both
 * terms are smooth (in theta the sqrt term has a 1/sqrt(cos) that the
 * midpoint rule converges on slowly: 5e-4 off at 48 nodes):
 * A = [(1 - l1 - l2) A_disk(u, rho)
 *      + int_0^1 (2 l1 nu + l2)(1 - nu^4) A_disk(u, rho sqrt(1 - nu^4)) dnu]
 *     / (1 - l1/3 - l2/5).
 * The integrand has a kink where rho sqrt(1 - nu^4) = u: split there. */
SL_HD SL_INLINE double sl_ml_ld2_piece(double u, double rho, double l1, double l2, double a,
                                       double b)
{
    const double two_pi = 6.28318530717958647692;
    double sum = 0.0;
    for (int i = 0; i < SL_ML_LD_NODES; i++) {
        double t = (i + 0.5) / SL_ML_LD_NODES;
        double nu = a + (b - a) * (t - sin(two_pi * t) / two_pi);
        double dnu = (b - a) * (1.0 - cos(two_pi * t));
        double n4 = 1.0 - nu * nu * nu * nu;
        sum += (2.0 * l1 * nu + l2) * n4 * sl_ml_disk(u, rho * sqrt(n4)) * dnu;
    }
    return sum / SL_ML_LD_NODES;
}

SL_HD SL_INLINE double sl_ml_disk_ld2(double u, double rho, double l1, double l2)
{
    double edge = sl_ml_disk(u, rho);
    if (l1 == 0.0 && l2 == 0.0)
        return edge;
    double in;
    if (u > 0.0 && u < rho) {
        double nk = sqrt(sqrt(1.0 - (u / rho) * (u / rho)));
        in = sl_ml_ld2_piece(u, rho, l1, l2, 0.0, nk) + sl_ml_ld2_piece(u, rho, l1, l2, nk, 1.0);
    } else {
        in = sl_ml_ld2_piece(u, rho, l1, l2, 0.0, 1.0);
    }
    return ((1.0 - l1 - l2) * edge + in) / (1.0 - l1 / 3.0 - l2 / 5.0);
}
#endif
