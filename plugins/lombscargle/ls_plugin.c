/* The lombscargle plugin: options, per-object preparation and checks,
 * frequency grids, best frequency, top-k peaks and false-alarm
 * probabilities. The sums themselves run in ls_cpu.c or ls_cuda.cu. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_faces.h"
#include "ls_internal.h"
#include "starling/cancel.h"
#include "starling/nomem.h"
#include "starling/plugin.h"

/* ---- options ----------------------------------------------------------------- */

static const sl_param ls_schema[] = {
    {"f_min", SL_PARAM_NUMBER, 0.0, 0.0, 1e300, 0, "lowest frequency (cycles per unit of t), grid explicit/baseline", NULL, NULL},
    {"f_max", SL_PARAM_NUMBER, 0.0, 0.0, 1e300, 0, "end of the grid, excluded (grid explicit/baseline)", NULL, NULL},
    {"n_f", SL_PARAM_INTEGER, NAN, 1.0, 1e12, 0, "number of frequencies (grid explicit; no default)", NULL, NULL},
    {"samples_per_peak", SL_PARAM_NUMBER, 5.0, 1e-3, 1e6, 0, "autofrequency: grid points per peak width", NULL, NULL},
    {"nyquist_factor", SL_PARAM_NUMBER, 5.0, 1e-6, 1e6, 0, "autofrequency: multiple of the average Nyquist frequency", NULL, NULL},
    {"minimum_frequency", SL_PARAM_NUMBER, NAN, 0.0, 1e300, 0, "autofrequency: lowest frequency (default 0.5 df)", NULL, NULL},
    {"maximum_frequency", SL_PARAM_NUMBER, NAN, 0.0, 1e300, 0, "autofrequency: highest frequency", NULL, NULL},
    {"top_k", SL_PARAM_INTEGER, 0.0, 0.0, 1000.0, 0, "return the k highest distinct peaks per object", NULL, NULL},
    {"full", SL_PARAM_BOOL, 0.0, 0.0, 1.0, 0, "return every power, not only the best", NULL, NULL},
    {"fap", SL_PARAM_BOOL, 0.0, 0.0, 1.0, 0, "Baluev (2008) false-alarm probabilities", NULL, NULL},
    {"fast_order", SL_PARAM_INTEGER, 0.0, 0.0, 64.0, 0, "fast engine: extirpolation points per sample (0: from fast_accuracy)", NULL, NULL},
    {"fast_oversampling", SL_PARAM_NUMBER, 8.0, 1.0, 1024.0, 0, "fast engine: FFT length / n_f", NULL, NULL},
    {"fast_accuracy", SL_PARAM_NUMBER, 1e-10, 1e-15, 0.1, 0, "fast engine: bound on each trigonometric sum's extirpolation error", NULL, NULL},
};
#define LS_N_SCHEMA (sizeof ls_schema / sizeof ls_schema[0])

static sl_status ls_configure(const sl_param_values *pv, sl_ls_options *o)
{
    for (size_t i = 0; i < pv->n; i++) {
        const char *k = pv->schema[i].name;
        double v = pv->v[i];
        if (!pv->given[i] && isnan(v))
            continue;
        if (!strcmp(k, "f_min")) o->f_min = v;
        else if (!strcmp(k, "f_max")) o->f_max = v;
        else if (!strcmp(k, "n_f")) o->n_f = (int64_t)v;
        else if (!strcmp(k, "samples_per_peak")) o->samples_per_peak = v;
        else if (!strcmp(k, "nyquist_factor")) o->nyquist_factor = v;
        else if (!strcmp(k, "minimum_frequency")) o->minimum_frequency = v;
        else if (!strcmp(k, "maximum_frequency")) o->maximum_frequency = v;
        else if (!strcmp(k, "top_k")) o->top_k = (int)v;
        else if (!strcmp(k, "full")) o->full = v != 0;
        else if (!strcmp(k, "fap")) o->fap = v != 0;
        else if (!strcmp(k, "fast_order")) o->fast_order = (int)v;
        else if (!strcmp(k, "fast_oversampling")) o->fast_oversampling = v;
        else if (!strcmp(k, "fast_accuracy")) o->fast_accuracy = v;
        else return sl_fail(SL_ERR_ARG, "unknown key '%s'", k);
    }
    return SL_OK;
}

typedef struct choice {
    const char *key, *name;
    int value;
} choice;

