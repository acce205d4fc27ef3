/* Tests of @NAME@: its rule directly (@NAME@.h), prepare's refusals, and a
 * run through starling's C API with the installed hermite and newton, as a
 * user runs it (ctest puts the build's plugins on STARLING_PLUGIN_PATH). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <starling/starling.h>
#include "@NAME@.h"

/* The backend the runs below use: STARLING_TEST_BACKEND ("cuda" runs them on
 * the GPU, as scripts/sdk-check.sh's SDK_BACKEND=cuda does), else the CPU. */
static const char *test_backend(void)
{
    const char *b = getenv("STARLING_TEST_BACKEND");
    return b && *b ? b : "cpu";
}

/* A star and two planets, not strided; planet k at distance r[k - 1]. */
static int rule_at(double r1, double r2, double r_min, double r_max)
{
    const double x[9] = {0.5, -0.5, 0.1, 0.5 + r1, -0.5, 0.1, 0.5, -0.5 + r2, 0.1};
    const double v[9] = {0}, m[3] = {1, 1e-3, 1e-3};
    sl_monitor_system sys = {.index = 0, .n_body = 3, .time = 0, .steps = 0, .x = x, .v = v,
                             .m = m};
    @NAME@_bounds b = {r_min, r_max};
    return @NAME@_rule(&b, &sys);
}

Test(@NAME@, rule)
{
    cr_assert_eq(rule_at(1.0, 2.0, 0.5, 3.0), @NAME_UPPER@_GO_ON);
    cr_assert_eq(rule_at(1.0, 3.5, 0.5, 3.0), @NAME_UPPER@_TOO_FAR);
    cr_assert_eq(rule_at(0.4, 2.0, 0.5, 3.0), @NAME_UPPER@_TOO_CLOSE);
    cr_assert_eq(rule_at(0.4, 3.5, 0.5, 3.0), @NAME_UPPER@_TOO_CLOSE, "planet 1 decides first");
    cr_assert_eq(rule_at(1e-9, 2.0, 0.0, 3.0), @NAME_UPPER@_GO_ON, "r_min = 0: no inner bound");
}

/* The plugin as starling loads it: hermite and newton come from the
 * installed starling, @NAME@ from this build. */
typedef struct loaded {
    sl_registry *reg;
    const sl_propagator *hermite;
    const sl_force *newton;
    const sl_monitor *mon;
} loaded;

static void load(loaded *p)
{
    cr_assert_eq(sl_registry_create(&p->reg), SL_OK);
    cr_assert_eq(sl_registry_load_default(p->reg), SL_OK, "%s", sl_last_error());
    for (size_t i = 0; i < sl_registry_problem_count(p->reg); i++)
        cr_assert_fail("a plugin was refused: %s", sl_registry_problem(p->reg, i));
    const void *t;
    cr_assert_eq(sl_registry_get(p->reg, SL_KIND_PROPAGATOR, "hermite", &t), SL_OK);
    p->hermite = t;
    cr_assert_eq(sl_registry_get(p->reg, SL_KIND_FORCE, "newton", &t), SL_OK);
    p->newton = t;
    cr_assert_eq(sl_registry_get(p->reg, SL_KIND_MONITOR, "@NAME@", &t), SL_OK, "%s",
                 sl_last_error());
    p->mon = t;
}

static sl_status prepare(const loaded *p, double r_min, double r_max, void **ctx)
{
    sl_param_values pv;
    cr_assert_eq(sl_params_init(&pv, p->mon->params, p->mon->n_params), SL_OK);
    cr_assert_eq(sl_params_set(&pv, "r_min", r_min), SL_OK, "%s", sl_last_error());
    cr_assert_eq(sl_params_set(&pv, "r_max", r_max), SL_OK, "%s", sl_last_error());
    return p->mon->prepare(&pv, ctx);
}

