/* Monitors stop exactly the systems they should, at the step they should;
 * the log monitor writes exactly the records it promises; step caps and
 * the energy monitor work; runs are reproducible and do not depend on how
 * many steps one launch takes. */
#include "sl_test.h"

enum {
    K_BENIGN = 0,
    K_EJECT2,     /* planet 2 hyperbolic, in the plane */
    K_EJECT1,     /* planet 1 hyperbolic, out of the plane */
    K_CLOSE,      /* the planets meet head-on (retrograde outer planet) */
    K_COINCIDENT, /* both planets at the same point: forces are NaN */
    K_NAN_X,      /* a NaN injected into a position */
    K_INF_V,      /* an Inf injected into a velocity */
    K_ECCENTRIC,  /* bound, but with apocentre 8.5 (beyond unbound_r) */
    K_HYPERBOLIC, /* like K_EJECT2 (for the unbound monitor) */
    NKIND
};

static const double PM = 1e-5; /* planet mass */

static void planet_circular(double r, double phase, int retro, double x[3], double v[3])
{
    double s = sqrt((1.0 + PM) / r) * (retro ? -1.0 : 1.0);
    x[0] = r * cos(phase), x[1] = r * sin(phase), x[2] = 0.0;
    v[0] = -s * sin(phase), v[1] = s * cos(phase), v[2] = 0.0;
}

/* Fills system s with a configuration of the given kind (3 bodies). */
static void set_kind(sl_ensemble *e, int64_t s, int kind)
{
    double z[3] = {0, 0, 0}, x1[3], v1[3], x2[3], v2[3];
    double ph = 0.1 * (double)s;
    planet_circular(1.0, ph, 0, x1, v1);
    planet_circular(2.0, ph + 2.0, 0, x2, v2);
    switch (kind) {
    case K_EJECT2:
    case K_HYPERBOLIC: {
        /* r = 3, speed 1.5x escape, 45 degrees off radial */
        double vesc = sqrt(2.0 * (1.0 + PM) / 3.0), sp = 1.5 * vesc;
        x2[0] = 3.0 * cos(ph + 2.0), x2[1] = 3.0 * sin(ph + 2.0), x2[2] = 0.0;
        v2[0] = sp * (cos(ph + 2.0) - sin(ph + 2.0)) / sqrt(2.0);
        v2[1] = sp * (sin(ph + 2.0) + cos(ph + 2.0)) / sqrt(2.0);
        v2[2] = 0.0;
        break;
    }
    case K_EJECT1:
        v1[0] = 0.0, v1[1] = 0.3, v1[2] = 3.0;
        break;
    case K_CLOSE:
        planet_circular(1.0, 0.0, 0, x1, v1);
        planet_circular(1.01, M_PI, 1, x2, v2);
        break;
    case K_COINCIDENT:
        memcpy(x2, x1, sizeof x1);
        memcpy(v2, v1, sizeof v1);
        break;
    case K_ECCENTRIC: {
        /* a = 5, e = 0.7, starting at pericentre 1.5 */
        double a = 5.0, ec = 0.7, rp = a * (1 - ec);
        double vp = sqrt((1.0 + PM) * (1 + ec) / rp);
        x2[0] = rp, x2[1] = 0, x2[2] = 0;
        v2[0] = 0, v2[1] = vp, v2[2] = 0;
        break;
    }
    default:
        break;
    }
    SLT_OK(sl_ensemble_set_body(e, s, 0, 1.0, z, z));
    SLT_OK(sl_ensemble_set_body(e, s, 1, PM, x1, v1));
    SLT_OK(sl_ensemble_set_body(e, s, 2, PM, x2, v2));
}

/* Non-finite values cannot go through sl_ensemble_set_body (it refuses
 * them), so they are written into the state directly. */
static void inject(sl_ensemble *e, int64_t s, int kind)
{
    if (kind == K_NAN_X)
        e->state[sl_state_index(s, e->n_body, 2, SL_Y)] = NAN;
    if (kind == K_INF_V)
        e->state[sl_state_index(s, e->n_body, 1, SL_VX)] = INFINITY;
}

static sl_ensemble *make_mixed(int64_t n_sys, const int *kinds, int n_kinds, int benign_only)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(n_sys, 3, &e));
    for (int64_t s = 0; s < n_sys; s++)
        set_kind(e, s, benign_only ? K_BENIGN : kinds[s % n_kinds]);
    sl_ensemble_to_barycentric(e);
    if (!benign_only)
        for (int64_t s = 0; s < n_sys; s++)
            inject(e, s, kinds[s % n_kinds]);
    return e;
}

