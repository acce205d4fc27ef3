/* The photometric likelihood "microlensing" (SL_KIND_LIKELIHOOD): light
 * curves in one or more passbands against many lens models at once.
 *
 * Data: a file or columns in memory with time, mag or flux, error and an
 * optional passband (starling/table.h's rules; without a header the
 * columns are time, mag (or flux with phot = "flux"), error[, band], as
 * MulensModel's and the surveys' files are). Magnitudes become fluxes with
 * F = 10^(0.4 (zero_point - mag)), sigma_F = 0.4 ln 10 F sigma_mag, as
 * MulensModel does, and chi^2 is summed in flux.
 *
 * Per model: for each passband the closed-form weighted fit of source and
 * blend flux (ml_phot.h), chi^2 summed over passbands, ln L = -chi^2 / 2.
 * A model outside the domain (tE, rho, s or q not > 0, a value not finite)
 * gets ln L = -inf and chi^2 = +inf rather than an error, so that a sampler
 * may propose freely. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ml_caustics.h"
#include "ml_dynamic.h"
#include "ml_internal.h"
#include "ml_like.h"
#include "ml_phot.h"
#include "starling/cancel.h"
#include "starling/likelihood.h"
#include "starling/nomem.h"
#include "starling/output.h"
#include "starling/params.h"
#include "starling/rng.h"
#include "starling/table.h"

enum { OPT_MODEL, OPT_PHOT, OPT_ZP, OPT_LD, OPT_S, OPT_Q, OPT_RHO_MIN, OPT_RHO_MAX, OPT_PIXEL,
       OPT_RAYS, OPT_SEED, OPT_PARALLAX, OPT_RA, OPT_DEC, OPT_T0_PAR, OPT_TIME_OFFSET,
       OPT_ORBIT, OPT_T0_KEP, OPT_PSET, OPT_FS_FROM, OPT_FS_TO, OPT_ENGINE, OPT_TOL,
       OPT_XALLARAP, N_OPT };

/* in model order: sl_ml_model's, then SL_ML_PHOT_FSBL and SL_ML_PHOT_BINSRC */
static const char *const model_words[] = {"pspl", "fspl", "binary", "fsbl", "binary_source",
                                          NULL};
static const char *const phot_words[] = {"auto", "mag", "flux", NULL};
static const char *const parallax_words[] = {"none", "annual", NULL};
/* in the order of ml_orbit.h's kinds */
static const char *const orbit_words[] = {"none", "linear", "circular", "keplerian", NULL};
/* in the order of the bits SL_ML_PAR_T_EFF | SL_ML_PAR_T_STAR (ml_phot.h) */
static const char *const pset_words[] = {"standard", "t_eff", "t_star", "t_eff,t_star", NULL};
static const char *const engine_words[] = {"maps", "dynamic", NULL};
static const char *const xallarap_words[] = {"none", "circular", NULL};

/* The model's word as the user gave it (fsbl's two engines are one word). */
static const char *model_word(int m)
{
    return m == SL_ML_PHOT_FSBL_DYN ? "fsbl" : model_words[m];
}

static const sl_param options[N_OPT] = {
    {"model", SL_PARAM_WORD, 0, 0, 0, 0,
     "pspl: t0 u0 tE; fspl: t0 u0 tE rho; binary (point source): t0 u0 tE s q alpha; fsbl "
     "(finite-source binary): t0 u0 tE alpha rho with s and q fixed (engine \"maps\"), t0 u0 "
     "tE s q alpha rho with them free (engine \"dynamic\"); binary_source (two point "
     "sources, one point lens): t0 u0 tE t0_2 u0_2 q_flux, q_flux = F_2 / F_1 in every band",
     model_words, NULL},
    {"phot", SL_PARAM_WORD, 0, 0, 0, 0,
     "auto: the header's mag or flux column (no header: mag); mag; flux", phot_words, NULL},
    {"zero_point", SL_PARAM_NUMBER, 22.0, -100.0, 100.0, 0,
     "magnitude of flux 1: F = 10^(0.4 (zero_point - mag))", NULL, NULL},
    {"ld", SL_PARAM_NUMBER, 0.0, 0.0, 0.999, 0,
     "fspl, fsbl: linear limb-darkening coefficient (0: a uniform disk); the passbands "
     "table's ld sets it per passband", NULL, NULL},
    {"s", SL_PARAM_NUMBER, 1.0, 1e-3, 1e3, 0,
     "fsbl: the binary's separation (Einstein radii), held fixed", NULL, "required for fsbl"},
    {"q", SL_PARAM_NUMBER, 1e-3, 1e-9, 1e3, 0,
     "fsbl: the binary's mass ratio, held fixed", NULL, "required for fsbl"},
    {"rho_min", SL_PARAM_NUMBER, 5e-4, 1e-5, 1.0, 0,
     "fsbl: the smallest source radius fitted (sets the maps' pixel)", NULL, NULL},
    {"rho_max", SL_PARAM_NUMBER, 0.01, 1e-5, 1.0, 0,
     "fsbl: the largest source radius fitted (sets the maps' reach beyond the caustics)", NULL,
     NULL},
    {"pixel", SL_PARAM_NUMBER, NAN, 1e-7, 1.0, 0,
     "fsbl: the maps' pixel (Einstein radii)", NULL, "rho_min / 5"},
    {"rays", SL_PARAM_NUMBER, 200.0, 1.0, 1e6, 0,
     "fsbl: rays per map pixel's worth of lens-plane area", NULL, NULL},
    {"seed", SL_PARAM_INTEGER, 1.0, 0.0, 9007199254740992.0, 0,
     "fsbl: the maps' random rays (the same rays on every backend)", NULL, NULL},
    {"parallax", SL_PARAM_WORD, 0, 0, 0, 0,
     "none; annual: the Earth's orbit moves the source's path, parameters pi_E_N and pi_E_E "
     "follow the model's (needs ra, dec)", parallax_words, NULL},
    {"ra", SL_PARAM_NUMBER, NAN, 0.0, 360.0, 0,
     "annual parallax: the event's right ascension (degrees, ICRS/J2000)", NULL,
     "required with parallax"},
    {"dec", SL_PARAM_NUMBER, NAN, -90.0, 90.0, 0,
     "annual parallax: the event's declination (degrees, ICRS/J2000)", NULL,
     "required with parallax"},
    {"t0_par", SL_PARAM_NUMBER, NAN, -1e8, 1e8, 0,
     "annual parallax: the reference time, where the path with parallax touches the straight "
     "one (the data's time scale)", NULL, "the time of the brightest point"},
    {"time_offset", SL_PARAM_NUMBER, 0.0, -1e8, 1e8, 0,
     "annual parallax: added to the data's times to make Julian dates, TDB (2450000 for HJD - "
     "2450000)", NULL, NULL},
    {"orbital_motion", SL_PARAM_WORD, 0, 0, 0, 0,
     "none; linear (model = \"binary\"): the lens pair turns and widens at a steady rate, "
     "parameters ds_dt (Einstein radii a year) and dalpha_dt (degrees a year) follow the "
     "model's and parallax's; circular: a circular orbit through s and s_z (along the line of "
     "sight), parameters ds_dt, dalpha_dt, s_z; keplerian: an ellipse, parameters ds_dt, "
     "dalpha_dt, s_z, ds_z_dt, a_s (semi-major axis over the 3D separation at t0_kep)",
     orbit_words, NULL},
    {"t0_kep", SL_PARAM_NUMBER, NAN, -1e8, 1e8, 0,
     "orbital motion: the time at which s and alpha are the model's (the data's time scale)",
     NULL, "each model's t0"},
    {"parametrization", SL_PARAM_WORD, 0, 0, 0, 0,
     "standard: u0, tE, rho; t_eff: t_eff = u0 tE (days) in u0's place; t_star (fspl, fsbl): "
     "t_star = rho tE (days) in rho's place; t_eff,t_star: both", pset_words, NULL},
    {"fs_from", SL_PARAM_NUMBER, NAN, -1e8, 1e8, 0,
     "fspl: the finite source from this time on (with fs_to; the data's time scale), a point "
     "source before", NULL, "the finite source everywhere"},
    {"fs_to", SL_PARAM_NUMBER, NAN, -1e8, 1e8, 0,
     "fspl: the finite source up to this time (with fs_from), a point source after", NULL,
     "the finite source everywhere"},
    {"engine", SL_PARAM_WORD, 0, 0, 0, 0,
     "fsbl: maps: s and q fixed (options s, q), magnifications read from maps made once for "
     "them, fast for many models of one lens; dynamic: s and q free parameters, each epoch's "
     "finite source by the dynamic engine to 'tol' (point source far from the caustics, "
     "hexadecapole nearer; the CPU backend only)", engine_words, NULL},
    {"tol", SL_PARAM_NUMBER, 1e-3, 1e-6, 0.1, 0,
     "fsbl with engine = \"dynamic\": the magnifications' relative tolerance", NULL, NULL},
    {"xallarap", SL_PARAM_WORD, 0, 0, 0, 0,
     "none; circular: the source on a circular orbit (MulensModel's xallarap), parameters "
     "xi_period (days), xi_semimajor_axis (Einstein radii), xi_Omega_node, xi_inclination and "
     "xi_argument_of_latitude_reference (degrees, at the model's t0, where the path is the "
     "model's own) after the other effects'", xallarap_words, NULL},
};

