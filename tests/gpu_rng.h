/* Host entry points of gpu_rng.cu (the GPU RNG suite's device code).
 * Each returns 1 on success, else 0 with a message in err. */
#ifndef SLT_GPU_RNG_H
#define SLT_GPU_RNG_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
int slt_gpu_blocks(int n, const uint64_t *seed, const uint64_t *stream, const uint64_t *ctr,
                   uint32_t *out_sl, uint32_t *out_raw, uint32_t *out_init, char *err,
                   size_t errcap);
int slt_gpu_raw(int n, const uint32_t *ctr, const uint32_t *key, uint32_t *out_sl,
                uint32_t *out_curand, char *err, size_t errcap);
int slt_gpu_uniform(int n, int m, uint64_t seed, const uint64_t *stream, double *out, char *err,
                    size_t errcap);
#ifdef __cplusplus
}
#endif
#endif
