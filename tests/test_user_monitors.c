/* User monitors (monitor.h: prepare/check/release/codes): they stop exactly
 * the systems their rule names, at the end of the launch in which it first
 * holds, with reason "monitor" and a detail that names them and their code;
 * stops are logged; a run ends as soon as nothing is left to integrate;
 * broken monitors are refused (registry, run, conformance suite). The test
 * plugins are tests/plugins/user_monitor.c. */
#include "sl_test.h"
#include "starling/conformance.h"

#define UM_SO(name) SLT_UM_DIR "/" name "/" name ".so"

static const double DT = 0.01;

static void load_watch(slt_plugins *p)
{
    slt_load(p);
    SLT_OK(sl_registry_load_file(p->reg, UM_SO("slt_watch")));
}

static const sl_monitor *monitor(const slt_plugins *p, const char *name)
{
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_MONITOR, name, &t));
    return t;
}

/* Prepares user monitor `name` with (key, value) pairs into u. */
static void prepare(const slt_plugins *p, const char *name, int n_kv, const char *const *keys,
                    const double *vals, sl_monitor_use *u)
{
    const sl_monitor *m = monitor(p, name);
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, m->params, m->n_params));
    for (int i = 0; i < n_kv; i++)
        SLT_OK(sl_params_set(&pv, keys[i], vals[i]));
    SLT_OK(sl_params_complete(&pv));
    void *ctx = NULL;
    if (m->prepare)
        SLT_OK(m->prepare(&pv, &ctx));
    u->monitor = m;
    u->ctx = ctx;
}

static void release(sl_monitor_use *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (u[i].monitor->release)
            u[i].monitor->release((void *)u[i].ctx);
}

/* Two planets on circular orbits at 1 and 2: nothing but a user monitor
 * stops them before t_end. */
static sl_ensemble *quiet(int64_t n_sys)
{
    sl_test_system_spec sp = {.n_planets = 2, .planet_mass = 1e-5, .a1 = 1.0, .spacing = 1.0,
                              .random_phase = 1, .seed = 77};
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&sp, n_sys, &e));
    return e;
}

static void expect_label(const sl_ensemble *e, int64_t s, const char *want)
{
    char got[320];
    sl_stop_label(e, e->reason[s], e->detail[s], got, sizeof got);
    cr_assert_str_eq(got, want, "system %lld: stop label '%s', expected '%s'", (long long)s, got,
                     want);
}

/* slt_watch with t and every on quiet systems, to t_end = 2 (200 steps). */
static void run_late(const slt_plugins *p, sl_ensemble *e, int64_t spl, double t, double every,
                     sl_run_result *res)
{
    sl_run_config c;
    slt_config(p, &c, DT, 2.0);
    c.steps_per_launch = spl;
    sl_monitor_use u;
    prepare(p, "slt_watch", 2, (const char *[]){"t", "every"}, (double[]){t, every}, &u);
    c.user_monitors = &u;
    c.n_user_monitors = 1;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    SLT_OK(sl_integrate(&be, e, &c, res));
    release(&u, 1);
}

/* Systems 0, 3, 6, ... stop at the end of the first launch at or past
 * t = 0.505: launches of 10 steps end at 0.5 and 0.6, so at step 60. */
Test(user_monitors, stop_the_chosen_systems_at_the_launch_end)
{
    slt_plugins p;
    load_watch(&p);
    const int64_t NS = 47;
    sl_ensemble *e = quiet(NS);
    sl_run_result res;
    run_late(&p, e, 10, 0.505, 3, &res);
    for (int64_t s = 0; s < NS; s++) {
        if (s % 3) {
            cr_assert_eq(e->status[s], SL_SYS_ACTIVE, "system %lld: %s (%s)", (long long)s,
                         sl_status_label(e->status[s]), sl_reason_label(e->reason[s]));
            cr_assert_eq(e->steps[s], 200);
            cr_assert(isnan(e->stop_time[s]));
            continue;
        }
        cr_assert_eq(e->status[s], SL_SYS_STOPPED, "system %lld: %s", (long long)s,
                     sl_status_label(e->status[s]));
        cr_assert_eq(e->reason[s], SL_REASON_MONITOR, "system %lld: reason %s", (long long)s,
                     sl_reason_label(e->reason[s]));
        cr_assert_eq(e->detail[s], 0 * 256 + 1, "detail %d: expected slot 0, code 1", e->detail[s]);
        cr_assert_eq(e->steps[s], 60, "system %lld stopped after %lld steps", (long long)s,
                     (long long)e->steps[s]);
        cr_assert(slt_same_bits(e->time[s], 0.0 + 60.0 * DT), "time %.17g", e->time[s]);
        cr_assert(slt_same_bits(e->stop_time[s], e->time[s]));
        expect_label(e, s, "monitor slt_watch: late");
    }
    cr_assert_eq(res.n_stopped, 16);
    cr_assert_eq(res.n_active, NS - 16);
    cr_assert_eq(e->n_stop_sources, 1);
    const char *name, *code;
    cr_assert(sl_stop_source_of(e, e->detail[0], &name, &code));
    cr_assert_str_eq(name, "slt_watch");
    cr_assert_str_eq(code, "late");
    cr_assert(!sl_stop_source_of(e, 1 * 256 + 1, &name, &code), "slot 1 does not exist");
    cr_assert(!sl_stop_source_of(e, 0 * 256 + 4, &name, &code), "slt_watch has 3 codes");
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* The check runs between launches: the stop is the first launch end at or
 * past the rule's time, so it moves with steps_per_launch (t = 0.505 is
 * first passed at step 51). */
