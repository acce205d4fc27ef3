/* Integrators with more stages than the CPU lane loop used to stamp (8):
 * every stage must run on every path (lanes, scalar runtime-N, CUDA). */
#include "sl_test.h"

#include "starling/instantiate.h"
#include "forces.h"
#include "integrators/drift_stages.h"

#define SLT_N3(X, ...) X(__VA_ARGS__, 3)
#define SL_P drift9
#define SL_F newton
#define SL_NBODIES SLT_N3
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"

/* Both test integrators take a step of 0.25 and nothing else. */
static sl_status quarter_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    (void)pv;
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = 0.25;
    return SL_OK;
}

static const sl_propagator drift9 = {
    .abi = SL_ABI_VERSION, .kind = SL_KIND_PROPAGATOR, .name = "drift9",
    .description = "9 drifts of h/9",
    .order = 1, .pack = quarter_pack, .kernels = sl_kernels_drift9,
    .n_kernels = sizeof sl_kernels_drift9 / sizeof sl_kernels_drift9[0], .n_packed = 1,
};

/* 40 systems (a full chunk of lanes and a part-filled one) of n bodies of
 * small mass at rest but for body b moving along x at speed 1 + b, run by
 * prop on the CPU to t_end; after it every body has moved (1 + b) t_end. */
static sl_ensemble *run_moving(const slt_plugins *p, const sl_propagator *prop, int n,
                               double t_end, sl_run_result *r)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(40, n, &e));
    for (int64_t s = 0; s < 40; s++)
        for (int b = 0; b < n; b++) {
            double x[3] = {10.0 * b, 1.0 * (double)s, 0.0}, v[3] = {1.0 + b, 0.0, 0.0};
            SLT_OK(sl_ensemble_set_body(e, s, b, 1e-12, x, v));
        }
    sl_run_config c;
    sl_run_config_init(&c);
    c.prop = prop;
    c.force = p->newton;
    SLT_OK(prop->pack(NULL, c.pp));
    c.t_end = t_end;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    SLT_OK(sl_integrate(&be, e, &c, r));
    return e;
}

static void run_drift(int n, double t_end)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_result r;
    sl_ensemble *e = run_moving(&p, &drift9, n, t_end, &r);
    for (int64_t s = 0; s < 40; s++)
        for (int b = 0; b < n; b++) {
            double m, x[3], v[3];
            sl_ensemble_get_body(e, s, b, &m, x, v);
            double want = 10.0 * b + (1.0 + b) * t_end;
            cr_assert(fabs(x[0] - want) < 1e-12 * (1.0 + fabs(want)),
                      "%s, n = %d, system %lld, body %d: x = %.17g, want %.17g", r.kernel, n,
                      (long long)s, b, x[0], want);
        }
    sl_run_result_free(&r);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

Test(stages, nine_stages_on_the_cpu_lane_loop) { run_drift(3, 1.0); }

Test(stages, nine_stages_on_the_scalar_loop) { run_drift(4, 1.0); }

/* The lane loop's POINT_FAST path: lanes the fast form refused run point
 * again from their snapshot (tests/integrators/fast_refuse.h). */
#include "integrators/fast_refuse.h"

#define SL_P slt_fref
#define SL_F newton
#define SL_NBODIES SLT_N3
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"

static const sl_propagator fref = {
    .abi = SL_ABI_VERSION, .kind = SL_KIND_PROPAGATOR, .name = "slt_fref",
    .description = "a step counter whose fast form refuses a third of the lanes",
    .order = 1, .persist_per_body = 1, .pack = quarter_pack, .kernels = sl_kernels_slt_fref,
    .n_kernels = sizeof sl_kernels_slt_fref / sizeof sl_kernels_slt_fref[0], .n_packed = 1,
};

/* 10 steps of 0.25, z counting them; n = 4 runs the scalar loop, which
 * has no fast path. */
static void run_fref(int n)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_result r;
    sl_ensemble *e = run_moving(&p, &fref, n, 2.5, &r);
    for (int64_t s = 0; s < 40; s++)
        for (int b = 0; b < n; b++) {
            double m, x[3], v[3];
            sl_ensemble_get_body(e, s, b, &m, x, v);
            double want = 10.0 * b + (1.0 + b) * 2.5;
            cr_assert(fabs(x[0] - want) < 1e-12 * (1.0 + fabs(want)) && x[2] == 10.0,
                      "%s, n = %d, system %lld, body %d: x = %.17g, z = %.17g; want %.17g, 10 "
                      "steps",
                      r.kernel, n, (long long)s, b, x[0], x[2], want);
        }
    sl_run_result_free(&r);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

Test(stages, refused_fast_points_run_again_from_their_snapshot) { run_fref(3); }

Test(stages, a_fast_point_changes_nothing_on_the_scalar_loop) { run_fref(4); }