static double dist(const double *rec, int i, int j)
{
    const double *a = rec + SL_LOG_HEAD + 6 * i, *b = rec + SL_LOG_HEAD + 6 * j;
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

/* The close-encounter limit for planets i, j in a record, as documented:
 * hill x mutual Hill radius, cbrt((mi+mj)/(3 m0)) x mean distance. */
static double close_limit(const double *rec, double hill)
{
    double r1 = dist(rec, 1, 0), r2 = dist(rec, 2, 0);
    return hill * cbrt((PM + PM) / 3.0) * 0.5 * (r1 + r2);
}

static int rec_finite(const double *rec, int n_body)
{
    for (int k = 0; k < 6 * n_body; k++)
        if (!isfinite(rec[SL_LOG_HEAD + k]))
            return 0;
    return 1;
}

Test(monitors, stop_exactly_the_right_systems)
{
    slt_plugins p;
    slt_load(&p);
    const int kinds[] = {K_BENIGN, K_EJECT2, K_EJECT1, K_CLOSE, K_COINCIDENT, K_NAN_X, K_INF_V};
    const int nk = 7;
    const int64_t NS = 47; /* two chunks, the second partial */
    sl_ensemble *e = make_mixed(NS, kinds, nk, 0);
    sl_ensemble *clean = make_mixed(NS, kinds, nk, 1);
    const double dt = 0.01, t_end = 20.0, eject_r = 10.0, hill = 3.0;
    sl_run_config c;
    slt_config(&p, &c, dt, t_end);
    slt_monitor(&p, &c, "eject", 1, (const char *[]){"r"}, (double[]){eject_r});
    slt_monitor(&p, &c, "close_encounter", 1, (const char *[]){"hill"}, (double[]){hill});
    slt_monitor(&p, &c, "nonfinite", 0, NULL, NULL);
    slt_monitor(&p, &c, "log", 2, (const char *[]){"every", "on_stop"}, (double[]){1, 1});
    cr_assert_eq(c.mon.eject_r, eject_r);
    cr_assert_eq(c.mon.close_hill, hill);
    cr_assert_eq(c.mon.check_nonfinite, 1);
    cr_assert(c.mon.unbound_r < 0);
    slt_log log;
    slt_log_init(&log, NS);
    slt_log_attach(&c, &log);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    cr_assert_eq(log.bad, 0);
    cr_assert_eq(log.unsorted, 0, "a sink call's records were not sorted by system, then step");
    cr_assert_eq(log.regress, 0, "a system's records went back in time across sink calls");
    slt_log_sort(&log);
    const int64_t N = 2000; /* steps to t_end */

    int64_t n_benign = 0, n_stop = 0, n_fail = 0;
    for (int64_t s = 0; s < NS; s++) {
        int k = kinds[s % nk];
        int want_status = SL_SYS_STOPPED, want_reason = 0, want_detail = 0;
        switch (k) {
        case K_BENIGN: want_status = SL_SYS_ACTIVE; break;
        case K_EJECT2: want_reason = SL_REASON_EJECTION, want_detail = 2; break;
        case K_EJECT1: want_reason = SL_REASON_EJECTION, want_detail = 1; break;
        case K_CLOSE: want_reason = SL_REASON_CLOSE_ENCOUNTER, want_detail = 1 * 256 + 2; break;
        default:
            want_status = SL_SYS_FAILED, want_reason = SL_REASON_NONFINITE, want_detail = -1;
        }
        n_benign += want_status == SL_SYS_ACTIVE;
        n_stop += want_status == SL_SYS_STOPPED;
        n_fail += want_status == SL_SYS_FAILED;
        cr_assert_eq(e->status[s], want_status, "system %lld (kind %d): status %s, expected %s",
                     (long long)s, k, sl_status_label(e->status[s]), sl_status_label(want_status));
        cr_assert_eq(e->reason[s], want_reason, "system %lld (kind %d): reason %s, expected %s",
                     (long long)s, k, sl_reason_label(e->reason[s]), sl_reason_label(want_reason));
        cr_assert_eq(e->detail[s], want_detail, "system %lld (kind %d): detail %d, expected %d",
                     (long long)s, k, e->detail[s], want_detail);
        const int64_t *cnt = &log.count[SLT_NEV * s];
        cr_assert_eq(cnt[SL_LOG_INITIAL], 1, "system %lld: initial records", (long long)s);
        if (want_status == SL_SYS_ACTIVE) {
            cr_assert_eq(e->time[s], t_end, "benign system %lld stopped at t = %.17g",
                         (long long)s, e->time[s]);
            cr_assert_eq(e->steps[s], N);
            cr_assert(isnan(e->stop_time[s]), "stop_time of an active system is %g",
                      e->stop_time[s]);
            cr_assert_eq(cnt[SL_LOG_PERIODIC], N);
            cr_assert_eq(cnt[SL_LOG_STOP], 0);
            cr_assert_eq(cnt[SL_LOG_FINAL], 1);
            continue;
        }
        cr_assert(e->time[s] < t_end);
        cr_assert(slt_same_bits(e->stop_time[s], e->time[s]),
                  "system %lld: stop_time %.17g, time %.17g", (long long)s, e->stop_time[s],
                  e->time[s]);
        cr_assert_eq(cnt[SL_LOG_STOP], 1, "system %lld: %lld stop records", (long long)s,
                     (long long)cnt[SL_LOG_STOP]);
        cr_assert_eq(cnt[SL_LOG_FINAL], 0);
        cr_assert_eq(cnt[SL_LOG_PERIODIC], e->steps[s] - 1,
                     "system %lld: %lld periodic records for %lld steps", (long long)s,
                     (long long)cnt[SL_LOG_PERIODIC], (long long)e->steps[s]);
        if (want_status == SL_SYS_FAILED) {
            /* non-finite from the first step on */
            cr_assert_eq(e->steps[s], 1, "system %lld failed after %lld steps", (long long)s,
                         (long long)e->steps[s]);
            cr_assert_eq(e->time[s], dt);
        }
    }
    cr_assert_eq(res.n_active, n_benign);
    cr_assert_eq(res.n_stopped, n_stop);
    cr_assert_eq(res.n_failed, n_fail);

    /* The stop happened at the first step where the condition held: every
     * periodic record (one per step) is on the safe side, the stop record
     * is not. Records arrive sorted by system, then step. */
    int64_t seen_stop = 0;
    for (int64_t i = 0; i < log.n; i++) {
        const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
        int64_t s = (int64_t)r[0];
        int k = kinds[s % nk];
        int ev = (int)r[3];
        if (ev == SL_LOG_PERIODIC) {
            cr_assert(fabs(r[1] - r[2] * dt) < 1e-9, "record time %.17g at step %g", r[1], r[2]);
            cr_assert(r[2] >= 1 && r[2] <= (double)e->steps[s] - (e->status[s] != SL_SYS_ACTIVE));
        }
        if (k == K_EJECT1 || k == K_EJECT2) {
            int b = k == K_EJECT1 ? 1 : 2;
            if (ev == SL_LOG_PERIODIC || ev == SL_LOG_INITIAL)
                cr_assert(dist(r, b, 0) <= eject_r, "system %lld step %g: body %d at %g > %g "
                          "without a stop", (long long)s, r[2], b, dist(r, b, 0), eject_r);
            if (ev == SL_LOG_STOP) {
                cr_assert(dist(r, b, 0) > eject_r);
                cr_assert_eq(r[1], e->stop_time[s]);
                cr_assert_eq(r[2], (double)e->steps[s]);
                seen_stop++;
            }
        }
        if (k == K_CLOSE) {
            if (ev == SL_LOG_PERIODIC || ev == SL_LOG_INITIAL)
                cr_assert(dist(r, 1, 2) >= close_limit(r, hill),
                          "system %lld step %g: planets %g apart, limit %g, no stop",
                          (long long)s, r[2], dist(r, 1, 2), close_limit(r, hill));
            if (ev == SL_LOG_STOP) {
                cr_assert(dist(r, 1, 2) < close_limit(r, hill));
                cr_assert_eq(r[2], (double)e->steps[s]);
                seen_stop++;
            }
        }
        if (k == K_BENIGN)
            cr_assert(rec_finite(r, 3));
        /* a stopped system keeps the state it stopped in */
        if (ev == SL_LOG_STOP)
            for (int b = 0; b < 3; b++)
                for (int f = 0; f < 6; f++)
                    cr_assert(slt_same_bits(r[SL_LOG_HEAD + 6 * b + f], sl_ensemble_get(e, s, b, f)),
                              "system %lld body %d field %d: stored %.17g, stopped at %.17g",
                              (long long)s, b, f, sl_ensemble_get(e, s, b, f),
                              r[SL_LOG_HEAD + 6 * b + f]);
        if ((k == K_COINCIDENT || k == K_NAN_X || k == K_INF_V) && ev == SL_LOG_STOP) {
            cr_assert(!rec_finite(r, 3), "system %lld failed with a finite state", (long long)s);
            seen_stop++;
        }
    }
    cr_assert_eq(seen_stop, n_stop + n_fail);
    /* Sanity of the design: the encounter and ejections happen mid-run. */
    for (int64_t s = 0; s < NS; s++) {
        int k = kinds[s % nk];
        if (k == K_CLOSE)
            /* they meet at t = pi/2, entering the limit about 0.03 earlier */
            cr_assert(e->stop_time[s] > 1.5 && e->stop_time[s] < M_PI / 2, "encounter at %g",
                      e->stop_time[s]);
        if (k == K_EJECT1 || k == K_EJECT2)
            cr_assert(e->stop_time[s] > 1.0 && e->stop_time[s] < t_end);
    }

    /* Failed and stopped systems do not affect the others: the benign
     * systems end bitwise identical to a run where every system is benign. */
    sl_run_config c2 = c;
    slt_log log2;
    slt_log_init(&log2, NS);
    slt_log_attach(&c2, &log2);
    sl_run_result res2;
    SLT_OK(sl_integrate(&be, clean, &c2, &res2));
    cr_assert_eq(res2.n_active, NS);
    for (int64_t s = 0; s < NS; s++) {
        if (kinds[s % nk] != K_BENIGN)
            continue;
        for (int b = 0; b < 3; b++)
            for (int f = 0; f < SL_NFIELD; f++)
                cr_assert(slt_same_bits(sl_ensemble_get(e, s, b, f), sl_ensemble_get(clean, s, b, f)),
                          "benign system %lld body %d field %d differs from the clean run",
                          (long long)s, b, f);
        cr_assert_eq(e->steps[s], clean->steps[s]);
        cr_assert_eq(e->time[s], clean->time[s]);
    }
    sl_run_result_free(&res);
    sl_run_result_free(&res2);
    slt_log_free(&log);
    slt_log_free(&log2);
    sl_ensemble_destroy(e);
    sl_ensemble_destroy(clean);
    slt_unload(&p);
}

/* The CPU screens the state-only checks in vector code and runs the exact
 * check only on the systems the screen flags (integrate.h); the test above
 * checks, record by record, that a logged run stops at the first step
 * where a condition holds (a screen 2x too tight fails it). Without a
 * per-step log nothing else sends a system through the scalar path, so an
 * unlogged run relies on the screen's own result to get there: it must
 * stop the same systems, at the same step, for the same reason, in the
 * same state as the logged run (a screen whose result is dropped fails). */
Test(monitors, screened_stops_match_the_logged_run)
{
    slt_plugins p;
    slt_load(&p);
    const int kinds[] = {K_BENIGN, K_EJECT2, K_EJECT1, K_CLOSE, K_COINCIDENT, K_NAN_X, K_INF_V};
    const int64_t NS = 47;
    sl_ensemble *e[2] = {make_mixed(NS, kinds, 7, 0), make_mixed(NS, kinds, 7, 0)};
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    slt_log log;
    slt_log_init(&log, NS);
    int64_t stops = 0;
    for (int r = 0; r < 2; r++) {
        sl_run_config c;
        slt_config(&p, &c, 0.01, 20.0);
        slt_monitor(&p, &c, "eject", 1, (const char *[]){"r"}, (double[]){10.0});
        slt_monitor(&p, &c, "close_encounter", 1, (const char *[]){"hill"}, (double[]){3.0});
        slt_monitor(&p, &c, "nonfinite", 0, NULL, NULL);
        if (r == 0) {
            slt_monitor(&p, &c, "log", 1, (const char *[]){"every"}, (double[]){1});
            slt_log_attach(&c, &log);
        }
        sl_run_result res;
        SLT_OK(sl_integrate(&be, e[r], &c, &res));
        sl_run_result_free(&res);
    }
    for (int64_t s = 0; s < NS; s++) {
        cr_assert_eq(e[1]->status[s], e[0]->status[s], "system %lld: status", (long long)s);
        cr_assert_eq(e[1]->reason[s], e[0]->reason[s], "system %lld: reason", (long long)s);
        cr_assert_eq(e[1]->detail[s], e[0]->detail[s], "system %lld: detail", (long long)s);
        cr_assert_eq(e[1]->steps[s], e[0]->steps[s], "system %lld: stopped after %lld steps, "
                     "logged run after %lld", (long long)s, (long long)e[1]->steps[s],
                     (long long)e[0]->steps[s]);
        cr_assert(slt_same_bits(e[1]->time[s], e[0]->time[s]));
        for (int b = 0; b < 3; b++)
            for (int f = 0; f < SL_NFIELD; f++)
                cr_assert(slt_same_bits(sl_ensemble_get(e[1], s, b, f),
                                        sl_ensemble_get(e[0], s, b, f)),
                          "system %lld body %d field %d", (long long)s, b, f);
        stops += e[0]->status[s] != SL_SYS_ACTIVE;
    }
    /* all but the benign ones (s % 7 == 0: 7 of the 47) stop */
    cr_assert_eq(stops, 40, "expected 40 stopped or failed systems, got %lld", (long long)stops);
    slt_log_free(&log);
    sl_ensemble_destroy(e[0]);
    sl_ensemble_destroy(e[1]);
    slt_unload(&p);
}

/* The unbound variant stops only bodies beyond r that are also unbound. */
Test(monitors, unbound_stops_only_unbound_bodies)
{
    slt_plugins p;
    slt_load(&p);
    const int kinds[] = {K_BENIGN, K_ECCENTRIC, K_HYPERBOLIC};
    const int64_t NS = 36;
    sl_ensemble *e = make_mixed(NS, kinds, 3, 0);
    sl_run_config c;
    slt_config(&p, &c, 0.01, 40.0);
    slt_monitor(&p, &c, "eject", 2, (const char *[]){"r", "unbound"}, (double[]){5.0, 1});
    cr_assert_eq(c.mon.eject_r, 0.0);
    cr_assert_eq(c.mon.unbound_r, 5.0);
    slt_log log;
    slt_log_init(&log, NS);
    slt_log_attach(&c, &log);
    slt_monitor(&p, &c, "log", 2, (const char *[]){"every", "on_stop"}, (double[]){1, 1});
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    double max_r_ecc = 0;
    for (int64_t i = 0; i < log.n; i++) {
        const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
        int64_t s = (int64_t)r[0];
        if (kinds[s % 3] == K_ECCENTRIC)
            max_r_ecc = fmax(max_r_ecc, dist(r, 2, 0));
        if (kinds[s % 3] == K_HYPERBOLIC && (int)r[3] == SL_LOG_PERIODIC)
            cr_assert(dist(r, 2, 0) <= 5.0);
        if (kinds[s % 3] == K_HYPERBOLIC && (int)r[3] == SL_LOG_STOP)
            cr_assert(dist(r, 2, 0) > 5.0);
    }
    /* the bound planet really went beyond r without being stopped */
    cr_assert(max_r_ecc > 8.0, "eccentric planet reached only r = %g", max_r_ecc);
    for (int64_t s = 0; s < NS; s++) {
        if (kinds[s % 3] == K_HYPERBOLIC) {
            cr_assert_eq(e->status[s], SL_SYS_STOPPED);
            cr_assert_eq(e->reason[s], SL_REASON_UNBOUND, "reason %s", sl_reason_label(e->reason[s]));
            cr_assert_eq(e->detail[s], 2);
            cr_assert(slt_same_bits(e->stop_time[s], e->time[s]));
        } else {
            cr_assert_eq(e->status[s], SL_SYS_ACTIVE, "system %lld: %s/%s", (long long)s,
                         sl_status_label(e->status[s]), sl_reason_label(e->reason[s]));
            cr_assert_eq(e->reason[s], SL_REASON_NONE);
            cr_assert_eq(e->time[s], 40.0);
            cr_assert(isnan(e->stop_time[s]));
        }
    }
    sl_run_result_free(&res);
    slt_log_free(&log);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* Log every k steps: exactly floor(N/k) periodic records per system, at
 * steps k, 2k, ..., with the state the system had at that step; plus one
 * initial and one final snapshot. dt is a power of two so that times are
 * exact and a shorter run reproduces a logged state bitwise. */
Test(monitors, log_every_k_steps)
{
    slt_plugins p;
    slt_load(&p);
    const int kinds[] = {K_BENIGN, K_BENIGN, K_NAN_X, K_BENIGN, K_EJECT2};
    const int64_t NS = 33, N = 1000, K = 7;
    const double dt = 1.0 / 128.0, t_end = (double)N / 128.0;
    sl_ensemble *e0 = make_mixed(NS, kinds, 5, 0);
    sl_ensemble *e;
    SLT_OK(sl_ensemble_clone(e0, &e));
    sl_run_config c;
    slt_config(&p, &c, dt, t_end);
    slt_monitor(&p, &c, "log", 2, (const char *[]){"every", "on_stop"}, (double[]){(double)K, 0});
    slt_monitor(&p, &c, "eject", 1, (const char *[]){"r"}, (double[]){4.0});
    cr_assert_eq(c.mon.log_every_steps, K);
    cr_assert_eq(c.mon.log_on_stop, 0);
    slt_log log;
    slt_log_init(&log, NS);
    slt_log_attach(&c, &log);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    cr_assert(!log.bad && !log.unsorted && !log.regress);
    slt_log_sort(&log);
    int64_t periodic = 0;
    for (int64_t s = 0; s < NS; s++) {
        int k = kinds[s % 5];
        const int64_t *cnt = &log.count[SLT_NEV * s];
        cr_assert_eq(cnt[SL_LOG_INITIAL], 1);
        cr_assert_eq(cnt[SL_LOG_STOP], 0, "on_stop = 0 must not write stop records");
        if (k == K_BENIGN) {
            cr_assert_eq(e->steps[s], N);
            cr_assert_eq(cnt[SL_LOG_PERIODIC], N / K, "system %lld: %lld records, expected %lld",
                         (long long)s, (long long)cnt[SL_LOG_PERIODIC], (long long)(N / K));
            cr_assert_eq(cnt[SL_LOG_FINAL], 1);
        } else {
            cr_assert_neq(e->status[s], SL_SYS_ACTIVE);
            cr_assert_eq(cnt[SL_LOG_PERIODIC], (e->steps[s] - 1) / K);
            cr_assert_eq(cnt[SL_LOG_FINAL], 0);
        }
        periodic += cnt[SL_LOG_PERIODIC];
    }
    /* log_records counts what the kernels wrote (the host snapshots aside) */
    cr_assert_eq(res.log_records, periodic);
    int64_t checked = 0;
    for (int64_t i = 0; i < log.n; i++) {
        const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
        int ev = (int)r[3];
        if (ev == SL_LOG_PERIODIC) {
            int64_t step = (int64_t)r[2];
            cr_assert_eq(step % K, 0, "record at step %lld", (long long)step);
            cr_assert_eq(r[1], (double)step * dt, "record time %.17g at step %lld", r[1],
                         (long long)step);
        }
        if (ev == SL_LOG_INITIAL)
            cr_assert_eq(r[1], 0.0);
        if (ev == SL_LOG_FINAL) {
            int64_t s = (int64_t)r[0];
            cr_assert_eq(r[1], t_end);
            for (int b = 0; b < 3; b++)
                for (int f = 0; f < 6; f++)
                    cr_assert(slt_same_bits(r[SL_LOG_HEAD + 6 * b + f], sl_ensemble_get(e, s, b, f)));
        }
        /* The record at step 497 (= 71 K) of system 3 is the state a run
         * that ends at step 497 finishes with. */
        if (ev == SL_LOG_PERIODIC && r[0] == 3.0 && r[2] == 497.0) {
            sl_ensemble *f;
            SLT_OK(sl_ensemble_clone(e0, &f));
            sl_run_config c2;
            slt_config(&p, &c2, dt, 497.0 * dt);
            c2.mon = c.mon;
            sl_run_result r2;
            SLT_OK(sl_integrate(&be, f, &c2, &r2));
            cr_assert_eq(f->steps[3], 497);
            for (int b = 0; b < 3; b++)
                for (int fl = 0; fl < 6; fl++)
                    cr_assert(slt_same_bits(r[SL_LOG_HEAD + 6 * b + fl], sl_ensemble_get(f, 3, b, fl)),
                              "logged state differs from the state at that step");
            sl_run_result_free(&r2);
            sl_ensemble_destroy(f);
            checked++;
        }
    }
    cr_assert_eq(checked, 1);
    sl_run_result_free(&res);
    slt_log_free(&log);
    sl_ensemble_destroy(e);
    sl_ensemble_destroy(e0);
    slt_unload(&p);
}

/* Log every dt of simulated time: one record per interval, at the first
 * step that reaches it, also when a launch boundary falls in between. */
Test(monitors, log_every_dt)
{
    slt_plugins p;
    slt_load(&p);
    const int kinds[] = {K_BENIGN};
    const int64_t NS = 40;
    const double dt = 0.01, t_end = 10.0, ldt = 0.137;
    const int64_t want = (int64_t)floor(t_end / ldt); /* 72 */
    int64_t spl[] = {0, 1, 13};
    for (int v = 0; v < 3; v++) {
        sl_ensemble *e = make_mixed(NS, kinds, 1, 0);
        sl_run_config c;
        slt_config(&p, &c, dt, t_end);
        c.steps_per_launch = spl[v];
        slt_monitor(&p, &c, "log", 1, (const char *[]){"dt"}, (double[]){ldt});
        slt_log log;
        slt_log_init(&log, NS);
        slt_log_attach(&c, &log);
        sl_backend be;
        SLT_OK(sl_backend_open("cpu", &be));
        sl_run_result res;
        SLT_OK(sl_integrate(&be, e, &c, &res));
        cr_assert(!log.bad && !log.unsorted && !log.regress);
        slt_log_sort(&log);
        for (int64_t s = 0; s < NS; s++)
            cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_PERIODIC], want,
                         "steps_per_launch %lld, system %lld: %lld records, expected %lld",
                         (long long)spl[v], (long long)s,
                         (long long)log.count[SLT_NEV * s + SL_LOG_PERIODIC], (long long)want);
        /* record j (1-based) lies in [j ldt, j ldt + dt) */
        int64_t j = 0, last_s = -1;
        for (int64_t i = 0; i < log.n; i++) {
            const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
            if ((int)r[3] != SL_LOG_PERIODIC)
                continue;
            if ((int64_t)r[0] != last_s)
                j = 0, last_s = (int64_t)r[0];
            j++;
            double lo = j * ldt;
            cr_assert(r[1] >= lo * (1 - 1e-12) && r[1] < lo + dt * (1 + 1e-9),
                      "system %lld record %lld at t = %.17g, interval starts at %.17g", last_s,
                      (long long)j, r[1], lo);
        }
        sl_run_result_free(&res);
        slt_log_free(&log);
        sl_ensemble_destroy(e);
    }
    slt_unload(&p);
}

