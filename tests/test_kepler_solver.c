/* Kepler's equation solvers (core/include/starling/kepler.h): the residual
 * |E − e sin E − M| on a dense grid and on random draws of e in [0, 0.999]
 * and M in [0, 2π), with M -> 0 and e -> 0.999 sampled on purpose; double
 * <= 1e-13, float <= 2e-6 (the float E and the float M and e it was given,
 * residual evaluated in double). Hyperbolic likewise, relative to |M|. */
#include <criterion/criterion.h>
#include <math.h>

#include "starling/kepler.h"
#include "starling/rng.h"

typedef double (*solver_d)(double, double);
typedef float (*solver_f)(float, float);

static double resid_d(solver_d f, double M, double e)
{
    double E = f(M, e);
    return fabs(E - e * sin(E) - M);
}

static double resid_f(solver_f f, double M, double e)
{
    float mf = (float)M, ef = (float)e;
    float E = f(mf, ef);
    return fabs((double)E - (double)ef * sin((double)E) - (double)mf);
}

/* Grid: 1000 eccentricities up to 0.999 (denser near 1), 2000 mean
 * anomalies over [0, 2π) plus 60 values from 1e-12 to 1e-1. */
static double grid_e(int i) { return 0.999 * (1.0 - pow(1.0 - i / 999.0, 2.0)); }
static double grid_m(int j)
{
    return j < 60 ? 1e-12 * pow(10.0, j / 5.0) : SL_KEPLER_TWO_PI * (j - 60) / 2000.0;
}

static void check_grid_d(solver_d f, const char *name)
{
    double worst = 0, we = 0, wm = 0;
    for (int i = 0; i < 1000; i++)
        for (int j = 0; j < 2060; j++) {
            double r = resid_d(f, grid_m(j), grid_e(i));
            if (!(r <= worst))
                worst = r, we = grid_e(i), wm = grid_m(j);
        }
    cr_log_info("%s: worst residual %.3g at e = %.17g, M = %.17g", name, worst, we, wm);
    cr_assert(worst <= 1e-13, "%s: residual %.3g at e = %.17g, M = %.17g", name, worst, we, wm);
}

static void check_grid_f(solver_f f, const char *name)
{
    double worst = 0, we = 0, wm = 0;
    for (int i = 0; i < 1000; i++)
        for (int j = 0; j < 2060; j++) {
            double r = resid_f(f, grid_m(j), grid_e(i));
            if (!(r <= worst))
                worst = r, we = grid_e(i), wm = grid_m(j);
        }
    cr_log_info("%s: worst residual %.3g at e = %.9g, M = %.9g", name, worst, we, wm);
    cr_assert(worst <= 2e-6, "%s: residual %.3g at e = %.9g, M = %.9g", name, worst, we, wm);
}

/* Random: e uniform in [0, 0.999] for half the draws and 0.999 − 1e-3 u³
 * for the rest; M uniform in [0, 2π) or log-uniform in [1e-15, 1). */
static void draw(sl_rng *r, double *M, double *e)
{
    double u = sl_rng_uniform(r);
    *e = sl_rng_uniform(r) < 0.5 ? 0.999 * u : 0.999 - 1e-3 * u * u * u;
    double w = sl_rng_uniform(r);
    *M = sl_rng_uniform(r) < 0.5 ? SL_KEPLER_TWO_PI * w : pow(10.0, -15.0 + 15.0 * w);
}

static void check_random(solver_d fd, solver_f ff, const char *name, uint64_t seed)
{
    sl_rng r;
    sl_rng_init(&r, seed, 0);
    double wd = 0, wf = 0;
    for (int k = 0; k < 2000000; k++) {
        double M, e;
        draw(&r, &M, &e);
        double rd = resid_d(fd, M, e), rf = resid_f(ff, M, e);
        cr_assert(rd <= 1e-13, "%s double: residual %.3g at e = %.17g, M = %.17g", name, rd, e, M);
        cr_assert(rf <= 2e-6, "%s float: residual %.3g at e = %.9g, M = %.9g", name, rf, e, M);
        wd = fmax(wd, rd), wf = fmax(wf, rf);
    }
    cr_log_info("%s random: worst double %.3g, float %.3g", name, wd, wf);
}

Test(kepler_solver, danby_double_grid) { check_grid_d(sl_kepler_danby, "danby"); }
Test(kepler_solver, markley_double_grid) { check_grid_d(sl_kepler_markley, "markley"); }
Test(kepler_solver, danby_float_grid) { check_grid_f(sl_kepler_danby_f, "danby_f"); }
Test(kepler_solver, markley_float_grid) { check_grid_f(sl_kepler_markley_f, "markley_f"); }
Test(kepler_solver, danby_random) { check_random(sl_kepler_danby, sl_kepler_danby_f, "danby", 11); }
Test(kepler_solver, markley_random)
{
    check_random(sl_kepler_markley, sl_kepler_markley_f, "markley", 12);
}

