/* The rkck plugin: its table. Its kernels (the loops of rkck.h with every
 * force, stamped by starling_add_integrator in CMakeLists.txt) are the kernel
 * sets of rkck_kernels.h, listed among the tables as STARLING_KERNEL_TABLES. */
#include "starling/plugin.h"
#include "rkck.h"

#include "rkck_kernels.h"

static const sl_param rkck_params[] = {
    {.name = "dt", .type = SL_PARAM_NUMBER, .min = 1e-300, .max = 1e300, .required = 1,
     .doc = "time step (G = 1 units; one year = 2 pi)"},
};

static sl_status rkck_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = sl_params_get(pv, "dt");
    return SL_OK;
}

static const sl_propagator rkck = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "rkck",
    .description = "Runge-Kutta Cash-Karp, 5th-order solution, fixed step, 6 force "
                   "evaluations per step",
    .params = rkck_params,
    .n_params = sizeof rkck_params / sizeof rkck_params[0],
    .order = 5,
    .adaptive = SL_PROP_rkck_ADAPTIVE,
    .persist_per_body = SL_PROP_rkck_PERSIST,
    .pack = rkck_pack,
    .n_packed = 1,
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
