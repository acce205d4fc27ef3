/* Host entry point of gpu_rsqrt.cu (the device 1/sqrt suite). Returns 1 on
 * success, else 0 with a message in err. */
#ifndef SLT_GPU_RSQRT_H
#define SLT_GPU_RSQRT_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* For each x[i]: SL_RSQRT on the device (starling's) into sl[i] and CUDA's
 * rsqrt into cu[i]. */
int slt_gpu_rsqrt(int n, const double *x, double *sl, double *cu, char *err, size_t errcap);
#ifdef __cplusplus
}
#endif
#endif
