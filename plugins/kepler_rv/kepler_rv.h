/* The kepler_rv plugin's prepared context, shared by its CPU code
 * (kepler_rv.c) and its CUDA code (kepler_rv_cuda.cu).
 *
 * Parameter vector of one model (n_par = 5 n_pl + 2 n_inst + trend):
 *   planet j (j = 1..n_pl), 5 values in the chosen basis (krv_model.h),
 *   gamma_<inst> for each instrument (offset, m/s),
 *   jit_<inst> for each instrument (jitter, m/s, >= 0),
 *   dvdt (trend >= 1, m/s/day) and curv (trend = 2, m/s/day²), both about
 *   the epoch. */
#ifndef STARLING_KEPLER_RV_H
#define STARLING_KEPLER_RV_H

#include <stddef.h>
#include "krv_model.h"
#include "rv_data.h"
#include "starling/backend.h"
#include "starling/version.h" /* SL_HAVE_CUDA (set by starling_add_plugin) */

SL_EXTERN_C_BEGIN

typedef struct sl_krv_ctx {
    int n_pl, basis, trend, mixed, n_inst;
    double epoch;
    size_t n_obs, n_par;
    sl_rv_data data;
    /* Observations grouped by instrument (file order within a group), so
     * that the loops hold one offset and jitter at a time; chi² is a sum
     * and does not care about order. */
    double *dt, *v, *var; /* t − epoch, velocity, error² */
    float *vf, *varf;     /* the same in float, for the mixed mode */
    size_t inst_start[SL_RV_MAX_INST + 1];
    char (*names)[48];
    const char **name_ptrs;
    double *lo, *hi;
    void *cuda; /* device buffers, owned by kepler_rv_cuda.cu */
    double kernel_s; /* device time of the last evaluation's kernels (0 on the CPU) */
} sl_krv_ctx;

/* Reads one model's parameters: planets into o[], the rest into the
 * per-instrument arrays and trend; returns 0 when any is out of domain. */
SL_HD SL_INLINE int sl_krv_unpack(const double *p, int n_pl, int basis, int n_inst, int trend,
                                  double epoch, sl_krv_orbit *o, double *gamma, double *jit2,
                                  double *dvdt, double *curv)
{
    int ok = 1;
    for (int j = 0; j < n_pl; j++)
        ok &= sl_krv_orbit_from(p + SL_KRV_NPP * j, basis, epoch, &o[j]);
    const double *q = p + SL_KRV_NPP * n_pl;
    for (int i = 0; i < n_inst; i++) {
        double s = q[n_inst + i];
        ok &= isfinite(q[i]) && isfinite(s) && s >= 0.0;
        gamma[i] = q[i];
        jit2[i] = s * s;
    }
    *dvdt = trend >= 1 ? q[2 * n_inst] : 0.0;
    *curv = trend >= 2 ? q[2 * n_inst + 1] : 0.0;
    ok &= isfinite(*dvdt) && isfinite(*curv);
    return ok;
}

#if SL_HAVE_CUDA
sl_status sl_krv_cuda_eval(sl_krv_ctx *c, const double *params, size_t n, double *loglik,
                           double *chi2);
void sl_krv_cuda_release(sl_krv_ctx *c);
sl_status sl_krv_cuda_eval_device(sl_krv_ctx *c, const double *params, size_t n,
                                  const int *count, double *ll, void *stream);
struct sl_dm_half;
sl_status sl_krv_cuda_demcmc_half(sl_krv_ctx *c, const struct sl_dm_half *h, void *stream);
#endif

SL_EXTERN_C_END

#endif
