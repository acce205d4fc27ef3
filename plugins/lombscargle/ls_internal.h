/* What the lombscargle plugin's parts share: a prepared job (per-object
 * constants, centred and weighted data, outputs) and the two backends that
 * run it. Not part of the plugin ABI. */
#ifndef STARLING_LS_INTERNAL_H
#define STARLING_LS_INTERNAL_H

#include "ls_math.h"
#include "lombscargle.h"

SL_EXTERN_C_BEGIN

typedef struct sl_ls_job {
    int64_t n_obj;
    sl_ls_obj *obj;         /* n_obj */
    int64_t n_pts;          /* length of the packed arrays */
    const double *t;        /* times relative to each object's first time */
    const double *w, *wy;   /* normalised weights, weight times centred value */
    const float *wf, *wyf;  /* the same in FP32 (FP32 jobs only) */
    int generalised, norm, fp32, full;
    int64_t n_power;        /* sum of n_f over unflagged objects (full output) */
    double *power64;        /* full output, one of the two, n_power entries */
    float *power32;
    double *best_p;         /* n_obj: highest power (NaN if none is finite) */
    int64_t *best_k;        /* n_obj: its grid index (lowest on ties), -1 if none */
    double kernel_s;        /* filled by the backend */
    double transfer_s;      /* CUDA: packing, uploads and downloads */
    int fast_order;         /* FAST engine: Lagrange points per sample; 0: sl_ls_fast_order */
    double fast_oversampling;
    double fast_accuracy;   /* fast_order 0: the bound the order is chosen to meet */
    int transfer;           /* sl_ls_transfer (CUDA full output) */
    void *device_power;     /* transfer = device: the periodograms left on the GPU */
} sl_ls_job;

/* Direct sums of the objects without `fast` set. */
sl_status sl_ls_cpu_run(sl_ls_job *j);
/* Fails with SL_ERR_NODEVICE when the plugin was built without CUDA. */
sl_status sl_ls_cuda_run(sl_ls_job *j);
void sl_ls_cuda_free(void *device_ptr);
/* The FAST engine (Press & Rybicki, FFTW) for the objects with `fast` set. */
sl_status sl_ls_fast_run(sl_ls_job *j);
/* Its FFT length for n_f frequencies: a power of 2 >= oversampling n_f. */
int64_t sl_ls_fast_size(int64_t n_f, double oversampling);

#define SL_LS_FAST_MAX_ORDER 64
/* Bound on the error of extirpolating exp(i theta x) onto m (even)
 * nodes centred on x's cell: the worst term of a trigonometric sum at
 * theta = 2 pi k / Nfft, relative to its weight. */
double sl_ls_fast_bound(int m, double theta);
/* The least even order whose bound at theta is <= accuracy; 0 if none up
 * to SL_LS_FAST_MAX_ORDER. */
int sl_ls_fast_auto_order(double theta, double accuracy);
/* The order object o runs with: the job's fast_order, or (0) the least
 * meeting fast_accuracy at the top of o's grid, theta = 2 pi n_f / Nfft. */
int sl_ls_fast_order(const sl_ls_job *j, const sl_ls_obj *o);

/* Power p of frequency k of object o into the host's full output (FP32 or
 * FP64), when the job keeps one. */
static inline void sl_ls_put(const sl_ls_job *j, const sl_ls_obj *o, int64_t k, double p)
{
    if (!j->full)
        return;
    if (j->power32)
        j->power32[o->out + k] = (float)p;
    else
        j->power64[o->out + k] = p;
}

/* Better of two candidates: higher power, then lower index; NaN never wins. */
SL_HD SL_INLINE int sl_ls_better(double p, int64_t k, double bp, int64_t bk)
{
    if (!(p == p))
        return 0;
    if (!(bp == bp) || bk < 0)
        return 1;
    return p > bp || (p == bp && k < bk);
}

double sl_ls_now(void);

SL_EXTERN_C_END

#endif
