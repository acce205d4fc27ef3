/* The CUDA kernels of the test integrators of test_gpu_composition.c: the
 * 9-stage drift9 and the contract's slt_mdrift with the slt_drag force. */
#include "starling/instantiate.h"
#include "forces.h"
#include "integrators/drift_stages.h"
#include "integrators/mass_drift.h"

#define SLT_N3(X, ...) X(__VA_ARGS__, 3)
SL_INTEGRATOR_INSTANTIATE(drift9, SL_FORCES, SLT_N3)
SL_INTEGRATOR_INSTANTIATE(slt_mdrift, SLT_DRAG_FORCES, SLT_MDRIFT_NBODIES)
