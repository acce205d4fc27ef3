/* Backends: `cpu` (OpenMP over systems) and `cuda`. `auto` picks CUDA when
 * starling was built with it and a device is usable, else the CPU, and the
 * backend's description says which. Device memory helpers are here so that
 * plugins need no CUDA headers of their own for plain copies. */
#ifndef STARLING_BACKEND_H
#define STARLING_BACKEND_H

#include <stddef.h>
#include "starling/status.h"

SL_EXTERN_C_BEGIN

typedef enum sl_backend_kind { SL_BACKEND_CPU = 0, SL_BACKEND_CUDA = 1 } sl_backend_kind;

typedef struct sl_backend {
    sl_backend_kind kind;
    int device;          /* CUDA device ordinal */
    int threads;         /* OpenMP threads for the CPU backend */
    int sm_count;        /* multiprocessors (CUDA) */
    size_t mem_bytes;    /* device memory (CUDA) */
    char description[256];
} sl_backend;

/* spec: "auto", "cpu", "cuda" or "cuda:N". */
sl_status sl_backend_open(const char *spec, sl_backend *out);

int sl_cuda_built(void);
/* Number of usable CUDA devices; 0 when none or when built without CUDA. */
int sl_cuda_device_count(void);

/* Device memory on the current device. Out of memory fails with SL_ERR_NOMEM
 * "<what>: out of memory on the GPU (needs X, the device has Y free)";
 * every device allocation goes through here so that they all say so. */
sl_status sl_dev_alloc(void **p, size_t bytes, const char *what);
void sl_dev_free(void *p);
sl_status sl_dev_upload(void *dst, const void *src, size_t bytes, const char *what);
sl_status sl_dev_download(void *dst, const void *src, size_t bytes, const char *what);
sl_status sl_dev_zero(void *p, size_t bytes, const char *what);
sl_status sl_dev_sync(const char *what);

SL_EXTERN_C_END

#endif
