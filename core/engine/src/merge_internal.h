/* What merge.c gives run_entry.c: whether a call merges (the collision
 * monitor's merge, or an ensemble with removed bodies), its checks, and the
 * call. */
#ifndef SL_MERGE_INTERNAL_H
#define SL_MERGE_INTERNAL_H

#include "starling/run.h"

int sl__merging(const sl_ensemble *e, const sl_run_config *c);
sl_status sl__merge_check(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c);
sl_status sl__integrate_merging(const sl_backend *be, sl_ensemble *e, const sl_run_config *c,
                                sl_run_result *res);

#endif
