/* GPU suite: the CUDA backend against the CPU backend on the same
 * ensembles (hermite + newton, N = 3 and 6 with unrolled kernels, N = 8, 9
 * and 16 with grouped ones (several threads per system; rkck too at
 * N = 16), N = 20 with the runtime-N fallback), with monitors on and systems designed to
 * eject, meet, fall onto the central body or go non-finite. Statuses, reasons, details, step counts
 * and times must be identical; positions and velocities agree to 1e-10
 * (relative to the system's scale); log record counts are identical.
 *
 * Skips when no CUDA device is usable, fails then if SL_REQUIRE_GPU=1. */
#include "sl_test.h"

enum { K_WIDE0, K_WIDE1, K_EJECT, K_CLOSE, K_NAN, K_WIDE2, K_PLUNGE, NKIND };

static const double TOL = 1e-10;

/* Test systems (widely spaced, light planets) with designed events. */
static sl_ensemble *make_ensemble(int n_body, int64_t n_sys, double spacing)
{
    const double pm = 1e-5;
    sl_test_system_spec sp = {
        .n_planets = n_body - 1, .planet_mass = pm, .a1 = 1.0, .spacing = spacing,
        .perturb = 0.02, .random_phase = 1, .seed = 2718,
    };
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&sp, n_sys, &e));
    for (int64_t s = 0; s < n_sys; s++) {
        double m0, x0[3], v0[3], m1, x1[3], v1[3];
        sl_ensemble_get_body(e, s, 0, &m0, x0, v0);
        sl_ensemble_get_body(e, s, 1, &m1, x1, v1);
        switch (s % NKIND) {
        case K_EJECT: /* planet 1 leaves the plane at 2.5x escape speed */
            v1[2] += 2.5;
            SLT_OK(sl_ensemble_set_body(e, s, 1, m1, x1, v1));
            break;
        case K_CLOSE: { /* planet 2 retrograde on planet 1's circle, opposite it */
            double rx = x1[0] - x0[0], ry = x1[1] - x0[1];
            double r = 1.005 * sqrt(rx * rx + ry * ry), ph = atan2(ry, rx) + M_PI;
            double vc = sqrt((1.0 + pm) / r);
            double x2[3] = {x0[0] + r * cos(ph), x0[1] + r * sin(ph), x0[2]};
            double v2[3] = {v0[0] + vc * sin(ph), v0[1] - vc * cos(ph), v0[2]};
            SLT_OK(sl_ensemble_set_body(e, s, 2, pm, x2, v2));
            break;
        }
        case K_NAN:
            e->state[sl_state_index(s, n_body, n_body - 1, SL_VX)] = NAN;
            break;
        case K_PLUNGE: /* planet 1 nearly stopped: it falls onto body 0 (radius 0.2) */
            for (int k = 0; k < 3; k++)
                v1[k] = v0[k] + 0.1 * (v1[k] - v0[k]);
            SLT_OK(sl_ensemble_set_body(e, s, 1, m1, x1, v1));
            break;
        default:
            break;
        }
    }
    return e;
}

static void configure(const slt_plugins *p, sl_run_config *c, slt_log *log, int64_t n_sys,
                      const char *integrator)
{
    slt_config_with(p, c, integrator, 0.01, 15.0, NULL, 0); /* 1500 steps */
    slt_monitor(p, c, "eject", 1, (const char *[]){"r"}, (double[]){16.0});
    slt_monitor(p, c, "close_encounter", 1, (const char *[]){"hill"}, (double[]){3.0});
    slt_monitor(p, c, "nonfinite", 0, NULL, NULL);
    slt_monitor(p, c, "collision", 2, (const char *[]){"radius", "central_radius"},
                (double[]){1e-4, 0.2});
    slt_monitor(p, c, "log", 2, (const char *[]){"every", "on_stop"}, (double[]){10, 1});
    slt_log_init(log, n_sys);
    slt_log_attach(c, log);
}

