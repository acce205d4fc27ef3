/* The hermite plugin: its table. Its kernels (the loops of hermite.h with every
 * force, stamped by starling_add_integrator in CMakeLists.txt) are the kernel
 * sets of hermite_kernels.h, listed among the tables as STARLING_KERNEL_TABLES. */
#include "starling/plugin.h"
#include "hermite.h"

#include "hermite_kernels.h"

SL_PARAMS_TABLE(sl_hermite_params, SL_PARAMS_hermite)
SL_PARAMS_PACK(sl_hermite_params, SL_PARAMS_hermite)

static const sl_propagator hermite = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "hermite",
    .description = "4th-order Hermite, fixed step, predict + 2 corrections (PEC^2)",
    .order = 4,
    .adaptive = SL_PROP_hermite_ADAPTIVE,
    .persist_per_body = SL_PROP_hermite_PERSIST,
    .params = sl_hermite_params_schema,
    .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_hermite),
    .pack = sl_hermite_params_pack,
    .n_packed = SL_PARAMS_COUNT(SL_PARAMS_hermite),
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
