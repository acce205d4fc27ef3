/* Running an ensemble: sl_integrate advances every active system to t_end
 * (or until a monitor stops it) with one propagator and one force, on one
 * backend. Host<->device copies happen at the start and the end; log
 * records come back once per launch, and with user monitors the state
 * comes back (and statuses go out) once per launch too. */
#ifndef STARLING_RUN_H
#define STARLING_RUN_H

#include "starling/backend.h"
#include "starling/ensemble.h"
#include "starling/launch.h"

SL_EXTERN_C_BEGIN

/* Called after each launch; a non-zero return cancels the run. */
typedef int (*sl_progress_fn)(void *ud, double fraction, int64_t launches, double elapsed_s);
/* Receives log records (sorted by system, then time), rec_len doubles each:
 * system, time, step, event (SL_LOG_*), then x y z vx vy vz per body. */
typedef sl_status (*sl_log_sink_fn)(void *ud, const double *records, int64_t n, int rec_len);

typedef struct sl_run_config {
    const sl_propagator *prop;
    const sl_force *force;
    /* Where kernels for (prop, force) are looked for besides prop's own
     * table: every plugin's kernel sets (NULL: prop's table only).
     * starling's integrators carry theirs as kernel sets, so a run with
     * them names the registry they were loaded from. */
    const struct sl_registry *registry;
    double pp[SL_PROP_PARAMS_MAX]; /* from prop->pack; pp[0] is the step */
    double fp[SL_FORCE_PARAMS_MAX];/* from force->pack */
    /* The force's validated values fp was packed from (NULL: fp for every
     * system). With them, a force parameter named like an attribute of the
     * ensemble takes that attribute's value in each system (fparams.h):
     * validated, packed and handed to the kernels and to the host energy
     * diagnostics per system. */
    const sl_param_values *force_values;
    double t_end;
    int64_t max_steps;             /* 0: none; systems reaching it stop (STEP_CAP) */
    int64_t steps_per_launch;      /* 0: automatic */
    sl_monitor_config mon;
    sl_progress_fn progress;
    void *progress_ud;
    sl_log_sink_fn log_sink;
    void *log_ud;
    /* User monitors (monitor.h), prepared by the caller, who releases them
     * after the run; checked on the host after every launch, in this order
     * (the first that stops a system names the stop). */
    const sl_monitor_use *user_monitors;
    size_t n_user_monitors;
} sl_run_config;

typedef struct sl_run_result {
    double wall_s;        /* whole call */
    double kernel_s;      /* inside launches (synchronised) */
    int64_t launches;
    double system_steps;  /* steps taken, summed over systems */
    int64_t rejected_steps; /* steps an adaptive integrator tried and rejected, summed */
    int64_t n_active, n_stopped, n_failed;
    int64_t log_records;
    double *energy_error; /* per system |E/E0 - 1| over this call */
    double *angmom_error; /* per system |L - L0| / |L0| */
    char kernel[96];      /* which specialisation ran, e.g. hermite/newton/3 */
} sl_run_result;

void sl_run_config_init(sl_run_config *c);
sl_status sl_integrate(const sl_backend *be, sl_ensemble *e, const sl_run_config *c,
                       sl_run_result *res);
void sl_run_result_free(sl_run_result *res);
/* Everything sl_integrate refuses before it starts work, and nothing else:
 * what a dry run (starling.integrate{dry_run = true}) checks. */
sl_status sl_run_check(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c);

/* Total energy and angular momentum of system s (host); fp is system s's
 * force parameters (sl_fparams_get). */
void sl_system_energy(const sl_ensemble *e, int64_t s, const sl_force *f, const double *fp,
                      double *energy, double L[3]);

SL_EXTERN_C_END

#endif
