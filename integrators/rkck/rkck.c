/* The rkck plugin: its table. Its kernels (the loops of rkck.h with every
 * force, stamped by starling_add_integrator in CMakeLists.txt) are the kernel
 * sets of rkck_kernels.h, listed among the tables as STARLING_KERNEL_TABLES. */
#include "starling/plugin.h"
#include "rkck.h"

#include "rkck_kernels.h"

SL_PARAMS_TABLE(sl_rkck_params, SL_PARAMS_rkck)
SL_PARAMS_PACK(sl_rkck_params, SL_PARAMS_rkck)

static const sl_propagator rkck = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "rkck",
    .description = "Runge-Kutta Cash-Karp, 5th-order solution, fixed step, 6 force "
                   "evaluations per step",
    .params = sl_rkck_params_schema,
    .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_rkck),
    .order = 5,
    .adaptive = SL_PROP_rkck_ADAPTIVE,
    .persist_per_body = SL_PROP_rkck_PERSIST,
    .pack = sl_rkck_params_pack,
    .n_packed = SL_PARAMS_COUNT(SL_PARAMS_rkck),
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "rkck", &rkck},
                                         STARLING_KERNEL_TABLES};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "rkck",
    .version = "1.0",
    .description = "Runge-Kutta Cash-Karp integrator, fixed step (Cash & Karp 1990)",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
