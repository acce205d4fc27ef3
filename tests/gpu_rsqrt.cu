/* Device side of the rsqrt suite: the forces' SL_RSQRT next to CUDA's
 * rsqrt on the same arguments. */
#include <cuda_runtime.h>
#include <math.h>

#include "slt_cuda_try.h"

#include "starling/hd.h"
#include "gpu_rsqrt.h"

__global__ void k_rsqrt(int n, const double *x, double *sl, double *cu)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    sl[i] = SL_RSQRT(x[i]);
    cu[i] = rsqrt(x[i]);
}

extern "C" int slt_gpu_rsqrt(int n, const double *x, double *sl, double *cu, char *err,
                             size_t errcap)
{
    int ok = 0;
    double *d = NULL;
    size_t nb = (size_t)n * sizeof(double);
    TRY(cudaMalloc((void **)&d, 3 * nb));
    TRY(cudaMemcpy(d, x, nb, cudaMemcpyHostToDevice));
    k_rsqrt<<<(n + 127) / 128, 128>>>(n, d, d + n, d + 2 * (size_t)n);
    TRY(cudaGetLastError());
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(sl, d + n, nb, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(cu, d + 2 * (size_t)n, nb, cudaMemcpyDeviceToHost));
    ok = 1;
done:
    cudaFree(d);
    return ok;
}
