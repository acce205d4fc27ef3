/* Adaptive stepping (launch.h) on the CPU: per-system steps in one launch,
 * rejected steps that leave no trace, every system landing on t_end, the
 * same bits for any steps_per_launch and on the lane and scalar loops, an
 * error that falls with the tolerance, and the guard rails that stop a
 * system whose controller misbehaves while the others finish. */
#include "sl_test.h"

#include "starling/instantiate.h"
#include "forces.h"
#include "integrators/bad_control.h"
#include "integrators/heun_adaptive.h"

#define SLT_HEUN_NBODIES(X, ...) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3)
#define SL_P slt_heun
#define SL_F newton
#define SL_NBODIES SLT_HEUN_NBODIES
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"
#define SLT_BADCTL_NBODIES(X, ...) X(__VA_ARGS__, 2)
#define SL_P slt_badctl
#define SL_F newton
#define SL_NBODIES SLT_BADCTL_NBODIES
#define SL_KERNELS_OWN_TABLE
#include "starling/kernels.inc"

#include "adaptive_cases.h"

/* ---- each system its own steps -------------------------------------------------- */

/* An eccentric orbit needs more steps than a circular one of the same
 * period, in the same launch; every system lands on t_end exactly. */
Test(adaptive, systems_in_one_launch_take_their_own_steps)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = slt_orbits(64, 2, 0.9); /* two chunks of lanes */
    sl_run_config c;
    slt_heun_config(&p, &c, 1e-3, 1e-7, slt_period());
    c.steps_per_launch = 1000000000;
    sl_run_result r;
    run(e, &c, &r);
    cr_assert_eq(r.launches, 1, "%lld launches", (long long)r.launches);
    cr_assert_str_eq(r.kernel, "slt_heun/newton/2");
    int64_t circ = e->steps[0], ecc = e->steps[1];
    for (int64_t s = 0; s < 64; s++) {
        cr_assert_eq(e->status[s], SL_SYS_ACTIVE, "system %lld: %s", (long long)s + 1,
                     sl_reason_label(e->reason[s]));
        cr_assert(e->time[s] == c.t_end, "system %lld ends at %.17g, not t_end = %.17g",
                  (long long)s + 1, e->time[s], c.t_end);
        /* a circular orbit's error does not depend on its phase: the same
         * count within a few steps */
        if (s % 2 == 0)
            cr_assert(llabs(e->steps[s] - circ) <= 2, "circular system %lld: %lld steps vs %lld",
                      (long long)s + 1, (long long)e->steps[s], (long long)circ);
        else
            ecc = e->steps[s] < ecc ? e->steps[s] : ecc;
    }
    /* with one step for all, the counts would be equal */
    cr_assert(2 * ecc > 3 * circ, "eccentric orbits took %lld steps or more, circular ones "
              "%lld: expected well over as many", (long long)ecc, (long long)circ);
    cr_assert(circ > 50, "circular: %lld steps", (long long)circ);
    sl_run_result_free(&r);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* t_end that no step size divides, twice in a row: every system lands on
 * each exactly (the last step is cut or stretched). */
Test(adaptive, every_system_ends_exactly_at_t_end)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = slt_orbits(40, 3, 0.6);
    sl_run_config c;
    slt_heun_config(&p, &c, 0.01, 1e-6, 7.3);
    c.steps_per_launch = 37;
    sl_run_result r;
    run(e, &c, &r);
    for (int64_t s = 0; s < 40; s++)
        cr_assert(e->status[s] == SL_SYS_ACTIVE && e->time[s] == 7.3,
                  "system %lld: %s at t = %.17g", (long long)s + 1,
                  sl_status_label(e->status[s]), e->time[s]);
    sl_run_result_free(&r);
    c.t_end = 9.1;
    run(e, &c, &r);
    for (int64_t s = 0; s < 40; s++)
        cr_assert(e->time[s] == 9.1, "system %lld: t = %.17g", (long long)s + 1, e->time[s]);
    sl_run_result_free(&r);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* ---- a rejected step leaves no trace ------------------------------------------- */

/* A first try above h_max is rejected once (control returns h_max): the
 * run must equal, bit for bit, one that started at h_max. The rejected try
 * moved x and v and replaced the kept acceleration (PERSIST), so a loop
 * that forgot any of them would differ. */