/* ---- data ------------------------------------------------------------------ */

enum { COL_TIME, COL_MAG, COL_FLUX, COL_ERR, COL_BAND, N_COL };

static const char *const t_names[] = {"time", "t", "hjd", "bjd", "jd", "mjd", "hjd_tdb",
                                      "bjd_tdb", "date", NULL};
static const char *const m_names[] = {"mag", "magnitude", "imag", "vmag", NULL};
static const char *const f_names[] = {"flux", "f", NULL};
static const char *const e_names[] = {"err", "error", "sigma", "mag_err", "err_mag", "magerr",
                                      "e_mag", "flux_err", "err_flux", "e_flux", "fluxerr",
                                      "unc", "uncertainty", NULL};
static const char *const b_names[] = {"band", "passband", "filter", "dataset", "observatory",
                                      "telescope", "tel", "instrument", NULL};

/* phot: 0 auto, 1 mag, 2 flux. Without a header the value is column 2,
 * read as flux only when phot says so. */
static void phot_spec(int phot, sl_table_col cols[N_COL])
{
    cols[COL_TIME] = (sl_table_col){"time", t_names, SL_COL_NUMBER, 1, 0, 1};
    cols[COL_MAG] = (sl_table_col){"mag", m_names, SL_COL_NUMBER, phot == 1, phot == 2 ? -1 : 1,
                                   phot != 2};
    cols[COL_FLUX] = (sl_table_col){"flux", f_names, SL_COL_NUMBER, phot == 2, phot == 2 ? 1 : -1,
                                    phot != 1};
    cols[COL_ERR] = (sl_table_col){"error", e_names, SL_COL_NUMBER, 1, 2, 1};
    cols[COL_BAND] = (sl_table_col){"band", b_names, SL_COL_TEXT, 0, 3, 0};
}

/* An observation before grouping. */
typedef struct ml_obs {
    int band;
    double t, f, w;
    int64_t row;
} ml_obs;

static int cmp_obs(const void *pa, const void *pb)
{
    const ml_obs *a = pa, *b = pb;
    if (a->band != b->band)
        return a->band < b->band ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->f != b->f)
        return a->f < b->f ? -1 : 1;
    if (a->w != b->w)
        return a->w < b->w ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* Passbands numbered by their earliest observation (ties: first named),
 * so that neither the parameters nor the order of the sums depends on the
 * order of the file's rows. */
static sl_status take_bands(const sl_table *tab, sl_ml_phot_ctx *c, ml_obs *o)
{
    const sl_table_column *cb = &tab->col[COL_BAND];
    int64_t n = tab->n_rows;
    if (!cb->present) {
        c->n_band = 1;
        snprintf(c->band_name[0], SL_ML_BAND_NAME, "default");
        for (int64_t i = 0; i < n; i++)
            o[i].band = 0;
        return SL_OK;
    }
    char at[320];
    for (int32_t l = 0; l < cb->n_levels; l++) {
        int64_t i = 0;
        while (cb->code[i] != l)
            i++;
        size_t len = strlen(cb->levels[l]);
        if (len == 0 || len >= SL_ML_BAND_NAME) {
            sl_table_at(tab, COL_BAND, i, at, sizeof at);
            return sl_fail(SL_ERR_ARG, "%s = \"%.40s\": expected a passband name of 1 to %d "
                           "characters", at, cb->levels[l], SL_ML_BAND_NAME - 1);
        }
        if (l == SL_ML_MAX_BAND) {
            sl_table_at(tab, COL_BAND, i, at, sizeof at);
            return sl_fail(SL_ERR_ARG, "%s: passband \"%s\" is the %dth: at most %d are "
                           "supported", at, cb->levels[l], l + 1, SL_ML_MAX_BAND);
        }
    }
    int nb = cb->n_levels, by[SL_ML_MAX_BAND], rank[SL_ML_MAX_BAND];
    double first[SL_ML_MAX_BAND];
    for (int l = 0; l < nb; l++)
        first[l] = INFINITY, by[l] = l;
    for (int64_t i = 0; i < n; i++)
        if (o[i].t < first[cb->code[i]])
            first[cb->code[i]] = o[i].t;
    for (int a = 1; a < nb; a++)
        for (int b = a; b > 0 && first[by[b]] < first[by[b - 1]]; b--) {
            int x = by[b];
            by[b] = by[b - 1], by[b - 1] = x;
        }
    for (int r = 0; r < nb; r++) {
        rank[by[r]] = r;
        snprintf(c->band_name[r], SL_ML_BAND_NAME, "%s", cb->levels[by[r]]);
    }
    c->n_band = nb;
    for (int64_t i = 0; i < n; i++)
        o[i].band = rank[cb->code[i]];
    return SL_OK;
}

/* ---- per-passband options: the data set "passbands" -------------------------------- */

enum { PB_BAND, PB_SCALE, PB_MIN, PB_BLEND, PB_LD, PB_N };

static const char *const pb_band[] = {"band", "passband", "filter", "dataset", NULL};
static const char *const pb_scale[] = {"err_scale", "error_scale", "scale", NULL};
static const char *const pb_min[] = {"err_min", "error_min", "minimum", NULL};
static const char *const pb_blend[] = {"blend", "blend_flux", "fix_blend", NULL};
static const char *const pb_ld[] = {"ld", "limb_darkening", "a1", NULL};

static const sl_table_col pb_cols[PB_N] = {
    {"band", pb_band, SL_COL_TEXT, 1, 0, 0},
    {"err_scale", pb_scale, SL_COL_NUMBER, 0, -1, 0},
    {"err_min", pb_min, SL_COL_NUMBER, 0, -1, 0},
    {"blend", pb_blend, SL_COL_NUMBER, 0, -1, 0},
    {"ld", pb_ld, SL_COL_NUMBER, 0, -1, 0},
};

/* One passband's options: its errors become sqrt((scale e)^2 + min^2) in
 * the data's units (MulensModel's scale_errorbars), its blend flux is
 * held at blend unless that is NaN, and its source's linear limb
 * darkening is ld unless that is NaN (then the option ld). */
typedef struct ml_band_opt {
    char name[SL_ML_BAND_NAME];
    double scale, min, blend, ld;
} ml_band_opt;

typedef struct ml_band_opts {
    int n;
    ml_band_opt b[SL_ML_MAX_BAND];
} ml_band_opts;

/* Row i's value of column col (dflt when the column is absent), checked:
 * PB_POSITIVE > 0, PB_NONNEG >= 0, PB_FLUX finite or NaN (NaN: fitted),
 * PB_COEF in [0, 0.999] or NaN (NaN: the option's). */
enum { PB_POSITIVE, PB_NONNEG, PB_FLUX, PB_COEF };

static sl_status pb_value(const sl_table *tab, int col, int64_t i, double dflt, int kind,
                          const char *want, double *out)
{
    const double v = tab->col[col].present ? tab->col[col].num[i] : dflt;
    *out = v;
    if (kind == PB_POSITIVE ? isfinite(v) && v > 0.0
        : kind == PB_NONNEG ? isfinite(v) && v >= 0.0
        : kind == PB_COEF   ? isnan(v) || (v >= 0.0 && v <= 0.999)
                            : !isinf(v))
        return SL_OK;
    char at[320];
    sl_table_at(tab, col, i, at, sizeof at);
    return sl_fail(SL_ERR_ARG, "passbands: %s = %g: expected %s", at, v, want);
}

/* Reads the passbands' options (none when the data set was not given). */
static sl_status read_band_opts(const sl_data *data, ml_band_opts *o)
{
    memset(o, 0, sizeof *o);
    const sl_data *pd = sl_data_more(data, "passbands");
    if (!pd)
        return SL_OK;
    sl_table_spec spec = {.what = "passband options", .cols = pb_cols, .n_cols = PB_N,
                          .header_required = 1, .can_name = 1};
    sl_table tab;
    sl_status st = sl_table_from_data(pd, &spec, &tab);
    if (st)
        return st;
    char at[320];
    if (tab.n_rows > SL_ML_MAX_BAND)
        st = sl_fail(SL_ERR_ARG, "passbands: %s: %lld rows: at most %d passbands", tab.path,
                     (long long)tab.n_rows, SL_ML_MAX_BAND);
    for (int64_t i = 0; i < tab.n_rows && !st; i++) {
        ml_band_opt *b = &o->b[i];
        const char *name = tab.col[PB_BAND].levels[tab.col[PB_BAND].code[i]];
        sl_table_at(&tab, PB_BAND, i, at, sizeof at);
        for (int64_t j = 0; j < i && !st; j++)
            if (strcmp(o->b[j].name, name) == 0)
                st = sl_fail(SL_ERR_ARG, "passbands: %s = \"%s\": named twice", at, name);
        if (!st && (strlen(name) == 0 || strlen(name) >= SL_ML_BAND_NAME))
            st = sl_fail(SL_ERR_ARG, "passbands: %s = \"%.40s\": expected a passband name of 1 "
                         "to %d characters", at, name, SL_ML_BAND_NAME - 1);
        if (!st)
            snprintf(b->name, sizeof b->name, "%s", name);
        if (!st)
            st = pb_value(&tab, PB_SCALE, i, 1.0, PB_POSITIVE, "a factor > 0", &b->scale);
        if (!st)
            st = pb_value(&tab, PB_MIN, i, 0.0, PB_NONNEG, "an error >= 0 (the data's units)",
                          &b->min);
        if (!st)
            st = pb_value(&tab, PB_BLEND, i, NAN, PB_FLUX, "a flux, or nan to fit it",
                          &b->blend);
        if (!st)
            st = pb_value(&tab, PB_LD, i, NAN, PB_COEF,
                          "a linear limb-darkening coefficient in [0, 0.999], or nan for the "
                          "option ld", &b->ld);
        o->n = (int)i + 1;
    }
    sl_table_free(&tab);
    return st;
}

