/* The mvs plugin: its table. Its kernels (the loops of mvs.h with every
 * force, stamped by starling_add_integrator in CMakeLists.txt) are the kernel
 * sets of mvs_kernels.h, listed among the tables as STARLING_KERNEL_TABLES. */
#include <math.h>
#include "starling/plugin.h"
#include "mvs.h"

#include "mvs_kernels.h"

static const char *const mvs_coordinates[] = {"democratic_heliocentric", "jacobi", NULL};

static const sl_param mvs_params[] = {
    {"dt", SL_PARAM_NUMBER, 0.0, 1e-300, 1e300, 1,
     "time step (G = 1 units; one year = 2 pi); a twentieth of the shortest orbital period "
     "or less", NULL, NULL},
    {"min_mass_ratio", SL_PARAM_NUMBER, 10.0, 1.0, 1e300, 0,
     "the central body's (body 1's) mass over the other bodies' total below which a system "
     "is refused: the method's error grows with that share", NULL, NULL},
    {"corrector", SL_PARAM_INTEGER, 0.0, 0.0, 17.0, 0,
     "order of the symplectic corrector: 0 (none), 3, 5, 7, 11 or 17; applied only where "
     "states are written, it cuts the energy error by orders of magnitude (11 is a good "
     "choice)", NULL, NULL},
    {"coordinates", SL_PARAM_WORD, 0.0, 0.0, 0.0, 0,
     "democratic_heliocentric (Duncan, Levison & Lee; REBOUND's democraticheliocentric) or "
     "jacobi (Wisdom & Holman; more accurate for hierarchical systems)", mvs_coordinates, NULL},
    {"kepler_tol", SL_PARAM_NUMBER, 1e-6, 0.0, 1e-6, 0,
     "the Kepler drift's early stop: an iteration whose step is below kepler_tol of the "
     "universal anomaly ends it, the next being below an ulp (1.2x faster on the GPU); 0 "
     "converges every drift to the ulp", NULL, NULL},
};

static sl_status mvs_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = sl_params_get(pv, "dt");
    pp[1] = sl_params_get(pv, "min_mass_ratio");
    pp[2] = sl_params_get(pv, "corrector");
    pp[3] = sl_params_get(pv, "coordinates");
    pp[4] = sl_params_get(pv, "kepler_tol");
    if (pp[2] != 0.0 && sl_mvs_corrector_m((int)pp[2]) == 0)
        return sl_fail(SL_ERR_ARG, "corrector = %g: expected 0 (none), 3, 5, 7, 11 or 17",
                       pp[2]);
    return SL_OK;
}

/* Every active system: at least two bodies, and body 0 (the one the others
 * orbit) at least min_mass_ratio times the rest together. */
static sl_status mvs_check_systems(const sl_ensemble *e, const double pp[SL_PROP_PARAMS_MAX])
{
    if (e->n_body < 2)
        return sl_fail(SL_ERR_ARG, "mvs needs a central body and at least one other: the "
                       "ensemble has %d body per system", e->n_body);
    for (int64_t s = 0; s < e->n_sys; s++) {
        if (e->status[s] != SL_SYS_ACTIVE)
            continue;
        double m0 = sl_ensemble_get(e, s, 0, SL_M), rest = 0.0;
        for (int b = 1; b < e->n_body; b++)
            rest += sl_ensemble_get(e, s, b, SL_M);
        if (!(m0 > 0.0) || !(m0 >= pp[1] * rest))
            return sl_fail(SL_ERR_ARG, "system %lld: body 1 (the central body) has mass %.6g, "
                           "the others %.6g together: mvs expects the central body at least "
                           "min_mass_ratio = %g times heavier (lower min_mass_ratio to accept "
                           "such systems at a larger error, or use hermite)", (long long)s + 1,
                           m0, rest, pp[1]);
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
    .params = mvs_params,
    .n_params = sizeof mvs_params / sizeof mvs_params[0],
    .pack = mvs_pack,
    .n_packed = 5,
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
