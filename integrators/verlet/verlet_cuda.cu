/* verlet CUDA kernels: one per force and N, and a runtime-N one per force. */
#include "starling/instantiate.h"
#include "forces.h"
#include "verlet.h"

SL_INTEGRATOR_INSTANTIATE(verlet, SL_FORCES, SL_NBODIES)
