/* Two-body Kepler orbits against the analytic solution: the Hermite
 * integrator with Newtonian gravity must follow the orbit closely and its
 * error after 10 orbits must shrink as dt^4. */
#include "sl_test.h"

typedef struct kepler {
    double m1, m2, a, e, inc, node, peri, M0;
} kepler;

/* Eccentric anomaly from the mean anomaly by Newton's iteration. */
static double solve_kepler(double M, double e)
{
    M = fmod(M, 2.0 * M_PI);
    double E = e < 0.8 ? M : M_PI;
    for (int it = 0; it < 100; it++) {
        double f = E - e * sin(E) - M;
        double dE = -f / (1.0 - e * cos(E));
        E += dE;
        if (fabs(dE) < 1e-16)
            break;
    }
    cr_assert(fabs(E - e * sin(E) - M) < 1e-14, "Kepler's equation did not converge");
    return E;
}

static double period(const kepler *k)
{
    return 2.0 * M_PI * sqrt(k->a * k->a * k->a / (k->m1 + k->m2));
}

/* Relative position and velocity (body 2 minus body 1) at time t. */
static void relative_state(const kepler *k, double t, double r[3], double u[3])
{
    double mu = k->m1 + k->m2;
    double n = sqrt(mu / (k->a * k->a * k->a));
    double E = solve_kepler(k->M0 + n * t, k->e);
    double b = k->a * sqrt(1.0 - k->e * k->e);
    double den = 1.0 - k->e * cos(E);
    double p[3] = {k->a * (cos(E) - k->e), b * sin(E), 0.0};
    double q[3] = {-k->a * n * sin(E) / den, b * n * cos(E) / den, 0.0};
    /* R = Rz(node) Rx(inc) Rz(peri) */
    double cO = cos(k->node), sO = sin(k->node), ci = cos(k->inc), si = sin(k->inc);
    double cw = cos(k->peri), sw = sin(k->peri);
    double R[3][3] = {
        {cO * cw - sO * sw * ci, -cO * sw - sO * cw * ci, sO * si},
        {sO * cw + cO * sw * ci, -sO * sw + cO * cw * ci, -cO * si},
        {sw * si, cw * si, ci},
    };
    for (int i = 0; i < 3; i++) {
        r[i] = R[i][0] * p[0] + R[i][1] * p[1] + R[i][2] * p[2];
        u[i] = R[i][0] * q[0] + R[i][1] * q[1] + R[i][2] * q[2];
    }
}

/* Barycentric positions and velocities of both bodies at time t. */
static void analytic(const kepler *k, double t, double x[2][3], double v[2][3])
{
    double r[3], u[3], M = k->m1 + k->m2;
    relative_state(k, t, r, u);
    for (int c = 0; c < 3; c++) {
        x[0][c] = -k->m2 / M * r[c];
        x[1][c] = k->m1 / M * r[c];
        v[0][c] = -k->m2 / M * u[c];
        v[1][c] = k->m1 / M * u[c];
    }
}

static void set_kepler(sl_ensemble *e, int64_t s, const kepler *k)
{
    double x[2][3], v[2][3];
    analytic(k, 0.0, x, v);
    SLT_OK(sl_ensemble_set_body(e, s, 0, k->m1, x[0], v[0]));
    SLT_OK(sl_ensemble_set_body(e, s, 1, k->m2, x[1], v[1]));
}

/* Integrates n_orbits of k with steps_per_orbit steps per period; returns
 * the largest position error of either body at the end, in units of a,
 * and the relative energy error reported by the run. */
static double kepler_error(const slt_plugins *p, const kepler *k, int steps_per_orbit,
                           int n_orbits, double *energy_err)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(1, 2, &e));
    set_kepler(e, 0, k);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_config c;
    double P = period(k);
    slt_config(p, &c, P / steps_per_orbit, n_orbits * P);
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    cr_assert_str_eq(res.kernel, "hermite/newton/2");
    cr_assert_eq(e->status[0], SL_SYS_ACTIVE, "status %s", sl_status_label(e->status[0]));
    cr_assert_eq(e->time[0], c.t_end, "the system must end exactly at t_end");
    int64_t want_steps = (int64_t)steps_per_orbit * n_orbits;
    cr_assert(llabs(e->steps[0] - want_steps) <= 1, "steps %lld, expected %lld",
              (long long)e->steps[0], (long long)want_steps);
    double xa[2][3], va[2][3];
    analytic(k, c.t_end, xa, va);
    double err = 0.0;
    for (int b = 0; b < 2; b++) {
        double x[3], v[3], m;
        sl_ensemble_get_body(e, 0, b, &m, x, v);
        double d = sqrt((x[0] - xa[b][0]) * (x[0] - xa[b][0]) + (x[1] - xa[b][1]) * (x[1] - xa[b][1]) +
                        (x[2] - xa[b][2]) * (x[2] - xa[b][2]));
        err = fmax(err, d / k->a);
    }
    *energy_err = res.energy_error[0];
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    return err;
}