static const choice ls_choices[] = {
    {"method", "generalised", SL_LS_GENERALISED}, {"method", "generalized", SL_LS_GENERALISED},
    {"method", "standard", SL_LS_STANDARD},
    {"normalization", "standard", SL_LS_NORM_STANDARD}, {"normalization", "model", SL_LS_NORM_MODEL},
    {"normalization", "log", SL_LS_NORM_LOG}, {"normalization", "psd", SL_LS_NORM_PSD},
    {"precision", "fp64", SL_LS_FP64}, {"precision", "double", SL_LS_FP64},
    {"precision", "fp32", SL_LS_FP32}, {"precision", "float", SL_LS_FP32},
    {"grid", "auto", SL_LS_GRID_AUTO}, {"grid", "explicit", SL_LS_GRID_EXPLICIT},
    {"grid", "baseline", SL_LS_GRID_BASELINE},
    {"engine", "auto", SL_LS_ENGINE_AUTO}, {"engine", "direct", SL_LS_ENGINE_DIRECT},
    {"engine", "fast", SL_LS_ENGINE_FAST},
    {"transfer", "staged", SL_LS_TRANSFER_STAGED}, {"transfer", "plain", SL_LS_TRANSFER_PLAIN},
    {"transfer", "device", SL_LS_TRANSFER_DEVICE},
};

static sl_status ls_set_choice(sl_ls_options *o, const char *key, const char *value)
{
    const char *k = !strcmp(key, "normalisation") ? "normalization" : key;
    char names[256] = "";
    size_t used = 0;
    int known = 0;
    for (size_t i = 0; i < sizeof ls_choices / sizeof ls_choices[0]; i++) {
        const choice *c = &ls_choices[i];
        if (strcmp(c->key, k))
            continue;
        known = 1;
        if (!strcmp(c->name, value)) {
            if (!strcmp(k, "method")) o->method = (sl_ls_method)c->value;
            else if (!strcmp(k, "normalization")) o->norm = (sl_ls_norm)c->value;
            else if (!strcmp(k, "precision")) o->precision = (sl_ls_precision)c->value;
            else if (!strcmp(k, "grid")) o->grid = (sl_ls_grid_kind)c->value;
            else if (!strcmp(k, "transfer")) o->transfer = (sl_ls_transfer)c->value;
            else o->engine = (sl_ls_engine)c->value;
            return SL_OK;
        }
        used += (size_t)snprintf(names + used, sizeof names - used, "%s\"%s\"", used ? ", " : "",
                                 c->name);
    }
    if (!known)
        return sl_fail(SL_ERR_ARG, "unknown key '%s'", key);
    return sl_fail(SL_ERR_ARG, "key '%s' = \"%s\": expected one of %s", key, value, names);
}

