/* rkck CPU loops, body-count group C (see instantiate.h). */
#include "starling/instantiate.h"
#include "forces.h"
#include "rkck.h"

SL_INTEGRATOR_INSTANTIATE_CPU(rkck, SL_FORCES, SL_NBODIES_C)
