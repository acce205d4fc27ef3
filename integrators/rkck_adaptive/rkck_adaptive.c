/* The rkck_adaptive plugin: its table. Its kernels (the loops of rkck_adaptive.h with every
 * force, stamped by starling_add_integrator in CMakeLists.txt) are the kernel
 * sets of rkck_adaptive_kernels.h, listed among the tables as STARLING_KERNEL_TABLES. */
#include <float.h>
#include <math.h>

#include "starling/plugin.h"
#include "rkck_adaptive.h"

#include "rkck_adaptive_kernels.h"

SL_PARAMS_TABLE(sl_rkck_adaptive_params, SL_PARAMS_rkck_adaptive)

static sl_status rkck_adaptive_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    sl_rkck_adaptive_params *p = sl_rkck_adaptive_params_fill(pv, pp);
    const double dt = sl_params_get(pv, "dt"), tol_abs = sl_params_get(pv, "tol_abs");
    p->dt = isnan(dt) ? DBL_MAX : dt; /* control's first step is min(dt, its estimate) */
    p->tol_abs = isnan(tol_abs) ? p->tol : tol_abs;
    return SL_OK;
}

static const sl_propagator rkck_adaptive = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "rkck_adaptive",
    .description = "Runge-Kutta Cash-Karp 4(5), 5th-order solution, per-system steps "
                   "with GSL's standard control (rejects and retries)",
    .params = sl_rkck_adaptive_params_schema,
    .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_rkck_adaptive),
    .order = 5,
    .adaptive = SL_PROP_rkck_adaptive_ADAPTIVE,
    .persist_per_body = SL_PROP_rkck_adaptive_PERSIST,
    .pack = rkck_adaptive_pack,
    .n_packed = SL_PARAMS_COUNT(SL_PARAMS_rkck_adaptive),
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "rkck_adaptive", &rkck_adaptive},
                                         STARLING_KERNEL_TABLES};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "rkck_adaptive",
    .version = "1.0",
    .description = "Runge-Kutta Cash-Karp 4(5) integrator with step control",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
