/* Device side of the hd.h arithmetic suite: SL_RSQRT, SL_SQRT, SL_RCP and
 * SL_DIV next to CUDA's rsqrt, sqrt, 1.0 / x and y / x on the same
 * arguments. */
#include <cuda_runtime.h>
#include <math.h>

#include "slt_cuda_try.h"

#include "starling/hd.h"
#include "gpu_hdmath.h"

__global__ void k_hdmath(int n, const double *x, const double *y, double *sl, double *cu)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double a = x[i], b = y[i];
    sl[4 * i + 0] = SL_RSQRT(a);
    sl[4 * i + 1] = SL_SQRT(a);
    sl[4 * i + 2] = SL_RCP(a);
    sl[4 * i + 3] = SL_DIV(b, a);
    cu[4 * i + 0] = rsqrt(a);
    cu[4 * i + 1] = sqrt(a);
    cu[4 * i + 2] = 1.0 / a;
    cu[4 * i + 3] = b / a;
}

extern "C" int slt_gpu_hdmath(int n, const double *x, const double *y, double *sl, double *cu,
                              char *err, size_t errcap)
{
    int ok = 0;
    double *d = NULL;
    size_t nb = (size_t)n * sizeof(double);
    TRY(cudaMalloc((void **)&d, 10 * nb));
    TRY(cudaMemcpy(d, x, nb, cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(d + n, y, nb, cudaMemcpyHostToDevice));
    k_hdmath<<<(n + 127) / 128, 128>>>(n, d, d + n, d + 2 * (size_t)n, d + 6 * (size_t)n);
    TRY(cudaGetLastError());
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(sl, d + 2 * (size_t)n, 4 * nb, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(cu, d + 6 * (size_t)n, 4 * nb, cudaMemcpyDeviceToHost));
    ok = 1;
done:
    cudaFree(d);
    return ok;
}
