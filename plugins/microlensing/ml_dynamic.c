/* The dynamic engine's lens made on the host: the binary's critical
 * curves by ml_caustics.c, pointed to by the engine's lens. */
#include "ml_dynamic.h"

#include <string.h>

#include "ml_caustics.h"
#include "starling/status.h"

sl_status sl_ml_dyn_lens_make(double s, double q, double resolution, sl_ml_caustic_set *cs,
                              sl_ml_dyn_lens *out)
{
    memset(out, 0, sizeof *out);
    sl_ml_lenses L;
    sl_ml_binary_lenses(s, q, &L);
    sl_status st = sl_ml_caustics(&L, 64, resolution, cs);
    if (st != SL_OK)
        return st;
    if (cs->n_curves > SL_ML_DYN_CURVES) {
        sl_ml_caustics_free(cs);
        return sl_fail(SL_ERR_INTERNAL, "microlensing: s = %g, q = %g: %d critical curves, "
                       "expected at most %d", s, q, cs->n_curves, SL_ML_DYN_CURVES);
    }
    out->m1 = L.m[0], out->m2 = L.m[1], out->z1 = L.x[0], out->z2 = L.x[1];
    out->n_curves = cs->n_curves;
    for (int c = 0; c < cs->n_curves; c++) {
        const sl_ml_curve *v = &cs->curve[c];
        out->n[c] = v->n;
        out->x[c] = v->x, out->y[c] = v->y, out->cx[c] = v->cx, out->cy[c] = v->cy;
        memcpy(out->box[c], v->box, sizeof out->box[c]);
    }
    return SL_OK;
}

#include <math.h>
#include <stdlib.h>

#include "ml_internal.h"
#include "starling/backend.h"
#include "starling/nomem.h"

/* Workspace cells per thread to begin with, and at most: a source on a
 * caustic of a lens with an Einstein ring's worth of image at rho = 1e-4
 * takes ~10^6 cells of rho / 2. */
#define DYN_CAP0 (1 << 16)
#define DYN_CAP_MAX (1 << 24)

static void ws_free(sl_ml_dyn_ws *ws)
{
    free(ws->keys), free(ws->ci), free(ws->cj);
    ws->keys = NULL, ws->ci = ws->cj = NULL, ws->cap = 0;
}

static int ws_grow(sl_ml_dyn_ws *ws, int cap)
{
    ws_free(ws);
    ws->keys = malloc((size_t)cap * sizeof *ws->keys);
    ws->ci = malloc((size_t)cap * sizeof *ws->ci);
    ws->cj = malloc((size_t)cap * sizeof *ws->cj);
    ws->cap = cap;
    if (ws->keys && ws->ci && ws->cj)
        return 1;
    ws_free(ws);
    return 0;
}

/* One source: the workspace doubled while the cells do not fit. */
static int one_source(const sl_ml_dyn_lens *L, double y1, double y2, double rho, double a1,
                      double tol, sl_ml_dyn_ws *ws, double *A, sl_ml_dyn_info *info)
{
    for (;;) {
        if (ws->cap == 0 && !ws_grow(ws, DYN_CAP0))
            return -1;
        const int st = sl_ml_dyn_mag(L, y1, y2, rho, a1, tol, ws, A, info);
        if (st != SL_ML_DYN_FULL)
            return st;
        if (ws->cap >= DYN_CAP_MAX)
            return st;
        if (!ws_grow(ws, 2 * ws->cap))
            return -1;
    }
}

/* Sources [0, n) on the CPU's threads, where status[k] < 0 or redo is 0:
 * each its A, err and status. */
static void cpu_sources(const sl_ml_dyn_lens *L, double rho, double a1, double tol, int64_t n,
                        const double *y1, const double *y2, double *A, double *err, int *status,
                        int redo_full_only)
{
#pragma omp parallel
    {
        sl_ml_dyn_ws ws = {0};
#pragma omp for schedule(dynamic, 1)
        for (int64_t i = 0; i < n; i++) {
            if (redo_full_only && status[i] != SL_ML_DYN_FULL)
                continue;
            sl_ml_dyn_info info = {0};
            status[i] = one_source(L, y1[i], y2[i], rho, a1, tol, &ws, &A[i], &info);
            err[i] = info.err;
        }
        ws_free(&ws);
    }
}

