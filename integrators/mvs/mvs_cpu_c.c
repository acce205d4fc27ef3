/* mvs CPU specialisations, body-count group C (see instantiate.h). */
#include "starling/instantiate.h"
#include "forces.h"
#include "mvs.h"

SL_INTEGRATOR_INSTANTIATE_CPU(mvs, SL_FORCES, SL_NBODIES_C)
