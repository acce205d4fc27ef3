/* The verlet plugin: its table, and the kernels stamped from verlet.h.
 *
 * What makes an integrator a plugin, in the order the loader meets it:
 *   1. sl_plugin_entry returns the plugin and its tables;
 *   2. the table's head (abi, kind, name, description, keys) is checked by
 *      the registry: a key's range is what refuses a bad value before any
 *      work starts (dt = 0 or dt = -1: "key 'dt' = 0: expected a finite
 *      number in [1e-300, 1e+300]"), so pack need not check again;
 *   3. the keys are declared once, in verlet.h (SL_PARAMS_verlet): the
 *      schema, the struct sl_verlet_params and the pack come from that
 *      list, and pack turns the checked values into pp, which every
 *      kernel receives; the first field, dt, is the step the loops take;
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

SL_PARAMS_TABLE(sl_verlet_params, SL_PARAMS_verlet)
SL_PARAMS_PACK(sl_verlet_params, SL_PARAMS_verlet)

static const sl_propagator verlet = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "verlet",
    .description = "velocity Verlet (leapfrog, kick-drift-kick), order 2, symplectic, "
                   "fixed step, one force evaluation per step",
    .params = sl_verlet_params_schema,
    .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_verlet),
    .order = 2,
    .adaptive = SL_PROP_verlet_ADAPTIVE,
    .persist_per_body = SL_PROP_verlet_PERSIST,
    .pack = sl_verlet_params_pack,
    .n_packed = SL_PARAMS_COUNT(SL_PARAMS_verlet),
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
