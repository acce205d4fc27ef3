/* The microlensing plugin on the CPU backend: point lenses against the
 * analytic forms and MulensModel, finite sources against VBMicrolensing,
 * binary lenses against VBMicrolensing and MulensModel (reference values
 * made by tests/reference/microlensing_ref.py), and the checks on bad input. */
#include <fitsio.h>
#include <unistd.h>

#include "ml_point.h" /* the closed forms, header-only SL_HD */
#include "ml_test.h"

static sl_backend cpu(void)
{
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    return be;
}

/* Magnifications of one model at n epochs through the plugin's table. */
static void ml_curve(const slt_ml *p, sl_ml_model m, const double *par, int64_t n,
                     const double *t, double *A)
{
    sl_backend be = cpu();
    sl_ml_batch b = {.model = m, .n_models = 1, .params = par, .n_t = n, .t = t};
    SLT_OK(p->lens->magnification(&be, &b, A));
}

Test(microlensing, registered)
{
    slt_ml p;
    slt_ml_load(&p);
    cr_assert_str_eq(sl_kind_name(SL_KIND_LENS), "lens model");
    cr_assert_str_eq(p.lens->name, "microlensing");
    slt_ml_unload(&p);
}

/* A(u) = (u^2 + 2)/(u sqrt(u^2 + 4)) on the trajectory u^2 = u0^2 + tau^2,
 * written out here independently of the plugin. */
Test(microlensing, pspl_analytic)
{
    slt_ml p;
    slt_ml_load(&p);
    const double par[3] = {7.5, -0.15, 12.0};
    double t[101], A[101];
    for (int j = 0; j < 101; j++)
        t[j] = par[0] + (j - 50) * 0.6;
    ml_curve(&p, SL_ML_PSPL, par, 101, t, A);
    for (int j = 0; j < 101; j++) {
        double tau = (t[j] - par[0]) / par[2];
        double u2 = tau * tau + par[1] * par[1];
        double want = (u2 + 2.0) / sqrt(u2 * (u2 + 4.0));
        cr_assert_lt(slt_rel(A[j], want), 1e-14, "t = %g: A = %.17g, want %.17g", t[j], A[j],
                     want);
        cr_assert_lt(fabs(A[j] - A[100 - j]), 1e-12 * A[j], "the curve is symmetric about t0");
    }
    slt_ml_unload(&p);
}

/* MulensModel's PSPL curve, and a uniform finite-source curve from the
 * reference script's 2-D quadrature (good to ~1e-13). */
Test(microlensing, point_lens_curves_against_mulensmodel)
{
    slt_ml p;
    slt_ml_load(&p);
    double *r;
    int64_t n = slt_ml_csv("pspl_lc.csv", 7, &r); /* model,t0,u0,tE,rho,t,A */
    double worst[2] = {0, 0};
    for (int64_t i = 0; i < n; i++) {
        const double *row = r + 7 * i;
        double A, rho = row[4];
        if (rho > 0.0) {
            double par[5] = {row[1], row[2], row[3], rho, 0.0};
            ml_curve(&p, SL_ML_FSPL, par, 1, &row[5], &A);
        } else {
            double par[3] = {row[1], row[2], row[3]};
            ml_curve(&p, SL_ML_PSPL, par, 1, &row[5], &A);
        }
        int k = rho > 0.0;
        if (slt_rel(A, row[6]) > worst[k])
            worst[k] = slt_rel(A, row[6]);
    }
    cr_log_info("pspl_lc: worst relative difference PSPL %.2e, FSPL %.2e", worst[0], worst[1]);
    cr_assert_lt(worst[0], 1e-13, "PSPL against MulensModel: %.2e", worst[0]);
    cr_assert_lt(worst[1], 1e-11, "uniform FSPL against the quadrature: %.2e", worst[1]);
    free(r);
    slt_ml_unload(&p);
}

/* Uniform and limb-darkened disks against a 2-D quadrature over the source
 * (scipy, good to ~1e-13; VBMicrolensing's ESPLMag2, tabulated, agrees with
 * it to 3e-4) over rho = 1e-4 .. 2 and u/rho = 0 .. 100, every row. The
 * issue asks 1e-4; the bound holds what the methods give, 1e-8. */
Test(microlensing, finite_source_point_lens_against_quadrature)
{
    slt_ml p;
    slt_ml_load(&p);
    double *r;
    int64_t n = slt_ml_csv("point_fs.csv", 4, &r); /* u,rho,a1,A */
    double worst[2] = {0, 0};
    int64_t at[2] = {0, 0};
    for (int64_t i = 0; i < n; i++) {
        const double *row = r + 4 * i;
        /* u on the trajectory of a model with u0 = u at t = t0 */
        double par[5] = {0.0, row[0], 10.0, row[1], row[2]}, t = 0.0, A;
        ml_curve(&p, SL_ML_FSPL, par, 1, &t, &A);
        int k = row[2] > 0.0;
        double e = slt_rel(A, row[3]);
        cr_assert(isfinite(A), "u = %g rho = %g a1 = %g: A = %g", row[0], row[1], row[2], A);
        if (e > worst[k]) {
            worst[k] = e;
            at[k] = i;
        }
    }
    cr_log_info("point_fs: %lld rows; worst uniform %.2e (row %lld), limb-darkened %.2e (row %lld)",
                (long long)n, worst[0], (long long)at[0] + 1, worst[1], (long long)at[1] + 1);
    cr_assert_lt(worst[0], 1e-8, "uniform disk: worst %.2e at u = %g rho = %g", worst[0],
                 r[4 * at[0]], r[4 * at[0] + 1]);
    cr_assert_lt(worst[1], 1e-8, "limb-darkened disk: worst %.2e at u = %g rho = %g a1 = %g",
                 worst[1], r[4 * at[1]], r[4 * at[1] + 1], r[4 * at[1] + 2]);
    free(r);
    slt_ml_unload(&p);
}

