/* The oblate-central-body force plugin (j2.h): Newtonian gravity plus body
 * 0's J2 quadrupole about the z axis, with the kernels of every integrator
 * it was built against (starling_add_force). */
#include "starling/force.h"
#include "starling/plugin.h"
#include "starling/propagator.h"
#include "j2.h"
#include "j2_kernels.h"

static void j2_acc(int n, const double *x, const double *v, const double *m, const double *fp,
                   double *a)
{
    sl_force_j2_acc(n, 1, x, v, m, fp, a);
}

static double j2_potential(int n, const double *x, const double *m, const double *fp)
{
    return sl_force_j2_potential(n, 1, x, m, fp);
}

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
    .description = "Newtonian gravity plus the central body's oblateness: J2 and radius R, "
                   "spin axis along z",
    .params = j2_params,
    .n_params = sizeof j2_params / sizeof j2_params[0],
    .pack = j2_pack,
    .acc = j2_acc,
    .potential = j2_potential,
    .n_packed = 1, /* J2 R^2 */
    .caps = SL_FORCE_CAPS(j2),
};

static const sl_plugin_table tables[] = {
    {SL_KIND_FORCE, "j2", &j2},
    STARLING_KERNEL_TABLES
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "j2",
    .version = "1.0",
    .description = "an oblate central body (J2), with kernels for every in-tree integrator",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
