/* Large host copies spread over the OpenMP threads.
 *
 * Staging to or from pinned memory for the GPU: one core's memcpy moves
 * roughly 5-10 GB/s and first-touches the destination's pages alone, so
 * for tens of MB it, not PCIe, sets the pace (Gowanlock et al. 2021). */
#ifndef STARLING_COPY_H
#define STARLING_COPY_H

#include <stddef.h>
#include "starling/hd.h"

SL_EXTERN_C_BEGIN

/* memcpy(dst, src, bytes) in 1 MiB pieces over the threads; one piece or
 * less runs on the caller's thread. The ranges must not overlap. */
void sl_copy_parallel(void *dst, const void *src, size_t bytes);

SL_EXTERN_C_END

#endif
