/* The standard normal distribution (stats.h). */
#include <math.h>

#include "starling/stats.h"

double sl_norm_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* Acklam's rational approximation (relative error 1.2e-9), then one
 * Halley step on the CDF, which brings it to rounding. */
double sl_norm_quantile(double p)
{
    static const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                -2.759285104469687e+02, 1.383577518672690e+02,
                                -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                -1.556989798598866e+02, 6.680131188771972e+01,
                                -1.328068155288572e+01};
    static const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                -2.400758277161838e+00, -2.549732539343734e+00,
                                4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01,
                                2.445134137142996e+00, 3.754408661907416e+00};
    const double lo = 0.02425;
    if (!(p >= 0.0 && p <= 1.0))
        return NAN;
    if (p == 0.0)
        return -INFINITY;
    if (p == 1.0)
        return INFINITY;
    double x;
    if (p < lo || p > 1.0 - lo) {
        double q = sqrt(-2.0 * log(p < lo ? p : 1.0 - p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
        x = p < lo ? x : -x;
    } else {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
    }
    double e = sl_norm_cdf(x) - p;
    double u = e * 2.5066282746310005024157652848110 * exp(0.5 * x * x);
    return x - u / (1.0 + 0.5 * x * u);
}

/* Below -30, erfc nears underflow; the asymptotic series of the Mills
 * ratio, P(Z <= x) = phi(x) / |x| (1 - 1/x^2 + 3/x^4 - 15/x^6 + ...), is
 * there accurate to rounding through its 1/x^12 term (the next, 135135 /
 * x^14, is 3e-16 at x = -30). */
double sl_norm_logcdf(double x)
{
    if (isnan(x))
        return x;
    if (x > 0.0)
        return log1p(-0.5 * erfc(x / sqrt(2.0)));
    if (x > -30.0)
        return log(0.5 * erfc(-x / sqrt(2.0)));
    double t = 1.0 / (x * x);
    double s = 1.0 - t * (1.0 - 3.0 * t * (1.0 - 5.0 * t * (1.0 - 7.0 * t *
                                                           (1.0 - 9.0 * t * (1.0 - 11.0 * t)))));
    return -0.5 * x * x - log(-x) - 0.91893853320467274178032973640562 + log(s);
}

/* Where exp(l) is a normal double well away from underflow, the quantile;
 * below, Newton's method on sl_norm_logcdf, which is concave and
 * increasing: from the left of the root (-sqrt(-2 l), where ln P is below
 * l by about ln(|x| sqrt(2 pi))) its steps rise monotonically to it. */
double sl_norm_logcdf_quantile(double l)
{
    if (!(l <= 0.0))
        return NAN;
    if (l > -650.0)
        return sl_norm_quantile(exp(l));
    if (isinf(l))
        return -INFINITY;
    double x = -sqrt(-2.0 * l);
    for (int i = 0; i < 60; i++) {
        double lc = sl_norm_logcdf(x);
        double slope = exp(-0.5 * x * x - 0.91893853320467274178032973640562 - lc);
        double dx = (l - lc) / slope;
        x += dx;
        if (fabs(dx) <= 1e-15 * fabs(x))
            break;
    }
    return x;
}
