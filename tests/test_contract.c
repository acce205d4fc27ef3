/* The kernel contract of issue 9 on the CPU: masses reach the stage
 * functions and velocities an acceleration-only force, on the lane loop
 * and the scalar loop; force parameters differ per system (from ensemble
 * attributes), validated before any work, with every system getting
 * exactly the result of a run with its value for all; the run-time limits
 * (tables that misstate their kernels, the step in pp[0], packed counts)
 * refused clearly. */
#include "sl_test.h"
#include "starling/conformance.h"

#include "starling/instantiate.h"
#include "integrators/mass_drift.h"

#define SL_P slt_mdrift
#define SL_F slt_drag
#define SL_NBODIES SLT_MDRIFT_NBODIES
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"

#include "contract_cases.h"

/* ---- masses and velocities reach the physics ------------------------------------- */

/* After K steps of h: v_x = v0 (1 - h gamma m)^K, x_x = x0 + K h m. */
static void check_drag(const sl_ensemble *e, int64_t k_steps, const char *kernel)
{
    for (int64_t s = 0; s < e->n_sys; s++)
        for (int b = 0; b < e->n_body; b++) {
            double m, x[3], v[3];
            sl_ensemble_get_body(e, s, b, &m, x, v);
            double f = 1.0 - SLT_MDRIFT_DT * slt_gamma_of(s) * slt_mass_of(b);
            double vx = 1.0 + b, xx = 10.0 * b + (double)k_steps * SLT_MDRIFT_DT * slt_mass_of(b);
            for (int64_t k = 0; k < k_steps; k++)
                vx *= f;
            cr_assert(fabs(v[0] - vx) <= 1e-13 * fabs(vx) && fabs(x[0] - xx) <= 1e-13 * fabs(xx),
                      "%s, system %lld, body %d: x = %.17g v = %.17g, want %.17g and %.17g",
                      kernel, (long long)s + 1, b, x[0], v[0], xx, vx);
            cr_assert(v[1] == 0.0 && v[2] == 0.0 && x[1] == (double)s && x[2] == 0.0);
        }
}

static void run_drag(int n, const char *want_kernel)
{
    sl_ensemble *e = slt_drag_systems(70, n); /* two full chunks and a partial one */
    sl_run_config c;
    sl_param_values pv;
    slt_drag_config(&c, &pv, 1.0);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result r;
    SLT_OK(sl_integrate(&be, e, &c, &r));
    cr_assert_str_eq(r.kernel, want_kernel);
    check_drag(e, 4, r.kernel);
    sl_run_result_free(&r);
    sl_ensemble_destroy(e);
}

Test(contract, masses_and_velocities_on_the_lane_loop) { run_drag(3, "slt_mdrift/slt_drag/3"); }
Test(contract, masses_and_velocities_on_the_scalar_loop) { run_drag(4, "slt_mdrift/slt_drag/any"); }

/* ---- plummer softening per system ----------------------------------------------- */

static void run_plummer(const slt_plugins *p, sl_ensemble *e, double eps, double energy_max,
                        sl_run_result *r)
{
    sl_run_config c;
    sl_param_values pv;
    slt_plummer_config(p, &c, &pv, eps, 2.0);
    c.mon.energy_max = energy_max;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    SLT_OK(sl_integrate(&be, e, &c, r));
}

/* System s of the per-system run against system s of a run of the same
 * ensemble with eps = eps(s) for every system: the same bits, the same
 * stop, the same energy error from the host diagnostics. */
