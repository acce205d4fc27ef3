/* Device side of the GPU RNG suite: starling's SL_HD Philox next to
 * cuRAND's own implementation, on the same keys and counters. */
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <curand_philox4x32_x.h>
#include <stdint.h>
#include <stdio.h>

#include "slt_cuda_try.h"

#include "starling/rng.h"
#include "gpu_rng.h"

/* For each triple: sl_rng_block, curand_Philox4x32_10 on the same words,
 * and curand_init(seed, stream, 4 * counter) + curand4. */
__global__ void k_blocks(int n, const uint64_t *seed, const uint64_t *stream, const uint64_t *ctr,
                         uint32_t *out_sl, uint32_t *out_raw, uint32_t *out_init)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    sl_u32x4 a = sl_rng_block(seed[i], stream[i], ctr[i]);
    uint4 c = make_uint4((uint32_t)ctr[i], (uint32_t)(ctr[i] >> 32), (uint32_t)stream[i],
                         (uint32_t)(stream[i] >> 32));
    uint2 k = make_uint2((uint32_t)seed[i], (uint32_t)(seed[i] >> 32));
    uint4 b = curand_Philox4x32_10(c, k);
    curandStatePhilox4_32_10_t st;
    curand_init(seed[i], stream[i], 4ull * ctr[i], &st);
    uint4 d = curand4(&st);
    for (int w = 0; w < 4; w++)
        out_sl[4 * i + w] = a.v[w];
    out_raw[4 * i + 0] = b.x, out_raw[4 * i + 1] = b.y, out_raw[4 * i + 2] = b.z,
    out_raw[4 * i + 3] = b.w;
    out_init[4 * i + 0] = d.x, out_init[4 * i + 1] = d.y, out_init[4 * i + 2] = d.z,
    out_init[4 * i + 3] = d.w;
}

/* Raw counter and key words (the known-answer vectors). */
__global__ void k_raw(int n, const uint32_t *ctr, const uint32_t *key, uint32_t *out_sl,
                      uint32_t *out_curand)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    sl_u32x4 c;
    for (int w = 0; w < 4; w++)
        c.v[w] = ctr[4 * i + w];
    sl_u32x4 a = sl_philox4x32_10(c, key[2 * i], key[2 * i + 1]);
    uint4 b = curand_Philox4x32_10(make_uint4(c.v[0], c.v[1], c.v[2], c.v[3]),
                                   make_uint2(key[2 * i], key[2 * i + 1]));
    for (int w = 0; w < 4; w++)
        out_sl[4 * i + w] = a.v[w];
    out_curand[4 * i + 0] = b.x, out_curand[4 * i + 1] = b.y, out_curand[4 * i + 2] = b.z,
    out_curand[4 * i + 3] = b.w;
}

/* The first m uniforms of stream (seed, stream[i]) drawn on the device. */
__global__ void k_uniform(int n, int m, uint64_t seed, const uint64_t *stream, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    sl_rng r;
    sl_rng_init(&r, seed, stream[i]);
    for (int j = 0; j < m; j++)
        out[(size_t)i * m + j] = sl_rng_uniform(&r);
}


extern "C" int slt_gpu_blocks(int n, const uint64_t *seed, const uint64_t *stream,
                              const uint64_t *ctr, uint32_t *out_sl, uint32_t *out_raw,
                              uint32_t *out_init, char *err, size_t errcap)
{
    int ok = 0;
    uint64_t *d_in = NULL;
    uint32_t *d_out = NULL;
    size_t nb = (size_t)n * sizeof(uint64_t), ob = (size_t)n * 4 * sizeof(uint32_t);
    TRY(cudaMalloc((void **)&d_in, 3 * nb));
    TRY(cudaMalloc((void **)&d_out, 3 * ob));
    TRY(cudaMemcpy(d_in, seed, nb, cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(d_in + n, stream, nb, cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(d_in + 2 * (size_t)n, ctr, nb, cudaMemcpyHostToDevice));
    k_blocks<<<(n + 127) / 128, 128>>>(n, d_in, d_in + n, d_in + 2 * (size_t)n, d_out,
                                       d_out + 4 * (size_t)n, d_out + 8 * (size_t)n);
    TRY(cudaGetLastError());
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(out_sl, d_out, ob, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(out_raw, d_out + 4 * (size_t)n, ob, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(out_init, d_out + 8 * (size_t)n, ob, cudaMemcpyDeviceToHost));
    ok = 1;
done:
    cudaFree(d_in);
    cudaFree(d_out);
    return ok;
}

extern "C" int slt_gpu_raw(int n, const uint32_t *ctr, const uint32_t *key, uint32_t *out_sl,
                           uint32_t *out_curand, char *err, size_t errcap)
{
    int ok = 0;
    uint32_t *d = NULL;
    size_t cb = (size_t)n * 4 * sizeof(uint32_t), kb = (size_t)n * 2 * sizeof(uint32_t);
    TRY(cudaMalloc((void **)&d, 3 * cb + kb));
    TRY(cudaMemcpy(d, ctr, cb, cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(d + 4 * (size_t)n, key, kb, cudaMemcpyHostToDevice));
    k_raw<<<(n + 127) / 128, 128>>>(n, d, d + 4 * (size_t)n, d + 6 * (size_t)n,
                                    d + 10 * (size_t)n);
    TRY(cudaGetLastError());
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(out_sl, d + 6 * (size_t)n, cb, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(out_curand, d + 10 * (size_t)n, cb, cudaMemcpyDeviceToHost));
    ok = 1;
done:
    cudaFree(d);
    return ok;
}

extern "C" int slt_gpu_uniform(int n, int m, uint64_t seed, const uint64_t *stream, double *out,
                               char *err, size_t errcap)
{
    int ok = 0;
    uint64_t *d_s = NULL;
    double *d_o = NULL;
    TRY(cudaMalloc((void **)&d_s, (size_t)n * sizeof(uint64_t)));
    TRY(cudaMalloc((void **)&d_o, (size_t)n * m * sizeof(double)));
    TRY(cudaMemcpy(d_s, stream, (size_t)n * sizeof(uint64_t), cudaMemcpyHostToDevice));
    k_uniform<<<(n + 127) / 128, 128>>>(n, m, seed, d_s, d_o);
    TRY(cudaGetLastError());
    TRY(cudaDeviceSynchronize());
    TRY(cudaMemcpy(out, d_o, (size_t)n * m * sizeof(double), cudaMemcpyDeviceToHost));
    ok = 1;
done:
    cudaFree(d_s);
    cudaFree(d_o);
    return ok;
}