Test(user_monitors, granularity_is_steps_per_launch)
{
    slt_plugins p;
    load_watch(&p);
    const int64_t spl[] = {1, 7, 25, 0}, want[] = {51, 56, 75, 200};
    for (int k = 0; k < 4; k++) {
        sl_ensemble *e = quiet(5);
        sl_run_result res;
        run_late(&p, e, spl[k], 0.505, 1, &res);
        for (int64_t s = 0; s < 5; s++) {
            cr_assert_eq(e->status[s], SL_SYS_STOPPED, "steps_per_launch %lld: system %lld %s",
                         (long long)spl[k], (long long)s, sl_status_label(e->status[s]));
            cr_assert_eq(e->steps[s], want[k], "steps_per_launch %lld: stopped after %lld "
                         "steps, expected %lld", (long long)spl[k], (long long)e->steps[s],
                         (long long)want[k]);
            double t = k == 3 ? 2.0 : 0.0 + (double)want[k] * DT;
            cr_assert(slt_same_bits(e->stop_time[s], t), "stop time %.17g, expected %.17g",
                      e->stop_time[s], t);
        }
        /* nothing left after the stopping launch: no empty launch follows */
        int64_t launches = spl[k] ? (want[k] + spl[k] - 1) / spl[k] : 1;
        cr_assert_eq(res.launches, launches, "steps_per_launch %lld: %lld launches, expected "
                     "%lld", (long long)spl[k], (long long)res.launches, (long long)launches);
        sl_run_result_free(&res);
        sl_ensemble_destroy(e);
    }
    slt_unload(&p);
}

/* With the log on (log on_stop), each stopped system gets one stop record
 * at its stop, holding its final state; the stream stays sorted. */
Test(user_monitors, stops_are_logged)
{
    slt_plugins p;
    load_watch(&p);
    const int64_t NS = 40;
    sl_ensemble *e = quiet(NS);
    sl_run_config c;
    slt_config(&p, &c, DT, 2.0);
    c.steps_per_launch = 10;
    slt_monitor(&p, &c, "log", 2, (const char *[]){"every", "on_stop"}, (double[]){5, 1});
    slt_log log;
    slt_log_init(&log, NS);
    slt_log_attach(&c, &log);
    sl_monitor_use u;
    prepare(&p, "slt_watch", 2, (const char *[]){"t", "every"}, (double[]){0.95, 4}, &u);
    c.user_monitors = &u;
    c.n_user_monitors = 1;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    release(&u, 1);
    cr_assert(!log.bad && !log.unsorted && !log.regress);
    for (int64_t s = 0; s < NS; s++) {
        int stopped = s % 4 == 0;
        cr_assert_eq(e->status[s], stopped ? SL_SYS_STOPPED : SL_SYS_ACTIVE);
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_STOP], stopped, "system %lld: %lld stop records",
                     (long long)s, (long long)log.count[SLT_NEV * s + SL_LOG_STOP]);
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_FINAL], !stopped);
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_PERIODIC], stopped ? 20 : 40);
    }
    int seen = 0;
    for (int64_t i = 0; i < log.n; i++) {
        const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
        if (r[3] != SL_LOG_STOP)
            continue;
        int64_t s = (int64_t)r[0];
        seen++;
        cr_assert(slt_same_bits(r[1], e->stop_time[s]) && r[2] == 100.0,
                  "system %lld: stop record at t = %.17g, step %g", (long long)s, r[1], r[2]);
        for (int b = 0; b < e->n_body; b++) {
            double m, x[3], v[3];
            sl_ensemble_get_body(e, s, b, &m, x, v);
            for (int k = 0; k < 3; k++)
                cr_assert(slt_same_bits(r[SL_LOG_HEAD + 6 * b + k], x[k]) &&
                          slt_same_bits(r[SL_LOG_HEAD + 6 * b + 3 + k], v[k]),
                          "system %lld body %d: the stop record is not the final state",
                          (long long)s, b);
        }
    }
    cr_assert_eq(seen, 10);
    sl_run_result_free(&res);
    slt_log_free(&log);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* Planet 2 of systems 0, 3, ... on an orbit a = 5, e = 0.7 from pericentre
 * 1.5 (apocentre 8.5); of systems 1, 4, ... on a = 1.5, e = 0.6 from
 * apocentre 2.4 (pericentre 0.6); the rest circular. */