static void same_as_uniform(int n_body, const char *want_kernel, double energy_max)
{
    slt_plugins p;
    slt_load(&p);
    const int64_t ns = 70;
    sl_ensemble *per = slt_plummer_systems(ns, n_body);
    sl_ensemble *uni[SLT_N_EPS];
    sl_run_result rper, runi[SLT_N_EPS];
    for (int q = 0; q < SLT_N_EPS; q++) {
        uni[q] = slt_plummer_systems(ns, n_body);
        run_plummer(&p, uni[q], slt_eps_of(q), energy_max, &runi[q]);
    }
    slt_set_eps_attr(per);
    run_plummer(&p, per, -1.0, energy_max, &rper);
    cr_assert_str_eq(rper.kernel, want_kernel);
    int64_t differ = 0, stopped = 0;
    for (int64_t s = 0; s < ns; s++) {
        const sl_ensemble *u = uni[s % SLT_N_EPS];
        cr_assert_eq(per->status[s], u->status[s], "system %lld status", (long long)s + 1);
        cr_assert_eq(per->steps[s], u->steps[s], "system %lld steps", (long long)s + 1);
        cr_assert(slt_same_bits(per->time[s], u->time[s]), "system %lld time", (long long)s + 1);
        cr_assert(slt_same_bits(rper.energy_error[s], runi[s % SLT_N_EPS].energy_error[s]),
                  "system %lld (eps %g): energy error %.17g vs %.17g with eps for all",
                  (long long)s + 1, slt_eps_of(s), rper.energy_error[s],
                  runi[s % SLT_N_EPS].energy_error[s]);
        for (int b = 0; b < n_body; b++)
            for (int f = 0; f < SL_NFIELD; f++) {
                double x = sl_ensemble_get(per, s, b, f), y = sl_ensemble_get(u, s, b, f);
                cr_assert(slt_same_bits(x, y), "%s, system %lld (eps %g) body %d field %d: "
                          "%.17g vs %.17g with eps for all", want_kernel, (long long)s + 1,
                          slt_eps_of(s), b, f, x, y);
            }
        /* and the softening mattered: eps = 0 gives other bits */
        double d = 0;
        for (int b = 0; b < n_body; b++)
            d = fmax(d, fabs(sl_ensemble_get(per, s, b, SL_X) -
                             sl_ensemble_get(uni[0], s, b, SL_X)));
        differ += slt_eps_of(s) > 0 && d > 0;
        stopped += per->status[s] != SL_SYS_ACTIVE;
    }
    cr_assert_eq(differ, ns - ns / SLT_N_EPS - (ns % SLT_N_EPS > 0),
                 "only %lld systems with eps > 0 differ from eps = 0", (long long)differ);
    if (energy_max > 0)
        cr_assert(stopped > 0 && stopped < ns, "%lld of %lld systems stopped: the energy monitor "
                  "should stop some, not all", (long long)stopped, (long long)ns);
    sl_run_result_free(&rper);
    sl_ensemble_destroy(per);
    for (int q = 0; q < SLT_N_EPS; q++) {
        sl_run_result_free(&runi[q]);
        sl_ensemble_destroy(uni[q]);
    }
    slt_unload(&p);
}

Test(contract, softening_per_system_on_the_lane_loop, .timeout = 120)
{
    same_as_uniform(3, "hermite/plummer/3", 0.0);
}

Test(contract, softening_per_system_on_the_scalar_loop, .timeout = 120)
{
    same_as_uniform(6, "hermite/plummer/any", 0.0);
}

/* The energy monitor compares with E0 computed on the host: both ends must
 * use each system's own eps, or the stops would differ. */
Test(contract, softening_per_system_with_the_energy_monitor, .timeout = 120)
{
    same_as_uniform(3, "hermite/plummer/3", 2e-8);
}

/* Attributes that all hold the same value: the uniform path, same bits. */
Test(contract, softening_attribute_with_one_value)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *a = slt_plummer_systems(40, 3), *b = slt_plummer_systems(40, 3);
    int k;
    SLT_OK(sl_ensemble_attr(b, "eps", &k));
    for (int64_t s = 0; s < 40; s++)
        b->attr[(size_t)k * 40 + (size_t)s] = 0.01;
    sl_run_result ra, rb;
    run_plummer(&p, a, 0.01, 0.0, &ra);
    run_plummer(&p, b, -1.0, 0.0, &rb);
    slt_assert_same_ensemble(a, b, "eps = 0.01 given vs as a uniform attribute");
    sl_run_result_free(&ra), sl_run_result_free(&rb);
    sl_ensemble_destroy(a), sl_ensemble_destroy(b);
    slt_unload(&p);
}

/* ---- validated before any work -------------------------------------------------- */

static void refused(sl_ensemble *e, const sl_run_config *c, sl_status want, const char *const *has)
{
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_ensemble *before;
    SLT_OK(sl_ensemble_clone(e, &before));
    cr_assert_eq(sl_run_check(&be, e, c), want, "dry run: %s", sl_last_error());
    sl_run_result r;
    cr_assert_eq(sl_integrate(&be, e, c, &r), want, "run: %s", sl_last_error());
    for (const char *const *h = has; *h; h++)
        cr_assert(strstr(sl_last_error(), *h), "message lacks \"%s\": %s", *h, sl_last_error());
    slt_assert_same_ensemble(e, before, "a refused run");
    sl_ensemble_destroy(before);
}

Test(contract, attribute_value_outside_the_schema)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = slt_plummer_systems(40, 3);
    slt_set_eps_attr(e);
    int a;
    SLT_OK(sl_ensemble_attr(e, "eps", &a));
    e->attr[(size_t)a * 40 + 6] = -0.5; /* system 7 */
    sl_run_config c;
    sl_param_values pv;
    slt_plummer_config(&p, &c, &pv, -1.0, 1.0);
    const char *has[] = {"force 'plummer'", "system 7", "attribute 'eps'", "-0.5", "[0, ", NULL};
    refused(e, &c, SL_ERR_ARG, has);
    e->attr[(size_t)a * 40 + 6] = NAN;
    const char *has_nan[] = {"system 7", "attribute 'eps'", "nan", NULL};
    refused(e, &c, SL_ERR_ARG, has_nan);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

