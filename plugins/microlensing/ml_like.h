/* The photometric likelihood's prepared state, shared by ml_like.c (the
 * table, data and CPU loop) and ml_like_cuda.cu (the kernel). */
#ifndef STARLING_ML_LIKE_H
#define STARLING_ML_LIKE_H

#include <stddef.h>
#include <stdint.h>
#include "microlensing.h"
#include "starling/backend.h"
#include "starling/status.h"

SL_EXTERN_C_BEGIN

#define SL_ML_MAX_BAND 16
#define SL_ML_BAND_NAME 32

typedef struct sl_ml_phot_ctx {
    sl_ml_model model;
    double ld;           /* fspl's linear limb darkening */
    double zero_point;   /* mag = zero_point - 2.5 log10 F */
    int mag;             /* 1: the data were magnitudes */
    size_t n;            /* observations, grouped by band, by time in each */
    int n_band;
    int64_t band_start[SL_ML_MAX_BAND + 1];
    char band_name[SL_ML_MAX_BAND][SL_ML_BAND_NAME];
    double *t, *w, *fc;  /* epoch, 1/sigma_F^2, F - <F>_w */
    double S[SL_ML_MAX_BAND], sff[SL_ML_MAX_BAND], fmean[SL_ML_MAX_BAND];
    int n_par;
    const char *names[SL_ML_NPAR_MAX];
    double lo[SL_ML_NPAR_MAX], hi[SL_ML_NPAR_MAX];
    void *cuda;          /* ml_like_cuda.cu's buffers (NULL until the first CUDA eval) */
    double kernel_s;
} sl_ml_phot_ctx;

/* CUDA (ml_like_cuda.cu; ml_nocuda.c says it is missing). */
sl_status sl_ml_phot_cuda_eval(sl_ml_phot_ctx *c, const sl_backend *be, const double *params,
                               size_t n, double *loglik, double *chi2);
sl_status sl_ml_phot_cuda_eval_device(sl_ml_phot_ctx *c, const double *params, size_t n,
                                      const int *count, double *out, void *stream);
void sl_ml_phot_cuda_release(sl_ml_phot_ctx *c);

SL_EXTERN_C_END

#endif
