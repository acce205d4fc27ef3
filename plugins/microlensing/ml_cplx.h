/* Complex arithmetic for SL_HD code: C99 _Complex is not available under
 * nvcc and C++'s std::complex not in C, so a plain pair of doubles. */
#ifndef STARLING_ML_CPLX_H
#define STARLING_ML_CPLX_H

#include <math.h>
#include "starling/hd.h"

typedef struct sl_cplx {
    double re, im;
} sl_cplx;

SL_HD SL_INLINE sl_cplx sl_c(double re, double im)
{
    sl_cplx z;
    z.re = re;
    z.im = im;
    return z;
}
SL_HD SL_INLINE sl_cplx sl_cadd(sl_cplx a, sl_cplx b) { return sl_c(a.re + b.re, a.im + b.im); }
SL_HD SL_INLINE sl_cplx sl_csub(sl_cplx a, sl_cplx b) { return sl_c(a.re - b.re, a.im - b.im); }
SL_HD SL_INLINE sl_cplx sl_cmul(sl_cplx a, sl_cplx b)
{
    return sl_c(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
SL_HD SL_INLINE sl_cplx sl_cscale(double k, sl_cplx a) { return sl_c(k * a.re, k * a.im); }
SL_HD SL_INLINE sl_cplx sl_cconj(sl_cplx a) { return sl_c(a.re, -a.im); }
SL_HD SL_INLINE double sl_cabs2(sl_cplx a) { return a.re * a.re + a.im * a.im; }
/* sqrt(re^2 + im^2), not hypot: hypot's scaling is a libm call per use,
 * and the values here (Einstein radii, polynomial coefficients of order
 * 1..1e3) are far from overflow. */
SL_HD SL_INLINE double sl_cabs(sl_cplx a) { return sqrt(sl_cabs2(a)); }
/* a / b, scaled (Smith's algorithm) so that neither overflows nor underflows. */
SL_HD SL_INLINE sl_cplx sl_cdiv(sl_cplx a, sl_cplx b)
{
    if (fabs(b.re) >= fabs(b.im)) {
        double r = b.im / b.re, d = b.re + b.im * r;
        return sl_c((a.re + a.im * r) / d, (a.im - a.re * r) / d);
    }
    double r = b.re / b.im, d = b.im + b.re * r;
    return sl_c((a.re * r + a.im) / d, (a.im * r - a.re) / d);
}
/* The principal square root. */
SL_HD SL_INLINE sl_cplx sl_csqrt(sl_cplx a)
{
    double r = sl_cabs(a);
    if (r == 0.0)
        return sl_c(0.0, 0.0);
    double t = sqrt(0.5 * (r + fabs(a.re)));
    if (a.re >= 0.0)
        return sl_c(t, 0.5 * a.im / t);
    return sl_c(0.5 * fabs(a.im) / t, a.im >= 0.0 ? t : -t);
}

#endif
