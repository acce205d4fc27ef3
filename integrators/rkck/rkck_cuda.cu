/* rkck CUDA kernels: one per force and N, and a runtime-N one per force. */
#include "starling/instantiate.h"
#include "forces.h"
#include "rkck.h"

SL_INTEGRATOR_INSTANTIATE(rkck, SL_FORCES, SL_NBODIES)
