/* The microlensing plugin: the table, the checks every batch passes before
 * any work, and the CPU backend (OpenMP over model-epoch pairs). The
 * physics is ml_model.h's, shared with ml_cuda.cu. */
#include <math.h>
#include <stdint.h>

#include "ml_caustics.h"
#include "ml_faces.h"
#include "ml_dynamic.h"
#include "ml_internal.h"
#include "ml_model.h"
#include "ml_multi.h"
#include "starling/cancel.h"
#include "starling/likelihood.h"
#include "starling/plugin.h"

/* What each parameter must be, in row order (microlensing.h). */
enum { ML_FINITE = 0, ML_POSITIVE, ML_LIMB };
static const int ml_rule[3][SL_ML_NPAR_MAX] = {
    {ML_FINITE, ML_FINITE, ML_POSITIVE},                                    /* pspl */
    {ML_FINITE, ML_FINITE, ML_POSITIVE, ML_POSITIVE, ML_LIMB},              /* fspl */
    {ML_FINITE, ML_FINITE, ML_POSITIVE, ML_POSITIVE, ML_POSITIVE, ML_FINITE} /* binary */
};

/* Model i's parameter k against its rule; the message names both. */
static sl_status ml_check_param(const sl_ml_batch *b, int64_t i, int k)
{
    double v = b->params[i * sl_ml_npar(b->model) + k];
    int rule = ml_rule[b->model][k];
    const char *want = NULL;
    if (!isfinite(v))
        want = "a finite number";
    else if (rule == ML_POSITIVE && !(v > 0.0))
        want = "a number > 0";
    else if (rule == ML_LIMB && !(v >= 0.0 && v < 1.0))
        want = "a linear limb-darkening coefficient in [0, 1)";
    if (!want)
        return SL_OK;
    return sl_fail(SL_ERR_ARG, "microlensing: model %lld (%s): %s = %g: expected %s",
                   (long long)i + 1, sl_ml_model_name(b->model),
                   sl_ml_param_name(b->model, k), v, want);
}

static sl_status ml_check(const sl_ml_batch *b, const double *A)
{
    if (!b || !A)
        return sl_fail(SL_ERR_ARG, "microlensing: no batch or no output");
    if (b->model < SL_ML_PSPL || b->model > SL_ML_BINARY_PS)
        return sl_fail(SL_ERR_ARG, "microlensing: model kind %d: expected pspl, fspl or binary",
                       (int)b->model);
    if (b->n_models < 1 || !b->params)
        return sl_fail(SL_ERR_ARG, "microlensing: %lld models: expected at least one",
                       (long long)b->n_models);
    if (b->n_t < 1 || !b->t)
        return sl_fail(SL_ERR_ARG, "microlensing: %lld epochs: expected at least one",
                       (long long)b->n_t);
    if (b->n_models > INT64_MAX / b->n_t)
        return sl_fail(SL_ERR_ARG, "microlensing: %lld models x %lld epochs: too many",
                       (long long)b->n_models, (long long)b->n_t);
    for (int64_t j = 0; j < b->n_t; j++)
        if (!isfinite(b->t[j]))
            return sl_fail(SL_ERR_ARG, "microlensing: epoch %lld: t = %g: expected a finite time",
                           (long long)j + 1, b->t[j]);
    sl_status st;
    for (int64_t i = 0; i < b->n_models; i++)
        for (int k = 0; k < sl_ml_npar(b->model); k++)
            if ((st = ml_check_param(b, i, k)))
                return st;
    return SL_OK;
}

static void ml_cpu(const sl_backend *be, const sl_ml_batch *b, double *A)
{
    const int npar = sl_ml_npar(b->model);
    const int64_t n = b->n_models * b->n_t;
    (void)be; /* the team is the backend's: sl_backend_open set OpenMP's thread count */
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t k = 0; k < n; k++) {
        if (sl_cancelled())
            continue;
        int64_t i = k / b->n_t, j = k - i * b->n_t;
        A[k] = sl_ml_eval(b->model, b->params + i * npar, b->t[j]);
    }
}

