/* Cases for adaptive stepping (launch.h), shared by the CPU suite
 * (test_adaptive.c) and the GPU suite (test_gpu_adaptive.c): the tables of
 * the adaptive Heun integrator (integrators/heun_adaptive.h) and of the
 * misbehaving controller (integrators/bad_control.h), ensembles of
 * two-body orbits, and the guard-rail cases. Include after the kernels of
 * slt_heun (N = 2, 3) and slt_badctl (N = 2) with newton, each a table of
 * its own (starling/kernels.inc with SL_KERNELS_OWN_TABLE). */
#ifndef SLT_ADAPTIVE_CASES_H
#define SLT_ADAPTIVE_CASES_H

#include "sl_test.h"
#include "starling/kepler.h"
#include "integrators/bad_control.h"
#include "integrators/heun_adaptive.h"

static const sl_param slt_heun_params[] = {
    {"dt", SL_PARAM_NUMBER, 0.01, 1e-300, 1e300, 0, "first step", NULL, NULL},
    {"tol", SL_PARAM_NUMBER, 1e-6, 1e-15, 1.0, 0, "error per step", NULL, NULL},
    {"h_max", SL_PARAM_NUMBER, 0.0, 0.0, 1e300, 0, "largest step (0: none)", NULL, NULL},
};

static sl_status slt_heun_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = sl_params_get(pv, "dt");
    pp[1] = sl_params_get(pv, "tol");
    pp[2] = sl_params_get(pv, "h_max");
    return SL_OK;
}

static const sl_propagator slt_heun = {
    .abi = SL_ABI_VERSION, .kind = SL_KIND_PROPAGATOR, .name = "slt_heun",
    .description = "adaptive Heun-Euler 2(1), a test integrator",
    .params = slt_heun_params, .n_params = 3,
    .order = 2, .adaptive = 1, .persist_per_body = SL_PROP_slt_heun_PERSIST,
    .pack = slt_heun_pack, .kernels = sl_kernels_slt_heun,
    .n_kernels = sizeof sl_kernels_slt_heun / sizeof sl_kernels_slt_heun[0], .n_packed = 3,
};

/* slt_heun + newton to t_end: first step dt, tolerance tol, no h_max. */
static SLT_UNUSED void slt_heun_config(const slt_plugins *p, sl_run_config *c, double dt,
                                       double tol, double t_end)
{
    sl_run_config_init(c);
    c->prop = &slt_heun;
    c->force = p->newton;
    c->pp[0] = dt;
    c->pp[1] = tol;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, p->newton->params, p->newton->n_params));
    SLT_OK(p->newton->pack(&pv, c->fp));
    c->t_end = t_end;
}

/* Masses of the two-body orbits: a star and a planet of a tenth of it. */
static const double SLT_M0 = 1.0, SLT_M1 = 0.1;

static SLT_UNUSED double slt_period(void)
{
    return 2.0 * SL_KEPLER_PI / sqrt(SLT_M0 + SLT_M1);
}

/* System s of e: bodies 0 and 1 (any others far out on circular orbits)
 * on a relative orbit of a = 1 and eccentricity ecc, starting at mean
 * anomaly mean0 with the pericentre rotated by w, barycentric. */
static SLT_UNUSED void slt_set_orbit(sl_ensemble *e, int64_t s, double ecc, double mean0,
                                     double w)
{
    const double mu = SLT_M0 + SLT_M1, b = sqrt(1.0 - ecc * ecc), nn = sqrt(mu);
    double E = sl_kepler_markley(mean0, ecc), sE = sin(E), cE = cos(E), d = 1.0 - ecc * cE;
    double p[2] = {cE - ecc, b * sE}, q[2] = {-nn * sE / d, nn * b * cE / d};
    double r[3] = {cos(w) * p[0] - sin(w) * p[1], sin(w) * p[0] + cos(w) * p[1], 0.0};
    double u[3] = {cos(w) * q[0] - sin(w) * q[1], sin(w) * q[0] + cos(w) * q[1], 0.0};
    double x0[3], v0[3], x1[3], v1[3];
    for (int i = 0; i < 3; i++) {
        x0[i] = -SLT_M1 / mu * r[i], v0[i] = -SLT_M1 / mu * u[i];
        x1[i] = SLT_M0 / mu * r[i], v1[i] = SLT_M0 / mu * u[i];
    }
    SLT_OK(sl_ensemble_set_body(e, s, 0, SLT_M0, x0, v0));
    SLT_OK(sl_ensemble_set_body(e, s, 1, SLT_M1, x1, v1));
    for (int k = 2; k < e->n_body; k++) {
        double rr = 20.0 * k, vv = sqrt(SLT_M0 / rr);
        double xk[3] = {0.0, rr, 0.0}, vk[3] = {-vv, 0.0, 0.0};
        SLT_OK(sl_ensemble_set_body(e, s, k, 1e-9, xk, vk));
    }
}