/* Binary lens, point source: every row of a reference file (s,q,y1,y2,A,
 * n_images from VBMicrolensing's BinaryMag0) to rel and the same number of
 * images. */
static void binary_file(const slt_ml *p, const char *name, double rel)
{
    double *r;
    int64_t n = slt_ml_csv(name, 6, &r);
    double worst = 0.0;
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        const double *row = r + 6 * i;
        int images;
        double A = p->lens->binary_mag0(row[0], row[1], row[2], row[3], &images);
        cr_assert_eq(images, (int)row[5], "%s: s = %g q = %g y = (%g, %g): %d images, want %d",
                     name, row[0], row[1], row[2], row[3], images, (int)row[5]);
        if (!(slt_rel(A, row[4]) <= worst)) {
            worst = slt_rel(A, row[4]);
            at = i;
        }
    }
    cr_log_info("%s: %lld rows, worst relative difference %.2e (row %lld)", name, (long long)n,
                worst, (long long)at + 1);
    cr_assert_lt(worst, rel, "%s: worst %.2e at s = %g q = %g y = (%g, %g)", name, worst,
                 r[6 * at], r[6 * at + 1], r[6 * at + 2], r[6 * at + 3]);
    free(r);
}

/* The (s, q) grid s = 0.3 .. 3, q = 1e-5 .. 1, sources within 1.5 of the
 * centre, away from caustics. The issue asks 1e-6; the reference itself
 * agrees with MulensModel's solver to 1.1e-10, so the bound is 1e-9. */
Test(microlensing, binary_point_source_against_vbmicrolensing)
{
    slt_ml p;
    slt_ml_load(&p);
    binary_file(&p, "binary_ps.csv", 1e-9);
    slt_ml_unload(&p);
}

/* 4000 random lenses and sources, a quarter of them 1.5 to 50 Einstein
 * radii out (a light curve's baseline), where the polynomial's roots crowd
 * the lenses: an image counted twice there (1e-4 too much) is what this
 * file caught. */
Test(microlensing, binary_random_sources_against_vbmicrolensing)
{
    slt_ml p;
    slt_ml_load(&p);
    binary_file(&p, "binary_random.csv", 1e-9);
    slt_ml_unload(&p);
}

/* MulensModel's binary light curves: the trajectory convention (source
 * positions) and the magnifications through a batch of all four models. */
Test(microlensing, binary_curves_against_mulensmodel)
{
    slt_ml p;
    slt_ml_load(&p);
    double *r;
    /* model,t0,u0,tE,s,q,alpha_deg,t,A,y1,y2 */
    int64_t n = slt_ml_csv("binary_lc.csv", 11, &r);
    double worst_y = 0.0, worst_a = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const double *row = r + 11 * i;
        double par[6] = {row[1], row[2], row[3], row[4], row[5], row[6]}, y1, y2, A;
        p.lens->source_position(par, row[7], &y1, &y2);
        worst_y = fmax(worst_y, fmax(fabs(y1 - row[9]), fabs(y2 - row[10])));
        ml_curve(&p, SL_ML_BINARY_PS, par, 1, &row[7], &A);
        worst_a = fmax(worst_a, slt_rel(A, row[8]));
    }
    cr_log_info("binary_lc: %lld rows; worst |dy| %.2e, worst relative dA %.2e", (long long)n,
                worst_y, worst_a);
    cr_assert_lt(worst_y, 1e-12, "source positions: worst %.2e", worst_y);
    cr_assert_lt(worst_a, 1e-12, "magnifications: worst %.2e", worst_a);
    free(r);
    slt_ml_unload(&p);
}

/* A batch of several models and epochs gives what each model alone gives,
 * in row order: model i at epoch j is A[i n_t + j]. */
Test(microlensing, batch_layout)
{
    slt_ml p;
    slt_ml_load(&p);
    const double par[3][6] = {{0.0, 0.1, 20.0, 1.1, 1e-3, 30.0},
                              {5.0, -0.3, 10.0, 0.7, 0.2, 200.0},
                              {-3.0, 0.05, 50.0, 2.0, 1.0, 90.0}};
    double t[7] = {-30, -10, -1, 0, 2, 9, 40}, A[21], one[7];
    sl_backend be = cpu();
    sl_ml_batch b = {.model = SL_ML_BINARY_PS, .n_models = 3, .params = &par[0][0], .n_t = 7,
                     .t = t};
    SLT_OK(p.lens->magnification(&be, &b, A));
    for (int i = 0; i < 3; i++) {
        ml_curve(&p, SL_ML_BINARY_PS, par[i], 7, t, one);
        for (int j = 0; j < 7; j++)
            cr_assert_eq(A[i * 7 + j], one[j], "model %d epoch %d", i, j);
    }
    slt_ml_unload(&p);
}

/* Physical limits the reference files do not pin: a tiny source is a point
 * source, a limb-darkened source is brighter at the centre than a uniform
 * one when the lens is behind its centre, and a1 = 0 is the uniform disk. */
Test(microlensing, finite_source_limits)
{
    slt_ml p;
    slt_ml_load(&p);
    double t = 0.0, A_ps, A_fs, A_ld, A_u;
    const double ps[3] = {0.0, 0.3, 10.0}, fs[5] = {0.0, 0.3, 10.0, 1e-5, 0.5};
    ml_curve(&p, SL_ML_PSPL, ps, 1, &t, &A_ps);
    ml_curve(&p, SL_ML_FSPL, fs, 1, &t, &A_fs);
    cr_assert_lt(slt_rel(A_fs, A_ps), 1e-9, "rho = 1e-5 at u = 0.3: %.17g vs %.17g", A_fs, A_ps);
    const double ld[5] = {0.0, 0.0, 10.0, 0.1, 0.6}, un[5] = {0.0, 0.0, 10.0, 0.1, 0.0};
    ml_curve(&p, SL_ML_FSPL, ld, 1, &t, &A_ld);
    ml_curve(&p, SL_ML_FSPL, un, 1, &t, &A_u);
    cr_assert_gt(A_ld, A_u, "limb-darkened %.10g, uniform %.10g", A_ld, A_u);
    cr_assert_lt(slt_rel(A_u, sqrt(4.0 + 0.01) / 0.1), 1e-13,
                 "uniform disk centred on the lens: A = sqrt(rho^2 + 4)/rho");
    slt_ml_unload(&p);
}