static sl_status ml_magnification(const sl_backend *be, const sl_ml_batch *b, double *A)
{
    sl_status st = ml_check(b, A);
    if (st)
        return st;
    if (be && be->kind == SL_BACKEND_CUDA)
        return sl_ml_cuda_magnification(be, b, A);
    ml_cpu(be, b, A);
    if (sl_cancelled())
        return sl_fail(SL_ERR_CANCELLED, "microlensing: cancelled");
    return SL_OK;
}

static void ml_source_position(const double *p, double t, double *y1, double *y2)
{
    sl_ml_trajectory(t, p[0], p[1], p[2], p[5], y1, y2);
}

static double ml_binary_mag0(double s, double q, double y1, double y2, int *n_images)
{
    return sl_ml_binary_mag0(s, q, y1, y2, n_images);
}

static sl_status ml_multi_mag0(const sl_backend *be, const sl_ml_lenses *L, int64_t n,
                               const double *y1, const double *y2, double *A, int *n_images)
{
    sl_status st = sl_ml_lenses_check(L);
    if (st)
        return st;
    if (L->n > SL_ML_MULTI_MAX)
        return sl_fail(SL_ERR_ARG, "microlensing: multi_mag0: %d lenses: expected 1 to %d (the "
                       "point-source polynomial of n lenses has degree n^2 + 1)", L->n,
                       SL_ML_MULTI_MAX);
    if (n < 0 || (n > 0 && (!y1 || !y2 || !A)))
        return sl_fail(SL_ERR_ARG, "microlensing: multi_mag0: %lld sources: expected n >= 0 and "
                       "y1, y2, A not NULL", (long long)n);
    for (int64_t k = 0; k < n; k++)
        if (!isfinite(y1[k]) || !isfinite(y2[k]))
            return sl_fail(SL_ERR_ARG, "microlensing: multi_mag0: source %lld at (%g, %g): "
                           "expected finite numbers", (long long)k + 1, y1[k], y2[k]);
    if (be && be->kind == SL_BACKEND_CUDA)
        return sl_ml_cuda_multi_mag0(be, L, n, y1, y2, A, n_images);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < n; k++) {
        int m;
        A[k] = sl_ml_multi_mag0(L, y1[k], y2[k], &m);
        if (n_images)
            n_images[k] = m;
    }
    return SL_OK;
}

static const sl_lens ml_table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LENS,
    .name = "microlensing",
    .description = "lens models: point lens (point and finite source), binary lens, 1 to 4 "
                   "point lenses (point source)",
    .magnification = ml_magnification,
    .source_position = ml_source_position,
    .binary_mag0 = ml_binary_mag0,
    .caustics = sl_ml_caustics,
    .caustics_free = sl_ml_caustics_free,
    .binary_lenses = sl_ml_binary_lenses,
    .det_jacobian = sl_ml_det_jacobian,
    .map = sl_ml_map_run,
    .map_free = sl_ml_map_free,
    .map_write_fits = sl_ml_map_write_fits,
    .lightcurves = sl_ml_lightcurves,
    .multi_mag0 = ml_multi_mag0,
    .binary_mag = sl_ml_dyn_binary_mag,
};

extern const sl_likelihood sl_ml_likelihood_table; /* ml_like.c */

static const sl_plugin_table ml_tables[] = {
    {SL_KIND_LENS, "microlensing", &ml_table},
    {SL_KIND_LIKELIHOOD, "microlensing", &sl_ml_likelihood_table},
    {SL_KIND_LUA_FACE, "microlensing", &sl_ml_lua_face},
};

static const sl_plugin ml_plugin = {
    .abi = SL_ABI_VERSION,
    .name = "microlensing",
    .version = "0.1.0",
    .description = "gravitational microlensing: magnifications, maps and light curves, and a "
                   "photometric likelihood, on the CPU and CUDA backends",
    .tables = ml_tables,
    .n_tables = sizeof ml_tables / sizeof ml_tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &ml_plugin; }