/* The option row of the passband named `name`, or NULL. */
static const ml_band_opt *band_opt(const ml_band_opts *o, const char *name)
{
    for (int k = 0; o && k < o->n; k++)
        if (strcmp(o->b[k].name, name) == 0)
            return &o->b[k];
    return NULL;
}

/* The data's passband named `name`, or -1. */
static int band_index(const sl_ml_phot_ctx *c, const char *name)
{
    for (int b = 0; b < c->n_band; b++)
        if (strcmp(name, c->band_name[b]) == 0)
            return b;
    return -1;
}

/* The data's passbands as "\"I\", \"V\"" into list, for messages. */
static void band_list(const sl_ml_phot_ctx *c, char *list, size_t cap)
{
    size_t u = 0;
    list[0] = '\0';
    for (int b = 0; b < c->n_band && u < cap; b++)
        u += (size_t)snprintf(list + u, cap - u, "%s\"%s\"", b ? ", " : "", c->band_name[b]);
}

/* Every passband the options name is in the data; the blends held into c. */
static sl_status bind_band_opts(const ml_band_opts *o, sl_ml_phot_ctx *c)
{
    for (int b = 0; b < SL_ML_MAX_BAND; b++)
        c->fb_fixed[b] = NAN, c->ld_band[b] = c->ld;
    for (int k = 0; k < o->n; k++) {
        if (isnan(o->b[k].ld))
            continue;
        const int m = c->model;
        const char *why = m == SL_ML_PHOT_FSBL
                              ? "the maps are made for one limb darkening (the option ld); "
                                "engine = \"dynamic\" takes it per passband"
                          : sl_ml_phot_rho_slot(m) < 0
                              ? "limb darkening needs a finite source, model = \"fspl\" or "
                                "\"fsbl\""
                              : NULL;
        if (why)
            return sl_fail(SL_ERR_ARG, "passbands: \"%s\": ld = %g (model = \"%s\"): %s",
                           o->b[k].name, o->b[k].ld, model_word(m), why);
    }
    for (int k = 0; k < o->n; k++) {
        const int found = band_index(c, o->b[k].name);
        if (found < 0) {
            char list[SL_ML_MAX_BAND * (SL_ML_BAND_NAME + 4)];
            band_list(c, list, sizeof list);
            return sl_fail(SL_ERR_ARG, "passbands: \"%s\" is not among the data's passbands "
                           "(%s)", o->b[k].name, list);
        }
        c->fb_fixed[found] = o->b[k].blend;
        if (!isnan(o->b[k].ld))
            c->ld_band[found] = o->b[k].ld;
    }
    return SL_OK;
}

/* The value and error of row i as a flux and its weight. */
static sl_status take_row(const sl_table *tab, const sl_ml_phot_ctx *c, const ml_band_opts *bo,
                          int64_t i, ml_obs *o)
{
    char at[320];
    double v = tab->col[c->mag ? COL_MAG : COL_FLUX].num[i], e = tab->col[COL_ERR].num[i];
    if (!(e > 0.0)) {
        sl_table_at(tab, COL_ERR, i, at, sizeof at);
        return sl_fail(SL_ERR_ARG, "%s = %g: expected an error > 0", at, e);
    }
    const sl_table_column *cb = &tab->col[COL_BAND];
    const ml_band_opt *opt = band_opt(bo, cb->present ? cb->levels[cb->code[i]] : "default");
    if (opt)
        e = sqrt(opt->scale * e * opt->scale * e + opt->min * opt->min);
    double f = v, sf = e;
    if (c->mag) {
        f = pow(10.0, 0.4 * (c->zero_point - v));
        sf = 0.4 * log(10.0) * f * e;
    }
    if (!isfinite(f) || !(sf > 0.0) || !isfinite(1.0 / (sf * sf))) {
        sl_table_at(tab, c->mag ? COL_MAG : COL_FLUX, i, at, sizeof at);
        return sl_fail(SL_ERR_ARG, "%s = %g with error %g: flux %g +- %g is out of range "
                       "(zero_point = %g)", at, v, e, f, sf, c->zero_point);
    }
    o->t = tab->col[COL_TIME].num[i];
    o->f = f;
    o->w = 1.0 / (sf * sf);
    o->row = i;
    return SL_OK;
}

/* Which of mag and flux the data hold, by phot and the columns found. */
static sl_status choose_phot(const sl_table *tab, int phot, sl_ml_phot_ctx *c)
{
    int hm = tab->col[COL_MAG].present, hf = tab->col[COL_FLUX].present;
    if (phot == 1 || phot == 2) {
        c->mag = phot == 1;
        return SL_OK;
    }
    if (hm && hf)
        return sl_fail(SL_ERR_ARG, "%s has both a magnitude column and a flux column: say "
                       "which to fit with phot = \"mag\" or \"flux\"", tab->path);
    if (!hm && !hf)
        return sl_fail(SL_ERR_ARG, "%s has neither a magnitude column (%s, ...) nor a flux "
                       "column (%s, ...)", tab->path, m_names[0], f_names[0]);
    c->mag = hm;
    return SL_OK;
}

/* Groups the observations by band and time, and fixes each band's weighted
 * mean flux, sum of weights and centred sum of squares. */
static sl_status group(const sl_table *tab, sl_ml_phot_ctx *c, ml_obs *o)
{
    size_t n = c->n;
    qsort(o, n, sizeof *o, cmp_obs);
    c->t = malloc(n * sizeof *c->t);
    c->w = malloc(n * sizeof *c->w);
    c->fc = malloc(n * sizeof *c->fc);
    if (!c->t || !c->w || !c->fc)
        return sl_fail_nomem(3.0 * n * sizeof(double), "microlensing: %zu observations", n);
    for (int b = 0; b <= c->n_band; b++)
        c->band_start[b] = (int64_t)n;
    for (size_t k = n; k-- > 0;)
        c->band_start[o[k].band] = (int64_t)k;
    for (int b = 0; b < c->n_band; b++) {
        int64_t k0 = c->band_start[b], k1 = c->band_start[b + 1];
        if (k1 - k0 < 2) {
            char at[320];
            sl_table_at(tab, COL_BAND, o[k0].row, at, sizeof at);
            return sl_fail(SL_ERR_ARG, "%s: passband \"%s\" has %lld observation: expected at "
                           "least 2 to fit its source and blend fluxes", at, c->band_name[b],
                           (long long)(k1 - k0));
        }
        double S = 0.0, SF = 0.0;
        for (int64_t k = k0; k < k1; k++)
            S += o[k].w, SF += o[k].w * o[k].f;
        c->S[b] = S;
        c->fmean[b] = SF / S;
        double sff = 0.0;
        for (int64_t k = k0; k < k1; k++) {
            c->t[k] = o[k].t;
            c->w[k] = o[k].w;
            c->fc[k] = o[k].f - c->fmean[b];
            sff += o[k].w * c->fc[k] * c->fc[k];
        }
        c->sff[b] = sff;
    }
    return SL_OK;
}

static sl_status read_data(const sl_data *d, int phot, const ml_band_opts *bo,
                           sl_ml_phot_ctx *c)
{
    sl_table_col cols[N_COL];
    phot_spec(phot, cols);
    sl_table_spec spec = {.what = "photometry", .cols = cols, .n_cols = N_COL, .can_name = 1};
    sl_table tab;
    sl_status st = sl_table_from_data(d, &spec, &tab);
    if (st)
        return st;
    ml_obs *o = NULL;
    if ((st = choose_phot(&tab, phot, c)))
        goto done;
    if (tab.n_rows < 2) {
        st = sl_fail(SL_ERR_ARG, "%s: %lld observations: expected at least 2", tab.path,
                     (long long)tab.n_rows);
        goto done;
    }
    c->n = (size_t)tab.n_rows;
    if (!(o = malloc(c->n * sizeof *o))) {
        st = sl_fail_nomem((double)c->n * sizeof *o, "microlensing: %zu observations", c->n);
        goto done;
    }
    for (int64_t i = 0; i < tab.n_rows && !st; i++)
        st = take_row(&tab, c, bo, i, &o[i]);
    if (!st && !(st = take_bands(&tab, c, o)))
        st = group(&tab, c, o);
done:
    free(o);
    sl_table_free(&tab);
    return st;
}