/* Bad input: a clear message naming the model, the parameter, its value
 * and what was expected, and nothing written to the output. */
static void expect_refused(const slt_ml *p, sl_ml_model m, const double *par, double t,
                           const char *needle)
{
    sl_backend be = cpu();
    double A[2] = {-7.0, -7.0}, ts[2] = {0.0, t};
    sl_ml_batch b = {.model = m, .n_models = 1, .params = par, .n_t = 2, .t = ts};
    sl_status st = p->lens->magnification(&be, &b, A);
    cr_assert_eq(st, SL_ERR_ARG, "%s: status %s", needle, sl_status_name(st));
    cr_assert_not_null(strstr(sl_last_error(), needle), "message '%s' lacks '%s'",
                       sl_last_error(), needle);
    cr_assert(A[0] == -7.0 && A[1] == -7.0, "%s: output written before the check", needle);
}

Test(microlensing, bad_input)
{
    slt_ml p;
    slt_ml_load(&p);
    const double q0[6] = {0, 0.1, 20, 1.0, 0.0, 30}, qn[6] = {0, 0.1, 20, 1.0, -1e-3, 30};
    const double s0[6] = {0, 0.1, 20, 0.0, 1e-3, 30}, te[3] = {0, 0.1, -5};
    const double r0[5] = {0, 0.1, 20, 0.0, 0.0}, a1[5] = {0, 0.1, 20, 0.01, 1.0};
    const double ok[3] = {0, 0.1, 20}, nan_u0[3] = {0, NAN, 20};
    expect_refused(&p, SL_ML_BINARY_PS, q0, 1.0, "model 1 (binary): q = 0: expected a number > 0");
    expect_refused(&p, SL_ML_BINARY_PS, qn, 1.0, "q = -0.001");
    expect_refused(&p, SL_ML_BINARY_PS, s0, 1.0, "s = 0: expected a number > 0");
    expect_refused(&p, SL_ML_PSPL, te, 1.0, "model 1 (pspl): tE = -5");
    expect_refused(&p, SL_ML_FSPL, r0, 1.0, "model 1 (fspl): rho = 0: expected a number > 0");
    expect_refused(&p, SL_ML_FSPL, a1, 1.0, "a1 = 1: expected a linear limb-darkening");
    expect_refused(&p, SL_ML_PSPL, nan_u0, 1.0, "u0 = nan: expected a finite number");
    expect_refused(&p, SL_ML_PSPL, ok, INFINITY, "epoch 2: t = inf: expected a finite time");
    expect_refused(&p, SL_ML_PSPL, ok, NAN, "epoch 2: t = nan");
    sl_backend be = cpu();
    double A, t = 0;
    sl_ml_batch none = {.model = SL_ML_PSPL, .n_models = 0, .params = ok, .n_t = 1, .t = &t};
    cr_assert_eq(p.lens->magnification(&be, &none, &A), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "0 models: expected at least one"));
    slt_ml_unload(&p);
}

/* Caustics of binary lenses against VBMicrolensing's Caustics(s, q): the
 * same number of closed curves (3 close, 1 intermediate, 2 wide, across
 * s = 1/sqrt 2 and 2 for equal masses) and the same bounding box. Both are
 * boxes of sampled points (the reference's 20,000 per critical curve), and
 * a cusp's tip falls between two of ours, at most the resolution (1e-4)
 * from either: that is the bound. */
Test(microlensing, caustics_against_vbmicrolensing)
{
    slt_ml p;
    slt_ml_load(&p);
    double *r;
    int64_t n = slt_ml_csv("caustics_box.csv", 7, &r); /* s,q,n,x_min,x_max,y_min,y_max */
    double worst = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const double *row = r + 7 * i;
        sl_ml_lenses L;
        sl_ml_caustic_set c;
        p.lens->binary_lenses(row[0], row[1], &L);
        SLT_OK(p.lens->caustics(&L, 72, 1e-4, &c));
        cr_assert_eq(c.n_curves, (int)row[2], "s = %g q = %g: %d caustics, want %d", row[0],
                     row[1], c.n_curves, (int)row[2]);
        for (int k = 0; k < 4; k++) {
            double d = fabs(c.box[k] - row[3 + k]);
            worst = fmax(worst, d);
            cr_assert_leq(d, 1e-4, "s = %g q = %g: box[%d] = %.10g, want %.10g", row[0], row[1],
                          k, c.box[k], row[3 + k]);
        }
        for (int k = 0; k < c.n_curves; k++)
            cr_assert_geq(c.curve[k].n, 72, "curve %d has %lld points", k,
                          (long long)c.curve[k].n);
        p.lens->caustics_free(&c);
    }
    cr_log_info("caustics_box: %lld (s, q), worst box difference %.2e", (long long)n, worst);
    free(r);
    slt_ml_unload(&p);
}

/* Every critical point of a triple lens has det J = 0, its caustic point is
 * its image under the lens map, and curves are closed; a source just
 * inside a binary caustic sees five images, just outside three. */
