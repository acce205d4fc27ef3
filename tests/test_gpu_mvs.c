/* GPU suite for mvs's working state (SYNC): on CUDA as on the CPU, with
 * and without symplectic correctors, in democratic heliocentric and
 * Jacobi coordinates, unrolled (5 bodies), grouped (9 and 16 bodies, a
 * thread per planet; 8 and 9 bodies in a mid-size ensemble, 2 threads a
 * system) and runtime-N (20 bodies), with logs every few steps, short
 * launches, and either the stop monitors'
 * per-step look or energy checks every few steps (most steps then need
 * nothing, and the CUDA loop skips their monitors). Each case runs the
 * same ensemble on both backends: same kernel, same log record count,
 * final states within 1e-10 (FMA contraction on the GPU, and the grouped
 * kernel's order of sums over planets, are the only differences). Skips without a device unless SL_REQUIRE_GPU=1. */
#include "sl_test.h"
#include "slt_force.h"
#include "starling/integrators/mvs.h"

/* a1: the innermost planet's semi-major axis (1 but in the fallback case) */
static double g_a1 = 1.0;

static sl_ensemble *systems_n(int n_body, int64_t n_sys)
{
    sl_test_system_spec sp = {.n_planets = n_body - 1, .planet_mass = 3e-5, .a1 = g_a1,
                              .spacing = 0.35, .perturb = 0.02, .random_phase = 1, .seed = 5};
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&sp, n_sys, &e));
    return e;
}

static sl_ensemble *systems(int n_body) { return systems_n(n_body, n_body > 10 ? 256 : 2000); }

static void mvs_case(const slt_plugins *p, sl_run_config *c, int order, int jacobi, int look)
{
    slt_config(p, c, 0.02, 40.0);
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_PROPAGATOR, "mvs", &t));
    c->prop = t;
    c->registry = p->reg;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, c->prop->params, c->prop->n_params));
    SLT_OK(sl_params_set(&pv, "dt", 0.02));
    SLT_OK(sl_params_set(&pv, "corrector", order));
    SLT_OK(sl_params_set(&pv, "coordinates", jacobi));
    SLT_OK(sl_params_complete(&pv));
    SLT_OK(c->prop->pack(&pv, c->pp));
    c->steps_per_launch = 300;
    c->mon.log_every_steps = 97;
    /* look: the stop monitors' look at every step (a close each step);
     * without it most steps need nothing and skip the monitors (loop.h),
     * and the logs, energy checks and launch ends must still come when due */
    if (look) {
        c->mon.close_hill = 0.5;
    } else {
        c->mon.energy_max = 1e-2;
        c->mon.check_every = 13;
    }
}

static void run_on(const char *backend, const sl_run_config *c, sl_ensemble *e, char *kernel,
                   int64_t *records)
{
    sl_backend be;
    SLT_OK(sl_backend_open(backend, &be));
    sl_run_result r;
    SLT_OK(sl_integrate(&be, e, c, &r));
    snprintf(kernel, 96, "%s", r.kernel);
    *records = r.log_records;
    sl_run_result_free(&r);
}

/* The force by name or '+'-joined list (slt_force.h), at its default
 * parameters. */
static sl_force_stack g_stack;
static void use_force(const slt_plugins *p, sl_run_config *c, const char *name)
{
    c->force = slt_force(p, name, &g_stack);
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, c->force->params, c->force->n_params));
    if (strstr(name, "j2")) {
        SLT_OK(sl_params_set(&pv, "J2", 0.0147));
        SLT_OK(sl_params_set(&pv, "R", 0.1));
    }
    SLT_OK(sl_params_complete(&pv));
    SLT_OK(sl_force_pack(c->force, &pv, c->fp));
}

static void agrees_sized(int n_body, int64_t n_sys, int order, int jacobi, int look,
                         const char *force, double t_end)
{
    SLT_REQUIRE_GPU();
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    mvs_case(&p, &c, order, jacobi, look);
    use_force(&p, &c, force);
    if (t_end > 0.0)
        c.t_end = t_end;
    sl_ensemble *a = n_sys > 0 ? systems_n(n_body, n_sys) : systems(n_body);
    sl_ensemble *b = n_sys > 0 ? systems_n(n_body, n_sys) : systems(n_body);
    char ka[96], kb[96];
    int64_t ra, rb;
    run_on("cpu", &c, a, ka, &ra);
    run_on("cuda", &c, b, kb, &rb);
    cr_assert_str_eq(ka, kb);
    cr_assert_eq(ra, rb, "log records: CPU %lld, CUDA %lld", (long long)ra, (long long)rb);
    cr_assert(ra > 0);
    double worst = 0.0;
    int64_t stopped = 0;
    for (int64_t s = 0; s < a->n_sys; s++) {
        cr_assert_eq(a->status[s], b->status[s], "system %lld: status %d on the CPU, %d on CUDA",
                     (long long)s + 1, a->status[s], b->status[s]);
        stopped += a->status[s] != SL_SYS_ACTIVE;
        for (int k = 0; k < n_body; k++)
            for (int f = SL_X; f <= SL_VZ; f++)
                worst = fmax(worst, fabs(sl_ensemble_get(a, s, k, f) - sl_ensemble_get(b, s, k, f)));
    }
    fprintf(stderr, "%s, %d bodies, corrector %d, %s, %s: CPU vs CUDA max |difference| %.3g, %lld records, "
            "%lld of %lld stopped\n", kb, n_body, order, jacobi ? "jacobi" : "democratic heliocentric",
            look ? "stop monitors" : "energy checks", worst, (long long)ra, (long long)stopped,
            (long long)a->n_sys);
    cr_assert(worst < 1e-10, "%s: CPU and CUDA differ by %.3g", kb, worst);
    sl_ensemble_destroy(a), sl_ensemble_destroy(b);
    slt_unload(&p);
}

