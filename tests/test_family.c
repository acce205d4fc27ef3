/* The integrator family against REBOUND IAS15 (tests/reference/
 * make_mvs_reference.py: the outer Solar System from J2000 mean elements,
 * G = 1, AU, Msun, one year = 2 pi, integrated 1e4 yr with IAS15 as the
 * truth): each integrator's final state agrees with it to an error that
 * fits its order and step, falls at its order when the step is halved (or
 * its accuracy key tightened), and each refuses bad keys before any work. */
#include "outer_ss.h"

static const double T_END = 1e4 * 2.0 * 3.14159265358979323846;

static const sl_propagator *prop_of(const slt_plugins *p, const char *name)
{
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_PROPAGATOR, name, &t));
    return t;
}

/* A run of integrator NAME with newton to t_end, its key KEY = VAL (and
 * its other keys at their defaults). */
static void family_config(const slt_plugins *p, sl_run_config *c, const char *name,
                          const char *key, double val, double t_end)
{
    slt_config(p, c, 1.0, t_end);
    c->prop = prop_of(p, name);
    c->registry = p->reg;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, c->prop->params, c->prop->n_params));
    SLT_OK(sl_params_set(&pv, key, val));
    SLT_OK(sl_params_complete(&pv));
    SLT_OK(c->prop->pack(&pv, c->pp));
}

/* The error after 1e4 yr against IAS15 and the steps it took. */
static double error_vs_ias15(const slt_plugins *p, const char *name, const char *key,
                             double val, double *steps)
{
    double m[NB], x[NB][3], v[NB][3];
    read_state("outer_ss_ias15.csv", m, x, v);
    sl_ensemble *e = outer_ss(1);
    sl_run_config c;
    family_config(p, &c, name, key, val, T_END);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result r;
    SLT_OK(sl_integrate(&be, e, &c, &r));
    cr_assert_eq(e->status[0], SL_SYS_ACTIVE, "%s %s = %g: system 1 stopped", name, key, val);
    cr_assert(fabs(e->time[0] - T_END) <= 1e-9 * T_END, "%s: ended at t = %.17g", name,
              e->time[0]);
    *steps = (double)e->steps[0];
    double d = worst_position(e, x);
    sl_run_result_free(&r);
    sl_ensemble_destroy(e);
    return d;
}

/* One integrator's case: its accuracy key at a coarse and a finer value;
 * the error at the finer value must be below `bound`, and the errors must
 * fall as steps^-order (order within 0.35). A fixed-step method halves dt;
 * an adaptive one tightens tol or eta, and its order is measured against
 * the steps it chose. `bound` is the method's truncation error at that
 * step with a margin of about 3 (measured values in the comments); the
 * IAS15 reference is good to ~1e-12 of 30 AU, far below each. */
typedef struct family_case {
    const char *name, *key;
    double coarse, fine, bound;
    int order;
    int at_least; /* the order may exceed the stated one (see the case) */
} family_case;

static void check_case(const family_case *fc)
{
    slt_plugins p;
    slt_load(&p);
    double n0, n1;
    double e0 = error_vs_ias15(&p, fc->name, fc->key, fc->coarse, &n0);
    double e1 = error_vs_ias15(&p, fc->name, fc->key, fc->fine, &n1);
    double order = log(e0 / e1) / log(n1 / n0);
    cr_log_info("%s vs IAS15 after 1e4 yr: %.3g at %s = %g (%.0f steps), %.3g at %s = %g "
                "(%.0f steps): order %.2f", fc->name, e0, fc->key, fc->coarse, n0, e1,
                fc->key, fc->fine, n1, order);
    cr_assert(e1 < fc->bound, "%s: error %.3g of 30 AU at %s = %g, expected < %.3g", fc->name,
              e1, fc->key, fc->fine, fc->bound);
    int ok = fc->at_least ? order > fc->order - 0.35 : fabs(order - fc->order) < 0.35;
    cr_assert(ok, "%s: order %.2f, expected %s%d (errors %.3g, %.3g in %.0f, %.0f steps)",
              fc->name, order, fc->at_least ? "at least " : "", fc->order, e0, e1, n0, n1);
    slt_unload(&p);
}