static sl_ensemble *crossing(int64_t n_sys)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(n_sys, 3, &e));
    const double pm = 1e-5, z[3] = {0, 0, 0};
    for (int64_t s = 0; s < n_sys; s++) {
        double ph = 0.37 * (double)s, x1[3] = {cos(ph), sin(ph), 0};
        double v1[3] = {-sin(ph) * sqrt(1 + pm), cos(ph) * sqrt(1 + pm), 0};
        double r = 2.0, sp = sqrt((1 + pm) / 2.0);
        if (s % 3 == 0)
            r = 1.5, sp = sqrt((1 + pm) * 1.7 / 1.5);
        if (s % 3 == 1)
            r = 2.4, sp = sqrt((1 + pm) * 0.4 / 2.4);
        double x2[3] = {r * cos(ph + 2), r * sin(ph + 2), 0};
        double v2[3] = {-sp * sin(ph + 2), sp * cos(ph + 2), 0};
        SLT_OK(sl_ensemble_set_body(e, s, 0, 1.0, z, z));
        SLT_OK(sl_ensemble_set_body(e, s, 1, pm, x1, v1));
        SLT_OK(sl_ensemble_set_body(e, s, 2, pm, x2, v2));
    }
    sl_ensemble_to_barycentric(e);
    return e;
}

static double dist0(const sl_ensemble *e, int64_t s, int b)
{
    double d = 0;
    for (int k = 0; k < 3; k++) {
        double q = sl_ensemble_get(e, s, b, SL_X + k) - sl_ensemble_get(e, s, 0, SL_X + k);
        d += q * q;
    }
    return sqrt(d);
}

/* Checked after every step (steps_per_launch = 1), "far" is the built-in
 * eject monitor: the same systems stop at the same step, in the same state.
 * And "near" stops the systems that come within r_near, when they do. */
Test(user_monitors, far_stops_where_eject_does)
{
    slt_plugins p;
    load_watch(&p);
    const int64_t NS = 36;
    sl_ensemble *eu = crossing(NS), *eb;
    SLT_OK(sl_ensemble_clone(eu, &eb));
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_config c;
    slt_config(&p, &c, DT, 16.0); /* r = 6 is passed at t = 13.3 */
    c.steps_per_launch = 1;
    sl_monitor_use u;
    prepare(&p, "slt_watch", 2, (const char *[]){"r_far", "r_near"}, (double[]){6.0, 0.8}, &u);
    c.user_monitors = &u;
    c.n_user_monitors = 1;
    sl_run_result res;
    SLT_OK(sl_integrate(&be, eu, &c, &res));
    release(&u, 1);
    sl_run_result_free(&res);

    slt_config(&p, &c, DT, 16.0); /* the kernel checks eject after every step */
    slt_monitor(&p, &c, "eject", 1, (const char *[]){"r"}, (double[]){6.0});
    SLT_OK(sl_integrate(&be, eb, &c, &res));
    sl_run_result_free(&res);

    for (int64_t s = 0; s < NS; s++) {
        switch (s % 3) {
        case 0:
            cr_assert_eq(eu->reason[s], SL_REASON_MONITOR, "system %lld: %s", (long long)s,
                         sl_reason_label(eu->reason[s]));
            expect_label(eu, s, "monitor slt_watch: far");
            cr_assert_eq(eb->reason[s], SL_REASON_EJECTION);
            cr_assert_eq(eu->steps[s], eb->steps[s], "system %lld: far after %lld steps, eject "
                         "after %lld", (long long)s, (long long)eu->steps[s],
                         (long long)eb->steps[s]);
            cr_assert(slt_same_bits(eu->stop_time[s], eb->stop_time[s]));
            for (int b = 0; b < 3; b++)
                for (int f = 0; f < SL_NFIELD; f++)
                    cr_assert(slt_same_bits(sl_ensemble_get(eu, s, b, f),
                                            sl_ensemble_get(eb, s, b, f)),
                              "system %lld body %d field %d", (long long)s, b, f);
            cr_assert(dist0(eu, s, 2) > 6.0);
            break;
        case 1:
            expect_label(eu, s, "monitor slt_watch: near");
            cr_assert(dist0(eu, s, 2) < 0.8, "stopped at r = %g", dist0(eu, s, 2));
            cr_assert(eu->steps[s] > 100 && eu->steps[s] < 600, "stopped after %lld steps "
                      "(pericentre after about 575)", (long long)eu->steps[s]);
            cr_assert_eq(eb->status[s], SL_SYS_ACTIVE);
            break;
        default:
            cr_assert_eq(eu->status[s], SL_SYS_ACTIVE, "system %lld: %s", (long long)s,
                         sl_reason_label(eu->reason[s]));
            cr_assert_eq(eb->status[s], SL_SYS_ACTIVE);
        }
    }
    sl_ensemble_destroy(eu);
    sl_ensemble_destroy(eb);
    slt_unload(&p);
}