Test(microlensing, caustics_are_critical)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_ml_lenses L = {.n = 3, .x = {-0.4, 0.5, 0.1}, .y = {0.0, 0.1, 0.6}, .m = {0.6, 0.3, 0.1}};
    sl_ml_caustic_set c;
    SLT_OK(p.lens->caustics(&L, 100, 1e-3, &c));
    cr_assert_geq(c.n_curves, 1);
    double worst = 0.0;
    for (int k = 0; k < c.n_curves; k++) {
        const sl_ml_curve *cv = &c.curve[k];
        cr_assert(cv->x[0] == cv->x[cv->n - 1] && cv->cy[0] == cv->cy[cv->n - 1], "closed");
        for (int64_t j = 0; j < cv->n; j++)
            worst = fmax(worst, fabs(p.lens->det_jacobian(&L, cv->x[j], cv->y[j])));
    }
    cr_log_info("triple lens: %d curves, worst |det J| %.1e", c.n_curves, worst);
    cr_assert_lt(worst, 1e-9, "worst |det J| on the critical curves %.2e", worst);
    p.lens->caustics_free(&c);

    /* the equal-mass binary at s = 1: its caustic crosses the positive y
     * axis at y_c (between two off-axis cusps); a source at 0.99 y_c is
     * inside, at 1.01 y_c outside */
    p.lens->binary_lenses(1.0, 1.0, &L);
    SLT_OK(p.lens->caustics(&L, 72, 1e-4, &c));
    double yc = NAN;
    for (int64_t j = 0; j + 1 < c.curve[0].n; j++) {
        const double *x = c.curve[0].cx, *y = c.curve[0].cy;
        if (y[j] > 0 && x[j] * x[j + 1] <= 0.0 && x[j] != x[j + 1])
            yc = y[j] + (y[j + 1] - y[j]) * (0.0 - x[j]) / (x[j + 1] - x[j]);
    }
    cr_assert(isfinite(yc), "no crossing of the y axis");
    int in, out;
    p.lens->binary_mag0(1.0, 1.0, 0.0, 0.99 * yc, &in);
    p.lens->binary_mag0(1.0, 1.0, 0.0, 1.01 * yc, &out);
    cr_assert(in == 5 && out == 3, "y_c = %g: %d images inside, %d outside", yc, in, out);
    p.lens->caustics_free(&c);
    slt_ml_unload(&p);
}

/* Point sources behind three and four lenses against VBMicrolensing's
 * MultiMag0 (multi_ps.csv: five lens sets, sources 2e-3 or more from
 * every caustic point): the magnification to 1e-8 relative; the image
 * count is n + 1 + 2k (Rhie's parity: n_images - (n + 1) is even) and at
 * most 5 (n - 1); with two lenses the triple's formula gives the binary's
 * solver's answer. Measured: see the log line. */
Test(microlensing, multi_lens_against_vbmicrolensing)
{
    slt_ml p;
    slt_ml_load(&p);
    enum { NC = 17 };
    double *r;
    int64_t n = slt_ml_csv("multi_ps.csv", NC, &r);
    cr_assert_gt(n, 2000);
    double worst[2] = {0.0, 0.0};
    int64_t counts[2] = {0, 0};
    for (int64_t i = 0; i < n; i++) {
        const double *row = r + NC * i;
        sl_ml_lenses L = {.n = (int)row[1]};
        for (int k = 0; k < L.n; k++)
            L.x[k] = row[2 + 3 * k], L.y[k] = row[3 + 3 * k], L.m[k] = row[4 + 3 * k];
        double A;
        int m;
        SLT_OK(p.lens->multi_mag0(NULL, &L, 1, &row[14], &row[15], &A, &m));
        const double e = slt_rel(A, row[16]);
        worst[L.n - 3] = fmax(worst[L.n - 3], e);
        counts[L.n - 3]++;
        cr_expect_lt(e, 1e-8, "set %d, source (%.6f, %.6f): %.12g, VBMicrolensing %.12g",
                     (int)row[0], row[14], row[15], A, row[16]);
        cr_expect(m >= L.n + 1 && m <= 5 * (L.n - 1) && (m - L.n - 1) % 2 == 0,
                  "set %d, source (%.6f, %.6f): %d images", (int)row[0], row[14], row[15], m);
    }
    cr_log_info("multi_mag0 against VBMicrolensing MultiMag0: %lld triple-lens sources worst "
                "%.2e, %lld quadruple-lens sources worst %.2e", (long long)counts[0], worst[0],
                (long long)counts[1], worst[1]);
    /* two lenses: the binary's own solver */
    sl_ml_lenses B;
    p.lens->binary_lenses(1.1, 0.01, &B);
    double y1[3] = {0.05, -0.3, 0.9}, y2[3] = {0.02, 0.4, -0.1}, A[3];
    SLT_OK(p.lens->multi_mag0(NULL, &B, 3, y1, y2, A, NULL));
    for (int k = 0; k < 3; k++) {
        double Ab = p.lens->binary_mag0(1.1, 0.01, y1[k], y2[k], NULL);
        cr_expect_lt(slt_rel(A[k], Ab), 1e-10, "binary: %.15g, binary_mag0 %.15g", A[k], Ab);
    }
    /* five lenses, a source not finite */
    sl_ml_lenses five = {.n = 5, .x = {0, 1, 2, 3, 4}, .y = {0}, .m = {0.2, 0.2, 0.2, 0.2, 0.2}};
    cr_assert_eq(p.lens->multi_mag0(NULL, &five, 1, y1, y2, A, NULL), SL_ERR_ARG);
    cr_expect(strstr(sl_last_error(), "5 lenses: expected 1 to 4"), "%s", sl_last_error());
    y1[1] = NAN;
    cr_assert_eq(p.lens->multi_mag0(NULL, &B, 3, y1, y2, A, NULL), SL_ERR_ARG);
    cr_expect(strstr(sl_last_error(), "source 2 at (nan, 0.4)"), "%s", sl_last_error());
    free(r);
    slt_ml_unload(&p);
}

/* The resolution asked is the resolution given: at 1e-5 every two
 * consecutive caustic points of the equal-mass binary at s = 1 are at most
 * 1e-5 apart, which takes more phases than a cap of 64 points + 4096
 * would have allowed; one that cannot be reached within
 * SL_ML_CAUSTIC_SAMPLES is refused, naming it and what was reached. */
