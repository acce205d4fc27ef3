/* Kepler-solve throughput kernels for bench/rv_bench.c: each thread solves
 * `per` equations (M from a per-thread sequence, e from the table) and
 * writes one sum, so the compiler cannot drop the work. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "starling/kepler.h"

__global__ void kb_double(const double *e, int n_e, int per, int which, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double ee = e[i % n_e], acc = 0.0, M = 1e-3 * (i & 1023);
    for (int k = 0; k < per; k++, M += 0.7853981633974483)
        acc += which ? sl_kepler_markley(M, ee) : sl_kepler_danby(M, ee);
    out[i] = acc;
}

__global__ void kb_float(const float *e, int n_e, int per, int which, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float ee = e[i % n_e], acc = 0.0f, M = 1e-3f * (i & 1023);
    for (int k = 0; k < per; k++, M += 0.7853981633974483f) {
        if (M > 6.283185307f)
            M -= 6.283185307f;
        acc += which ? sl_kepler_markley_f(M, ee) : sl_kepler_danby_f(M, ee);
    }
    out[i] = acc;
}

/* Returns solves per second (median of 5 timed launches after a warm-up),
 * or a negative number on a CUDA error (printed by the caller). */
extern "C" double rv_bench_cuda_solves(int is_float, int which, const double *e, int n_e)
{
    const int threads = 1 << 20, per = 256, block = 256;
    void *de = NULL, *dout = NULL;
    size_t es = is_float ? sizeof(float) : sizeof(double);
    if (cudaMalloc(&de, n_e * es) != cudaSuccess || cudaMalloc(&dout, threads * es) != cudaSuccess)
        return -1;
    float *ef = (float *)malloc(n_e * sizeof(float));
    for (int i = 0; i < n_e; i++)
        ef[i] = (float)e[i];
    cudaMemcpy(de, is_float ? (const void *)ef : (const void *)e, n_e * es, cudaMemcpyHostToDevice);
    free(ef);
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    float ms[6];
    for (int r = 0; r < 6; r++) {
        cudaEventRecord(a);
        if (is_float)
            kb_float<<<threads / block, block>>>((const float *)de, n_e, per, which, (float *)dout);
        else
            kb_double<<<threads / block, block>>>((const double *)de, n_e, per, which, (double *)dout);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms[r], a, b);
    }
    cudaError_t err = cudaGetLastError();
    cudaFree(de), cudaFree(dout);
    if (err != cudaSuccess) {
        fprintf(stderr, "rv_bench: %s\n", cudaGetErrorString(err));
        return -1;
    }
    /* median of launches 1..5 */
    for (int i = 1; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            if (ms[j] < ms[i]) { float t = ms[i]; ms[i] = ms[j]; ms[j] = t; }
    return (double)threads * per / (ms[3] * 1e-3);
}