/* r_min >= r_max is refused with both keys named. */
Test(@NAME@, prepare_refuses_crossed_bounds)
{
    loaded p;
    load(&p);
    void *ctx = NULL;
    cr_assert_eq(prepare(&p, 5, 2, &ctx), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "r_min = 5") && strstr(sl_last_error(), "r_max = 2"),
              "%s", sl_last_error());
    cr_assert_eq(prepare(&p, 0.5, 2, &ctx), SL_OK, "%s", sl_last_error());
    p.mon->release(ctx);
    sl_registry_destroy(p.reg);
}

/* Three systems: planet 2 on a circle at 2; on an orbit out to 8.5 (a = 5,
 * e = 0.7 from pericentre 1.5); on one in to 0.6 (a = 1.5, e = 0.6 from
 * apocentre 2.4). With r_min = 0.8 and r_max = 4, the second stops too far
 * and the third too close; each stops where it is out of bounds. */
Test(@NAME@, stops_the_systems_that_leave_the_bounds)
{
    loaded p;
    load(&p);
    sl_ensemble *e;
    cr_assert_eq(sl_ensemble_create(3, 3, &e), SL_OK);
    const double z[3] = {0, 0, 0}, r2[3] = {2.0, 1.5, 2.4};
    const double v2[3] = {sqrt(1 / 2.0), sqrt(1.7 / 1.5), sqrt(0.4 / 2.4)};
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(sl_ensemble_set_body(e, s, 0, 1.0, z, z), SL_OK);
        cr_assert_eq(sl_ensemble_set_body(e, s, 1, 1e-6, (double[3]){1, 0, 0},
                                          (double[3]){0, 1, 0}), SL_OK);
        cr_assert_eq(sl_ensemble_set_body(e, s, 2, 1e-6, (double[3]){0, r2[s], 0},
                                          (double[3]){-v2[s], 0, 0}), SL_OK);
    }
    sl_run_config c;
    sl_run_config_init(&c);
    c.prop = p.hermite;
    c.force = p.newton;
    c.registry = p.reg;
    sl_param_values pv;
    cr_assert_eq(sl_params_init(&pv, p.hermite->params, p.hermite->n_params), SL_OK);
    cr_assert_eq(sl_params_set(&pv, "dt", 0.01), SL_OK);
    cr_assert_eq(p.hermite->pack(&pv, c.pp), SL_OK);
    cr_assert_eq(sl_params_init(&pv, p.newton->params, p.newton->n_params), SL_OK);
    cr_assert_eq(p.newton->pack(&pv, c.fp), SL_OK);
    c.t_end = 20;
    c.steps_per_launch = 20; /* the rule is checked every 20 steps */
    void *ctx;
    cr_assert_eq(prepare(&p, 0.8, 4.0, &ctx), SL_OK, "%s", sl_last_error());
    sl_monitor_use use = {p.mon, ctx};
    c.user_monitors = &use;
    c.n_user_monitors = 1;

    sl_backend be;
    cr_assert_eq(sl_backend_open(test_backend(), &be), SL_OK, "%s", sl_last_error());
    sl_run_result res;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_OK, "%s", sl_last_error());
    p.mon->release(ctx);

    const char *want[3] = {"none", "monitor @NAME@: too_far", "monitor @NAME@: too_close"};
    for (int s = 0; s < 3; s++) {
        char got[320];
        sl_stop_label(e, e->reason[s], e->detail[s], got, sizeof got);
        cr_assert_str_eq(got, want[s], "system %d: %s, expected %s", s + 1, got, want[s]);
    }
    cr_assert_eq(e->status[0], SL_SYS_ACTIVE);
    cr_assert_eq(e->time[0], 20.0);
    for (int s = 1; s < 3; s++) {
        double d = 0;
        for (int k = 0; k < 3; k++) {
            double q = sl_ensemble_get(e, s, 2, SL_X + k) - sl_ensemble_get(e, s, 0, SL_X + k);
            d += q * q;
        }
        d = sqrt(d);
        cr_assert(s == 1 ? d > 4.0 : d < 0.8, "system %d stopped at r = %g", s + 1, d);
        cr_assert_eq(e->steps[s] % 20, 0, "stops fall on launch ends");
        cr_assert_eq(e->stop_time[s], e->time[s]);
    }
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    sl_registry_destroy(p.reg);
}
