/* Planets from RV elements to an N-body start (plugins/nbody_rv/
 * nbody_elements.h): the mass from K against the closed form and
 * Jupiter's, and the Jacobi construction against kepler_rv's model. At the
 * epoch the decomposition is exact, so the star's line-of-sight velocity
 * equals the sum of kepler_rv's planet terms for any masses, inclinations
 * and nodes; the system's centre of mass is at rest at the origin. And
 * transit times (transit_time.h): edge-on, at kepler_rv's conjunctions;
 * inclined, in front of the star at the least projected separation. And
 * the path through observation times (nbody_path.inc): one planet is
 * kepler_rv's curve, and two of vanishing mass are its sum. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "krv_model.h"
#include "nbody_elements.h"

#define DAY (SL_NBODY_K_GAUSS) /* one day in time units */

Test(nbody_elements, mass_from_k_gives_back_k)
{
    const double m_in = 1.3, P = 200.0 * DAY, e = 0.4, si = sin(1.1);
    for (double K = 1e-6; K < 0.05; K *= 7.0) {
        double m = sl_nbody_mass_from_k(K, P, e, si, m_in);
        cr_assert(m > 0.0, "K %g: mass %g", K, m);
        double back = cbrt(SL_KEPLER_TWO_PI / P) * m * si / cbrt((m_in + m) * (m_in + m)) /
                      sqrt(1.0 - e * e);
        cr_expect(fabs(back / K - 1.0) < 1e-14, "K %g: mass %g gives K %.17g", K, m, back);
    }
}

Test(nbody_elements, jupiter_from_its_k)
{
    /* Jupiter about the Sun: K 12.477 m/s (from G M_sun 1.32712e20 m^3/s^2,
     * m 9.5479e-4 M_sun, P 4332.59 d, e 0.0489), edge-on */
    double m = sl_nbody_mass_from_k(12.477 / SL_NBODY_V_UNIT, 4332.59 * DAY, 0.0489, 1.0, 1.0);
    cr_expect(fabs(m / 9.5479e-4 - 1.0) < 1e-3, "Jupiter's mass %.6g M_sun", m);
}

Test(nbody_elements, mass_from_k_refuses_outside_the_domain)
{
    cr_expect_eq(sl_nbody_mass_from_k(-1e-3, 1.0, 0.1, 1.0, 1.0), -1.0);
    cr_expect_eq(sl_nbody_mass_from_k(1e-3, 0.0, 0.1, 1.0, 1.0), -1.0);
    cr_expect_eq(sl_nbody_mass_from_k(1e-3, 1.0, 1.0, 1.0, 1.0), -1.0);
    cr_expect_eq(sl_nbody_mass_from_k(1e-3, 1.0, 0.1, 0.0, 1.0), -1.0);
    cr_expect_eq(sl_nbody_mass_from_k(NAN, 1.0, 0.1, 1.0, 1.0), -1.0);
    cr_expect_eq(sl_nbody_mass_from_k(0.0, 1.0, 0.1, 1.0, 1.0), 0.0);
}

/* Three planets with large masses (K up to 200 m/s), eccentric, inclined,
 * with nodes: the star's v_z at the epoch against kepler_rv at dt = 0. */
