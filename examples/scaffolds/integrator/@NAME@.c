/* @NAME@: the plugin table starling loads. The kernels themselves are
 * stamped from @NAME@.h by starling_add_integrator (CMakeLists.txt), which
 * writes @NAME@_kernels.h with their table entries. */
#include <starling/plugin.h>
#include <starling/propagator.h>
#include "@NAME@.h"
#include "@NAME@_kernels.h"

static const sl_param params[] = {
    {"dt", SL_PARAM_NUMBER, 0.0, 1e-300, 1e300, 1, "time step (G = 1 units; one year = 2 pi)"},
};

/* pp[0] is the step the loop takes; the rest is the stages' to use. */
static sl_status pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = sl_params_get(pv, "dt");
    return SL_OK;
}

static const sl_propagator @NAME@ = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "@NAME@",
    .description = "leapfrog (kick-drift-kick), 2nd order, symplectic, fixed step",
    .order = 2,
    .adaptive = SL_PROP_@NAME@_ADAPTIVE,
    .persist_per_body = SL_PROP_@NAME@_PERSIST,
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .pack = pack,
    .n_packed = 1, /* pp[0] = dt */
    /* no kernels of its own: they are the kernel sets below */
};

static const sl_plugin_table tables[] = {
    {SL_KIND_PROPAGATOR, "@NAME@", &@NAME@},
    STARLING_KERNEL_TABLES
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "@NAME@",
    .version = "0.1",
    .description = "@NAME@: a leapfrog integrator",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
