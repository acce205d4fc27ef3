/* The CUDA kernels of the test integrators of test_gpu_composition.c: the
 * 9-stage drift9 and the contract's slt_mdrift with the slt_drag force. */
#include "starling/instantiate.h"
#include "forces.h"
#include "integrators/drift_stages.h"
#include "integrators/mass_drift.h"

#define SLT_N3(X, ...) X(__VA_ARGS__, 3)
#define SL_P drift9
#define SL_F newton
#define SL_NBODIES SLT_N3
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"
#define SL_P slt_mdrift
#define SL_F slt_drag
#define SL_NBODIES SLT_MDRIFT_NBODIES
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"