Test(nbody_elements, star_velocity_at_the_epoch_is_kepler_rvs_sum)
{
    const sl_nbody_elements el[3] = {
        {12.3 * DAY, 55.0 / SL_NBODY_V_UNIT, 0.12, 0.7, 2.1, 1.2, 0.3},
        {30.1 * DAY, 200.0 / SL_NBODY_V_UNIT, 0.35, -2.0, 5.9, 0.6, 1.9},
        {410.0 * DAY, 20.0 / SL_NBODY_V_UNIT, 0.6, 3.0, 0.2, 2.4, -1.0},
    };
    double x[12] = {0}, v[12] = {0}, m[4] = {0};
    int bad = 0;
    cr_assert(sl_nbody_system(3, el, 0.9, x, v, m, &bad), "refused planet %d", bad);
    double rv = 0.0, kmax = 0.0;
    for (int j = 0; j < 3; j++) {
        const double p[5] = {el[j].P, el[j].K, el[j].e, el[j].w, el[j].M0};
        sl_krv_orbit o = {0};
        cr_assert(sl_krv_orbit_from(p, SL_KRV_BASIS_PKEWM0, 0.0, &o));
        rv += sl_krv_v1(&o, 0.0);
        kmax = fmax(kmax, el[j].K);
        cr_expect(m[j + 1] > 1e-4, "planet %d's mass %g", j + 1, m[j + 1]);
    }
    cr_expect(fabs(v[2] - rv) < 1e-12 * kmax, "star v_z %.17g, kepler_rv %.17g (m/s: %g, %g)", v[2],
              rv, v[2] * SL_NBODY_V_UNIT, rv * SL_NBODY_V_UNIT);
    /* barycentric: the centre of mass at rest at the origin */
    double mt = 0.0, R[3] = {0, 0, 0}, V[3] = {0, 0, 0};
    for (int b = 0; b < 4; b++) {
        mt += m[b];
        for (int c = 0; c < 3; c++)
            R[c] += m[b] * x[3 * b + c], V[c] += m[b] * v[3 * b + c];
    }
    for (int c = 0; c < 3; c++) {
        cr_expect(fabs(R[c] / mt) < 1e-15, "centre of mass at %g", R[c] / mt);
        cr_expect(fabs(V[c] / mt) < 1e-15, "centre of mass moves %g", V[c] / mt);
    }
}

/* One planet: its orbit about the star is the two-body orbit of its
 * elements (semi-major axis from P and the total mass, distance at the
 * epoch from E). */
Test(nbody_elements, one_planet_is_its_two_body_orbit)
{
    const sl_nbody_elements el = {100.0 * DAY, 30.0 / SL_NBODY_V_UNIT, 0.3, 1.0, 0.8, 1.3, 0.4};
    double x[6] = {0}, v[6] = {0}, m[2] = {0};
    int bad = 0;
    cr_assert(sl_nbody_system(1, &el, 1.0, x, v, m, &bad));
    double d[3], du[3];
    for (int c = 0; c < 3; c++)
        d[c] = x[3 + c] - x[c], du[c] = v[3 + c] - v[c];
    double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double u2 = du[0] * du[0] + du[1] * du[1] + du[2] * du[2];
    double mu = m[0] + m[1];
    double a = 1.0 / (2.0 / r - u2 / mu); /* vis-viva */
    double n = SL_KEPLER_TWO_PI / el.P;
    cr_expect(fabs(a / cbrt(mu / (n * n)) - 1.0) < 1e-13, "a %.17g", a);
    double sE, cE;
    sl_kepler_markley_sc(el.M0, el.e, &sE, &cE);
    cr_expect(fabs(r / (a * (1.0 - el.e * cE)) - 1.0) < 1e-13, "r %.17g", r);
}

Test(nbody_elements, bad_planets_are_named)
{
    sl_nbody_elements el[2] = {
        {10.0 * DAY, 10.0 / SL_NBODY_V_UNIT, 0.1, 0.0, 0.0, 1.5, 0.0},
        {20.0 * DAY, 10.0 / SL_NBODY_V_UNIT, 1.2, 0.0, 0.0, 1.5, 0.0},
    };
    double x[9] = {0}, v[9] = {0}, m[3] = {0};
    int bad = 0;
    cr_expect_not(sl_nbody_system(2, el, 1.0, x, v, m, &bad));
    cr_expect_eq(bad, 2);
    el[1].e = 0.1, el[0].inc = 0.0, bad = 0;
    cr_expect_not(sl_nbody_system(2, el, 1.0, x, v, m, &bad));
    cr_expect_eq(bad, 1);
}

/* ---- transit times (plugins/nbody_rv/transit_time.h) ------------------ */

#include "transit_time.h"

/* An edge-on eccentric planet alone, stepped by P/37: each transit found
 * within a step is at kepler_rv's time of conjunction t_c + k P (the true
 * anomaly π/2 − ω of the star's ω), to 1e-9 of P. */