/* Checks that make sense before looking at any object. */
static sl_status check_options(const sl_ls_options *o)
{
    if ((unsigned)o->method > SL_LS_GENERALISED || (unsigned)o->norm > SL_LS_NORM_PSD ||
        (unsigned)o->precision > SL_LS_FP32 || (unsigned)o->grid > SL_LS_GRID_BASELINE ||
        (unsigned)o->engine > SL_LS_ENGINE_FAST || (unsigned)o->transfer > SL_LS_TRANSFER_DEVICE)
        return sl_fail(SL_ERR_ARG, "lombscargle: an option holds an unknown enum value");
    if (o->grid != SL_LS_GRID_AUTO) {
        if (!isfinite(o->f_min) || !isfinite(o->f_max) || o->f_min < 0)
            return sl_fail(SL_ERR_ARG, "lombscargle: f_min = %g, f_max = %g: expected finite "
                           "frequencies with 0 <= f_min < f_max", o->f_min, o->f_max);
        if (o->f_min >= o->f_max)
            return sl_fail(SL_ERR_ARG, "lombscargle: f_min = %g >= f_max = %g: expected f_min < "
                           "f_max", o->f_min, o->f_max);
    }
    if (o->grid == SL_LS_GRID_EXPLICIT && o->n_f < 1)
        return sl_fail(SL_ERR_ARG, "lombscargle: n_f = %lld: expected an integer >= 1 with grid "
                       "\"explicit\"", (long long)o->n_f);
    if (!(o->samples_per_peak > 0) || !(o->nyquist_factor > 0))
        return sl_fail(SL_ERR_ARG, "lombscargle: samples_per_peak = %g, nyquist_factor = %g: "
                       "expected positive numbers", o->samples_per_peak, o->nyquist_factor);
    if (o->minimum_frequency < 0 || o->maximum_frequency <= 0 ||
        o->minimum_frequency >= o->maximum_frequency)
        return sl_fail(SL_ERR_ARG, "lombscargle: minimum_frequency = %g, maximum_frequency = %g: "
                       "expected 0 <= minimum_frequency < maximum_frequency",
                       o->minimum_frequency, o->maximum_frequency);
    if (o->top_k < 0 || o->top_k > 1000)
        return sl_fail(SL_ERR_ARG, "lombscargle: top_k = %d: expected 0 .. 1000", o->top_k);
    if ((o->fast_order != 0 && (o->fast_order < 2 || o->fast_order > SL_LS_FAST_MAX_ORDER)) ||
        !(o->fast_oversampling >= 1.0) || !(o->fast_oversampling <= 1024.0))
        return sl_fail(SL_ERR_ARG, "lombscargle: fast_order = %d, fast_oversampling = %g: "
                       "expected 0 (automatic) or 2 .. %d, and 1 .. 1024", o->fast_order,
                       o->fast_oversampling, SL_LS_FAST_MAX_ORDER);
    if (!(o->fast_accuracy >= 1e-15) || !(o->fast_accuracy <= 0.1))
        return sl_fail(SL_ERR_ARG, "lombscargle: fast_accuracy = %g: expected 1e-15 .. 0.1",
                       o->fast_accuracy);
    /* the FFT is at least fast_oversampling n_f long: the order chosen per
     * object is at most the one for exactly that */
    if (o->fast_order == 0 &&
        !sl_ls_fast_auto_order(2.0 * M_PI / o->fast_oversampling, o->fast_accuracy))
        return sl_fail(SL_ERR_ARG, "lombscargle: fast_accuracy = %g is out of reach at "
                       "fast_oversampling = %g with at most %d extirpolation points: raise "
                       "fast_oversampling (8, the default, reaches any fast_accuracy) or "
                       "fast_accuracy, or set fast_order", o->fast_accuracy,
                       o->fast_oversampling, SL_LS_FAST_MAX_ORDER);
    if (o->transfer == SL_LS_TRANSFER_DEVICE && o->top_k > 0)
        return sl_fail(SL_ERR_ARG, "lombscargle: transfer \"device\" keeps the periodograms on "
                       "the GPU, but top_k = %d needs them on the host", o->top_k);
    return SL_OK;
}

/* ---- per-object preparation --------------------------------------------------- */

/* astropy's autofrequency limits: df = 1 / (baseline samples_per_peak),
 * f_min = 0.5 df unless given, f_max = nyquist_factor * n / (2 baseline)
 * unless given, N_f = 1 + round((f_max - f_min) / df) (half to even, as
 * numpy rounds). */
static void autofrequency(double baseline, int64_t n, double spp, double nyq, double fmin_in,
                          double fmax_in, double *f0, double *df, int64_t *n_f)
{
    *df = 1.0 / baseline / spp;
    *f0 = isnan(fmin_in) ? 0.5 * *df : fmin_in;
    double fmax = isnan(fmax_in) ? nyq * (0.5 * (double)n / baseline) : fmax_in;
    double m = nearbyint((fmax - *f0) / *df);
    *n_f = m >= 0 ? 1 + (int64_t)m : 0;
}

/* Checks one object's points; on a problem returns the flag and the index. */
static sl_ls_flag check_points(const sl_ls_data *d, int64_t i, int64_t *at)
{
    int64_t a = d->offset[i], n = d->offset[i + 1] - a;
    *at = -1;
    if (n < 3)
        return SL_LS_FLAG_TOO_FEW;
    for (int64_t k = 0; k < n; k++) {
        *at = k;
        if (!isfinite(d->t[a + k]) || !isfinite(d->y[a + k]) ||
            (d->dy && !isfinite(d->dy[a + k])))
            return SL_LS_FLAG_NONFINITE;
        if (d->dy && !(d->dy[a + k] > 0))
            return SL_LS_FLAG_BAD_ERROR;
    }
    *at = -1;
    return SL_LS_OK;
}

typedef struct prep {
    sl_ls_job job;
    double *t, *w, *wy;
    float *wf, *wyf;
    double *tvar;   /* weighted variance of t, for the FAP */
    double *base;   /* baseline */
    int cuda;       /* the run's backend is CUDA */
} prep;

static void prep_free(prep *p)
{
    free(p->job.obj);
    free(p->t), free(p->w), free(p->wy), free(p->wf), free(p->wyf);
    free(p->tvar), free(p->base);
    free(p->job.best_p), free(p->job.best_k);
    memset(p, 0, sizeof *p);
}

