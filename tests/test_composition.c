/* Kernels composed by the registry: the plummer force plugin carries the
 * hermite kernels for itself (kernel sets), and hermite runs with it
 * although hermite's own plugin was built knowing only newton. */
#include "sl_test.h"

static const sl_force *force_named(const slt_plugins *p, const char *name)
{
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_FORCE, name, &t));
    return t;
}

/* Three or twelve bodies on near-circular orbits around a star. */
static sl_ensemble *planets(int n_body)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(70, n_body, &e));
    for (int64_t s = 0; s < 70; s++)
        for (int b = 0; b < n_body; b++) {
            double r = 1.0 + 0.7 * b + 0.001 * (double)s, vc = b ? 1.0 / sqrt(r) : 0.0;
            double ph = 0.9 * b + 0.01 * (double)s;
            double x[3] = {b ? r * cos(ph) : 0.0, b ? r * sin(ph) : 0.0, 0.01 * b};
            double v[3] = {-vc * sin(ph), vc * cos(ph), 0.0};
            SLT_OK(sl_ensemble_set_body(e, s, b, b ? 1e-4 : 1.0, x, v));
        }
    return e;
}

/* Integrates with (hermite, force) from the registry; returns the kernel name. */
static void run(const slt_plugins *p, sl_ensemble *e, const char *force, double eps,
                sl_run_result *r)
{
    sl_run_config c;
    slt_config(p, &c, 0.01, 3.0);
    c.force = force_named(p, force);
    c.registry = p->reg;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, c.force->params, c.force->n_params));
    if (c.force->n_params)
        SLT_OK(sl_params_set(&pv, "eps", eps));
    SLT_OK(sl_params_complete(&pv));
    SLT_OK(c.force->pack(&pv, c.fp));
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    SLT_OK(sl_integrate(&be, e, &c, r));
}

static void same_as_newton(int n_body, const char *want_kernel)
{
    slt_plugins p;
    slt_load(&p);
    cr_assert_null(sl_propagator_kernel(p.hermite, "plummer", n_body),
                   "hermite's own table should know nothing of plummer");
    sl_ensemble *a = planets(n_body), *b = planets(n_body);
    sl_run_result ra, rb;
    run(&p, a, "newton", 0.0, &ra);
    run(&p, b, "plummer", 0.0, &rb);
    cr_assert_str_eq(rb.kernel, want_kernel);
    /* eps = 0 adds 0.0 to r^2: the same arithmetic, so the same bits */
    slt_assert_same_ensemble(a, b, "plummer(eps = 0) vs newton");
    sl_run_result_free(&ra), sl_run_result_free(&rb);
    sl_ensemble_destroy(a), sl_ensemble_destroy(b);
    slt_unload(&p);
}

Test(composition, force_plugin_kernels_run_with_an_installed_integrator)
{
    same_as_newton(3, "hermite/plummer/3");
}

Test(composition, runtime_n_fallback_comes_from_the_force_plugin_too)
{
    same_as_newton(12, "hermite/plummer/any");
}

Test(composition, softened_energy_is_conserved)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = planets(4);
    sl_run_result r;
    run(&p, e, "plummer", 0.3, &r);
    double worst = 0;
    for (int64_t s = 0; s < e->n_sys; s++)
        worst = fmax(worst, r.energy_error[s]);
    cr_assert(worst < 1e-9, "energy error %.3g with the softened potential", worst);
    sl_run_result_free(&r);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

Test(composition, a_missing_pair_says_what_exists)
{
    slt_plugins p;
    slt_load(&p);
    const sl_kernel_entry *k;
    cr_assert_eq(sl_registry_kernel(p.reg, p.hermite, "tides", 3, &k), SL_ERR_UNSUPPORTED);
    const char *m = sl_last_error();
    cr_assert(strstr(m, "integrator 'hermite' has no kernels for force 'tides'"), "%s", m);
    cr_assert(strstr(m, "'newton'") && strstr(m, "'plummer'"), "%s", m);
    slt_unload(&p);
}

/* The refusal a user meets with a pair whose integrator needs a part of
 * the force that the force says it lacks: before any work, naming both
 * and the part. */
static void refused(const slt_plugins *p, const char *integrator, const char *force,
                    const char *part)
{
    const void *prop, *f;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_PROPAGATOR, integrator, &prop));
    SLT_OK(sl_registry_get(p->reg, SL_KIND_FORCE, force, &f));
    sl_ensemble *e = planets(3), *before;
    SLT_OK(sl_ensemble_clone(e, &before));
    sl_run_config c;
    slt_config(p, &c, 0.01, 1.0);
    c.prop = prop;
    c.force = f;
    c.registry = p->reg;
    c.pp[1] = 10.0; /* mvs's min_mass_ratio */
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result r;
    cr_assert_eq(sl_integrate(&be, e, &c, &r), SL_ERR_UNSUPPORTED, "%s with %s ran", integrator,
                 force);
    const char *m = sl_last_error();
    char want[160];
    snprintf(want, sizeof want, "integrator '%s' needs the force's %s", integrator, part);
    cr_assert(strstr(m, want), "%s", m);
    snprintf(want, sizeof want, "force '%s' provides none", force);
    cr_assert(strstr(m, want), "%s", m);
    slt_assert_same_ensemble(before, e, "a refused run");
    sl_ensemble_destroy(e), sl_ensemble_destroy(before);
}

Test(composition, a_pair_that_cannot_run_names_the_missing_part)
{
    slt_plugins p;
    slt_load(&p);
    SLT_OK(sl_registry_load_file(p.reg, SLT_NOJERK));
    refused(&p, "hermite", "slt_nojerk", "jerks");
    refused(&p, "mvs", "slt_nojerk", "perturbation part");
    refused(&p, "mvs", "plummer", "perturbation part");
    slt_unload(&p);
}
