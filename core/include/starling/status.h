/* Status codes and the thread-local last-error message. */
#ifndef STARLING_STATUS_H
#define STARLING_STATUS_H

#include "starling/hd.h"

SL_EXTERN_C_BEGIN

typedef enum sl_status {
    SL_OK = 0,
    SL_ERR_ARG,        /* bad argument or configuration value */
    SL_ERR_NOMEM,      /* allocation failed (host or device) */
    SL_ERR_IO,         /* file could not be read or written */
    SL_ERR_PLUGIN,     /* plugin missing, broken or incompatible */
    SL_ERR_CUDA,       /* a CUDA call or kernel launch failed */
    SL_ERR_NODEVICE,   /* a GPU was asked for and none is usable */
    SL_ERR_UNSUPPORTED,/* the combination asked for is not built in */
    SL_ERR_NUMERIC,    /* non-finite result where one is not allowed */
    SL_ERR_INTERNAL,
    SL_ERR_CANCELLED   /* stopped on request (sl_cancel_request, e.g. Ctrl-C) */
} sl_status;

/* Sets the calling thread's message (printf-style) and returns `code`, so a
 * failing function can write `return sl_fail(SL_ERR_ARG, "...", ...)`. */
sl_status sl_fail(sl_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefixes the current message with context ("while loading X: ..."). */
sl_status sl_fail_context(sl_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

const char *sl_last_error(void);
void sl_clear_error(void);
const char *sl_status_name(sl_status s);

SL_EXTERN_C_END

#endif
