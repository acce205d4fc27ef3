/* sl_run_check and sl_integrate: a call that merges (merge.c) is a sequence
 * of passes; any other is one pass (run.c). Choosing here keeps run.c's
 * passes free of merging, so merge.c builds on run.c and not the reverse. */
#include "starling/run.h"
#include "merge_internal.h"
#include "run_internal.h"

sl_status sl_run_check(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c)
{
    if (sl__merging(e, c))
        return sl__merge_check(be, e, c);
    return sl__run_check_plain(be, e, c);
}

sl_status sl_integrate(const sl_backend *be, sl_ensemble *e, const sl_run_config *c,
                       sl_run_result *res)
{
    if (sl__merging(e, c))
        return sl__integrate_merging(be, e, c, res);
    return sl__integrate_pass(be, e, c, NULL, res);
}
