/* Tests of @NAME@: its physics directly (the SL_HD header), and through
 * starling's C API with an installed integrator, as a user runs it (ctest
 * puts the build's plugins on STARLING_PLUGIN_PATH). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
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

/* The acceleration is minus the gradient of the potential over the mass,
 * by central differences, with and without softening. */
Test(@NAME@, acceleration_is_the_potential_gradient)
{
    for (double eps = 0.0; eps <= 0.5; eps += 0.25) {
        double fp[8] = {eps * eps}, a[12], x[12];
        sl_force_@NAME@_acc(4, 1, X, V, M, fp, a);
        for (int k = 0; k < 12; k++) {
            const double h = 1e-6;
            for (int i = 0; i < 12; i++)
                x[i] = X[i];
            x[k] = X[k] + h;
            double up = sl_force_@NAME@_potential(4, 1, x, M, fp);
            x[k] = X[k] - h;
            double down = sl_force_@NAME@_potential(4, 1, x, M, fp);
            double want = -(up - down) / (2 * h) / M[k / 3];
            cr_assert(fabs(a[k] - want) <= 1e-6 * (1 + fabs(want)),
                      "eps %g, component %d: a = %.12g, -grad U / m = %.12g", eps, k, a[k], want);
        }
    }
}

/* acc_jerk's accelerations are acc's, and its jerk is da/dt. */
Test(@NAME@, jerk_is_the_time_derivative)
{
    double v[12], fp[8] = {0.01}, a[12], j[12], a0[12], a1[12], x0[12], x1[12];
    for (int k = 0; k < 12; k++)
        v[k] = 0.1 * sin(k + 1.0);
    sl_force_@NAME@_acc_jerk(4, 1, X, v, M, fp, a, j);
    const double h = 1e-6;
    for (int k = 0; k < 12; k++) {
        x0[k] = X[k] - h * v[k];
        x1[k] = X[k] + h * v[k];
    }
    sl_force_@NAME@_acc(4, 1, x0, v, M, fp, a0);
    sl_force_@NAME@_acc(4, 1, x1, v, M, fp, a1);
    sl_force_@NAME@_acc(4, 1, X, v, M, fp, x0); /* x0 reused for acc at X */
    for (int k = 0; k < 12; k++) {
        cr_assert_eq(a[k], x0[k], "component %d: acc_jerk and acc disagree", k);
        double want = (a1[k] - a0[k]) / (2 * h);
        cr_assert(fabs(j[k] - want) <= 1e-5 * (1 + fabs(want)), "component %d: jerk %.12g, "
                  "da/dt %.12g", k, j[k], want);
    }
}

/* The installed hermite integrator runs with @NAME@ (kernels stamped into
 * this plugin): a 3-body system conserves energy to 4th order. */
static double hermite_energy_error(sl_registry *reg, int steps)
{
    const void *t;
    cr_assert_eq(sl_registry_get(reg, SL_KIND_PROPAGATOR, "hermite", &t), SL_OK, "%s",
                 sl_last_error());
    const sl_propagator *prop = t;
    cr_assert_eq(sl_registry_get(reg, SL_KIND_FORCE, "@NAME@", &t), SL_OK, "%s", sl_last_error());
    const sl_force *force = t;

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
    cr_assert_eq(sl_params_set(&pv, "eps", 0.01), SL_OK, "%s", sl_last_error());
    cr_assert_eq(force->pack(&pv, c.fp), SL_OK);
    c.t_end = 10 * 2 * M_PI;

    sl_backend be;
    cr_assert_eq(sl_backend_open(test_backend(), &be), SL_OK, "%s", sl_last_error());
    sl_run_result res;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_OK, "%s", sl_last_error());
    cr_assert_str_eq(res.kernel, "hermite/@NAME@/3", "ran %s", res.kernel);
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
