/* Newtonian gravity, the force the tests' own integrators carry kernels
 * for in their tables (starling/kernels.inc with SL_KERNELS_OWN_TABLE). */
#ifndef STARLING_FORCES_H
#define STARLING_FORCES_H

#include "starling/forces/newton.h"


#endif