Test(microlensing, caustics_honour_their_resolution)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_ml_lenses L;
    p.lens->binary_lenses(1.0, 1.0, &L);
    sl_ml_caustic_set c;
    SLT_OK(p.lens->caustics(&L, 72, 1e-5, &c));
    double worst = 0.0;
    int64_t most = 0;
    for (int k = 0; k < c.n_curves; k++) {
        const sl_ml_curve *cv = &c.curve[k];
        most = cv->n > most ? cv->n : most;
        for (int64_t j = 0; j + 1 < cv->n; j++)
            worst = fmax(worst, hypot(cv->cx[j + 1] - cv->cx[j], cv->cy[j + 1] - cv->cy[j]));
    }
    cr_log_info("caustics at 1e-5: %d curves, up to %lld points, worst step %.2e", c.n_curves,
                (long long)most, worst);
    cr_assert_leq(worst, 1e-5, "worst step %.3e", worst);
    cr_assert_gt(most, 64 * 72 + 4096, "only %lld points", (long long)most);
    p.lens->caustics_free(&c);
    cr_assert_eq(p.lens->caustics(&L, 72, 1e-9, &c), SL_ERR_ARG);
    cr_expect(strstr(sl_last_error(), "resolution = 1e-09: the caustic points are still up to") &&
                  strstr(sl_last_error(), "expected a resolution >="),
              "%s", sl_last_error());
    slt_ml_unload(&p);
}

Test(microlensing, caustics_bad_input)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_ml_caustic_set c;
    sl_ml_lenses same = {.n = 2, .x = {0.1, 0.1}, .y = {0, 0}, .m = {0.5, 0.5}};
    cr_assert_eq(p.lens->caustics(&same, 72, 1e-3, &c), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "lenses 1 and 2 are both at (0.1, 0)"), "%s",
                       sl_last_error());
    sl_ml_lenses light = {.n = 2, .x = {0, 1}, .y = {0, 0}, .m = {1.0, 0.0}};
    cr_assert_eq(p.lens->caustics(&light, 72, 1e-3, &c), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "lens 2 mass 0: expected a number > 0"));
    sl_ml_lenses sum = {.n = 2, .x = {0, 1}, .y = {0, 0}, .m = {0.5, 0.6}};
    cr_assert_eq(p.lens->caustics(&sum, 72, 1e-3, &c), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "masses sum to 1.1"));
    sl_ml_lenses ok;
    p.lens->binary_lenses(1.0, 0.1, &ok);
    cr_assert_eq(p.lens->caustics(&ok, 4, 1e-3, &c), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "points = 4: expected 8 to"));
    cr_assert_eq(p.lens->caustics(&ok, 72, 0.0, &c), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "resolution = 0"));
    slt_ml_unload(&p);
}

/* ---- magnification maps ------------------------------------------------------- */

static sl_ml_map_spec map_spec(int n_lens, double s, double q, double x0, double x1, double y0,
                               double y1, int n, double rays)
{
    sl_ml_map_spec m;
    memset(&m, 0, sizeof m);
    if (n_lens == 1) {
        m.lenses.n = 1;
        m.lenses.m[0] = 1.0;
    } else {
        m.lenses.n = 2;
        m.lenses.m[0] = 1.0 / (1.0 + q);
        m.lenses.m[1] = q / (1.0 + q);
        m.lenses.x[0] = -s * m.lenses.m[1];
        m.lenses.x[1] = s * m.lenses.m[0];
    }
    m.x0 = x0;
    m.x1 = x1;
    m.y0 = y0;
    m.y1 = y1;
    m.nx = m.ny = n;
    m.rays_per_pixel = rays;
    m.seed = 2026;
    return m;
}

/* Pixel p's counts against the point-source magnification A at its centre:
 * unlensed it would catch rays_per_pixel rays, lensed A times that, with
 * Poisson scatter. The pixel's mean differs from its centre's A by
 * ~dx^2/24 of A's Laplacian, 1e-5 of A here against a Poisson error of a
 * few %; pixels where A changes by more than 5 % across the pixel (a
 * caustic) are left out. Returns chi^2 per pixel; *mean_z the
 * mean of the normalised residuals, *used the pixels compared. */
static double map_chi2(const slt_ml *p, const sl_ml_map_spec *m, const sl_ml_map *r,
                       double *mean_z, int64_t *used)
{
    double dx = (m->x1 - m->x0) / m->nx, dy = (m->y1 - m->y0) / m->ny, chi2 = 0.0, zs = 0.0;
    /* the rays a unit magnification puts in a pixel, exactly as shot */
    double unit = (double)r->rays_per_cell * dx * dy / (r->cell * r->cell);
    int64_t n = 0;
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++) {
            double x = m->x0 + (i + 0.5) * dx, y = m->y0 + (j + 0.5) * dy, A, lo = INFINITY,
                   hi = 0.0;
            for (int c = 0; c < 5; c++) {
                double cx = x + (c == 4 ? 0.0 : (c & 1 ? 0.5 : -0.5) * dx);
                double cy = y + (c == 4 ? 0.0 : (c & 2 ? 0.5 : -0.5) * dy);
                if (m->lenses.n == 1) {
                    A = (cx * cx + cy * cy + 2.0) /
                        sqrt((cx * cx + cy * cy) * (cx * cx + cy * cy + 4.0));
                } else {
                    double s = m->lenses.x[1] - m->lenses.x[0],
                           q = m->lenses.m[1] / m->lenses.m[0];
                    A = p->lens->binary_mag0(s, q, cx, cy, NULL);
                }
                lo = fmin(lo, A);
                hi = fmax(hi, A);
            }
            if (hi - lo > 0.05 * A)
                continue;
            double want = A * unit, z = (r->count[j * m->nx + i] - want) / sqrt(want);
            chi2 += z * z;
            zs += z;
            n++;
        }
    *mean_z = zs / (double)n;
    *used = n;
    return chi2 / (double)n;
}

/* A single lens: every pixel's rays against Paczynski's A. Each cell gets
 * exactly rays_per_cell rays (stratified), so a pixel's count scatters
 * less than Poisson's sqrt: chi^2 per pixel (measured 0.61) must not
 * exceed 1 beyond its own scatter, and the residuals must be centred (a
 * wrong normalisation moves the mean by sqrt(count) of its error). */
