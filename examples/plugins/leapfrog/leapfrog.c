/* The leapfrog plugin: CPU loops for every installed force and the body
 * counts of LEAPFROG_NBODIES (CUDA kernels in leapfrog_cuda.cu), its one
 * parameter and the table starling loads. */
#include <starling/forces/forces.h>
#include <starling/instantiate.h>
#include <starling/plugin.h>
#include "leapfrog.h"

SL_INTEGRATOR_INSTANTIATE(leapfrog, SL_FORCES, LEAPFROG_NBODIES)

static const sl_param leapfrog_params[] = {
    {"dt", SL_PARAM_NUMBER, 0.0, 1e-300, 1e300, 1, "time step (G = 1 units)", NULL, NULL},
};

static sl_status leapfrog_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = sl_params_get(pv, "dt");
    return SL_OK;
}

static const sl_propagator leapfrog = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "leapfrog",
    .description = "leapfrog (kick-drift-kick), 2nd order, fixed step",
    .order = 2,
    .adaptive = 0,
    .persist_per_body = SL_PROP_leapfrog_PERSIST,
    .params = leapfrog_params,
    .n_params = sizeof leapfrog_params / sizeof leapfrog_params[0],
    .pack = leapfrog_pack,
    .kernels = sl_kernels_leapfrog,
    .n_kernels = sizeof sl_kernels_leapfrog / sizeof sl_kernels_leapfrog[0],
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "leapfrog", &leapfrog}};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "leapfrog",
    .version = "1.0",
    .description = "example out-of-tree integrator: leapfrog (KDK)",
    .tables = tables,
    .n_tables = 1,
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
