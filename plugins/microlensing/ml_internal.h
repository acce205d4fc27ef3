/* Inside the microlensing plugin: what ml_plugin.c and the CUDA side share. */
#ifndef STARLING_ML_INTERNAL_H
#define STARLING_ML_INTERNAL_H

#include "microlensing.h"

SL_EXTERN_C_BEGIN

/* The checked batch on the CUDA backend (ml_cuda.cu, or ml_nocuda.c in a
 * build without CUDA, which says so). */
sl_status sl_ml_cuda_magnification(const sl_backend *be, const sl_ml_batch *b, double *A);

SL_EXTERN_C_END

#endif