/* max_steps stops systems that would need more steps (STEP_CAP); a cap
 * equal to the steps needed is no stop. */
Test(monitors, step_cap)
{
    slt_plugins p;
    slt_load(&p);
    const int kinds[] = {K_BENIGN, K_NAN_X, K_BENIGN};
    const int64_t NS = 35;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    for (int v = 0; v < 2; v++) {
        sl_ensemble *e = make_mixed(NS, kinds, 3, 0);
        sl_run_config c;
        slt_config(&p, &c, 1.0 / 64.0, 1000.0 / 64.0); /* 1000 steps */
        c.max_steps = v == 0 ? 250 : 1000;
        c.steps_per_launch = 64;
        sl_run_result res;
        SLT_OK(sl_integrate(&be, e, &c, &res));
        for (int64_t s = 0; s < NS; s++) {
            if (kinds[s % 3] == K_NAN_X) {
                cr_assert_eq(e->status[s], SL_SYS_FAILED);
                cr_assert_eq(e->reason[s], SL_REASON_NONFINITE);
                continue;
            }
            if (v == 0) {
                cr_assert_eq(e->status[s], SL_SYS_STOPPED);
                cr_assert_eq(e->reason[s], SL_REASON_STEP_CAP, "reason %s",
                             sl_reason_label(e->reason[s]));
                cr_assert_eq(e->detail[s], -1, "no body is at fault: detail %d", e->detail[s]);
                cr_assert_eq(e->steps[s], 250);
                cr_assert_eq(e->time[s], 250.0 / 64.0);
                cr_assert_eq(e->stop_time[s], 250.0 / 64.0);
            } else {
                cr_assert_eq(e->status[s], SL_SYS_ACTIVE, "a cap equal to the steps needed stopped "
                             "system %lld (%s)", (long long)s, sl_reason_label(e->reason[s]));
                cr_assert_eq(e->steps[s], 1000);
                cr_assert_eq(e->time[s], 1000.0 / 64.0);
                cr_assert(isnan(e->stop_time[s]));
            }
        }
        sl_run_result_free(&res);
        sl_ensemble_destroy(e);
    }
    slt_unload(&p);
}

