/* Out-of-memory failures that keep their cause: what failed and how much it
 * needed, so that "ensemble of 1e9 systems" says whether to shrink the run
 * or move it to a bigger machine. */
#ifndef STARLING_NOMEM_H
#define STARLING_NOMEM_H

#include <stddef.h>

#include "starling/status.h"

SL_EXTERN_C_BEGIN

/* A byte count for people: "512 bytes", "3.2 KiB", "74.5 GiB" (1024-based,
 * three significant figures). */
void sl_fmt_bytes(char *buf, size_t cap, double bytes);

/* Physical memory of this machine in bytes, 0 when it cannot be read. */
double sl_host_memory_bytes(void);

/* SL_ERR_NOMEM with "<context>: out of memory (needs 74.5 GiB of host
 * memory)", adding "; this machine has 23.4 GiB" when the need exceeds the
 * physical memory. Takes the need as a double so that a product that would
 * overflow size_t still reads right. */
sl_status sl_fail_nomem(double bytes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* SL_ERR_NOMEM with "<context>: out of memory on the GPU (needs 74.5 GiB,
 * the device has 79.1 GiB free)"; free_bytes < 0 leaves the free memory out. */
sl_status sl_fail_nomem_gpu(double bytes, double free_bytes, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* SL_OK when `bytes` of host memory that will all be touched (allocated
 * and written) can fit this machine, else sl_fail_nomem: asking the
 * allocator for more than the machine has ends in the OOM killer under
 * overcommit instead of an error. */
sl_status sl_host_fits(double bytes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

SL_EXTERN_C_END

#endif
