/* Hermite plugin: CUDA specialisations (one kernel per force and N). */
#include "starling/instantiate.h"
#include "forces.h"
#include "hermite.h"

SL_INTEGRATOR_INSTANTIATE(hermite, SL_FORCES, SL_NBODIES)
