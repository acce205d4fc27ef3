/* Tests of @NAME@: its physics directly (the SL_HD header), and stacked on
 * Newtonian gravity through starling's C API with an installed integrator,
 * as a user runs it (ctest puts the build's plugins on STARLING_PLUGIN_PATH). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <starling/force_stack.h>
#include <starling/starling.h>
#include "@NAME@.h"

/* The backend the runs below use: STARLING_TEST_BACKEND ("cuda" runs them on
 * the GPU, as scripts/sdk-check.sh's SDK_BACKEND=cuda does), else the CPU. */
static const char *test_backend(void)
{
    const char *b = getenv("STARLING_TEST_BACKEND");
    return b && *b ? b : "cpu";
}

/* A 4-body configuration, not strided (S = 1). */
static const double X[12] = {0.1, -0.2, 0.05, 1.1, 0.3, -0.1, -0.7, 0.9, 0.2, 0.4, -1.3, 0.6};
static const double V[12] = {0};
static const double M[4] = {1.0, 1e-3, 3e-3, 5e-4};

/* The term's acceleration is minus the gradient of its potential over
 * the mass, body 0's reaction included (force_term.inc derives it). */
Test(@NAME@, acceleration_is_the_potential_gradient)
{
    double fp[8] = {0.3}, a[12], x[12];
    sl_term_@NAME@_acc(4, 1, X, V, M, fp, a);
    for (int k = 0; k < 12; k++) {
        const double h = 1e-6;
        for (int i = 0; i < 12; i++)
            x[i] = X[i];
        x[k] = X[k] + h;
        double up = sl_term_@NAME@_potential_add(4, 1, x, M, fp, 0.0);
        x[k] = X[k] - h;
        double down = sl_term_@NAME@_potential_add(4, 1, x, M, fp, 0.0);
        double want = -(up - down) / (2 * h) / M[k / 3];
        cr_assert(fabs(a[k] - want) <= 1e-6 * (1 + fabs(want)),
                  "component %d: a = %.12g, -grad U / m = %.12g", k, a[k], want);
    }
}

/* The jerk central gives is da/dt along x + v t. */
Test(@NAME@, jerk_is_the_time_derivative)
{
    double v[12], fp[8] = {0.3}, a[12] = {0}, j[12] = {0}, a0[12], a1[12], x0[12], x1[12];
    for (int k = 0; k < 12; k++)
        v[k] = 0.1 * sin(k + 1.0);
    sl_term_@NAME@_add(4, 1, X, v, M, fp, a, j, 1);
    const double h = 1e-6;
    for (int k = 0; k < 12; k++) {
        x0[k] = X[k] - h * v[k];
        x1[k] = X[k] + h * v[k];
    }
    sl_term_@NAME@_acc(4, 1, x0, v, M, fp, a0);
    sl_term_@NAME@_acc(4, 1, x1, v, M, fp, a1);
    for (int k = 0; k < 12; k++) {
        double want = (a1[k] - a0[k]) / (2 * h);
        cr_assert(fabs(j[k] - want) <= 1e-5 * (1 + fabs(want)), "component %d: jerk %.12g, "
                  "da/dt %.12g", k, j[k], want);
    }
}

/* The installed hermite integrator runs with newton + @NAME@ (the kernels
 * of the stack newton__@NAME@ built beside it): a 3-body system conserves
 * energy to 4th order. */
static double hermite_energy_error(sl_registry *reg, int steps)
{
    const void *t;
    cr_assert_eq(sl_registry_get(reg, SL_KIND_PROPAGATOR, "hermite", &t), SL_OK, "%s",
                 sl_last_error());
    const sl_propagator *prop = t;
    const sl_force *list[2];
    cr_assert_eq(sl_registry_get(reg, SL_KIND_FORCE, "newton", &t), SL_OK, "%s", sl_last_error());
    list[0] = t;
    cr_assert_eq(sl_registry_get(reg, SL_KIND_FORCE, "@NAME@", &t), SL_OK, "%s", sl_last_error());
    list[1] = t;
    sl_force_stack stack;
    cr_assert_eq(sl_force_stack_resolve(reg, list, 2, &stack), SL_OK, "%s", sl_last_error());
    const sl_force *force = sl_force_stack_table(&stack);

    sl_ensemble *e;
    cr_assert_eq(sl_ensemble_create(1, 3, &e), SL_OK);
    const double zero[3] = {0, 0, 0};
    cr_assert_eq(sl_ensemble_set_body(e, 0, 0, 1.0, zero, zero), SL_OK);
    cr_assert_eq(sl_ensemble_set_body(e, 0, 1, 1e-3, (double[3]){1, 0, 0},
                                      (double[3]){0, 1, 0}), SL_OK);
    cr_assert_eq(sl_ensemble_set_body(e, 0, 2, 1e-3, (double[3]){0, 1.6, 0},
                                      (double[3]){-1 / sqrt(1.6), 0, 0}), SL_OK);

    sl_run_config c;
    sl_run_config_init(&c);
    c.prop = prop;
    c.force = force;
    c.registry = reg;
    sl_param_values pv;
    cr_assert_eq(sl_params_init(&pv, prop->params, prop->n_params), SL_OK);
    cr_assert_eq(sl_params_set(&pv, "dt", 2 * M_PI / steps), SL_OK, "%s", sl_last_error());
    cr_assert_eq(prop->pack(&pv, c.pp), SL_OK);
    cr_assert_eq(sl_params_init(&pv, force->params, force->n_params), SL_OK);
    cr_assert_eq(sl_params_set(&pv, "rho", 0.01), SL_OK, "%s", sl_last_error());
    cr_assert_eq(sl_force_pack(force, &pv, c.fp), SL_OK);
    c.t_end = 10 * 2 * M_PI;

    sl_backend be;
    cr_assert_eq(sl_backend_open(test_backend(), &be), SL_OK, "%s", sl_last_error());
    sl_run_result res;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_OK, "%s", sl_last_error());
    cr_assert_str_eq(res.kernel, "hermite/newton__@NAME@/3", "ran %s", res.kernel);
    double err = res.energy_error[0];
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    return err;
}

Test(@NAME@, installed_hermite_runs_with_it)
{
    sl_registry *reg;
    cr_assert_eq(sl_registry_create(&reg), SL_OK);
    cr_assert_eq(sl_registry_load_default(reg), SL_OK, "%s", sl_last_error());
    for (size_t i = 0; i < sl_registry_problem_count(reg); i++)
        cr_assert_fail("a plugin was refused: %s", sl_registry_problem(reg, i));
    double e1 = hermite_energy_error(reg, 200), e2 = hermite_energy_error(reg, 400);
    double order = log2(e1 / e2);
    cr_assert(e1 < 1e-8, "|E/E0 - 1| = %.3e at 200 steps per orbit", e1);
    cr_assert(order > 3.5 && order < 4.5, "order %.2f, expected 4", order);
    sl_registry_destroy(reg);
}
