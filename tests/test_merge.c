/* The collision monitor's merge: a touching pair becomes one body with the
 * pair's mass, momentum and centre of mass, the other body is removed
 * (mass 0, NaN state, its index kept), and the system goes on with its
 * survivors to t_end, on the same step grid, exactly as a fresh run of the
 * survivors would; systems that touch nothing are not disturbed; the log
 * keeps one column per body; user monitors see whole systems; the step cap
 * and later calls count across merges; and what cannot merge is refused
 * before any work. */
#include "merge_cases.h"

#include "starling/megno.h"

enum { NS = 32 };
static const double DT = 0.002, T_END = 6.0;

static void run_cpu(const sl_run_config *c, sl_ensemble *e, sl_run_result *res)
{
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    SLT_OK(sl_integrate(&be, e, c, res));
}

static void momentum(const sl_ensemble *e, int64_t s, double P[3], double *scale)
{
    P[0] = P[1] = P[2] = 0;
    *scale = 0;
    for (int b = 0; b < e->n_body; b++) {
        double m, x[3], v[3];
        if (sl_ensemble_body_removed(e, s, b))
            continue;
        sl_ensemble_get_body(e, s, b, &m, x, v);
        for (int c = 0; c < 3; c++)
            P[c] += m * v[c];
        *scale += m * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
}

static double total_mass(const sl_ensemble *e, int64_t s)
{
    double mt = 0;
    for (int b = 0; b < e->n_body; b++)
        mt += sl_ensemble_get(e, s, b, SL_M); /* removed bodies hold 0 */
    return mt;
}

/* Every system reaches t_end with the bodies its kind must lose removed,
 * the mass and momentum it started with, and its merges counted. */
static void merge_case(const char *integrator, double energy_tol)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    merge_config(&p, &c, integrator, DT, T_END, 1);
    sl_ensemble *e = merge_systems(NS);
    double P0[NS][3], pscale[NS];
    for (int64_t s = 0; s < NS; s++)
        momentum(e, s, P0[s], &pscale[s]);
    sl_run_result res;
    run_cpu(&c, e, &res);
    cr_assert_eq(res.n_active, NS, "%s: %lld active", integrator, (long long)res.n_active);
    for (int64_t s = 0; s < NS; s++) {
        int kind = (int)(s % M_KINDS);
        cr_assert_eq(e->status[s], SL_SYS_ACTIVE);
        cr_assert_eq(e->time[s], T_END, "%s system %lld at t = %.17g", integrator, (long long)s,
                     e->time[s]);
        for (int b = 0; b < 3; b++)
            cr_assert_eq(sl_ensemble_body_removed(e, s, b), (merge_removed(kind) >> b) & 1,
                         "%s system %lld (kind %d) body %d removed: %d", integrator,
                         (long long)s, kind, b, sl_ensemble_body_removed(e, s, b));
        cr_assert_eq(merge_attr(e, "merges", s), merge_count(kind), "%s system %lld: %g merges",
                     integrator, (long long)s, merge_attr(e, "merges", s));
        cr_assert_float_eq(total_mass(e, s), 1.0 + 4.0 * MPM, 1e-15, "%s system %lld mass",
                           integrator, (long long)s);
        double P[3], sc;
        momentum(e, s, P, &sc);
        for (int k = 0; k < 3; k++)
            cr_assert(fabs(P[k] - P0[s][k]) <= 1e-12 * pscale[s],
                      "%s system %lld (kind %d): momentum %d moved %.3g (scale %.3g)",
                      integrator, (long long)s, kind, k, P[k] - P0[s][k], pscale[s]);
        if (kind == M_MEET)
            cr_assert_float_eq(sl_ensemble_get(e, s, 1, SL_M), 4.0 * MPM, 1e-20);
        /* the merges' own change is not the integrator's error */
        /* (what the merges' offset leaves is measured exactly in
         * survivors_run_as_a_fresh_run_from_the_merge: the head-on
         * approach before a merge costs each integrator its own error) */
        if (kind == M_QUIET)
            cr_assert(res.energy_error[s] < energy_tol, "%s system %lld (kind %d): energy "
                      "error %.3g", integrator, (long long)s, kind, res.energy_error[s]);
    }
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

Test(merge, hermite_keeps_mass_and_momentum_and_goes_on) { merge_case("hermite", 1e-13); }
Test(merge, mvs_keeps_mass_and_momentum_and_goes_on) { merge_case("mvs", 1e-11); }
Test(merge, verlet_keeps_mass_and_momentum_and_goes_on) { merge_case("verlet", 1e-10); }
Test(merge, rkck_adaptive_keeps_mass_and_momentum_and_goes_on)
{
    merge_case("rkck_adaptive", 1e-8);
}

/* The energy a head-on merge dissipates is large next to the integrator's
 * error, so the offset is real: without it the drift would be O(1). */
Test(merge, energy_offset_is_the_merge_not_the_integrator)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    merge_config(&p, &c, "hermite", DT, T_END, 1);
    sl_ensemble *e = merge_systems(NS);
    double e0[NS], L[3];
    for (int64_t s = 0; s < NS; s++)
        sl_system_energy(e, s, c.force, c.fp, &e0[s], L);
    sl_run_result res;
    run_cpu(&c, e, &res);
    for (int64_t s = M_MEET; s < NS; s += M_KINDS) {
        double en;
        sl_system_energy(e, s, c.force, c.fp, &en, L);
        double raw = fabs(en / e0[s] - 1.0);
        cr_assert(raw > 0.05 && raw > 1e6 * res.energy_error[s],
                  "system %lld: raw drift %.3g, reported %.3g", (long long)s, raw,
                  res.energy_error[s]);
    }
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* Systems that touch nothing run as they would without merging (bitwise),
 * and a merge happens at the step at which the same run without merging
 * stops. */
Test(merge, other_systems_undisturbed_and_merges_where_runs_stop)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_config cm, cs;
    merge_config(&p, &cm, "hermite", DT, T_END, 1);
    merge_config(&p, &cs, "hermite", DT, T_END, 0);
    cm.mon.log_on_stop = 1; /* stop and merge records only */
    slt_log log;
    slt_log_init(&log, NS);
    slt_log_attach(&cm, &log);
    sl_ensemble *em = merge_systems(NS), *es = merge_systems(NS);
    sl_run_result rm, rs;
    run_cpu(&cm, em, &rm);
    run_cpu(&cs, es, &rs);
    cr_assert_eq(log.bad, 0);
    for (int64_t s = 0; s < NS; s++) {
        int kind = (int)(s % M_KINDS);
        if (kind == M_QUIET) {
            for (int b = 0; b < 3; b++)
                for (int f = 0; f < SL_NFIELD; f++)
                    cr_assert(slt_same_bits(sl_ensemble_get(em, s, b, f),
                                            sl_ensemble_get(es, s, b, f)),
                              "system %lld body %d field %d", (long long)s, b, f);
            cr_assert_eq(em->steps[s], es->steps[s]);
            continue;
        }
        cr_assert_eq(es->reason[s], SL_REASON_COLLISION);
        /* the first merge record is at the stop of the run without merging */
        int found = 0;
        for (int64_t i = 0; i < log.n && !found; i++) {
            const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
            if (r[0] == (double)s && r[3] == SL_LOG_MERGE) {
                cr_assert_eq(r[1], es->stop_time[s], "system %lld: merge at %.17g, stop at "
                             "%.17g", (long long)s, r[1], es->stop_time[s]);
                cr_assert_eq(r[2], (double)es->steps[s]);
                found = 1;
            }
        }
        cr_assert(found, "system %lld (kind %d): no merge record", (long long)s, kind);
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_MERGE], merge_count(kind));
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_STOP], merge_count(kind),
                     "system %lld: a stop record at each touch", (long long)s);
    }
    slt_log_free(&log);
    sl_run_result_free(&rm);
    sl_run_result_free(&rs);
    sl_ensemble_destroy(em);
    sl_ensemble_destroy(es);
    slt_unload(&p);
}

