/* @NAME@ on CUDA: one thread per model, each summing over every point with
 * @NAME@_loglik from @NAME@.h, the same function and order as the CPU, so
 * the backends agree to rounding (the GPU's sin, exp and log are not the C
 * library's, and nvcc may fuse multiply-adds: check-plugin's `cuda` check
 * allows 1e-9 relative).
 *
 * The observations go to the device on the first CUDA evaluation of a
 * context, on the device current then; parameter vectors go in chunks of
 * at most @NAME_UPPER@_CHUNK models through buffers the context keeps. All
 * of it belongs to the context (released with it), so distinct contexts
 * may be evaluated from different threads at once. */
#include <cuda_runtime.h>
#include <stdlib.h>

#include <starling/backend.h>
#include "@NAME@.h"

enum { @NAME_UPPER@_BLOCK = 128, @NAME_UPPER@_CHUNK = 1 << 16 };

#define @NAME_UPPER@_TRY(call, what)                                                          \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess)                                                           \
            return sl_fail(SL_ERR_CUDA, "@NAME@: %s: %s", (what), cudaGetErrorString(err_)); \
    } while (0)

typedef struct @NAME@_dev {
    double *dt, *y, *var;      /* the observations */
    double *params, *ll, *chi2; /* one chunk of models */
    cudaEvent_t k0, k1;        /* around the kernel, for last_kernel_s */
} @NAME@_dev;

static __global__ void __launch_bounds__(@NAME_UPPER@_BLOCK)
    @NAME@_kernel(const double *params, int n_models, size_t n_obs, const double *dt,
                  const double *y, const double *var, double *ll, double *chi2)
{
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m < n_models)
        ll[m] = @NAME@_loglik(params + (size_t)m * @NAME_UPPER@_NPAR, n_obs, dt, y, var, &chi2[m]);
}

extern "C" void @NAME@_cuda_release(@NAME@_ctx *c)
{
    @NAME@_dev *d = (@NAME@_dev *)c->cuda;
    if (!d)
        return;
    sl_dev_free(d->dt), sl_dev_free(d->y), sl_dev_free(d->var);
    sl_dev_free(d->params), sl_dev_free(d->ll), sl_dev_free(d->chi2);
    if (d->k0)
        cudaEventDestroy(d->k0);
    if (d->k1)
        cudaEventDestroy(d->k1);
    free(d);
    c->cuda = NULL;
}

/* Device buffers on first use; sl_dev_alloc's message says how much memory
 * was needed and how much the device had. */
static sl_status setup(@NAME@_ctx *c, @NAME@_dev **out)
{
    if ((*out = (@NAME@_dev *)c->cuda))
        return SL_OK;
    @NAME@_dev *d = (@NAME@_dev *)calloc(1, sizeof *d);
    if (!d)
        return sl_fail(SL_ERR_NOMEM, "@NAME@: out of memory");
    c->cuda = d;
    size_t obs = c->n * sizeof(double), chunk = @NAME_UPPER@_CHUNK * sizeof(double);
    sl_status st;
    if ((st = sl_dev_alloc((void **)&d->dt, obs, "@NAME@: observations")) ||
        (st = sl_dev_alloc((void **)&d->y, obs, "@NAME@: observations")) ||
        (st = sl_dev_alloc((void **)&d->var, obs, "@NAME@: observations")) ||
        (st = sl_dev_alloc((void **)&d->params, @NAME_UPPER@_NPAR * chunk, "@NAME@: parameters")) ||
        (st = sl_dev_alloc((void **)&d->ll, chunk, "@NAME@: results")) ||
        (st = sl_dev_alloc((void **)&d->chi2, chunk, "@NAME@: results")) ||
        (st = sl_dev_upload(d->dt, c->dt, obs, "@NAME@: observations")) ||
        (st = sl_dev_upload(d->y, c->y, obs, "@NAME@: observations")) ||
        (st = sl_dev_upload(d->var, c->var, obs, "@NAME@: observations"))) {
        @NAME@_cuda_release(c);
        return st;
    }
    if (cudaEventCreate(&d->k0) != cudaSuccess || cudaEventCreate(&d->k1) != cudaSuccess) {
        @NAME@_cuda_release(c);
        return sl_fail(SL_ERR_CUDA, "@NAME@: cannot create CUDA events");
    }
    *out = d;
    return SL_OK;
}

/* One chunk: parameters up, the kernel, results down (synchronous). */
static sl_status eval_chunk(@NAME@_ctx *c, @NAME@_dev *d, const double *params, int n,
                            double *ll, double *chi2)
{
    sl_status st = sl_dev_upload(d->params, params, (size_t)n * @NAME_UPPER@_NPAR * sizeof(double),
                                 "@NAME@: parameters");
    if (st)
        return st;
    unsigned blocks = (unsigned)((n + @NAME_UPPER@_BLOCK - 1) / @NAME_UPPER@_BLOCK);
    @NAME_UPPER@_TRY(cudaEventRecord(d->k0), "timing the kernel");
    @NAME@_kernel<<<blocks, @NAME_UPPER@_BLOCK>>>(d->params, n, c->n, d->dt, d->y, d->var, d->ll,
                                                 d->chi2);
    @NAME_UPPER@_TRY(cudaGetLastError(), "launching the kernel");
    @NAME_UPPER@_TRY(cudaEventRecord(d->k1), "timing the kernel");
    @NAME_UPPER@_TRY(cudaEventSynchronize(d->k1), "running the kernel");
    float ms = 0;
    @NAME_UPPER@_TRY(cudaEventElapsedTime(&ms, d->k0, d->k1), "timing the kernel");
    c->kernel_s += 1e-3 * (double)ms;
    if ((st = sl_dev_download(ll, d->ll, (size_t)n * sizeof(double), "@NAME@: results")))
        return st;
    return chi2 ? sl_dev_download(chi2, d->chi2, (size_t)n * sizeof(double), "@NAME@: results")
                : SL_OK;
}

extern "C" sl_status @NAME@_cuda_eval(@NAME@_ctx *c, const double *params, size_t n,
                                       double *loglik, double *chi2)
{
    @NAME@_dev *d;
    sl_status st = setup(c, &d);
    for (size_t first = 0; !st && first < n; first += @NAME_UPPER@_CHUNK) {
        int cnt = (int)(n - first < @NAME_UPPER@_CHUNK ? n - first : @NAME_UPPER@_CHUNK);
        st = eval_chunk(c, d, params + first * @NAME_UPPER@_NPAR, cnt, loglik + first,
                        chi2 ? chi2 + first : NULL);
    }
    return st;
}