/* The energy monitor stops a system whose step is far too large for it
 * (a pericentre of 0.05 with dt = 0.01), at a check step, and leaves a
 * well-resolved system alone. */
Test(monitors, energy_monitor)
{
    slt_plugins p;
    slt_load(&p);
    const int64_t NS = 20;
    const double emax = 1e-4;
    const int64_t every = 10;
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(NS, 2, &e));
    for (int64_t s = 0; s < NS; s++) {
        double z[3] = {0, 0, 0}, x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        if (s % 2) { /* a = 1, e = 0.95, starting at apocentre */
            x[0] = 1.95;
            v[1] = sqrt((1 + PM) * 0.05 / 1.95);
        } else { /* circular at r = 3 */
            x[0] = 3.0;
            v[1] = sqrt((1 + PM) / 3.0);
        }
        SLT_OK(sl_ensemble_set_body(e, s, 0, 1.0, z, z));
        SLT_OK(sl_ensemble_set_body(e, s, 1, PM, x, v));
    }
    sl_ensemble_to_barycentric(e);
    sl_run_config c;
    slt_config(&p, &c, 0.01, 4.0 * M_PI); /* two orbits of the eccentric one */
    slt_monitor(&p, &c, "energy", 2, (const char *[]){"max", "every"},
                (double[]){emax, (double)every});
    slt_monitor(&p, &c, "log", 2, (const char *[]){"every", "on_stop"},
                (double[]){(double)every, 1});
    cr_assert_eq(c.mon.energy_max, emax);
    cr_assert_eq(c.mon.check_every, every);
    slt_log log;
    slt_log_init(&log, NS);
    slt_log_attach(&c, &log);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    double E0[NS], L[3];
    for (int64_t s = 0; s < NS; s++)
        sl_system_energy(e, s, p.newton, c.fp, &E0[s], L);
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    for (int64_t s = 0; s < NS; s++) {
        if (s % 2) {
            cr_assert_eq(e->status[s], SL_SYS_STOPPED, "system %lld: %s", (long long)s,
                         sl_status_label(e->status[s]));
            cr_assert_eq(e->reason[s], SL_REASON_ENERGY, "reason %s", sl_reason_label(e->reason[s]));
            cr_assert_eq(e->detail[s], -1, "no body is at fault: detail %d", e->detail[s]);
            cr_assert_eq(e->steps[s] % every, 0, "stopped at step %lld, checks every %lld",
                         (long long)e->steps[s], (long long)every);
            cr_assert(res.energy_error[s] > emax);
        } else {
            cr_assert_eq(e->status[s], SL_SYS_ACTIVE);
            cr_assert(res.energy_error[s] < emax);
        }
    }
    /* Each check that passed was within the bound; the failing one was not. */
    int64_t stops = 0;
    for (int64_t i = 0; i < log.n; i++) {
        const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
        int64_t s = (int64_t)r[0];
        if (!(s % 2))
            continue;
        double x[6], m[2] = {1.0, PM}, en;
        for (int b = 0; b < 2; b++)
            for (int k = 0; k < 3; k++)
                x[3 * b + k] = r[SL_LOG_HEAD + 6 * b + k];
        double kin = 0;
        for (int b = 0; b < 2; b++) {
            const double *u = r + SL_LOG_HEAD + 6 * b + 3;
            kin += 0.5 * m[b] * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        }
        en = kin + p.newton->potential(2, x, m, c.fp);
        double de = fabs(en / E0[s] - 1.0);
        if ((int)r[3] == SL_LOG_PERIODIC)
            cr_assert(de <= emax, "system %lld step %g: |dE/E| %.3e passed the check", (long long)s,
                      r[2], de);
        if ((int)r[3] == SL_LOG_STOP) {
            cr_assert(de > emax);
            stops++;
        }
    }
    cr_assert_eq(stops, NS / 2);
    sl_run_result_free(&res);
    slt_log_free(&log);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

