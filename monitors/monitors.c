/* The built-in monitors. Each fills its part of sl_monitor_config; the
 * generic loop in integrate.h acts on it. */
#include <math.h>
#include "starling/monitor.h"
#include "starling/plugin.h"

static const sl_param mlog_params[] = {
    {"every", SL_PARAM_INTEGER, 0, 0, 1e15, 0, "log every k steps (0: off)", NULL, NULL},
    {"dt", SL_PARAM_NUMBER, 0, 0, 1e300, 0, "log every dt of simulated time (0: off)", NULL, NULL},
    {"on_stop", SL_PARAM_BOOL, 1, 0, 1, 0, "log the state at which a system stops", NULL, NULL},
};

static sl_status mlog_configure(const sl_param_values *pv, sl_monitor_config *mc)
{
    mc->log_every_steps = (int64_t)sl_params_get(pv, "every");
    mc->log_every_dt = sl_params_get(pv, "dt");
    mc->log_on_stop = sl_params_get(pv, "on_stop") != 0;
    if (mc->log_every_steps == 0 && mc->log_every_dt == 0)
        return sl_fail(SL_ERR_ARG, "monitor 'log': give 'every' (steps) or 'dt' (time)");
    return SL_OK;
}

static const sl_param meject_params[] = {
    {"r", SL_PARAM_NUMBER, 100, 1e-300, 1e300, 0,
     "distance from the central body (body 1)", NULL, NULL},
    {"unbound", SL_PARAM_BOOL, 0, 0, 1, 0,
     "stop only bodies beyond r that are also unbound from the central body", NULL, NULL},
};

static sl_status meject_configure(const sl_param_values *pv, sl_monitor_config *mc)
{
    double r = sl_params_get(pv, "r");
    if (sl_params_get(pv, "unbound") != 0)
        mc->unbound_r = r;
    else
        mc->eject_r = r;
    return SL_OK;
}

static const sl_param mclose_params[] = {
    {"hill", SL_PARAM_NUMBER, 1.0, 1e-300, 1e6, 0,
     "stop when two planets come closer than hill x their mutual Hill radius", NULL, NULL},
};

static sl_status mclose_configure(const sl_param_values *pv, sl_monitor_config *mc)
{
    mc->close_hill = sl_params_get(pv, "hill");
    return SL_OK;
}

static const sl_param mnonfinite_params[] = {
    {"enabled", SL_PARAM_BOOL, 1, 0, 1, 0, "mark systems with NaN/Inf state failed", NULL, NULL},
};

static sl_status mnonfinite_configure(const sl_param_values *pv, sl_monitor_config *mc)
{
    mc->check_nonfinite = sl_params_get(pv, "enabled") != 0;
    return SL_OK;
}

static const sl_param menergy_params[] = {
    {"max", SL_PARAM_NUMBER, 0, 1e-300, 1e300, 1,
     "stop a system when |E/E0 - 1| exceeds this", NULL, NULL},
    {"every", SL_PARAM_INTEGER, 100, 1, 1e15, 0, "check every k steps", NULL, NULL},
};

static sl_status menergy_configure(const sl_param_values *pv, sl_monitor_config *mc)
{
    mc->energy_max = sl_params_get(pv, "max");
    mc->check_every = (int64_t)sl_params_get(pv, "every");
    return SL_OK;
}

static const sl_param mcollide_params[] = {
    {"radius", SL_PARAM_NUMBER, 0, 0, 1e300, 0,
     "radius of every body but body 1 (units of x); 0: see density", NULL, NULL},
    {"density", SL_PARAM_NUMBER, 0, 0, 1e300, 0,
     "radii from masses, (3 m / (4 pi density))^(1/3) (units of mass / x^3); 0: off", NULL,
     NULL},
    {"central_radius", SL_PARAM_NUMBER, NAN, 0, 1e300, 0, "radius of body 1, the central body",
     NULL, "the other bodies' rule"},
    {"merge", SL_PARAM_BOOL, 0, 0, 1, 0,
     "join the two bodies (mass, momentum and centre of mass kept) and go on, instead of "
     "stopping the system", NULL, NULL},
};

static sl_status mcollide_configure(const sl_param_values *pv, sl_monitor_config *mc)
{
    double r = sl_params_get(pv, "radius"), rho = sl_params_get(pv, "density"),
           rc = sl_params_get(pv, "central_radius");
    if ((r > 0) == (rho > 0))
        return sl_fail(SL_ERR_ARG, "monitor 'collision': give one of 'radius' (%g) and "
                       "'density' (%g), > 0", r, rho);
    mc->collide_radius = rho > 0 ? 0.0 : r;
    mc->collide_density = rho;
    mc->collide_central = isnan(rc) ? -1.0 : rc;
    mc->collide_merge = sl_params_get(pv, "merge") != 0.0;
    return SL_OK;
}

#define MONITOR(ID, NAME, DOC)                                                             \
    static const sl_monitor ID = {                                                         \
        .abi = SL_ABI_VERSION,                                                             \
        .kind = SL_KIND_MONITOR,                                                           \
        .name = NAME,                                                                      \
        .description = DOC,                                                                \
        .params = ID##_params,                                                             \
        .n_params = sizeof ID##_params / sizeof ID##_params[0],                            \
        .configure = ID##_configure,                                                       \
    }

MONITOR(mlog, "log", "write snapshots every k steps or every dt into the run's log");
MONITOR(meject, "eject", "stop a system when a body leaves radius r (optionally: and is unbound)");
MONITOR(mclose, "close_encounter", "stop a system on a close encounter between planets");
MONITOR(mnonfinite, "nonfinite", "mark a system failed when its state becomes NaN or Inf");
MONITOR(menergy, "energy", "stop a system whose relative energy error exceeds a bound");
MONITOR(mcollide, "collision", "stop a system when two bodies touch, or merge them (radii "
                               "fixed or from a density)");

static const sl_plugin_table tables[] = {
    {SL_KIND_MONITOR, "log", &mlog},
    {SL_KIND_MONITOR, "eject", &meject},
    {SL_KIND_MONITOR, "close_encounter", &mclose},
    {SL_KIND_MONITOR, "nonfinite", &mnonfinite},
    {SL_KIND_MONITOR, "energy", &menergy},
    {SL_KIND_MONITOR, "collision", &mcollide},
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "monitors",
    .version = "1.0",
    .description = "built-in monitors: log, eject, close_encounter, nonfinite, energy, collision",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
