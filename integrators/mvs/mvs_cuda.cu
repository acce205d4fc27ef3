/* mvs plugin: CUDA specialisations (one kernel per force and N). */
#include "starling/instantiate.h"
#include "forces.h"
#include "mvs.h"

SL_INTEGRATOR_INSTANTIATE(mvs, SL_FORCES, SL_NBODIES)
