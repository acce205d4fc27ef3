/* Energy and angular momentum over many orbits of Hill-stable systems
 * (Swarm-NG's test systems: widely spaced planets on near-circular orbits).
 * The energies are recomputed here, independently of the library, and
 * compared with what sl_integrate reports. */
#include "sl_test.h"

enum { NSYS = 50 }; /* not a multiple of SL_CHUNK: the last chunk is partial */

/* Energy and angular momentum computed by the test itself. */
static void invariants(const sl_ensemble *e, int64_t s, double *E, double L[3])
{
    int n = e->n_body;
    double x[16][3], v[16][3], m[16];
    cr_assert(n <= 16);
    for (int b = 0; b < n; b++)
        sl_ensemble_get_body(e, s, b, &m[b], x[b], v[b]);
    double kin = 0, pot = 0;
    L[0] = L[1] = L[2] = 0;
    for (int i = 0; i < n; i++) {
        kin += 0.5 * m[i] * (v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2]);
        L[0] += m[i] * (x[i][1] * v[i][2] - x[i][2] * v[i][1]);
        L[1] += m[i] * (x[i][2] * v[i][0] - x[i][0] * v[i][2]);
        L[2] += m[i] * (x[i][0] * v[i][1] - x[i][1] * v[i][0]);
        for (int j = i + 1; j < n; j++) {
            double dx = x[i][0] - x[j][0], dy = x[i][1] - x[j][1], dz = x[i][2] - x[j][2];
            pot -= m[i] * m[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    *E = kin + pot;
}

typedef struct run_out {
    double max_de, max_dl;
} run_out;

/* Runs NSYS three-planet systems for n_orbits inner orbits with
 * steps_per_orbit steps per inner period and returns the worst relative
 * energy and angular-momentum errors. */
static run_out run_systems(const slt_plugins *p, int n_planets, int steps_per_orbit,
                           double n_orbits)
{
    sl_test_system_spec sp = {
        .n_planets = n_planets, .planet_mass = 1e-4, .a1 = 1.0, .spacing = 0.6,
        .perturb = 0.01, .random_phase = 1, .seed = 12345,
    };
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&sp, NSYS, &e));
    cr_assert_eq(e->n_body, n_planets + 1);
    double E0[NSYS], L0[NSYS][3];
    for (int s = 0; s < NSYS; s++) {
        invariants(e, s, &E0[s], L0[s]);
        cr_assert(E0[s] < 0, "test system %d is not bound (E = %g)", s, E0[s]);
        /* the library's own diagnostics agree with the test's */
        double El, Ll[3], fp0[SL_FORCE_PARAMS_MAX] = {0};
        sl_system_energy(e, s, p->newton, fp0, &El, Ll);
        cr_assert(fabs(El - E0[s]) <= 1e-14 * fabs(E0[s]));
    }
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_config c;
    double P1 = 2.0 * M_PI; /* inner orbit, a = 1, central mass 1 */
    slt_config(p, &c, P1 / steps_per_orbit, n_orbits * P1);
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    cr_assert_eq(res.n_active, NSYS);
    cr_assert_eq(res.n_stopped + res.n_failed, 0);
    run_out out = {0, 0};
    for (int s = 0; s < NSYS; s++) {
        cr_assert_eq(e->status[s], SL_SYS_ACTIVE);
        cr_assert_eq(e->time[s], c.t_end);
        double E, L[3];
        invariants(e, s, &E, L);
        double de = fabs(E / E0[s] - 1.0);
        double dl = sqrt((L[0] - L0[s][0]) * (L[0] - L0[s][0]) + (L[1] - L0[s][1]) * (L[1] - L0[s][1]) +
                         (L[2] - L0[s][2]) * (L[2] - L0[s][2])) /
                    sqrt(L0[s][0] * L0[s][0] + L0[s][1] * L0[s][1] + L0[s][2] * L0[s][2]);
        /* what the run reports is what the test measures */
        cr_assert(fabs(res.energy_error[s] - de) <= 1e-12 + 1e-3 * de,
                  "system %d: reported energy error %.3e, measured %.3e", s, res.energy_error[s], de);
        cr_assert(fabs(res.angmom_error[s] - dl) <= 1e-13 + 1e-3 * dl,
                  "system %d: reported angular momentum error %.3e, measured %.3e", s,
                  res.angmom_error[s], dl);
        out.max_de = fmax(out.max_de, de);
        out.max_dl = fmax(out.max_dl, dl);
        /* every planet is still on a bound orbit near where it started */
        for (int b = 1; b < e->n_body; b++) {
            double x[3], x0[3], v[3];
            sl_ensemble_get_body(e, s, b, NULL, x, v);
            sl_ensemble_get_body(e, s, 0, NULL, x0, v);
            double r = sqrt((x[0] - x0[0]) * (x[0] - x0[0]) + (x[1] - x0[1]) * (x[1] - x0[1]) +
                            (x[2] - x0[2]) * (x[2] - x0[2]));
            double a_k = pow(1.6, b - 1);
            cr_assert(r > 0.8 * a_k && r < 1.2 * a_k, "system %d planet %d at r = %g (a = %g)", s,
                      b, r, a_k);
        }
    }
    sl_run_result_free(&res);
    sl_ensemble_destroy(e);
    return out;
}

Test(conservation, energy_and_angular_momentum_three_planets)
{
    slt_plugins p;
    slt_load(&p);
    /* 100 inner orbits (~24 orbits of the outer planet) */
    run_out r = run_systems(&p, 3, 200, 100.0);
    cr_log_info("3 planets, P/200, 100 orbits: max |dE/E| %.3e, max |dL|/|L| %.3e", r.max_de,
                r.max_dl);
    cr_assert(r.max_de < 1e-8, "energy error %.3e over 100 orbits", r.max_de);
    cr_assert(r.max_dl < 1e-8, "angular momentum error %.3e over 100 orbits", r.max_dl);
    slt_unload(&p);
}

Test(conservation, energy_error_bounded_and_fourth_order)
{
    slt_plugins p;
    slt_load(&p);
    /* The error at dt stays bounded as the run lengthens (no blow-up), and
     * shrinks by more than 2^4 per halving of dt. */
    run_out a = run_systems(&p, 2, 100, 50.0);
    run_out b = run_systems(&p, 2, 100, 200.0);
    run_out h = run_systems(&p, 2, 200, 200.0);
    cr_log_info("2 planets: P/100 50 orbits %.3e, P/100 200 orbits %.3e, P/200 200 orbits %.3e",
                a.max_de, b.max_de, h.max_de);
    cr_assert(b.max_de < 1e-7, "energy error %.3e after 200 orbits at P/100", b.max_de);
    /* at most linear growth with time (4x the time, allow 4x + slack) */
    cr_assert(b.max_de < 6.0 * a.max_de + 1e-14, "energy error grew from %.3e to %.3e",
              a.max_de, b.max_de);
    cr_assert(b.max_de / h.max_de > 12.0, "halving dt reduced the energy error only %.2fx",
              b.max_de / h.max_de);
    cr_log_info("2 planets: |dL|/|L| at P/100 %.3e, at P/200 %.3e (200 orbits)", b.max_dl,
                h.max_dl);
    cr_assert(h.max_dl < 1e-8, "angular momentum error %.3e", h.max_dl);
    cr_assert(b.max_dl / h.max_dl > 12.0, "halving dt reduced the angular momentum error only %.2fx",
              b.max_dl / h.max_dl);
    slt_unload(&p);
}
