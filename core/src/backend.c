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

sl_status sl_backend_parse(const char *spec, sl_backend_spec *out)
{
    *out = (sl_backend_spec){SL_BACKEND_AUTO, 0};
    if (!spec || !strcmp(spec, "auto"))
        return SL_OK;
    if (!strcmp(spec, "cpu")) {
        out->choice = SL_BACKEND_WANT_CPU;
        return SL_OK;
    }
    if (!strncmp(spec, "cuda", 4) && (spec[4] == '\0' || spec[4] == ':')) {
        out->choice = SL_BACKEND_WANT_CUDA;
        if (!spec[4])
            return SL_OK;
        /* digits only: no sign, no blanks, no hex, and a number an int holds */
        const char *d = spec + 5;
        size_t n = strspn(d, "0123456789");
        if (n > 0 && n < 10 && !d[n]) {
            out->device = atoi(d);
            return SL_OK;
        }
    }
    return sl_fail(SL_ERR_ARG, "backend \"%s\": expected " SL_BACKEND_SPECS, spec);
}

sl_status sl_backend_open_for(const char *spec, unsigned can, const char *who, sl_backend *out)
{
    sl_backend_spec want;
    sl_status st = sl_backend_parse(spec, &want);
    if (st)
        return st;
    const char *name = spec ? spec : "auto";
    int cpu = (can & SL_BACKEND_CAN_CPU) != 0, cuda = (can & SL_BACKEND_CAN_CUDA) != 0;
    who = who ? who : "the plugin";
    if (want.choice == SL_BACKEND_WANT_CPU && !cpu)
        return sl_fail(SL_ERR_UNSUPPORTED, "backend \"%s\": %s runs on CUDA only", name, who);
    if (want.choice == SL_BACKEND_WANT_CUDA && !cuda)
        return sl_fail(SL_ERR_UNSUPPORTED, "backend \"%s\": %s runs on the CPU only (built "
                       "without CUDA code); use backend = \"cpu\" or \"auto\"", name, who);
    switch (want.choice) {
    case SL_BACKEND_WANT_CPU:
        open_cpu(out, NULL);
        return SL_OK;
    case SL_BACKEND_AUTO: {
        const char *no_gpu = !SL_CORE_HAS_CUDA ? "starling was built without CUDA"
                             : sl_cuda_device_count() < 1 ? "no CUDA device found"
                                                          : NULL;
        if (cuda && !no_gpu)
            return sl_cuda_open(0, out);
        if (!cpu)
            return sl_fail(SL_ERR_NODEVICE, "backend \"%s\": %s runs on CUDA only, and %s",
                           name, who, no_gpu);
        char why[200]; /* who is a plugin's name: short */
        snprintf(why, sizeof why, "auto, %s%s", cuda ? no_gpu : who, cuda ? "" : " runs on the "
                 "CPU only");
        open_cpu(out, why);
        return SL_OK;
    }
    case SL_BACKEND_WANT_CUDA:
        break;
    }
    if (!SL_CORE_HAS_CUDA)
        return sl_fail(SL_ERR_NODEVICE, "backend \"%s\": this starling was built without CUDA "
                       "(configure with -DSL_CUDA=ON)", name);
    st = sl_cuda_open(want.device, out);
    return st ? sl_fail_context(st, "backend \"%s\"", name) : SL_OK;
}

sl_status sl_backend_open(const char *spec, sl_backend *out)
{
    return sl_backend_open_for(spec, SL_BACKEND_CAN_CPU | SL_BACKEND_CAN_CUDA, NULL, out);
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
sl_status sl_dev_copy(void *d, const void *s, size_t n, const char *what)
{
    (void)d, (void)s, (void)n;
    return no_cuda(what);
}
sl_status sl_dev_sync(const char *what) { return no_cuda(what); }
#endif
