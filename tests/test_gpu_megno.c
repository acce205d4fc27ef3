/* GPU suite for MEGNO (megno.h): the systems and their shadows on CUDA as
 * on the CPU, through mvs and hermite, with a log and a stop monitor.
 * Regular systems agree to 1e-8 in <Y>; the chaotic ones only over a short
 * span (their trajectories and shadows amplify the backends' last-bit
 * differences like any chaotic run). Skips without a device unless
 * SL_REQUIRE_GPU=1. */
#include "sl_test.h"

/* 40 two-planet systems from regular (spacing 0.45) to chaotic (0.22) */
static sl_ensemble *systems(void)
{
    enum { N = 40 };
    double sp[N];
    for (int i = 0; i < N; i++)
        sp[i] = 0.45 - 0.23 * i / (N - 1);
    sl_test_system_spec spec = {.n_planets = 2, .planet_mass = 1e-3, .a1 = 1.0,
                                .spacing_per_sys = sp, .perturb = 0.0, .random_phase = 1,
                                .seed = 11};
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&spec, N, &e));
    return e;
}

static void configure(const slt_plugins *p, sl_run_config *c, const char *name, double t_end)
{
    slt_config(p, c, 0.05, t_end);
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_PROPAGATOR, name, &t));
    c->prop = t;
    c->registry = p->reg;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, c->prop->params, c->prop->n_params));
    SLT_OK(sl_params_set(&pv, "dt", 0.05));
    SLT_OK(sl_params_complete(&pv));
    SLT_OK(c->prop->pack(&pv, c->pp));
    c->mon.log_every_steps = 250;
    c->mon.close_hill = 0.5;
}

typedef struct outcome {
    sl_ensemble *e;
    sl_megno_result mr;
    int64_t records;
} outcome;

static void run_on(const char *backend, const sl_run_config *c, outcome *o)
{
    o->e = systems();
    slt_log log;
    slt_log_init(&log, o->e->n_sys);
    sl_run_config ci = *c;
    slt_log_attach(&ci, &log);
    sl_megno_config m;
    sl_megno_config_default(&m);
    m.interval = 2.5;
    sl_backend be;
    SLT_OK(sl_backend_open(backend, &be));
    sl_run_result r;
    SLT_OK(sl_integrate_megno(&be, o->e, &ci, &m, &r, &o->mr));
    cr_assert(!log.bad, "%s: a shadow's record in the log", backend);
    o->records = log.n;
    slt_log_free(&log);
    sl_run_result_free(&r);
}

static void agrees(const char *integrator, double t_end, double tol, int all)
{
    SLT_REQUIRE_GPU();
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    configure(&p, &c, integrator, t_end);
    outcome a, b;
    run_on("cpu", &c, &a);
    run_on("cuda", &c, &b);
    cr_assert_eq(a.records, b.records, "log records: CPU %lld, CUDA %lld", (long long)a.records,
                 (long long)b.records);
    double worst = 0;
    int regular = 0, chaotic = 0;
    for (int64_t s = 0; s < a.e->n_sys; s++) {
        cr_assert_eq(a.e->status[s], b.e->status[s], "system %lld: status", (long long)s + 1);
        double ya = a.mr.megno[s], yb = b.mr.megno[s];
        cr_assert_eq(isnan(ya), isnan(yb), "system %lld: <Y> %g vs %g", (long long)s + 1, ya, yb);
        if (isnan(ya))
            continue;
        regular += ya < 2.5, chaotic += ya > 4;
        if (ya < 2.5 || all)
            worst = fmax(worst, fabs(ya - yb) / fabs(ya));
    }
    fprintf(stderr, "megno %s to t = %g: %d regular, %d chaotic; CPU vs CUDA <Y> max relative "
            "difference %.3g\n", integrator, t_end, regular, chaotic, worst);
    cr_assert(regular > 5, "only %d regular systems: the case does not test them", regular);
    cr_assert(worst < tol, "<Y>: CPU and CUDA differ by %.3g (bound %g)", worst, tol);
    sl_megno_result_free(&a.mr), sl_megno_result_free(&b.mr);
    sl_ensemble_destroy(a.e), sl_ensemble_destroy(b.e);
    slt_unload(&p);
}

/* long enough for <Y> to tell regular from chaotic; compared on the regular */
Test(gpu_megno, mvs_regular_systems_agree, .timeout = 300) { agrees("mvs", 1000.0, 1e-8, 0); }
Test(gpu_megno, hermite_regular_systems_agree, .timeout = 300)
{
    agrees("hermite", 1000.0, 1e-8, 0);
}
/* short: every system compared, the chaotic ones too */
Test(gpu_megno, mvs_all_systems_agree_early, .timeout = 300) { agrees("mvs", 100.0, 1e-6, 1); }