Test(microlensing, map_single_lens_poisson)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_backend be = cpu();
    sl_ml_map_spec m = map_spec(1, 0, 0, 0.3, 1.3, -0.5, 0.5, 100, 400.0);
    sl_ml_map r;
    SLT_OK(p.lens->map(&be, &m, &r));
    double mz;
    int64_t used;
    double chi2 = map_chi2(&p, &m, &r, &mz, &used);
    cr_log_info("single lens: %lld of %lld pixels, chi2/pixel %.4f, mean z %.4f; %lld of %lld "
                "cells active, %llu rays, lens plane [%g, %g] x [%g, %g] (grown %d)",
                (long long)used, (long long)m.nx * m.ny, chi2, mz, (long long)r.active,
                (long long)r.cells, (unsigned long long)r.rays, r.lens_box[0], r.lens_box[1],
                r.lens_box[2], r.lens_box[3], r.enlarged);
    cr_assert_gt(used, 9000);
    cr_assert_lt(chi2, 1.0 + 5.0 * sqrt(2.0 / (double)used), "chi2/pixel %.4f", chi2);
    cr_assert_lt(fabs(mz), 5.0 / sqrt((double)used), "mean z %.4f", mz);
    p.lens->map_free(&r);
    slt_ml_unload(&p);
}

/* Flux is conserved: a single lens's map of the square [-h, h]^2 centred on
 * the lens, its singular pixel included, holds the flux of the unlensed
 * source times the integral of Paczynski's A over the square, which is
 * 8 int_0^{pi/4} F(h / cos t) dt with F(r) = r sqrt(r^2 + 4) / 2 (the flux
 * inside radius r), by Simpson's rule to 1e-12. The rays are stratified per
 * cell, so the total scatters less than Poisson's sqrt(N). */
Test(microlensing, map_conserves_flux)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_backend be = cpu();
    const double h = 0.5;
    sl_ml_map_spec m = map_spec(1, 0, 0, -h, h, -h, h, 200, 100.0);
    sl_ml_map r;
    SLT_OK(p.lens->map(&be, &m, &r));
    double sum = 0.0, rays = 0.0, px = (2.0 * h / m.nx) * (2.0 * h / m.ny);
    for (int64_t k = 0; k < (int64_t)m.nx * m.ny; k++) {
        sum += r.A[k] * px;
        rays += r.count[k];
    }
    const int n = 20000; /* Simpson, even n */
    double want = 0.0;
    for (int i = 0; i <= n; i++) {
        double t = (M_PI / 4.0) * i / n, x = h / cos(t);
        double w = i == 0 || i == n ? 1.0 : i % 2 ? 4.0 : 2.0;
        want += w * 0.5 * x * sqrt(x * x + 4.0);
    }
    want *= 8.0 * (M_PI / 4.0) / (3.0 * n);
    double rel = sum / want - 1.0, sigma = 1.0 / sqrt(rays);
    cr_log_info("flux in [-%g, %g]^2 around a single lens: map %.6f, integral %.6f (%+.2e, "
                "Poisson %.1e from %.0f rays)", h, h, sum, want, rel, sigma, rays);
    cr_assert_lt(fabs(rel), 5.0 * sigma, "map %.6f, integral %.6f", sum, want);
    p.lens->map_free(&r);
    slt_ml_unload(&p);
}

/* Far from the lenses (20 Einstein radii) the map is 1 within Poisson noise
 * (A - 1 there is 1.2e-5, below the noise of 4e6 rays). */
Test(microlensing, map_far_is_unmagnified)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_backend be = cpu();
    sl_ml_map_spec m = map_spec(2, 1.0, 0.5, 20.0, 21.0, 20.0, 21.0, 200, 100.0);
    sl_ml_map r;
    SLT_OK(p.lens->map(&be, &m, &r));
    double sum = 0.0, rays = 0.0;
    for (int64_t k = 0; k < (int64_t)m.nx * m.ny; k++) {
        sum += r.A[k];
        rays += r.count[k];
    }
    double mean = sum / ((double)m.nx * m.ny), sigma = mean / sqrt(rays);
    cr_log_info("far map: mean A %.6f +- %.6f from %.0f rays", mean, sigma, rays);
    cr_assert_lt(fabs(mean - 1.0), 4.0 * sigma, "mean A %.6f, sigma %.6f", mean, sigma);
    p.lens->map_free(&r);
    slt_ml_unload(&p);
}

/* A planetary binary across its central caustic: pixels away from the
 * caustic against binary_mag0, as for the single lens. */
Test(microlensing, map_binary_against_point_source)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_backend be = cpu();
    sl_ml_map_spec m = map_spec(2, 1.2, 0.01, -0.25, 0.25, -0.25, 0.25, 100, 400.0);
    sl_ml_map r;
    SLT_OK(p.lens->map(&be, &m, &r));
    double mz;
    int64_t used;
    double chi2 = map_chi2(&p, &m, &r, &mz, &used);
    cr_log_info("binary: %lld pixels compared, chi2/pixel %.4f, mean z %.4f, %llu rays in %.3f s",
                (long long)used, chi2, mz, (unsigned long long)r.rays, r.seconds);
    cr_assert_gt(used, 5000);
    cr_assert_lt(chi2, 1.0 + 5.0 * sqrt(2.0 / (double)used), "chi2/pixel %.4f", chi2);
    cr_assert_lt(fabs(mz), 5.0 / sqrt((double)used), "mean z %.4f", mz);
    p.lens->map_free(&r);
    slt_ml_unload(&p);
}