Test(transit_time, edge_on_transits_are_kepler_rvs_conjunctions)
{
    const double e = 0.3, w = 0.9, M0 = 2.0, P = 50.0 * DAY;
    const sl_nbody_elements el = {P, 40.0 / SL_NBODY_V_UNIT, e, w, M0, 0.5 * SL_KEPLER_PI, 0.7};
    double x[6] = {0}, v[6] = {0}, m[2] = {0};
    int bad = 0;
    cr_assert(sl_nbody_system(1, &el, 1.0, x, v, m, &bad));
    double r[3], u[3];
    for (int c = 0; c < 3; c++)
        r[c] = x[3 + c] - x[c], u[c] = v[3 + c] - v[c];
    const double mu = m[0] + m[1], n = SL_KEPLER_TWO_PI / P;
    /* t_c: the phase of conjunction (sl_krv_tc_to_tp's relation), after 0 */
    const double tp = -M0 / n;
    const double tc0 = tp + (tp - sl_krv_tc_to_tp(tp, P, e, w));
    double tc = tc0 - P * floor(tc0 / P);
    const double h = P / 37.0;
    int found = 0;
    for (int k = 0; k < 3 * 37; k++) {
        double dt;
        if (sl_transit_in_step(mu, r, u, h, &dt)) {
            double t = k * h + dt;
            cr_expect(fabs(t - tc) < 1e-9 * P, "transit %d at %.15g, t_c %.15g (diff %g P)", found,
                      t, tc, (t - tc) / P);
            tc += P;
            found++;
        }
        sl_kepler_drift(mu, h, r, u);
    }
    cr_expect_eq(found, 3, "%d transits in 3 periods", found);
}

/* Inclined 87 degrees: one transit a period, and at each the planet in
 * front of the star (z < 0) at its least projected separation (g = 0). */
Test(transit_time, inclined_transits_are_in_front_at_least_separation)
{
    const sl_nbody_elements el = {20.0 * DAY, 10.0 / SL_NBODY_V_UNIT, 0.1, 0.3, 1.0,
                                  87.0 * SL_KEPLER_PI / 180.0, 0.4};
    double x[6] = {0}, v[6] = {0}, m[2] = {0};
    int bad = 0;
    cr_assert(sl_nbody_system(1, &el, 1.0, x, v, m, &bad));
    double r[3], u[3];
    for (int c = 0; c < 3; c++)
        r[c] = x[3 + c] - x[c], u[c] = v[3 + c] - v[c];
    const double h = el.P / 29.0, mu = m[0] + m[1];
    int found = 0;
    for (int k = 0; k < 2 * 29; k++) {
        double dt;
        if (sl_transit_in_step(mu, r, u, h, &dt)) {
            double rt[3] = {r[0], r[1], r[2]}, ut[3] = {u[0], u[1], u[2]}, g, dg;
            sl_kepler_drift(mu, dt, rt, ut);
            sl_transit_g(mu, rt, ut, &g, &dg);
            cr_expect(rt[2] < 0.0, "transit %d behind the star (z %g)", found, rt[2]);
            cr_expect(fabs(g) < 1e-12 * sqrt(rt[0] * rt[0] + rt[1] * rt[1] + rt[2] * rt[2]) *
                                    sqrt(ut[0] * ut[0] + ut[1] * ut[1] + ut[2] * ut[2]),
                      "g %g at transit %d", g, found);
            cr_expect(dg > 0.0, "transit %d is not a least separation", found);
            found++;
        }
        sl_kepler_drift(mu, h, r, u);
    }
    cr_expect_eq(found, 2, "%d transits in 2 periods", found);
}

/* ---- the path through observation times (plugins/nbody_rv/nbody_path.inc) */

#include "starling/forces/newton.h"
#include "hermite.h"
#include "mvs.h"

#define SL_P mvs
#define SL_F newton
#define SL_N 2
#include "nbody_path.inc"
#undef SL_N
#define SL_N 3
#include "nbody_like.inc"
#undef SL_N
#undef SL_P
#define SL_P hermite
#define SL_N 2
#include "nbody_path.inc"
#undef SL_N
#undef SL_P
#undef SL_F

/* 200 observation times over ten years around the epoch (sorted, some on
 * the step grid), in the integrator's unit. */
