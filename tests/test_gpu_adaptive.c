/* GPU suite for adaptive stepping (launch.h): the per-system loop on CUDA
 * against the CPU's lane and scalar loops (the same kept steps, landing on
 * t_end, states within rounding), the same bits on CUDA for any
 * steps_per_launch, and the guard rails stopping the same systems for the
 * same faults. Skips without a device unless SL_REQUIRE_GPU=1. */
#include "sl_test.h"

#include "starling/instantiate.h"
#include "forces.h"
#include "integrators/bad_control.h"
#include "integrators/heun_adaptive.h"

#define SLT_HEUN_NBODIES(X, ...) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3)
#define SL_P slt_heun
#define SL_F newton
#define SL_NBODIES SLT_HEUN_NBODIES
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"
#define SLT_BADCTL_NBODIES(X, ...) X(__VA_ARGS__, 2)
#define SL_P slt_badctl
#define SL_F newton
#define SL_NBODIES SLT_BADCTL_NBODIES
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"

#include "adaptive_cases.h"

/* Three-body systems (unrolled N = 3 on the CPU lanes and CUDA) or two-body
 * orbits of e = 0.5 with two light outer bodies (N = 4: runtime-N loops),
 * calm enough that rounding does not grow into the comparison: the first
 * version (spacing 0.6, perturb 0.2; e = 0.9) had systems where 1 ulp moved
 * the state by 4e-9 on the CPU alone. */
static sl_ensemble *systems(int n_body)
{
    if (n_body == 4)
        return slt_orbits(1000, 4, 0.5);
    sl_test_system_spec sp = {.n_planets = 2, .planet_mass = 1e-3, .a1 = 1.0, .spacing = 1.0,
                              .perturb = 0.02, .random_phase = 1, .seed = 7};
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&sp, 1000, &e));
    return e;
}

/* Largest |difference| of positions and velocities over all systems. */
static double worst_state(const sl_ensemble *a, const sl_ensemble *b)
{
    double worst = 0;
    for (int64_t s = 0; s < a->n_sys; s++)
        for (int k = 0; k < a->n_body; k++)
            for (int f = SL_X; f <= SL_VZ; f++)
                worst = fmax(worst, fabs(sl_ensemble_get(a, s, k, f) - sl_ensemble_get(b, s, k, f)));
    return worst;
}

/* CUDA contracts to FMA and the CPU does not, so states differ by rounding
 * that the controller's choices then carry; the kept steps are the same
 * unless an error estimate lands within rounding of its tolerance. How far
 * rounding carries depends on the systems: a 1-ulp change of one
 * coordinate of every system's body 1, run on the CPU, measures it (cond),
 * and must be small for the comparison to mean anything. Each step's
 * rounding differs between the backends by about an ulp, independently
 * from step to step, so the differences add like a random walk: CPU and
 * CUDA must agree within 4 sqrt(steps) cond. A different step, stage or
 * control on CUDA moves a system by a step's truncation error (~tol =
 * 1e-8), far beyond that. */
