/* MEGNO by shadow trajectories (megno.h) against REBOUND's variational
 * MEGNO (tests/data/megno_*.csv, made by tests/reference/
 * make_megno_reference.py): a quasi-periodic pair of planets tends to 2,
 * a chaotic one grows as REBOUND's does; the measurement is linear in the
 * shadow's distance, reproducible, leaves the systems' own runs as they
 * are, keeps the shadows out of the log, and refuses what it cannot do. */
#include "outer_ss.h"

enum { NP = 3, COPIES = 32, SEEDS = 32 };

typedef struct ref_row {
    double t, dt, megno, lyapunov;
} ref_row;

/* REBOUND's 32 seeds for a case. */
static int read_ref(const char *name, ref_row *r)
{
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/megno_rebound.csv", SL_TEST_DATA_DIR);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    int n = 0;
    while (fgets(line, sizeof line, f) && n < SEEDS) {
        char c[32];
        int seed;
        double t_end;
        if (sscanf(line, "%31[^,],%d,%lf,%lf,%lf,%lf,%lf", c, &seed, &t_end, &r[n].t, &r[n].dt,
                   &r[n].megno, &r[n].lyapunov) == 7 &&
            !strcmp(c, name))
            n++;
    }
    fclose(f);
    cr_assert_eq(n, SEEDS, "%s: %d rows for '%s'", path, n, name);
    return n;
}

/* n copies of tests/data/megno_NAME.csv */
static sl_ensemble *pairs_of(const char *name, int64_t n)
{
    char file[64];
    snprintf(file, sizeof file, "megno_%s.csv", name);
    return state_copies(file, NP, n);
}

static void with_integrator(const slt_plugins *p, sl_run_config *c, const char *name,
                            double dt, double t_end, int jacobi)
{
    slt_config_with(p, c, name, dt, t_end, jacobi ? "coordinates" : NULL, 1);
}

static void megno_run(sl_ensemble *e, const sl_run_config *c, const sl_megno_config *m,
                      sl_megno_result *mr)
{
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    SLT_OK(sl_integrate_megno(&be, e, c, m, &res, mr));
    sl_run_result_free(&res);
}

/* A case to REBOUND's time, in REBOUND's coordinates and step: 32
 * copies, each shadow starting in its own direction. */
static void shadow_run(const slt_plugins *p, const char *name, sl_megno_result *mr,
                       double delta)
{
    ref_row ref[SEEDS];
    read_ref(name, ref);
    sl_ensemble *e = pairs_of(name, COPIES);
    sl_run_config c;
    with_integrator(p, &c, "mvs", ref[0].dt, round(ref[0].t / ref[0].dt) * ref[0].dt, 1);
    sl_megno_config m;
    sl_megno_config_default(&m);
    m.interval = 10 * ref[0].dt;
    m.delta = delta;
    megno_run(e, &c, &m, mr);
    sl_ensemble_destroy(e);
}

static void mean_sd(const double *v, int n, double *mean, double *sd)
{
    double a = 0, q = 0;
    for (int i = 0; i < n; i++)
        a += v[i] / n;
    for (int i = 0; i < n; i++)
        q += (v[i] - a) * (v[i] - a) / (n - 1);
    *mean = a, *sd = sqrt(q);
}

/* Two samples' means within three standard errors of their difference. */
static void same_mean(const char *what, const double *a, int na, const double *b, int nb)
{
    double ma, sa, mb, sb;
    mean_sd(a, na, &ma, &sa);
    mean_sd(b, nb, &mb, &sb);
    double se = sqrt(sa * sa / na + sb * sb / nb);
    cr_log_info("%s: %.4g +- %.3g (%d shadows), REBOUND %.4g +- %.3g (%d seeds)", what, ma, sa,
                na, mb, sb, nb);
    cr_assert(fabs(ma - mb) < 3.0 * se, "%s: %.4g (sd %.3g) over %d shadows, REBOUND %.4g (sd "
              "%.3g) over %d seeds: %.1f standard errors apart", what, ma, sa, na, mb, sb, nb,
              fabs(ma - mb) / se);
}

/* <Y> at a finite time depends on the initial tangent vector, so the
 * comparison is of distributions: REBOUND's 32 tangent vectors against 32
 * shadows, the means of <Y> and of lambda / 2 (what REBOUND's lyapunov()
 * gives) within three standard errors, and every shadow's <Y> inside
 * REBOUND's range widened by a tenth of it on each side. The chaotic case
 * stops at t = 400, before rounding differences between the two codes
 * (growing as e^(0.05 t)) part the trajectories themselves. */