/* FAST explicitly, or AUTO on the CPU where the direct sum's n_t * n_f
 * work is large (past SL_LS_FAST_MIN_POINTS and SL_LS_FAST_MIN_WORK, where
 * the fast engine is the faster on the CPU). The CUDA
 * backend's AUTO stays direct: its direct sum is fast and exact. */
static int use_fast(const sl_ls_options *o, const sl_ls_obj *ob, int cuda)
{
    if (o->engine == SL_LS_ENGINE_FAST)
        return 1;
    return o->engine == SL_LS_ENGINE_AUTO && !cuda && ob->n >= SL_LS_FAST_MIN_POINTS &&
           (double)ob->n * (double)ob->n_f >= SL_LS_FAST_MIN_WORK;
}

/* Relative times, normalised weights, centred values and the per-object
 * sums astropy's formulas need; flags bad objects. */
static sl_status prepare(const sl_ls_data *d, const sl_ls_options *o, prep *p, sl_ls_result *r)
{
    int64_t n_obj = d->n_obj, n_pts = d->offset[n_obj];
    sl_ls_job *j = &p->job;
    j->n_obj = n_obj;
    j->n_pts = n_pts;
    size_t np = (size_t)(n_pts ? n_pts : 1), no = (size_t)(n_obj ? n_obj : 1);
    j->obj = calloc(no, sizeof *j->obj);
    p->t = malloc(np * sizeof(double));
    p->w = malloc(np * sizeof(double));
    p->wy = malloc(np * sizeof(double));
    p->tvar = calloc(no, sizeof(double));
    p->base = calloc(no, sizeof(double));
    j->best_p = malloc(no * sizeof(double));
    j->best_k = malloc(no * sizeof(int64_t));
    if (o->precision == SL_LS_FP32) {
        p->wf = malloc(np * sizeof(float));
        p->wyf = malloc(np * sizeof(float));
    }
    if (!j->obj || !p->t || !p->w || !p->wy || !p->tvar || !p->base || !j->best_p ||
        !j->best_k || (o->precision == SL_LS_FP32 && (!p->wf || !p->wyf)))
        return sl_fail_nomem((double)np * (3 + (o->precision == SL_LS_FP32)) * sizeof(double) +
                                 (double)no * (sizeof *j->obj + 4 * sizeof(double)),
                             "lombscargle: work arrays for %lld points", (long long)n_pts);
    j->t = p->t, j->w = p->w, j->wy = p->wy, j->wf = p->wf, j->wyf = p->wyf;

    double t_span_max = 0.0;
#pragma omp parallel for schedule(dynamic, 16) reduction(max : t_span_max) if (n_obj > 64)
    for (int64_t i = 0; i < n_obj; i++) {
        sl_ls_obj *ob = &j->obj[i];
        int64_t a = d->offset[i], n = d->offset[i + 1] - a;
        ob->first = a, ob->n = n;
        ob->flag = check_points(d, i, &r->flag_at[i]);
        if (ob->flag)
            continue;
        double tmin = d->t[a], tmax = d->t[a], wsum = 0.0, ysum = 0.0;
        int constant = 1;
        for (int64_t k = 0; k < n; k++) {
            constant &= d->y[a + k] == d->y[a];
            double wk = d->dy ? 1.0 / (d->dy[a + k] * d->dy[a + k]) : 1.0;
            tmin = fmin(tmin, d->t[a + k]);
            tmax = fmax(tmax, d->t[a + k]);
            wsum += wk;
            p->w[a + k] = wk;
        }
        for (int64_t k = 0; k < n; k++) {
            p->w[a + k] /= wsum;
            ysum += p->w[a + k] * d->y[a + k];
        }
        double Y = 0, YY = 0, tm = 0, tt = 0;
        for (int64_t k = 0; k < n; k++) {
            double yc = d->y[a + k] - ysum, wk = p->w[a + k];
            p->t[a + k] = d->t[a + k] - tmin;
            p->wy[a + k] = wk * yc;
            Y += wk * yc;
            YY += wk * yc * yc;
            tm += wk * p->t[a + k];
            tt += wk * p->t[a + k] * p->t[a + k];
            if (p->wf) {
                p->wf[a + k] = (float)wk;
                p->wyf[a + k] = (float)(wk * yc);
            }
        }
        ob->Y = Y, ob->YY = YY, ob->psd = 0.5 * wsum;
        p->tvar[i] = tt - tm * tm;
        p->base[i] = tmax - tmin;
        if (!(tmax > tmin))
            ob->flag = SL_LS_FLAG_BASELINE;
        else if (constant || !(YY > 0)) /* exact test: centring leaves ~1e-32, not 0 */
            ob->flag = SL_LS_FLAG_CONSTANT;
        else
            t_span_max = fmax(t_span_max, tmax - tmin);
    }
    /* grids */
    for (int64_t i = 0; i < n_obj; i++) {
        sl_ls_obj *ob = &j->obj[i];
        if (o->grid == SL_LS_GRID_EXPLICIT) {
            ob->f0 = o->f_min, ob->df = (o->f_max - o->f_min) / (double)o->n_f, ob->n_f = o->n_f;
        } else if (o->grid == SL_LS_GRID_BASELINE) {
            ob->f0 = o->f_min;
            ob->df = t_span_max > 0 ? 0.1 / t_span_max : NAN;
            ob->n_f = t_span_max > 0 ? (int64_t)ceil((o->f_max - o->f_min) / ob->df) : 0;
        } else if (!ob->flag) {
            autofrequency(p->base[i], ob->n, o->samples_per_peak, o->nyquist_factor,
                          o->minimum_frequency, o->maximum_frequency, &ob->f0, &ob->df, &ob->n_f);
        }
        if (!ob->flag && (ob->n_f < 1 || !(ob->df > 0) || ob->f0 < 0))
            ob->flag = SL_LS_FLAG_GRID;
        if (ob->flag)
            ob->n_f = 0;
        ob->fast = !ob->flag && use_fast(o, ob, p->cuda);
        r->flag[i] = (sl_ls_flag)ob->flag;
        r->f0[i] = ob->f0, r->df[i] = ob->df, r->n_f[i] = ob->n_f;
    }
    return SL_OK;
}

