/* The post-Newtonian term (gr.h): its parameters and host functions. Its
 * kernels are those of the stacks it is built into (forces/CMakeLists.txt). */
#include "starling/force.h"
#include "starling/plugin.h"
#include "gr.h"

SL_PARAMS_TABLE(sl_gr_params, SL_PARAMS_gr)

static sl_status gr_pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    const double c = sl_params_get(pv, "c");
    sl_gr_params_fill(pv, fp)->inv_c2 = 1.0 / (c * c);
    return SL_OK;
}

static const sl_force gr = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "gr",
    .description = "the central body's post-Newtonian term, potential form "
                   "-3 m0^2 m_i / (c^2 r^2) (REBOUNDx gr_potential)",
    .params = sl_gr_params_schema,
    .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_gr),
    .pack = gr_pack,
    .acc = sl_term_gr_host_acc,
    .potential = sl_term_gr_host_potential,
    .n_packed = SL_TERM_gr_NPACKED,
    .caps = SL_TERM_CAPS(gr),
};

static const sl_plugin_table tables[] = {{SL_KIND_FORCE, "gr", &gr}};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "gr",
    .version = "2.0",
    .description = "general-relativistic precession about the central body, a term stacked "
                   "on a base force",
    .tables = tables,
    .n_tables = 1,
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