static double rel_diff(const sl_ensemble *a, const sl_ensemble *b, int64_t s, int field0)
{
    double scale = 0, d = 0;
    for (int bd = 0; bd < a->n_body; bd++)
        for (int k = 0; k < 3; k++) {
            double x = sl_ensemble_get(a, s, bd, field0 + k), y = sl_ensemble_get(b, s, bd, field0 + k);
            scale = fmax(scale, fabs(x));
            d = fmax(d, fabs(x - y));
        }
    return d / scale;
}

/* The kernel a run of N bodies names: `kernel` where the build's
 * SL_UNROLL_NBODIES unrolls N (or where `kernel` is the runtime-N one);
 * where it does not, `kernel` (a set with N of its own) or the runtime-N
 * loop's. */
static void expect_kernel(const char *got, int n_body, const char *kernel)
{
    if (slt_unrolled(n_body) || strstr(kernel, "/any"))
        cr_assert_str_eq(got, kernel);
    else
        cr_assert(!strcmp(got, kernel) || strstr(got, "/any"),
                  "kernel %s: expected %s or the runtime-N loop (N = %d is not in "
                  "SL_UNROLL_NBODIES = %s)", got, kernel, n_body, SL_UNROLL_NBODIES_LIST);
}

static void agreement_of(const char *integrator, int n_body, int64_t n_sys, double spacing,
                         const char *kernel)
{
    SLT_REQUIRE_GPU();
    slt_plugins p;
    slt_load(&p);
    sl_backend cpu, gpu;
    SLT_OK(sl_backend_open("cpu", &cpu));
    SLT_OK(sl_backend_open("cuda", &gpu));
    cr_assert_eq(gpu.kind, SL_BACKEND_CUDA);
    sl_ensemble *ec = make_ensemble(n_body, n_sys, spacing), *eg;
    SLT_OK(sl_ensemble_clone(ec, &eg));
    sl_run_config cc, cg;
    slt_log lc, lg;
    configure(&p, &cc, &lc, n_sys, integrator);
    configure(&p, &cg, &lg, n_sys, integrator);
    sl_run_result rc, rg;
    SLT_OK(sl_integrate(&cpu, ec, &cc, &rc));
    SLT_OK(sl_integrate(&gpu, eg, &cg, &rg));
    expect_kernel(rc.kernel, n_body, kernel);
    cr_assert_str_eq(rg.kernel, rc.kernel);
    cr_log_info("N=%d: cpu %.3fs (kernel %.3fs), cuda %.3fs (kernel %.3fs); %lld active, %lld "
                "stopped, %lld failed", n_body, rc.wall_s, rc.kernel_s, rg.wall_s, rg.kernel_s,
                (long long)rc.n_active, (long long)rc.n_stopped, (long long)rc.n_failed);
    cr_assert(!lc.bad && !lg.bad && !lc.unsorted && !lg.unsorted && !lc.regress && !lg.regress);

    int64_t by_reason[16] = {0};
    double worst_x = 0, worst_v = 0;
    for (int64_t s = 0; s < n_sys; s++) {
        cr_assert_eq(ec->status[s], eg->status[s], "system %lld: cpu %s, cuda %s", (long long)s,
                     sl_status_label(ec->status[s]), sl_status_label(eg->status[s]));
        cr_assert_eq(ec->reason[s], eg->reason[s], "system %lld: cpu %s, cuda %s", (long long)s,
                     sl_reason_label(ec->reason[s]), sl_reason_label(eg->reason[s]));
        cr_assert_eq(ec->detail[s], eg->detail[s], "system %lld detail", (long long)s);
        cr_assert_eq(ec->steps[s], eg->steps[s], "system %lld: cpu %lld steps, cuda %lld",
                     (long long)s, (long long)ec->steps[s], (long long)eg->steps[s]);
        cr_assert(slt_same_bits(ec->time[s], eg->time[s]), "system %lld time", (long long)s);
        cr_assert(slt_same_bits(ec->stop_time[s], eg->stop_time[s]), "system %lld stop_time",
                  (long long)s);
        by_reason[ec->reason[s]]++;
        for (int ev = 0; ev < SLT_NEV; ev++)
            cr_assert_eq(lc.count[SLT_NEV * s + ev], lg.count[SLT_NEV * s + ev],
                         "system %lld: %lld vs %lld log records of event %d", (long long)s,
                         (long long)lc.count[SLT_NEV * s + ev], (long long)lg.count[SLT_NEV * s + ev], ev);
        if (ec->status[s] == SL_SYS_FAILED)
            continue; /* NaN on both sides: nothing to compare */
        double dx = rel_diff(ec, eg, s, SL_X), dv = rel_diff(ec, eg, s, SL_VX);
        worst_x = fmax(worst_x, dx);
        worst_v = fmax(worst_v, dv);
        cr_assert(dx <= TOL, "system %lld (%s): positions differ by %.3e relative", (long long)s,
                  sl_reason_label(ec->reason[s]), dx);
        cr_assert(dv <= TOL, "system %lld (%s): velocities differ by %.3e relative", (long long)s,
                  sl_reason_label(ec->reason[s]), dv);
    }
    cr_log_info("N=%d: worst relative difference: positions %.3e, velocities %.3e", n_body,
                worst_x, worst_v);
    /* the ensemble did what it was designed to do, on both backends. The
     * planet sent out of the plane leaves, or (with many planets: it
     * crosses every orbit beyond its own on the way, and stirs them) a
     * close encounter stops its system first. */
    int64_t ejected = 0;
    for (int64_t s = K_EJECT; s < n_sys; s += NKIND) {
        const int r = ec->reason[s], d = ec->detail[s];
        ejected += r == SL_REASON_EJECTION && d == 1;
        cr_assert(r == SL_REASON_EJECTION ? d == 1 : r == SL_REASON_CLOSE_ENCOUNTER,
                  "system %lld, sent away: stopped by %s, detail %d", (long long)s,
                  sl_reason_label(r), d);
    }
    cr_assert(ejected >= (n_sys / NKIND) * 9 / 10, "%lld of %lld sent away were ejected",
              (long long)ejected, (long long)(n_sys / NKIND));
    cr_assert(by_reason[SL_REASON_EJECTION] >= ejected);
    cr_assert(by_reason[SL_REASON_CLOSE_ENCOUNTER] >= n_sys / NKIND, "%lld encounters",
              (long long)by_reason[SL_REASON_CLOSE_ENCOUNTER]);
    cr_assert(by_reason[SL_REASON_NONFINITE] == (n_sys + NKIND - 1 - K_NAN) / NKIND);
    cr_assert(by_reason[SL_REASON_COLLISION] >= n_sys / NKIND, "%lld collisions",
              (long long)by_reason[SL_REASON_COLLISION]);
    cr_assert(rc.n_active >= n_sys / 3, "only %lld systems reached t_end", (long long)rc.n_active);
    cr_assert_eq(rc.n_active, rg.n_active);
    cr_assert_eq(rc.log_records, rg.log_records);
    cr_assert_eq(lc.n, lg.n);
    /* log contents agree too, record by record */
    slt_log_sort(&lc);
    slt_log_sort(&lg);
    for (int64_t i = 0; i < lc.n; i++) {
        const double *a = lc.rec + (size_t)i * (size_t)lc.rec_len;
        const double *b = lg.rec + (size_t)i * (size_t)lg.rec_len;
        for (int k = 0; k < SL_LOG_HEAD; k++)
            cr_assert(slt_same_bits(a[k], b[k]), "record %lld header word %d", (long long)i, k);
        double scale = 0, d = 0;
        for (int k = SL_LOG_HEAD; k < lc.rec_len; k++) {
            scale = fmax(scale, fabs(a[k]));
            d = fmax(d, fabs(a[k] - b[k]));
        }
        if (isfinite(scale))
            cr_assert(d <= TOL * scale, "record %lld (system %g step %g) differs by %.3e",
                      (long long)i, a[0], a[2], d / scale);
    }
    sl_run_result_free(&rc);
    sl_run_result_free(&rg);
    slt_log_free(&lc);
    slt_log_free(&lg);
    sl_ensemble_destroy(ec);
    sl_ensemble_destroy(eg);
    slt_unload(&p);
}

