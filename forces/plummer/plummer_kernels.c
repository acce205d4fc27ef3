/* CPU kernels of the integrators this force was built against (hermite),
 * N = 2..9 unrolled and a runtime-N fallback. */
#include "starling/instantiate.h"
#include "hermite/hermite.h"
#include "plummer.h"

SL_KERNELS_INSTANTIATE(hermite, plummer, SL_NBODIES_A)
