/* The oblateness term (j2.h): its parameters and host functions. Its
 * kernels are those of the stacks it is built into (forces/CMakeLists.txt). */
#include "starling/force.h"
#include "starling/plugin.h"
#include "j2.h"

SL_PARAMS_TABLE(sl_j2_params, SL_PARAMS_j2)

static sl_status j2_pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    const double r = sl_params_get(pv, "R");
    sl_j2_params_fill(pv, fp)->J2_R2 = sl_params_get(pv, "J2") * r * r;
    return SL_OK;
}

static const sl_force j2 = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "j2",
    .description = "the central body's oblateness, a term: J2 and radius R, spin axis along z",
    .params = sl_j2_params_schema,
    .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_j2),
    .pack = j2_pack,
    .acc = sl_term_j2_host_acc,
    .potential = sl_term_j2_host_potential,
    .n_packed = SL_TERM_j2_NPACKED,
    .caps = SL_TERM_CAPS(j2),
};

static const sl_plugin_table tables[] = {{SL_KIND_FORCE, "j2", &j2}};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "j2",
    .version = "2.0",
    .description = "an oblate central body (J2), a term stacked on a base force",
    .tables = tables,
    .n_tables = 1,
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
