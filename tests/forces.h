/* The forces the tests' own integrators carry kernels for in their tables
 * (SL_INTEGRATOR_INSTANTIATE(P, SL_FORCES, ...)). */
#ifndef STARLING_FORCES_H
#define STARLING_FORCES_H

#include "starling/forces/newton.h"

#define SL_FORCES(X, ...) X(__VA_ARGS__, newton)

#endif
