/* GPU suite: a user monitor (tests/plugins/user_monitor.c, 'slt_watch')
 * stops the same systems on the CUDA backend as on the CPU backend, at the
 * same step, for the same reason and code; the state comes back to the host
 * after every launch only because a user monitor is configured, and the
 * statuses it sets go back to the device (the stopped systems stay put).
 *
 * Skips when no CUDA device is usable, fails then if SL_REQUIRE_GPU=1. */
#include "sl_test.h"

#define UM_SO SLT_UM_DIR "/slt_watch/slt_watch.so"

enum { K_LATE, K_FAR, K_NEAR, K_QUIET, NKIND };

/* Planet 2 crosses r = 6 outward (K_FAR: a = 5, e = 0.7 from pericentre),
 * crosses r = 0.8 inward (K_NEAR: a = 1.5, e = 0.6 from apocentre), or
 * stays at 2; K_LATE systems are stopped by time. 4 bodies: planets at 1
 * and (slightly inclined) 3.5 besides. */
static sl_ensemble *make(int64_t n_sys)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(n_sys, 4, &e));
    const double pm = 1e-5, z[3] = {0, 0, 0};
    for (int64_t s = 0; s < n_sys; s++) {
        double ph = 0.37 * (double)s;
        double x1[3] = {cos(ph), sin(ph), 0}, v1[3] = {-sin(ph), cos(ph), 0};
        double r = 2.0, sp = sqrt(1.0 / 2.0);
        if (s % NKIND == K_FAR)
            r = 1.5, sp = sqrt(1.7 / 1.5);
        if (s % NKIND == K_NEAR)
            r = 2.4, sp = sqrt(0.4 / 2.4);
        double x2[3] = {r * cos(ph + 2), r * sin(ph + 2), 0};
        double v2[3] = {-sp * sin(ph + 2), sp * cos(ph + 2), 0};
        double r3 = 3.5, sp3 = sqrt(1.0 / r3);
        double x3[3] = {r3 * cos(ph - 2), r3 * sin(ph - 2), 0.01};
        double v3[3] = {-sp3 * sin(ph - 2), sp3 * cos(ph - 2), 0};
        SLT_OK(sl_ensemble_set_body(e, s, 0, 1.0, z, z));
        SLT_OK(sl_ensemble_set_body(e, s, 1, pm, x1, v1));
        SLT_OK(sl_ensemble_set_body(e, s, 2, pm, x2, v2));
        SLT_OK(sl_ensemble_set_body(e, s, 3, pm, x3, v3));
    }
    sl_ensemble_to_barycentric(e);
    return e;
}

static void run(const slt_plugins *p, const char *backend, sl_ensemble *e, slt_log *log,
                sl_run_result *res)
{
    const sl_monitor *m;
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_MONITOR, "slt_watch", &t));
    m = t;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, m->params, m->n_params));
    /* K_LATE systems (index 0 mod 4) stop at t >= 7.3 */
    SLT_OK(sl_params_set(&pv, "t", 7.3));
    SLT_OK(sl_params_set(&pv, "every", NKIND));
    SLT_OK(sl_params_set(&pv, "r_far", 6.0));
    SLT_OK(sl_params_set(&pv, "r_near", 0.8));
    void *ctx;
    SLT_OK(m->prepare(&pv, &ctx));
    sl_monitor_use u = {m, ctx};
    sl_run_config c;
    slt_config(p, &c, 0.01, 40.0);
    c.steps_per_launch = 50;
    c.user_monitors = &u;
    c.n_user_monitors = 1;
    slt_monitor(p, &c, "log", 2, (const char *[]){"every", "on_stop"}, (double[]){100, 1});
    slt_log_init(log, e->n_sys);
    slt_log_attach(&c, log);
    sl_backend be;
    SLT_OK(sl_backend_open(backend, &be));
    SLT_OK(sl_integrate(&be, e, &c, res));
    m->release(ctx);
}

Test(gpu_user_monitors, cpu_and_cuda_stop_the_same_systems)
{
    SLT_REQUIRE_GPU();
    slt_plugins p;
    slt_load(&p);
    SLT_OK(sl_registry_load_file(p.reg, UM_SO));
    const int64_t NS = 1000;
    sl_ensemble *ec = make(NS), *eg;
    SLT_OK(sl_ensemble_clone(ec, &eg));
    slt_log lc, lg;
    sl_run_result rc, rg;
    run(&p, "cpu", ec, &lc, &rc);
    run(&p, "cuda", eg, &lg, &rg);
    cr_log_info("cpu %.3f s, cuda %.3f s (%lld launches); %lld stopped, %lld active",
                rc.wall_s, rg.wall_s, (long long)rg.launches, (long long)rc.n_stopped,
                (long long)rc.n_active);
    int64_t by_kind[NKIND] = {0};
    for (int64_t s = 0; s < NS; s++) {
        char lab_c[320], lab_g[320];
        sl_stop_label(ec, ec->reason[s], ec->detail[s], lab_c, sizeof lab_c);
        sl_stop_label(eg, eg->reason[s], eg->detail[s], lab_g, sizeof lab_g);
        cr_assert_eq(ec->status[s], eg->status[s], "system %lld: cpu %s (%s), cuda %s (%s)",
                     (long long)s, sl_status_label(ec->status[s]), lab_c,
                     sl_status_label(eg->status[s]), lab_g);
        cr_assert_str_eq(lab_c, lab_g, "system %lld", (long long)s);
        cr_assert_eq(ec->detail[s], eg->detail[s]);
        cr_assert_eq(ec->steps[s], eg->steps[s], "system %lld (%s): cpu %lld steps, cuda %lld",
                     (long long)s, lab_c, (long long)ec->steps[s], (long long)eg->steps[s]);
        cr_assert(slt_same_bits(ec->stop_time[s], eg->stop_time[s]), "system %lld stop_time",
                  (long long)s);
        cr_assert(slt_same_bits(ec->time[s], eg->time[s]));
        for (int ev = 0; ev < SLT_NEV; ev++)
            cr_assert_eq(lc.count[SLT_NEV * s + ev], lg.count[SLT_NEV * s + ev], "system %lld event %d",
                         (long long)s, ev);
        static const char *const want[NKIND] = {"monitor slt_watch: late",
                                                "monitor slt_watch: far",
                                                "monitor slt_watch: near", "none"};
        cr_assert_str_eq(lab_c, want[s % NKIND], "system %lld", (long long)s);
        by_kind[s % NKIND] += ec->status[s] == SL_SYS_STOPPED;
        if (s % NKIND == K_LATE)
            cr_assert_eq(ec->steps[s], 750, "late: stopped after %lld steps",
                         (long long)ec->steps[s]);
    }
    cr_assert_eq(by_kind[K_FAR], NS / NKIND);
    cr_assert_eq(by_kind[K_NEAR], NS / NKIND);
    cr_assert_eq(by_kind[K_LATE], NS / NKIND);
    cr_assert_eq(by_kind[K_QUIET], 0);
    cr_assert_eq(rc.launches, rg.launches);
    cr_assert_eq(lc.n, lg.n);
    sl_run_result_free(&rc);
    sl_run_result_free(&rg);
    slt_log_free(&lc);
    slt_log_free(&lg);
    sl_ensemble_destroy(ec);
    sl_ensemble_destroy(eg);
    slt_unload(&p);
}