/* The energy of a log record's state, with the masses of system s of m
 * (bodies whose columns are NaN left out). */
static double record_energy(const double *r, const sl_ensemble *m, int64_t s,
                            const sl_run_config *c)
{
    sl_ensemble *t;
    SLT_OK(sl_ensemble_create(1, m->n_body, &t));
    for (int b = 0; b < m->n_body; b++) {
        const double *q = r + SL_LOG_HEAD + 6 * b;
        if (isnan(q[0]))
            sl_ensemble_remove_body(t, 0, b);
        else
            SLT_OK(sl_ensemble_set_body(t, 0, b, sl_ensemble_get(m, s, b, SL_M), q, q + 3));
    }
    double en, L[3];
    sl_system_energy(t, 0, c->force, c->fp, &en, L);
    sl_ensemble_destroy(t);
    return en;
}

/* From a merge on, a system runs as its survivors would in a run of their
 * own started there (to rounding: the fresh run's step grid starts at the
 * merge, the merging run's at t = 0). The energy error reported is the
 * integrator's, before the touch and after the merge, to rounding: the
 * merge's own change is left out exactly. */
Test(merge, survivors_run_as_a_fresh_run_from_the_merge)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    merge_config(&p, &c, "hermite", DT, T_END, 1);
    c.mon.log_on_stop = 1;
    slt_log log;
    slt_log_init(&log, NS);
    slt_log_attach(&c, &log);
    sl_ensemble *e = merge_systems(NS), *start = merge_systems(NS);
    sl_run_result res;
    run_cpu(&c, e, &res);
    int checked = 0;
    for (int64_t i = 0; i < log.n; i++) {
        const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
        int64_t s = (int64_t)r[0];
        if (r[3] != SL_LOG_MERGE || s % M_KINDS != M_MEET)
            continue;
        const double *touch = NULL; /* the stop record at the same step */
        for (int64_t j = 0; j < log.n && !touch; j++) {
            const double *q = log.rec + (size_t)j * (size_t)log.rec_len;
            if (q[0] == r[0] && q[3] == SL_LOG_STOP && q[2] == r[2])
                touch = q;
        }
        cr_assert_not_null(touch, "system %lld: no stop record at the merge", (long long)s);
        double e0, L[3], e_end;
        sl_system_energy(start, s, c.force, c.fp, &e0, L);
        sl_system_energy(e, s, c.force, c.fp, &e_end, L);
        double drift = (record_energy(touch, start, s, &c) - e0) +
                       (e_end - record_energy(r, e, s, &c));
        cr_assert(fabs(res.energy_error[s] - fabs(drift / e0)) <= 1e-9 * fabs(drift / e0),
                  "system %lld: energy error %.17g reported, the integrator's %.17g",
                  (long long)s, res.energy_error[s], fabs(drift / e0));
        /* star and merged planet, from the merge record */
        sl_ensemble *f;
        SLT_OK(sl_ensemble_create(1, 2, &f));
        for (int b = 0; b < 2; b++) {
            const double *q = r + SL_LOG_HEAD + 6 * b;
            SLT_OK(sl_ensemble_set_body(f, 0, b, sl_ensemble_get(e, s, b, SL_M), q, q + 3));
        }
        cr_assert(isnan(r[SL_LOG_HEAD + 12]), "body 3's column of a merge record: %g",
                  r[SL_LOG_HEAD + 12]);
        f->time[0] = r[1];
        f->steps[0] = (int64_t)r[2];
        sl_run_config cf;
        merge_config(&p, &cf, "hermite", DT, T_END, 0);
        sl_run_result rf;
        run_cpu(&cf, f, &rf);
        cr_assert_eq(f->steps[0], e->steps[s]);
        for (int b = 0; b < 2; b++)
            for (int k = SL_X; k <= SL_VZ; k++) {
                double a = sl_ensemble_get(f, 0, b, k), w = sl_ensemble_get(e, s, b, k);
                cr_assert(fabs(a - w) <= 1e-11 * (1.0 + fabs(w)), "system %lld body %d field "
                          "%d: %.17g fresh, %.17g merged", (long long)s, b, k, a, w);
            }
        sl_run_result_free(&rf);
        sl_ensemble_destroy(f);
        checked++;
    }
    cr_assert_eq(checked, NS / M_KINDS);
    slt_log_free(&log);
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    sl_ensemble_destroy(start);
    slt_unload(&p);
}

