/* The dynamic engine on the host: the binary's critical curves by
 * ml_caustics.c pointed to by the engine's lens, a binary prepared once for
 * many sources (its partition by distance from the caustics), and
 * binary_mag, its sources on the CPU's threads. */
#include "ml_dynamic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ml_caustics.h"
#include "ml_fsbl.h"
#include "starling/backend.h"
#include "starling/nomem.h"
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

/* The partition's method for the source at (x, y) (0 point, 1 hexadecapole,
 * 2 engine), by its distance from the nearest caustic box. */
static int method_of(const sl_ml_fsbl *f, double x, double y, double rho, double tol,
                     unsigned flags)
{
    if (flags & SL_ML_FS_ENGINE_ONLY)
        return 2;
    const double d2 = sl_ml_fsbl_box_d2(f, x, y);
    const double far = SL_ML_FS_FAR * rho, hexa = SL_ML_FS_HEXA * rho;
    if (d2 > far * far)
        return 0;
    return tol >= SL_ML_FS_HEXA_TOL && d2 > hexa * hexa ? 1 : 2;
}

sl_status sl_ml_dyn_binary_open(double s, double q, double rho, double a1, double tol,
                                unsigned flags, sl_ml_dyn_binary *b)
{
    memset(b, 0, sizeof *b);
    b->s = s, b->q = q, b->rho = rho, b->a1 = a1, b->tol = tol, b->flags = flags;
    sl_status st = sl_ml_dyn_lens_make(s, q, 0.25 * rho, &b->cs, &b->L);
    if (st != SL_OK)
        return st;
    sl_ml_fsbl *f = &b->f;
    f->s = s, f->q = q, f->l1 = a1;
    sl_ml_fsbl_moments(a1, &f->w2, &f->w4);
    f->n_box = b->L.n_curves < SL_ML_FSBL_MAPS ? b->L.n_curves : SL_ML_FSBL_MAPS;
    for (int c = 0; c < f->n_box; c++)
        memcpy(f->box[c], b->L.box[c], sizeof f->box[c]);
    return SL_OK;
}

void sl_ml_dyn_binary_close(sl_ml_dyn_binary *b)
{
    sl_ml_caustics_free(&b->cs);
    memset(b, 0, sizeof *b);
}

void sl_ml_dyn_ws_free(sl_ml_dyn_ws *ws)
{
    ws_free(ws);
}

int sl_ml_dyn_binary_one(const sl_ml_dyn_binary *b, double y1, double y2, sl_ml_dyn_ws *ws,
                         double *A, double *err, int *method)
{
    const int m = method_of(&b->f, y1, y2, b->rho, b->tol, b->flags);
    if (method)
        *method = m;
    if (m == 0) {
        *A = sl_ml_binary_mag0(b->s, b->q, y1, y2, 0), *err = SL_ML_FS_FAR_ERR;
        return SL_ML_DYN_OK;
    }
    if (m == 1) {
        *A = sl_ml_fsbl_hexadecapole(&b->f, y1, y2, b->rho), *err = SL_ML_FS_HEXA_ERR;
        return SL_ML_DYN_OK;
    }
    sl_ml_dyn_info info = {0};
    const int st = one_source(&b->L, y1, y2, b->rho, b->a1, b->tol, ws, A, &info);
    *err = info.err;
    return st;
}

sl_status sl_ml_dyn_binary_mag_m(const sl_backend *be, double s, double q, double rho, double a1,
                                 double tol, unsigned flags, int64_t n, const double *y1,
                                 const double *y2, double *A, double *err, int *method)
{
    const char *ctx = "microlensing: binary_mag";
    if (be && be->kind != SL_BACKEND_CPU)
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: the engine runs on the CPU only: expected the "
                       "cpu backend", ctx);
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
    sl_ml_dyn_binary b;
    st = sl_ml_dyn_binary_open(s, q, rho, a1, tol, flags, &b);
    if (st == SL_OK) {
        /* chunks of a few: the point sources cost little, the engine's much */
#pragma omp parallel
        {
            sl_ml_dyn_ws ws = {0};
#pragma omp for schedule(dynamic, 4)
            for (int64_t i = 0; i < n; i++)
                status[i] = sl_ml_dyn_binary_one(&b, y1[i], y2[i], &ws, &A[i], &e[i],
                                                 method ? &method[i] : NULL);
            ws_free(&ws);
        }
        sl_ml_dyn_binary_close(&b);
        st = first_failure(n, y1, y2, e, status, rho, tol, ctx);
    }
    free(status);
    if (!err)
        free(e);
    return st;
}

sl_status sl_ml_dyn_binary_mag(const sl_backend *be, double s, double q, double rho, double a1,
                               double tol, unsigned flags, int64_t n, const double *y1,
                               const double *y2, double *A, double *err)
{
    return sl_ml_dyn_binary_mag_m(be, s, q, rho, a1, tol, flags, n, y1, y2, A, err, NULL);
}
