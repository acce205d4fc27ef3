/* The dynamic engine on CUDA: a thread a source (threads walk the sources
 * in a grid-stride loop), each thread with its own workspace in device
 * memory, running ml_dynamic.h's sl_ml_dyn_mag as a CPU thread does: the
 * same SL_HD code, so a source's A differs from the CPU's by rounding
 * only. A source whose cells outgrow its thread's workspace is marked
 * (SL_ML_DYN_FULL) for the host to redo on the CPU, whose workspace
 * grows. */
#include <cuda_runtime.h>
#include <string.h>

#include "ml_dynamic.h"
#include "ml_internal.h"
#include "starling/backend.h"

#define MD_TRY(call, what)                                                                 \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            st = sl_fail(SL_ERR_CUDA, "microlensing: binary_mag: %s: %s (%s)", (what),     \
                         cudaGetErrorString(err_), #call);                                 \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

/* Threads a block; threads at most (their workspaces, MD_CAP cells of 16
 * bytes each, take 4 GiB at 4,096); cells a thread. */
enum { MD_BLOCK = 64, MD_THREADS_MAX = 4096, MD_CAP = 1 << 16 };

__global__ void __launch_bounds__(MD_BLOCK)
    md_kernel(sl_ml_dyn_lens L, double rho, double a1, double tol, int64_t n, const double *y,
              double *A, double *err, int *status, uint64_t *keys, int32_t *ci, int32_t *cj)
{
    const int64_t me = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    sl_ml_dyn_ws ws;
    ws.cap = MD_CAP;
    ws.keys = keys + (size_t)me * MD_CAP;
    ws.ci = ci + (size_t)me * MD_CAP;
    ws.cj = cj + (size_t)me * MD_CAP;
    for (int64_t i = me; i < n; i += stride) {
        sl_ml_dyn_info info;
        double a;
        status[i] = sl_ml_dyn_mag(&L, y[i], y[n + i], rho, a1, tol, &ws, &a, &info);
        A[i] = a, err[i] = info.err;
    }
}

extern "C" sl_status sl_ml_cuda_dyn_binary_mag(const sl_backend *be, const sl_ml_dyn_lens *L,
                                               double rho, double a1, double tol, int64_t n,
                                               const double *y1, const double *y2, double *A,
                                               double *err, int *status)
{
    sl_status st = SL_OK;
    sl_ml_dyn_lens D = *L;
    double *curves = NULL, *dy = NULL, *dout = NULL;
    int *dst = NULL;
    uint64_t *keys = NULL;
    int32_t *cells = NULL;
    const int64_t threads = n < MD_THREADS_MAX ? n : MD_THREADS_MAX;
    const int blocks = (int)((threads + MD_BLOCK - 1) / MD_BLOCK);
    const size_t slots = (size_t)blocks * MD_BLOCK; /* a workspace a launched thread */
    int64_t total = 0;
    size_t stack = 0;
    MD_TRY(cudaSetDevice(be->device), "selecting the CUDA device");
    if (n == 0)
        return SL_OK;
    for (int c = 0; c < L->n_curves; c++)
        total += L->n[c];
    /* the critical curves up, four arrays a curve, one allocation */
    if ((st = sl_dev_alloc((void **)&curves, (size_t)(4 * total + 1) * sizeof(double),
                           "microlensing: binary_mag: critical curves")))
        goto done;
    {
        double *p = curves;
        for (int c = 0; c < L->n_curves; c++) {
            const double *src[4] = {L->x[c], L->y[c], L->cx[c], L->cy[c]};
            const double **dst4[4] = {&D.x[c], &D.y[c], &D.cx[c], &D.cy[c]};
            for (int a = 0; a < 4; a++) {
                MD_TRY(cudaMemcpy(p, src[a], (size_t)L->n[c] * sizeof(double),
                                  cudaMemcpyHostToDevice),
                       "uploading the critical curves");
                *dst4[a] = p;
                p += L->n[c];
            }
        }
    }
    if ((st = sl_dev_alloc((void **)&dy, 2 * (size_t)n * sizeof(double),
                           "microlensing: binary_mag: sources")) ||
        (st = sl_dev_alloc((void **)&dout, 2 * (size_t)n * sizeof(double),
                           "microlensing: binary_mag: magnifications")) ||
        (st = sl_dev_alloc((void **)&dst, (size_t)n * sizeof(int),
                           "microlensing: binary_mag: statuses")) ||
        (st = sl_dev_alloc((void **)&keys, slots * MD_CAP * sizeof(uint64_t),
                           "microlensing: binary_mag: cell sets")) ||
        (st = sl_dev_alloc((void **)&cells, 2 * slots * MD_CAP * sizeof(int32_t),
                           "microlensing: binary_mag: cell lists")))
        goto done;
    MD_TRY(cudaMemcpy(dy, y1, (size_t)n * sizeof(double), cudaMemcpyHostToDevice),
           "uploading the sources");
    MD_TRY(cudaMemcpy(dy + n, y2, (size_t)n * sizeof(double), cudaMemcpyHostToDevice),
           "uploading the sources");
    /* the quadtree recurses up to SL_ML_DYN_DEPTH_MAX levels a thread */
    MD_TRY(cudaDeviceGetLimit(&stack, cudaLimitStackSize), "reading the stack size");
    if (stack < 8192)
        MD_TRY(cudaDeviceSetLimit(cudaLimitStackSize, 8192), "setting the stack size");
    md_kernel<<<blocks, MD_BLOCK>>>(D, rho, a1, tol, n, dy, dout, dout + n, dst, keys, cells,
                                    cells + slots * MD_CAP);
    MD_TRY(cudaGetLastError(), "launching the kernel");
    MD_TRY(cudaDeviceSynchronize(), "running the kernel");
    MD_TRY(cudaMemcpy(A, dout, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost),
           "downloading the magnifications");
    MD_TRY(cudaMemcpy(err, dout + n, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost),
           "downloading the error bounds");
    MD_TRY(cudaMemcpy(status, dst, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost),
           "downloading the statuses");
done:
    sl_dev_free(curves), sl_dev_free(dy), sl_dev_free(dout), sl_dev_free(dst);
    sl_dev_free(keys), sl_dev_free(cells);
    return st;
}
