/* Annual microlensing parallax: the Earth's pull on the source's apparent
 * path, as the offsets (dN, dE) of each epoch, north and east on the sky
 * at the event, that the models turn into shifts of (tau, beta) with
 * (pi_E,N, pi_E,E) (ml_phot.h). The offsets depend on the epochs, the
 * event's direction and t0_par only, so they are made once on the host
 * and read by both backends.
 *
 * The Earth's barycentric position and velocity come from ERFA's eraEpv00
 * (the SOFA model astropy and MulensModel use: 4.6 km in position and
 * 1.4 mm/s in velocity against JPL's DE405 over 1900-2100). The offset
 * at t is the Earth's position at t0_par less its position at t, plus its
 * velocity at t0_par times t - t0_par (Gould 2004's geocentric frame, in
 * which the source moves in a straight line through t0_par), projected
 * on the sky: east = z x n / |z x n|, north = n x east, n the event's
 * direction (ICRS). Times are TDB Julian dates: BJD, or HJD to a few
 * seconds. */
#ifndef STARLING_ML_PARALLAX_H
#define STARLING_ML_PARALLAX_H

#include <stddef.h>
#include "starling/status.h"

SL_EXTERN_C_BEGIN

/* The event's direction and the reference time: ra, dec in degrees
 * (ICRS), t0_par a Julian date (TDB). */
typedef struct sl_ml_parallax {
    double north[3], east[3];
    double t0_par;
    double x_ref[3], v_ref[3]; /* the Earth at t0_par: AU, AU/day */
} sl_ml_parallax;

/* Sets p up; an error names the value outside 1900-2100 or not finite,
 * t0_par as `what` says. */
sl_status sl_ml_parallax_init(sl_ml_parallax *p, double ra_deg, double dec_deg, double t0_par,
                              const char *what);

/* dN[k], dE[k] (AU) for the Julian dates jd[k] (TDB); an error names the
 * first date outside 1900-2100 or not finite. */
sl_status sl_ml_parallax_offsets(const sl_ml_parallax *p, const double *jd, size_t n, double *dN,
                                 double *dE);

SL_EXTERN_C_END

#endif
