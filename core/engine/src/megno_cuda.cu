/* MEGNO's sampling on the device: one thread per pair (megno_pairs.h). */
#include "cuda_try.h"
#include "megno_pairs.h"

__global__ void sl__megno_sample_kernel(sl__pass_view w, int64_t n, sl__megno_pair *pairs,
                                        double delta)
{
    int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s < n)
        sl__megno_sample(&w, s, n, &pairs[s], delta);
}

extern "C" sl_status sl__megno_sample_cuda(const sl__pass_view *w, int64_t n,
                                           sl__megno_pair *pairs, double delta)
{
    const int block = 128;
    int64_t grid = (n + block - 1) / block;
    if (n < 1)
        return SL_OK;
    if (grid > 0x7fffffff)
        return sl_fail(SL_ERR_ARG, "megno: %lld systems exceed one launch", (long long)n);
    sl__megno_sample_kernel<<<(unsigned)grid, block>>>(*w, n, pairs, delta);
    SL_CUDA_TRY(cudaGetLastError(), "megno: sampling the pairs");
    SL_CUDA_TRY(cudaDeviceSynchronize(), "megno: sampling the pairs");
    return SL_OK;
}
