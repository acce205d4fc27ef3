/* The leapfrog plugin's CUDA kernels: the same macro as leapfrog.c, here
 * compiled by nvcc into one kernel per (force, N) and its launcher. */
#include <starling/forces/forces.h>
#include <starling/instantiate.h>
#include "leapfrog.h"

SL_INTEGRATOR_INSTANTIATE(leapfrog, SL_FORCES, LEAPFROG_NBODIES)
