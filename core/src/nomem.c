#define _DEFAULT_SOURCE
#include "starling/nomem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

void sl_fmt_bytes(char *buf, size_t cap, double bytes)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (!(bytes >= 1024.0)) {
        snprintf(buf, cap, "%.0f byte%s", bytes, bytes == 1.0 ? "" : "s");
        return;
    }
    int u = -1;
    while (bytes >= 1024.0 && u < 5)
        bytes /= 1024.0, u++;
    snprintf(buf, cap, "%.*f %s", bytes < 10.0 ? 2 : bytes < 100.0 ? 1 : 0, bytes, unit[u]);
}

double sl_host_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

/* "<context>: out of memory (needs X of host memory[; this machine has Y])" */
static sl_status vfail_host(double bytes, const char *fmt, va_list ap)
{
    char ctx[1024], need[32], have[64] = "";
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    sl_fmt_bytes(need, sizeof need, bytes);
    double host = sl_host_memory_bytes();
    if (host > 0 && bytes > host) {
        char h[32];
        sl_fmt_bytes(h, sizeof h, host);
        snprintf(have, sizeof have, "; this machine has %s", h);
    }
    return sl_fail(SL_ERR_NOMEM, "%s: out of memory (needs %s of host memory%s)", ctx, need, have);
}

sl_status sl_fail_nomem(double bytes, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sl_status st = vfail_host(bytes, fmt, ap);
    va_end(ap);
    return st;
}

sl_status sl_fail_nomem_gpu(double bytes, double free_bytes, const char *fmt, ...)
{
    char ctx[1024], need[32], avail[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    sl_fmt_bytes(need, sizeof need, bytes);
    if (!(free_bytes >= 0))
        return sl_fail(SL_ERR_NOMEM, "%s: out of memory on the GPU (needs %s)", ctx, need);
    sl_fmt_bytes(avail, sizeof avail, free_bytes);
    return sl_fail(SL_ERR_NOMEM, "%s: out of memory on the GPU (needs %s, the device has %s free)",
                   ctx, need, avail);
}

sl_status sl_host_fits(double bytes, const char *fmt, ...)
{
    double host = sl_host_memory_bytes();
    if (bytes <= (double)(SIZE_MAX / 2) && (host <= 0 || bytes <= host))
        return SL_OK;
    va_list ap;
    va_start(ap, fmt);
    sl_status st = vfail_host(bytes, fmt, ap);
    va_end(ap);
    return st;
}
