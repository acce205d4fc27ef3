/* The post-Newtonian force plugin (gr.h): Newtonian gravity plus the
 * central body's correction in potential form, with the kernels of every
 * integrator it was built against (starling_add_force). */
#include "starling/force.h"
#include "starling/plugin.h"
#include "starling/propagator.h"
#include "gr.h"
#include "gr_kernels.h"

static void gr_acc(int n, const double *x, const double *v, const double *m, const double *fp,
                   double *a)
{
    sl_force_gr_acc(n, 1, x, v, m, fp, a);
}

static double gr_potential(int n, const double *x, const double *m, const double *fp)
{
    return sl_force_gr_potential(n, 1, x, m, fp);
}

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
    .description = "Newtonian gravity plus the central body's post-Newtonian term, potential "
                   "form -3 m0^2 m_i / (c^2 r^2) (REBOUNDx gr_potential)",
    .params = gr_params,
    .n_params = sizeof gr_params / sizeof gr_params[0],
    .pack = gr_pack,
    .acc = gr_acc,
    .potential = gr_potential,
    .n_packed = 1, /* 1/c^2 */
    .caps = SL_FORCE_CAPS(gr),
};

static const sl_plugin_table tables[] = {
    {SL_KIND_FORCE, "gr", &gr},
    STARLING_KERNEL_TABLES
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "gr",
    .version = "1.0",
    .description = "general-relativistic precession about the central body, with kernels for "
                   "every in-tree integrator",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
