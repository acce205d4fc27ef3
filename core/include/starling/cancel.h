/* Cooperative cancellation. A front end (the CLI's SIGINT/SIGTERM handler)
 * requests it; long loops in the library poll it between units of work
 * (kernel launches, objects, chunks) and return SL_ERR_CANCELLED, so that
 * every caller unwinds normally and removes what it was writing. The
 * library itself never installs handlers, prints or exits. */
#ifndef STARLING_CANCEL_H
#define STARLING_CANCEL_H

#include "starling/status.h"

SL_EXTERN_C_BEGIN

/* Async-signal-safe: only stores `why` (non-zero, e.g. the signal number). */
void sl_cancel_request(int why);
/* 0, or the `why` of the pending request. */
int sl_cancelled(void);
/* Forgets a request (a front end that carries on after reporting it). */
void sl_cancel_reset(void);

/* SL_ERR_CANCELLED with "<context>: cancelled", when a request is pending;
 * SL_OK otherwise. For loops: `if ((st = sl_cancel_check("lombscargle"))) break;` */
sl_status sl_cancel_check(const char *context);

SL_EXTERN_C_END

#endif