/* ---- false-alarm probability (Baluev 2008, as astropy's fap_baluev) ---------- */

static double gamma_ratio(double n)
{
    return sqrt(2.0 / n) * exp(lgamma(n / 2.0) - lgamma((n - 1.0) / 2.0));
}

static double fap_baluev(double z, int64_t n_pts, double fmax, double tvar, int norm)
{
    double N = (double)n_pts, NH = N - 1.0, NK = N - 3.0;
    double W = fmax * sqrt(4.0 * M_PI * tvar);
    double single, tau;
    switch (norm) {
    case SL_LS_NORM_PSD:
        single = exp(-z);
        tau = W * exp(-z) * sqrt(z);
        break;
    case SL_LS_NORM_MODEL:
        single = pow(1.0 + z, -0.5 * NK);
        tau = gamma_ratio(NK) * W * pow(1.0 + z, -0.5 * NK) * sqrt(0.5 * NK * z);
        break;
    case SL_LS_NORM_LOG:
        single = exp(-0.5 * NK * z);
        tau = gamma_ratio(NK) * W * exp(-0.5 * z * (NK - 0.5)) * sqrt(NK * sinh(0.5 * z));
        break;
    default:
        single = pow(1.0 - z, 0.5 * NK);
        tau = gamma_ratio(NH) * W * pow(1.0 - z, 0.5 * (NK - 1.0)) * sqrt(0.5 * NH * z);
    }
    return -expm1(-tau) + single * exp(-tau);
}

/* The frequency limit astropy's false_alarm_probability uses: the top of
 * autofrequency(samples_per_peak, nyquist_factor, minimum, maximum), where
 * explicit grids pass their f_min and f_max. */
static double fap_fmax(const sl_ls_options *o, double baseline, int64_t n)
{
    double f0, df;
    int64_t n_f;
    if (o->grid == SL_LS_GRID_AUTO)
        autofrequency(baseline, n, o->samples_per_peak, o->nyquist_factor, o->minimum_frequency,
                      o->maximum_frequency, &f0, &df, &n_f);
    else
        autofrequency(baseline, n, o->samples_per_peak, o->nyquist_factor, o->f_min, o->f_max,
                      &f0, &df, &n_f);
    return f0 + df * (double)(n_f - 1);
}

/* ---- top-k distinct peaks ------------------------------------------------------ */

static double power_at(const sl_ls_job *j, const sl_ls_obj *o, int64_t k)
{
    return j->power32 ? (double)j->power32[o->out + k] : j->power64[o->out + k];
}

