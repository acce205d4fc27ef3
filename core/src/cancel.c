#include "starling/cancel.h"

#include <signal.h>

/* sig_atomic_t: the one type a signal handler may store to. volatile so
 * that loops re-read it. */
static volatile sig_atomic_t sl_cancel_why;

void sl_cancel_request(int why) { sl_cancel_why = why ? why : 1; }
int sl_cancelled(void) { return (int)sl_cancel_why; }
void sl_cancel_reset(void) { sl_cancel_why = 0; }

sl_status sl_cancel_check(const char *context)
{
    if (!sl_cancel_why)
        return SL_OK;
    return sl_fail(SL_ERR_CANCELLED, "%s: cancelled", context);
}
