/* The microlensing plugin on CUDA: one thread per (model, epoch), the
 * physics of ml_model.h compiled for the device. Parameters and epochs go
 * up once, magnifications come back once. */
#include <cuda_runtime.h>

#include "ml_internal.h"
#include "ml_model.h"
#include "starling/backend.h"

#define ML_TRY(call, what)                                                                 \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess)                                                           \
            return sl_fail(SL_ERR_CUDA, "microlensing: %s: %s (%s)", (what),               \
                           cudaGetErrorString(err_), #call);                               \
    } while (0)

enum { ML_BLOCK = 128 };

__global__ void ml_kernel(sl_ml_model model, int npar, int64_t n_models, const double *params,
                          int64_t n_t, const double *t, double *A)
{
    int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n_models * n_t)
        return;
    int64_t i = k / n_t, j = k - i * n_t;
    double p[SL_ML_NPAR_MAX];
    for (int c = 0; c < npar; c++)
        p[c] = params[i * npar + c];
    A[k] = sl_ml_eval(model, p, t[j]);
}

static sl_status ml_run(const sl_ml_batch *b, double *dp, double *dt, double *dA, double *A)
{
    int npar = sl_ml_npar(b->model);
    size_t np = (size_t)b->n_models * npar * sizeof(double);
    size_t nt = (size_t)b->n_t * sizeof(double);
    size_t na = (size_t)b->n_models * (size_t)b->n_t * sizeof(double);
    sl_status st;
    if ((st = sl_dev_upload(dp, b->params, np, "microlensing: parameters")) ||
        (st = sl_dev_upload(dt, b->t, nt, "microlensing: epochs")))
        return st;
    int64_t n = b->n_models * b->n_t;
    ml_kernel<<<(unsigned)((n + ML_BLOCK - 1) / ML_BLOCK), ML_BLOCK>>>(b->model, npar,
                                                                       b->n_models, dp, b->n_t,
                                                                       dt, dA);
    ML_TRY(cudaGetLastError(), "launching the magnification kernel");
    ML_TRY(cudaDeviceSynchronize(), "running the magnification kernel");
    return sl_dev_download(A, dA, na, "microlensing: magnifications");
}

extern "C" sl_status sl_ml_cuda_magnification(const sl_backend *be, const sl_ml_batch *b,
                                              double *A)
{
    ML_TRY(cudaSetDevice(be->device), "selecting the CUDA device");
    int npar = sl_ml_npar(b->model);
    double *dp = NULL, *dt = NULL, *dA = NULL;
    sl_status st;
    if (!(st = sl_dev_alloc((void **)&dp, (size_t)b->n_models * npar * sizeof(double),
                            "microlensing: parameters")) &&
        !(st = sl_dev_alloc((void **)&dt, (size_t)b->n_t * sizeof(double),
                            "microlensing: epochs")) &&
        !(st = sl_dev_alloc((void **)&dA, (size_t)b->n_models * (size_t)b->n_t * sizeof(double),
                            "microlensing: magnifications")))
        st = ml_run(b, dp, dt, dA, A);
    sl_dev_free(dp);
    sl_dev_free(dt);
    sl_dev_free(dA);
    return st;
}