/* Records keep one column per body, NaN for removed ones, the system's own
 * index, and each system's records go forward in steps. */
Test(merge, log_keeps_every_body_column)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    merge_config(&p, &c, "hermite", DT, T_END, 1);
    slt_monitor(&p, &c, "log", 2, (const char *[]){"every", "on_stop"}, (double[]){50, 1});
    slt_log log;
    slt_log_init(&log, NS);
    slt_log_attach(&c, &log);
    sl_ensemble *e = merge_systems(NS);
    sl_run_result res;
    run_cpu(&c, e, &res);
    cr_assert_eq(log.bad, 0, "a record of another length, system or event");
    cr_assert_eq(log.rec_len, SL_LOG_HEAD + 18);
    slt_log_sort(&log);
    double merged_at[NS][2] = {{0}};
    for (int64_t i = 0; i < log.n; i++) {
        const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
        int64_t s = (int64_t)r[0];
        if (r[3] == SL_LOG_MERGE)
            merged_at[s][merged_at[s][0] > 0] = r[1];
    }
    for (int64_t i = 0; i < log.n; i++) {
        const double *r = log.rec + (size_t)i * (size_t)log.rec_len;
        int64_t s = (int64_t)r[0];
        int kind = (int)(s % M_KINDS), gone = 0;
        /* a body's column is NaN exactly after the merge that removed it */
        for (int b = 0; b < 3; b++) {
            int removed = isnan(r[SL_LOG_HEAD + 6 * b]);
            gone |= removed << b;
        }
        int want = 0;
        if (merged_at[s][0] > 0 && (r[1] > merged_at[s][0] || r[3] == SL_LOG_MERGE))
            want = kind == M_MEET ? 4 : 2;
        if (merged_at[s][1] > 0 && (r[1] > merged_at[s][1] ||
                                    (r[1] == merged_at[s][1] && r[3] == SL_LOG_MERGE)))
            want = 6;
        cr_assert_eq(gone, want, "system %lld (kind %d) t = %.17g event %g: removed %d, "
                     "expected %d", (long long)s, kind, r[1], r[3], gone, want);
    }
    for (int64_t s = 0; s < NS; s++) {
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_INITIAL], 1, "system %lld", (long long)s);
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_FINAL], 1, "system %lld", (long long)s);
    }
    slt_log_free(&log);
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* The step cap counts from the call's start, merges or not (a lone body
 * takes no steps). */
