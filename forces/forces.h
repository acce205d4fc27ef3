/* The built-in forces every in-tree integrator is instantiated against.
 * A new force written as SL_HD functions (see core force.h) joins here. */
#ifndef STARLING_FORCES_H
#define STARLING_FORCES_H

#include "starling/forces/newton.h" /* forces/newton/newton.h in the tree */

#define SL_FORCES(X, ...) X(__VA_ARGS__, newton)

#endif
