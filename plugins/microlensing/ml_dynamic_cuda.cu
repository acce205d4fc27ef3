/* The dynamic engine on CUDA: a block a source (blocks walk the sources
 * in a grid-stride loop), each block with its own workspace in device
 * memory. The block clears the cell set together, one thread seeds and
 * fills it (the queue is short: thousands of cells), and then every
 * thread integrates its share of the active cells through ml_dynamic.h's
 * quadtree, the block adding the three sums in a fixed tree, so that a
 * source's result does not depend on the block that takes it. The rays
 * are the CPU's (the same SL_HD code); a source whose cells outgrow the
 * block's workspace is marked for the host to redo on the CPU. */
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

enum { MD_BLOCK = 128, MD_CAP = 1 << 16, MD_BLOCKS_MAX = 2048 };

/* Thread 0 holds the block's sum of v over every thread (a fixed tree). */
__device__ static double md_block_sum(double v, double *red)
{
    red[threadIdx.x] = v;
    __syncthreads();
    for (int w = MD_BLOCK / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w)
            red[threadIdx.x] += red[threadIdx.x + w];
        __syncthreads();
    }
    const double s = red[0];
    __syncthreads();
    return s;
}

__global__ void __launch_bounds__(MD_BLOCK)
    md_kernel(sl_ml_dyn_lens L, double rho, double a1, double tol, int64_t n, const double *y,
              double *A, double *err, int *status, uint64_t *keys, int32_t *ci, int32_t *cj)
{
    __shared__ double red[MD_BLOCK];
    __shared__ int n_active, fill_st, done;
    sl_ml_dyn_ws ws;
    ws.cap = MD_CAP;
    ws.keys = keys + (size_t)blockIdx.x * MD_CAP;
    ws.ci = ci + (size_t)blockIdx.x * MD_CAP;
    ws.cj = cj + (size_t)blockIdx.x * MD_CAP;
    const double h0 = SL_ML_DYN_H0 * rho;
    const double norm = 1.0 / (3.14159265358979324 * rho * rho * (1.0 - a1 / 3.0));
    for (int64_t i = blockIdx.x; i < n; i += gridDim.x) {
        const double w1 = y[i], w2 = y[n + i];
        for (int k = threadIdx.x; k < MD_CAP; k += MD_BLOCK)
            ws.keys[k] = SL_ML_DYN_EMPTY;
        __syncthreads();
        if (threadIdx.x == 0) {
            double rays = 0.0;
            int na = 0;
            fill_st = sl_ml_dyn_fill(&L, w1, w2, rho, h0, &ws, &na, &rays);
            n_active = na;
        }
        __syncthreads();
        if (fill_st != SL_ML_DYN_OK) {
            if (threadIdx.x == 0)
                A[i] = NAN, err[i] = INFINITY, status[i] = fill_st;
            __syncthreads();
            continue;
        }
        sl_ml_dyn_src S = sl_ml_dyn_source(w1, w2, rho, a1, tol);
        for (;; S.depth++) {
            double f = 0.0, c = 0.0, q = 0.0, rays = 0.0;
            for (int k = threadIdx.x; k < n_active; k += MD_BLOCK) {
                double fk, ck;
                sl_ml_dyn_cell(&L, &S, (ws.ci[k] + 0.5) * h0, (ws.cj[k] + 0.5) * h0, h0, 0, &fk,
                               &ck, &rays);
                f += fk, c += ck, q += (fk - ck) * (fk - ck);
            }
            const double fine = md_block_sum(f, red), coarse = md_block_sum(c, red),
                         sq = md_block_sum(q, red);
            if (threadIdx.x == 0) {
                const double e = sl_ml_dyn_err(fine, coarse, sq);
                done = sl_ml_dyn_done(e, tol, S.depth);
                if (done) {
                    A[i] = sl_ml_dyn_extrapolate(fine, coarse) * norm, err[i] = e;
                    status[i] = e <= tol ? SL_ML_DYN_OK : SL_ML_DYN_DEPTH;
                }
            }
            __syncthreads();
            if (done)
                break;
        }
        __syncthreads();
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
    const int blocks = (int)(n < MD_BLOCKS_MAX ? n : MD_BLOCKS_MAX);
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
        (st = sl_dev_alloc((void **)&keys, (size_t)blocks * MD_CAP * sizeof(uint64_t),
                           "microlensing: binary_mag: cell sets")) ||
        (st = sl_dev_alloc((void **)&cells, 2 * (size_t)blocks * MD_CAP * sizeof(int32_t),
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
                                    cells + (size_t)blocks * MD_CAP);
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
