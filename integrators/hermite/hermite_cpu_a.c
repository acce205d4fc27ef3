/* Hermite CPU specialisations, body-count group A (see instantiate.h). */
#include "starling/instantiate.h"
#include "forces.h"
#include "hermite.h"

SL_INTEGRATOR_INSTANTIATE_CPU(hermite, SL_FORCES, SL_NBODIES_A)
