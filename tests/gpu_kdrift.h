/* Host entry point of gpu_kdrift.cu (the GPU Kepler-drift suite's device
 * code). Returns 1 on success, else 0 with a message in err. */
#ifndef SLT_GPU_KDRIFT_H
#define SLT_GPU_KDRIFT_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Drifts n states on the device: xv holds x then v of each (6 doubles),
 * overwritten; it receives sl_kepler_drift's return values. */
int slt_gpu_kdrift(int n, const double *gm, const double *dt, double *xv, int *it, char *err,
                   size_t errcap);
#ifdef __cplusplus
}
#endif
#endif