/* Exact cases: M = 0 and M = π are fixed points; e = 0 gives E = M. */
Test(kepler_solver, exact_points)
{
    for (double e = 0; e <= 0.999; e += 0.111) {
        cr_assert_eq(sl_kepler_markley(0.0, e), 0.0);
        cr_assert(fabs(sl_kepler_markley(SL_KEPLER_PI, e) - SL_KEPLER_PI) < 1e-15);
        cr_assert(fabs(sl_kepler_danby(SL_KEPLER_PI, e) - SL_KEPLER_PI) < 1e-15);
    }
    for (double M = 0; M < 6.28; M += 0.1) {
        cr_assert(fabs(sl_kepler_markley(M, 0.0) - M) < 1e-15);
        cr_assert(fabs(sl_kepler_danby(M, 0.0) - M) < 1e-15);
    }
}

/* The E returned lies on the branch of the M given (E − M within e). */
Test(kepler_solver, same_branch_as_m)
{
    for (double M = -20; M < 20; M += 0.37) {
        double E = sl_kepler_markley(M, 0.7);
        cr_assert(fabs(E - M) <= 0.7 + 1e-12, "M = %g: E = %g", M, E);
        cr_assert(fabs(E - 0.7 * sin(E) - M) < 1e-13, "M = %g", M);
        E = sl_kepler_danby(M, 0.7);
        cr_assert(fabs(E - 0.7 * sin(E) - M) < 1e-13, "M = %g", M);
    }
}

/* A wrong solver must fail the checks: a single Newton step from M. */
static double one_newton(double M, double e) { return M + e * sin(M) / (1.0 - e * cos(M)); }
Test(kepler_solver, checks_can_fail)
{
    double worst = 0;
    for (int i = 0; i < 1000; i += 37)
        for (int j = 0; j < 2060; j += 13)
            worst = fmax(worst, resid_d(one_newton, grid_m(j), grid_e(i)));
    cr_assert(worst > 1e-13, "the grid does not catch a one-step solver (worst %.3g)", worst);
}

/* Hyperbolic: e in (1, 20], M in ±[1e-10, 1e4]; residual relative to
 * max(1, |M|) (e sinh F ~ |M| is where rounding happens). */
Test(kepler_solver, hyperbolic)
{
    double worst = 0;
    for (int i = 0; i <= 300; i++) {
        double e = 1.0 + 1e-4 * pow(2e5, i / 300.0);
        for (int j = -1000; j <= 1000; j++) {
            double M = (j < 0 ? -1 : 1) * 1e-10 * pow(1e14, fabs((double)j) / 1000.0);
            double F = sl_kepler_hyperbolic(M, e);
            double r = fabs(e * sinh(F) - F - M) / fmax(1.0, fabs(M));
            cr_assert(r <= 1e-13, "e = %.17g, M = %.17g: residual %.3g", e, M, r);
            worst = fmax(worst, r);
        }
    }
    cr_log_info("hyperbolic: worst relative residual %.3g", worst);
}

/* The _sc forms' sin E and cos E (the RV model's input) against libm at
 * the E they return, over the grid. The returned E is the reduced one
 * plus 2πk, rounded, so the reference itself is uncertain by an ulp of 2π:
 * the bound is two such ulps, 1.8e-15 (double) and 9.6e-7 (float).
 * Markley's come from a Taylor step over its last correction (without
 * it they would be off by that correction, up to ~1e-9 in double, ~1e-4
 * in float), Danby's from its last sincos. */
typedef double (*solver_dsc)(double, double, double *, double *);
typedef float (*solver_fsc)(float, float, float *, float *);

static void check_sc(solver_dsc fd, solver_fsc ff, const char *name)
{
    double wd = 0, wf = 0;
    for (int i = 0; i < 1000; i += 3)
        for (int j = 0; j < 2060; j += 3) {
            double M = grid_m(j), e = grid_e(i), s, c;
            double E = fd(M, e, &s, &c);
            wd = fmax(wd, fmax(fabs(s - sin(E)), fabs(c - cos(E))));
            float sf, cf, Ef = ff((float)M, (float)e, &sf, &cf);
            wf = fmax(wf, fmax(fabs(sf - sin((double)Ef)), fabs(cf - cos((double)Ef))));
        }
    cr_log_info("%s: worst |sin, cos error| double %.3g, float %.3g", name, wd, wf);
    cr_assert(wd <= 1.8e-15, "%s: double sin/cos off by %.3g", name, wd);
    cr_assert(wf <= 9.6e-7, "%s: float sin/cos off by %.3g", name, wf);
}

Test(kepler_solver, danby_sincos) { check_sc(sl_kepler_danby_sc, sl_kepler_danby_sc_f, "danby"); }
Test(kepler_solver, markley_sincos)
{
    check_sc(sl_kepler_markley_sc, sl_kepler_markley_sc_f, "markley");
}