static void check_convergence(const kepler *k, const int *steps, int n, double max_finest)
{
    slt_plugins p;
    slt_load(&p);
    double err[8], en[8];
    for (int i = 0; i < n; i++) {
        err[i] = kepler_error(&p, k, steps[i], 10, &en[i]);
        cr_log_info("e=%.2f steps/orbit=%d: position error %.3e, energy error %.3e", k->e,
                    steps[i], err[i], en[i]);
    }
    for (int i = 1; i < n; i++) {
        double ratio = err[i - 1] / err[i];
        cr_assert(ratio > 12.0 && ratio < 20.0,
                  "e=%.2f: halving dt from P/%d to P/%d shrank the error by %.2f "
                  "(%.3e -> %.3e); a 4th-order method gives ~16",
                  k->e, steps[i - 1], steps[i], ratio, err[i - 1], err[i]);
    }
    /* Least-squares slope of log(err) against log(dt). */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double lx = log(1.0 / steps[i]), ly = log(err[i]);
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    }
    double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    cr_assert(fabs(slope - 4.0) < 0.3, "e=%.2f: fitted order %.3f, expected 4", k->e, slope);
    cr_assert(err[n - 1] < max_finest, "e=%.2f: error %.3e after 10 orbits at P/%d (limit %.1e)",
              k->e, err[n - 1], steps[n - 1], max_finest);
    slt_unload(&p);
}

Test(kepler, analytic_solution_is_periodic)
{
    /* The reference itself: after a whole period the analytic state returns. */
    kepler k = {1.0, 1e-3, 1.3, 0.5, 0.4, 1.1, 2.0, 0.7};
    double x0[2][3], v0[2][3], x1[2][3], v1[2][3];
    analytic(&k, 0.0, x0, v0);
    analytic(&k, 3.0 * period(&k), x1, v1);
    for (int b = 0; b < 2; b++)
        for (int c = 0; c < 3; c++) {
            cr_assert(fabs(x0[b][c] - x1[b][c]) < 1e-12);
            cr_assert(fabs(v0[b][c] - v1[b][c]) < 1e-12);
        }
    /* Energy and vis-viva: v^2 = mu (2/r - 1/a). */
    double r[3], u[3];
    relative_state(&k, 1.234, r, u);
    double rn = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    double v2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    cr_assert(fabs(v2 - (k.m1 + k.m2) * (2.0 / rn - 1.0 / k.a)) < 1e-13);
}

Test(kepler, circular_orbit_converges_as_dt4)
{
    kepler k = {1.0, 1e-3, 1.0, 0.0, 0.3, 0.5, 0.0, 0.25};
    const int steps[] = {100, 200, 400};
    check_convergence(&k, steps, 3, 1e-6);
}

Test(kepler, eccentric_orbit_converges_as_dt4)
{
    kepler k = {1.0, 1e-3, 1.0, 0.5, 0.3, 0.5, 1.0, 0.0};
    const int steps[] = {400, 800, 1600};
    check_convergence(&k, steps, 3, 1e-6);
}

/* The runtime-N fallback (N = 20) and the unrolled N = 2 specialisation run
 * the same arithmetic: with 18 massless test particles far out, the two
 * massive bodies must come out bitwise identical, and on the Kepler orbit. */
Test(kepler, runtime_n_fallback_matches_specialisation)
{
    slt_plugins p;
    slt_load(&p);
    kepler k = {1.0, 1e-3, 1.0, 0.5, 0.3, 0.5, 1.0, 0.0};
    sl_ensemble *e2, *e20;
    SLT_OK(sl_ensemble_create(3, 2, &e2));
    SLT_OK(sl_ensemble_create(3, 20, &e20));
    for (int s = 0; s < 3; s++) {
        kepler ks = k;
        ks.M0 = 0.9 * s;
        set_kepler(e2, s, &ks);
        double x[3], v[3], m;
        for (int b = 0; b < 2; b++) {
            sl_ensemble_get_body(e2, s, b, &m, x, v);
            SLT_OK(sl_ensemble_set_body(e20, s, b, m, x, v));
        }
        for (int b = 2; b < 20; b++) {
            double r = 5.0 + b, ph = 0.37 * b + s;
            double xp[3] = {r * cos(ph), r * sin(ph), 0.01 * b};
            double vp[3] = {-sin(ph) / sqrt(r), cos(ph) / sqrt(r), 0.0};
            SLT_OK(sl_ensemble_set_body(e20, s, b, 0.0, xp, vp));
        }
    }
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_config c;
    double P = period(&k);
    slt_config(&p, &c, P / 800, 3 * P);
    sl_run_result r2, r20;
    SLT_OK(sl_integrate(&be, e2, &c, &r2));
    SLT_OK(sl_integrate(&be, e20, &c, &r20));
    cr_assert_str_eq(r2.kernel, "hermite/newton/2");
    cr_assert_str_eq(r20.kernel, "hermite/newton/any");
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(e20->status[s], SL_SYS_ACTIVE);
        cr_assert_eq(e2->steps[s], e20->steps[s]);
        for (int b = 0; b < 2; b++)
            for (int f = 0; f < SL_NFIELD; f++)
                cr_assert(slt_same_bits(sl_ensemble_get(e2, s, b, f), sl_ensemble_get(e20, s, b, f)),
                          "system %d body %d field %d: N=2 %.17g, N=20 %.17g", s, b, f,
                          sl_ensemble_get(e2, s, b, f), sl_ensemble_get(e20, s, b, f));
        /* and both follow the analytic orbit */
        kepler ks = k;
        ks.M0 = 0.9 * s;
        double xa[2][3], va[2][3];
        analytic(&ks, c.t_end, xa, va);
        for (int b = 0; b < 2; b++)
            for (int f = 0; f < 3; f++)
                cr_assert(fabs(sl_ensemble_get(e20, s, b, SL_X + f) - xa[b][f]) < 1e-6);
    }
    sl_run_result_free(&r2);
    sl_run_result_free(&r20);
    sl_ensemble_destroy(e2);
    sl_ensemble_destroy(e20);
    slt_unload(&p);
}
