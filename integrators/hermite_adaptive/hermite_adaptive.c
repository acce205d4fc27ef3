/* The hermite_adaptive plugin: its table. Its kernels (the loops of hermite_adaptive.h with every
 * force, stamped by starling_add_integrator in CMakeLists.txt) are the kernel
 * sets of hermite_adaptive_kernels.h, listed among the tables as STARLING_KERNEL_TABLES. */
#include <float.h>
#include <math.h>

#include "starling/plugin.h"
#include "hermite_adaptive.h"

#include "hermite_adaptive_kernels.h"

SL_PARAMS_TABLE(sl_hermite_adaptive_params, SL_PARAMS_hermite_adaptive)

static sl_status hermite_adaptive_pack(const sl_param_values *pv,
                                       double pp[SL_PROP_PARAMS_MAX])
{
    sl_hermite_adaptive_params *p = sl_hermite_adaptive_params_fill(pv, pp);
    const double dt = sl_params_get(pv, "dt");
    p->dt = isnan(dt) ? DBL_MAX : dt; /* control's first step is min(dt, the criterion) */
    return SL_OK;
}

static const sl_propagator hermite_adaptive = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "hermite_adaptive",
    .description = "4th-order Hermite PEC^2 with a per-system step eta min |a|/|j| "
                   "(Aarseth's criterion)",
    .params = sl_hermite_adaptive_params_schema,
    .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_hermite_adaptive),
    .order = 4,
    .adaptive = SL_PROP_hermite_adaptive_ADAPTIVE,
    .persist_per_body = SL_PROP_hermite_adaptive_PERSIST,
    .pack = hermite_adaptive_pack,
    .n_packed = SL_PARAMS_COUNT(SL_PARAMS_hermite_adaptive),
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "hermite_adaptive", &hermite_adaptive},
                                         STARLING_KERNEL_TABLES};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "hermite_adaptive",
    .version = "1.0",
    .description = "Hermite 4th-order integrator with Aarseth's step per system",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
