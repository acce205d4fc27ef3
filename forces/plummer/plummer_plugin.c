/* The softened-gravity force plugin. It is built the way a force from
 * outside the tree is: besides its runtime table it carries the kernels of
 * the integrators it was built against (stamped by starling_add_force into
 * plummer_kernels.h's STARLING_KERNEL_TABLES), as kernel sets the registry
 * pools, so `hermite` runs with it although hermite's plugin knows nothing
 * of it. */
#include "starling/force.h"
#include "starling/plugin.h"
#include "starling/propagator.h"
#include "plummer.h"
#include "plummer_kernels.h"

static void plummer_acc(int n, const double *x, const double *v, const double *m,
                        const double *fp, double *a)
{
    sl_force_plummer_acc(n, 1, x, v, m, fp, a);
}

static double plummer_potential(int n, const double *x, const double *m, const double *fp)
{
    return sl_force_plummer_potential(n, 1, x, m, fp);
}

SL_PARAMS_TABLE(sl_plummer_params, SL_PARAMS_plummer)

static sl_status plummer_pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    const double eps = sl_params_get(pv, "eps");
    sl_plummer_params_fill(pv, fp)->eps2 = eps * eps;
    return SL_OK;
}

static const sl_force plummer = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "plummer",
    .description = "Plummer-softened gravity, G = 1: pair potential -m_i m_k / sqrt(r^2 + eps^2)",
    .params = sl_plummer_params_schema,
    .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_plummer),
    .pack = plummer_pack,
    .acc = plummer_acc,
    .potential = plummer_potential,
    .n_packed = SL_FORCE_plummer_NPACKED,
    .caps = SL_FORCE_CAPS(plummer),
};

static const sl_plugin_table tables[] = {
    {SL_KIND_FORCE, "plummer", &plummer},
    STARLING_KERNEL_TABLES
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "plummer",
    .version = "1.0",
    .description = "Plummer-softened gravity, with kernels for the hermite integrator",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
