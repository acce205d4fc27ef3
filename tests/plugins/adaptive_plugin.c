/* An adaptive integrator as a plugin, for the conformance suite
 * (tests/test_check_plugin.c): the Heun 2(1) pair of
 * tests/integrators/heun_adaptive.h with keys dt (first step), tol and
 * h_max. One case per build:
 *
 *   SLT_CASE_HEUN         its table states order 2: check-plugin passes it
 *   SLT_CASE_HEUN_ORDER4  the same method stating order 4: check-plugin fails it
 */
#include "starling/version.h"
/* CPU-only in either build of starling: the table must not name CUDA
 * kernels this source does not define. */
#undef SL_HAVE_CUDA
#define SL_HAVE_CUDA 0

#include "starling/instantiate.h"
#include "forces.h"
#include "integrators/heun_adaptive.h"

#if defined(SLT_CASE_HEUN)
#define SLT_ORDER 2
#elif defined(SLT_CASE_HEUN_ORDER4)
#define SLT_ORDER 4
#else
#error "define SLT_CASE_HEUN or SLT_CASE_HEUN_ORDER4"
#endif

#define SLT_N23(X, ...) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3)
#define SL_P slt_heun
#define SL_F newton
#define SL_NBODIES SLT_N23
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"

static const sl_param heun_params[] = {
    {"dt", SL_PARAM_NUMBER, 0.01, 1e-300, 1e300, 0, "first step", NULL, NULL},
    {"tol", SL_PARAM_NUMBER, 1e-6, 1e-15, 1.0, 0, "error per step", NULL, NULL},
    {"h_max", SL_PARAM_NUMBER, 0.0, 0.0, 1e300, 0, "largest step (0: none)", NULL, NULL},
};

static sl_status heun_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = sl_params_get(pv, "dt");
    pp[1] = sl_params_get(pv, "tol");
    pp[2] = sl_params_get(pv, "h_max");
    return SL_OK;
}

static const sl_propagator heun = {
    .abi = SL_ABI_VERSION, .kind = SL_KIND_PROPAGATOR, .name = "slt_heun",
    .description = "adaptive Heun-Euler 2(1), a test integrator",
    .params = heun_params, .n_params = sizeof heun_params / sizeof heun_params[0],
    .order = SLT_ORDER, .adaptive = SL_PROP_slt_heun_ADAPTIVE,
    .persist_per_body = SL_PROP_slt_heun_PERSIST, .pack = heun_pack,
    .kernels = sl_kernels_slt_heun,
    .n_kernels = sizeof sl_kernels_slt_heun / sizeof sl_kernels_slt_heun[0], .n_packed = 3,
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "slt_heun", &heun}};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = SLT_NAME,
    .version = "0",
    .description = "an adaptive test integrator",
    .tables = tables,
    .n_tables = 1,
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
