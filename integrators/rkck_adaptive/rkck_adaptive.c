/* The rkck_adaptive plugin: its table. Its kernels (the loops of rkck_adaptive.h with every
 * force, stamped by starling_add_integrator in CMakeLists.txt) are the kernel
 * sets of rkck_adaptive_kernels.h, listed among the tables as STARLING_KERNEL_TABLES. */
#include <float.h>
#include <math.h>

#include "starling/plugin.h"
#include "rkck_adaptive.h"

#include "rkck_adaptive_kernels.h"

static const sl_param rkck_adaptive_params[] = {
    {.name = "tol", .type = SL_PARAM_NUMBER, .def = 1e-10, .min = 1e-15, .max = 1.0,
     .doc = "relative error per step (GSL's eps_rel): the step is rejected when an error "
            "estimate exceeds 1.1 (tol_abs + tol |y|) for a component y of x or v"},
    {.name = "tol_abs", .type = SL_PARAM_NUMBER, .def = NAN, .min = 0.0, .max = 1e300,
     .doc = "absolute error per step (GSL's eps_abs)", .def_doc = "tol"},
    {.name = "dt", .type = SL_PARAM_NUMBER, .def = NAN, .min = 1e-300, .max = 1e300,
     .doc = "largest first step (later steps are the controller's)",
     .def_doc = "none: 0.01 |y| / |y'| in the tolerance's norm (Hairer et al.)"},
};

static sl_status rkck_adaptive_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    const double dt = sl_params_get(pv, "dt"), tol = sl_params_get(pv, "tol"),
                 tol_abs = sl_params_get(pv, "tol_abs");
    pp[0] = isnan(dt) ? DBL_MAX : dt; /* control's first step is min(pp[0], its estimate) */
    pp[1] = tol;
    pp[2] = isnan(tol_abs) ? tol : tol_abs;
    return SL_OK;
}

static const sl_propagator rkck_adaptive = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "rkck_adaptive",
    .description = "Runge-Kutta Cash-Karp 4(5), 5th-order solution, per-system steps "
                   "with GSL's standard control (rejects and retries)",
    .params = rkck_adaptive_params,
    .n_params = sizeof rkck_adaptive_params / sizeof rkck_adaptive_params[0],
    .order = 5,
    .adaptive = SL_PROP_rkck_adaptive_ADAPTIVE,
    .persist_per_body = SL_PROP_rkck_adaptive_PERSIST,
    .pack = rkck_adaptive_pack,
    .n_packed = 3,
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "rkck_adaptive", &rkck_adaptive},
                                         STARLING_KERNEL_TABLES};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "rkck_adaptive",
    .version = "1.0",
    .description = "Runge-Kutta Cash-Karp 4(5) integrator with step control",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