/* ---- the table's entries ------------------------------------------------------- */

static void phot_release(void *ctx)
{
    sl_ml_phot_ctx *c = ctx;
    if (!c)
        return;
    sl_ml_phot_cuda_release(c);
    for (int k = 0; k < c->n_maps; k++)
        sl_ml_map_free(&c->map[k]);
    free(c->t), free(c->w), free(c->fc);
    free(c->dn), free(c->de);
    sl_ml_ephemeris_free(&c->eph);
    free(c);
}

static void set_params(sl_ml_phot_ctx *c)
{
    static const char *const names[] = {"t0", "u0", "tE", "s", "q", "alpha"};
    static const char *const fsbl[] = {"t0", "u0", "tE", "alpha", "rho"};
    static const char *const binsrc[] = {"t0", "u0", "tE", "t0_2", "u0_2", "q_flux"};
    c->n_par = sl_ml_phot_npar(c->model);
    const int rho = sl_ml_phot_rho_slot(c->model);
    for (int k = 0; k < c->n_par; k++) {
        c->names[k] = c->model == SL_ML_PHOT_FSBL     ? fsbl[k]
                      : c->model == SL_ML_PHOT_BINSRC ? binsrc[k]
                      : k == rho                      ? "rho"
                                                      : names[k];
        if (k == 1 && (c->pset & SL_ML_PAR_T_EFF))
            c->names[k] = "t_eff";
        if (k == rho && (c->pset & SL_ML_PAR_T_STAR))
            c->names[k] = "t_star";
        c->lo[k] = -INFINITY, c->hi[k] = INFINITY;
    }
    /* t0: within the data's span on either side (an event peaking further
     * out is not constrained by these data); a grid search starts there */
    double t_first = c->t[0], t_last = c->t[0];
    for (size_t k = 1; k < c->n; k++)
        t_first = fmin(t_first, c->t[k]), t_last = fmax(t_last, c->t[k]);
    double span = t_last > t_first ? t_last - t_first : 1.0;
    c->lo[0] = t_first - span, c->hi[0] = t_last + span;
    c->lo[2] = 0.0; /* tE */
    if (c->model == SL_ML_PHOT_BINSRC) { /* t0_2 as t0; q_flux >= 0 */
        c->lo[3] = c->lo[0], c->hi[3] = c->hi[0];
        c->lo[5] = 0.0;
        return;
    }
    if (c->model == SL_ML_PHOT_FSBL) { /* t_star's range is the maps' rho range times tE */
        c->lo[4] = c->pset & SL_ML_PAR_T_STAR ? 0.0 : c->fs.rho_min;
        c->hi[4] = c->pset & SL_ML_PAR_T_STAR ? INFINITY : c->fs.rho_max;
        return;
    }
    for (int k = 3; k < c->n_par && k < 5; k++)
        c->lo[k] = 0.0; /* rho, or s and q */
    if (rho >= 0)
        c->lo[rho] = 0.0;
}

/* Annual parallax's parameters after the model's, and every observation's
 * offsets. t0_par defaults to the brightest point of the band with the
 * most points (fc is F - <F>_w, so its largest value is the brightest). */
static sl_status parallax_setup(const sl_param_values *opt, sl_ml_phot_ctx *c)
{
    c->px = opt->v[OPT_PARALLAX] != 0.0;
    if (!c->px)
        return SL_OK;
    if (isnan(opt->v[OPT_RA]) || isnan(opt->v[OPT_DEC]))
        return sl_fail(SL_ERR_ARG, "microlensing: parallax = \"annual\" needs the event's "
                       "coordinates: ra = %g, dec = %g: expected degrees (ICRS/J2000), e.g. ra = "
                       "269.76, dec = -28.99", opt->v[OPT_RA], opt->v[OPT_DEC]);
    c->time_offset = opt->v[OPT_TIME_OFFSET];
    double t0_par = opt->v[OPT_T0_PAR];
    const char *what = "t0_par (with time_offset)";
    if (isnan(t0_par)) {
        what = "t0_par (the brightest point's time, with time_offset)";
        int big = 0;
        for (int b = 1; b < c->n_band; b++)
            if (c->band_start[b + 1] - c->band_start[b] > c->band_start[big + 1] - c->band_start[big])
                big = b;
        int64_t k_max = c->band_start[big];
        for (int64_t k = k_max; k < c->band_start[big + 1]; k++)
            if (c->fc[k] > c->fc[k_max])
                k_max = k;
        t0_par = c->t[k_max];
    }
    sl_status st = sl_ml_parallax_init(&c->par, opt->v[OPT_RA], opt->v[OPT_DEC],
                                       t0_par + c->time_offset, what);
    if (st)
        return st;
    c->dn = malloc(c->n * sizeof *c->dn);
    c->de = malloc(c->n * sizeof *c->de);
    double *jd = malloc(c->n * sizeof *jd);
    if (!c->dn || !c->de || !jd) {
        free(jd);
        return sl_fail_nomem(3.0 * c->n * sizeof(double), "microlensing: parallax offsets");
    }
    for (size_t k = 0; k < c->n; k++)
        jd[k] = c->t[k] + c->time_offset;
    st = sl_ml_parallax_offsets(&c->par, jd, c->n, c->dn, c->de);
    free(jd);
    if (st)
        return st;
    c->names[c->n_par] = "pi_E_N", c->names[c->n_par + 1] = "pi_E_E";
    for (int k = c->n_par; k < c->n_par + 2; k++)
        c->lo[k] = -INFINITY, c->hi[k] = INFINITY;
    c->n_par += 2;
    return SL_OK;
}

/* The satellite's shift of the offsets (dn, de) at Julian date jd from
 * track k: its geocentric position projected on the sky, subtracted
 * (MulensModel's convention). */
static sl_status satellite_shift(const sl_ml_phot_ctx *c, int k, double jd, const char *what,
                                 double *dn, double *de)
{
    double x[3];
    sl_status st = sl_ml_ephemeris_at(&c->eph, k, jd, what, x);
    if (st)
        return st;
    const double *N = c->par.north, *E = c->par.east;
    *dn -= x[0] * N[0] + x[1] * N[1] + x[2] * N[2];
    *de -= x[0] * E[0] + x[1] * E[1] + x[2] * E[2];
    return SL_OK;
}

/* Satellite parallax: the data set "ephemeris" names the passbands seen
 * from elsewhere than the Earth and where that was; their observations'
 * offsets get the observer's. Needs annual parallax (the Earth's part and
 * the event's direction), and every band it names must be in the data. */
static sl_status satellite_setup(const sl_data *data, sl_ml_phot_ctx *c)
{
    for (int b = 0; b < SL_ML_MAX_BAND; b++)
        c->eph_of[b] = -1;
    const sl_data *ed = sl_data_more(data, "ephemeris");
    if (!ed)
        return SL_OK;
    if (!c->px)
        return sl_fail(SL_ERR_ARG, "microlensing: an ephemeris (satellite parallax) needs "
                       "parallax = \"annual\" with the event's ra and dec");
    sl_status st = sl_ml_ephemeris_read(ed, &c->eph);
    if (st)
        return st;
    for (int k = 0; k < c->eph.n_track; k++) {
        const char *band = c->eph.track[k].band;
        const int found = band[0] ? band_index(c, band) : c->n_band == 1 ? 0 : -1;
        if (found < 0) {
            char list[SL_ML_MAX_BAND * (SL_ML_BAND_NAME + 4)];
            band_list(c, list, sizeof list);
            if (!band[0])
                return sl_fail(SL_ERR_ARG, "ephemeris: %s has no band column and the data have "
                               "%d passbands (%s): expected a column band naming the passband "
                               "seen from the satellite", c->eph.source, c->n_band, list);
            return sl_fail(SL_ERR_ARG, "ephemeris: %s: band \"%s\" is not among the data's "
                           "passbands (%s)", c->eph.source, band, list);
        }
        c->eph_of[found] = k;
        for (int64_t i = c->band_start[found]; i < c->band_start[found + 1] && !st; i++) {
            char what[96];
            snprintf(what, sizeof what, "passband \"%s\", its observation at %.10g",
                     c->band_name[found], c->t[i]);
            st = satellite_shift(c, k, c->t[i] + c->time_offset, what, &c->dn[i], &c->de[i]);
        }
    }
    return st;
}

/* The lens's orbital motion (linear, circular or Keplerian): its
 * parameters after parallax's. A finite-source binary is read from maps made for one s, so it cannot take
 * it; a single lens has no orbit. */
