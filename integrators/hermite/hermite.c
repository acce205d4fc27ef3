/* The hermite plugin: its table. Its kernels (the loops of hermite.h with every
 * force, stamped by starling_add_integrator in CMakeLists.txt) are the kernel
 * sets of hermite_kernels.h, listed among the tables as STARLING_KERNEL_TABLES. */
#include "starling/plugin.h"
#include "hermite.h"

#include "hermite_kernels.h"

static const sl_param hermite_params[] = {
    {"dt", SL_PARAM_NUMBER, 0.0, 1e-300, 1e300, 1,
     "time step (G = 1 units; one year = 2 pi)", NULL, NULL},
};

static sl_status hermite_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = sl_params_get(pv, "dt");
    return SL_OK;
}

static const sl_propagator hermite = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "hermite",
    .description = "4th-order Hermite, fixed step, predict + 2 corrections (PEC^2)",
    .order = 4,
    .adaptive = SL_PROP_hermite_ADAPTIVE,
    .persist_per_body = SL_PROP_hermite_PERSIST,
    .params = hermite_params,
    .n_params = sizeof hermite_params / sizeof hermite_params[0],
    .pack = hermite_pack,
    .n_packed = 1,
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "hermite", &hermite},
                                         STARLING_KERNEL_TABLES};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "hermite",
    .version = "1.0",
    .description = "Hermite 4th-order integrator (Kokubo et al. 1998)",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
