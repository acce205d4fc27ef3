/* The photometric likelihood's arithmetic, for both backends (SL_HD): a
 * model's free parameters into a row of ml_model.h, the domain test, and
 * per passband the closed-form weighted fit of source and blend flux.
 *
 * Per passband b, with weights w = 1/sigma_F^2, the fit F = f_s A + f_b is
 * solved in centred variables: a = A - 1 and F' = F - <F>_w (the data's
 * weighted mean, fixed at prepare), so that the sums stay small for the
 * baseline's many points and chi^2 does not come out of the difference of
 * two large numbers. With S = sum w, S_a = sum w a, S_aa = sum w a^2,
 * S_aF = sum w a F' and S_FF = sum w F'^2 (sum w F' = 0):
 *   D = S S_aa - S_a^2,  f_s = S S_aF / D,  c = -S_a S_aF / D,
 *   chi^2 = S_FF - S S_aF^2 / D,  f_b = <F>_w + c - f_s.
 * A model whose magnification is the same at every epoch of a band (D = 0
 * to rounding) gets f_s = 0 and the constant fit's chi^2 = S_FF. */
#ifndef STARLING_ML_PHOT_H
#define STARLING_ML_PHOT_H

#include <math.h>
#include "microlensing.h"
#include "ml_model.h"

/* Free parameters per model kind: pspl t0 u0 tE; fspl t0 u0 tE rho (the
 * limb darkening is an option); binary t0 u0 tE s q alpha. */
SL_HD SL_INLINE int sl_ml_phot_npar(sl_ml_model m)
{
    return m == SL_ML_PSPL ? 3 : m == SL_ML_FSPL ? 4 : 6;
}

/* The row of ml_model.h for free parameters p, or 0 when p is outside the
 * model's domain (a value not finite, tE, rho, s or q not > 0). */
SL_HD SL_INLINE int sl_ml_phot_row(sl_ml_model m, const double *p, double ld, double *row)
{
    int np = sl_ml_phot_npar(m);
    for (int k = 0; k < np; k++) {
        if (!isfinite(p[k]))
            return 0;
        row[k] = p[k];
    }
    if (!(p[2] > 0.0))
        return 0;
    if (m == SL_ML_FSPL) {
        if (!(p[3] > 0.0))
            return 0;
        row[4] = ld;
    } else if (m == SL_ML_BINARY_PS && !(p[3] > 0.0 && p[4] > 0.0)) {
        return 0;
    }
    return 1;
}

/* One passband's sums for one model. */
typedef struct sl_ml_phot_sums {
    double sa, saa, saf;
} sl_ml_phot_sums;

SL_HD SL_INLINE void sl_ml_phot_add(sl_ml_phot_sums *s, double A, double w, double fc)
{
    double a = A - 1.0, wa = w * a;
    s->sa += wa;
    s->saa += wa * a;
    s->saf += wa * fc;
}

/* chi^2 of the band's best fit; its f_s and c (f_b = <F>_w + c - f_s)
 * into fs, c when they are not NULL. */
SL_HD SL_INLINE double sl_ml_phot_fit(double S, double sff, const sl_ml_phot_sums *s, double *fs,
                                      double *c)
{
    double D = S * s->saa - s->sa * s->sa;
    if (!(D > 1e-13 * S * s->saa)) {
        if (fs)
            *fs = 0.0, *c = 0.0;
        return sff;
    }
    double g = s->saf / D;
    if (fs)
        *fs = S * g, *c = -s->sa * g;
    return sff - S * s->saf * g;
}

#endif
