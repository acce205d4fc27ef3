/* Core's CUDA calls: each checked, failing with the call and what it was for. */
#ifndef SL_CUDA_TRY_H
#define SL_CUDA_TRY_H

#include <cuda_runtime.h>

#include "starling/status.h"

#define SL_CUDA_TRY(call, what)                                                            \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess)                                                           \
            return sl_fail(SL_ERR_CUDA, "%s: %s (%s)", (what), cudaGetErrorString(err_),   \
                           #call);                                                         \
    } while (0)

#endif