/* Local maxima (higher than the left neighbour, not lower than the right),
 * the k highest, in decreasing power: neighbouring bins of one peak never
 * count twice. */
static void top_peaks(const sl_ls_job *j, const sl_ls_obj *o, int k, double *pf, double *pp)
{
    int64_t idx[1000]; /* top_k <= 1000 (checked with the options) */
    int have = 0;
    for (int64_t q = 0; q < o->n_f; q++) {
        double v = power_at(j, o, q);
        if (!isfinite(v))
            continue;
        double l = q > 0 ? power_at(j, o, q - 1) : -INFINITY;
        double r = q + 1 < o->n_f ? power_at(j, o, q + 1) : -INFINITY;
        if (!(v > l || isnan(l)) || v < r)
            continue;
        if (have == k && v <= pp[k - 1])
            continue;
        int at = have < k ? have++ : k - 1;
        while (at > 0 && pp[at - 1] < v) {
            pp[at] = pp[at - 1];
            idx[at] = idx[at - 1];
            at--;
        }
        pp[at] = v;
        idx[at] = q;
    }
    for (int i = 0; i < k; i++) {
        if (i < have)
            pf[i] = o->f0 + (double)idx[i] * o->df;
        else
            pf[i] = pp[i] = NAN;
    }
}

/* ---- compute ------------------------------------------------------------------- */

static void ls_result_free(sl_ls_result *r)
{
    free(r->flag), free(r->flag_at), free(r->f0), free(r->df), free(r->n_f);
    free(r->best_f), free(r->best_p), free(r->best_fap);
    free(r->peak_f), free(r->peak_p), free(r->peak_fap);
    free(r->power_offset), free(r->power64), free(r->power32);
    if (r->device_power)
        sl_ls_cuda_free(r->device_power);
    memset(r, 0, sizeof *r);
}

static sl_status alloc_result(sl_ls_result *r, int64_t n_obj, int top_k)
{
    size_t n = (size_t)(n_obj ? n_obj : 1);
    memset(r, 0, sizeof *r);
    r->n_obj = n_obj;
    r->top_k = top_k;
    r->flag = calloc(n, sizeof *r->flag);
    r->flag_at = calloc(n, sizeof *r->flag_at);
    r->f0 = calloc(n, sizeof(double));
    r->df = calloc(n, sizeof(double));
    r->n_f = calloc(n, sizeof(int64_t));
    r->best_f = calloc(n, sizeof(double));
    r->best_p = calloc(n, sizeof(double));
    r->best_fap = calloc(n, sizeof(double));
    r->power_offset = calloc(n + 1, sizeof(int64_t));
    int ok = r->flag && r->flag_at && r->f0 && r->df && r->n_f && r->best_f && r->best_p &&
             r->best_fap && r->power_offset;
    if (ok && top_k > 0) {
        r->peak_f = calloc(n * (size_t)top_k, sizeof(double));
        r->peak_p = calloc(n * (size_t)top_k, sizeof(double));
        r->peak_fap = calloc(n * (size_t)top_k, sizeof(double));
        ok = r->peak_f && r->peak_p && r->peak_fap;
    }
    if (!ok) {
        ls_result_free(r);
        return sl_fail_nomem((double)n * (9 * sizeof(double) + 3.0 * top_k * sizeof(double)),
                             "lombscargle: results for %lld objects", (long long)n_obj);
    }
    return SL_OK;
}

static sl_status check_data(const sl_ls_data *d)
{
    if (!d || d->n_obj < 1 || !d->offset || !d->t || !d->y)
        return sl_fail(SL_ERR_ARG, "lombscargle: no light curve given (expected at least one "
                       "object with arrays t and y)");
    if (d->offset[0] != 0)
        return sl_fail(SL_ERR_ARG, "lombscargle: offset[0] = %lld: expected 0",
                       (long long)d->offset[0]);
    for (int64_t i = 0; i < d->n_obj; i++)
        if (d->offset[i + 1] < d->offset[i])
            return sl_fail(SL_ERR_ARG, "lombscargle: offset[%lld] = %lld < offset[%lld] = %lld: "
                           "expected non-decreasing offsets", (long long)i + 1,
                           (long long)d->offset[i + 1], (long long)i, (long long)d->offset[i]);
    return SL_OK;
}

/* Direct sums on the run's backend first, then the fast objects (which
 * set their own best, after the direct pass has reset the others'); the
 * CUDA backend runs its fast objects itself (cuFFT). */
