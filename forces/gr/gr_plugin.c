/* The post-Newtonian term (gr.h): its parameters and host functions. Its
 * kernels are those of the stacks it is built into (forces/CMakeLists.txt). */
#include "starling/force.h"
#include "starling/plugin.h"
#include "gr.h"

/* The speed of light in starling's default units (G = 1, AU, solar masses,
 * time unit yr/2pi = 1/k days, k the Gaussian constant): 299792.458 km/s
 * over k AU/day = 29.7846918 km/s. */
#define SL_GR_C_GAUSSIAN 10065.320121

static const sl_param gr_params[] = {
    {"c", SL_PARAM_NUMBER, SL_GR_C_GAUSSIAN, 1e-150, 1e150, 0,
     "speed of light in the units of the state (default: AU per yr/2pi, G = 1)", NULL, NULL},
};

static sl_status gr_pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    for (int i = 0; i < SL_FORCE_PARAMS_MAX; i++)
        fp[i] = 0.0;
    double c = sl_params_get(pv, "c");
    fp[0] = 1.0 / (c * c);
    return SL_OK;
}

static const sl_force gr = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "gr",
    .description = "the central body's post-Newtonian term, potential form "
                   "-3 m0^2 m_i / (c^2 r^2) (REBOUNDx gr_potential)",
    .params = gr_params,
    .n_params = sizeof gr_params / sizeof gr_params[0],
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