Test(monitors, energy_monitor_refuses_zero_energy)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(3, 2, &e));
    double z[3] = {0, 0, 0}, x[3] = {1, 0, 0}, v[3] = {0, 1, 0};
    for (int s = 0; s < 3; s++) {
        SLT_OK(sl_ensemble_set_body(e, s, 0, s == 1 ? 0.0 : 1.0, z, z));
        SLT_OK(sl_ensemble_set_body(e, s, 1, s == 1 ? 0.0 : PM, x, v));
    }
    sl_run_config c;
    slt_config(&p, &c, 0.01, 1.0);
    c.mon.energy_max = 1e-3;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    sl_status st = sl_integrate(&be, e, &c, &res);
    cr_assert_eq(st, SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "system 2") && strstr(sl_last_error(), "zero energy"),
              "message: %s", sl_last_error());
    cr_assert_eq(e->steps[0], 0, "nothing may run when the configuration is refused");
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* Runs a chaotic ensemble (closely packed Jupiters: close encounters,
 * ejections) with logging, and returns the log. */
static sl_ensemble *chaotic(void)
{
    sl_test_system_spec sp = {
        .n_planets = 3, .planet_mass = 1e-3, .a1 = 1.0, .spacing = 0.25,
        .perturb = 0.05, .random_phase = 1, .seed = 99,
    };
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&sp, 70, &e));
    e->state[sl_state_index(5, e->n_body, 2, SL_VZ)] = NAN;
    return e;
}

