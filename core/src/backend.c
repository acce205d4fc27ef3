#include "starling/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "starling/version.h"

/* Implemented in backend_cuda.cu when built with CUDA. */
sl_status sl_cuda_open(int device, sl_backend *out);

int sl_cuda_built(void) { return SL_CORE_HAS_CUDA; }

static void open_cpu(sl_backend *out, const char *why)
{
    memset(out, 0, sizeof *out);
    out->kind = SL_BACKEND_CPU;
#ifdef _OPENMP
    out->threads = omp_get_max_threads();
#else
    out->threads = 1;
#endif
    snprintf(out->description, sizeof out->description, "cpu (%d OpenMP thread%s)%s%s",
             out->threads, out->threads == 1 ? "" : "s", why ? ": " : "", why ? why : "");
}

sl_status sl_backend_open(const char *spec, sl_backend *out)
{
    if (!spec)
        spec = "auto";
    if (strcmp(spec, "cpu") == 0) {
        open_cpu(out, NULL);
        return SL_OK;
    }
    if (strcmp(spec, "auto") == 0) {
        if (!SL_CORE_HAS_CUDA) {
            open_cpu(out, "auto, starling was built without CUDA");
            return SL_OK;
        }
        if (sl_cuda_device_count() < 1) {
            open_cpu(out, "auto, no CUDA device found");
            return SL_OK;
        }
        return sl_cuda_open(0, out);
    }
    if (strncmp(spec, "cuda", 4) == 0 && (spec[4] == '\0' || spec[4] == ':')) {
        int dev = 0;
        if (spec[4] == ':') {
            char *end;
            long d = strtol(spec + 5, &end, 10);
            if (*end || end == spec + 5 || d < 0)
                return sl_fail(SL_ERR_ARG, "backend '%s': expected cuda:N with N a device number",
                               spec);
            dev = (int)d;
        }
        if (!SL_CORE_HAS_CUDA)
            return sl_fail(SL_ERR_NODEVICE,
                           "backend '%s': this starling was built without CUDA "
                           "(configure with -DSL_CUDA=ON)", spec);
        return sl_cuda_open(dev, out);
    }
    return sl_fail(SL_ERR_ARG, "backend '%s': expected \"auto\", \"cpu\", \"cuda\" or \"cuda:N\"",
                   spec);
}

#if !SL_CORE_HAS_CUDA
sl_status sl_cuda_open(int device, sl_backend *out)
{
    (void)device, (void)out;
    return sl_fail(SL_ERR_NODEVICE, "starling was built without CUDA");
}
int sl_cuda_device_count(void) { return 0; }
static sl_status no_cuda(const char *what)
{
    return sl_fail(SL_ERR_NODEVICE, "%s: starling was built without CUDA", what);
}
sl_status sl_dev_alloc(void **p, size_t bytes, const char *what)
{
    (void)bytes;
    *p = NULL;
    return no_cuda(what);
}
void sl_dev_free(void *p) { (void)p; }
sl_status sl_dev_upload(void *d, const void *s, size_t n, const char *what)
{
    (void)d, (void)s, (void)n;
    return no_cuda(what);
}
sl_status sl_dev_download(void *d, const void *s, size_t n, const char *what)
{
    (void)d, (void)s, (void)n;
    return no_cuda(what);
}
sl_status sl_dev_zero(void *p, size_t n, const char *what)
{
    (void)p, (void)n;
    return no_cuda(what);
}
sl_status sl_dev_sync(const char *what) { return no_cuda(what); }
#endif
