/* The CUDA kernels of the test integrators of test_gpu_adaptive.c: the
 * adaptive slt_heun and slt_badctl (adaptive_cases.h). */
#include "starling/instantiate.h"
#include "forces.h"
#include "integrators/bad_control.h"
#include "integrators/heun_adaptive.h"

#define SLT_HEUN_NBODIES(X, ...) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3)
SL_INTEGRATOR_INSTANTIATE(slt_heun, SL_FORCES, SLT_HEUN_NBODIES)
#define SLT_BADCTL_NBODIES(X, ...) X(__VA_ARGS__, 2)
SL_INTEGRATOR_INSTANTIATE(slt_badctl, SL_FORCES, SLT_BADCTL_NBODIES)