static void obs_times(double *t, int n, double dt)
{
    for (int k = 0; k < n; k++)
        t[k] = (-1826.0 + 3652.0 * k / (n - 1)) * DAY;
    t[n / 2] = 0.0;
    t[n / 2 + 3] = round(t[n / 2 + 3] / dt) * dt; /* on the grid */
}

static double kepler_sum(const sl_nbody_elements *el, int n_pl, double t)
{
    double rv = 0.0;
    for (int j = 0; j < n_pl; j++) {
        const double p[5] = {el[j].P, el[j].K, el[j].e, el[j].w, el[j].M0};
        sl_krv_orbit o = {0};
        if (!sl_krv_orbit_from(p, SL_KRV_BASIS_PKEWM0, 0.0, &o))
            return NAN;
        rv += sl_krv_v1(&o, t);
    }
    return rv;
}

/* One planet: mvs in Jacobi coordinates drifts the Kepler orbit itself
 * (no kick from other planets), so the star's velocity is kepler_rv's at
 * every time, before the epoch and after it, on the grid and between, to
 * rounding. Hermite with P / 3000 steps follows it to its fourth-order
 * error. */
Test(nbody_path, one_planet_is_kepler_rv)
{
    const sl_nbody_elements el = {71.0 * DAY, 45.0 / SL_NBODY_V_UNIT, 0.35, 2.2, 4.0, 1.1, 0.3};
    double x[6] = {0}, v[6] = {0}, m[2] = {0}, fp[SL_FORCE_PARAMS_MAX] = {0};
    int bad = 0;
    cr_assert(sl_nbody_system(1, &el, 0.8, x, v, m, &bad));
    enum { NT = 200 };
    double t[NT], out[NT];
    for (int which = 0; which < 2; which++) {
        double pp[SL_PROP_PARAMS_MAX] = {0};
        pp[SL_PP_DT] = el.P / (which ? 3000.0 : 40.0);
        if (!which)
            ((sl_mvs_params *)pp)->coordinates = 1.0; /* Jacobi */
        obs_times(t, NT, pp[SL_PP_DT]);
        int ok = which ? sl_nbody_path_hermite_newton_2(x, v, m, pp, fp, t, NT, 0, out)
                       : sl_nbody_path_mvs_newton_2(x, v, m, pp, fp, t, NT, 0, out);
        cr_assert(ok);
        double worst = 0.0;
        for (int k = 0; k < NT; k++) {
            const double ref = kepler_sum(&el, 1, t[k]);
            cr_assert(isfinite(ref) && isfinite(out[k]), "t %g: %g against %g", t[k], out[k], ref);
            worst = fmax(worst, fabs(out[k] - ref) / el.K);
        }
        cr_expect(worst < (which ? 1e-9 : 1e-11), "%s: worst |v - kepler_rv| / K = %g",
                  which ? "hermite" : "mvs", worst);
    }
}

/* Two planets of vanishing mass (K of a nanometre a second, masses near
 * 2e-14 M_sun): the N-body model is kepler_rv's sum to 1e-9 of K over ten
 * years. Near the 2:1 resonance the planets' pulls on each other move the
 * curve by about 5000 times their mass relative to K (9e-5 at K = 1 mm/s,
 * growing as t²), so vanishing means this small; with Jupiter-like masses
 * it is far from kepler_rv (a test that can fail). */
Test(nbody_path, vanishing_masses_are_kepler_rv)
{
    for (int heavy = 0; heavy < 2; heavy++) {
        const double K = (heavy ? 60.0 : 1e-9) / SL_NBODY_V_UNIT;
        const sl_nbody_elements el[2] = {
            {60.0 * DAY, K, 0.1, 0.4, 1.0, 0.5 * SL_KEPLER_PI, 0.0},
            {121.0 * DAY, 0.8 * K, 0.2, 2.0, 3.0, 0.5 * SL_KEPLER_PI, 0.0},
        };
        double x[9] = {0}, v[9] = {0}, m[3] = {0}, fp[SL_FORCE_PARAMS_MAX] = {0};
        double pp[SL_PROP_PARAMS_MAX] = {0};
        int bad = 0;
        cr_assert(sl_nbody_system(2, el, 1.0, x, v, m, &bad));
        pp[SL_PP_DT] = 60.0 * DAY / 60.0;
        enum { NT = 200 };
        double t[NT], out[NT], worst = 0.0;
        obs_times(t, NT, pp[SL_PP_DT]);
        cr_assert(sl_nbody_path_mvs_newton_3(x, v, m, pp, fp, t, NT, 0, out));
        for (int k = 0; k < NT; k++) {
            const double ref = kepler_sum(el, 2, t[k]);
            cr_assert(isfinite(ref) && isfinite(out[k]), "t %g: %g against %g", t[k], out[k], ref);
            worst = fmax(worst, fabs(out[k] - ref) / K);
        }
        if (heavy)
            cr_expect(worst > 1e-3, "Jupiter-like masses: worst %g of K from kepler_rv", worst);
        else
            cr_expect(worst < 1e-9, "vanishing masses: worst %g of K from kepler_rv", worst);
    }
}