static void agreement(int n_body, int64_t n_sys, double spacing, const char *kernel)
{
    agreement_of("hermite", n_body, n_sys, spacing, kernel);
}

Test(gpu_agreement, n3_unrolled) { agreement(3, 3000, 0.5, "hermite/newton/3"); }
Test(gpu_agreement, n6_unrolled) { agreement(6, 2000, 0.4, "hermite/newton/6"); }
Test(gpu_agreement, n20_runtime_n) { agreement(20, 400, 0.15, "hermite/newton/any"); }

/* Body counts whose kernels run a system on a group of threads
 * (internal/group.h: 8 threads at N = 8 and 16 at N = 16, one body each,
 * newton's pairs evaluated once and shared by shuffles; 4 at N = 9), every
 * stop kind and the log included: the same stops at the same steps as the
 * CPU's loop. (verlet runs one thread per system at every N.) */
Test(gpu_agreement, n8_grouped_pairs) { agreement(8, 1200, 0.3, "hermite/newton/8"); }
Test(gpu_agreement, n9_grouped) { agreement(9, 1200, 0.3, "hermite/newton/9"); }
Test(gpu_agreement, n16_grouped) { agreement(16, 700, 0.15, "hermite/newton/16"); }
Test(gpu_agreement, n16_grouped_rkck) { agreement_of("rkck", 16, 700, 0.15, "rkck/newton/16"); }