/* Same seed, same map; another seed, another map. */
Test(microlensing, map_reproducible)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_backend be = cpu();
    sl_ml_map_spec m = map_spec(2, 1.0, 0.1, -0.5, 0.5, -0.5, 0.5, 64, 50.0);
    sl_ml_map a, b, c;
    SLT_OK(p.lens->map(&be, &m, &a));
    SLT_OK(p.lens->map(&be, &m, &b));
    m.seed++;
    SLT_OK(p.lens->map(&be, &m, &c));
    cr_assert_eq(memcmp(a.count, b.count, 64 * 64 * sizeof *a.count), 0, "same seed differs");
    cr_assert_neq(memcmp(a.count, c.count, 64 * 64 * sizeof *a.count), 0, "seeds give one map");
    p.lens->map_free(&a);
    p.lens->map_free(&b);
    p.lens->map_free(&c);
    slt_ml_unload(&p);
}

Test(microlensing, map_bad_input)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_backend be = cpu();
    sl_ml_map r;
    sl_ml_map_spec m = map_spec(2, 1.0, 0.1, 0.5, -0.5, -0.5, 0.5, 64, 50.0);
    cr_assert_eq(p.lens->map(&be, &m, &r), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "box x [0.5, -0.5)"), "%s", sl_last_error());
    m = map_spec(2, 1.0, 0.1, -0.5, 0.5, -0.5, 0.5, 0, 50.0);
    cr_assert_eq(p.lens->map(&be, &m, &r), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "0 x 0 pixels"), "%s", sl_last_error());
    m = map_spec(2, 1.0, 0.1, -0.5, 0.5, -0.5, 0.5, 64, 0.0);
    cr_assert_eq(p.lens->map(&be, &m, &r), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "rays_per_pixel = 0"), "%s", sl_last_error());
    m = map_spec(2, 1.0, 0.1, -0.5, 0.5, -0.5, 0.5, 64, 10.0);
    m.lenses.m[1] = -0.1;
    cr_assert_eq(p.lens->map(&be, &m, &r), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "lens 2 mass -0.1"), "%s", sl_last_error());
    /* a lens plane of more cells than the limit: refused before any allocation */
    m = map_spec(2, 1.0, 0.1, -1e-6, 1e-6, -1e-6, 1e-6, 4096, 1.0);
    cr_assert_eq(p.lens->map(&be, &m, &r), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "make the pixels larger"), "%s", sl_last_error());
    slt_ml_unload(&p);
}

/* The map as FITS: the pixels back bit for bit, the parameters in the
 * header, and a path that cannot be written leaves nothing behind. */
Test(microlensing, map_fits)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_backend be = cpu();
    sl_ml_map_spec m = map_spec(2, 1.0, 0.1, -0.5, 0.5, -0.4, 0.4, 40, 20.0);
    sl_ml_map r;
    SLT_OK(p.lens->map(&be, &m, &r));
    char path[256];
    snprintf(path, sizeof path, "/tmp/sl_test_ml_map_%d.fits", (int)getpid());
    remove(path);
    SLT_OK(p.lens->map_write_fits(&r, &m, path, 0));
    fitsfile *f;
    int status = 0, naxis = 0, nlens = 0;
    long naxes[2] = {0, 0};
    long long seed = 0;
    double m2 = 0, cdelt2 = 0;
    fits_open_file(&f, path, READONLY, &status);
    fits_get_img_dim(f, &naxis, &status);
    fits_get_img_size(f, 2, naxes, &status);
    fits_read_key(f, TINT, "NLENS", &nlens, NULL, &status);
    fits_read_key(f, TLONGLONG, "SEED", &seed, NULL, &status);
    fits_read_key(f, TDOUBLE, "LENS2M", &m2, NULL, &status);
    fits_read_key(f, TDOUBLE, "CDELT2", &cdelt2, NULL, &status);
    double *A = malloc(40 * 40 * sizeof *A);
    int any = 0;
    fits_read_img(f, TDOUBLE, 1, 40 * 40, NULL, A, &any, &status);
    fits_close_file(f, &status);
    cr_assert_eq(status, 0, "cfitsio status %d", status);
    cr_assert(naxis == 2 && naxes[0] == 40 && naxes[1] == 40);
    cr_assert(nlens == 2 && seed == 2026 && m2 == m.lenses.m[1] && cdelt2 == 0.8 / 40);
    cr_assert_eq(memcmp(A, r.A, 40 * 40 * sizeof *A), 0, "pixels differ");
    remove(path);
    free(A);
    cr_assert_eq(p.lens->map_write_fits(&r, &m, "/nonexistent-dir/map.fits", 0), SL_ERR_IO);
    cr_assert_not_null(strstr(sl_last_error(), "cannot write '/nonexistent-dir/map.fits': the "
                              "folder '/nonexistent-dir/': No such file or directory"),
                       "%s", sl_last_error());
    p.lens->map_free(&r);
    slt_ml_unload(&p);
}

/* ---- light curves from a map (wip) ------------------------------------------ */

/* A single lens's map read as finite-source light curves against the
 * closed forms (Witt & Mao, and the limb-darkened integral) away from the
 * lens, where the map is smooth: the reader's own error. */
