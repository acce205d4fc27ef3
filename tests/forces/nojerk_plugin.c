/* The slt_nojerk test force (nojerk.h) as a plugin built the way a force
 * from outside the tree is: with the kernel sets starling_add_force stamps
 * for every integrator declared, empty for those that cannot use it. */
#include "starling/force.h"
#include "starling/plugin.h"
#include "nojerk.h"
#include "slt_nojerk_kernels.h"

static void nojerk_acc(int n, const double *x, const double *v, const double *m,
                       const double *fp, double *a)
{
    sl_force_slt_nojerk_acc(n, 1, x, v, m, fp, a);
}

static double nojerk_potential(int n, const double *x, const double *m, const double *fp)
{
    return sl_force_slt_nojerk_potential(n, 1, x, m, fp);
}

static sl_status nojerk_pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    (void)pv;
    for (int i = 0; i < SL_FORCE_PARAMS_MAX; i++)
        fp[i] = 0.0;
    return SL_OK;
}

static const sl_force nojerk = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "slt_nojerk",
    .description = "Newtonian gravity with accelerations only (a test force)",
    .pack = nojerk_pack,
    .acc = nojerk_acc,
    .potential = nojerk_potential,
    .caps = SL_FORCE_CAPS(slt_nojerk),
};

static const sl_plugin_table tables[] = {
    {SL_KIND_FORCE, "slt_nojerk", &nojerk},
    STARLING_KERNEL_TABLES
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "slt_nojerk",
    .version = "0.0",
    .description = "test force without jerk or perturbation part",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
