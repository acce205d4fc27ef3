/* The hermite_adaptive plugin: its table. Its kernels (the loops of hermite_adaptive.h with every
 * force, stamped by starling_add_integrator in CMakeLists.txt) are the kernel
 * sets of hermite_adaptive_kernels.h, listed among the tables as STARLING_KERNEL_TABLES. */
#include <float.h>
#include <math.h>

#include "starling/plugin.h"
#include "hermite_adaptive.h"

#include "hermite_adaptive_kernels.h"

static const sl_param hermite_adaptive_params[] = {
    {.name = "eta", .type = SL_PARAM_NUMBER, .def = 0.02, .min = 1e-300, .max = 1.0,
     .doc = "step factor: each step is eta min |a|/|j| over the system's bodies"},
    {.name = "dt", .type = SL_PARAM_NUMBER, .def = NAN, .min = 1e-300, .max = 1e300,
     .doc = "largest first step (later steps follow the criterion)",
     .def_doc = "none: eta min |a|/|j| at the start"},
};

static sl_status hermite_adaptive_pack(const sl_param_values *pv,
                                       double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    const double dt = sl_params_get(pv, "dt");
    pp[0] = isnan(dt) ? DBL_MAX : dt; /* control's first step is min(pp[0], the criterion) */
    pp[1] = sl_params_get(pv, "eta");
    return SL_OK;
}

static const sl_propagator hermite_adaptive = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "hermite_adaptive",
    .description = "4th-order Hermite PEC^2 with a per-system step eta min |a|/|j| "
                   "(Aarseth's criterion)",
    .params = hermite_adaptive_params,
    .n_params = sizeof hermite_adaptive_params / sizeof hermite_adaptive_params[0],
    .order = 4,
    .adaptive = SL_PROP_hermite_adaptive_ADAPTIVE,
    .persist_per_body = SL_PROP_hermite_adaptive_PERSIST,
    .pack = hermite_adaptive_pack,
    .n_packed = 2,
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