Test(contract, parameter_given_and_an_attribute)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = slt_plummer_systems(40, 3);
    slt_set_eps_attr(e);
    sl_run_config c;
    sl_param_values pv;
    slt_plummer_config(&p, &c, &pv, 0.01, 1.0);
    const char *has[] = {"force 'plummer'", "parameter 'eps'", "attribute", NULL};
    refused(e, &c, SL_ERR_ARG, has);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* ---- limits only run time can check ----------------------------------------------- */

/* A table that states other values than its kernels were compiled with:
 * adaptive = 1 on fixed-step kernels (which used to be refused as "not
 * run yet", and before that ran silently with a fixed step), and a
 * persist_per_body that is not their PERSIST (the run sized the
 * per-system buffer from the table and went ahead). Both refused before
 * any work, naming the plugin and both values. */
Test(contract, table_that_misstates_its_kernels_refused)
{
    slt_plugins p;
    slt_load(&p);
    sl_propagator copy = *p.hermite;
    sl_run_config c;
    slt_config(&p, &c, 0.01, 1.0);
    c.prop = &copy;
    sl_ensemble *e = slt_plummer_systems(8, 3);
    copy.adaptive = 1;
    const char *has_a[] = {"integrator 'hermite' declares adaptive = 1", "hermite.so",
                           "compiled with SL_PROP_hermite_ADAPTIVE 0", NULL};
    refused(e, &c, SL_ERR_PLUGIN, has_a);
    copy.adaptive = 0;
    copy.persist_per_body = 12;
    const char *has_p[] = {"integrator 'hermite' declares persist_per_body = 12",
                           "compiled with SL_PROP_hermite_PERSIST 6", NULL};
    refused(e, &c, SL_ERR_PLUGIN, has_p);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* pp[0] is the step: a pack that leaves it 0 is refused naming the integrator. */
Test(contract, step_not_packed_refused)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    slt_config(&p, &c, 0.01, 1.0);
    c.pp[0] = 0.0;
    sl_ensemble *e = slt_plummer_systems(8, 3);
    const char *has[] = {"integrator 'hermite'", "pp[0] = 0", NULL};
    refused(e, &c, SL_ERR_ARG, has);
    c.pp[0] = INFINITY;
    const char *has_inf[] = {"integrator 'hermite'", "pp[0] = inf", NULL};
    refused(e, &c, SL_ERR_ARG, has_inf);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

Test(contract, packed_counts_out_of_range_refused)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = slt_plummer_systems(8, 3);
    sl_propagator prop = *p.hermite;
    sl_force force = *p.newton;
    sl_run_config c;
    slt_config(&p, &c, 0.01, 1.0);
    c.prop = &prop;
    prop.n_packed = SL_PROP_PACKED_MAX + 1; /* pp's last double is the core's */
    const char *has_p[] = {"integrator 'hermite'", "n_packed = 8", "1..7", NULL};
    refused(e, &c, SL_ERR_PLUGIN, has_p);
    prop.n_packed = 0;
    refused(e, &c, SL_ERR_PLUGIN, has_p + 2); /* "1..7" */
    prop = *p.hermite;
    c.force = &force;
    force.n_packed = SL_FORCE_PARAMS_MAX + 1;
    const char *has_f[] = {"force 'newton'", "n_packed = 9", "0..8", NULL};
    refused(e, &c, SL_ERR_PLUGIN, has_f);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* ---- check-plugin: the step is pp[0], whatever sets it ----------------------------- */

static const sl_check *check_named(const sl_check_report *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->checks[i].name, name))
            return &r->checks[i];
    cr_assert_fail("no check '%s' in the report of '%s'", name, r->table);
    return NULL;
}

static sl_status zero_step_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    (void)pv;
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    return SL_OK;
}

/* slt_mdrift has no key 'dt': its pack's pp[0] is its step. The suite used
 * to overwrite pp[0] with a step of its own, so a pack that left pp[0] = 0
 * (an integrator sl_integrate refuses) passed every check. */
Test(contract, check_plugin_reads_the_step_from_pp0)
{
    sl_check_options o;
    sl_check_options_default(&o);
    o.cuda = SL_CHECK_CUDA_OFF;
    sl_check_report *r = malloc(sizeof *r);
    cr_assert_not_null(r);
    SLT_OK(sl_check_propagator(&slt_mdrift, &o, r));
    const sl_check *pack = check_named(r, "pack");
    cr_assert_eq(pack->result, SL_CHECK_PASS, "%s", pack->detail);
    cr_assert(strstr(pack->detail, "pp[0] = 0.25"), "%s", pack->detail);

    sl_propagator broken = slt_mdrift;
    broken.pack = zero_step_pack;
    SLT_OK(sl_check_propagator(&broken, &o, r));
    pack = check_named(r, "pack");
    cr_assert_eq(pack->result, SL_CHECK_FAIL, "a pack without a step passed: %s", pack->detail);
    cr_assert(strstr(pack->detail, "pp[0] = 0"), "%s", pack->detail);
    free(r);
}
