/* The 9-stage test integrator's CUDA kernels (test_gpu_composition.c). */
#include "starling/instantiate.h"
#include "forces.h"
#include "integrators/drift_stages.h"

#define SLT_N3(X, ...) X(__VA_ARGS__, 3)
SL_INTEGRATOR_INSTANTIATE(drift9, SL_FORCES, SLT_N3)
