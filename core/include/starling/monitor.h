/* Monitors decide whether to log a system and whether to stop it. There are
 * two sorts, and a monitor table may be either:
 *
 * Built-in (data-driven) monitors act after every step, inside the kernel.
 * Each only fills its part of sl_monitor_config in `configure`, and the one
 * generic loop (integrate.h) checks the flags, so adding such a monitor does
 * not multiply the number of compiled kernels; nor can it add a rule the
 * loop does not know.
 *
 * User monitors add a rule of their own: `check` is host code that starling
 * calls on each active system between launches (see "User monitors"
 * below). */
#ifndef STARLING_MONITOR_H
#define STARLING_MONITOR_H

#include <stdint.h>
#include "starling/params.h"
#include "starling/plugin.h"

SL_EXTERN_C_BEGIN

typedef struct sl_monitor_config {
    int64_t log_every_steps; /* 0: off */
    double log_every_dt;     /* 0: off */
    int log_on_stop;         /* log the state at which a system stops */
    double eject_r;          /* 0: off; stop when |x_i - x_0| > eject_r */
    double unbound_r;        /* < 0: off; stop when unbound from body 0 beyond this radius */
    double close_hill;       /* 0: off; stop when r_ij < close_hill * mutual Hill radius */
    double energy_max;       /* 0: off; stop when |E/E0 - 1| > energy_max */
    int64_t check_every;     /* energy check period in steps */
    int check_nonfinite;     /* mark non-finite systems failed */
    /* Collisions between bodies of finite size (off while both
     * collide_radius and collide_density are 0). Body b > 0 has radius
     * collide_radius, or (3 m_b / (4 pi collide_density))^(1/3) when the
     * density is > 0; body 0 has collide_central, or the same rule when
     * collide_central < 0. A pair closer than the sum of its radii stops
     * the system (SL_REASON_COLLISION, detail i*256+j). */
    double collide_radius;
    double collide_density;
    double collide_central;
    /* 1 merges the touching pair instead of stopping the system:
     * sl_integrate joins body j into body i (i < j; mass, momentum and
     * centre of mass kept), removes body j (sl_ensemble_remove_body) and
     * goes on with the survivors (docs/ARCHITECTURE.md, "Merging"). The
     * kernels never read it. */
    int collide_merge;
} sl_monitor_config;

void sl_monitor_config_default(sl_monitor_config *mc);

/* One system as a user monitor sees it: host copies, not strided (body b's
 * position is x[3b], x[3b+1], x[3b+2]; body 0 is the central body). Valid
 * only during the call. A body removed by a merge (the collision monitor's
 * merge) has m[b] = 0 and NaN position and velocity. */
typedef struct sl_monitor_system {
    int64_t index;    /* 0-based, in the ensemble */
    int n_body;
    double time;
    int64_t steps;    /* steps taken since the ensemble was created */
    const double *x;  /* 3 n_body */
    const double *v;  /* 3 n_body */
    const double *m;  /* n_body */
} sl_monitor_system;

enum { SL_MONITOR_CODES_MAX = 255 }; /* codes 1..255: detail % 256 holds one */

/* User monitors
 * -------------
 * A table that sets `check` is a user monitor. For a run, starling calls
 *
 *   prepare(pv, &ctx)   once, before the run, with the monitor's validated
 *                       parameters; it checks combinations the schema cannot
 *                       (an error names the key, e.g. "r_min = 5 must be
 *                       below r_max = 2") and makes a context (may be NULL).
 *                       Optional: without it ctx is NULL.
 *   check(ctx, sys)     after every launch, for every active system: 0 lets
 *                       the system go on, k in 1..n (n = the number of
 *                       `codes`, at most SL_MONITOR_CODES_MAX) stops it, with
 *                       codes[k - 1] naming why. Any other value fails the
 *                       run. check must be a pure function of (ctx, sys):
 *                       it is called concurrently for different systems with
 *                       the same ctx (OpenMP threads), so ctx is read-only
 *                       from prepare to release, and the same input must
 *                       give the same answer (that is what makes the CPU and
 *                       CUDA backends stop the same systems).
 *   release(ctx)        once, after the run (also after a failed one).
 *                       Optional.
 *
 * `codes` is a NULL-terminated list of short names (letters, digits, _),
 * e.g. {"too_close", "too_far", NULL}; the registry refuses a user monitor
 * without one. `configure` is optional for a user monitor; when given, it
 * may also switch on built-in checks.
 *
 * A stopped system gets status SL_SYS_STOPPED, reason SL_REASON_MONITOR,
 * stop_time = its time at the end of the launch, and detail = slot * 256 +
 * code, where slot indexes the ensemble's stop sources (ensemble.h:
 * sl_ensemble_stop_source and sl_stop_label turn it into "monitor NAME:
 * CODE"). When the log records stops (log on_stop), a stop record is written.
 *
 * Cost and granularity: the check runs between launches, not after every
 * step. A system is checked every steps_per_launch steps (the run's key
 * `steps_per_launch`; 0 means 1000, possibly fewer when a large log must fit
 * its buffer), so it may be up to that many steps past the moment the rule
 * first held, and its stop time is the launch's end. On the CUDA backend the
 * state, times, step counts and statuses come to the host after every launch
 * when, and only when, a user monitor is configured (56 n_body + 36 bytes
 * per system), and statuses go back when a system was stopped (20 bytes per
 * system); the CPU backend copies nothing. Smaller steps_per_launch means
 * finer checks and more copies and checks. Built-in monitors stay in the
 * kernel and cost nothing of this. */
typedef struct sl_monitor {
    SL_TABLE_HEAD; /* kind SL_KIND_MONITOR */
    sl_status (*configure)(const sl_param_values *pv, sl_monitor_config *mc);
    /* User monitors (see above); NULL in built-in monitors. */
    sl_status (*prepare)(const sl_param_values *pv, void **ctx);
    int (*check)(const void *ctx, const sl_monitor_system *sys);
    void (*release)(void *ctx);
    const char *const *codes;
} sl_monitor;

/* A prepared user monitor, as a run is given it (sl_run_config). */
typedef struct sl_monitor_use {
    const sl_monitor *monitor;
    const void *ctx; /* from prepare */
} sl_monitor_use;

/* The number of names in m->codes (0 when NULL). */
int sl_monitor_code_count(const sl_monitor *m);

SL_EXTERN_C_END

#endif
