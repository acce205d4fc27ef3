/* The verlet plugin: its table, and the kernels stamped from verlet.h.
 *
 * What makes an integrator a plugin, in the order the loader meets it:
 *   1. sl_plugin_entry returns the plugin and its tables;
 *   2. the table's head (abi, kind, name, description, keys) is checked by
 *      the registry: a key's range is what refuses a bad value before any
 *      work starts (dt = 0 or dt = -1: "key 'dt' = 0: expected a finite
 *      number in [1e-300, 1e+300]"), so pack need not check again;
 *   3. pack turns the checked values into pp, which every kernel receives:
 *      pp[0] must be the step;
 *   4. the kernels: starling_add_integrator (CMakeLists.txt) stamps the
 *      loops of verlet.h with every force this starling has, N = 2..16
 *      unrolled and a runtime-N loop, and writes verlet_kernels.h, whose
 *      STARLING_KERNEL_TABLES lists their kernel sets among the tables;
 *   5. order, adaptive and persist_per_body state what the kernels do:
 *      the registry refuses a table whose adaptive or persist_per_body
 *      differ from what its kernels were compiled with, and
 *      `starling check-plugin` measures the order on a Kepler orbit.
 * An integrator built out of the tree is the same file and the same
 * CMake call (`starling new integrator NAME`). */
#include "starling/plugin.h"
#include "verlet.h"

#include "verlet_kernels.h"

static const sl_param verlet_params[] = {
    {.name = "dt", .type = SL_PARAM_NUMBER, .min = 1e-300, .max = 1e300, .required = 1,
     .doc = "time step (G = 1 units; one year = 2 pi)"},
};

static sl_status verlet_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0; /* the contract: zeros beyond n_packed */
    pp[0] = sl_params_get(pv, "dt");
    return SL_OK;
}

static const sl_propagator verlet = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "verlet",
    .description = "velocity Verlet (leapfrog, kick-drift-kick), order 2, symplectic, "
                   "fixed step, one force evaluation per step",
    .params = verlet_params,
    .n_params = sizeof verlet_params / sizeof verlet_params[0],
    .order = 2,
    .adaptive = SL_PROP_verlet_ADAPTIVE,
    .persist_per_body = SL_PROP_verlet_PERSIST,
    .pack = verlet_pack,
    .n_packed = 1,
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "verlet", &verlet},
                                         STARLING_KERNEL_TABLES};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "verlet",
    .version = "1.0",
    .description = "velocity Verlet (leapfrog) integrator",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