static void agrees(int n_body)
{
    SLT_REQUIRE_GPU();
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = systems(n_body), *nudged;
    SLT_OK(sl_ensemble_clone(e, &nudged));
    for (int64_t s = 0; s < nudged->n_sys; s++) {
        double m, x[3], v[3];
        sl_ensemble_get_body(nudged, s, 1, &m, x, v);
        x[0] = nextafter(x[0], INFINITY);
        SLT_OK(sl_ensemble_set_body(nudged, s, 1, m, x, v));
    }
    sl_run_config c;
    slt_heun_config(&p, &c, 0.05, 1e-8, 10.0);
    int64_t rej_cpu, rej_gpu, rej_nudged;
    slt_backend = "cpu";
    sl_ensemble *a = run_copy(e, &c, &rej_cpu, NULL);
    sl_ensemble *an = run_copy(nudged, &c, &rej_nudged, NULL);
    double cond = worst_state(a, an);
    int64_t steps = 0;
    for (int64_t s = 0; s < a->n_sys; s++)
        steps = a->steps[s] > steps ? a->steps[s] : steps;
    slt_backend = "cuda";
    sl_ensemble *b = run_copy(e, &c, &rej_gpu, NULL);
    double worst = 0;
    for (int64_t s = 0; s < e->n_sys; s++) {
        cr_assert(a->status[s] == SL_SYS_ACTIVE && b->status[s] == SL_SYS_ACTIVE,
                  "system %lld: %s on the CPU, %s on CUDA", (long long)s + 1,
                  sl_status_label(a->status[s]), sl_status_label(b->status[s]));
        cr_assert(a->time[s] == 10.0 && b->time[s] == 10.0, "system %lld: t = %.17g, %.17g",
                  (long long)s + 1, a->time[s], b->time[s]);
        cr_assert_eq(a->steps[s], b->steps[s], "system %lld: %lld steps on the CPU, %lld on "
                     "CUDA", (long long)s + 1, (long long)a->steps[s], (long long)b->steps[s]);
        for (int k = 0; k < n_body; k++)
            for (int f = SL_X; f <= SL_VZ; f++)
                worst = fmax(worst, fabs(sl_ensemble_get(a, s, k, f) -
                                         sl_ensemble_get(b, s, k, f)));
    }
    double bound = 4.0 * sqrt((double)steps) * cond;
    fprintf(stderr, "slt_heun, N = %d: CPU vs CUDA max |difference| %.3g; 1 ulp moves the "
            "systems by %.3g on the CPU, %lld steps at most: bound %.3g; rejected steps %lld "
            "and %lld\n", n_body, worst, cond, (long long)steps, bound, (long long)rej_cpu,
            (long long)rej_gpu);
    cr_assert(cond > 0 && cond < 1e-11, "N = %d: a 1-ulp change moves the systems by %.3g: "
              "they amplify rounding too much for the comparison to mean anything", n_body,
              cond);
    cr_assert(worst <= bound, "N = %d: CPU and CUDA differ by %.3g, more than the rounding of "
              "%lld steps (%.3g each, as a random walk) explains", n_body, worst,
              (long long)steps, cond);
    cr_assert(rej_cpu > 0, "no step was rejected: the test must cover rejections");
    cr_assert_eq(rej_cpu, rej_gpu);
    sl_ensemble_destroy(a), sl_ensemble_destroy(b), sl_ensemble_destroy(e);
    sl_ensemble_destroy(an), sl_ensemble_destroy(nudged);
    slt_unload(&p);
}

Test(gpu_adaptive, cpu_lanes_vs_cuda, .timeout = 300) { agrees(3); }
Test(gpu_adaptive, cpu_scalar_vs_cuda_runtime_n, .timeout = 300) { agrees(4); }

/* On CUDA alone, the same bits for any steps_per_launch. */
Test(gpu_adaptive, cuda_bit_identical_across_steps_per_launch, .timeout = 300)
{
    SLT_REQUIRE_GPU();
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = systems(3);
    sl_run_config c;
    slt_heun_config(&p, &c, 0.05, 1e-7, 5.0);
    slt_backend = "cuda";
    int64_t rej0, rej;
    sl_ensemble *ref = run_copy(e, &c, &rej0, "slt_heun/newton/3");
    static const int64_t per_launch[] = {1, 7};
    for (int k = 0; k < 2; k++) {
        c.steps_per_launch = per_launch[k];
        sl_ensemble *w = run_copy(e, &c, &rej, NULL);
        char what[64];
        snprintf(what, sizeof what, "CUDA, %lld steps per launch", (long long)per_launch[k]);
        slt_assert_same_ensemble(ref, w, what);
        cr_assert_eq(rej, rej0);
        sl_ensemble_destroy(w);
    }
    sl_ensemble_destroy(ref), sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* A rejected step leaves no trace on CUDA either (adaptive_cases.h's
 * h_max case: a first try above h_max is rejected once). */
Test(gpu_adaptive, cuda_rejected_step_leaves_no_trace)
{
    SLT_REQUIRE_GPU();
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = slt_orbits(64, 3, 0.5);
    sl_run_config c;
    slt_heun_config(&p, &c, 0.5, 1e-6, 3.0);
    c.pp[2] = 0.02;
    slt_backend = "cuda";
    int64_t rej_a, rej_b;
    sl_ensemble *a = run_copy(e, &c, &rej_a, NULL);
    c.pp[0] = 0.02;
    sl_ensemble *b = run_copy(e, &c, &rej_b, NULL);
    cr_assert_eq(rej_a - rej_b, 64);
    slt_assert_same_ensemble(a, b, "CUDA: first try rejected vs first try at h_max");
    sl_ensemble_destroy(a), sl_ensemble_destroy(b), sl_ensemble_destroy(e);
    slt_unload(&p);
}

Test(gpu_adaptive, cuda_guard_rails)
{
    SLT_REQUIRE_GPU();
    slt_backend = "cuda";
    all_guards(0, 0);
    all_guards(1, 1);
}