static void as_rebound(const char *name)
{
    slt_plugins p;
    slt_load(&p);
    ref_row ref[SEEDS];
    read_ref(name, ref);
    double yr[SEEDS], lr[SEEDS], lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < SEEDS; k++) {
        yr[k] = ref[k].megno, lr[k] = ref[k].lyapunov;
        lo = fmin(lo, yr[k]), hi = fmax(hi, yr[k]);
    }
    double pad = 0.1 * (hi - lo), half[COPIES];
    sl_megno_result mr;
    shadow_run(&p, name, &mr, 1e-7);
    for (int s = 0; s < COPIES; s++) {
        cr_assert(fabs(mr.span[s] - ref[0].t) < 1e-6 * ref[0].t, "span %g vs REBOUND's t %g",
                  mr.span[s], ref[0].t);
        cr_assert(mr.megno[s] > lo - pad && mr.megno[s] < hi + pad,
                  "%s, copy %d: <Y> = %.4f outside REBOUND's %.4f..%.4f (+-%.3f)", name, s + 1,
                  mr.megno[s], lo, hi, pad);
        half[s] = 0.5 * mr.lyapunov[s];
    }
    char what[64];
    snprintf(what, sizeof what, "%s <Y>", name);
    same_mean(what, mr.megno, COPIES, yr, SEEDS);
    snprintf(what, sizeof what, "%s lambda / 2", name);
    same_mean(what, half, COPIES, lr, SEEDS);
    sl_megno_result_free(&mr);
    slt_unload(&p);
}

Test(megno, regular_tends_to_two_as_rebound) { as_rebound("regular"); }
Test(megno, chaotic_grows_as_rebound) { as_rebound("chaotic"); }

/* The shadow's equations are the variational ones to O(delta): the
 * nonlinear error grows as delta and the rounding noise as 1/delta (both
 * ~0.01 in <Y> at 1e-6 and 1e-8 here, measured), so across those two
 * decades each <Y> moves by well under the spread that the choice of
 * tangent vector gives REBOUND's (a third of its standard deviation), and
 * their mean by far less. */
Test(megno, linear_in_the_distance)
{
    slt_plugins p;
    slt_load(&p);
    ref_row ref[SEEDS];
    read_ref("regular", ref);
    double yr[SEEDS], mrb, srb;
    for (int k = 0; k < SEEDS; k++)
        yr[k] = ref[k].megno;
    mean_sd(yr, SEEDS, &mrb, &srb);
    sl_megno_result a, b;
    shadow_run(&p, "regular", &a, 1e-6);
    shadow_run(&p, "regular", &b, 1e-8);
    double worst = 0, ma, mb, sa, sb;
    for (int s = 0; s < COPIES; s++) {
        cr_assert(fabs(a.megno[s] - b.megno[s]) < srb / 3, "copy %d: <Y> %.6f (delta 1e-6) vs "
                  "%.6f (1e-8): more than a third of REBOUND's spread %.4f", s + 1, a.megno[s],
                  b.megno[s], srb);
        worst = fmax(worst, fabs(a.megno[s] - b.megno[s]));
    }
    mean_sd(a.megno, COPIES, &ma, &sa);
    mean_sd(b.megno, COPIES, &mb, &sb);
    cr_log_info("delta 1e-6 vs 1e-8: each <Y> within %.4f, means %.5f and %.5f", worst, ma, mb);
    cr_assert(fabs(ma - mb) < 0.003, "mean <Y> %.5f (1e-6) vs %.5f (1e-8)", ma, mb);
    sl_megno_result_free(&a);
    sl_megno_result_free(&b);
    slt_unload(&p);
}

static void small_run(const slt_plugins *p, const char *integrator, uint64_t seed,
                      sl_ensemble **e, sl_megno_result *mr)
{
    *e = pairs_of("regular", 3);
    sl_run_config c;
    with_integrator(p, &c, integrator, 0.0625, 200.0, 0);
    sl_megno_config m;
    sl_megno_config_default(&m);
    m.interval = 2.5;
    m.seed = seed;
    megno_run(*e, &c, &m, mr);
}

Test(megno, same_seed_same_result)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e1, *e2, *e3;
    sl_megno_result a, b, d;
    small_run(&p, "mvs", 7, &e1, &a);
    small_run(&p, "mvs", 7, &e2, &b);
    small_run(&p, "mvs", 8, &e3, &d);
    slt_assert_same_ensemble(e1, e2, "same seed");
    for (int s = 0; s < 3; s++) {
        cr_assert(slt_same_bits(a.megno[s], b.megno[s]) && slt_same_bits(a.y[s], b.y[s]) &&
                      slt_same_bits(a.lyapunov[s], b.lyapunov[s]),
                  "system %d: seed 7 gave %.17g then %.17g", s + 1, a.megno[s], b.megno[s]);
        cr_assert(a.megno[s] != d.megno[s], "system %d: seeds 7 and 8 gave the same <Y>", s + 1);
        if (s > 0)
            cr_assert(a.megno[s] != a.megno[0], "systems 1 and %d share a direction", s + 1);
    }
    sl_megno_result_free(&a), sl_megno_result_free(&b), sl_megno_result_free(&d);
    sl_ensemble_destroy(e1), sl_ensemble_destroy(e2), sl_ensemble_destroy(e3);
    slt_unload(&p);
}

