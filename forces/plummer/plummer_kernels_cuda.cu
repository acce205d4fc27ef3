/* CUDA kernels of the integrators this force was built against (hermite). */
#include "starling/instantiate.h"
#include "hermite/hermite.h"
#include "plummer.h"

SL_KERNELS_INSTANTIATE(hermite, plummer, SL_NBODIES_A)
