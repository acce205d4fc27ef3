/* The oblateness term (j2.h): its parameters and host functions. Its
 * kernels are those of the stacks it is built into (forces/CMakeLists.txt). */
#include "starling/force.h"
#include "starling/plugin.h"
#include "j2.h"

static const sl_param j2_params[] = {
    /* the examples (params.h): a planet like Jupiter, J2 = 0.0147, of
     * radius 0.1 in the units of check-plugin's orbits (a = 1) */
    {"J2", SL_PARAM_NUMBER, 0.0147, -1.0, 1.0, 1,
     "the central body's quadrupole moment J2 (oblate > 0), spin axis along z", NULL, NULL},
    {"R", SL_PARAM_NUMBER, 0.1, 0.0, 1e150, 1,
     "the central body's equatorial radius J2 refers to (units of x)", NULL, NULL},
};

static sl_status j2_pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    for (int i = 0; i < SL_FORCE_PARAMS_MAX; i++)
        fp[i] = 0.0;
    double r = sl_params_get(pv, "R");
    fp[0] = sl_params_get(pv, "J2") * r * r;
    return SL_OK;
}

static const sl_force j2 = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "j2",
    .description = "the central body's oblateness, a term: J2 and radius R, spin axis along z",
    .params = j2_params,
    .n_params = sizeof j2_params / sizeof j2_params[0],
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