/* Two user monitors: the first in the list that stops a system names the
 * stop; stop sources are per ensemble, kept by a clone, appended by a
 * later run. */
Test(user_monitors, first_monitor_names_the_stop_and_sources_are_kept)
{
    slt_plugins p;
    load_watch(&p);
    sl_ensemble *e = quiet(8);
    sl_run_config c;
    slt_config(&p, &c, DT, 1.0);
    c.steps_per_launch = 10;
    sl_monitor_use u[2];
    prepare(&p, "slt_parity", 0, NULL, NULL, &u[0]);
    prepare(&p, "slt_watch", 2, (const char *[]){"t", "every"}, (double[]){0.3, 1}, &u[1]);
    cr_assert_null(u[0].ctx);
    c.user_monitors = u;
    c.n_user_monitors = 2;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    sl_run_result_free(&res);
    for (int64_t s = 0; s < 8; s++) {
        cr_assert_eq(e->steps[s], 30);
        expect_label(e, s, s % 2 ? "monitor slt_parity: odd" : "monitor slt_watch: late");
    }
    cr_assert_eq(e->n_stop_sources, 2);
    sl_ensemble *cl;
    SLT_OK(sl_ensemble_clone(e, &cl));
    for (int64_t s = 0; s < 8; s++)
        expect_label(cl, s, s % 2 ? "monitor slt_parity: odd" : "monitor slt_watch: late");
    sl_ensemble_destroy(e);

    /* a later run on the clone appends: existing details keep their meaning */
    int slot;
    SLT_OK(sl_ensemble_stop_source(cl, "slt_watch", (const char *[]){"late", "far", "near", NULL},
                                   &slot));
    cr_assert_eq(slot, cl->detail[0] / 256, "the same monitor and codes find their slot");
    SLT_OK(sl_ensemble_stop_source(cl, "slt_watch", (const char *[]){"late", NULL}, &slot));
    cr_assert_eq(slot, 2, "other codes (a rebuilt plugin) get a new slot");
    for (int64_t s = 0; s < 8; s++)
        expect_label(cl, s, s % 2 ? "monitor slt_parity: odd" : "monitor slt_watch: late");
    release(u, 2);
    sl_ensemble_destroy(cl);
    slt_unload(&p);
}

/* A code the monitor does not name fails the run, naming the monitor, the
 * system and the code. */
Test(user_monitors, undeclared_code_fails_the_run)
{
    slt_plugins p;
    slt_load(&p);
    SLT_OK(sl_registry_load_file(p.reg, UM_SO("slt_badcode")));
    sl_ensemble *e = quiet(4);
    sl_run_config c;
    slt_config(&p, &c, DT, 1.0);
    c.steps_per_launch = 10;
    sl_monitor_use u = {monitor(&p, "slt_badcode"), NULL};
    c.user_monitors = &u;
    c.n_user_monitors = 1;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_ERR_PLUGIN);
    const char *msg = sl_last_error();
    cr_assert(strstr(msg, "monitor 'slt_badcode' returned 7 for system 2 at t = 0.6"), "%s", msg);
    cr_assert(strstr(msg, "expected 0 (go on) or a code in 1..2"), "%s", msg);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* A user monitor without codes is refused when its plugin loads. */
