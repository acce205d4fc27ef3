/* The nbody_rv plugin's prepared context, shared by its CPU code
 * (nbody_rv.c) and its CUDA code (nbody_cuda.cu), and its transit-time
 * reader (the ttv likelihood's data, and starling.ttv.read). */
#ifndef STARLING_NBODY_RV_H
#define STARLING_NBODY_RV_H

#include <stddef.h>
#include <stdint.h>
#include "nbody_eval.h"
#include "nbody_like.h"
#include "rv_data.h"
#include "starling/data.h"
#include "starling/face.h"
#include "starling/status.h"
#include "starling/version.h" /* SL_HAVE_CUDA (set by starling_add_plugin) */

SL_EXTERN_C_BEGIN

typedef struct sl_nbody_ctx {
    const char *name; /* "nbody_rv" or "ttv", for messages */
    sl_nbody_view view; /* host pointers into the arrays below */
    int integrator;
    int threads_per_model; /* the cuda backend's: 1, or 2 (forward and backward) */
    size_t n_par;
    sl_rv_data rv; /* as read (instrument names) */
    double *t_rv, *v_rv, *var_rv, *t_tr, *ivar_tr;
    int *inst_rv;
    char (*names)[48];
    const char **name_ptrs;
    double *lo, *hi;
    uint64_t counts[SL_NBODY_N_REASONS]; /* CPU evaluations' reasons */
    uint64_t shown[SL_NBODY_N_REASONS];  /* what counters() last returned */
    void *cuda;      /* device buffers, owned by nbody_cuda.cu */
    double kernel_s; /* device time of the last evaluation (0 on the CPU) */
} sl_nbody_ctx;

/* Observed mid-transit times as read: planet (1..n_pl), time and error
 * (days), file order. Columns by name (planet/pl/body, time/tc/tmid/...,
 * error/err/sigma/...) or, without a header, in that order. */
typedef struct sl_nbody_transits {
    size_t n;
    int *planet;
    double *t, *err;
} sl_nbody_transits;

sl_status sl_nbody_read_transits(const sl_data *data, int n_pl, sl_nbody_transits *out);
void sl_nbody_free_transits(sl_nbody_transits *t);

extern const sl_lua_face sl_nbody_lua_face;

#if SL_HAVE_CUDA
sl_status sl_nbody_cuda_eval(sl_nbody_ctx *c, const double *params, size_t n, double *ll,
                             double *chi2);
sl_status sl_nbody_cuda_eval_device(sl_nbody_ctx *c, const double *params, size_t n,
                                    const int *count, double *ll, void *stream);
/* 1 when a kernel exists for the integrator (SL_NBODY_MVS, ...) and planets. */
int sl_nbody_cuda_can(int integrator, int n_pl);
/* The device evaluations' reason counts into counts (replaced). */
sl_status sl_nbody_cuda_counts(sl_nbody_ctx *c, uint64_t *counts);
void sl_nbody_cuda_release(sl_nbody_ctx *c);
#endif

SL_EXTERN_C_END

#endif
