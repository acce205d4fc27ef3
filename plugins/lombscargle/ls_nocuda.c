/* Built without CUDA: the cuda backend of this plugin says so. */
#include "ls_internal.h"

sl_status sl_ls_cuda_run(sl_ls_job *j)
{
    (void)j;
    return sl_fail(SL_ERR_NODEVICE, "lombscargle: this plugin was built without CUDA");
}

void sl_ls_cuda_free(void *device_ptr) { (void)device_ptr; }