static sl_status orbit_setup(const sl_param_values *opt, sl_ml_phot_ctx *c)
{
    static const char *const names[] = {"ds_dt", "dalpha_dt", "s_z", "ds_z_dt", "a_s"};
    c->om = (int)opt->v[OPT_ORBIT];
    c->t0_kep = opt->v[OPT_T0_KEP];
    if (!c->om) {
        if (opt->given[OPT_T0_KEP])
            return sl_fail(SL_ERR_ARG, "microlensing: 't0_kep' = %g: only orbital_motion = "
                           "\"linear\", \"circular\" or \"keplerian\" takes it", c->t0_kep);
        return SL_OK;
    }
    if (c->model != SL_ML_BINARY_PS)
        return sl_fail(SL_ERR_ARG, "microlensing: orbital_motion = \"%s\" needs model = "
                       "\"binary\" (model = \"%s\"%s)", orbit_words[c->om],
                       model_word(c->model),
                       c->model == SL_ML_PHOT_FSBL ? ": its maps are made for one s" : "");
    const int n = sl_ml_orbit_npar(c->om);
    for (int k = 0; k < n; k++) {
        c->names[c->n_par + k] = names[k];
        c->lo[c->n_par + k] = -INFINITY, c->hi[c->n_par + k] = INFINITY;
    }
    if (c->om == SL_ML_ORBIT_KEPLERIAN) /* a bound orbit */
        c->lo[c->n_par + 4] = 0.5;
    c->n_par += n;
    return SL_OK;
}

/* The source's orbit (xallarap): its five parameters after the other
 * effects'; single sources only (binary_source's second source would need
 * an orbit of its own). */
static sl_status xallarap_setup(const sl_param_values *opt, sl_ml_phot_ctx *c)
{
    static const char *const names[SL_ML_XI_NPAR] = {
        "xi_period", "xi_semimajor_axis", "xi_Omega_node", "xi_inclination",
        "xi_argument_of_latitude_reference"};
    c->xi = (int)opt->v[OPT_XALLARAP];
    c->t0_xi = NAN; /* the model's t0, MulensModel's default t_0_xi */
    if (!c->xi)
        return SL_OK;
    if (c->model == SL_ML_PHOT_BINSRC)
        return sl_fail(SL_ERR_ARG, "microlensing: xallarap = \"circular\": model = "
                       "\"binary_source\" has two sources and xallarap moves one; use a "
                       "single-source model");
    for (int k = 0; k < SL_ML_XI_NPAR; k++) {
        c->names[c->n_par + k] = names[k];
        c->lo[c->n_par + k] = -INFINITY, c->hi[c->n_par + k] = INFINITY;
    }
    c->lo[c->n_par] = 0.0, c->lo[c->n_par + 1] = 0.0; /* period, semi-major axis */
    c->n_par += SL_ML_XI_NPAR;
    return SL_OK;
}

/* ---- fsbl: the maps ------------------------------------------------------------- */

/* Whether boxes a and b (x0, x1, y0, y1) overlap. */
static int boxes_meet(const double *a, const double *b)
{
    return a[0] <= b[1] && b[0] <= a[1] && a[2] <= b[3] && b[2] <= a[3];
}

/* The fsbl options into c->fs, and the maps' specs: each caustic's box
 * grown by SL_ML_FSBL_MARGIN rho_max (and the largest source, and two
 * pixels), boxes that meet merged, each cut into square pixels. Checked
 * here, before any data are read or rays shot. */
static sl_status fsbl_setup(const sl_param_values *opt, sl_ml_phot_ctx *c)
{
    static const int keys[] = {OPT_S, OPT_Q, OPT_RHO_MIN, OPT_RHO_MAX, OPT_PIXEL, OPT_RAYS,
                               OPT_SEED};
    if (c->model != SL_ML_PHOT_FSBL) {
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            if (opt->given[keys[k]] && c->model == SL_ML_PHOT_FSBL_DYN)
                return sl_fail(SL_ERR_ARG, "microlensing: '%s' = %g: model = \"fsbl\" with "
                               "engine = \"dynamic\" fits s and q as free parameters and "
                               "makes no maps (engine = \"maps\" takes '%s')",
                               options[keys[k]].name, opt->v[keys[k]], options[keys[k]].name);
            else if (opt->given[keys[k]])
                return sl_fail(SL_ERR_ARG, "microlensing: '%s' = %g: only model = \"fsbl\" "
                               "takes it (model = \"%s\")", options[keys[k]].name,
                               opt->v[keys[k]], model_word(c->model));
        return SL_OK;
    }
    if (!opt->given[OPT_S] || !opt->given[OPT_Q])
        return sl_fail(SL_ERR_ARG, "microlensing: model = \"fsbl\" needs the binary's 's' and "
                       "'q' (held fixed; the maps are made for them)%s",
                       opt->given[OPT_S] ? ": 'q' is missing" : opt->given[OPT_Q]
                                                                ? ": 's' is missing" : "");
    sl_ml_fsbl *f = &c->fs;
    f->s = opt->v[OPT_S], f->q = opt->v[OPT_Q], f->l1 = c->ld;
    f->rho_min = opt->v[OPT_RHO_MIN], f->rho_max = opt->v[OPT_RHO_MAX];
    if (!(f->rho_min <= f->rho_max))
        return sl_fail(SL_ERR_ARG, "microlensing: rho_min = %g, rho_max = %g: expected rho_min "
                       "<= rho_max", f->rho_min, f->rho_max);
    sl_ml_fsbl_moments(f->l1, &f->w2, &f->w4);
    double pixel = opt->given[OPT_PIXEL] ? opt->v[OPT_PIXEL] : f->rho_min / 5.0;
    sl_ml_lenses L;
    sl_ml_binary_lenses(f->s, f->q, &L);
    sl_ml_caustic_set cs;
    sl_status st = sl_ml_caustics(&L, 256, fmax(pixel, 1e-5), &cs);
    if (st)
        return sl_fail_context(st, "microlensing: fsbl: the caustics of s = %g, q = %g", f->s,
                               f->q);
    double reg[SL_ML_FSBL_MAPS][4], grow = SL_ML_FSBL_MARGIN * f->rho_max + f->rho_max +
                                           2.0 * pixel;
    int n = 0;
    f->n_box = 0;
    for (int k = 0; k < cs.n_curves && n < SL_ML_FSBL_MAPS; k++, n++) {
        memcpy(f->box[f->n_box++], cs.curve[k].box, sizeof cs.curve[k].box);
        const double *b = cs.curve[k].box;
        double r[4] = {b[0] - grow, b[1] + grow, b[2] - grow, b[3] + grow};
        memcpy(reg[n], r, sizeof r);
    }
    int more = cs.n_curves > SL_ML_FSBL_MAPS;
    sl_ml_caustics_free(&cs);
    if (more)
        return sl_fail(SL_ERR_INTERNAL, "microlensing: fsbl: s = %g, q = %g has more than %d "
                       "caustics", f->s, f->q, SL_ML_FSBL_MAPS);
    for (int merged = 1; merged;) { /* until no two regions meet */
        merged = 0;
        for (int a = 0; a < n && !merged; a++)
            for (int b = a + 1; b < n && !merged; b++)
                if (boxes_meet(reg[a], reg[b])) {
                    reg[a][0] = fmin(reg[a][0], reg[b][0]), reg[a][1] = fmax(reg[a][1], reg[b][1]);
                    reg[a][2] = fmin(reg[a][2], reg[b][2]), reg[a][3] = fmax(reg[a][3], reg[b][3]);
                    memmove(reg[b], reg[b + 1], (size_t)(n - b - 1) * sizeof reg[0]);
                    n--, merged = 1;
                }
    }
    for (int k = 0; k < n; k++) {
        double nx = ceil((reg[k][1] - reg[k][0]) / pixel), ny = ceil((reg[k][3] - reg[k][2]) / pixel);
        if (nx > 65536 || ny > 65536)
            return sl_fail(SL_ERR_ARG, "microlensing: fsbl: a map of %.0f x %.0f pixels of %g "
                           "around the caustics of s = %g, q = %g (reaching %g beyond them for "
                           "rho_max = %g): at most 65536 a side; raise 'pixel' or 'rho_min', or "
                           "lower 'rho_max'", nx, ny, pixel, f->s, f->q, grow, f->rho_max);
        sl_ml_map_spec *m = &c->map_spec[k];
        memset(m, 0, sizeof *m);
        m->lenses = L;
        m->x0 = reg[k][0], m->x1 = reg[k][0] + nx * pixel;
        m->y0 = reg[k][2], m->y1 = reg[k][2] + ny * pixel;
        m->nx = (int)nx, m->ny = (int)ny;
        m->rays_per_pixel = opt->v[OPT_RAYS];
        m->seed = (uint64_t)opt->v[OPT_SEED];
    }
    c->n_maps = n;
    return SL_OK;
}

sl_status sl_ml_phot_maps(sl_ml_phot_ctx *c, const sl_backend *be)
{
    if (c->model != SL_ML_PHOT_FSBL || c->maps_made)
        return SL_OK;
    c->map_s = 0.0;
    for (int k = 0; k < c->n_maps; k++) {
        sl_status st = sl_ml_map_run(be, &c->map_spec[k], &c->map[k]);
        if (st) {
            for (int j = 0; j < k; j++)
                sl_ml_map_free(&c->map[j]);
            return sl_fail_context(st, "microlensing: fsbl: map %d of %d (s = %g, q = %g)",
                                   k + 1, c->n_maps, c->fs.s, c->fs.q);
        }
        c->map_s += c->map[k].seconds;
        free(c->map[k].count); /* the reader needs the magnifications only */
        c->map[k].count = NULL;
        const sl_ml_map *m = &c->map[k];
        c->fs.map[k] = (sl_ml_grid2){m->A, m->nx, m->ny, m->x0, m->y0,
                                     (m->x1 - m->x0) / m->nx, (m->y1 - m->y0) / m->ny};
    }
    c->fs.n_maps = c->n_maps;
    c->maps_made = 1;
    return SL_OK;
}

