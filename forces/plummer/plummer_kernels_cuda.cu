/* CUDA kernels of the integrators this force was built against (hermite). */
#include "starling/instantiate.h"
#include "hermite/hermite.h"
#include "plummer.h"

/* Unrolled kernels for the body counts this force is meant for (few-body
 * systems); any other N runs the generic kernel. Each N costs compile time
 * and plugin size, so a force plugin instantiates only the N it needs. */
#define PLUMMER_NBODIES(X, ...) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3) X(__VA_ARGS__, 4)

SL_KERNELS_INSTANTIATE(hermite, plummer, PLUMMER_NBODIES)