static void run_chaotic(const slt_plugins *p, sl_ensemble *e, int64_t spl, slt_log *log)
{
    sl_run_config c;
    slt_config(p, &c, 0.01, 60.0);
    c.steps_per_launch = spl;
    slt_monitor(p, &c, "close_encounter", 1, (const char *[]){"hill"}, (double[]){0.5});
    slt_monitor(p, &c, "eject", 1, (const char *[]){"r"}, (double[]){5.0});
    slt_monitor(p, &c, "log", 3, (const char *[]){"every", "dt", "on_stop"},
                (double[]){3, 0.25, 1});
    slt_log_init(log, e->n_sys);
    slt_log_attach(&c, log);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    cr_assert(!log->bad && !log->unsorted && !log->regress);
    /* launches deliver records in launch order; compare the sorted logs */
    slt_log_sort(log);
    sl_run_result_free(&res);
}

static void assert_same_log(const slt_log *a, const slt_log *b, const char *what)
{
    cr_assert_eq(a->n, b->n, "%s: %lld vs %lld records", what, (long long)a->n, (long long)b->n);
    cr_assert_eq(a->rec_len, b->rec_len);
    for (int64_t i = 0; i < a->n * a->rec_len; i++)
        cr_assert(slt_same_bits(a->rec[i], b->rec[i]), "%s: record %lld differs", what,
                  (long long)(i / a->rec_len));
}