static sl_status run_backend(const sl_backend *be, sl_ls_job *j, int64_t n_fast)
{
    if (be && be->kind == SL_BACKEND_CUDA)
        return sl_ls_cuda_run(j);
    sl_status st = sl_ls_cpu_run(j);
    if (!st && n_fast > 0)
        st = sl_ls_fast_run(j);
    if (!st) /* the fast engine's objects do not poll */
        st = sl_cancel_check("lombscargle");
    return st;
}

static sl_status finish(const sl_ls_data *d, const sl_ls_options *o, prep *p, sl_ls_result *r)
{
    sl_ls_job *j = &p->job;
    for (int64_t i = 0; i < j->n_obj; i++) {
        sl_ls_obj *ob = &j->obj[i];
        r->best_f[i] = r->best_p[i] = r->best_fap[i] = NAN;
        if (ob->flag)
            continue;
        if (j->best_k[i] < 0 || !isfinite(j->best_p[i])) {
            ob->flag = SL_LS_FLAG_NUMERIC;
            r->flag[i] = SL_LS_FLAG_NUMERIC;
            continue;
        }
        r->best_f[i] = ob->f0 + (double)j->best_k[i] * ob->df;
        r->best_p[i] = j->best_p[i];
        double fmax = o->fap ? fap_fmax(o, p->base[i], ob->n) : 0;
        if (o->fap)
            r->best_fap[i] = fap_baluev(r->best_p[i], ob->n, fmax, p->tvar[i], o->norm);
        if (o->top_k > 0) {
            double *pf = r->peak_f + i * o->top_k, *pp = r->peak_p + i * o->top_k;
            top_peaks(j, ob, o->top_k, pf, pp);
            for (int q = 0; q < o->top_k; q++)
                r->peak_fap[i * o->top_k + q] =
                    o->fap && isfinite(pp[q]) ? fap_baluev(pp[q], ob->n, fmax, p->tvar[i], o->norm)
                                              : NAN;
        }
    }
    if (o->top_k > 0)
        for (int64_t i = 0; i < j->n_obj; i++)
            if (j->obj[i].flag)
                for (int q = 0; q < o->top_k; q++)
                    r->peak_f[i * o->top_k + q] = r->peak_p[i * o->top_k + q] =
                        r->peak_fap[i * o->top_k + q] = NAN;
    (void)d;
    return SL_OK;
}

/* A batch of one with a flag fails, naming the point's file and line when
 * the data say where they came from. */
static sl_status single_flag_error(const sl_ls_data *d, const sl_ls_result *r)
{
    int64_t n = d->offset[1] - d->offset[0], k = r->flag_at[0];
    const char *why = sl_ls_flag_name(r->flag[0]);
    if (k >= 0 && d->source && d->line && d->line[d->offset[0] + k] > 0)
        return sl_fail(SL_ERR_ARG, "%s:%lld: %s (point %lld of the light curve's %lld)",
                       d->source, (long long)d->line[d->offset[0] + k], why, (long long)k + 1,
                       (long long)n);
    if (k >= 0)
        return sl_fail(SL_ERR_ARG, "lombscargle: light curve of %lld points: %s at point %lld",
                       (long long)n, why, (long long)k + 1);
    if (d->source)
        return sl_fail(SL_ERR_ARG, "%s: light curve of %lld points: %s", d->source,
                       (long long)n, why);
    return sl_fail(SL_ERR_ARG, "lombscargle: light curve of %lld points: %s", (long long)n, why);
}