Test(merge, step_cap_counts_across_merges)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    merge_config(&p, &c, "hermite", DT, T_END, 1);
    c.max_steps = 1250; /* t = 2.5: after every merge */
    sl_ensemble *e = merge_systems(NS);
    sl_run_result res;
    run_cpu(&c, e, &res);
    double steps = 0;
    for (int64_t s = 0; s < NS; s++) {
        int kind = (int)(s % M_KINDS);
        cr_assert_eq(merge_attr(e, "merges", s), merge_count(kind));
        steps += (double)e->steps[s];
        if (kind == M_BOTH) { /* the star alone coasts to t_end in no steps */
            cr_assert_eq(e->status[s], SL_SYS_ACTIVE);
            cr_assert_eq(e->time[s], T_END);
            cr_assert(e->steps[s] > 500 && e->steps[s] < 1250, "system %lld: %lld steps",
                      (long long)s, (long long)e->steps[s]);
            continue;
        }
        cr_assert_eq(e->reason[s], SL_REASON_STEP_CAP, "system %lld: %s", (long long)s,
                     sl_reason_label(e->reason[s]));
        cr_assert_eq(e->steps[s], 1250, "system %lld: %lld steps", (long long)s,
                     (long long)e->steps[s]);
    }
    cr_assert_float_eq(res.system_steps, steps, 0.5);
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* A later call runs the survivors, with or without the collision monitor,
 * and lands where one call would (to rounding: its grid restarts). */
Test(merge, later_calls_run_the_survivors)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_config c1, c2, call;
    merge_config(&p, &c1, "hermite", DT, 3.0, 1);
    slt_config(&p, &c2, DT, T_END); /* no collision monitor */
    merge_config(&p, &call, "hermite", DT, T_END, 1);
    sl_ensemble *e = merge_systems(NS), *one = merge_systems(NS);
    sl_run_result r1, r2, rall;
    run_cpu(&c1, e, &r1);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    SLT_OK(sl_run_check(&be, e, &c2)); /* a dry run sees the survivors */
    double e_mid[NS], L[3];
    for (int64_t s = 0; s < NS; s++)
        sl_system_energy(e, s, c2.force, c2.fp, &e_mid[s], L);
    run_cpu(&c2, e, &r2);
    run_cpu(&call, one, &rall);
    for (int64_t s = 0; s < NS; s++) {
        cr_assert_eq(e->time[s], T_END);
        cr_assert_eq(e->steps[s], one->steps[s], "system %lld", (long long)s);
        for (int b = 0; b < 3; b++)
            for (int k = SL_X; k <= SL_M; k++) {
                double a = sl_ensemble_get(e, s, b, k), w = sl_ensemble_get(one, s, b, k);
                cr_assert((isnan(a) && isnan(w)) || fabs(a - w) <= 1e-9 * (1.0 + fabs(w)),
                          "system %lld body %d field %d: %.17g in two calls, %.17g in one",
                          (long long)s, b, k, a, w);
            }
        double en;
        sl_system_energy(e, s, c2.force, c2.fp, &en, L);
        cr_assert(isfinite(e_mid[s]) && fabs(r2.energy_error[s] - fabs(en / e_mid[s] - 1.0)) <=
                  1e-12, "system %lld: %.17g reported, %.17g", (long long)s,
                  r2.energy_error[s], fabs(en / e_mid[s] - 1.0));
    }
    sl_run_result_free(&r1);
    sl_run_result_free(&r2);
    sl_run_result_free(&rall);
    sl_ensemble_destroy(e);
    sl_ensemble_destroy(one);
    slt_unload(&p);
}

