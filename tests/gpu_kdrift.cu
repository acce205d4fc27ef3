/* Device side of the GPU Kepler-drift suite: sl_kepler_drift, the same
 * SL_HD code the CPU runs, one state per thread. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "slt_cuda_try.h"

#include "mvs/kepler_drift.h"
#include "gpu_kdrift.h"

__global__ void k_kdrift(int n, const double *gm, const double *dt, double *xv, int *it)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x[3] = {xv[6 * i], xv[6 * i + 1], xv[6 * i + 2]};
    double v[3] = {xv[6 * i + 3], xv[6 * i + 4], xv[6 * i + 5]};
    it[i] = sl_kepler_drift(gm[i], dt[i], x, v);
    for (int k = 0; k < 3; k++)
        xv[6 * i + k] = x[k], xv[6 * i + 3 + k] = v[k];
}


extern "C" int slt_gpu_kdrift(int n, const double *gm, const double *dt, double *xv, int *it,
                              char *err, size_t errcap)
{
    int ok = 0;
    double *d_gm = NULL, *d_dt = NULL, *d_xv = NULL;
    int *d_it = NULL;
    TRY(cudaMalloc(&d_gm, n * sizeof *d_gm));
    TRY(cudaMalloc(&d_dt, n * sizeof *d_dt));
    TRY(cudaMalloc(&d_xv, 6 * (size_t)n * sizeof *d_xv));
    TRY(cudaMalloc(&d_it, n * sizeof *d_it));
    TRY(cudaMemcpy(d_gm, gm, n * sizeof *gm, cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(d_dt, dt, n * sizeof *dt, cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(d_xv, xv, 6 * (size_t)n * sizeof *xv, cudaMemcpyHostToDevice));
    k_kdrift<<<(n + 127) / 128, 128>>>(n, d_gm, d_dt, d_xv, d_it);
    TRY(cudaGetLastError());
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(xv, d_xv, 6 * (size_t)n * sizeof *xv, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(it, d_it, n * sizeof *it, cudaMemcpyDeviceToHost));
    ok = 1;
done:
    cudaFree(d_gm), cudaFree(d_dt), cudaFree(d_xv), cudaFree(d_it);
    return ok;
}
