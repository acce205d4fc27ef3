/* rkck_adaptive CPU loops, body-count group A (see instantiate.h). */
#include "starling/instantiate.h"
#include "forces.h"
#include "rkck_adaptive.h"

SL_INTEGRATOR_INSTANTIATE_CPU(rkck_adaptive, SL_FORCES, SL_NBODIES_A)