static sl_status check_args(double s, double q, double rho, double a1, double tol, int64_t n,
                            const double *y1, const double *y2, const char *ctx)
{
    const double v[4] = {s, q, rho, tol};
    const char *const k[4] = {"s", "q", "rho", "tol"};
    for (int i = 0; i < 4; i++)
        if (!(v[i] > 0.0) || !isfinite(v[i]))
            return sl_fail(SL_ERR_ARG, "%s: %s = %g: expected a finite number > 0", ctx, k[i],
                           v[i]);
    if (!(tol <= 0.1))
        return sl_fail(SL_ERR_ARG, "%s: tol = %g: expected at most 0.1 (relative)", ctx, tol);
    if (!(a1 >= 0.0 && a1 < 1.0))
        return sl_fail(SL_ERR_ARG, "%s: a1 = %g: expected 0 <= a1 < 1", ctx, a1);
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(y1[i]) || !isfinite(y2[i]))
            return sl_fail(SL_ERR_ARG, "%s: source %lld at (%g, %g): expected finite numbers",
                           ctx, (long long)i + 1, y1[i], y2[i]);
    return SL_OK;
}

/* The first source that failed, as an error. */
static sl_status first_failure(int64_t n, const double *y1, const double *y2, const double *err,
                               const int *status, double rho, double tol, const char *ctx)
{
    for (int64_t i = 0; i < n; i++) {
        if (status[i] == SL_ML_DYN_OK)
            continue;
        if (status[i] < 0)
            return sl_fail_nomem((double)DYN_CAP0 * 16, "%s: source %lld: the engine's "
                                 "workspace", ctx, (long long)i + 1);
        if (status[i] == SL_ML_DYN_FULL)
            return sl_fail(SL_ERR_UNSUPPORTED, "%s: source %lld at (%g, %g): its images take "
                           "more than %d lens-plane cells of rho / 2 (rho = %g)", ctx,
                           (long long)i + 1, y1[i], y2[i], DYN_CAP_MAX, rho);
        return sl_fail(SL_ERR_NUMERIC, "%s: source %lld at (%g, %g): tol = %g not met at the "
                       "deepest level (%g left)", ctx, (long long)i + 1, y1[i], y2[i], tol,
                       err[i]);
    }
    return SL_OK;
}

sl_status sl_ml_dyn_binary_mag(const sl_backend *be, double s, double q, double rho, double a1,
                               double tol, int64_t n, const double *y1, const double *y2,
                               double *A, double *err)
{
    const char *ctx = "microlensing: binary_mag";
    sl_status st = check_args(s, q, rho, a1, tol, n, y1, y2, ctx);
    if (st != SL_OK || n == 0)
        return st;
    int *status = malloc((size_t)n * sizeof *status);
    double *e = err ? err : malloc((size_t)n * sizeof *e);
    if (!status || !e) {
        free(status);
        if (!err)
            free(e);
        return sl_fail_nomem((double)n * 12, "%s: %lld sources", ctx, (long long)n);
    }
    sl_ml_caustic_set cs;
    sl_ml_dyn_lens L;
    st = sl_ml_dyn_lens_make(s, q, 0.25 * rho, &cs, &L);
    if (st == SL_OK) {
        if (be && be->kind == SL_BACKEND_CUDA) {
            /* the device's workspace is a block's: the few sources that
             * outgrow it are redone here */
            st = sl_ml_cuda_dyn_binary_mag(be, &L, rho, a1, tol, n, y1, y2, A, e, status);
            if (st == SL_OK)
                cpu_sources(&L, rho, a1, tol, n, y1, y2, A, e, status, 1);
        } else {
            cpu_sources(&L, rho, a1, tol, n, y1, y2, A, e, status, 0);
        }
        sl_ml_caustics_free(&cs);
    }
    if (st == SL_OK)
        st = first_failure(n, y1, y2, e, status, rho, tol, ctx);
    free(status);
    if (!err)
        free(e);
    return st;
}
