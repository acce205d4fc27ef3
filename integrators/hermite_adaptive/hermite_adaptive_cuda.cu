/* hermite_adaptive CUDA kernels: one per force and N, and a runtime-N one per force. */
#include "starling/instantiate.h"
#include "forces.h"
#include "hermite_adaptive.h"

SL_INTEGRATOR_INSTANTIATE(hermite_adaptive, SL_FORCES, SL_NBODIES)