static void no_trace(int n_body, int scalar)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = slt_orbits(40, n_body, 0.5);
    sl_propagator *q = scalar ? scalar_only(&slt_heun) : NULL;
    sl_run_config c;
    slt_heun_config(&p, &c, 0.5, 1e-6, 3.0);
    if (q)
        c.prop = q;
    c.pp[2] = 0.02; /* h_max */
    int64_t rej_a, rej_b;
    sl_ensemble *a = run_copy(e, &c, &rej_a, NULL);
    c.pp[0] = 0.02;
    sl_ensemble *b = run_copy(e, &c, &rej_b, NULL);
    cr_assert_eq(rej_a - rej_b, 40, "rejections: %lld starting at 0.5, %lld at h_max: expected "
                 "one more per system", (long long)rej_a, (long long)rej_b);
    slt_assert_same_ensemble(a, b, "first try rejected vs first try at h_max");
    for (int64_t s = 0; s < 40; s++)
        cr_assert(a->steps[s] > 10 && a->time[s] == 3.0);
    sl_ensemble_destroy(a), sl_ensemble_destroy(b), sl_ensemble_destroy(e);
    free(q);
    slt_unload(&p);
}

Test(adaptive, rejected_step_leaves_no_trace_on_the_lane_loop) { no_trace(3, 0); }
Test(adaptive, rejected_step_leaves_no_trace_on_the_scalar_loop) { no_trace(3, 1); }

/* ---- the same bits whatever the launches and the loop ------------------------- */

Test(adaptive, bit_identical_across_steps_per_launch_and_loops, .timeout = 120)
{
    slt_plugins p;
    slt_load(&p);
    sl_test_system_spec sp = {.n_planets = 2, .planet_mass = 1e-3, .a1 = 1.0, .spacing = 0.6,
                              .perturb = 0.2, .random_phase = 1, .seed = 7};
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&sp, 70, &e)); /* two full chunks and a partial one */
    sl_propagator *q = scalar_only(&slt_heun);
    sl_run_config c;
    slt_heun_config(&p, &c, 0.05, 1e-7, 4.0); /* short enough for the sanitizer build */
    int64_t rej0, rej;
    sl_ensemble *ref = run_copy(e, &c, &rej0, "slt_heun/newton/3");
    cr_assert(rej0 > 0, "no step was rejected: the test must cover rejections");
    static const int64_t per_launch[] = {1, 7, 1000000};
    for (int k = 0; k < 3; k++) {
        for (int scalar = 0; scalar < 2; scalar++) {
            c.steps_per_launch = per_launch[k];
            c.prop = scalar ? q : &slt_heun;
            sl_ensemble *w = run_copy(e, &c, &rej, scalar ? "slt_heun/newton/any"
                                                          : "slt_heun/newton/3");
            char what[96];
            snprintf(what, sizeof what, "%s loop, %lld steps per launch vs lanes, default",
                     scalar ? "scalar" : "lane", (long long)per_launch[k]);
            slt_assert_same_ensemble(ref, w, what);
            cr_assert_eq(rej, rej0, "%s: %lld rejected steps vs %lld", what, (long long)rej,
                         (long long)rej0);
            sl_ensemble_destroy(w);
        }
    }
    int64_t lo = ref->steps[0], hi = ref->steps[0];
    for (int64_t s = 1; s < 70; s++) {
        lo = ref->steps[s] < lo ? ref->steps[s] : lo;
        hi = ref->steps[s] > hi ? ref->steps[s] : hi;
    }
    cr_assert(hi > lo, "every system took %lld steps: the steps should differ", (long long)lo);
    free(q);
    sl_ensemble_destroy(ref), sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* Logs see the true times of kept steps: one record per step, times
 * increasing to t_end, and the energy monitor stops the same systems on
 * both loops. */
Test(adaptive, logs_see_true_times)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = slt_orbits(8, 2, 0.7);
    sl_run_config c;
    slt_heun_config(&p, &c, 0.01, 1e-6, 2.5);
    c.mon.log_every_steps = 1;
    c.steps_per_launch = 13;
    slt_log log;
    slt_log_init(&log, 8);
    slt_log_attach(&c, &log);
    sl_run_result r;
    run(e, &c, &r);
    slt_log_sort(&log);
    for (int64_t s = 0; s < 8; s++) {
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_PERIODIC], e->steps[s], "system %lld: %lld "
                     "records, %lld steps", (long long)s + 1,
                     (long long)log.count[SLT_NEV * s + SL_LOG_PERIODIC], (long long)e->steps[s]);
        double t_prev = -1.0, t_last = -1.0;
        int64_t k = 0;
        for (int64_t i = 0; i < log.n; i++) {
            const double *rec = log.rec + (size_t)i * (size_t)log.rec_len;
            if (rec[0] != (double)s || rec[3] != SL_LOG_PERIODIC)
                continue;
            cr_assert(rec[1] > t_prev, "system %lld: record %lld at t = %.17g after %.17g",
                      (long long)s + 1, (long long)k, rec[1], t_prev);
            cr_assert_eq(rec[2], (double)++k);
            t_prev = t_last = rec[1];
        }
        cr_assert(t_last == 2.5, "system %lld: last record at %.17g", (long long)s + 1, t_last);
    }
    slt_log_free(&log);
    sl_run_result_free(&r);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* ---- accuracy --------------------------------------------------------------------- */

