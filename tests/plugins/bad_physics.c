/* Plugins that load fine but break the physics contract, for the
 * conformance suite (tests/test_check_plugin.c): check-plugin must FAIL
 * them. One case per build, chosen by a compile definition:
 *
 *   SLT_CASE_EULER_ORDER4  integrator 'slt_euler': symplectic Euler (order 1)
 *                          whose table states order 4
 *   SLT_CASE_NOT_GRADIENT  force 'slt_off_gradient': Newtonian acceleration,
 *                          but a potential 10% too deep
 */
#include "starling/version.h"
/* A CPU-only plugin in either build of starling: the table must not name
 * CUDA kernels this source does not define. */
#undef SL_HAVE_CUDA
#define SL_HAVE_CUDA 0

#include <math.h>

#include "starling/force.h"
#include "starling/plugin.h"

#if defined(SLT_CASE_EULER_ORDER4)
#include "starling/instantiate.h"
#include "forces.h"

#define SL_PROP_slt_euler_NSTAGES 1
#define SL_PROP_slt_euler_SCRATCH 0
#define SL_PROP_slt_euler_PERSIST 0
#define SL_PROP_slt_euler_JERK 0
#define SL_PROP_slt_euler_PERTURB 0
#define SL_PROP_slt_euler_SYNC 0
#define SL_PROP_slt_euler_ADAPTIVE 0

SL_HD SL_INLINE void sl_prop_slt_euler_begin(int n, int S, const double *x, const double *v,
                                             const double *m, double *ps, const double *a,
                                             const double *j, const double *pp)
{
    (void)n, (void)S, (void)x, (void)v, (void)m, (void)ps, (void)a, (void)j, (void)pp;
}

SL_HD SL_INLINE void sl_prop_slt_euler_point(int st, int n, int S, double h, const double *x,
                                             const double *v, const double *m, const double *ps,
                                             double *xe, double *ve, const double *pp)
{
    (void)st, (void)h, (void)m, (void)ps, (void)pp;
    for (int k = 0; k < 3 * n; k++) {
        xe[S * k] = x[S * k];
        ve[S * k] = v[S * k];
    }
}

/* Kick then drift: first order. */
SL_HD SL_INLINE void sl_prop_slt_euler_apply(int st, int n, int S, double h, double *x,
                                             double *v, const double *m, double *ps,
                                             const double *a, const double *j, const double *pp)
{
    (void)st, (void)m, (void)ps, (void)j, (void)pp;
    for (int k = 0; k < 3 * n; k++) {
        v[S * k] += h * a[S * k];
        x[S * k] += h * v[S * k];
    }
}

#define SLT_N23(X, ...) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3)
#define SL_P slt_euler
#define SL_F newton
#define SL_NBODIES SLT_N23
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"

static const sl_param euler_params[] = {
    {"dt", SL_PARAM_NUMBER, 0.0, 1e-300, 1e300, 1, "time step", NULL, NULL},
};

static sl_status euler_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = sl_params_get(pv, "dt");
    return SL_OK;
}

static const sl_propagator euler = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR,
    .name = "slt_euler",
    .description = "symplectic Euler that claims to be 4th order",
    .order = 4,
    .params = euler_params,
    .n_params = 1,
    .pack = euler_pack,
    .kernels = sl_kernels_slt_euler,
    .n_kernels = sizeof sl_kernels_slt_euler / sizeof sl_kernels_slt_euler[0],
    .n_packed = 1,
};

static const sl_plugin_table tables[] = {{SL_KIND_PROPAGATOR, "slt_euler", &euler}};

#elif defined(SLT_CASE_NOT_GRADIENT)

static void pair_acc(int n, const double *x, const double *v, const double *m,
                     const double *fp, double *a)
{
    (void)v, (void)fp;
    for (int k = 0; k < 3 * n; k++)
        a[k] = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            if (k == i)
                continue;
            double d[3], r2 = 0;
            for (int c = 0; c < 3; c++) {
                d[c] = x[3 * k + c] - x[3 * i + c];
                r2 += d[c] * d[c];
            }
            double f = m[k] / (r2 * sqrt(r2));
            for (int c = 0; c < 3; c++)
                a[3 * i + c] += f * d[c];
        }
}

static double deep_potential(int n, const double *x, const double *m, const double *fp)
{
    (void)fp;
    double u = 0;
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++) {
            double r2 = 0;
            for (int c = 0; c < 3; c++)
                r2 += (x[3 * k + c] - x[3 * i + c]) * (x[3 * k + c] - x[3 * i + c]);
            u -= 1.1 * m[i] * m[k] / sqrt(r2);
        }
    return u;
}

static sl_status zero_pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    (void)pv;
    for (int i = 0; i < SL_FORCE_PARAMS_MAX; i++)
        fp[i] = 0.0;
    return SL_OK;
}

static const sl_force off_gradient = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "slt_off_gradient",
    .description = "acceleration that is not the gradient of the potential",
    .pack = zero_pack,
    .acc = pair_acc,
    .potential = deep_potential,
};

static const sl_plugin_table tables[] = {
    {SL_KIND_FORCE, "slt_off_gradient", &off_gradient}};

#else
#error "define one SLT_CASE_*"
#endif

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = SLT_NAME,
    .version = "0.0",
    .description = "conformance test plugin that breaks the physics contract",
    .tables = tables,
    .n_tables = 1,
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
