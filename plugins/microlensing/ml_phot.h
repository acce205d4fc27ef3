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
 * to rounding) gets f_s = 0 and the constant fit's chi^2 = S_FF; one with a
 * NaN magnification gets a NaN chi^2, which the likelihood counts as
 * outside the domain. */
#ifndef STARLING_ML_PHOT_H
#define STARLING_ML_PHOT_H

#include <math.h>
#include "microlensing.h"
#include "ml_fsbl.h"
#include "ml_model.h"
#include "ml_orbit.h"
#include "ml_xallarap.h"

/* The likelihood's models: microlensing.h's three, the finite-source
 * binary of ml_fsbl.h with s and q fixed by the options (read from maps),
 * two point sources behind one point lens (model "binary_source"), and the
 * finite-source binary with s and q free (model "fsbl" with engine
 * "dynamic": each epoch by ml_dynamic.h on the host, ml_like.c). */
#define SL_ML_PHOT_FSBL 3
#define SL_ML_PHOT_BINSRC 4
#define SL_ML_PHOT_FSBL_DYN 5
/* A model's free parameters at most: a binary's six, parallax's two, a
 * Keplerian orbit's five and xallarap's five. */
#define SL_ML_PHOT_NPAR_MAX (SL_ML_NPAR_MAX + 7 + SL_ML_XI_NPAR)
/* A model's row at most: the finite-source binary's seven. */
#define SL_ML_PHOT_ROW (SL_ML_NPAR_MAX + 1)

/* Free parameters per model kind: pspl t0 u0 tE; fspl t0 u0 tE rho (the
 * limb darkening is an option); binary t0 u0 tE s q alpha; fsbl t0 u0 tE
 * alpha rho; binary_source t0 u0 tE t0_2 u0_2 q_flux (the first source's
 * path, the common tE, the second's path, and F_2 / F_1 in every band);
 * fsbl with s and q free t0 u0 tE s q alpha rho (a binary's row and rho
 * after it). */
SL_HD SL_INLINE int sl_ml_phot_npar(int m)
{
    return m == SL_ML_PSPL             ? 3
           : m == SL_ML_FSPL           ? 4
           : m == SL_ML_PHOT_FSBL      ? 5
           : m == SL_ML_PHOT_FSBL_DYN ? 7
                                       : 6;
}

/* Two point sources behind one lens, fluxes F_1 and q_flux F_1: the
 * magnification of their sum, (A_1 + q_flux A_2) / (1 + q_flux). */
SL_HD SL_INLINE double sl_ml_binsrc_mag(double A1, double A2, double q_flux)
{
    return (A1 + q_flux * A2) / (1.0 + q_flux);
}

/* The slot of rho in a model's row, -1 for a point source. */
SL_HD SL_INLINE int sl_ml_phot_rho_slot(int m)
{
    return m == SL_ML_FSPL ? 3 : m == SL_ML_PHOT_FSBL ? 4 : m == SL_ML_PHOT_FSBL_DYN ? 6 : -1;
}

/* The effects on a model beyond its own parameters, read from the
 * parameters after the model's, in this order: annual parallax (pi_E,N,
 * pi_E,E; the epoch's offsets come from ml_parallax.h), the lens's
 * orbital motion (ml_orbit.h: ds_dt, dalpha_dt[, s_z[, ds_z_dt, a_s]]
 * about t0_kep; a binary's only) and xallarap (ml_xallarap.h: xi_period,
 * xi_semimajor_axis, xi_Omega_node, xi_inclination,
 * xi_argument_of_latitude_reference about t0_xi). */
typedef struct sl_ml_phot_fx {
    const double *pi; /* NULL: no parallax */
    const double *om; /* NULL: the lens does not move */
    double t0_kep;    /* NaN: the model's t0 (MulensModel's default) */
    sl_ml_orbit orb;  /* om's orbit, set up once for the model's epochs */
    const double *xi; /* NULL: no xallarap */
    sl_ml_xi xo;      /* xi's orbit, set up once for the model's epochs */
    /* fspl: the finite source within [fs_from, fs_to] only, a point source
     * outside (-inf, inf: everywhere) */
    double fs_from, fs_to;
} sl_ml_phot_fx;

/* Parameters the effects add to a model's (om: the orbit's kind; xi:
 * xallarap on). */
SL_HD SL_INLINE int sl_ml_phot_n_fx(int px, int om, int xi)
{
    return 2 * (px != 0) + sl_ml_orbit_npar(om) + (xi ? SL_ML_XI_NPAR : 0);
}

/* The effects of the parameters p of a model m (om: the orbit's kind;
 * xi: xallarap on, about t0_xi, NaN for the model's t0; win: fspl's
 * finite-source window). */