Test(user_monitors, registry_refuses_check_without_codes)
{
    sl_registry *r;
    SLT_OK(sl_registry_create(&r));
    cr_assert_eq(sl_registry_load_file(r, UM_SO("slt_nocodes")), SL_ERR_PLUGIN);
    cr_assert(strstr(sl_last_error(), "monitor 'slt_nocodes' has check but no codes"), "%s",
              sl_last_error());
    sl_registry_destroy(r);
}

static int never(const void *ctx, const sl_monitor_system *sys)
{
    (void)ctx, (void)sys;
    return 0;
}

/* sl_run_check (and so a dry run) refuses what the run would: a table that
 * breaks the rules, a monitor given twice. */
Test(user_monitors, run_check_refuses_bad_lists)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = quiet(2);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_config c;
    slt_config(&p, &c, DT, 1.0);
    static const char *const bad_codes[] = {"too far", NULL}, *const ok_codes[] = {"x", NULL};
    sl_monitor bad = {.abi = SL_ABI_VERSION, .name = "spacey", .check = never,
                      .codes = bad_codes};
    sl_monitor good = {.abi = SL_ABI_VERSION, .name = "fine", .check = never, .codes = ok_codes};
    sl_monitor_use u[2] = {{&bad, NULL}, {&good, NULL}};
    c.user_monitors = u;
    c.n_user_monitors = 1;
    cr_assert_eq(sl_run_check(&be, e, &c), SL_ERR_PLUGIN);
    cr_assert(strstr(sl_last_error(), "monitor 'spacey' code 1 is named \"too far\""), "%s",
              sl_last_error());
    u[0].monitor = &good;
    c.n_user_monitors = 2;
    cr_assert_eq(sl_run_check(&be, e, &c), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "monitor 'fine' is given twice"), "%s", sl_last_error());
    c.n_user_monitors = 1;
    SLT_OK(sl_run_check(&be, e, &c));
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

static const sl_check *find_check(const sl_check_report *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->checks[i].name, name))
            return &r->checks[i];
    cr_assert_fail("report '%s' has no check '%s'", r->table, name);
    return NULL;
}

static void check_one(const char *file, const char *table, sl_check_report *r)
{
    sl_registry *reg;
    SLT_OK(sl_registry_create(&reg));
    SLT_OK(sl_registry_load_file(reg, file));
    const void *t;
    SLT_OK(sl_registry_get(reg, SL_KIND_MONITOR, table, &t));
    sl_check_options o;
    sl_check_options_default(&o);
    SLT_OK(sl_check_monitor(t, &o, r));
    sl_registry_destroy(reg);
}

/* The conformance suite runs prepare, check and release: a good monitor
 * passes; one returning a code it does not name, or answering the same
 * input differently, fails the check that says so. */
Test(user_monitors, conformance)
{
    sl_check_report r;
    check_one(UM_SO("slt_watch"), "slt_watch", &r);
    cr_assert_eq(r.n_fail, 0, "slt_watch failed %zu checks", r.n_fail);
    const char *pass[] = {"codes", "prepare", "check", "repeat"};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(find_check(&r, pass[i])->result, SL_CHECK_PASS, "%s: %s", pass[i],
                     find_check(&r, pass[i])->detail);
    cr_assert_eq(find_check(&r, "configure")->result, SL_CHECK_SKIP);

    check_one(UM_SO("slt_watch"), "slt_parity", &r);
    cr_assert_eq(r.n_fail, 0);
    cr_assert(strstr(find_check(&r, "check")->detail, "48 go on, 48 stopped"), "%s",
              find_check(&r, "check")->detail);

    check_one(UM_SO("slt_badcode"), "slt_badcode", &r);
    const sl_check *c = find_check(&r, "check");
    cr_assert_eq(c->result, SL_CHECK_FAIL, "%s", c->detail);
    cr_assert(strstr(c->detail, "got 7: expected 0 (go on) or a code in 1..2"), "%s", c->detail);

    check_one(UM_SO("slt_unstable"), "slt_unstable", &r);
    cr_assert_eq(find_check(&r, "check")->result, SL_CHECK_PASS);
    c = find_check(&r, "repeat");
    cr_assert_eq(c->result, SL_CHECK_FAIL, "%s", c->detail);
}