static sl_status phot_prepare(const sl_param_values *opt, const sl_data *data, void **out)
{
    *out = NULL;
    if (!data)
        return sl_fail(SL_ERR_ARG, "microlensing: no data given: expected a file, or columns "
                       "time, mag or flux, error[, band]");
    sl_ml_phot_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return sl_fail_nomem(sizeof *c, "microlensing: likelihood state");
    c->model = (int)opt->v[OPT_MODEL];
    c->pset = (int)opt->v[OPT_PSET];
    const int dyn = opt->v[OPT_ENGINE] == 1.0;
    const char *why = opt->given[OPT_ENGINE] && c->model != SL_ML_PHOT_FSBL
                          ? "'engine': only model = \"fsbl\" takes it"
                      : opt->given[OPT_TOL] && !(c->model == SL_ML_PHOT_FSBL && dyn)
                          ? "'tol': only model = \"fsbl\" with engine = \"dynamic\" takes it"
                          : NULL;
    if (why) {
        int m = c->model;
        free(c);
        return sl_fail(SL_ERR_ARG, "microlensing: %s (model = \"%s\"%s)", why, model_word(m),
                       m == SL_ML_PHOT_FSBL ? ", engine = \"maps\"" : "");
    }
    if (c->model == SL_ML_PHOT_FSBL && dyn)
        c->model = SL_ML_PHOT_FSBL_DYN;
    c->tol = opt->v[OPT_TOL];
    if ((c->pset & SL_ML_PAR_T_STAR) && sl_ml_phot_rho_slot(c->model) < 0) {
        int m = c->model;
        free(c);
        return sl_fail(SL_ERR_ARG, "microlensing: parametrization = \"%s\": t_star needs a "
                       "finite source, model = \"fspl\" or \"fsbl\" (model = \"%s\")",
                       pset_words[(int)opt->v[OPT_PSET]], model_word(m));
    }
    if ((c->pset & SL_ML_PAR_T_EFF) && c->model == SL_ML_PHOT_BINSRC) {
        free(c);
        return sl_fail(SL_ERR_ARG, "microlensing: parametrization = \"%s\": model = "
                       "\"binary_source\" has a u0 for each source; it takes the standard "
                       "parametrization", pset_words[(int)opt->v[OPT_PSET]]);
    }
    c->fs_win[0] = -INFINITY, c->fs_win[1] = INFINITY;
    if (opt->given[OPT_FS_FROM] || opt->given[OPT_FS_TO]) {
        const double a = opt->v[OPT_FS_FROM], b = opt->v[OPT_FS_TO];
        const char *why = c->model != SL_ML_FSPL ? "only model = \"fspl\" takes them"
                          : !opt->given[OPT_FS_FROM] || !opt->given[OPT_FS_TO]
                              ? "expected both"
                          : !(a < b) ? "expected fs_from < fs_to"
                                     : NULL;
        if (why) {
            int m = c->model;
            free(c);
            return sl_fail(SL_ERR_ARG, "microlensing: the finite-source window fs_from = %g, "
                           "fs_to = %g (model = \"%s\"): %s", a, b, model_word(m), why);
        }
        c->fs_win[0] = a, c->fs_win[1] = b;
    }
    c->zero_point = opt->v[OPT_ZP];
    c->ld = opt->v[OPT_LD];
    if (c->ld != 0.0 && sl_ml_phot_rho_slot(c->model) < 0) {
        int m = c->model;
        free(c);
        return sl_fail(SL_ERR_ARG, "microlensing: 'ld' = %g: limb darkening needs model = "
                       "\"fspl\" or \"fsbl\" (model = \"%s\")", opt->v[OPT_LD], model_word(m));
    }
    ml_band_opts bo;
    sl_status st = fsbl_setup(opt, c);
    if (!st)
        st = read_band_opts(data, &bo);
    if (!st)
        st = read_data(data, (int)opt->v[OPT_PHOT], &bo, c);
    if (!st)
        st = bind_band_opts(&bo, c);
    if (st) {
        phot_release(c);
        return st;
    }
    set_params(c);
    if ((st = parallax_setup(opt, c)) || (st = satellite_setup(data, c)) ||
        (st = orbit_setup(opt, c)) || (st = xallarap_setup(opt, c))) {
        phot_release(c);
        return st;
    }
    *out = c;
    return SL_OK;
}

static sl_status phot_params(void *ctx, size_t *n, const char *const **names, const double **lo,
                             const double **hi)
{
    sl_ml_phot_ctx *c = ctx;
    *n = (size_t)c->n_par;
    *names = c->names;
    *lo = c->lo;
    *hi = c->hi;
    return SL_OK;
}

/* chi^2 of band b for one model (row of ml_model.h); its fit into fs, c
 * when they are not NULL. */
/* The model's row as band b sees it: fspl's limb darkening is the band's
 * (the option ld unless the passbands table gives one). */
static void band_row(const sl_ml_phot_ctx *c, const double *row, int b, double *out)
{
    const int n = sl_ml_phot_npar(c->model) + 1;
    memcpy(out, row, (size_t)(n < SL_ML_PHOT_ROW ? n : SL_ML_PHOT_ROW) * sizeof *out);
    if (c->model == SL_ML_FSPL)
        out[4] = c->ld_band[b];
}

static double band_chi2(const sl_ml_phot_ctx *c, const double *row0, const sl_ml_phot_fx *fx,
                        int b, double *fs, double *cc)
{
    double row[SL_ML_PHOT_ROW];
    band_row(c, row0, b, row);
    sl_ml_phot_sums s = {0.0, 0.0, 0.0};
    for (int64_t k = c->band_start[b]; k < c->band_start[b + 1]; k++) {
        double A = sl_ml_phot_mag_fx(c->model, &c->fs, row, fx, c->t[k], c->px ? c->dn[k] : 0.0,
                                     c->px ? c->de[k] : 0.0);
        sl_ml_phot_add(&s, A, c->w[k], c->fc[k]);
    }
    return sl_ml_phot_fit_band(c->S[b], c->sff[b], c->fmean[b], c->fb_fixed[b], &s, fs, cc);
}

static double model_chi2(const sl_ml_phot_ctx *c, const double *row, const sl_ml_phot_fx *fx)
{
    double chi2 = 0.0;
    for (int b = 0; b < c->n_band; b++)
        chi2 += band_chi2(c, row, fx, b, NULL, NULL);
    return chi2;
}

/* The effects (parallax, orbital motion, xallarap) in the model's parameters p. */
static sl_ml_phot_fx fx_of(const sl_ml_phot_ctx *c, const double *p)
{
    return sl_ml_phot_fx_of(c->model, c->px, c->om, c->t0_kep, c->xi, c->t0_xi, c->fs_win, p);
}

/* ---- fsbl with s and q free: the dynamic engine ----------------------------------- */

/* The magnifications A[k] of the model of row (effects fx) at epochs
 * t[k0, k1) (parallax offsets dn, de, or NULL), by the lens b prepared for
 * it, on the calling thread. An epoch short of the tolerance at the
 * engine's deepest level keeps its best estimate; one whose images
 * outgrow the workspace (SL_ML_DYN_FULL) or that finds no memory (-1)
 * ends the walk and is returned. */
static int dyn_epochs(const sl_ml_dyn_binary *b, const double *row, const sl_ml_phot_fx *fx,
                      const double *t, const double *dn, const double *de, int64_t k0,
                      int64_t k1, sl_ml_dyn_ws *ws, double *A)
{
    for (int64_t k = k0; k < k1; k++) {
        double tau, beta, y1, y2, err;
        sl_ml_phot_tb(row, fx, t[k], dn ? dn[k] : 0.0, de ? de[k] : 0.0, &tau, &beta);
        sl_ml_trajectory_tb(tau, beta, row[5], &y1, &y2);
        const int st = sl_ml_dyn_binary_one(b, y1, y2, ws, &A[k], &err, NULL);
        if (st != SL_ML_DYN_OK && st != SL_ML_DYN_DEPTH)
            return st;
    }
    return SL_ML_DYN_OK;
}

/* The model's magnifications at n epochs (limb darkening ld): the lens prepared once, the
 * epochs on the calling thread (threads = 1) or shared among the CPU's
 * (ws then unused: each thread has its own). Returns SL_ML_DYN_OK, a
 * failure of dyn_epochs, or -2 when the lens could not be prepared. */
