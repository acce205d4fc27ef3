/* Built without CUDA: the cuda backend of this plugin says so. */
#include "ml_internal.h"

sl_status sl_ml_cuda_magnification(const sl_backend *be, const sl_ml_batch *b, double *A)
{
    (void)be;
    (void)b;
    (void)A;
    return sl_fail(SL_ERR_NODEVICE, "microlensing: this plugin was built without CUDA");
}
