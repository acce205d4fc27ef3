/* For the device code of GPU suites: TRY(call) runs a CUDA runtime call
 * and, on an error, writes "call: message" into err (errcap bytes) and
 * jumps to the function's `done:` label. */
#ifndef SLT_CUDA_TRY_H
#define SLT_CUDA_TRY_H
#include <cuda_runtime.h>
#include <stdio.h>

#define TRY(call)                                                                          \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            snprintf(err, errcap, "%s: %s", #call, cudaGetErrorString(e_));                \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

#endif