static int dyn_curve(const sl_ml_phot_ctx *c, const double *row, const sl_ml_phot_fx *fx,
                     double ld, const double *t, const double *dn, const double *de, int64_t n,
                     int threads, sl_ml_dyn_ws *ws, double *A)
{
    sl_ml_dyn_binary b;
    if (sl_ml_dyn_binary_open(row[3], row[4], row[6], ld, c->tol, 0, &b) != SL_OK)
        return -2;
    int st = SL_ML_DYN_OK;
    if (threads <= 1) {
        st = dyn_epochs(&b, row, fx, t, dn, de, 0, n, ws, A);
    } else {
#pragma omp parallel
        {
            sl_ml_dyn_ws own = {0};
            int mine = SL_ML_DYN_OK;
#pragma omp for schedule(dynamic, 8)
            for (int64_t k = 0; k < n; k++)
                if (mine == SL_ML_DYN_OK)
                    mine = dyn_epochs(&b, row, fx, t, dn, de, k, k + 1, &own, A);
            sl_ml_dyn_ws_free(&own);
#pragma omp critical(sl_ml_dyn_curve)
            if (st == SL_ML_DYN_OK)
                st = mine;
        }
    }
    sl_ml_dyn_binary_close(&b);
    return st;
}

/* chi^2 of band b from the model's magnifications A (the band's epochs),
 * its fit into fs, cc when they are not NULL. */
static double sums_chi2(const sl_ml_phot_ctx *c, const double *A, int b, double *fs, double *cc)
{
    sl_ml_phot_sums s = {0.0, 0.0, 0.0};
    for (int64_t k = c->band_start[b]; k < c->band_start[b + 1]; k++)
        sl_ml_phot_add(&s, A[k], c->w[k], c->fc[k]);
    return sl_ml_phot_fit_band(c->S[b], c->sff[b], c->fmean[b], c->fb_fixed[b], &s, fs, cc);
}

/* One model's chi^2 by the engine (+inf outside the domain or where the
 * engine failed; *nomem set when memory ran out). */
static double dyn_chi2(const sl_ml_phot_ctx *c, const double *p, int threads, sl_ml_dyn_ws *ws,
                       double *A, int *nomem)
{
    double row[SL_ML_PHOT_ROW];
    if (!sl_ml_phot_row(c->model, sl_ml_phot_n_fx(c->px, c->om, c->xi), c->pset, p, c->ld, &c->fs,
                        row))
        return INFINITY;
    const sl_ml_phot_fx fx = fx_of(c, p);
    if (!sl_ml_phot_fx_ok(&fx))
        return INFINITY;
    double x2 = 0.0;
    for (int b = 0; b < c->n_band; b++) { /* each band with its limb darkening */
        const int64_t k0 = c->band_start[b], nb = c->band_start[b + 1] - k0;
        const int st = dyn_curve(c, row, &fx, c->ld_band[b], c->t + k0,
                                 c->px ? c->dn + k0 : NULL, c->px ? c->de + k0 : NULL, nb,
                                 threads, ws, A + k0);
        if (st == -1) {
#pragma omp atomic write
            *nomem = 1;
        }
        if (st != SL_ML_DYN_OK)
            return INFINITY;
        x2 += sums_chi2(c, A, b, NULL, NULL);
    }
    return isfinite(x2) ? x2 : INFINITY;
}

/* fsbl with s and q free on the CPU: the models over the threads, or,
 * when there are fewer models than threads, each model's epochs over
 * them. */
static sl_status eval_dyn_cpu(const sl_ml_phot_ctx *c, const double *params, size_t n,
                              double *ll, double *chi2)
{
    int threads = 1, nomem = 0;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    if ((int64_t)n < threads) {
        sl_ml_dyn_ws ws = {0};
        double *A = malloc(c->n * sizeof *A);
        if (!A)
            return sl_fail_nomem((double)c->n * sizeof *A, "microlensing: fsbl: magnifications");
        for (size_t i = 0; i < n && !sl_cancelled(); i++) {
            const double x2 = dyn_chi2(c, params + i * c->n_par, threads, &ws, A, &nomem);
            ll[i] = -0.5 * x2;
            if (chi2)
                chi2[i] = x2;
        }
        free(A);
    } else {
#pragma omp parallel
        {
            sl_ml_dyn_ws ws = {0};
            double *A = malloc(c->n * sizeof *A);
#pragma omp for schedule(dynamic, 1)
            for (long long i = 0; i < (long long)n; i++) {
                if (sl_cancelled())
                    continue;
                double x2 = INFINITY;
                if (A)
                    x2 = dyn_chi2(c, params + (size_t)i * c->n_par, 1, &ws, A, &nomem);
                else {
#pragma omp atomic write
                    nomem = 1;
                }
                ll[i] = -0.5 * x2;
                if (chi2)
                    chi2[i] = x2;
            }
            free(A);
            sl_ml_dyn_ws_free(&ws);
        }
    }
    if (nomem)
        return sl_fail_nomem((double)c->n * sizeof(double), "microlensing: fsbl: the dynamic "
                             "engine's workspace");
    if (sl_cancelled())
        return sl_fail(SL_ERR_CANCELLED, "microlensing: cancelled");
    return SL_OK;
}

static void eval_cpu(const sl_ml_phot_ctx *c, const double *params, size_t n, double *ll,
                     double *chi2)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (long long i = 0; i < (long long)n; i++) {
        if (sl_cancelled())
            continue;
        double row[SL_ML_PHOT_ROW];
        double x2 = INFINITY;
        const double *p = params + (size_t)i * c->n_par;
        if (sl_ml_phot_row(c->model, sl_ml_phot_n_fx(c->px, c->om, c->xi), c->pset, p, c->ld, &c->fs,
                           row)) {
            sl_ml_phot_fx fx = fx_of(c, p);
            if (sl_ml_phot_fx_ok(&fx))
                x2 = model_chi2(c, row, &fx);
        }
        if (!isfinite(x2)) /* NaN from a model the solver could not handle counts as outside */
            x2 = INFINITY;
        ll[i] = -0.5 * x2;
        if (chi2)
            chi2[i] = x2;
    }
}

/* The dynamic engine's refusal of another backend than the CPU's. */
static sl_status dyn_cpu_only(void)
{
    return sl_fail(SL_ERR_UNSUPPORTED, "microlensing: model = \"fsbl\" with engine = "
                   "\"dynamic\" runs on the CPU backend only (backend = \"cpu\"); engine = "
                   "\"maps\" runs on CUDA with s and q fixed");
}

static sl_status phot_eval_chi2(void *ctx, const sl_backend *be, const double *params, size_t n,
                                double *loglik, double *chi2)
{
    sl_ml_phot_ctx *c = ctx;
    if (n == 0)
        return SL_OK;
    if (!params || !loglik)
        return sl_fail(SL_ERR_ARG, "microlensing: eval: params and output must not be NULL");
    c->kernel_s = 0.0;
    sl_backend cpu = {.kind = SL_BACKEND_CPU};
    sl_status st = sl_ml_phot_maps(c, be ? be : &cpu);
    if (st)
        return st;
    if (c->model == SL_ML_PHOT_FSBL_DYN) {
        if (be && be->kind != SL_BACKEND_CPU)
            return dyn_cpu_only();
        return eval_dyn_cpu(c, params, n, loglik, chi2);
    }
    if (be && be->kind == SL_BACKEND_CUDA)
        return sl_ml_phot_cuda_eval(c, be, params, n, loglik, chi2);
    eval_cpu(c, params, n, loglik, chi2);
    if (sl_cancelled())
        return sl_fail(SL_ERR_CANCELLED, "microlensing: cancelled");
    return SL_OK;
}

static sl_status phot_eval(void *ctx, const sl_backend *be, const double *params, size_t n,
                           double *out)
{
    return phot_eval_chi2(ctx, be, params, n, out, NULL);
}

#if SL_HAVE_CUDA
static sl_status phot_eval_device(void *ctx, const double *params, size_t n, const int *count,
                                  double *out, void *stream)
{
    if (((const sl_ml_phot_ctx *)ctx)->model == SL_ML_PHOT_FSBL_DYN)
        return dyn_cpu_only();
    return sl_ml_phot_cuda_eval_device(ctx, params, n, count, out, stream);
}
#endif

/* phot_model for fsbl with s and q free: the magnifications at x (offsets
 * dn, de or NULL), scaled by band `series`'s fit to its data when series
 * >= 0. */
