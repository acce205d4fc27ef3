/* @NAME@: the plugin table starling loads. The kernels themselves are
 * stamped from @NAME@.h by starling_add_integrator (CMakeLists.txt), which
 * writes @NAME@_kernels.h with their table entries. */
#include <starling/plugin.h>
#include <starling/propagator.h>
#include "@NAME@.h"
#include "@NAME@_kernels.h"

/* The schema and the pack, from the keys in @NAME@.h. */
SL_PARAMS_TABLE(sl_@NAME@_params, SL_PARAMS_@NAME@)
SL_PARAMS_PACK(sl_@NAME@_params, SL_PARAMS_@NAME@)

static const sl_propagator @NAME@ = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "@NAME@",
    .description = "leapfrog (kick-drift-kick), 2nd order, symplectic, fixed step",
    .order = 2,
    .adaptive = SL_PROP_@NAME@_ADAPTIVE,
    .persist_per_body = SL_PROP_@NAME@_PERSIST,
    .params = sl_@NAME@_params_schema,
    .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_@NAME@),
    .pack = sl_@NAME@_params_pack,
    .n_packed = SL_PARAMS_COUNT(SL_PARAMS_@NAME@),
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