/* Measured (gcc 12, x86-64): verlet 0.0388 and 0.00971 (order 2.00);
 * hermite 3.92e-6 and 2.55e-7 (3.95); rkck 1.0e-4 and 3.13e-6 (5.00);
 * rkck_adaptive 0.0122 and 1.26e-4 in 78133 and 194854 steps (5.00);
 * hermite_adaptive 5.9e-6 and 1.57e-7 in 270338 and 540676 steps. */
Test(family, verlet_agrees_with_ias15, .timeout = 300)
{
    family_case fc = {"verlet", "dt", 0.02 * YEAR, 0.01 * YEAR, 3e-2, 2, 0};
    check_case(&fc);
}

Test(family, hermite_agrees_with_ias15, .timeout = 300)
{
    family_case fc = {"hermite", "dt", 0.05 * YEAR, 0.025 * YEAR, 1e-6, 4, 0};
    check_case(&fc);
}

Test(family, rkck_agrees_with_ias15, .timeout = 300)
{
    family_case fc = {"rkck", "dt", 0.05 * YEAR, 0.025 * YEAR, 1e-5, 5, 0};
    check_case(&fc);
}

Test(family, rkck_adaptive_agrees_with_ias15, .timeout = 300)
{
    family_case fc = {"rkck_adaptive", "tol", 1e-9, 1e-11, 4e-4, 5, 0};
    check_case(&fc);
}

/* Aarseth's criterion on this system falls faster than fourth order over
 * the range a user would run (5.2 from eta 0.02 to 0.01, 5.5 from 0.01 to
 * 0.005, against the same steps' fixed-step Hermite at 3.95): its steps
 * follow the Sun's |a|/|j|, which oscillates with the planets'
 * configuration, and the coarse runs carry an error of higher order that
 * the finer ones shed. The stated order 4 is what check-plugin measures on
 * the Kepler orbit (3.71); here the test asks for at least that. */
Test(family, hermite_adaptive_agrees_with_ias15, .timeout = 300)
{
    family_case fc = {"hermite_adaptive", "eta", 0.02, 0.01, 5e-7, 4, 1};
    check_case(&fc);
}

/* A key out of range is refused by the schema, naming the key, the value
 * and the range, before a run exists. */
static void assert_refused(const slt_plugins *p, const char *name, const char *key, double val)
{
    const sl_propagator *pr = prop_of(p, name);
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, pr->params, pr->n_params));
    cr_assert_neq(sl_params_set(&pv, key, val), SL_OK, "%s: %s = %g accepted", name, key, val);
    const char *msg = sl_last_error();
    cr_assert(strstr(msg, key), "%s %s = %g: message does not name the key: %s", name, key,
              val, msg);
}

Test(family, bad_keys_are_refused)
{
    slt_plugins p;
    slt_load(&p);
    const char *fixed[] = {"verlet", "rkck", "hermite"};
    for (int i = 0; i < 3; i++) {
        assert_refused(&p, fixed[i], "dt", 0.0);
        assert_refused(&p, fixed[i], "dt", -1.0);
        assert_refused(&p, fixed[i], "dt", NAN);
    }
    assert_refused(&p, "rkck_adaptive", "tol", 0.0);
    assert_refused(&p, "rkck_adaptive", "tol", -1e-9);
    assert_refused(&p, "rkck_adaptive", "tol_abs", -1e-9);
    assert_refused(&p, "rkck_adaptive", "dt", 0.0);
    assert_refused(&p, "hermite_adaptive", "eta", 0.0);
    assert_refused(&p, "hermite_adaptive", "eta", -0.02);
    assert_refused(&p, "hermite_adaptive", "dt", -1.0);
    slt_unload(&p);
}

/* A negative mass is refused when the ensemble is filled, naming it. */
Test(family, a_negative_mass_is_refused)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(1, 2, &e));
    double x[3] = {1, 0, 0}, v[3] = {0, 1, 0};
    cr_assert_neq(sl_ensemble_set_body(e, 0, 1, -1e-3, x, v), SL_OK);
    cr_assert(strstr(sl_last_error(), "mass"), "%s", sl_last_error());
    sl_ensemble_destroy(e);
}
