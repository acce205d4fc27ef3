/* Finite-source light curves from a magnification map (ml_track.h): the
 * checks every call passes before any work, and the CPU loop (OpenMP over
 * model-epoch pairs). */
#include <math.h>
#include <stdint.h>

#include "ml_internal.h"
#include "ml_model.h"
#include "ml_track.h"
#include "starling/cancel.h"

/* Source grids wider than this many steps per radius are refused: a
 * source of thousands of pixels wants a coarser map. */
#define ML_TRACK_STEPS_MAX 2000

static const char *const ml_track_names[SL_ML_TRACK_NPAR] = {"t0", "u0", "tE", "alpha", "rho"};

sl_status sl_ml_track_check(const sl_ml_map *m, const sl_ml_tracks *tr, const double *A)
{
    if (!m || !m->A || m->nx < 2 || m->ny < 2)
        return sl_fail(SL_ERR_ARG, "microlensing: lightcurves: no map, or one of fewer than 2 "
                       "pixels a side (bilinear reading needs 2)");
    if (!tr || !A || !tr->params || !tr->t || tr->n_models < 1 || tr->n_t < 1)
        return sl_fail(SL_ERR_ARG, "microlensing: lightcurves: %lld models at %lld epochs: "
                       "expected at least one of each", tr ? (long long)tr->n_models : 0LL,
                       tr ? (long long)tr->n_t : 0LL);
    if (!isfinite(tr->ld1) || !isfinite(tr->ld2) || !(tr->ld1 + tr->ld2 <= 1.0) ||
        !(tr->ld1 >= -1.0 && tr->ld2 >= -1.0))
        return sl_fail(SL_ERR_ARG, "microlensing: lightcurves: limb darkening ld1 = %g, ld2 = "
                       "%g: expected ld1 + ld2 <= 1 (a limb no darker than 0)", tr->ld1, tr->ld2);
    for (int64_t j = 0; j < tr->n_t; j++)
        if (!isfinite(tr->t[j]))
            return sl_fail(SL_ERR_ARG, "microlensing: lightcurves: epoch %lld: t = %g: expected a "
                           "finite time", (long long)j + 1, tr->t[j]);
    sl_ml_grid2 g = {m->A, m->nx, m->ny, m->x0, m->y0, (m->x1 - m->x0) / m->nx,
                     (m->y1 - m->y0) / m->ny};
    for (int64_t i = 0; i < tr->n_models; i++) {
        const double *p = tr->params + i * SL_ML_TRACK_NPAR;
        for (int k = 0; k < SL_ML_TRACK_NPAR; k++) {
            int positive = k == 2 || k == 4;
            if (!isfinite(p[k]) || (positive && !(p[k] > 0.0)))
                return sl_fail(SL_ERR_ARG, "microlensing: lightcurves: model %lld: %s = %g: "
                               "expected %s", (long long)i + 1, ml_track_names[k], p[k],
                               positive ? "a number > 0" : "a finite number");
        }
        if (sl_ml_track_steps(&g, p[4]) > ML_TRACK_STEPS_MAX)
            return sl_fail(SL_ERR_ARG, "microlensing: lightcurves: model %lld: rho = %g spans "
                           "%d map pixels: more than %d; use a coarser map", (long long)i + 1,
                           p[4], sl_ml_track_steps(&g, p[4]), ML_TRACK_STEPS_MAX);
    }
    return SL_OK;
}

sl_status sl_ml_lightcurves(const sl_backend *be, const sl_ml_map *m, const sl_ml_tracks *tr,
                            double *A)
{
    sl_status st = sl_ml_track_check(m, tr, A);
    if (st)
        return st;
    if (be && be->kind == SL_BACKEND_CUDA)
        return sl_ml_cuda_tracks(be, m, tr, A);
    sl_ml_grid2 g = {m->A, m->nx, m->ny, m->x0, m->y0, (m->x1 - m->x0) / m->nx,
                     (m->y1 - m->y0) / m->ny};
    const int64_t n = tr->n_models * tr->n_t;
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t k = 0; k < n; k++) {
        if (sl_cancelled())
            continue;
        int64_t i = k / tr->n_t, j = k - i * tr->n_t;
        const double *p = tr->params + i * SL_ML_TRACK_NPAR;
        double y1, y2;
        sl_ml_trajectory(tr->t[j], p[0], p[1], p[2], p[3], &y1, &y2);
        A[k] = sl_ml_track_point(&g, y1, y2, p[4], tr->ld1, tr->ld2);
    }
    return sl_cancelled() ? sl_fail(SL_ERR_CANCELLED, "microlensing: lightcurves: cancelled")
                          : SL_OK;
}
