/* Monitors decide, after each step, whether to log a system and whether to
 * stop it. They are data-driven: each monitor plugin only fills its part of
 * sl_monitor_config, and the one generic loop checks the flags, so adding a
 * monitor does not multiply the number of compiled kernels. */
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
} sl_monitor_config;

void sl_monitor_config_default(sl_monitor_config *mc);

typedef struct sl_monitor {
    SL_TABLE_HEAD; /* kind SL_KIND_MONITOR */
    sl_status (*configure)(const sl_param_values *pv, sl_monitor_config *mc);
} sl_monitor;

SL_EXTERN_C_END

#endif
