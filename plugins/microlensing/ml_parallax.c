/* Annual parallax offsets from ERFA's Earth ephemeris (ml_parallax.h). */
#include "ml_parallax.h"

#include <erfa.h>
#include <math.h>
#include <stdio.h>

/* ERFA's epv00 is fitted over 1900-2100 (its status 1 outside). */
#define JD_1900 2415020.5
#define JD_2100 2488069.5

static sl_status earth(double jd, double x[3], double v[3], const char *what)
{
    if (!(jd >= JD_1900 && jd <= JD_2100))
        return sl_fail(SL_ERR_ARG, "microlensing: parallax: %s = %.10g: expected a Julian date "
                       "(TDB) in 1900-2100, 2415020.5 .. 2488069.5 (times given as HJD - "
                       "2450000 need time_offset = 2450000)", what, jd);
    double pvh[2][3], pvb[2][3];
    eraEpv00(2400000.5, jd - 2400000.5, pvh, pvb);
    for (int k = 0; k < 3; k++)
        x[k] = pvb[0][k], v[k] = pvb[1][k];
    return SL_OK;
}

sl_status sl_ml_parallax_init(sl_ml_parallax *p, double ra_deg, double dec_deg, double t0_par,
                              const char *what)
{
    if (!(isfinite(ra_deg) && ra_deg >= 0.0 && ra_deg < 360.0))
        return sl_fail(SL_ERR_ARG, "microlensing: parallax: ra = %g: expected degrees in [0, 360)",
                       ra_deg);
    if (!(isfinite(dec_deg) && fabs(dec_deg) < 90.0))
        return sl_fail(SL_ERR_ARG, "microlensing: parallax: dec = %g: expected degrees in "
                       "(-90, 90)", dec_deg);
    const double deg = 3.14159265358979323846 / 180.0;
    const double a = ra_deg * deg, d = dec_deg * deg;
    const double n[3] = {cos(d) * cos(a), cos(d) * sin(a), sin(d)};
    /* east = z x n, normalised; north = n x east */
    double e[3] = {-n[1], n[0], 0.0};
    const double r = sqrt(e[0] * e[0] + e[1] * e[1]);
    for (int k = 0; k < 3; k++)
        p->east[k] = e[k] / r;
    p->north[0] = n[1] * p->east[2] - n[2] * p->east[1];
    p->north[1] = n[2] * p->east[0] - n[0] * p->east[2];
    p->north[2] = n[0] * p->east[1] - n[1] * p->east[0];
    p->t0_par = t0_par;
    return earth(t0_par, p->x_ref, p->v_ref, what);
}

sl_status sl_ml_parallax_offsets(const sl_ml_parallax *p, const double *jd, size_t n, double *dN,
                                 double *dE)
{
    for (size_t k = 0; k < n; k++) {
        double x[3] = {0.0, 0.0, 0.0}, v[3], s[3];
        char what[48];
        snprintf(what, sizeof what, "time %zu (with time_offset)", k + 1);
        sl_status st = earth(jd[k], x, v, what);
        if (st)
            return st;
        for (int i = 0; i < 3; i++)
            s[i] = p->x_ref[i] - x[i] + (jd[k] - p->t0_par) * p->v_ref[i];
        dN[k] = s[0] * p->north[0] + s[1] * p->north[1] + s[2] * p->north[2];
        dE[k] = s[0] * p->east[0] + s[1] * p->east[1] + s[2] * p->east[2];
    }
    return SL_OK;
}