/* The error after one period of an e = 0.5 orbit falls with the tolerance,
 * at the rate of a second-order method: steps ~ tol^(-1/2), error ~ steps^-2. */
Test(adaptive, error_falls_as_the_tolerance_tightens)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(1, 2, &e));
    slt_set_orbit(e, 0, 0.5, 0.0, 0.0);
    static const double tols[] = {1e-3, 1e-5, 1e-7, 1e-9};
    double err[4], steps[4];
    for (int k = 0; k < 4; k++) {
        sl_run_config c;
        slt_heun_config(&p, &c, 1e-3, tols[k], slt_period());
        sl_ensemble *w = run_copy(e, &c, NULL, NULL);
        err[k] = slt_orbit_error(e, w, 0);
        steps[k] = (double)w->steps[0];
        cr_log_info("tol %g: %g steps, error %.3g", tols[k], steps[k], err[k]);
        sl_ensemble_destroy(w);
    }
    for (int k = 1; k < 4; k++) {
        cr_assert(err[k] < err[k - 1] / 30.0, "tol %g: error %.3g, at tol %g: %.3g (expected "
                  "about 100 times smaller)", tols[k], err[k], tols[k - 1], err[k - 1]);
        double order = log(err[k - 1] / err[k]) / log(steps[k] / steps[k - 1]);
        cr_assert(fabs(order - 2.0) < 0.4, "tol %g -> %g: error against steps falls at order "
                  "%.2f, expected 2", tols[k - 1], tols[k], order);
    }
    cr_assert(err[3] < 1e-5, "tol 1e-9: error %.3g", err[3]);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* ---- guard rails (adaptive_cases.h) ---------------------------------------------- */

Test(adaptive, guard_rails_on_the_lane_loop) { all_guards(0, 0); }
Test(adaptive, guard_rails_on_the_scalar_loop) { all_guards(1, 0); }
Test(adaptive, guard_rails_one_step_per_launch) { all_guards(0, 1); }

/* A head-on fall: the step shrinks towards the collision until it no
 * longer moves the time, and the system stops there, named, instead of
 * looping forever; the orbits beside it finish. */
Test(adaptive, collision_stops_with_step_size)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = slt_orbits(4, 2, 0.3);
    double x0[3] = {0, 0, 0}, v0[3] = {0, 0, 0}, x1[3] = {1, 0, 0};
    SLT_OK(sl_ensemble_set_body(e, 2, 0, 1.0, x0, v0));
    SLT_OK(sl_ensemble_set_body(e, 2, 1, 0.1, x1, v0));
    sl_run_config c;
    slt_heun_config(&p, &c, 1e-3, 1e-8, 3.0); /* the fall takes 1.06 */
    sl_run_result r;
    run(e, &c, &r);
    char label[64];
    sl_stop_label(e, e->reason[2], e->detail[2], label, sizeof label);
    cr_assert(e->status[2] == SL_SYS_STOPPED && e->reason[2] == SL_REASON_STEP_SIZE,
              "the falling system: %s, %s at t = %.17g after %lld steps",
              sl_status_label(e->status[2]), label, e->time[2], (long long)e->steps[2]);
    cr_log_info("collision: %s at t = %.17g after %lld steps", label, e->time[2],
                (long long)e->steps[2]);
    cr_assert(fabs(e->time[2] - SL_KEPLER_PI / (2.0 * sqrt(2.0 * 1.1))) < 1e-3,
              "stopped at t = %.17g, the collision is at %.6f", e->time[2],
              SL_KEPLER_PI / (2.0 * sqrt(2.0 * 1.1)));
    for (int64_t s = 0; s < 4; s++)
        if (s != 2)
            cr_assert(e->status[s] == SL_SYS_ACTIVE && e->time[s] == 3.0);
    sl_run_result_free(&r);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}
