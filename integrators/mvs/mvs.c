/* The mvs plugin: its table. Its kernels (the loops of mvs.h with every
 * force, stamped by starling_add_integrator in CMakeLists.txt) are the kernel
 * sets of mvs_kernels.h, listed among the tables as STARLING_KERNEL_TABLES. */
#include <math.h>
#include "starling/plugin.h"
#include "mvs.h"

#include "mvs_kernels.h"

static const char *const sl_mvs_coordinate_words[] = {"democratic_heliocentric", "jacobi", NULL};

SL_PARAMS_TABLE(sl_mvs_params, SL_PARAMS_mvs)

static sl_status mvs_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    const sl_mvs_params *p = sl_mvs_params_fill(pv, pp);
    if (p->corrector != 0.0 && sl_mvs_corrector_m((int)p->corrector) == 0)
        return sl_fail(SL_ERR_ARG, "corrector = %g: expected 0 (none), 3, 5, 7, 11 or 17",
                       p->corrector);
    return SL_OK;
}

/* Every active system: at least two bodies, and body 0 (the one the others
 * orbit) at least min_mass_ratio times the rest together. */
static sl_status mvs_check_systems(const sl_ensemble *e, const double pp[SL_PROP_PARAMS_MAX])
{
    const sl_mvs_params *p = sl_mvs_params_of(pp);
    if (e->n_body < 2)
        return sl_fail(SL_ERR_ARG, "mvs needs a central body and at least one other: the "
                       "ensemble has %d body per system", e->n_body);
    for (int64_t s = 0; s < e->n_sys; s++) {
        if (e->status[s] != SL_SYS_ACTIVE)
            continue;
        double m0 = sl_ensemble_get(e, s, 0, SL_M), rest = 0.0;
        for (int b = 1; b < e->n_body; b++)
            rest += sl_ensemble_get(e, s, b, SL_M);
        if (!(m0 > 0.0) || !(m0 >= p->min_mass_ratio * rest))
            return sl_fail(SL_ERR_ARG, "system %lld: body 1 (the central body) has mass %.6g, "
                           "the others %.6g together: mvs expects the central body at least "
                           "min_mass_ratio = %g times heavier (lower min_mass_ratio to accept "
                           "such systems at a larger error, or use hermite)", (long long)s + 1,
                           m0, rest, p->min_mass_ratio);
    }
    return SL_OK;
}

static const sl_propagator mvs = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "mvs",
    .description = "mixed-variable symplectic (Wisdom-Holman), democratic heliocentric or "
                   "Jacobi coordinates, fixed step, exact Kepler drifts, optional symplectic "
                   "correctors",
    .order = 2,
    .adaptive = SL_PROP_mvs_ADAPTIVE,
    .persist_per_body = SL_PROP_mvs_PERSIST,
    .params = sl_mvs_params_schema,
    .n_params = SL_PARAMS_N_KEYS(SL_PARAMS_mvs),
    .pack = mvs_pack,
    .n_packed = SL_PARAMS_COUNT(SL_PARAMS_mvs),
    .check_systems = mvs_check_systems,
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "mvs", &mvs},
                                         STARLING_KERNEL_TABLES};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "mvs",
    .version = "1.0",
    .description = "Wisdom-Holman mixed-variable symplectic integrator (Duncan, Levison & Lee "
                   "1998 coordinates)",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