SL_HD SL_INLINE sl_ml_phot_fx sl_ml_phot_fx_of(int m, int px, int om, double t0_kep, int xi,
                                               double t0_xi, const double *win,
                                               const double *p)
{
    const double *after = p + sl_ml_phot_npar(m);
    sl_ml_phot_fx fx;
    fx.pi = px ? after : NULL;
    fx.om = om ? after + 2 * (px != 0) : NULL;
    fx.t0_kep = t0_kep;
    fx.xi = xi ? after + 2 * (px != 0) + sl_ml_orbit_npar(om) : NULL;
    if (fx.xi)
        fx.xo = sl_ml_xi_init(fx.xi, isnan(t0_xi) ? p[0] : t0_xi);
    else
        fx.xo.ok = 0;
    fx.fs_from = win[0], fx.fs_to = win[1];
    if (fx.om && m == SL_ML_BINARY_PS)
        fx.orb = sl_ml_orbit_init(om, p[3], fx.om);
    else
        fx.orb.kind = SL_ML_ORBIT_NONE, fx.orb.ok = 0;
    return fx;
}

/* Whether the effects' own parameters are in their domain (xallarap: a
 * period > 0 and a semi-major axis >= 0): a model outside it gets ln L =
 * -inf before any magnification, on both backends alike. */
SL_HD SL_INLINE int sl_ml_phot_fx_ok(const sl_ml_phot_fx *fx)
{
    return !fx->xi || fx->xo.ok;
}

/* The parametrisations (bits of the option `parametrization`): t_eff =
 * u0 tE in u0's place, and t_star = rho tE in rho's. Near the peak of a
 * high-magnification event the data fix t_eff and t_star far better than
 * u0, tE and rho, whose errors are strongly correlated. */
#define SL_ML_PAR_T_EFF 1
#define SL_ML_PAR_T_STAR 2

/* The row for free parameters p (ml_model.h's, or fsbl's own; pset says
 * whether slot 1 holds t_eff and the rho slot t_star; row has room for
 * SL_ML_PHOT_ROW entries), or 0 when p is outside the model's domain (a
 * value not finite, tE, rho, s or q not > 0;
 * fsbl: rho outside the maps' [rho_min, rho_max]). The n_fx effect
 * parameters after the model's must be finite too. */
SL_HD SL_INLINE int sl_ml_phot_row(int m, int n_fx, int pset, const double *p, double ld,
                                   const sl_ml_fsbl *fs, double *row)
{
    int np = sl_ml_phot_npar(m);
    for (int k = np; k < np + n_fx; k++)
        if (!isfinite(p[k]))
            return 0;
    for (int k = 0; k < np; k++) {
        if (!isfinite(p[k]))
            return 0;
        row[k] = p[k];
    }
    if (!(p[2] > 0.0))
        return 0;
    if (pset & SL_ML_PAR_T_EFF)
        row[1] = p[1] / p[2];
    const int rho = sl_ml_phot_rho_slot(m);
    if ((pset & SL_ML_PAR_T_STAR) && rho >= 0)
        row[rho] = p[rho] / p[2];
    if (m == SL_ML_PHOT_FSBL)
        return row[4] >= fs->rho_min && row[4] <= fs->rho_max;
    if (m == SL_ML_PHOT_FSBL_DYN)
        return p[3] > 0.0 && p[4] > 0.0 && row[6] > 0.0;
    if (m == SL_ML_PHOT_BINSRC)
        return p[5] >= 0.0;
    if (m == SL_ML_FSPL) {
        if (!(row[3] > 0.0))
            return 0;
        row[4] = ld;
    } else if (m == SL_ML_BINARY_PS && !(p[3] > 0.0 && p[4] > 0.0)) {
        return 0;
    }
    return 1;
}

/* The source's (tau, beta) at epoch t for the row's t0, u0, tE, moved by
 * the effects fx (NULL: none): by parallax when fx->pi (pi_E,N, pi_E,E)
 * is not NULL, the epoch's offsets dn, de (ml_parallax.h) projected onto
 * the path as MulensModel does, tau += dn pi_N + de pi_E,
 * beta += -dn pi_E + de pi_N; then by xallarap's shift when fx->xi is not
 * NULL (ml_xallarap.h). */
SL_HD SL_INLINE void sl_ml_phot_tb(const double *row, const sl_ml_phot_fx *fx, double t,
                                   double dn, double de, double *tau, double *beta)
{
    *tau = (t - row[0]) / row[2];
    *beta = row[1];
    if (!fx)
        return;
    const double *pi = fx->pi;
    if (pi) {
        *tau += dn * pi[0] + de * pi[1];
        *beta += -dn * pi[1] + de * pi[0];
    }
    if (fx->xi) {
        double dt, db;
        sl_ml_xi_shift(&fx->xo, t, &dt, &db);
        *tau += dt;
        *beta += db;
    }
}

/* fsbl: the source's centre at epoch t on the maps. */
SL_HD SL_INLINE void sl_ml_phot_source(const double *row, const sl_ml_phot_fx *fx, double t,
                                       double dn, double de, double *y1, double *y2)
{
    double tau, beta;
    sl_ml_phot_tb(row, fx, t, dn, de, &tau, &beta);
    sl_ml_trajectory_tb(tau, beta, row[3], y1, y2);
}