Test(microlensing, tracks_single_lens_against_fspl)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_backend be = cpu();
    sl_ml_map_spec m = map_spec(1, 0, 0, -0.2, 0.2, 0.1, 0.2, 400, 100.0);
    sl_ml_map r;
    SLT_OK(p.lens->map(&be, &m, &r));
    /* alpha = 180: the source at (tau, u0), along y2 = 0.15 from y1 = -0.15 to 0.15 */
    double par[SL_ML_TRACK_NPAR] = {0.0, 0.15, 20.0, 180.0, 0.01}, t[41], A[41];
    for (int j = 0; j < 41; j++)
        t[j] = -3.0 + 0.15 * j;
    double worst = 0.0;
    for (int ld = 0; ld < 2; ld++) {
        sl_ml_tracks tr = {1, par, 41, t, ld ? 0.6 : 0.0, 0.0};
        SLT_OK(p.lens->lightcurves(&be, &r, &tr, A));
        for (int j = 0; j < 41; j++) {
            double tau = t[j] / par[2];
            double want[5] = {0, par[1], 1.0, 0.01, ld ? 0.6 : 0.0}, tt = tau, Aw;
            sl_ml_batch b = {.model = SL_ML_FSPL, .n_models = 1, .params = want, .n_t = 1,
                             .t = &tt};
            SLT_OK(p.lens->magnification(&be, &b, &Aw));
            worst = fmax(worst, fabs(A[j] / Aw - 1.0));
        }
    }
    /* the two-coefficient law against its own closed form (ml_point.h) */
    double worst2 = 0.0;
    sl_ml_tracks tr2 = {1, par, 41, t, 0.3, 0.4};
    SLT_OK(p.lens->lightcurves(&be, &r, &tr2, A));
    for (int j = 0; j < 41; j++) {
        double tau = t[j] / par[2], u = sqrt(tau * tau + par[1] * par[1]);
        worst2 = fmax(worst2, fabs(A[j] / sl_ml_disk_ld2(u, 0.01, 0.3, 0.4) - 1.0));
    }
    cr_log_info("single-lens map 400 x 100 px of 1e-3, rho = 0.01: worst %.2e (linear), %.2e "
                "(l1 = 0.3, l2 = 0.4)", worst, worst2);
    cr_assert_lt(worst, 2e-3, "worst %.2e", worst);
    cr_assert_lt(worst2, 2e-3, "two-coefficient law: worst %.2e", worst2);
    p.lens->map_free(&r);
    slt_ml_unload(&p);
}

/* A source of rho = 2e-3 crossing both folds of a resonant caustic
 * (s = 1.1, q = 0.01), read from a map of pixel rho/10 and 100 rays per
 * pixel, against VBMicrolensing's BinaryMag2 (RelTol 1e-5): the issue asks
 * 0.5 %. On the H100 with 1000 rays per pixel: 0.13 % (uniform), 0.11 %
 * (a1 = 0.5). */
Test(microlensing, tracks_binary_against_vbmicrolensing)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_backend be = cpu();
    sl_ml_map_spec m = map_spec(2, 1.1, 0.01, 0.08, 0.12, -0.08, 0.08, 200, 100.0);
    m.ny = 800;
    sl_ml_map r;
    SLT_OK(p.lens->map(&be, &m, &r));
    double *ref;
    int64_t n = slt_ml_csv("binary_fs_lc.csv", 5, &ref); /* t,y1,y2,A_uniform,A_ld */
    double par[SL_ML_TRACK_NPAR] = {0.0, 0.1, 10.0, 90.0, 2e-3}, worst[2] = {0, 0};
    int64_t used = 0;
    for (int64_t i = 0; i < n; i++) {
        const double *row = ref + 5 * i;
        if (fabs(row[2]) > 0.08 - 2e-3 - 4e-4)
            continue; /* the source within the map */
        for (int ld = 0; ld < 2; ld++) {
            double A;
            sl_ml_tracks tr = {1, par, 1, &row[0], ld ? 0.5 : 0.0, 0.0};
            SLT_OK(p.lens->lightcurves(&be, &r, &tr, &A));
            worst[ld] = fmax(worst[ld], fabs(A / row[3 + ld] - 1.0));
        }
        used++;
    }
    cr_log_info("binary track: %lld epochs, worst uniform %.2e, limb-darkened %.2e",
                (long long)used, worst[0], worst[1]);
    cr_assert_gt(used, 100);
    cr_assert_lt(worst[0], 5e-3, "uniform: %.2e", worst[0]);
    cr_assert_lt(worst[1], 5e-3, "limb-darkened: %.2e", worst[1]);
    free(ref);
    p.lens->map_free(&r);
    slt_ml_unload(&p);
}

/* A map shot in bands of rows (tile_rows, as a map larger than the GPU's
 * memory is) is the same map statistically: every tile's pixels against
 * the untiled map's within their joint Poisson noise, the rays per cell
 * the same, the totals within noise. */
Test(microlensing, map_tiles)
{
    slt_ml p;
    slt_ml_load(&p);
    sl_backend be = cpu();
    sl_ml_map_spec m = map_spec(2, 1.1, 0.01, -0.3, 0.3, -0.3, 0.3, 120, 200.0);
    sl_ml_map whole, tiled;
    SLT_OK(p.lens->map(&be, &m, &whole));
    m.tile_rows = 25; /* 5 tiles, the last of 20 rows */
    SLT_OK(p.lens->map(&be, &m, &tiled));
    cr_assert_eq(tiled.nx, 120);
    cr_assert_eq(tiled.ny, 120);
    cr_assert_eq(tiled.rays_per_cell, whole.rays_per_cell);
    double chi2 = 0.0, sa = 0.0, sb = 0.0;
    int64_t n = 120 * 120;
    for (int64_t k = 0; k < n; k++) {
        double a = whole.count[k], b = tiled.count[k];
        if (a + b > 0)
            chi2 += (a - b) * (a - b) / (a + b);
        sa += whole.A[k], sb += tiled.A[k];
    }
    chi2 /= (double)n;
    cr_log_info("tiled map: chi2/pixel %.3f against the whole map; sum A %.2f vs %.2f; rays %llu "
                "vs %llu", chi2, sb, sa, (unsigned long long)tiled.rays,
                (unsigned long long)whole.rays);
    /* two independent stratified draws: chi2/pixel near 1 or below, far above for a wrong
     * normalisation or a misplaced band (its rows hold 200-fold counts) */
    cr_assert_lt(chi2, 1.2, "chi2/pixel %.3f", chi2);
    cr_assert_lt(fabs(sb / sa - 1.0), 5.0 / sqrt(sa * 200.0), "sum A %.4f vs %.4f", sb, sa);
    m.tile_rows = -1;
    sl_ml_map bad;
    cr_assert_eq(p.lens->map(&be, &m, &bad), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "tile_rows = -1"), "%s", sl_last_error());
    p.lens->map_free(&whole);
    p.lens->map_free(&tiled);
    slt_ml_unload(&p);
}
