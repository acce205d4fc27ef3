/* Host entry point of gpu_hdmath.cu (the device arithmetic suite). Returns
 * 1 on success, else 0 with a message in err. */
#ifndef SLT_GPU_HDMATH_H
#define SLT_GPU_HDMATH_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* For each i, on the device: sl[4 i + k] starling's and cu[4 i + k]
 * CUDA's own of, k = 0..3, 1 / sqrt(x[i]) (SL_RSQRT, rsqrt), sqrt(x[i])
 * (SL_SQRT, sqrt), 1 / x[i] (SL_RCP, 1.0 / x) and y[i] / x[i] (SL_DIV, /). */
int slt_gpu_hdmath(int n, const double *x, const double *y, double *sl, double *cu, char *err,
                   size_t errcap);
#ifdef __cplusplus
}
#endif
#endif
