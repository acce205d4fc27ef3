/* @NAME@: the term's table starling loads. Its kernels are those of the
 * stack newton__@NAME@ that starling_add_force builds beside it
 * (CMakeLists.txt): a run says force = {"newton", {"@NAME@", rho = ...}}. */
#include <starling/force.h>
#include <starling/plugin.h>
#include "@NAME@.h"

SL_PARAMS_TABLE(sl_@NAME@_params, SL_PARAMS_@NAME@)

static sl_status pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    sl_@NAME@_params_fill(pv, fp)->k = 4.1887902047863905 * sl_params_get(pv, "rho");
    return SL_OK;
}

static const sl_force @NAME@ = {
    .abi = SL_ABI_VERSION, .kind = SL_KIND_FORCE, .name = "@NAME@",
    .description = "a uniform background density about body 0, a term added to a base force",
    .params = sl_@NAME@_params_schema, .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_@NAME@),
    .pack = pack, .acc = sl_term_@NAME@_host_acc, .potential = sl_term_@NAME@_host_potential,
    .n_packed = SL_TERM_@NAME@_NPACKED, .caps = SL_TERM_CAPS(@NAME@),
};

static const sl_plugin_table tables[] = {{SL_KIND_FORCE, "@NAME@", &@NAME@}};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION, .name = "@NAME@", .version = "0.1",
    .description = "@NAME@: a background density, stacked on newton",
    .tables = tables, .n_tables = 1,
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
