/* What run.c gives merge.c and megno.c: one pass of sl_integrate over an
 * ensemble all of whose bodies are live, and the checks it makes. merge.c
 * builds collision merging out of such passes (docs/ARCHITECTURE.md,
 * "Merging"). */
#ifndef SL_RUN_INTERNAL_H
#define SL_RUN_INTERNAL_H

#include "starling/registry.h"
#include "starling/run.h"
#include "pass_view.h"

/* A pass cut into segments that end at t_from + k length (the last at
 * t_end): every system stops at each end, between() sees the pass's
 * systems there and may change them, and the next segment starts afresh
 * from what it left, as a new call of sl_integrate would (the integrators
 * reopen, the step count of the fixed-step grid restarts), without the
 * copies, checks and energies of a new call. MEGNO samples this way
 * (megno.c). */
typedef struct sl__segments {
    double t_from, length;
    sl_status (*between)(void *ud, const sl__pass_view *w);
    void *ud;
} sl__segments;

/* Where a pass's systems started the call it belongs to, when not where
 * they are now: the step cap and the step-size floor count from there, the
 * log_every_dt schedule goes on from next_log, skip_initial leaves out
 * the initial log records (merge.c writes a merge record instead), and
 * user monitors see each system through view. time, steps and next_log
 * may be NULL (where they are now; the schedule from now). seg: NULL, or
 * the pass's segments. */
typedef struct sl__pass_start {
    const double *time;
    const int64_t *steps;
    const double *next_log;
    int skip_initial;
    const struct sl__monitor_view *view; /* what user monitors see (monitor_user.h) */
    const sl__segments *seg;
} sl__pass_start;

/* sl_integrate without merging (start NULL: a whole call). */
sl_status sl__integrate_pass(const sl_backend *be, sl_ensemble *e, const sl_run_config *c,
                             const sl__pass_start *start, sl_run_result *res);
/* sl_run_check without merging. */
sl_status sl__run_check_plain(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c);
/* The kernel for n_body bodies, refused when the backend cannot run it. */
sl_status sl__check_kernel(const sl_backend *be, const sl_run_config *c, int n_body,
                           const sl_kernel_entry **kernel);

#endif
