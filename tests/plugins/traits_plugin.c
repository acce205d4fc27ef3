/* Plugins whose integrator table and kernels disagree (the registry suite,
 * tests/test_registry.c). One source, one case per build:
 *
 *   SLT_CASE_TRAITS_OWN  integrator 'drift9' states persist_per_body = 2,
 *                        but its own kernels were compiled with
 *                        SL_PROP_drift9_PERSIST 0: refused when it loads
 *   SLT_CASE_TRAITS_SET  only the kernel set 'drift9/newton' (PERSIST 0,
 *                        ADAPTIVE 0), which the suite pairs with integrator
 *                        tables that state other values: refused by the run
 *
 * Only the runtime-N loop is stamped (no unrolled N: quick to build). */
#include "starling/instantiate.h"
#include "forces.h"
#include "integrators/drift_stages.h"

#define SLT_NO_NBODIES(X, ...)

#if defined(SLT_CASE_TRAITS_OWN)

#define SL_P drift9
#define SL_F newton
#define SL_NBODIES SLT_NO_NBODIES
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"

static sl_status drift9_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    (void)pv;
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = 0.25;
    return SL_OK;
}

static const sl_propagator drift9 = {
    .abi = SL_ABI_VERSION, .kind = SL_KIND_PROPAGATOR, .name = "drift9",
    .description = "9 drifts of h/9, whose table misstates what its kernels keep",
    .order = 1, .persist_per_body = 2, .pack = drift9_pack, .kernels = sl_kernels_drift9,
    .n_kernels = sizeof sl_kernels_drift9 / sizeof sl_kernels_drift9[0], .n_packed = 1,
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "drift9", &drift9}};

#elif defined(SLT_CASE_TRAITS_SET)

#define SL_P drift9
#define SL_F newton
#define SL_NBODIES SLT_NO_NBODIES
#include "starling/kernels.inc"

static const sl_plugin_table tables[] = {
    {SL_KIND_KERNELS, "drift9/newton", &sl_kset_drift9_newton}};

#else
#error "define SLT_CASE_TRAITS_OWN or SLT_CASE_TRAITS_SET"
#endif

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = SLT_NAME,
    .version = "0",
    .description = "a test plugin whose kernels disagree with an integrator table",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