/* n_sys two-body systems: even ones circular, odd ones of eccentricity ecc,
 * at phases and orientations that vary with s. */
static SLT_UNUSED sl_ensemble *slt_orbits(int64_t n_sys, int n_body, double ecc)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(n_sys, n_body, &e));
    for (int64_t s = 0; s < n_sys; s++)
        slt_set_orbit(e, s, s % 2 ? ecc : 0.0, 0.1 * (double)s, 0.37 * (double)s);
    return e;
}

/* The relative position r = x1 - x0 of system s. */
static SLT_UNUSED void slt_relative(const sl_ensemble *e, int64_t s, double r[3])
{
    double m, x0[3], x1[3], v[3];
    sl_ensemble_get_body(e, s, 0, &m, x0, v);
    sl_ensemble_get_body(e, s, 1, &m, x1, v);
    for (int i = 0; i < 3; i++)
        r[i] = x1[i] - x0[i];
}

/* |r(end) - r(start)| of system s: the error after whole periods. */
static SLT_UNUSED double slt_orbit_error(const sl_ensemble *start, const sl_ensemble *end,
                                         int64_t s)
{
    double a[3], b[3];
    slt_relative(start, s, a);
    slt_relative(end, s, b);
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

/* p with only its runtime-N kernels, which run the scalar loop (the
 * unrolled N run the lane loop). The caller frees it. */
static SLT_UNUSED sl_propagator *scalar_only(const sl_propagator *p)
{
    sl_propagator *q = malloc(sizeof *q + p->n_kernels * sizeof(sl_kernel_entry));
    cr_assert_not_null(q);
    *q = *p;
    sl_kernel_entry *k = (sl_kernel_entry *)(q + 1);
    q->kernels = k;
    q->n_kernels = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        if (p->kernels[i].n_body == 0)
            k[q->n_kernels++] = p->kernels[i];
    return q;
}

/* The backend the shared cases run on: "cpu" unless a suite sets it. */
static const char *slt_backend = "cpu";

static SLT_UNUSED void run(sl_ensemble *e, const sl_run_config *c, sl_run_result *r)
{
    sl_backend be;
    SLT_OK(sl_backend_open(slt_backend, &be));
    SLT_OK(sl_integrate(&be, e, c, r));
}

/* A copy of e integrated with c; returns the run's rejected steps. */
static SLT_UNUSED sl_ensemble *run_copy(const sl_ensemble *e, const sl_run_config *c,
                                        int64_t *rejected, const char *want_kernel)
{
    sl_ensemble *w;
    SLT_OK(sl_ensemble_clone(e, &w));
    sl_run_result r;
    run(w, c, &r);
    if (want_kernel)
        cr_assert_str_eq(r.kernel, want_kernel);
    if (rejected)
        *rejected = r.rejected_steps;
    sl_run_result_free(&r);
    return w;
}

/* ---- guard rails ---------------------------------------------------------------- */

/* 8 drifting systems, t_end = 1, step 0.1; the odd ones' controller
 * misbehaves in `mode` (integrators/bad_control.h). */
static SLT_UNUSED sl_ensemble *drifting(void)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(8, 2, &e));
    for (int64_t s = 0; s < 8; s++) {
        double x0[3] = {0, 0, 0}, v0[3] = {0, 0, 0}, x1[3] = {100, (double)s, 0},
               v1[3] = {1, 0.5, 0};
        SLT_OK(sl_ensemble_set_body(e, s, 0, 1e-9, x0, v0));
        SLT_OK(sl_ensemble_set_body(e, s, 1, s % 2 ? 1.0 : 1e-3, x1, v1));
    }
    return e;
}

static const sl_propagator slt_badctl = {
    .abi = SL_ABI_VERSION, .kind = SL_KIND_PROPAGATOR, .name = "slt_badctl",
    .description = "drift with a misbehaving step controller", .order = 1, .adaptive = 1,
    .kernels = sl_kernels_slt_badctl,
    .n_kernels = sizeof sl_kernels_slt_badctl / sizeof sl_kernels_slt_badctl[0], .n_packed = 3,
};