/* The systems run exactly as they would without MEGNO in the same
 * intervals and with early stops off, as MEGNO runs them (SL_PP_SMOOTH:
 * mvs's kepler_tol; with it, a plain run differs from MEGNO's by
 * rounding): the shadows beside them change no bit of their states. (A run
 * split into intervals is not bit for bit one run: an integrator starts
 * afresh at each call, e.g. Hermite re-evaluates its force where it would
 * have kept its predicted one.) */
static void same_as_plain(const char *integrator)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e, *plain = pairs_of("regular", 3);
    sl_megno_result mr;
    small_run(&p, integrator, 1, &e, &mr);
    sl_run_config c;
    with_integrator(&p, &c, integrator, 0.0625, 200.0, 0);
    c.pp[SL_PP_SMOOTH] = 1.0;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    for (int k = 1; k <= 80; k++) { /* small_run's intervals: 2.5 */
        c.t_end = 2.5 * k;
        sl_run_result res;
        SLT_OK(sl_integrate(&be, plain, &c, &res));
        sl_run_result_free(&res);
    }
    slt_assert_same_ensemble(e, plain, integrator);
    for (int s = 0; s < 3; s++)
        cr_assert(mr.megno[s] > 1.5 && mr.megno[s] < 2.5, "%s: <Y> %g", integrator, mr.megno[s]);
    sl_megno_result_free(&mr);
    sl_ensemble_destroy(e), sl_ensemble_destroy(plain);
    slt_unload(&p);
}

Test(megno, mvs_systems_run_as_without_it) { same_as_plain("mvs"); }
Test(megno, hermite_systems_run_as_without_it) { same_as_plain("hermite"); }
Test(megno, verlet_systems_run_as_without_it) { same_as_plain("verlet"); }

Test(megno, log_shows_only_the_systems)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = pairs_of("regular", 4);
    sl_run_config c;
    with_integrator(&p, &c, "mvs", 0.0625, 50.0, 0);
    c.mon.log_every_steps = 40;
    slt_log log;
    slt_log_init(&log, 4);
    slt_log_attach(&c, &log);
    sl_megno_config m;
    sl_megno_config_default(&m);
    m.interval = 5.0;
    sl_megno_result mr;
    megno_run(e, &c, &m, &mr);
    cr_assert(!log.bad, "a record names a shadow (system >= 4) or a bad event");
    for (int s = 0; s < 4; s++) {
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_INITIAL], 1, "system %d: %lld initial records",
                     s + 1, (long long)log.count[SLT_NEV * s + SL_LOG_INITIAL]);
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_FINAL], 1, "system %d: %lld final records", s + 1,
                     (long long)log.count[SLT_NEV * s + SL_LOG_FINAL]);
        /* 800 steps, every 40th */
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_PERIODIC], 20, "system %d: %lld periodic records",
                     s + 1, (long long)log.count[SLT_NEV * s + SL_LOG_PERIODIC]);
    }
    cr_assert(!log.regress, "a system's log went back in steps");
    slt_log_free(&log);
    sl_megno_result_free(&mr);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* A log by time goes on across the intervals as in one plain run: the
 * same records at the same times (0.3 is no whole number of intervals). */
Test(megno, log_by_time_as_without_it)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = pairs_of("regular", 3), *plain = pairs_of("regular", 3);
    sl_run_config c;
    with_integrator(&p, &c, "mvs", 0.0625, 50.0, 0);
    c.mon.log_every_dt = 0.3;
    slt_log a, b;
    slt_log_init(&a, 3), slt_log_init(&b, 3);
    slt_log_attach(&c, &a);
    sl_megno_config m;
    sl_megno_config_default(&m);
    m.interval = 5.0;
    sl_megno_result mr;
    megno_run(e, &c, &m, &mr);
    slt_log_attach(&c, &b);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    SLT_OK(sl_integrate(&be, plain, &c, &res));
    sl_run_result_free(&res);
    cr_assert(!a.bad && a.n > 0, "%lld records", (long long)a.n);
    cr_assert_eq(a.n, b.n, "%lld records with MEGNO, %lld without", (long long)a.n,
                 (long long)b.n);
    cr_assert_eq(a.count[SL_LOG_PERIODIC], 166, "system 1: %lld periodic records",
                 (long long)a.count[SL_LOG_PERIODIC]);
    slt_log_sort(&a), slt_log_sort(&b);
    for (int64_t k = 0; k < a.n; k++)
        for (int f = 0; f < 4; f++)
            cr_assert_eq(a.rec[(size_t)k * a.rec_len + f], b.rec[(size_t)k * b.rec_len + f],
                         "record %lld field %d: %.17g with MEGNO, %.17g without", (long long)k,
                         f, a.rec[(size_t)k * a.rec_len + f], b.rec[(size_t)k * b.rec_len + f]);
    slt_log_free(&a), slt_log_free(&b);
    sl_megno_result_free(&mr);
    sl_ensemble_destroy(e), sl_ensemble_destroy(plain);
    slt_unload(&p);
}