Test(monitors, reproducible_and_independent_of_steps_per_launch)
{
    slt_plugins p;
    slt_load(&p);
    const int64_t spl[] = {0, 0, 1, 7, 1000};
    sl_ensemble *ref = NULL;
    slt_log ref_log = {0};
    for (int v = 0; v < 5; v++) {
        sl_ensemble *e = chaotic();
        slt_log log;
        run_chaotic(&p, e, spl[v], &log);
        if (!ref) {
            ref = e;
            ref_log = log;
            /* the run must be eventful for the comparison to mean much */
            int64_t stopped = 0, failed = 0, active = 0;
            for (int64_t s = 0; s < e->n_sys; s++) {
                stopped += e->status[s] == SL_SYS_STOPPED;
                failed += e->status[s] == SL_SYS_FAILED;
                active += e->status[s] == SL_SYS_ACTIVE;
            }
            cr_log_info("chaotic ensemble: %lld active, %lld stopped, %lld failed, %lld records",
                        (long long)active, (long long)stopped, (long long)failed, (long long)log.n);
            cr_assert(stopped >= 5 && active >= 5 && failed == 1);
            continue;
        }
        char what[64];
        snprintf(what, sizeof what, "steps_per_launch %lld (run %d)", (long long)spl[v], v);
        slt_assert_same_ensemble(ref, e, what);
        assert_same_log(&ref_log, &log, what);
        slt_log_free(&log);
        sl_ensemble_destroy(e);
    }
    slt_log_free(&ref_log);
    sl_ensemble_destroy(ref);
    slt_unload(&p);
}

/* Times are t0 + k dt, not a running sum: t_end = 10 with dt = 0.01 takes
 * exactly 1000 steps (a running sum would need a 1001st step 1.7e-13 long),
 * and max_steps = t_end / dt is not a stop. */
