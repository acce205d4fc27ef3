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

/* What a backend spec asks for. */
typedef enum sl_backend_choice {
    SL_BACKEND_AUTO = 0, /* CUDA when built with it and a device is usable, else the CPU */
    SL_BACKEND_WANT_CPU,
    SL_BACKEND_WANT_CUDA
} sl_backend_choice;

typedef struct sl_backend_spec {
    sl_backend_choice choice;
    int device; /* SL_BACKEND_WANT_CUDA: the device ordinal (0 for plain "cuda") */
} sl_backend_spec;

/* What every front end says a backend spec may be. */
#define SL_BACKEND_SPECS "\"auto\", \"cpu\", \"cuda\" or \"cuda:N\" (N a device number)"

/* The one parser of backend specs: "auto", "cpu", "cuda" or "cuda:N" with
 * N decimal digits only (NULL: "auto"). Anything else fails with SL_ERR_ARG
 * and the message `backend "SPEC": expected ` SL_BACKEND_SPECS. */
sl_status sl_backend_parse(const char *spec, sl_backend_spec *out);

/* Parses and opens spec; the messages name the spec as `backend "SPEC": `. */
sl_status sl_backend_open(const char *spec, sl_backend *out);

/* What a plugin can run on (sl_likelihood.backends). */
enum { SL_BACKEND_CAN_CPU = 1u << 0, SL_BACKEND_CAN_CUDA = 1u << 1 };

/* As sl_backend_open, for a plugin that can run on `can` only; `who` names
 * it in messages ("likelihood 'x'"). "auto" picks CUDA only when the plugin
 * can run there (else the CPU, and the description says why); "cuda" for a
 * plugin without SL_BACKEND_CAN_CUDA, or "cpu" for one without
 * SL_BACKEND_CAN_CPU, fails with SL_ERR_UNSUPPORTED naming the plugin. */
sl_status sl_backend_open_for(const char *spec, unsigned can, const char *who, sl_backend *out);

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
/* Device to device, on the current device. */
sl_status sl_dev_copy(void *dst, const void *src, size_t bytes, const char *what);
sl_status sl_dev_sync(const char *what);

SL_EXTERN_C_END

#endif