static void agrees_force(int n_body, int order, int jacobi, int look, const char *force)
{
    agrees_sized(n_body, 0, order, jacobi, look, force, 0.0);
}

static void agrees_with(int n_body, int order, int jacobi, int look)
{
    agrees_force(n_body, order, jacobi, look, "newton");
}

static void agrees(int n_body, int order, int jacobi) { agrees_with(n_body, order, jacobi, 1); }

Test(gpu_mvs, dh_unrolled) { agrees(5, 0, 0); }
Test(gpu_mvs, dh_corrector_unrolled) { agrees(5, 11, 0); }
Test(gpu_mvs, jacobi_unrolled) { agrees(5, 0, 1); }
Test(gpu_mvs, jacobi_corrector_unrolled) { agrees(5, 17, 1); }
Test(gpu_mvs, dh_corrector_runtime_n) { agrees(20, 11, 0); }
Test(gpu_mvs, jacobi_corrector_runtime_n) { agrees(20, 11, 1); }
Test(gpu_mvs, dh_corrector_unrolled_no_stop_monitor) { agrees_with(5, 11, 0, 0); }
Test(gpu_mvs, jacobi_corrector_runtime_n_no_stop_monitor) { agrees_with(20, 11, 1, 0); }

/* From 8 bodies, democratic heliocentric runs take the grouped kernel (a
 * thread per planet, integrators/mvs/mvs_group.h); Jacobi ones the
 * thread-per-system kernel stamped beside it. 9 bodies: one planet a
 * thread; 16: 15 planets on 16 threads. */
Test(gpu_mvs, dh_grouped) { agrees(9, 0, 0); }
Test(gpu_mvs, dh_corrector_grouped) { agrees(9, 11, 0); }
Test(gpu_mvs, dh_corrector_grouped_no_stop_monitor) { agrees_with(9, 11, 0, 0); }
Test(gpu_mvs, dh_corrector_grouped_16) { agrees(16, 17, 0); }
Test(gpu_mvs, dh_corrector_grouped_16_no_stop_monitor) { agrees_with(16, 3, 0, 0); }
Test(gpu_mvs, jacobi_corrector_beside_grouped) { agrees(9, 11, 1); }
/* Between 64 and 128 systems a multiprocessor, 8 and 9 bodies run the
 * narrow group (2 threads a system: 4 planets each at 9, 4 and 3 at 8;
 * sl_prop_mvs_group_threads); 96 a multiprocessor here, over a shorter
 * span (the CPU side runs them all). */
static void agrees_narrow_span(int n_body, int wide, int narrow, double t_end)
{
    SLT_REQUIRE_GPU();
    sl_backend be;
    SLT_OK(sl_backend_open("cuda", &be));
    const int64_t n_sys = 96 * (int64_t)be.sm_count;
    const double pp[4] = {0.02, 0.0, 11.0, 0.0};
    cr_assert_eq(sl_prop_mvs_group_threads(pp, n_sys, be.sm_count, wide, narrow), 2,
                 "%lld systems of %d bodies on %d multiprocessors should run the narrow group",
                 (long long)n_sys, n_body, be.sm_count);
    agrees_sized(n_body, n_sys, 11, 0, 1, "newton", t_end);
}
static void agrees_narrow(int n_body, int wide, int narrow)
{
    agrees_narrow_span(n_body, wide, narrow, 8.0);
}
Test(gpu_mvs, dh_corrector_grouped_narrow)
{
    agrees_narrow(9, SL_PROP_mvs_GROUP_THREADS_9, SL_PROP_mvs_GROUP_NARROW_9);
}
Test(gpu_mvs, dh_corrector_grouped_narrow_8)
{
    agrees_narrow(8, SL_PROP_mvs_GROUP_THREADS_8, SL_PROP_mvs_GROUP_NARROW_8);
}
/* The narrow group's drifts that the fast form refuses: with the innermost
 * planet at a = 0.05 (and the next at 0.0675), a step of 0.02 moves their
 * mean anomalies by more than a radian (n dt 1.79 and 1.14), so beta X^2
 * passes 1, out of the Stumpff series' range, and those drifts go to the
 * general drift (sl_mvs_gK2's fallback; the CPU's lanes have their own);
 * the outer planets stay on the fast form. 100 steps (a log record at the
 * 97th), short of where rounding would grow. */
Test(gpu_mvs, dh_corrector_grouped_narrow_fallback)
{
    g_a1 = 0.05;
    const double n_dt = sqrt(1.0 / (g_a1 * g_a1 * g_a1)) * 0.02;
    cr_assert(n_dt > 1.0 && n_dt < 3.0, "n dt = %g: the case should leave the series' range "
              "(n dt > 1) and stay under half an orbit", n_dt);
    agrees_narrow_span(9, SL_PROP_mvs_GROUP_THREADS_9, SL_PROP_mvs_GROUP_NARROW_9, 2.0);
}
/* gr and j2 have acc_perturb_at too (test_forces checks its rows), but
 * their plugins stamp kernels for 2, 3 and 5 bodies only (forces/
 * CMakeLists.txt): 9 bodies run their runtime-N kernel, one thread a
 * system. This case checks that mvs with them still agrees there. */
Test(gpu_mvs, dh_corrector_gr_runtime_n) { agrees_force(9, 11, 0, 1, "gr"); }
/* The stack with both terms on, unrolled (N = 5) and runtime N (9). */
Test(gpu_mvs, dh_corrector_gr_and_j2) { agrees_force(5, 11, 0, 1, "newton+gr+j2"); }
Test(gpu_mvs, dh_corrector_gr_and_j2_runtime_n) { agrees_force(9, 11, 0, 1, "newton+gr+j2"); }