Test(monitors, step_count_is_t_end_over_dt)
{
    slt_plugins p;
    slt_load(&p);
    const int kinds[] = {K_BENIGN};
    sl_ensemble *e = make_mixed(8, kinds, 1, 0);
    sl_run_config c;
    slt_config(&p, &c, 0.01, 10.0);
    c.max_steps = 1000;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    for (int s = 0; s < 8; s++) {
        cr_assert_eq(e->status[s], SL_SYS_ACTIVE, "system %d: %s after %lld steps at t = %.17g",
                     s, sl_reason_label(e->reason[s]), (long long)e->steps[s], e->time[s]);
        cr_assert_eq(e->steps[s], 1000);
        cr_assert_eq(e->time[s], 10.0);
    }
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* The collision monitor: bodies of finite size stop a system at the first
 * step at which two of them overlap, naming the pair; a fixed radius and
 * radii from a density decide alike, and body 0 has its own radius. The
 * planets of K_CLOSE meet head-on (0.01 apart at closest); a third kind
 * falls onto body 0. */
static void collision_case(int by_density)
{
    slt_plugins p;
    slt_load(&p);
    enum { C_BENIGN, C_MEET, C_PLUNGE, C_KINDS };
    const int64_t NS = 23;
    const double R = 0.006, R0 = 0.1, dt = 0.01, t_end = 20.0;
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(NS, 3, &e));
    for (int64_t s = 0; s < NS; s++) {
        int k = (int)(s % C_KINDS);
        set_kind(e, s, k == C_MEET ? K_CLOSE : K_BENIGN);
        if (k == C_PLUNGE) { /* planet 1 at a tenth of circular speed */
            double m, x[3], v[3];
            sl_ensemble_get_body(e, s, 1, &m, x, v);
            for (int c = 0; c < 3; c++)
                v[c] *= 0.1;
            SLT_OK(sl_ensemble_set_body(e, s, 1, m, x, v));
        }
    }
    sl_ensemble_to_barycentric(e);
    sl_run_config c;
    slt_config(&p, &c, dt, t_end);
    /* the density whose planets (PM) have radius R */
    double rho = 3.0 * PM / (4.0 * M_PI * R * R * R);
    if (by_density)
        slt_monitor(&p, &c, "collision", 2, (const char *[]){"density", "central_radius"},
                    (double[]){rho, R0});
    else
        slt_monitor(&p, &c, "collision", 2, (const char *[]){"radius", "central_radius"},
                    (double[]){R, R0});
    slt_monitor(&p, &c, "log", 2, (const char *[]){"every", "on_stop"}, (double[]){1, 1});
    slt_log log;
    slt_log_init(&log, NS);
    slt_log_attach(&c, &log);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    slt_log_sort(&log);
    for (int64_t s = 0; s < NS; s++) {
        int k = (int)(s % C_KINDS);
        int want = k == C_BENIGN ? SL_REASON_NONE : SL_REASON_COLLISION;
        int pair = k == C_MEET ? 1 * 256 + 2 : k == C_PLUNGE ? 0 * 256 + 1 : 0;
        cr_assert_eq(e->reason[s], want, "system %lld (kind %d): %s", (long long)s, k,
                     sl_reason_label(e->reason[s]));
        if (want)
            cr_assert_eq(e->detail[s], pair, "system %lld: pair %d, expected %d",
                         (long long)s, e->detail[s], pair);
    }
    /* at the first overlapping step: every earlier record apart, the stop's not */
    int64_t stops = 0;
    for (int64_t i = 0; i < log.n; i++) {
        const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
        int k = (int)((int64_t)r[0] % C_KINDS), ev = (int)r[3];
        if (k == C_BENIGN)
            continue;
        int bi = k == C_MEET ? 1 : 0, bj = k == C_MEET ? 2 : 1;
        double lim = k == C_MEET ? 2 * R : R0 + R;
        double d = dist(r, bi, bj);
        if (ev == SL_LOG_STOP) {
            cr_assert(d < lim * (1 + 1e-9), "stop record at distance %.17g, limit %.17g", d,
                      lim);
            stops++;
        } else {
            cr_assert(d >= lim * (1 - 1e-9), "system %g step %g: distance %.17g < %.17g "
                      "without a stop", r[0], r[2], d, lim);
        }
    }
    cr_assert_eq(stops, res.n_stopped);
    cr_assert_eq(res.n_stopped, NS - (NS + C_KINDS - 1) / C_KINDS, "%lld stopped",
                 (long long)res.n_stopped);
    slt_log_free(&log);
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

Test(monitors, collision_with_fixed_radii) { collision_case(0); }
Test(monitors, collision_with_radii_from_density) { collision_case(1); }

Test(monitors, collision_needs_a_radius_or_a_density)
{
    slt_plugins p;
    slt_load(&p);
    const void *t;
    SLT_OK(sl_registry_get(p.reg, SL_KIND_MONITOR, "collision", &t));
    const sl_monitor *m = t;
    sl_param_values pv;
    sl_monitor_config mc;
    sl_monitor_config_default(&mc);
    SLT_OK(sl_params_init(&pv, m->params, m->n_params));
    cr_assert_neq(m->configure(&pv, &mc), SL_OK);
    cr_assert(strstr(sl_last_error(), "'radius'") && strstr(sl_last_error(), "'density'"), "%s",
              sl_last_error());
    SLT_OK(sl_params_set(&pv, "radius", 1e-3));
    SLT_OK(sl_params_set(&pv, "density", 2.0));
    cr_assert_neq(m->configure(&pv, &mc), SL_OK, "both given");
    cr_assert_neq(sl_params_set(&pv, "central_radius", -1.0), SL_OK);
    slt_unload(&p);
}