static sl_status ls_compute(const sl_backend *be, const sl_ls_data *d, const sl_ls_options *o,
                            sl_ls_result *r)
{
    double t0 = sl_ls_now();
    memset(r, 0, sizeof *r);
    sl_status st = check_data(d);
    if (!st)
        st = check_options(o);
    if (st)
        return st;
    if ((st = alloc_result(r, d->n_obj, o->top_k)))
        return st;
    int cuda = be && be->kind == SL_BACKEND_CUDA;
    if (o->transfer == SL_LS_TRANSFER_DEVICE && !cuda) {
        ls_result_free(r);
        return sl_fail(SL_ERR_ARG, "lombscargle: transfer \"device\" needs the cuda backend "
                       "(this run's is %s)", be ? be->description : "the CPU");
    }
    prep p;
    memset(&p, 0, sizeof p);
    p.cuda = cuda;
    if ((st = prepare(d, o, &p, r)))
        goto fail;
    r->prep_s = sl_ls_now() - t0;
    if (d->n_obj == 1 && r->flag[0]) {
        st = single_flag_error(d, r);
        goto fail;
    }
    sl_ls_job *j = &p.job;
    j->generalised = o->method == SL_LS_GENERALISED;
    j->norm = o->norm;
    j->fp32 = o->precision == SL_LS_FP32;
    j->full = o->full || o->top_k > 0;
    j->fast_order = o->fast_order;
    j->fast_oversampling = o->fast_oversampling;
    j->fast_accuracy = o->fast_accuracy;
    j->transfer = o->transfer;
    int64_t n_fast = 0;
    for (int64_t i = 0; i < d->n_obj; i++)
        n_fast += j->obj[i].fast;
    int64_t total = 0;
    for (int64_t i = 0; i < d->n_obj; i++) {
        j->obj[i].out = total;
        r->power_offset[i] = total;
        total += j->obj[i].n_f;
    }
    r->power_offset[d->n_obj] = total;
    j->n_power = total;
    if (j->full && o->transfer != SL_LS_TRANSFER_DEVICE) {
        size_t bytes = (size_t)(total ? total : 1) * (j->fp32 ? sizeof(float) : sizeof(double));
        if (j->fp32)
            j->power32 = malloc(bytes);
        else
            j->power64 = malloc(bytes);
        if (!j->power32 && !j->power64) {
            st = sl_fail_nomem((double)bytes, "lombscargle: %lld powers", (long long)total);
            goto fail;
        }
    }
    if ((st = run_backend(be, j, n_fast)))
        goto fail;
    finish(d, o, &p, r);
    if (o->full) {
        r->power64 = j->power64, r->power32 = j->power32;
    } else {
        free(j->power64), free(j->power32);
    }
    j->power64 = NULL, j->power32 = NULL;
    r->kernel_s = j->kernel_s;
    r->transfer_s = j->transfer_s;
    r->device_power = j->device_power;
    j->device_power = NULL;
    r->n_fast = n_fast;
    int64_t n_ok = 0;
    for (int64_t i = 0; i < d->n_obj; i++)
        n_ok += !j->obj[i].flag;
    const char *eng = n_fast == 0 ? "direct" : n_fast >= n_ok ? "fast" : "direct+fast";
    snprintf(r->engine, sizeof r->engine, "%s/%s/%s", eng, j->fp32 ? "fp32" : "fp64",
             cuda ? "cuda" : "cpu");
    prep_free(&p);
    r->wall_s = sl_ls_now() - t0;
    return SL_OK;
fail:
    free(p.job.power64), free(p.job.power32);
    if (p.job.device_power)
        sl_ls_cuda_free(p.job.device_power);
    prep_free(&p);
    ls_result_free(r);
    return st;
}

/* ---- the plugin ------------------------------------------------------------------ */

sl_status sl_ls_read(const char *path, int with_id, sl_ls_set **out);
void sl_ls_set_free(sl_ls_set *s);
sl_status sl_ls_read_with(const char *path, const sl_ls_columns *cols, int with_id,
                          sl_ls_set **out);
sl_status sl_ls_read_fits(const char *path, const sl_ls_columns *cols, int with_id,
                          sl_ls_set **out);

const sl_periodogram sl_ls_table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PERIODOGRAM,
    .name = "lombscargle",
    .description = "Lomb-Scargle periodograms (standard and generalised, astropy's "
                   "normalisations), single light curves and batches, FP64/FP32",
    .params = ls_schema,
    .n_params = LS_N_SCHEMA,
    .configure = ls_configure,
    .set_choice = ls_set_choice,
    .compute = ls_compute,
    .result_free = ls_result_free,
    .read = sl_ls_read,
    .set_free = sl_ls_set_free,
    .read_fits = sl_ls_read_fits,
    .read_with = sl_ls_read_with,
};

static const sl_plugin_table ls_tables[] = {
    {SL_KIND_PERIODOGRAM, "lombscargle", &sl_ls_table},
    {SL_KIND_LUA_FACE, "lombscargle", &sl_ls_lua_face},
    {SL_KIND_COMMAND, "ls", &sl_ls_command},
    {SL_KIND_CHECKS, "lombscargle", &sl_ls_check_table},
};

static const sl_plugin ls_plugin = {
    .abi = SL_ABI_VERSION,
    .name = "lombscargle",
    .version = "0.1.0",
    .description = "Lomb-Scargle periodograms on CPU and CUDA",
    .tables = ls_tables,
    .n_tables = sizeof ls_tables / sizeof ls_tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &ls_plugin; }