/* GJ 876 b and c-like, near the 2:1 resonance about a 0.32 M_sun star, ten
 * years around the epoch, against REBOUND's IAS15 from the same elements
 * and conventions (tests/reference/make_nbody_rv_reference.py): Hermite
 * at P_b / 2000 to 1e-8 of K (the validation), mvs in Jacobi
 * coordinates with corrector 11 converging at second order to it; the
 * pair's pulls move the curve hundreds of m/s from kepler_rv's sum. */
#define SL_P hermite
#define SL_F newton
#define SL_N 3
#include "nbody_like.inc"
#undef SL_P
#undef SL_F
#undef SL_N

/* The GJ 876 b and c-like pair of the REBOUND references (the elements
 * make_nbody_rv_reference.py uses) about a 0.32 M_sun star. */
static void gj876_like(sl_nbody_elements *el, double *x, double *v, double *m)
{
    const sl_nbody_elements pair[2] = {
        {30.126 * DAY, 88.34 / SL_NBODY_V_UNIT, 0.2531, 0.8, 2.1, 0.5 * SL_KEPLER_PI, 0.0},
        {61.082 * DAY, 212.07 / SL_NBODY_V_UNIT, 0.0354, 0.4, 5.4, 0.5 * SL_KEPLER_PI, 0.0},
    };
    el[0] = pair[0], el[1] = pair[1];
    int bad = 0;
    cr_assert(sl_nbody_system(2, el, 0.32, x, v, m, &bad), "planet %d refused", bad);
}

Test(nbody_path, resonant_pair_is_rebounds_ias15)
{
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/nbody_rv_gj876_rebound.csv", SL_TEST_DATA_DIR);
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    enum { NT = 200 };
    double td[NT], ref[NT], t[NT], out[NT];
    int n = 0;
    while (fgets(line, sizeof line, f) && n < NT)
        if (line[0] != '#' && line[0] != 't' && sscanf(line, "%lf,%lf", &td[n], &ref[n]) == 2)
            n++;
    fclose(f);
    cr_assert_eq(n, NT, "%d rows in %s", n, path);
    sl_nbody_elements el[2];
    double x[9] = {0}, v[9] = {0}, m[3] = {0}, fp[SL_FORCE_PARAMS_MAX] = {0};
    gj876_like(el, x, v, m);
    for (int k = 0; k < NT; k++)
        t[k] = td[k] * DAY;
    const double K = 212.07;
    double worst[3], kep = 0.0;
    for (int run = 0; run < 3; run++) {
        double pp[SL_PROP_PARAMS_MAX] = {0};
        pp[SL_PP_DT] = el[0].P / (run == 1 ? 400.0 : 2000.0);
        int ok;
        if (run == 0) {
            ok = sl_nbody_path_hermite_newton_3(x, v, m, pp, fp, t, NT, 0, out);
        } else {
            ((sl_mvs_params *)pp)->coordinates = 1.0;
            ((sl_mvs_params *)pp)->corrector = 11.0;
            ok = sl_nbody_path_mvs_newton_3(x, v, m, pp, fp, t, NT, 0, out);
        }
        cr_assert(ok, "run %d refused", run);
        worst[run] = 0.0;
        for (int k = 0; k < NT; k++) {
            cr_assert(isfinite(out[k]));
            worst[run] = fmax(worst[run], fabs(out[k] * SL_NBODY_V_UNIT - ref[k]) / K);
            if (run == 0)
                kep = fmax(kep, fabs(kepler_sum(el, 2, t[k]) * SL_NBODY_V_UNIT - ref[k]));
        }
    }
    cr_expect(worst[0] < 1e-8, "Hermite, P/2000: worst %g of K from REBOUND", worst[0]);
    cr_expect(worst[2] < 2e-7, "mvs, P/2000: worst %g of K from REBOUND", worst[2]);
    const double order = log(worst[1] / worst[2]) / log(5.0);
    cr_expect(order > 1.8 && order < 2.2, "mvs converges at order %g (%g, %g)", order, worst[1],
              worst[2]);
    cr_expect(kep > 100.0, "kepler_rv's sum only %g m/s from the interacting pair", kep);
}

