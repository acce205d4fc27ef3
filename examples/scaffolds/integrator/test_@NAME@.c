/* Tests of @NAME@ through starling's C API, as a user runs it: the plugin
 * is found on STARLING_PLUGIN_PATH (ctest sets it to the build's plugins). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <starling/starling.h>

/* The backend the runs below use: STARLING_TEST_BACKEND ("cuda" runs them on
 * the GPU, as scripts/sdk-check.sh's SDK_BACKEND=cuda does), else the CPU. */
static const char *test_backend(void)
{
    const char *b = getenv("STARLING_TEST_BACKEND");
    return b && *b ? b : "cpu";
}

static sl_registry *reg;
static const sl_propagator *prop;
static const sl_force *newton;

static void load(void)
{
    cr_assert_eq(sl_registry_create(&reg), SL_OK, "%s", sl_last_error());
    cr_assert_eq(sl_registry_load_default(reg), SL_OK, "%s", sl_last_error());
    for (size_t i = 0; i < sl_registry_problem_count(reg); i++)
        cr_assert_fail("a plugin was refused: %s", sl_registry_problem(reg, i));
    const void *t;
    cr_assert_eq(sl_registry_get(reg, SL_KIND_PROPAGATOR, "@NAME@", &t), SL_OK, "%s",
                 sl_last_error());
    prop = t;
    cr_assert_eq(sl_registry_get(reg, SL_KIND_FORCE, "newton", &t), SL_OK, "%s", sl_last_error());
    newton = t;
}

static void unload(void) { sl_registry_destroy(reg); }

TestSuite(@NAME@, .init = load, .fini = unload);

/* The orbit below: apocentre at r = 1 with 0.9 times the circular speed,
 * so a = 1 / (2 - 0.81) and e ~ 0.19 (G = 1, M = 1 + m). */
static const double M_PLANET = 1e-3;
static double period(void)
{
    double a = 1.0 / (2.0 - 0.81);
    return 2 * M_PI * sqrt(a * a * a / (1 + M_PLANET));
}

/* |E/E0 - 1| after `orbits` periods and 0.3 more, so always at the same
 * phase (not at apocentre, where leapfrog's error happens to vanish), with
 * `steps` steps per period, on test_backend(). */
static double energy_error(int steps, double orbits, char *kernel, size_t cap)
{
    sl_ensemble *e;
    cr_assert_eq(sl_ensemble_create(1, 2, &e), SL_OK);
    const double m = M_PLANET, zero[3] = {0, 0, 0};
    cr_assert_eq(sl_ensemble_set_body(e, 0, 0, 1.0, zero, zero), SL_OK);
    cr_assert_eq(sl_ensemble_set_body(e, 0, 1, m, (double[3]){1, 0, 0},
                                      (double[3]){0, 0.9 * sqrt(1 + m), 0}), SL_OK);

    sl_run_config c;
    sl_run_config_init(&c);
    c.prop = prop;
    c.force = newton;
    c.registry = reg;
    sl_param_values pv;
    cr_assert_eq(sl_params_init(&pv, prop->params, prop->n_params), SL_OK);
    cr_assert_eq(sl_params_set(&pv, "dt", period() / steps), SL_OK, "%s", sl_last_error());
    cr_assert_eq(prop->pack(&pv, c.pp), SL_OK, "%s", sl_last_error());
    cr_assert_eq(sl_params_init(&pv, newton->params, newton->n_params), SL_OK);
    cr_assert_eq(newton->pack(&pv, c.fp), SL_OK, "%s", sl_last_error());
    c.t_end = (orbits + 0.3) * period();

    sl_backend be;
    cr_assert_eq(sl_backend_open(test_backend(), &be), SL_OK, "%s", sl_last_error());
    sl_run_result res;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_OK, "%s", sl_last_error());
    cr_assert_eq(res.n_active, 1, "the orbit stopped");
    double err = res.energy_error[0];
    snprintf(kernel, cap, "%s", res.kernel);
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    return err;
}

Test(@NAME@, second_order_on_a_kepler_orbit)
{
    char kernel[96];
    double e1 = energy_error(500, 10, kernel, sizeof kernel);
    double e2 = energy_error(1000, 10, kernel, sizeof kernel);
    cr_expect_str_eq(kernel, "@NAME@/newton/2", "ran %s, not the unrolled N = 2 kernel", kernel);
    double order = log2(e1 / e2);
    cr_assert(e1 < 5e-5, "|E/E0 - 1| = %.3e at 500 steps per period", e1);
    cr_assert(order > 1.8 && order < 2.2, "order %.2f, expected 2", order);
}

/* Symplectic: the energy error oscillates along the orbit, it does not
 * grow from orbit to orbit (compared at the same phase). */
Test(@NAME@, energy_error_bounded)
{
    char kernel[96];
    double short_run = energy_error(200, 10, kernel, sizeof kernel);
    double long_run = energy_error(200, 100, kernel, sizeof kernel);
    cr_assert(long_run < 3 * short_run + 1e-12,
              "|E/E0 - 1| grew from %.3e (10 orbits) to %.3e (100 orbits)", short_run, long_run);
}
