/* User monitors (monitor.h: check) inside the library: the run's checks
 * of its configuration and the host pass that run.c makes after every
 * launch. */
#ifndef STARLING_MONITOR_USER_H
#define STARLING_MONITOR_USER_H

#include <stddef.h>
#include "starling/run.h"

/* The run's user monitors are usable: each has a table that passes
 * sl_monitor_table_problem, and none is given twice. */
sl_status sl_user_monitors_valid(const sl_run_config *c);

/* How a monitor sees a compacted ensemble (merge.c): system k is system
 * sys[k] of an ensemble of n_body bodies, of which bmap[k * L + b] is
 * body b; the others are removed (mass 0, NaN state). */
typedef struct sl__monitor_view {
    const int64_t *sys;
    const int *bmap;
    int L, n_body;
} sl__monitor_view;

/* Checks every active system of e (host arrays, current after the launch)
 * with c's user monitors, in parallel; stops those a monitor stops (status,
 * reason, detail, stop_time) and sends their stop records to c->log_sink
 * when c->mon.log_on_stop is set. *stopped counts them, *ended those of
 * them short of t_end. A code outside 0..n_codes fails the run, naming
 * the monitor, the system and the code, before any system is changed.
 * view (NULL: none) shows the monitors each system as the whole one it
 * stands for: its index there and every body. */
sl_status sl_user_monitors_check(sl_ensemble *e, const sl_run_config *c,
                                 const struct sl__monitor_view *view, int64_t *stopped,
                                 int64_t *ended);

#endif
