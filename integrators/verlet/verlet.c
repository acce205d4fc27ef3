/* The verlet plugin: its table, and the kernels stamped from verlet.h.
 *
 * What makes an integrator a plugin, in the order the loader meets it:
 *   1. sl_plugin_entry returns the plugin and its tables (here one);
 *   2. the table's head (abi, kind, name, description, keys) is checked by
 *      the registry: a key's range is what refuses a bad value before any
 *      work starts (dt = 0 or dt = -1: "key 'dt' = 0: expected a finite
 *      number in [1e-300, 1e+300]"), so pack need not check again;
 *   3. pack turns the checked values into pp, which every kernel receives:
 *      pp[0] must be the step;
 *   4. the kernels: SL_INTEGRATOR_TABLE below stamps the runtime-N loop for
 *      each force of SL_FORCES and the table sl_kernels_verlet listing every
 *      loop; the unrolled N = 2..16 CPU loops come from verlet_cpu_{a,b,c}.c
 *      (three translation units that compile in parallel) and the CUDA
 *      kernels from verlet_cuda.cu, all the same macros over verlet.h;
 *   5. order, adaptive and persist_per_body state what the kernels do:
 *      the registry refuses a table whose adaptive or persist_per_body
 *      differ from what its kernels were compiled with, and
 *      `starling check-plugin` measures the order on a Kepler orbit.
 * Forces installed later get verlet kernels of their own without touching
 * this file: CMakeLists.txt installs verlet.h and registers it, and
 * starling_add_force stamps kernels from it. */
#include "starling/instantiate.h"
#include "starling/plugin.h"
#include "forces.h"
#include "verlet.h"

SL_INTEGRATOR_TABLE(verlet, SL_FORCES, SL_NBODIES)

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
    .kernels = sl_kernels_verlet,
    .n_kernels = sizeof sl_kernels_verlet / sizeof sl_kernels_verlet[0],
    .n_packed = 1,
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "verlet", &verlet}};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "verlet",
    .version = "1.0",
    .description = "velocity Verlet (leapfrog) integrator",
    .tables = tables,
    .n_tables = 1,
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
