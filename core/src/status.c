#include "starling/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { SL_MSG_CAP = 2048 };
static _Thread_local char sl_msg[SL_MSG_CAP];

sl_status sl_fail(sl_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sl_msg, sizeof sl_msg, fmt, ap);
    va_end(ap);
    return code;
}

sl_status sl_fail_context(sl_status code, const char *fmt, ...)
{
    char prefix[SL_MSG_CAP / 2 - 2], old[SL_MSG_CAP / 2]; /* both fit with ": " */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, sl_msg, sizeof old);
    old[sizeof old - 1] = '\0';
    snprintf(sl_msg, sizeof sl_msg, "%s: %s", prefix, old);
    return code;
}

const char *sl_last_error(void) { return sl_msg; }
void sl_clear_error(void) { sl_msg[0] = '\0'; }

const char *sl_status_name(sl_status s)
{
    switch (s) {
    case SL_OK: return "ok";
    case SL_ERR_ARG: return "invalid argument";
    case SL_ERR_NOMEM: return "out of memory";
    case SL_ERR_IO: return "i/o error";
    case SL_ERR_PLUGIN: return "plugin error";
    case SL_ERR_CUDA: return "cuda error";
    case SL_ERR_NODEVICE: return "no gpu device";
    case SL_ERR_UNSUPPORTED: return "unsupported";
    case SL_ERR_NUMERIC: return "numeric error";
    case SL_ERR_INTERNAL: return "internal error";
    case SL_ERR_CANCELLED: return "cancelled";
    }
    return "unknown status";
}
