/* rkck_adaptive CUDA kernels: one per force and N, and a runtime-N one per force. */
#include "starling/instantiate.h"
#include "forces.h"
#include "rkck_adaptive.h"

SL_INTEGRATOR_INSTANTIATE(rkck_adaptive, SL_FORCES, SL_NBODIES)
