/* The CUDA kernels of the test integrators of test_gpu_adaptive.c: the
 * adaptive slt_heun and slt_badctl (adaptive_cases.h). */
#include "starling/instantiate.h"
#include "forces.h"
#include "integrators/bad_control.h"
#include "integrators/heun_adaptive.h"

#define SLT_HEUN_NBODIES(X, ...) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3)
#define SL_P slt_heun
#define SL_F newton
#define SL_NBODIES SLT_HEUN_NBODIES
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"
#define SLT_BADCTL_NBODIES(X, ...) X(__VA_ARGS__, 2)
#define SL_P slt_badctl
#define SL_F newton
#define SL_NBODIES SLT_BADCTL_NBODIES
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"