static sl_status dyn_model(const sl_ml_phot_ctx *c, const double *row, const sl_ml_phot_fx *fx,
                           const double *x, size_t n_x, int series, const double *dn,
                           const double *de, double *out)
{
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    double fs = 1.0, fb = 0.0;
    int st = SL_ML_DYN_OK;
    sl_ml_dyn_ws ws = {0};
    if (series >= 0) { /* the band's fit, from the model at the data's epochs */
        double *A = malloc((c->n ? c->n : 1) * sizeof *A);
        if (!A)
            return sl_fail_nomem((double)c->n * sizeof *A, "microlensing: model");
        const int64_t k0 = c->band_start[series], nb = c->band_start[series + 1] - k0;
        st = dyn_curve(c, row, fx, c->ld_band[series], c->t + k0, c->px ? c->dn + k0 : NULL,
                       c->px ? c->de + k0 : NULL, nb, threads, &ws, A + k0);
        double cc = 0.0;
        if (st == SL_ML_DYN_OK) {
            sums_chi2(c, A, series, &fs, &cc);
            fb = c->fmean[series] + cc - fs;
        }
        free(A);
    }
    if (st == SL_ML_DYN_OK)
        st = dyn_curve(c, row, fx, series >= 0 ? c->ld_band[series] : c->ld, x, dn, de,
                       (int64_t)n_x, threads, &ws, out);
    sl_ml_dyn_ws_free(&ws);
    if (st == -1)
        return sl_fail_nomem(0.0, "microlensing: model: the dynamic engine's workspace");
    if (st == -2)
        return sl_fail_context(SL_ERR_ARG, "microlensing: model: the lens s = %g, q = %g",
                               row[3], row[4]);
    if (st != SL_ML_DYN_OK)
        return sl_fail(SL_ERR_UNSUPPORTED, "microlensing: model: s = %g, q = %g, rho = %g: an "
                       "epoch's images outgrow the dynamic engine's workspace", row[3], row[4],
                       row[6]);
    for (size_t k = 0; k < n_x && series >= 0; k++)
        out[k] = fs * out[k] + fb;
    return SL_OK;
}

/* series -1: the magnification; series b: band b's fitted flux
 * f_s A + f_b (the fit to that band's data). */
static sl_status phot_model(void *ctx, const double *p, const double *x, size_t n_x, int series,
                            double *out)
{
    sl_ml_phot_ctx *c = ctx;
    if (series >= c->n_band)
        return sl_fail(SL_ERR_ARG, "microlensing: model: passband %d: expected 0..%d", series,
                       c->n_band - 1);
    double row[SL_ML_PHOT_ROW], fs = 1.0, cc = 0.0;
    if (!sl_ml_phot_row(c->model, sl_ml_phot_n_fx(c->px, c->om, c->xi), c->pset, p, c->ld, &c->fs,
                           row)) {
        char buf[256];
        size_t u = 0;
        for (int k = 0; k < c->n_par; k++)
            u += (size_t)snprintf(buf + u, u < sizeof buf ? sizeof buf - u : 0, "%s%s = %g",
                                  k ? ", " : "", c->names[k], p[k]);
        if (c->model == SL_ML_PHOT_FSBL)
            return sl_fail(SL_ERR_ARG, "microlensing: model: %s is outside the domain (tE > 0, "
                           "rho%s in [rho_min, rho_max] = [%g, %g], all finite)", buf,
                           c->pset & SL_ML_PAR_T_STAR ? " = t_star / tE" : "", c->fs.rho_min,
                           c->fs.rho_max);
        return sl_fail(SL_ERR_ARG, "microlensing: model: %s is outside the domain (tE%s > 0, "
                       "all finite)", buf,
                       c->model == SL_ML_FSPL ? (c->pset & SL_ML_PAR_T_STAR ? ", t_star" : ", rho")
                       : c->model == SL_ML_BINARY_PS ? ", s, q"
                       : c->model == SL_ML_PHOT_BINSRC ? "; q_flux >= 0"
                       : c->model == SL_ML_PHOT_FSBL_DYN
                           ? (c->pset & SL_ML_PAR_T_STAR ? ", s, q, t_star" : ", s, q, rho")
                           : "");
    }
    const sl_ml_phot_fx fx = fx_of(c, p);
    if (!sl_ml_phot_fx_ok(&fx))
        return sl_fail(SL_ERR_ARG, "microlensing: model: xi_period = %g, xi_semimajor_axis = %g "
                       "is outside xallarap's domain (a period > 0, a semi-major axis >= 0)",
                       fx.xi[0], fx.xi[1]);
    double *dn = NULL, *de = NULL;
    if (c->px) { /* the offsets at the times asked for */
        dn = malloc((n_x ? n_x : 1) * sizeof *dn);
        de = malloc((n_x ? n_x : 1) * sizeof *de);
        double *jd = malloc((n_x ? n_x : 1) * sizeof *jd);
        sl_status st = !dn || !de || !jd
                           ? sl_fail_nomem(3.0 * n_x * sizeof(double), "microlensing: model: "
                                           "parallax offsets")
                           : SL_OK;
        for (size_t k = 0; k < n_x && !st; k++)
            jd[k] = x[k] + c->time_offset;
        if (!st)
            st = sl_ml_parallax_offsets(&c->par, jd, n_x, dn, de);
        const int k_eph = series >= 0 ? c->eph_of[series] : -1;
        for (size_t k = 0; k < n_x && !st && k_eph >= 0; k++) {
            char what[96];
            snprintf(what, sizeof what, "model: passband \"%s\", time %zu", c->band_name[series],
                     k + 1);
            st = satellite_shift(c, k_eph, jd[k], what, &dn[k], &de[k]);
        }
        free(jd);
        if (st) {
            free(dn), free(de);
            return st;
        }
    }
    if (c->model == SL_ML_PHOT_FSBL && !c->maps_made) {
        sl_backend be;
        sl_status st = sl_backend_open("auto", &be);
        if (!st)
            st = sl_ml_phot_maps(c, &be);
        if (st)
            return st;
    }
    if (c->model == SL_ML_PHOT_FSBL_DYN) {
        sl_status st = dyn_model(c, row, &fx, x, n_x, series, dn, de, out);
        free(dn), free(de);
        return st;
    }
    double fb = 0.0, rb[SL_ML_PHOT_ROW];
    if (series >= 0) {
        band_chi2(c, row, &fx, series, &fs, &cc);
        fb = c->fmean[series] + cc - fs;
    }
    band_row(c, row, series >= 0 ? series : 0, rb);
    if (series < 0 && c->model == SL_ML_FSPL)
        rb[4] = c->ld; /* the magnification: the option's limb darkening */
    for (size_t k = 0; k < n_x; k++) {
        double A = sl_ml_phot_mag_fx(c->model, &c->fs, rb, &fx, x[k], c->px ? dn[k] : 0.0,
                                     c->px ? de[k] : 0.0);
        out[k] = series >= 0 ? fs * A + fb : A;
    }
    free(dn), free(de);
    return SL_OK;
}

static double phot_last_kernel_s(void *ctx)
{
    return ((const sl_ml_phot_ctx *)ctx)->kernel_s;
}

/* A PSPL event (t0 = 3, u0 = 0.2, tE = 12) seen in I every 0.5 d from -40
 * to 40 d and in V every 2 d, with Gaussian noise: the data check-plugin
 * prepares, in a folder of its own (so replacing a file there is right). */
static sl_status phot_example(const char *path, uint64_t seed)
{
    sl_out o;
    if (sl_out_open(&o, path, SL_OUT_OVERWRITE))
        return sl_fail_context(SL_ERR_IO, "microlensing: example data");
    FILE *f = o.f;
    sl_rng g;
    sl_rng_init(&g, seed, 11);
    fprintf(f, "# a PSPL event: t0 = 3, u0 = 0.2, tE = 12; zero point 22\ntime,mag,err,band\n");
    for (int band = 0; band < 2; band++) {
        double step = band ? 2.0 : 0.5, base = band ? 19.2 : 18.0, fs = band ? 0.6 : 0.8;
        for (double t = -40.0; t <= 40.0; t += step) {
            double tau = (t - 3.0) / 12.0, u2 = tau * tau + 0.04;
            double A = (u2 + 2.0) / sqrt(u2 * (u2 + 4.0));
            double F0 = pow(10.0, 0.4 * (22.0 - base)), F = F0 * (fs * A + 1.0 - fs);
            double m = 22.0 - 2.5 * log10(F), e = 0.01 + 0.01 * sl_rng_uniform(&g);
            double z = sqrt(-2.0 * log(1.0 - sl_rng_uniform(&g))) *
                       cos(6.283185307179586 * sl_rng_uniform(&g));
            fprintf(f, "%.5f,%.5f,%.5f,%s\n", t, m + e * z, e, band ? "V" : "I");
        }
    }
    if (sl_out_commit(&o))
        return sl_fail_context(SL_ERR_IO, "microlensing: example data");
    return SL_OK;
}

/* Further data sets: satellite parallax's observers, where each passband
 * not seen from the Earth was seen from (ml_ephemeris.h); and options per
 * passband (errors rescaled, blend held). */
static const char *const phot_more_data[] = {"ephemeris", "passbands", NULL};

const sl_likelihood sl_ml_likelihood_table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LIKELIHOOD,
    .name = "microlensing",
    .description = "photometry of microlensing events in several passbands: chi^2 with each "
                   "band's source and blend flux fitted in closed form",
    .params = options,
    .n_params = N_OPT,
    .backends = SL_BACKEND_CAN_CPU | (SL_HAVE_CUDA ? SL_BACKEND_CAN_CUDA : 0),
    .precisions = SL_PRECISION_DOUBLE,
    .free_params = phot_params,
    .prepare = phot_prepare,
    .eval_batch = phot_eval,
    .release = phot_release,
    .eval_batch_chi2 = phot_eval_chi2,
    .model = phot_model,
    .last_kernel_s = phot_last_kernel_s,
#if SL_HAVE_CUDA
    .eval_batch_device = phot_eval_device,
#endif
    .example_data = phot_example,
    .more_data = phot_more_data,
};