/* The same pair's mid-transit times over five years, against REBOUND's
 * (IAS15, bisected on the same criterion), found by the likelihood's own
 * forward run (nbody_like.inc) and matched to REBOUND's as observations
 * with 1 s errors, so that sqrt(chi2) bounds the worst transit in seconds
 * and a missed transit costs a period: Hermite at P_b / 2000 within
 * 0.1 s, mvs (Jacobi, corrector 11) at P_b / 2000 within 1 s (the issue's
 * validation). The pair's TTVs are hours: the same orbits with vanishing
 * masses (kepler_rv's linear ephemeris) miss by more than an hour. */
Test(nbody_path, resonant_pair_transits_are_rebounds)
{
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/nbody_ttv_gj876_rebound.csv", SL_TEST_DATA_DIR);
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    enum { CAP = 160 };
    double t_tr[CAP], ivar[CAP];
    int planet[CAP], n = 0, j;
    double td;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%d,%lf", &j, &td) == 2 && j >= 1 && j <= 2 && n < CAP)
            planet[n] = j, t_tr[n] = td * DAY, ivar[n] = 1.0 / (DAY / 86400.0 * DAY / 86400.0),
            n++;
    fclose(f);
    sl_nbody_view d = {.kind = SL_NBODY_KIND_TTV, .n_pl = 2, .mstar = 0.32, .n_tr = n,
                       .t_tr = t_tr, .ivar_tr = ivar};
    for (int k = 0; k < n; k++) {
        cr_assert(k == 0 || planet[k] > planet[k - 1] ||
                      (planet[k] == planet[k - 1] && t_tr[k] > t_tr[k - 1]),
                  "%s: sorted by planet, then time", path);
        d.tr_start[planet[k]] = k + 1;
        d.t_tr_last = fmax(d.t_tr_last, t_tr[k]);
    }
    cr_assert(d.tr_start[1] > 50 && d.tr_start[2] - d.tr_start[1] > 25, "%d and %d transits",
              d.tr_start[1], d.tr_start[2] - d.tr_start[1]);
    sl_nbody_model M = {0};
    double x[9], v[9], m[3];
    gj876_like(M.el, x, v, m);
    double x2[3];
    for (int run = 0; run < 3; run++) {
        double pp[SL_PROP_PARAMS_MAX] = {0}, fp[SL_FORCE_PARAMS_MAX] = {0}, lw;
        pp[SL_PP_DT] = M.el[0].P / 2000.0;
        int why;
        if (run == 0) {
            why = sl_nbody_eval_hermite_newton_3(&d, &M, pp, fp, &x2[run], &lw);
        } else {
            ((sl_mvs_params *)pp)->coordinates = 1.0;
            ((sl_mvs_params *)pp)->corrector = 11.0;
            sl_nbody_model K = M;
            if (run == 2)
                K.el[0].K *= 1e-9, K.el[1].K *= 1e-9; /* the masses vanish */
            why = sl_nbody_eval_mvs_newton_3(&d, &K, pp, fp, &x2[run], &lw);
        }
        cr_assert_eq(why, SL_NBODY_OK, "run %d: refused (%d)", run, why);
    }
    cr_log_info("transits against REBOUND, sqrt(chi2) in s: Hermite %.3g, mvs %.3g; vanishing "
                "masses %.3g", sqrt(x2[0]), sqrt(x2[1]), sqrt(x2[2]));
    cr_expect(sqrt(x2[0]) < 0.1, "Hermite: sqrt(chi2) %g s from REBOUND", sqrt(x2[0]));
    cr_expect(sqrt(x2[1]) < 1.0, "mvs: sqrt(chi2) %g s from REBOUND", sqrt(x2[1]));
    cr_expect(sqrt(x2[2]) > 3600.0, "vanishing masses: sqrt(chi2) only %g s", sqrt(x2[2]));
}

