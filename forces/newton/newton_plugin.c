/* The runtime table for Newtonian gravity (kernels include newton.h). */
#include "starling/force.h"
#include "starling/plugin.h"
#include "newton.h"

static void newton_acc(int n, const double *x, const double *v, const double *m,
                       const double *fp, double *a)
{
    sl_force_newton_acc(n, 1, x, v, m, fp, a);
}

static double newton_potential(int n, const double *x, const double *m, const double *fp)
{
    return sl_force_newton_potential(n, 1, x, m, fp);
}

static sl_status newton_pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    (void)pv;
    for (int i = 0; i < SL_FORCE_PARAMS_MAX; i++)
        fp[i] = 0.0;
    return SL_OK;
}

static const sl_force newton = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "newton",
    .description = "Newtonian point-mass gravity with G = 1 (AU, M_sun, year/2pi)",
    .params = NULL,
    .n_params = 0,
    .pack = newton_pack,
    .acc = newton_acc,
    .potential = newton_potential,
    .n_packed = 0,
    .caps = SL_FORCE_CAPS(newton),
};

static const sl_plugin_table tables[] = {{SL_KIND_FORCE, "newton", &newton}};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "newton",
    .version = "1.0",
    .description = "Newtonian gravity",
    .tables = tables,
    .n_tables = 1,
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