/* On the GPU too, a run is reproducible and does not depend on how many
 * steps one launch takes (the Hermite state persists between launches). */
static void reproducible(int n_body, double spacing, const char *kernel)
{
    SLT_REQUIRE_GPU();
    slt_plugins p;
    slt_load(&p);
    sl_backend gpu;
    SLT_OK(sl_backend_open("cuda", &gpu));
    const int64_t spl[] = {0, 0, 1, 7, 1000};
    sl_ensemble *ref = NULL;
    slt_log ref_log = {0};
    for (int v = 0; v < 5; v++) {
        sl_ensemble *e = make_ensemble(n_body, 600, spacing);
        sl_run_config c;
        slt_log log;
        configure(&p, &c, &log, e->n_sys, "hermite");
        c.steps_per_launch = spl[v];
        sl_run_result res;
        SLT_OK(sl_integrate(&gpu, e, &c, &res));
        expect_kernel(res.kernel, n_body, kernel);
        sl_run_result_free(&res);
        slt_log_sort(&log);
        if (!ref) {
            ref = e;
            ref_log = log;
            cr_assert(res.n_stopped > 0 && res.n_active > 0);
            continue;
        }
        char what[64];
        snprintf(what, sizeof what, "cuda, steps_per_launch %lld (run %d)", (long long)spl[v], v);
        slt_assert_same_ensemble(ref, e, what);
        cr_assert_eq(ref_log.n, log.n, "%s: %lld vs %lld records", what, (long long)ref_log.n,
                     (long long)log.n);
        for (int64_t i = 0; i < log.n * log.rec_len; i++)
            cr_assert(slt_same_bits(ref_log.rec[i], log.rec[i]), "%s: record %lld differs", what,
                      (long long)(i / log.rec_len));
        slt_log_free(&log);
        sl_ensemble_destroy(e);
    }
    slt_log_free(&ref_log);
    sl_ensemble_destroy(ref);
    slt_unload(&p);
}

Test(gpu_agreement, reproducible_and_independent_of_steps_per_launch)
{
    reproducible(4, 0.4, "hermite/newton/4");
}

/* A grouped kernel keeps its working array per body across launches. */
Test(gpu_agreement, grouped_reproducible_and_independent_of_steps_per_launch)
{
    reproducible(16, 0.15, "hermite/newton/16"); /* 0.4: planet 15 starts beyond r = 16 */
}