/* A user monitor that stops a system once its body 2 is removed ("gone"),
 * and says "wrong" if it is shown a system not whole or not at its own
 * index (kinds follow the index: only meeting planets and the star that
 * swallows both planets lose body 2, the latter as it is left alone). */
static int body2_gone(const void *ctx, const sl_monitor_system *sys)
{
    (void)ctx;
    int kind = (int)(sys->index % M_KINDS);
    if (sys->n_body != 3 || sys->m[0] <= 0.0)
        return 2;
    int gone = sys->m[2] == 0.0 && isnan(sys->x[6]) && isnan(sys->v[8]);
    if (gone && kind != M_MEET && kind != M_BOTH)
        return 2;
    if (kind == M_QUIET && (isnan(sys->x[3]) || sys->m[1] != 3.0 * MPM))
        return 2;
    return gone ? 1 : 0;
}

/* User monitors see each system whole, at its own index, removed bodies
 * as mass 0 and NaN, and their stops name them as in any run. */
Test(merge, user_monitors_see_whole_systems)
{
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    merge_config(&p, &c, "hermite", DT, T_END, 1);
    c.steps_per_launch = 100;
    static const char *const codes[] = {"gone", "wrong", NULL};
    sl_monitor mon = {.abi = SL_ABI_VERSION, .kind = SL_KIND_MONITOR, .name = "body2",
                      .check = body2_gone, .codes = codes};
    sl_monitor_use use = {&mon, NULL};
    c.user_monitors = &use;
    c.n_user_monitors = 1;
    sl_ensemble *e = merge_systems(NS);
    sl_run_result res;
    run_cpu(&c, e, &res);
    for (int64_t s = 0; s < NS; s++) {
        int kind = (int)(s % M_KINDS);
        char label[160];
        sl_stop_label(e, e->reason[s], e->detail[s], label, sizeof label);
        cr_assert_eq(merge_attr(e, "merges", s), kind == M_MEET ? 1 : merge_count(kind));
        /* the star left alone coasts to t_end in no steps and no launch:
         * no monitor sees it, and it ends active */
        if (kind == M_MEET) {
            cr_assert_eq(e->status[s], SL_SYS_STOPPED, "system %lld (kind %d): %s",
                         (long long)s, kind, label);
            cr_assert_str_eq(label, "monitor body2: gone", "system %lld", (long long)s);
            cr_assert(e->time[s] < T_END);
        } else {
            cr_assert_eq(e->status[s], SL_SYS_ACTIVE, "system %lld (kind %d): %s",
                         (long long)s, kind, label);
        }
    }
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* What merging cannot do is refused before any work, saying why. */
Test(merge, refusals)
{
    slt_plugins p;
    slt_load(&p);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_config c;
    merge_config(&p, &c, "hermite", DT, T_END, 1);
    sl_ensemble *e = merge_systems(8), *keep;
    SLT_OK(sl_ensemble_clone(e, &keep));
    sl_run_result res;
    sl_megno_config mg;
    sl_megno_config_default(&mg);
    sl_megno_result mr;
    cr_assert_eq(sl_integrate_megno(&be, e, &c, &mg, &res, &mr), SL_ERR_UNSUPPORTED);
    cr_assert(strstr(sl_last_error(), "merge"), "%s", sl_last_error());
    slt_assert_same_ensemble(e, keep, "after the refusal");
    /* an ensemble with a removed body is no system for megno */
    sl_run_config plain;
    merge_config(&p, &plain, "hermite", DT, T_END, 0);
    sl_ensemble_merge_bodies(e, 1, 1, 2);
    cr_assert_eq(sl_integrate_megno(&be, e, &plain, &mg, &res, &mr), SL_ERR_UNSUPPORTED);
    cr_assert(strstr(sl_last_error(), "removed"), "%s", sl_last_error());
    /* a removed body's index stays; merging keeps the pair's momentum */
    cr_assert(sl_ensemble_body_removed(e, 1, 2));
    cr_assert_eq(sl_ensemble_live_bodies(e, 1), 2);
    double m1 = sl_ensemble_get(keep, 1, 1, SL_M), m2 = sl_ensemble_get(keep, 1, 2, SL_M);
    for (int k = 0; k < 3; k++)
        cr_assert_float_eq(sl_ensemble_get(e, 1, 1, SL_VX + k) * (m1 + m2),
                           m1 * sl_ensemble_get(keep, 1, 1, SL_VX + k) +
                               m2 * sl_ensemble_get(keep, 1, 2, SL_VX + k),
                           1e-20);
    sl_ensemble_destroy(e);
    sl_ensemble_destroy(keep);
    slt_unload(&p);
}
