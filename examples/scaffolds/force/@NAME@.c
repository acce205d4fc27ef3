/* @NAME@: the plugin table starling loads. The kernels of the installed
 * integrators with this force are stamped from @NAME@.h by
 * starling_add_force (CMakeLists.txt), which writes @NAME@_kernels.h with
 * their table entries. */
#include <starling/force.h>
#include <starling/plugin.h>
#include <starling/propagator.h>
#include "@NAME@.h"
#include "@NAME@_kernels.h"

static const sl_param params[] = {
    {"eps", SL_PARAM_NUMBER, 0.0, 0.0, 1e150, 0, "softening length (units of x); 0: Newtonian"},
};

static sl_status pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    for (int i = 0; i < SL_FORCE_PARAMS_MAX; i++)
        fp[i] = 0.0;
    double eps = sl_params_get(pv, "eps");
    fp[0] = eps * eps;
    return SL_OK;
}

/* Host entry points, for energies and diagnostics (arrays not strided). */
static void acc(int n, const double *x, const double *v, const double *m, const double *fp,
                double *a)
{
    sl_force_@NAME@_acc(n, 1, x, v, m, fp, a);
}

static double potential(int n, const double *x, const double *m, const double *fp)
{
    return sl_force_@NAME@_potential(n, 1, x, m, fp);
}

static const sl_force @NAME@ = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "@NAME@",
    .description = "softened gravity, G = 1: pair potential -m_i m_k / sqrt(r^2 + eps^2)",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .pack = pack,
    .acc = acc,
    .potential = potential,
    .n_packed = 1, /* fp[0] = eps^2 */
    .caps = SL_FORCE_CAPS(@NAME@),
};

static const sl_plugin_table tables[] = {
    {SL_KIND_FORCE, "@NAME@", &@NAME@},
    STARLING_KERNEL_TABLES
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "@NAME@",
    .version = "0.1",
    .description = "@NAME@: softened gravity, with kernels for the installed integrators",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
