/* hermite_adaptive CPU loops, body-count group B (see instantiate.h). */
#include "starling/instantiate.h"
#include "forces.h"
#include "hermite_adaptive.h"

SL_INTEGRATOR_INSTANTIATE_CPU(hermite_adaptive, SL_FORCES, SL_NBODIES_B)