/* The binary's s and alpha at epoch t on its orbit (ml_orbit.h; dt in
 * Julian years of 365.25 d from t0_kep, as MulensModel), into a copy of
 * row; 0 when there is no such orbit or s has shrunk to 0 or below. */
SL_HD SL_INLINE int sl_ml_phot_orbit(const double *row, const sl_ml_phot_fx *fx, double t,
                                     double *moved)
{
    for (int k = 0; k < 6; k++)
        moved[k] = row[k];
    double dt = (t - (isnan(fx->t0_kep) ? row[0] : fx->t0_kep)) / 365.25;
    return sl_ml_orbit_at(&fx->orb, dt, row[3], row[5], &moved[3], &moved[5]);
}

/* The magnification of the model of row at epoch t under the effects fx
 * (NULL: none; dn, de: the epoch's parallax offsets). */
SL_HD SL_INLINE double sl_ml_phot_mag_fx(int m, const sl_ml_fsbl *fs, const double *row,
                                         const sl_ml_phot_fx *fx, double t, double dn, double de)
{
    double tau, beta;
    sl_ml_phot_tb(row, fx, t, dn, de, &tau, &beta);
    if (m == SL_ML_PHOT_FSBL) {
        double y1, y2;
        sl_ml_trajectory_tb(tau, beta, row[3], &y1, &y2);
        return sl_ml_fsbl_mag(fs, y1, y2, row[4]);
    }
    if (m == SL_ML_PHOT_BINSRC) { /* the second source: its own t0 and u0, tE and parallax shared */
        const double two[3] = {row[3], row[4], row[2]};
        double tau2, beta2;
        sl_ml_phot_tb(two, fx, t, dn, de, &tau2, &beta2);
        return sl_ml_binsrc_mag(sl_ml_pspl(sqrt(tau * tau + beta * beta)),
                                sl_ml_pspl(sqrt(tau2 * tau2 + beta2 * beta2)), row[5]);
    }
    if (fx && m == SL_ML_FSPL && !(t >= fx->fs_from && t <= fx->fs_to))
        return sl_ml_eval_tb(SL_ML_PSPL, row, tau, beta); /* t0 u0 tE lead both rows */
    if (fx && fx->om && m == SL_ML_BINARY_PS) {
        double moved[SL_ML_NPAR_MAX];
        if (!sl_ml_phot_orbit(row, fx, t, moved))
            return NAN;
        return sl_ml_eval_tb((sl_ml_model)m, moved, tau, beta);
    }
    return sl_ml_eval_tb((sl_ml_model)m, row, tau, beta);
}

/* The magnification of the model of row at epoch t, without effects. */
SL_HD SL_INLINE double sl_ml_phot_mag(int m, const sl_ml_fsbl *fs, const double *row, double t)
{
    return sl_ml_phot_mag_fx(m, fs, row, NULL, t, 0.0, 0.0);
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
    if (isnan(D) || isnan(s->saf)) { /* a magnification the model could not make */
        if (fs)
            *fs = NAN, *c = NAN;
        return NAN;
    }
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

/* chi^2 of the band's best fit with the blend flux held at fb0 (the fit
 * F = f_s A + fb0 has one parameter): with c0 = <F>_w - fb0, A = 1 + a and
 * F = <F>_w + F', the sums are Sxx = S + 2 S_a + S_aa,
 * Sxy = c0 (S + S_a) + S_aF, Syy = c0^2 S + S_FF; f_s = Sxy / Sxx and
 * chi^2 = Syy - f_s Sxy; c as sl_ml_phot_fit's (f_b = <F>_w + c - f_s). */
SL_HD SL_INLINE double sl_ml_phot_fit_blend(double S, double sff, double fmean, double fb0,
                                            const sl_ml_phot_sums *s, double *fs, double *c)
{
    if (isnan(s->saa) || isnan(s->saf)) {
        if (fs)
            *fs = NAN, *c = NAN;
        return NAN;
    }
    const double c0 = fmean - fb0;
    const double sxx = S + 2.0 * s->sa + s->saa, sxy = c0 * (S + s->sa) + s->saf;
    const double syy = c0 * c0 * S + sff;
    const double g = sxx > 0.0 ? sxy / sxx : 0.0;
    if (fs)
        *fs = g, *c = fb0 - fmean + g;
    return syy - g * sxy;
}

/* A band's fit: both fluxes free when fb0 is NaN, else the blend at fb0. */
SL_HD SL_INLINE double sl_ml_phot_fit_band(double S, double sff, double fmean, double fb0,
                                           const sl_ml_phot_sums *s, double *fs, double *c)
{
    return isnan(fb0) ? sl_ml_phot_fit(S, sff, s, fs, c)
                      : sl_ml_phot_fit_blend(S, sff, fmean, fb0, s, fs, c);
}

#endif