Test(megno, inactive_system_has_no_value)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = pairs_of("regular", 2);
    e->status[1] = SL_SYS_STOPPED;
    e->reason[1] = SL_REASON_EJECTION;
    sl_run_config c;
    with_integrator(&p, &c, "mvs", 0.0625, 20.0, 0);
    sl_megno_config m;
    sl_megno_config_default(&m);
    sl_megno_result mr;
    megno_run(e, &c, &m, &mr);
    cr_assert(isfinite(mr.megno[0]) && isnan(mr.megno[1]) && isnan(mr.lyapunov[1]),
              "<Y> %g, %g", mr.megno[0], mr.megno[1]);
    cr_assert_eq(e->status[1], SL_SYS_STOPPED);
    cr_assert_eq(e->reason[1], SL_REASON_EJECTION);
    cr_assert_eq(mr.interval, 10 * 0.0625, "the default interval: 10 steps");
    sl_megno_result_free(&mr);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

static void refused(const sl_run_config *c, const sl_megno_config *m, const char *const *want)
{
    sl_ensemble *e = pairs_of("regular", 1);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    sl_megno_result mr;
    double x0 = sl_ensemble_get(e, 0, 1, SL_X);
    sl_status st = sl_integrate_megno(&be, e, c, m, &res, &mr);
    cr_assert_neq(st, SL_OK, "accepted");
    for (; *want; want++)
        cr_assert(strstr(sl_last_error(), *want), "'%s' not in: %s", *want, sl_last_error());
    cr_assert_eq(sl_ensemble_get(e, 0, 1, SL_X), x0, "refused after work started");
    cr_assert_eq(e->steps[0], 0);
    sl_ensemble_destroy(e);
}

Test(megno, refuses_bad_settings_before_work)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    with_integrator(&p, &c, "mvs", 0.1, 10.0, 0);
    sl_megno_config m;
    sl_megno_config_default(&m);
    m.interval = 0.25;
    refused(&c, &m, (const char *const[]){"interval = 0.25", "whole number of steps", "'mvs'",
                                          "dt = 0.1", "give 0.2 or 0.3", NULL});
    m.interval = 1.0;
    m.delta = 0.0;
    refused(&c, &m, (const char *const[]){"delta = 0", "[1e-12, 1e-3]", NULL});
    m.delta = 0.01;
    refused(&c, &m, (const char *const[]){"delta = 0.01", NULL});
    m.delta = 1e-7;
    m.interval = NAN;
    refused(&c, &m, (const char *const[]){"interval = nan", NULL});
    m.interval = 1.0;
    c.t_end = 0.5; /* less than one interval: no whole sample to average */
    refused(&c, &m, (const char *const[]){"system 1 runs 0.5", "less than one interval (1)",
                                          "interval <= 0.5", NULL});
    c.t_end = -1.0;
    refused(&c, &m, (const char *const[]){"t_end", NULL}); /* sl_integrate's own checks too */
    slt_unload(&p);
}

/* All bodies at one point (or moving alike): no scale to measure by. */
Test(megno, refuses_a_system_without_spread)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(1, 2, &e));
    const double x[3] = {0.5, 0, 0}, v[3] = {0, 0, 0};
    SLT_OK(sl_ensemble_set_body(e, 0, 0, 1.0, x, v));
    SLT_OK(sl_ensemble_set_body(e, 0, 1, 1e-3, x, v));
    sl_run_config c;
    with_integrator(&p, &c, "hermite", 0.1, 1.0, 0);
    sl_megno_config m;
    sl_megno_config_default(&m);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    sl_megno_result mr;
    cr_assert_neq(sl_integrate_megno(&be, e, &c, &m, &res, &mr), SL_OK);
    cr_assert(strstr(sl_last_error(), "system 1") && strstr(sl_last_error(), "one point"), "%s",
              sl_last_error());
    sl_ensemble_destroy(e);
    slt_unload(&p);
}