/* A device's pair of threads a model sums each direction from the epoch on
 * its own thread (nbody_cuda.cu): the forward part and the backward part
 * of the resonant pair's 200 velocities around the epoch add up to the
 * whole to rounding, each carries its own observations' terms, and with
 * every observation after the epoch the backward part is empty. */
Test(nbody_path, the_two_directions_add_up_to_the_whole)
{
    enum { NT = 200 };
    sl_nbody_model M = {0};
    double x[9], v[9], m[3];
    gj876_like(M.el, x, v, m);
    double pp[SL_PROP_PARAMS_MAX] = {0}, fp[SL_FORCE_PARAMS_MAX] = {0};
    pp[SL_PP_DT] = M.el[0].P / 100.0;
    ((sl_mvs_params *)pp)->coordinates = 1.0;
    double t[NT], vo[NT], var[NT];
    int inst[NT] = {0};
    obs_times(t, NT, pp[SL_PP_DT]);
    for (int k = 0; k < NT; k++)
        vo[k] = 50.0 * sin(0.37 * k), var[k] = 4.0; /* m/s, (m/s)^2 */
    sl_nbody_view d = {.kind = SL_NBODY_KIND_RV, .n_pl = 2, .mstar = 0.32, .n_inst = 1,
                       .n_rv = NT, .t_rv = t, .v_rv = vo, .var_rv = var, .inst_rv = inst};
    for (int shift = 0; shift < 2; shift++) { /* the epoch mid-data, then first */
        if (shift)
            for (int k = NT - 1; k >= 0; k--)
                t[k] -= t[0];
        double x2[3], lw[3];
        for (int part = SL_NBODY_BOTH; part <= SL_NBODY_BACKWARD; part++)
            cr_assert_eq(sl_nbody_eval_part_mvs_newton_3(&d, &M, pp, fp, part, &x2[part],
                                                         &lw[part]),
                         SL_NBODY_OK, "part %d refused", part);
        const double sx = x2[SL_NBODY_FORWARD] + x2[SL_NBODY_BACKWARD],
                     sw = lw[SL_NBODY_FORWARD] + lw[SL_NBODY_BACKWARD];
        cr_expect(fabs(sx - x2[0]) <= 1e-13 * x2[0] && fabs(sw - lw[0]) <= 1e-13 * fabs(lw[0]),
                  "epoch %s: chi2 %.17g + %.17g against %.17g, lw %.17g against %.17g",
                  shift ? "first" : "mid-data", x2[1], x2[2], x2[0], sw, lw[0]);
        const double per_obs = lw[0] / NT; /* the same variance everywhere */
        if (!shift) {
            cr_expect(fabs(lw[SL_NBODY_FORWARD] - 100.0 * per_obs) < 1e-9 * fabs(lw[0]) &&
                          fabs(lw[SL_NBODY_BACKWARD] - 100.0 * per_obs) < 1e-9 * fabs(lw[0]),
                      "mid-data: %g and %g of the lw terms, expected half each",
                      lw[SL_NBODY_FORWARD] / per_obs, lw[SL_NBODY_BACKWARD] / per_obs);
            cr_expect(x2[SL_NBODY_FORWARD] > 0.1 * x2[0] && x2[SL_NBODY_BACKWARD] > 0.1 * x2[0],
                      "mid-data: chi2 %g forward, %g backward", x2[1], x2[2]);
        } else {
            cr_expect(x2[SL_NBODY_BACKWARD] == 0.0 && lw[SL_NBODY_BACKWARD] == 0.0,
                      "epoch first: the backward part holds %g, %g", x2[2], lw[2]);
            cr_expect(x2[SL_NBODY_FORWARD] == x2[0], "epoch first: forward %.17g, whole %.17g",
                      x2[1], x2[0]);
        }
    }
}
