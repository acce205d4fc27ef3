/* verlet CPU loops, body-count group C (see instantiate.h). */
#include "starling/instantiate.h"
#include "forces.h"
#include "verlet.h"

SL_INTEGRATOR_INSTANTIATE_CPU(verlet, SL_FORCES, SL_NBODIES_C)