typedef struct guard_case {
    int mode, fault;
    int64_t steps, rejected; /* of each bad system */
    double t;                /* where a bad system stops */
} guard_case;

static SLT_UNUSED void guard(const guard_case *g, int scalar, int64_t per_launch)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e = drifting();
    sl_propagator *q = scalar ? scalar_only(&slt_badctl) : NULL;
    sl_run_config c;
    slt_heun_config(&p, &c, 0.1, 0, 1.0);
    c.prop = q ? q : &slt_badctl;
    c.pp[1] = g->mode;
    c.pp[2] = 0.5; /* body 1 at least this heavy: misbehaves */
    c.steps_per_launch = per_launch;
    c.mon.log_on_stop = 1;
    slt_log log;
    slt_log_init(&log, 8);
    slt_log_attach(&c, &log);
    sl_run_result r;
    run(e, &c, &r);
    cr_assert_str_eq(r.kernel, scalar ? "slt_badctl/newton/any" : "slt_badctl/newton/2",
                     "%s", slt_backend);
    for (int64_t s = 0; s < 8; s++) {
        double m, x[3], v[3];
        sl_ensemble_get_body(e, s, 1, &m, x, v);
        if (s % 2 == 0) {
            cr_assert(e->status[s] == SL_SYS_ACTIVE && e->time[s] == 1.0 && e->steps[s] == 10,
                      "mode %d, good system %lld: %s (%s) at t = %.17g after %lld steps",
                      g->mode, (long long)s + 1, sl_status_label(e->status[s]),
                      sl_reason_label(e->reason[s]), e->time[s], (long long)e->steps[s]);
            continue;
        }
        char label[64];
        sl_stop_label(e, e->reason[s], e->detail[s], label, sizeof label);
        cr_assert(e->status[s] == SL_SYS_STOPPED && e->reason[s] == SL_REASON_STEP_SIZE &&
                      e->detail[s] == g->fault,
                  "%s, mode %d, system %lld: %s, %s, detail %d: expected stopped, step_size, %d",
                  slt_backend, g->mode, (long long)s + 1, sl_status_label(e->status[s]), label,
                  e->detail[s], g->fault);
        cr_assert(e->time[s] == g->t && e->stop_time[s] == g->t && e->steps[s] == g->steps,
                  "mode %d, system %lld: stopped at t = %.17g (stop time %.17g) after %lld "
                  "steps; expected t = %.17g after %lld", g->mode, (long long)s + 1,
                  e->time[s], e->stop_time[s], (long long)e->steps[s], g->t,
                  (long long)g->steps);
        /* the state is the kept steps' drift (at speed 1): rejected ones left no trace */
        cr_assert(g->t > 0 ? fabs(x[0] - 100.0 - g->t) < 1e-12 : x[0] == 100.0,
                  "mode %d, system %lld: x = %.17g after t = %.17g", g->mode, (long long)s + 1,
                  x[0], g->t);
        cr_assert_eq(log.count[SLT_NEV * s + SL_LOG_STOP], 1);
    }
    cr_assert_eq(r.rejected_steps, 4 * g->rejected, "mode %d: %lld rejected steps", g->mode,
                 (long long)r.rejected_steps);
    cr_assert_eq(r.n_stopped, 4);
    slt_log_free(&log);
    sl_run_result_free(&r);
    sl_ensemble_destroy(e);
    free(q);
    slt_unload(&p);
}

/* Mode 4's stop: five kept steps from 0.1, each 1000 times shorter (the
 * sixth would be 1e-16, below 1e-14 of the run's span), summed as the loop
 * sums them. Mode 5: 0.1 / 2^44 is the first half below 1e-14. */
static SLT_UNUSED double shrinking_stop(void)
{
    double t = 0.0, h = 0.1;
    for (int k = 0; k < 5; k++, h /= 1000.0)
        t += h;
    return t;
}

static SLT_UNUSED void all_guards(int scalar, int64_t per_launch)
{
    const guard_case cases[] = {
        {1, SL_STEP_FAULT_NONFINITE, 1, 0, 0.1},
        {2, SL_STEP_FAULT_NONFINITE, 1, 0, 0.1},
        {3, SL_STEP_FAULT_REJECTIONS, 0, SL_REJECT_MAX, 0.0},
        {4, SL_STEP_FAULT_UNDERFLOW, 5, 0, shrinking_stop()},
        {5, SL_STEP_FAULT_UNDERFLOW, 0, 44, 0.0},
        {6, SL_STEP_FAULT_NONFINITE, 0, 0, 0.0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        guard(&cases[k], scalar, per_launch);
}

#endif
