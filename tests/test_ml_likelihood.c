/* The microlensing plugin's photometric likelihood: chi^2 and fitted
 * fluxes against MulensModel's Event on a two-band planetary event
 * (tests/reference/microlensing_ref.py, phot_event), against an
 * independent fit in long double, its invariance to the order of the rows,
 * and bad input named by file and line. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "ml_fsbl.h"
#include "ml_orbit.h"
#include "ml_test.h"
#include "starling/likelihood.h"

typedef struct slt_lk {
    sl_registry *reg;
    const sl_likelihood *l;
    void *ctx;
} slt_lk;

/* The plugin's likelihood table and its options (model set), unprepared. */
static void lk_begin(slt_lk *k, const char *model, sl_param_values *pv)
{
    SLT_OK(sl_registry_create(&k->reg));
    SLT_OK(sl_registry_load_default(k->reg));
    const void *t;
    SLT_OK(sl_registry_get(k->reg, SL_KIND_LIKELIHOOD, "microlensing", &t));
    k->l = t;
    k->ctx = NULL;
    SLT_OK(sl_params_init(pv, k->l->params, k->l->n_params));
    SLT_OK(sl_params_set_word(pv, "model", model));
}

static sl_status lk_open(slt_lk *k, const char *model, const sl_data *d)
{
    sl_param_values pv;
    lk_begin(k, model, &pv);
    return k->l->prepare(&pv, d, &k->ctx);
}

static void lk_close(slt_lk *k)
{
    if (k->ctx)
        k->l->release(k->ctx);
    sl_registry_destroy(k->reg);
}

static const char *event_path(void)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/microlensing/phot_event.csv", SL_TEST_DATA_DIR);
    return path;
}

static sl_backend cpu(void)
{
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    return be;
}

/* phot_chi2.csv: model,t0,u0,tE,rho,s,q,alpha,chi2,fs_I,fb_I,fs_V,fb_V;
 * rows cycle through pspl, fspl, binary: MulensModel's Event for the point
 * sources (its binary solver agrees with ours to ~1e-10), the same fit in
 * numpy with the reference script's 1e-13 quadrature for the finite source
 * (MulensModel's own finite-source methods are good to 3e-4 and 1e-6). Measured:
 * 5.5e-12; the bound 1e-7 leaves room for another libm, not for a wrong fit. */
Test(ml_likelihood, against_mulensmodel)
{
    double *ref;
    int64_t n = slt_ml_csv("phot_chi2.csv", 13, &ref);
    cr_assert_eq(n % 3, 0);
    static const char *const kinds[] = {"pspl", "fspl", "binary"};
    sl_backend be = cpu();
    double worst = 0.0, worst_f = 0.0;
    for (int kind = 0; kind < 3; kind++) {
        slt_lk k;
        sl_data d = sl_data_file(event_path());
        SLT_OK(lk_open(&k, kinds[kind], &d));
        size_t np;
        const char *const *names;
        const double *lo, *hi;
        SLT_OK(k.l->free_params(k.ctx, &np, &names, &lo, &hi));
        cr_assert_eq(np, kind == 0 ? 3u : kind == 1 ? 4u : 6u);
        for (int64_t i = kind; i < n; i += 3) {
            const double *r = ref + i * 13;
            double p[6] = {r[1], r[2], r[3], kind == 1 ? r[4] : r[5], r[6], r[7]}, ll, chi2;
            SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p, 1, &ll, &chi2));
            cr_assert_eq(ll, -0.5 * chi2);
            double e = slt_rel(chi2, r[8]);
            cr_assert_lt(e, 1e-7, "%s row %lld: chi2 %.10g, MulensModel %.10g", kinds[kind],
                         (long long)i + 1, chi2, r[8]);
            worst = fmax(worst, e);
            /* the fitted fluxes, from the model curve of each band at two epochs */
            double t[2] = {r[1], r[1] + 40.0}, A[2], F[2];
            SLT_OK(k.l->model(k.ctx, p, t, 2, -1, A));
            for (int b = 0; b < 2; b++) {
                SLT_OK(k.l->model(k.ctx, p, t, 2, b, F));
                double fs = (F[0] - F[1]) / (A[0] - A[1]), fb = F[0] - fs * A[0];
                worst_f = fmax(worst_f, fmax(slt_rel(fs, r[9 + 2 * b]),
                                             fabs(fb - r[10 + 2 * b]) / fabs(r[9 + 2 * b])));
            }
        }
        lk_close(&k);
    }
    cr_log_info("photometric chi2 against MulensModel: %lld models, worst %.2e relative; "
                "fitted fluxes %.2e", (long long)n, worst, worst_f);
    cr_assert_lt(worst_f, 1e-7, "fluxes: worst %.2e", worst_f);
    free(ref);
}

/* A likelihood with annual parallax at the reference's event, its data a
 * flat light curve at full-JD times around t0 (they only set it up). */
static void px_open(slt_lk *k, const char *model, const double *r, const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/px.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "time,mag,err\n");
    for (int i = -10; i <= 10; i++)
        fprintf(f, "%.6f,18.0,0.01\n", r[1] + 3.0 * i);
    fclose(f);
    sl_param_values pv;
    lk_begin(k, model, &pv);
    SLT_OK(sl_params_set_word(&pv, "parallax", "annual"));
    SLT_OK(sl_params_set(&pv, "ra", r[10]));
    SLT_OK(sl_params_set(&pv, "dec", r[11]));
    SLT_OK(sl_params_set(&pv, "t0_par", r[9]));
    sl_data d = sl_data_file(path);
    SLT_OK(k->l->prepare(&pv, &d, &k->ctx));
    unlink(path);
}

/* Annual parallax against MulensModel 3.12 (parallax_lc.csv: two point
 * lenses, t0_par at t0 and 20 days off it, and a binary with a point
 * source, through a year): the model's magnification equals MulensModel's,
 * whose Earth is ERFA's epv00 as ours is. Measured: 3.3e-16 for the point
 * lenses, 7.8e-15 for the binary (its image solver's roundings). */
Test(ml_likelihood, annual_parallax_against_mulensmodel)
{
    double *ref;
    int64_t n = slt_ml_csv("parallax_lc.csv", 14, &ref);
    cr_assert_gt(n, 100);
    char dir[] = "/tmp/sl_ml_px_XXXXXX";
    cr_assert(mkdtemp(dir));
    double worst[2] = {0.0, 0.0}, moved = 0.0;
    for (int64_t i0 = 0; i0 < n;) {
        const double *r = ref + i0 * 14;
        int64_t i1 = i0;
        while (i1 < n && ref[i1 * 14 + 1] == r[1] && ref[i1 * 14 + 2] == r[2])
            i1++;
        const int binary = r[4] > 0.0;
        slt_lk k;
        px_open(&k, binary ? "binary" : "pspl", r, dir);
        size_t np;
        const char *const *names;
        const double *lo, *hi;
        SLT_OK(k.l->free_params(k.ctx, &np, &names, &lo, &hi));
        cr_assert_eq(np, binary ? 8u : 5u);
        cr_assert_str_eq(names[np - 2], "pi_E_N");
        cr_assert_str_eq(names[np - 1], "pi_E_E");
        double p[8] = {r[1], r[2], r[3], r[4], r[5], r[6]}, p0[8];
        p[np - 2] = r[7], p[np - 1] = r[8];
        memcpy(p0, p, sizeof p);
        p0[np - 2] = p0[np - 1] = 0.0;
        for (int64_t i = i0; i < i1; i++) {
            const double t = ref[i * 14 + 12], A_ref = ref[i * 14 + 13];
            double A, A0;
            SLT_OK(k.l->model(k.ctx, p, &t, 1, -1, &A));
            SLT_OK(k.l->model(k.ctx, p0, &t, 1, -1, &A0));
            worst[binary] = fmax(worst[binary], slt_rel(A, A_ref));
            moved = fmax(moved, slt_rel(A0, A_ref));
        }
        lk_close(&k);
        i0 = i1;
    }
    rmdir(dir);
    free(ref);
    cr_log_info("annual parallax against MulensModel: worst %.2e (point lens), %.2e (binary); "
                "without it %.2e off", worst[0], worst[1], moved);
    cr_expect_lt(worst[0], 1e-12, "point lens: worst %.2e", worst[0]);
    cr_expect_lt(worst[1], 1e-10, "binary: worst %.2e", worst[1]);
    cr_expect_gt(moved, 0.01, "parallax moves these curves only %.2e", moved);
}

/* Two point sources behind one lens against MulensModel 3.12's 1L2S
 * (binsrc_lc.csv: get_magnification with source_flux_ratio, without and
 * with annual parallax): the model's magnification equals MulensModel's.
 * With q_flux = 0 the model is the pspl model of the first source, bit for
 * bit; and the second source's own parameters move it. */
Test(ml_likelihood, binary_source_against_mulensmodel)
{
    double *ref;
    int64_t n = slt_ml_csv("binsrc_lc.csv", 13, &ref);
    cr_assert_gt(n, 150);
    char dir[] = "/tmp/sl_ml_bs_XXXXXX", path[512];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/bs.csv", dir);
    double worst[2] = {0.0, 0.0}, pspl_off = 0.0, second = 0.0;
    for (int64_t i0 = 0; i0 < n;) {
        const double *r = ref + i0 * 13;
        int64_t i1 = i0;
        while (i1 < n && !memcmp(ref + i1 * 13, r, 9 * sizeof *r))
            i1++;
        const int px = r[6] != 0.0 || r[7] != 0.0;
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fprintf(f, "time,mag,err\n");
        for (int i = -10; i <= 10; i++)
            fprintf(f, "%.6f,18.0,0.01\n", r[0] + 3.0 * i);
        fclose(f);
        slt_lk k[2];
        for (int j = 0; j < 2; j++) { /* binary_source, and pspl with the same options */
            sl_param_values pv;
            lk_begin(&k[j], j ? "pspl" : "binary_source", &pv);
            if (px) {
                SLT_OK(sl_params_set_word(&pv, "parallax", "annual"));
                SLT_OK(sl_params_set(&pv, "ra", r[9]));
                SLT_OK(sl_params_set(&pv, "dec", r[10]));
                SLT_OK(sl_params_set(&pv, "t0_par", r[8]));
            }
            sl_data d = sl_data_file(path);
            SLT_OK(k[j].l->prepare(&pv, &d, &k[j].ctx));
        }
        size_t np;
        const char *const *names;
        const double *lo, *hi;
        SLT_OK(k[0].l->free_params(k[0].ctx, &np, &names, &lo, &hi));
        cr_assert_eq(np, px ? 8u : 6u);
        static const char *const want[] = {"t0", "u0", "tE", "t0_2", "u0_2", "q_flux"};
        for (int j = 0; j < 6; j++)
            cr_assert_str_eq(names[j], want[j]);
        cr_assert_eq(lo[5], 0.0);
        double p[8] = {r[0], r[1], r[4], r[2], r[3], r[5], r[6], r[7]};
        double p1[5] = {r[0], r[1], r[4], r[6], r[7]}; /* pspl: t0 u0 tE [pi_E] */
        double q0[8], q2[8];
        memcpy(q0, p, sizeof p), memcpy(q2, p, sizeof p);
        q0[5] = 0.0, q2[4] += 0.01;
        if (px)
            p1[3] = r[6], p1[4] = r[7];
        for (int64_t i = i0; i < i1; i++) {
            const double t = ref[i * 13 + 11], A_ref = ref[i * 13 + 12];
            double A, A0, A1, A2;
            SLT_OK(k[0].l->model(k[0].ctx, p, &t, 1, -1, &A));
            SLT_OK(k[0].l->model(k[0].ctx, q0, &t, 1, -1, &A0));
            SLT_OK(k[1].l->model(k[1].ctx, p1, &t, 1, -1, &A1));
            SLT_OK(k[0].l->model(k[0].ctx, q2, &t, 1, -1, &A2));
            worst[px] = fmax(worst[px], slt_rel(A, A_ref));
            pspl_off = fmax(pspl_off, fabs(A0 - A1));
            second = fmax(second, slt_rel(A2, A));
        }
        lk_close(&k[0]);
        lk_close(&k[1]);
        i0 = i1;
    }
    unlink(path);
    rmdir(dir);
    free(ref);
    cr_log_info("binary source against MulensModel: worst %.2e (no parallax), %.2e (annual "
                "parallax); q_flux = 0 against pspl %.2e; u0_2 + 0.01 moves it %.2e", worst[0],
                worst[1], pspl_off, second);
    cr_expect_lt(worst[0], 1e-12, "no parallax: worst %.2e", worst[0]);
    cr_expect_lt(worst[1], 1e-12, "annual parallax: worst %.2e", worst[1]);
    cr_expect_eq(pspl_off, 0.0, "q_flux = 0 differs from pspl by %.2e", pspl_off);
    cr_expect_gt(second, 1e-3, "the second source's u0 moves the curve only %.2e", second);
}

/* binary_source's own refusals, before any work: limb darkening, t_eff,
 * orbital motion; and a negative flux ratio is outside the domain. */
Test(ml_likelihood, binary_source_bad_input)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", event_path());
    sl_data d = sl_data_file(path);
    static const struct {
        const char *key, *word;
        double v;
        const char *says;
    } bad[] = {{"ld", NULL, 0.4, "limb darkening"},
               {"parametrization", "t_eff", 0, "a u0 for each source"},
               {"orbital_motion", "linear", 0, "needs model = \"binary\""}};
    for (size_t j = 0; j < sizeof bad / sizeof *bad; j++) {
        slt_lk k;
        sl_param_values pv;
        lk_begin(&k, "binary_source", &pv);
        if (bad[j].word)
            SLT_OK(sl_params_set_word(&pv, bad[j].key, bad[j].word));
        else
            SLT_OK(sl_params_set(&pv, bad[j].key, bad[j].v));
        cr_expect_neq(k.l->prepare(&pv, &d, &k.ctx), SL_OK, "%s accepted", bad[j].key);
        cr_expect(strstr(sl_last_error(), bad[j].says), "%s: %s", bad[j].key, sl_last_error());
        k.ctx = NULL;
        lk_close(&k);
    }
    slt_lk k;
    SLT_OK(lk_open(&k, "binary_source", &d));
    sl_backend be = cpu();
    double p[2][6] = {{7000.0, 0.1, 20.0, 7003.0, 0.02, 0.5},
                      {7000.0, 0.1, 20.0, 7003.0, 0.02, -0.5}};
    double ll[2];
    SLT_OK(k.l->eval_batch(k.ctx, &be, p[0], 2, ll));
    cr_expect(isfinite(ll[0]), "ln L %g", ll[0]);
    cr_expect(ll[1] == -INFINITY, "q_flux < 0: ln L %g", ll[1]);
    double A, t = 7000.0;
    cr_expect_neq(k.l->model(k.ctx, p[1], &t, 1, -1, &A), SL_OK);
    cr_expect(strstr(sl_last_error(), "q_flux >= 0"), "%s", sl_last_error());
    lk_close(&k);
}

/* Circular xallarap against MulensModel 3.12 (xallarap_lc.csv: a point
 * lens without and with annual parallax, a binary lens with both; t_0_xi
 * = t_0): the model's magnification equals MulensModel's. A semi-major
 * axis of 0 is the model without xallarap, bit for bit. */
Test(ml_likelihood, xallarap_against_mulensmodel)
{
    double *ref;
    enum { W = 19 };
    int64_t n = slt_ml_csv("xallarap_lc.csv", W, &ref);
    cr_assert_gt(n, 150);
    char dir[] = "/tmp/sl_ml_xi_XXXXXX", path[512];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/xi.csv", dir);
    double worst[2] = {0.0, 0.0}, moved = 0.0, zero_off = 0.0;
    for (int64_t i0 = 0; i0 < n;) {
        const double *r = ref + i0 * W;
        int64_t i1 = i0;
        while (i1 < n && !memcmp(ref + i1 * W + 1, r + 1, 16 * sizeof *r))
            i1++;
        const int binary = r[4] > 0.0, px = r[12] != 0.0 || r[13] != 0.0;
        FILE *f = fopen(path, "w");
        cr_assert(f);
        fprintf(f, "time,mag,err\n");
        for (int i = -10; i <= 10; i++)
            fprintf(f, "%.6f,18.0,0.01\n", r[1] + 3.0 * i);
        fclose(f);
        slt_lk k[2];
        for (int j = 0; j < 2; j++) { /* with xallarap, and without */
            sl_param_values pv;
            lk_begin(&k[j], binary ? "binary" : "pspl", &pv);
            if (j == 0)
                SLT_OK(sl_params_set_word(&pv, "xallarap", "circular"));
            if (px) {
                SLT_OK(sl_params_set_word(&pv, "parallax", "annual"));
                SLT_OK(sl_params_set(&pv, "ra", r[15]));
                SLT_OK(sl_params_set(&pv, "dec", r[16]));
                SLT_OK(sl_params_set(&pv, "t0_par", r[14]));
            }
            sl_data d = sl_data_file(path);
            SLT_OK(k[j].l->prepare(&pv, &d, &k[j].ctx));
        }
        size_t np;
        const char *const *names;
        const double *lo, *hi;
        SLT_OK(k[0].l->free_params(k[0].ctx, &np, &names, &lo, &hi));
        const int nm = binary ? 6 : 3, nx = nm + 2 * px;
        cr_assert_eq(np, (size_t)(nx + 5));
        cr_assert_str_eq(names[nx], "xi_period");
        cr_assert_str_eq(names[nx + 4], "xi_argument_of_latitude_reference");
        double p[13], p0[13], q[8];
        for (int j = 0; j < nm; j++)
            p[j] = r[1 + j];
        if (px)
            p[nm] = r[12], p[nm + 1] = r[13];
        for (int j = 0; j < 5; j++)
            p[nx + j] = r[7 + j];
        memcpy(p0, p, sizeof p);
        memcpy(q, p, sizeof q); /* the same without xallarap's five */
        p0[nx + 1] = 0.0;
        for (int64_t i = i0; i < i1; i++) {
            const double t = ref[i * W + 17], A_ref = ref[i * W + 18];
            double A, A0, Aq;
            SLT_OK(k[0].l->model(k[0].ctx, p, &t, 1, -1, &A));
            SLT_OK(k[0].l->model(k[0].ctx, p0, &t, 1, -1, &A0));
            SLT_OK(k[1].l->model(k[1].ctx, q, &t, 1, -1, &Aq));
            worst[binary] = fmax(worst[binary], slt_rel(A, A_ref));
            moved = fmax(moved, slt_rel(Aq, A_ref));
            zero_off = fmax(zero_off, fabs(A0 - Aq));
        }
        lk_close(&k[0]);
        lk_close(&k[1]);
        i0 = i1;
    }
    unlink(path);
    rmdir(dir);
    free(ref);
    cr_log_info("xallarap against MulensModel: worst %.2e (point lens), %.2e (binary); without "
                "it %.2e off; a = 0 against none %.2e", worst[0], worst[1], moved, zero_off);
    cr_expect_lt(worst[0], 1e-12, "point lens: worst %.2e", worst[0]);
    cr_expect_lt(worst[1], 1e-10, "binary: worst %.2e", worst[1]);
    cr_expect_gt(moved, 0.01, "xallarap moves these curves only %.2e", moved);
    cr_expect_eq(zero_off, 0.0, "a = 0 differs from no xallarap by %.2e", zero_off);
}

/* xallarap's refusals and domain: with binary_source refused before any
 * work; a period <= 0 or a semi-major axis < 0 is outside the domain. */
Test(ml_likelihood, xallarap_bad_input)
{
    sl_data d = sl_data_file(event_path());
    slt_lk k;
    sl_param_values pv;
    lk_begin(&k, "binary_source", &pv);
    SLT_OK(sl_params_set_word(&pv, "xallarap", "circular"));
    cr_expect_neq(k.l->prepare(&pv, &d, &k.ctx), SL_OK);
    cr_expect(strstr(sl_last_error(), "xallarap") && strstr(sl_last_error(), "two sources"),
              "%s", sl_last_error());
    k.ctx = NULL;
    lk_close(&k);
    lk_begin(&k, "pspl", &pv);
    SLT_OK(sl_params_set_word(&pv, "xallarap", "circular"));
    SLT_OK(k.l->prepare(&pv, &d, &k.ctx));
    sl_backend be = cpu();
    double p[3][8] = {{7000.0, 0.1, 20.0, 30.0, 0.1, 10.0, 20.0, 30.0},
                      {7000.0, 0.1, 20.0, 0.0, 0.1, 10.0, 20.0, 30.0},
                      {7000.0, 0.1, 20.0, 30.0, -0.1, 10.0, 20.0, 30.0}};
    double ll[3];
    SLT_OK(k.l->eval_batch(k.ctx, &be, p[0], 3, ll));
    cr_expect(isfinite(ll[0]), "ln L %g", ll[0]);
    cr_expect(ll[1] == -INFINITY, "xi_period = 0: ln L %g", ll[1]);
    cr_expect(ll[2] == -INFINITY, "xi_semimajor_axis < 0: ln L %g", ll[2]);
    lk_close(&k);
    /* a binary lens: refused before its image solver sees the path */
    lk_begin(&k, "binary", &pv);
    SLT_OK(sl_params_set_word(&pv, "xallarap", "circular"));
    SLT_OK(k.l->prepare(&pv, &d, &k.ctx));
    double q[11] = {7000.2, 0.05, 25.0, 1.2, 3e-3, 30.0, -11.0, 0.02, 75.0, 135.0, -40.0}, lq, A;
    SLT_OK(k.l->eval_batch(k.ctx, &be, q, 1, &lq));
    cr_expect(lq == -INFINITY, "binary, xi_period < 0: ln L %g", lq);
    const double t = 7000.0;
    cr_expect_neq(k.l->model(k.ctx, q, &t, 1, -1, &A), SL_OK);
    cr_expect(strstr(sl_last_error(), "xallarap's domain"), "%s", sl_last_error());
    lk_close(&k);
}

/* pi_E = (0, 0) is the model without parallax, bit for bit (the shifts
 * add zeros), on the reference event's data made Julian dates by
 * time_offset; and parallax's bad input is named before any work. */
Test(ml_likelihood, parallax_zero_is_no_parallax_and_bad_input)
{
    sl_backend be = cpu();
    static const char *const kinds[] = {"pspl", "binary"};
    for (int kind = 0; kind < 2; kind++) {
        slt_lk k0, k1;
        sl_data d = sl_data_file(event_path());
        SLT_OK(lk_open(&k0, kinds[kind], &d));
        sl_param_values pv;
        lk_begin(&k1, kinds[kind], &pv);
        SLT_OK(sl_params_set_word(&pv, "parallax", "annual"));
        SLT_OK(sl_params_set(&pv, "ra", 269.76));
        SLT_OK(sl_params_set(&pv, "dec", -28.99));
        SLT_OK(sl_params_set(&pv, "time_offset", 2450000.0));
        SLT_OK(k1.l->prepare(&pv, &d, &k1.ctx));
        double p[8] = {7000.2, 0.05, 25.0, 1.2, 3e-3, 30.0}, ll[2], x2[2];
        const int np = kind ? 6 : 3;
        SLT_OK(k0.l->eval_batch_chi2(k0.ctx, &be, p, 1, &ll[0], &x2[0]));
        p[np] = p[np + 1] = 0.0;
        SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, p, 1, &ll[1], &x2[1]));
        cr_expect_eq(x2[0], x2[1], "%s: %.17g without parallax, %.17g with pi_E = 0",
                     kinds[kind], x2[0], x2[1]);
        p[np] = 0.2;
        SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, p, 1, &ll[1], &x2[1]));
        cr_expect_neq(x2[0], x2[1], "%s: pi_E_N = 0.2 changes nothing", kinds[kind]);
        p[np] = NAN;
        SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, p, 1, &ll[1], &x2[1]));
        cr_expect(isinf(x2[1]) && ll[1] < 0, "%s: a NaN parallax: chi2 %g", kinds[kind], x2[1]);
        lk_close(&k0);
        lk_close(&k1);
    }
    /* no coordinates; times that are not Julian dates */
    slt_lk k;
    sl_param_values pv;
    sl_data d = sl_data_file(event_path());
    lk_begin(&k, "pspl", &pv);
    SLT_OK(sl_params_set_word(&pv, "parallax", "annual"));
    cr_assert_neq(k.l->prepare(&pv, &d, &k.ctx), SL_OK);
    cr_expect(strstr(sl_last_error(), "needs the event's coordinates"), "%s", sl_last_error());
    cr_expect(strstr(sl_last_error(), "ra = nan"), "%s", sl_last_error());
    SLT_OK(sl_params_set(&pv, "ra", 269.76));
    SLT_OK(sl_params_set(&pv, "dec", -28.99));
    cr_assert_neq(k.l->prepare(&pv, &d, &k.ctx), SL_OK);
    cr_expect(strstr(sl_last_error(), "t0_par (the brightest point's time, with time_offset) = "
                                      "6997.8") &&
                  strstr(sl_last_error(), "need time_offset = 2450000"),
              "%s", sl_last_error());
    k.ctx = NULL;
    lk_close(&k);
}

/* Writes the reference's Spitzer ephemeris to path with a band column
 * naming `band` (NULL: without one) and returns path. */
static const char *eph_file(const char *path, const char *band)
{
    char src[1024], line[512];
    snprintf(src, sizeof src, "%s/microlensing/spitzer_eph.csv", SL_TEST_DATA_DIR);
    FILE *in = fopen(src, "r"), *out = fopen(path, "w");
    cr_assert(in && out);
    int header = 0;
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#')
            continue;
        line[strcspn(line, "\n")] = '\0';
        if (!band)
            fprintf(out, "%s\n", line);
        else
            fprintf(out, "%s,%s\n", line, header ? band : "band");
        header = 1;
    }
    fclose(in);
    fclose(out);
    return path;
}

/* A likelihood with annual parallax (the reference event's ra, dec, t0_par
 * r[9]) on the data file `data`, with the ephemeris file `eph` (NULL:
 * none) as its data set "ephemeris". */
static sl_status sat_open(slt_lk *k, const char *model, const double *r, const char *data,
                          const char *eph, int px)
{
    sl_param_values pv;
    lk_begin(k, model, &pv);
    SLT_OK(sl_params_set_word(&pv, "phot", "flux"));
    if (px) {
        SLT_OK(sl_params_set_word(&pv, "parallax", "annual"));
        SLT_OK(sl_params_set(&pv, "ra", r[10]));
        SLT_OK(sl_params_set(&pv, "dec", r[11]));
        SLT_OK(sl_params_set(&pv, "t0_par", r[9]));
    }
    sl_data d = sl_data_file(data), e = sl_data_file(eph);
    const sl_data_named more[1] = {{"ephemeris", &e}};
    if (eph)
        d.more = more, d.n_more = 1;
    return k->l->prepare(&pv, &d, &k->ctx);
}

/* Satellite parallax against MulensModel 3.12 (satellite_lc.csv: a point
 * lens and a binary in 2015, seen from the Earth and from Spitzer through
 * MulensModel's own Spitzer ephemeris, spitzer_eph.csv): data made of the
 * reference's magnifications as fluxes, "OGLE" from the Earth and
 * "Spitzer" from the satellite, are fitted by the truth with f_s = 1 and
 * f_b = 0, so the model's flux in each band is its magnification there.
 * Measured: 1.9e-14 from the Earth; 1.9e-8 from Spitzer, which is the two
 * interpolants' difference: the table's RA and Dec are rounded to 0.01 s
 * and 0.1" (~1e-6 AU), and over it our cubic through four rows and
 * MulensModel's spline through all of them differ by up to 8e-8 AU, i.e.
 * ~2e-8 in u at pi_E = 0.3. The bound for Spitzer is 1e-6, 50 times the
 * figure; a satellite offset wrong by one row (a day) gives ~1e-3. The
 * Spitzer band seen from the Earth is far off. */
Test(ml_likelihood, satellite_parallax_against_mulensmodel)
{
    enum { NC = 15 };
    double *ref;
    int64_t n = slt_ml_csv("satellite_lc.csv", NC, &ref);
    cr_assert_gt(n, 200);
    char dir[] = "/tmp/sl_ml_sat_XXXXXX", data[512], eph[512];
    cr_assert(mkdtemp(dir));
    snprintf(data, sizeof data, "%s/ev.csv", dir);
    snprintf(eph, sizeof eph, "%s/eph.csv", dir);
    eph_file(eph, "Spitzer");
    double worst[2] = {0.0, 0.0}, chi2_max = 0.0, chi2_earth = INFINITY;
    int groups = 0;
    for (int64_t i0 = 0; i0 < n;) {
        const double *r = ref + i0 * NC;
        int64_t i1 = i0;
        while (i1 < n && ref[i1 * NC + 1] == r[1])
            i1++;
        const int binary = r[4] > 0.0;
        FILE *f = fopen(data, "w");
        cr_assert(f);
        fprintf(f, "time,flux,err,band\n");
        for (int64_t i = i0; i < i1; i++)
            fprintf(f, "%.17g,%.17g,0.001,%s\n", ref[i * NC + 13], ref[i * NC + 14],
                    ref[i * NC + 12] ? "Spitzer" : "OGLE");
        fclose(f);
        double p[8] = {r[1], r[2], r[3], r[4], r[5], r[6]}, ll, x2;
        const int np = binary ? 6 : 3;
        p[np] = r[7], p[np + 1] = r[8];
        sl_backend be = cpu();
        slt_lk k;
        SLT_OK(sat_open(&k, binary ? "binary" : "pspl", r, data, eph, 1));
        SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p, 1, &ll, &x2));
        chi2_max = fmax(chi2_max, x2);
        for (int64_t i = i0; i < i1; i++) {
            const double t = ref[i * NC + 13];
            const int space = ref[i * NC + 12] != 0.0;
            double F; /* series: the bands in order of first observation, OGLE first */
            SLT_OK(k.l->model(k.ctx, p, &t, 1, space, &F));
            worst[space] = fmax(worst[space], slt_rel(F, ref[i * NC + 14]));
        }
        lk_close(&k);
        SLT_OK(sat_open(&k, binary ? "binary" : "pspl", r, data, NULL, 1));
        SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p, 1, &ll, &x2));
        chi2_earth = fmin(chi2_earth, x2);
        lk_close(&k);
        groups++;
        i0 = i1;
    }
    unlink(data), unlink(eph), rmdir(dir);
    free(ref);
    cr_log_info("satellite parallax against MulensModel: %d events, worst %.2e (Earth), %.2e "
                "(Spitzer); chi2 at the truth %.2e; Spitzer's data seen from the Earth: chi2 "
                ">= %.3g", groups, worst[0], worst[1], chi2_max, chi2_earth);
    cr_assert_eq(groups, 2);
    cr_expect_lt(worst[0], 1e-9, "Earth: worst %.2e", worst[0]);
    cr_expect_lt(worst[1], 1e-6, "Spitzer: worst %.2e", worst[1]);
    cr_expect_lt(chi2_max, 1e-5, "chi2 at the truth %.3g", chi2_max);
    cr_expect_gt(chi2_earth, 100.0, "without the ephemeris chi2 is only %.3g", chi2_earth);
}

/* Satellite parallax's bad input, named before any work: an ephemeris
 * that does not cover the data, one without parallax, a band the data do
 * not have, no band column beside two passbands, a row with a distance of
 * 0, too few rows. */
Test(ml_likelihood, satellite_parallax_bad_input)
{
    double r[12] = {0, 2457200.3, 0.2, 35.0, 0, 0, 0, 0.25, -0.15, 2457200.0, 269.76, -29.07};
    char dir[] = "/tmp/sl_ml_satb_XXXXXX", data[512], eph[512];
    cr_assert(mkdtemp(dir));
    snprintf(data, sizeof data, "%s/ev.csv", dir);
    snprintf(eph, sizeof eph, "%s/eph.csv", dir);
    static const struct {
        double t_sat;
        int px;
        const char *band;
        const char *says;
    } cases[] = {
        {2457600.0, 1, "Spitzer", "(Julian date, with time_offset) is outside the ephemeris of "
                                  "band \"Spitzer\", 2456445.0"},
        {2457210.0, 0, "Spitzer", "needs parallax = \"annual\""},
        {2457210.0, 1, "K2", "band \"K2\" is not among the data's passbands (\"OGLE\", "
                             "\"Spitzer\")"},
        {2457210.0, 1, NULL, "has no band column and the data have 2 passbands"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        FILE *f = fopen(data, "w");
        cr_assert(f);
        fprintf(f, "time,flux,err,band\n");
        for (int i = 0; i < 5; i++)
            fprintf(f, "%.1f,1.0,0.01,OGLE\n%.1f,1.0,0.01,Spitzer\n", 2457190.0 + 5 * i,
                    cases[c].t_sat + i);
        fclose(f);
        eph_file(eph, cases[c].band);
        slt_lk k;
        cr_assert_neq(sat_open(&k, "pspl", r, data, eph, cases[c].px), SL_OK, "case %zu", c);
        cr_expect(strstr(sl_last_error(), cases[c].says), "case %zu: %s", c, sl_last_error());
        k.ctx = NULL;
        lk_close(&k);
    }
    /* a distance of 0, and a table of three rows */
    FILE *f = fopen(eph, "w");
    fprintf(f, "time,ra,dec,distance\n2457200,120,18,1.2\n2457201,121,18,0\n2457202,122,18,1.2"
               "\n");
    fclose(f);
    f = fopen(data, "w");
    fprintf(f, "time,flux,err\n2457200.5,1,0.01\n2457201.5,1,0.01\n");
    fclose(f);
    slt_lk k;
    cr_assert_neq(sat_open(&k, "pspl", r, data, eph, 1), SL_OK);
    cr_expect(strstr(sl_last_error(), "eph.csv:3") && strstr(sl_last_error(), "distance") &&
                  strstr(sl_last_error(), "= 0: expected a distance > 0"),
              "%s", sl_last_error());
    k.ctx = NULL;
    lk_close(&k);
    f = fopen(eph, "w");
    fprintf(f, "time,ra,dec,distance\n2457200,120,18,1.2\n2457201,121,18,1.2\n2457202,122,18,"
               "1.2\n");
    fclose(f);
    cr_assert_neq(sat_open(&k, "pspl", r, data, eph, 1), SL_OK);
    cr_expect(strstr(sl_last_error(), "has 3 rows: expected at least 4"), "%s", sl_last_error());
    k.ctx = NULL;
    lk_close(&k);
    unlink(data), unlink(eph), rmdir(dir);
}

/* A binary likelihood with linear orbital motion (and annual parallax when
 * the row's t0_par is not 0) at orbital_lc.csv's row r, its data a flat
 * curve at full-JD times around t0 (they only set it up); t0_kep is given
 * only where it is not the row's t0, so the default is what runs there. */
static void orbit_open(slt_lk *k, const char *kind, double t0, double t0_kep, double t0_par,
                       double ra, double dec, const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/om.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "time,mag,err\n");
    for (int i = -10; i <= 10; i++)
        fprintf(f, "%.6f,18.0,0.01\n", t0 + 3.0 * i);
    fclose(f);
    sl_param_values pv;
    lk_begin(k, "binary", &pv);
    SLT_OK(sl_params_set_word(&pv, "orbital_motion", kind));
    if (t0_kep != t0)
        SLT_OK(sl_params_set(&pv, "t0_kep", t0_kep));
    if (t0_par != 0.0) {
        SLT_OK(sl_params_set_word(&pv, "parallax", "annual"));
        SLT_OK(sl_params_set(&pv, "ra", ra));
        SLT_OK(sl_params_set(&pv, "dec", dec));
        SLT_OK(sl_params_set(&pv, "t0_par", t0_par));
    }
    sl_data d = sl_data_file(path);
    SLT_OK(k->l->prepare(&pv, &d, &k->ctx));
    unlink(path);
}

static void om_open(slt_lk *k, const double *r, const char *dir)
{
    orbit_open(k, "linear", r[0], r[8], r[11], r[12], r[13], dir);
}

/* The lens's linear orbital motion against MulensModel 3.12
 * (orbital_lc.csv: three binaries with a point source, t0_kep at t0 by
 * default and 15 days off it, one with annual parallax as well): the
 * parameters come after the model's and parallax's, named ds_dt and
 * dalpha_dt, and the magnification equals MulensModel's; with both rates 0
 * it is the static binary's bit for bit. */
Test(ml_likelihood, orbital_motion_against_mulensmodel)
{
    enum { NC = 16 };
    double *ref;
    int64_t n = slt_ml_csv("orbital_lc.csv", NC, &ref);
    cr_assert_gt(n, 200);
    char dir[] = "/tmp/sl_ml_om_XXXXXX";
    cr_assert(mkdtemp(dir));
    double worst = 0.0, moved = 0.0;
    int groups = 0, with_px = 0;
    for (int64_t i0 = 0; i0 < n;) {
        const double *r = ref + i0 * NC;
        int64_t i1 = i0;
        while (i1 < n && ref[i1 * NC + 1] == r[1] && ref[i1 * NC + 3] == r[3])
            i1++;
        const int px = r[11] != 0.0;
        slt_lk k;
        om_open(&k, r, dir);
        size_t np;
        const char *const *names;
        const double *lo, *hi;
        SLT_OK(k.l->free_params(k.ctx, &np, &names, &lo, &hi));
        cr_assert_eq(np, px ? 10u : 8u);
        cr_assert_str_eq(names[np - 2], "ds_dt");
        cr_assert_str_eq(names[np - 1], "dalpha_dt");
        if (px)
            cr_assert_str_eq(names[6], "pi_E_N");
        double p[10] = {r[0], r[1], r[2], r[3], r[4], r[5]}, p0[10];
        if (px)
            p[6] = r[9], p[7] = r[10];
        p[np - 2] = r[6], p[np - 1] = r[7];
        memcpy(p0, p, sizeof p);
        p0[np - 2] = p0[np - 1] = 0.0;
        for (int64_t i = i0; i < i1; i++) {
            const double t = ref[i * NC + 14], A_ref = ref[i * NC + 15];
            double A, A0;
            SLT_OK(k.l->model(k.ctx, p, &t, 1, -1, &A));
            SLT_OK(k.l->model(k.ctx, p0, &t, 1, -1, &A0));
            worst = fmax(worst, slt_rel(A, A_ref));
            moved = fmax(moved, slt_rel(A0, A_ref));
        }
        lk_close(&k);
        groups++, with_px += px;
        i0 = i1;
    }
    rmdir(dir);
    free(ref);
    cr_log_info("linear orbital motion against MulensModel: worst %.2e over %d binaries (%d "
                "with parallax); without it %.2e off", worst, groups, with_px, moved);
    cr_assert_eq(groups, 3);
    cr_assert_eq(with_px, 1);
    cr_expect_lt(worst, 1e-10, "worst %.2e", worst);
    cr_expect_gt(moved, 0.01, "orbital motion moves these curves only %.2e", moved);
}

/* The lens on a Keplerian orbit against MulensModel 3.12 (kepler_lc.csv:
 * two circular orbits through s_z, three ellipses through s_z, ds_z_dt and
 * a_s, t0_kep at t0 and off it, one with annual parallax): the parameters
 * follow the model's and parallax's under MulensModel's names, and the
 * magnifications agree (MulensModel's with dalpha_dt negated: ml_orbit.h
 * says why); they differ from the linear motion's with the same ds_dt and
 * dalpha_dt. Measured: 5.0e-11, where MulensModel's alpha (through orbital
 * elements and the arccos of cos E) is off ours by 3e-11 degrees; the
 * linear motion's 3.0e-14 has no such step. */
Test(ml_likelihood, keplerian_orbit_against_mulensmodel)
{
    enum { NC = 19 };
    double *ref;
    int64_t n = slt_ml_csv("kepler_lc.csv", NC, &ref);
    cr_assert_gt(n, 400);
    char dir[] = "/tmp/sl_ml_kep_XXXXXX";
    cr_assert(mkdtemp(dir));
    double worst = 0.0, off_linear = 1e300;
    int groups = 0, circular = 0, with_px = 0;
    for (int64_t i0 = 0; i0 < n;) {
        const double *r = ref + i0 * NC;
        int64_t i1 = i0;
        while (i1 < n && ref[i1 * NC + 1] == r[1] && ref[i1 * NC + 8] == r[8] &&
               ref[i1 * NC + 10] == r[10])
            i1++;
        const int px = r[14] != 0.0, circ = r[10] == 0.0;
        slt_lk k, kl;
        orbit_open(&k, circ ? "circular" : "keplerian", r[0], r[11], r[14], r[15], r[16], dir);
        orbit_open(&kl, "linear", r[0], r[11], r[14], r[15], r[16], dir);
        size_t np;
        const char *const *names;
        const double *lo, *hi;
        SLT_OK(k.l->free_params(k.ctx, &np, &names, &lo, &hi));
        const size_t no = circ ? 3 : 5, at = px ? 8 : 6;
        cr_assert_eq(np, at + no);
        static const char *const want[] = {"ds_dt", "dalpha_dt", "s_z", "ds_z_dt", "a_s"};
        for (size_t j = 0; j < no; j++)
            cr_assert_str_eq(names[at + j], want[j]);
        double p[13] = {r[0], r[1], r[2], r[3], r[4], r[5]}, pl[10];
        if (px)
            p[6] = r[12], p[7] = r[13];
        p[at] = r[6], p[at + 1] = r[7], p[at + 2] = r[8];
        if (!circ)
            p[at + 3] = r[9], p[at + 4] = r[10];
        memcpy(pl, p, sizeof pl);
        double dev = 0.0;
        for (int64_t i = i0; i < i1; i++) {
            const double t = ref[i * NC + 17], A_ref = ref[i * NC + 18];
            double A, Al;
            SLT_OK(k.l->model(k.ctx, p, &t, 1, -1, &A));
            SLT_OK(kl.l->model(kl.ctx, pl, &t, 1, -1, &Al));
            worst = fmax(worst, slt_rel(A, A_ref));
            dev = fmax(dev, slt_rel(Al, A_ref));
        }
        off_linear = fmin(off_linear, dev);
        lk_close(&k);
        lk_close(&kl);
        groups++, circular += circ, with_px += px;
        i0 = i1;
    }
    rmdir(dir);
    free(ref);
    cr_log_info("Keplerian lens orbits against MulensModel: worst %.2e over %d binaries (%d "
                "circular, %d with parallax); linear motion at least %.2e off", worst, groups,
                circular, with_px, off_linear);
    cr_assert_eq(groups, 5);
    cr_assert_eq(circular, 2);
    cr_assert_eq(with_px, 1);
    cr_expect_lt(worst, 1e-9, "worst %.2e", worst);
    cr_expect_gt(off_linear, 1e-3, "a Keplerian orbit is within %.2e of linear motion",
                 off_linear);
}

/* ml_orbit.h on its own, for orbits of both kinds and both signs of s_z
 * and ds_z_dt: at t0_kep the binary is at s and alpha; its rates there are
 * ds_dt and dalpha_dt (the linear motion's, to first order: central
 * differences over 1e-4 yr); one period later it is back; and parameters
 * with no bound orbit are marked. (MulensModel 3.12's circular orbit with
 * ds_z_dt < 0 misses alpha at t0_kep, so this case is checked here.) */
Test(ml_likelihood, keplerian_orbit_passes_through_s_and_alpha)
{
    const double s = 1.15, alpha = 35.0;
    const double cases[][5] = {{0.6, 40.0, 0.3, 0, 0},    {0.6, 40.0, -0.3, 0, 0},
                               {-0.4, -90.0, 0.5, 0, 0},  {0.6, 40.0, -0.4, 0.5, 1.3},
                               {0.6, 40.0, 0.4, -0.5, 0.8}, {-0.9, -150.0, 0.2, -1.1, 0.8}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const int kind = cases[c][4] == 0 ? SL_ML_ORBIT_CIRCULAR : SL_ML_ORBIT_KEPLERIAN;
        const sl_ml_orbit o = sl_ml_orbit_init(kind, s, cases[c]);
        cr_assert(o.ok && o.n > 0.0, "case %zu", c);
        double s0, a0, sp, ap, sm, am, sP, aP;
        const double h = 1e-4, P = 2.0 * 3.14159265358979323846 / o.n;
        cr_assert(sl_ml_orbit_at(&o, 0.0, s, alpha, &s0, &a0));
        cr_assert(sl_ml_orbit_at(&o, h, s, alpha, &sp, &ap));
        cr_assert(sl_ml_orbit_at(&o, -h, s, alpha, &sm, &am));
        cr_assert(sl_ml_orbit_at(&o, P, s, alpha, &sP, &aP));
        cr_expect(fabs(s0 - s) < 1e-12 && fabs(a0 - alpha) < 1e-10, "case %zu: at t0_kep s "
                  "%.17g, alpha %.17g", c, s0, a0);
        const double ds = (sp - sm) / (2 * h), da = (ap - am) / (2 * h);
        cr_expect(fabs(ds - cases[c][0]) < 1e-5 * fabs(cases[c][0]) &&
                      fabs(da - cases[c][1]) < 1e-5 * fabs(cases[c][1]),
                  "case %zu: rates %.9g, %.9g, given %g, %g", c, ds, da, cases[c][0],
                  cases[c][1]);
        cr_expect(fabs(sP - s) < 1e-9 && fabs(remainder(aP - alpha, 360.0)) < 1e-7,
                  "case %zu: a period (%.4g yr) on: s %.17g, alpha %.17g", c, P, sP, aP);
    }
    const double unbound[] = {0.6, 40.0, 0.3, 0.1, 0.5}, edge_on[] = {0.6, 40.0, 0.0};
    cr_expect(!sl_ml_orbit_init(SL_ML_ORBIT_KEPLERIAN, s, unbound).ok, "a_s = 0.5 is unbound");
    cr_expect(!sl_ml_orbit_init(SL_ML_ORBIT_CIRCULAR, s, edge_on).ok,
              "s_z = 0 with ds_dt != 0 has no circular orbit");
}

/* Rates of 0 are the static binary bit for bit (on the reference event's
 * data), and orbital motion's bad input is named before any work. */
Test(ml_likelihood, orbital_motion_zero_is_static_and_bad_input)
{
    sl_backend be = cpu();
    slt_lk k0, k1;
    sl_data d = sl_data_file(event_path());
    SLT_OK(lk_open(&k0, "binary", &d));
    sl_param_values pv;
    lk_begin(&k1, "binary", &pv);
    SLT_OK(sl_params_set_word(&pv, "orbital_motion", "linear"));
    SLT_OK(k1.l->prepare(&pv, &d, &k1.ctx));
    double p[8] = {7000.2, 0.05, 25.0, 1.2, 3e-3, 30.0, 0.0, 0.0}, ll[2], x2[2];
    SLT_OK(k0.l->eval_batch_chi2(k0.ctx, &be, p, 1, &ll[0], &x2[0]));
    SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, p, 1, &ll[1], &x2[1]));
    cr_expect_eq(x2[0], x2[1], "%.17g static, %.17g with rates 0", x2[0], x2[1]);
    p[7] = 30.0;
    SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, p, 1, &ll[1], &x2[1]));
    cr_expect_neq(x2[0], x2[1], "dalpha_dt = 30 changes nothing");
    p[6] = -1e6; /* s reaches 0 inside the data */
    SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, p, 1, &ll[1], &x2[1]));
    cr_expect(isinf(x2[1]) && ll[1] < 0, "s < 0 within the data: chi2 %g", x2[1]);
    p[6] = NAN;
    SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, p, 1, &ll[1], &x2[1]));
    cr_expect(isinf(x2[1]) && ll[1] < 0, "a NaN ds_dt: chi2 %g", x2[1]);
    lk_close(&k0);
    lk_close(&k1);
    /* a single lens, fsbl's maps, t0_kep alone */
    static const char *const words[] = {"pspl", "fsbl"};
    static const char *const says[] = {"(model = \"pspl\")", "made for one s"};
    for (int w = 0; w < 2; w++) {
        slt_lk k;
        lk_begin(&k, words[w], &pv);
        SLT_OK(sl_params_set_word(&pv, "orbital_motion", "linear"));
        if (w) {
            SLT_OK(sl_params_set(&pv, "s", 1.0));
            SLT_OK(sl_params_set(&pv, "q", 1e-3));
        }
        cr_assert_neq(k.l->prepare(&pv, &d, &k.ctx), SL_OK, "%s took orbital motion", words[w]);
        cr_expect(strstr(sl_last_error(), "needs model = \"binary\"") &&
                      strstr(sl_last_error(), says[w]), "%s", sl_last_error());
        k.ctx = NULL;
        lk_close(&k);
    }
    slt_lk k;
    lk_begin(&k, "binary", &pv);
    SLT_OK(sl_params_set(&pv, "t0_kep", 7000.0));
    cr_assert_neq(k.l->prepare(&pv, &d, &k.ctx), SL_OK);
    cr_expect(strstr(sl_last_error(), "'t0_kep' = 7000: only orbital_motion"), "%s",
              sl_last_error());
    k.ctx = NULL;
    lk_close(&k);
}

/* The parametrisations: t_eff = u0 tE in u0's place and t_star = rho tE
 * in rho's give, bit for bit, the standard model at u0 = t_eff / tE and
 * rho = t_star / tE (the same division the plugin makes); the free
 * parameters carry the new names; t_star <= 0 is outside the domain, a
 * negative t_eff (u0 < 0) is not; t_star without a finite source is
 * refused before any work. */
Test(ml_likelihood, parametrizations_are_the_standard_model)
{
    sl_backend be = cpu();
    sl_data d = sl_data_file(event_path());
    static const struct {
        const char *model, *pset, *names;
    } cases[] = {{"pspl", "t_eff", "t0 t_eff tE"},
                 {"fspl", "t_eff", "t0 t_eff tE rho"},
                 {"fspl", "t_star", "t0 u0 tE t_star"},
                 {"fspl", "t_eff,t_star", "t0 t_eff tE t_star"},
                 {"binary", "t_eff", "t0 t_eff tE s q alpha"}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        slt_lk k0, k1;
        sl_param_values pv;
        SLT_OK(lk_open(&k0, cases[c].model, &d));
        lk_begin(&k1, cases[c].model, &pv);
        SLT_OK(sl_params_set_word(&pv, "parametrization", cases[c].pset));
        SLT_OK(k1.l->prepare(&pv, &d, &k1.ctx));
        size_t np;
        const char *const *names;
        const double *lo, *hi;
        SLT_OK(k1.l->free_params(k1.ctx, &np, &names, &lo, &hi));
        char got[128] = "";
        for (size_t i = 0; i < np; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", names[i]);
        cr_expect_str_eq(got, cases[c].names, "%s, %s", cases[c].model, cases[c].pset);
        const int t_eff = strstr(cases[c].pset, "t_eff") != NULL;
        const int t_star = strstr(cases[c].pset, "t_star") != NULL;
        for (int sign = -1; sign <= 1; sign += 2) {
            double alt[6] = {7000.2, sign * 1.3, 23.0, 0.0, 0.0, 0.0}, std[6];
            if (!strcmp(cases[c].model, "fspl"))
                alt[3] = t_star ? 0.06 : 0.0025;
            if (!strcmp(cases[c].model, "binary"))
                alt[3] = 1.2, alt[4] = 3e-3, alt[5] = 30.0;
            if (!t_eff)
                alt[1] = sign * 0.05;
            memcpy(std, alt, sizeof std);
            if (t_eff)
                std[1] = alt[1] / alt[2];
            if (t_star)
                std[3] = alt[3] / alt[2];
            double ll[2], x2[2];
            SLT_OK(k0.l->eval_batch_chi2(k0.ctx, &be, std, 1, &ll[0], &x2[0]));
            SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, alt, 1, &ll[1], &x2[1]));
            cr_expect(isfinite(x2[0]) && x2[0] == x2[1], "%s, %s, sign %d: standard %.17g, %.17g",
                      cases[c].model, cases[c].pset, sign, x2[0], x2[1]);
            if (t_star) {
                alt[3] = 0.0;
                SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, alt, 1, &ll[1], &x2[1]));
                cr_expect(isinf(x2[1]) && ll[1] < 0, "t_star = 0: chi2 %g", x2[1]);
            }
        }
        lk_close(&k0);
        lk_close(&k1);
    }
    for (int m = 0; m < 2; m++) {
        slt_lk k;
        sl_param_values pv;
        lk_begin(&k, m ? "binary" : "pspl", &pv);
        SLT_OK(sl_params_set_word(&pv, "parametrization", "t_star"));
        cr_assert_neq(k.l->prepare(&pv, &d, &k.ctx), SL_OK);
        cr_expect(strstr(sl_last_error(), "t_star needs a finite source") &&
                      strstr(sl_last_error(), m ? "\"binary\"" : "\"pspl\""),
                  "%s", sl_last_error());
        k.ctx = NULL;
        lk_close(&k);
    }
}

/* fspl's finite-source window (MulensModel's magnification methods per
 * time range): within [fs_from, fs_to] the magnification is fspl's, bit
 * for bit, and outside pspl's at the same t0, u0, tE; a window over the
 * whole data gives fspl's chi^2; a window with another model, half a
 * window and an empty one are refused before any work. */
Test(ml_likelihood, fspl_window)
{
    sl_data d = sl_data_file(event_path());
    slt_lk kw, kf, kp, ka;
    sl_param_values pv;
    lk_begin(&kw, "fspl", &pv);
    SLT_OK(sl_params_set(&pv, "fs_from", 6999.0));
    SLT_OK(sl_params_set(&pv, "fs_to", 7001.5));
    SLT_OK(kw.l->prepare(&pv, &d, &kw.ctx));
    lk_begin(&ka, "fspl", &pv);
    SLT_OK(sl_params_set(&pv, "fs_from", -1e7));
    SLT_OK(sl_params_set(&pv, "fs_to", 1e7));
    SLT_OK(ka.l->prepare(&pv, &d, &ka.ctx));
    SLT_OK(lk_open(&kf, "fspl", &d));
    SLT_OK(lk_open(&kp, "pspl", &d));
    const double p[4] = {7000.2, 0.002, 25.0, 0.004};
    int inside = 0, outside = 0;
    for (int i = 0; i <= 400; i++) {
        const double t = 6990.0 + 0.05 * i;
        double Aw, Af, Ap;
        SLT_OK(kw.l->model(kw.ctx, p, &t, 1, -1, &Aw));
        SLT_OK(kf.l->model(kf.ctx, p, &t, 1, -1, &Af));
        SLT_OK(kp.l->model(kp.ctx, p, &t, 1, -1, &Ap));
        const int in = t >= 6999.0 && t <= 7001.5;
        cr_assert_eq(Aw, in ? Af : Ap, "t = %.2f (%s): %.17g, fspl %.17g, pspl %.17g", t,
                     in ? "inside" : "outside", Aw, Af, Ap);
        inside += in, outside += !in && fabs(Af - Ap) > 1e-9 * Ap;
    }
    cr_assert_gt(inside, 40);
    cr_assert_gt(outside, 10, "the window should matter somewhere outside: %d", outside);
    sl_backend be = cpu();
    double ll[2], x2[2];
    SLT_OK(ka.l->eval_batch_chi2(ka.ctx, &be, p, 1, &ll[0], &x2[0]));
    SLT_OK(kf.l->eval_batch_chi2(kf.ctx, &be, p, 1, &ll[1], &x2[1]));
    cr_expect_eq(x2[0], x2[1], "window over all the data %.17g, none %.17g", x2[0], x2[1]);
    lk_close(&kw), lk_close(&ka), lk_close(&kf), lk_close(&kp);
    static const struct {
        const char *model;
        double from, to;
        const char *want;
    } bad[] = {{"pspl", 1.0, 2.0, "only model = \"fspl\" takes them"},
               {"fspl", 1.0, NAN, "expected both"},
               {"fspl", 2.0, 2.0, "expected fs_from < fs_to"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        slt_lk k;
        lk_begin(&k, bad[i].model, &pv);
        SLT_OK(sl_params_set(&pv, "fs_from", bad[i].from));
        if (!isnan(bad[i].to))
            SLT_OK(sl_params_set(&pv, "fs_to", bad[i].to));
        cr_assert_neq(k.l->prepare(&pv, &d, &k.ctx), SL_OK, "case %zu", i);
        cr_expect(strstr(sl_last_error(), bad[i].want) &&
                      strstr(sl_last_error(), "finite-source window"), "%s", sl_last_error());
        k.ctx = NULL;
        lk_close(&k);
    }
}

/* A likelihood (model binary) on the data file `data` with the passband
 * options `pb` (a file; NULL: none). */
static sl_status pb_open(slt_lk *k, const char *data, const char *pb)
{
    sl_param_values pv;
    lk_begin(k, "binary", &pv);
    sl_data d = sl_data_file(data), e = sl_data_file(pb);
    const sl_data_named more[1] = {{"passbands", &e}};
    if (pb)
        d.more = more, d.n_more = 1;
    return k->l->prepare(&pv, &d, &k->ctx);
}

/* A likelihood of `model` on data (a file) with the passbands table pb
 * (or none) and the option ld. */
static sl_status ld_open(slt_lk *k, const char *model, int dyn, const char *data,
                         const char *pb, double ld)
{
    sl_param_values pv;
    lk_begin(k, model, &pv);
    if (dyn)
        SLT_OK(sl_params_set_word(&pv, "engine", "dynamic"));
    SLT_OK(sl_params_set(&pv, "ld", ld));
    sl_data d = sl_data_file(data), e = sl_data_file(pb);
    const sl_data_named more[1] = {{"passbands", &e}};
    if (pb)
        d.more = more, d.n_more = 1;
    return k->l->prepare(&pv, &d, &k->ctx);
}

/* Limb darkening per passband (the passbands table's `ld`): on the
 * reference event's I and V, fspl and fsbl with the dynamic engine with
 * I at 0.3 and V at 0.7 give the sum of the chi^2 of each band alone with
 * the option ld at its value, bit for bit but for the last addition; V's
 * coefficient changes chi^2 (by 372 and 1.03: few V points near fsbl's
 * caustic); a model without a finite source, fsbl on
 * maps and a coefficient out of range are refused before any work. */
Test(ml_likelihood, passband_limb_darkening)
{
    char dir[] = "/tmp/sl_ml_ld_XXXXXX", band[2][512], pb[512], bad[512];
    cr_assert(mkdtemp(dir));
    snprintf(pb, sizeof pb, "%s/pb.csv", dir);
    snprintf(bad, sizeof bad, "%s/bad.csv", dir);
    FILE *f = fopen(pb, "w");
    fprintf(f, "band,ld\nI,0.3\nV,0.7\n");
    fclose(f);
    const char names[2] = {'I', 'V'};
    for (int b = 0; b < 2; b++) { /* each band alone */
        snprintf(band[b], sizeof band[b], "%s/%c.csv", dir, names[b]);
        FILE *in = fopen(event_path(), "r"), *out = fopen(band[b], "w");
        cr_assert(in && out);
        char line[256];
        int header = 1;
        while (fgets(line, sizeof line, in)) {
            if (line[0] == '#')
                continue;
            if (header || line[strlen(line) - 2] == names[b])
                fputs(line, out);
            header = 0;
        }
        fclose(in);
        fclose(out);
    }
    sl_backend be = cpu();
    /* fspl: the source's edge over the lens near the peak; fsbl: the
     * reference event's binary with a finite source */
    const double pf[4] = {7000.2, 0.01, 25.0, 0.03};
    const double pd[7] = {7000.2, 0.05, 25.0, 1.2, 3e-3, 30.0, 0.01};
    for (int dyn = 0; dyn < 2; dyn++) {
        const char *model = dyn ? "fsbl" : "fspl";
        const double *p = dyn ? pd : pf;
        double ll, both, one[2], flat;
        slt_lk k;
        SLT_OK(ld_open(&k, model, dyn, event_path(), pb, 0.0));
        SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p, 1, &ll, &both));
        lk_close(&k);
        SLT_OK(ld_open(&k, model, dyn, event_path(), NULL, 0.3));
        SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p, 1, &ll, &flat));
        lk_close(&k);
        for (int b = 0; b < 2; b++) {
            SLT_OK(ld_open(&k, model, dyn, band[b], NULL, b ? 0.7 : 0.3));
            SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p, 1, &ll, &one[b]));
            lk_close(&k);
        }
        cr_log_info("%s: per passband chi2 %.10g, bands alone %.10g + %.10g, both at 0.3 %.10g",
                    model, both, one[0], one[1], flat);
        cr_expect_leq(fabs(both - (one[0] + one[1])), 1e-13 * both, "%s: %.17g against %.17g",
                      model, both, one[0] + one[1]);
        cr_expect_gt(fabs(flat - both), 0.1, "%s: V's ld moves chi2 only from %.17g to %.17g",
                     model, flat, both);
    }
    static const struct {
        const char *model, *table, *says;
    } refused[] = {{"pspl", "band,ld\nV,0.5\n", "needs a finite source"},
                   {"fsbl", "band,ld\nV,0.5\n", "one limb darkening"},
                   {"fspl", "band,ld\nV,1.5\n", "in [0, 0.999]"}};
    for (size_t j = 0; j < sizeof refused / sizeof *refused; j++) {
        f = fopen(bad, "w");
        fputs(refused[j].table, f);
        fclose(f);
        slt_lk k;
        sl_param_values pv;
        lk_begin(&k, refused[j].model, &pv);
        if (!strcmp(refused[j].model, "fsbl")) {
            SLT_OK(sl_params_set(&pv, "s", 1.2));
            SLT_OK(sl_params_set(&pv, "q", 3e-3));
        }
        sl_data d = sl_data_file(event_path()), e = sl_data_file(bad);
        const sl_data_named more[1] = {{"passbands", &e}};
        d.more = more, d.n_more = 1;
        cr_expect_neq(k.l->prepare(&pv, &d, &k.ctx), SL_OK, "%s accepted", refused[j].model);
        cr_expect(strstr(sl_last_error(), refused[j].says), "%s: %s", refused[j].model,
                  sl_last_error());
        k.ctx = NULL;
        lk_close(&k);
    }
    unlink(pb), unlink(bad), unlink(band[0]), unlink(band[1]);
    rmdir(dir);
}

/* Per-passband options (the data set "passbands") on the reference event:
 * V's errors rescaled as sqrt((1.7 e)^2 + 0.004^2) give the chi^2 of the
 * same data with those errors written into the file, bit for bit; I's
 * blend held at the free fit's own blend gives the free fit's chi^2, held
 * elsewhere a larger one, and the fitted curve's blend is the one held;
 * chi^2 is the sum of the reported curve's squared residuals; bad options
 * are named before any work. */
Test(ml_likelihood, passband_options)
{
    char dir[] = "/tmp/sl_ml_pb_XXXXXX", data[512], pb[512];
    cr_assert(mkdtemp(dir));
    snprintf(data, sizeof data, "%s/ev.csv", dir);
    snprintf(pb, sizeof pb, "%s/pb.csv", dir);
    double *ev;
    int64_t n = slt_ml_csv("phot_event.csv", 4, &ev); /* band is text: NaN */
    /* the band column, in file order */
    char src[1024], line[256], *bands = malloc((size_t)n);
    snprintf(src, sizeof src, "%s/microlensing/phot_event.csv", SL_TEST_DATA_DIR);
    FILE *in = fopen(src, "r");
    int64_t r = 0;
    int header = 1;
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#')
            continue;
        if (!header) {
            cr_assert_lt(r, n);
            bands[r++] = line[strlen(line) - 2];
        }
        header = 0;
    }
    fclose(in);
    cr_assert_eq(r, n);
    sl_backend be = cpu();
    double p[6] = {7000.2, 0.05, 25.0, 1.2, 3e-3, 30.0}, ll, x2[4];
    /* (a) V's errors rescaled, against the rescaled file */
    FILE *f = fopen(data, "w");
    fprintf(f, "time,mag,err,band\n");
    for (int64_t i = 0; i < n; i++) {
        double e = ev[i * 4 + 2];
        if (bands[i] == 'V')
            e = sqrt(1.7 * e * 1.7 * e + 0.004 * 0.004);
        fprintf(f, "%.17g,%.17g,%.17g,%c\n", ev[i * 4], ev[i * 4 + 1], e, bands[i]);
    }
    fclose(f);
    f = fopen(pb, "w");
    fprintf(f, "band,err_scale,err_min\nV,1.7,0.004\n");
    fclose(f);
    slt_lk k0, k1;
    SLT_OK(pb_open(&k0, data, NULL));
    SLT_OK(pb_open(&k1, event_path(), pb));
    SLT_OK(k0.l->eval_batch_chi2(k0.ctx, &be, p, 1, &ll, &x2[0]));
    SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, p, 1, &ll, &x2[1]));
    cr_expect_eq(x2[0], x2[1], "rescaled in the file %.17g, by the options %.17g", x2[0], x2[1]);
    lk_close(&k0);
    lk_close(&k1);
    /* (b) I's blend held */
    SLT_OK(pb_open(&k0, event_path(), NULL));
    SLT_OK(k0.l->eval_batch_chi2(k0.ctx, &be, p, 1, &ll, &x2[0]));
    double t2[2] = {7000.2, 7040.2}, A[2], F[2];
    SLT_OK(k0.l->model(k0.ctx, p, t2, 2, -1, A));
    SLT_OK(k0.l->model(k0.ctx, p, t2, 2, 0, F)); /* I: the first band */
    const double fs_free = (F[0] - F[1]) / (A[0] - A[1]), fb_free = F[0] - fs_free * A[0];
    lk_close(&k0);
    const double held[2] = {fb_free, fb_free + 0.2 * fabs(fs_free)};
    for (int h = 0; h < 2; h++) {
        f = fopen(pb, "w");
        fprintf(f, "band,blend\nI,%.17g\nV,nan\n", held[h]);
        fclose(f);
        SLT_OK(pb_open(&k1, event_path(), pb));
        SLT_OK(k1.l->eval_batch_chi2(k1.ctx, &be, p, 1, &ll, &x2[1 + h]));
        SLT_OK(k1.l->model(k1.ctx, p, t2, 2, 0, F));
        const double fs = (F[0] - F[1]) / (A[0] - A[1]), fb = F[0] - fs * A[0];
        cr_expect_lt(fabs(fb - held[h]), 1e-9 * fabs(fs_free), "held %.10g, fitted curve's %.10g",
                     held[h], fb);
        /* chi^2 from the reported curves: sum w (F_i - model_b(t_i))^2 */
        long double sum = 0.0L;
        for (int64_t i = 0; i < n; i++) {
            const double t = ev[i * 4], Fi = pow(10.0, 0.4 * (22.0 - ev[i * 4 + 1]));
            const double sF = 0.4 * log(10.0) * Fi * ev[i * 4 + 2];
            double M;
            SLT_OK(k1.l->model(k1.ctx, p, &t, 1, bands[i] == 'V', &M));
            sum += (long double)((Fi - M) * (Fi - M) / (sF * sF));
        }
        cr_expect_lt(slt_rel(x2[1 + h], (double)sum), 1e-9, "chi2 %.12g, from the curves %.12g",
                     x2[1 + h], (double)sum);
        lk_close(&k1);
    }
    cr_log_info("passbands: blend free chi2 %.10g, held at its fit %.10g, held 0.2 f_s off "
                "%.10g", x2[0], x2[1], x2[2]);
    cr_expect_lt(slt_rel(x2[1], x2[0]), 1e-9, "free %.12g, held at its fit %.12g", x2[0], x2[1]);
    cr_expect_gt(x2[2], x2[0] + 1.0, "held off the fit: %.12g, free %.12g", x2[2], x2[0]);
    /* (c) bad options */
    static const char *const bad[][2] = {
        {"band,err_scale\nR,2\n", "passbands: \"R\" is not among the data's passbands "
                                   "(\"I\", \"V\")"},
        {"band,err_scale\nI,0\n", "(err_scale) = 0: expected a factor > 0"},
        {"band,err_min\nV,-1\n", "(err_min) = -1: expected an error >= 0"},
        {"band,blend\nI,1\nI,2\n", "= \"I\": named twice"},
        {"band,blend\nI,inf\n", "(blend) = inf: expected a flux, or nan to fit it"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof *bad; c++) {
        f = fopen(pb, "w");
        fputs(bad[c][0], f);
        fclose(f);
        cr_assert_neq(pb_open(&k1, event_path(), pb), SL_OK, "case %zu", c);
        cr_expect(strstr(sl_last_error(), bad[c][1]), "case %zu: %s", c, sl_last_error());
        k1.ctx = NULL;
        lk_close(&k1);
    }
    unlink(data), unlink(pb), rmdir(dir);
    free(bands);
    free(ev);
}

/* Columns in memory (random photometry in three bands, fluxes) against a
 * plain fit: the 2 x 2 normal equations in long double, chi^2 summed
 * directly from the residuals. */
Test(ml_likelihood, against_direct_fit)
{
    enum { N = 300 };
    double t[N], f[N], e[N];
    const char *band[N];
    static const char *const names[] = {"K", "I", "V"};
    uint64_t s = 5;
    for (int i = 0; i < N; i++) {
        double r[3];
        for (int q = 0; q < 3; q++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            r[q] = (double)(s >> 11) / 9007199254740992.0;
        }
        t[i] = -60.0 + 120.0 * r[0];
        band[i] = names[i % 3];
        double tau = (t[i] - 1.0) / 15.0, u2 = tau * tau + 0.09;
        double A = (u2 + 2.0) / sqrt(u2 * (u2 + 4.0));
        e[i] = 0.05 + 0.1 * r[1];
        f[i] = (2.0 + i % 3) * A + 0.5 + e[i] * (r[2] - 0.5) * 3.0;
    }
    sl_data_column cols[4] = {{"t", t, NULL}, {"flux", f, NULL}, {"err", e, NULL},
                              {"band", NULL, band}};
    sl_data d = {NULL, N, cols, 4, "columns", NULL, 0, NULL, 0};
    slt_lk k;
    SLT_OK(lk_open(&k, "pspl", &d));
    sl_backend be = cpu();
    double p[4][3] = {{1.0, 0.3, 15.0}, {3.0, -0.1, 9.0}, {-20.0, 1.5, 40.0}, {0.5, 0.01, 3.0}};
    double ll[4], chi2[4];
    SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, &p[0][0], 4, ll, chi2));
    for (int m = 0; m < 4; m++) {
        long double want = 0.0L;
        for (int b = 0; b < 3; b++) {
            long double S = 0, SA = 0, SAA = 0, SF = 0, SAF = 0;
            for (int i = b; i < N; i += 3) {
                double tau = (t[i] - p[m][0]) / p[m][2], u2 = tau * tau + p[m][1] * p[m][1];
                long double A = (u2 + 2.0) / sqrt(u2 * (u2 + 4.0)), w = 1.0L / (e[i] * e[i]);
                S += w, SA += w * A, SAA += w * A * A, SF += w * f[i], SAF += w * A * f[i];
            }
            long double D = S * SAA - SA * SA, fs = (S * SAF - SA * SF) / D,
                        fb = (SAA * SF - SA * SAF) / D;
            for (int i = b; i < N; i += 3) {
                double tau = (t[i] - p[m][0]) / p[m][2], u2 = tau * tau + p[m][1] * p[m][1];
                long double A = (u2 + 2.0) / sqrt(u2 * (u2 + 4.0));
                long double r = (f[i] - fs * A - fb) / e[i];
                want += r * r;
            }
        }
        cr_log_info("model %d: chi2 %.12g, direct %.12Lg", m, chi2[m], want);
        cr_assert_lt(fabs(chi2[m] - (double)want) / (double)want, 1e-10, "model %d: %.15g vs "
                     "%.15Lg", m, chi2[m], want);
    }
    lk_close(&k);
}

/* The same observations in another order give the same values, bit for
 * bit: the rows are grouped and sorted at prepare. */
Test(ml_likelihood, row_order)
{
    double *ev;
    int64_t n = slt_ml_csv("phot_event.csv", 4, &ev); /* band is text: NaN */
    double *t = malloc(n * sizeof *t), *m = malloc(n * sizeof *m), *e = malloc(n * sizeof *e);
    const char **band = malloc(n * sizeof *band);
    /* the bands from the file itself (the CSV helper reads numbers only) */
    FILE *f = fopen(event_path(), "r");
    char line[256];
    int64_t r = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#' && strncmp(line, "time", 4))
            band[r++] = strstr(line, ",I") ? "I" : "V";
    fclose(f);
    cr_assert_eq(r, n);
    for (int64_t i = 0; i < n; i++) { /* reversed */
        int64_t j = n - 1 - i;
        t[i] = ev[j * 4], m[i] = ev[j * 4 + 1], e[i] = ev[j * 4 + 2];
    }
    for (int64_t i = 0; i < n / 2; i++) {
        const char *x = band[i];
        band[i] = band[n - 1 - i], band[n - 1 - i] = x;
    }
    sl_data_column cols[4] = {{"time", t, NULL}, {"mag", m, NULL}, {"err", e, NULL},
                              {"band", NULL, band}};
    sl_data dm = {NULL, (size_t)n, cols, 4, "reversed", NULL, 0, NULL, 0};
    sl_data df = sl_data_file(event_path());
    slt_lk a, b;
    SLT_OK(lk_open(&a, "binary", &df));
    SLT_OK(lk_open(&b, "binary", &dm));
    double p[2][6] = {{7000.0, 0.05, 25.0, 1.2, 3e-3, 30.0}, {7000.3, 0.06, 22.0, 0.9, 1e-2, 200.0}};
    double la[2], lb[2];
    sl_backend be = cpu();
    SLT_OK(a.l->eval_batch(a.ctx, &be, &p[0][0], 2, la));
    SLT_OK(b.l->eval_batch(b.ctx, &be, &p[0][0], 2, lb));
    cr_assert(!memcmp(la, lb, sizeof la), "file order %.17g %.17g, reversed %.17g %.17g", la[0],
              la[1], lb[0], lb[1]);
    lk_close(&a);
    lk_close(&b);
    free(t), free(m), free(e), free(band), free(ev);
}

/* Outside the domain is ln L = -inf, not an error (a sampler proposes
 * freely); NaN parameters too. */
Test(ml_likelihood, outside_domain)
{
    sl_data d = sl_data_file(event_path());
    slt_lk k;
    SLT_OK(lk_open(&k, "binary", &d));
    double p[5][6] = {{7000, 0.05, 25, 1.2, 0.0, 30},  {7000, 0.05, 25, 0.0, 3e-3, 30},
                      {7000, 0.05, -1, 1.2, 3e-3, 30}, {7000, NAN, 25, 1.2, 3e-3, 30},
                      {7000, 0.05, 25, 1.2, -1e-3, 30}};
    double ll[5], chi2[5];
    sl_backend be = cpu();
    SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, &p[0][0], 5, ll, chi2));
    for (int i = 0; i < 5; i++) {
        cr_assert(isinf(ll[i]) && ll[i] < 0, "vector %d: ln L = %g", i, ll[i]);
        cr_assert(isinf(chi2[i]) && chi2[i] > 0, "vector %d: chi2 = %g", i, chi2[i]);
    }
    double A;
    cr_assert_eq(k.l->model(k.ctx, p[0], p[0], 1, -1, &A), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "q = 0"), "%s", sl_last_error());
    lk_close(&k);
}

/* A file with `body` in a temporary folder; prepare must fail and its
 * message hold every string of want. */
static void refuses(const char *model, const char *body, const char *const *want)
{
    char dir[] = "/tmp/slt_mlXXXXXX", path[256];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/phot.txt", dir);
    FILE *f = fopen(path, "w");
    fputs(body, f);
    fclose(f);
    sl_data d = sl_data_file(path);
    slt_lk k;
    sl_status st = lk_open(&k, model, &d);
    const char *msg = sl_last_error();
    cr_assert_neq(st, SL_OK, "accepted:\n%s", body);
    cr_assert_null(k.ctx);
    for (; *want; want++)
        cr_assert_not_null(strstr(msg, *want), "message \"%s\" lacks \"%s\"", msg, *want);
    cr_log_info("refused: %s", msg);
    lk_close(&k);
    unlink(path);
    rmdir(dir);
}

Test(ml_likelihood, bad_input)
{
    refuses("pspl", "time mag err\n1 18 0.01\n2 18 0\n3 18 0.01\n",
            (const char *const[]){"phot.txt:3", "0", "error > 0", NULL});
    refuses("pspl", "time mag err\n1 18 0.01\nnan 18 0.01\n3 18 0.01\n",
            (const char *const[]){"phot.txt:3", "nan", NULL});
    refuses("pspl", "time,mag,err,band\n1,18,0.01,I\n2,18,0.01,I\n3,19,0.02,V\n",
            (const char *const[]){"phot.txt:4", "passband \"V\" has 1 observation", NULL});
    refuses("pspl", "time,mag,flux,err\n1,18,3,0.01\n2,18,3,0.01\n",
            (const char *const[]){"both", "phot = \"mag\" or \"flux\"", NULL});
    refuses("pspl", "time,value,err\n1,18,0.01\n2,18,0.01\n",
            (const char *const[]){"neither", NULL});
    refuses("pspl", "time,mag,err,band\n1,18,0.01,\n2,18,0.01,\n",
            (const char *const[]){"phot.txt:2", "passband name", NULL});
    refuses("pspl", "# only a comment\n", (const char *const[]){"phot.txt", NULL});
}

Test(ml_likelihood, limb_darkening_needs_fspl)
{
    slt_lk k;
    sl_param_values pv;
    lk_begin(&k, "pspl", &pv); /* the default model */
    SLT_OK(sl_params_set(&pv, "ld", 0.5));
    sl_data d = sl_data_file(event_path());
    cr_assert_eq(k.l->prepare(&pv, &d, &k.ctx), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "'ld' = 0.5"), "%s", sl_last_error());
    lk_close(&k);
}

/* ---- fsbl: the finite-source binary read from maps ---------------------------------- */

/* fsbl_lc.csv: t,y1,y2,A_uniform,A_ld,d_caustic (VBMicrolensing BinaryMag2,
 * s = 1.1, q = 0.01, rho = 2e-3; u0 = 0.05, tE = 10, alpha = 60). */
enum { FS_COLS = 6 };
static const double fs_par[5] = {0.0, 0.05, 10.0, 60.0, 2e-3}; /* t0 u0 tE alpha rho */

/* The hexadecapole alone, 10 to 30 source radii from the caustic, where
 * the likelihood uses it (ml_fsbl.h): against BinaryMag2, both profiles.
 * Measured 2.5e-6 (uniform), 2.6e-6 (a1 = 0.5). */
Test(ml_likelihood, fsbl_hexadecapole)
{
    double *ref;
    int64_t n = slt_ml_csv("fsbl_lc.csv", FS_COLS, &ref);
    double worst[2] = {0.0, 0.0}, rho = fs_par[4];
    int used = 0;
    for (int64_t i = 0; i < n; i++) {
        const double *r = ref + FS_COLS * i;
        if (r[5] < 10.0 * rho || r[5] > 30.0 * rho)
            continue;
        for (int ld = 0; ld < 2; ld++) {
            sl_ml_fsbl f = {.s = 1.1, .q = 0.01, .l1 = ld ? 0.5 : 0.0};
            sl_ml_fsbl_moments(f.l1, &f.w2, &f.w4);
            double A = sl_ml_fsbl_hexadecapole(&f, r[1], r[2], rho);
            worst[ld] = fmax(worst[ld], fabs(A / r[3 + ld] - 1.0));
        }
        used++;
    }
    cr_log_info("hexadecapole, %d epochs 10-30 rho from the caustic: worst %.2e uniform, "
                "%.2e limb-darkened", used, worst[0], worst[1]);
    cr_assert_geq(used, 10);
    cr_assert_lt(worst[0], 1e-4, "uniform %.2e", worst[0]);
    cr_assert_lt(worst[1], 1e-4, "limb-darkened %.2e", worst[1]);
    free(ref);
}

static sl_status fsbl_open(slt_lk *k, double ld, const char *extra, double extra_v)
{
    sl_param_values pv;
    lk_begin(k, "fsbl", &pv);
    SLT_OK(sl_params_set(&pv, "s", 1.1));
    SLT_OK(sl_params_set(&pv, "q", 0.01));
    SLT_OK(sl_params_set(&pv, "rho_min", 1e-3));
    SLT_OK(sl_params_set(&pv, "rho_max", 3e-3));
    SLT_OK(sl_params_set(&pv, "rays", 100.0));
    SLT_OK(sl_params_set(&pv, "ld", ld));
    if (extra)
        SLT_OK(sl_params_set(&pv, extra, extra_v));
    sl_data d = sl_data_file(event_path());
    return k->l->prepare(&pv, &d, &k->ctx);
}

/* The model end to end (maps of 100 rays a pixel reaching 10 rho_max past
 * the caustics; the hexadecapole and the point source beyond): against
 * BinaryMag2 along a trajectory through the caustic and 1.3 Einstein radii
 * out, both profiles. The issue asks 0.5 % across a caustic crossing;
 * outside the maps (the box test below repeats ml_fsbl.h's rule) 1e-4.
 * Pixels of rho_min / 5 = rho / 10. Measured: uniform 2.4e-3 near, 4.5e-6
 * outside; a1 = 0.5 with 50 rays a pixel 2.0e-3 near, 4.5e-6 outside.
 * The timeout is ctest's (600 s): under ASan + UBSan on CI's two cores,
 * beside test_lua, the maps took past 300 s once (58b8cf4's CI run). */
Test(ml_likelihood, fsbl_against_vbmicrolensing, .timeout = 600)
{
    double *ref;
    int64_t n = slt_ml_csv("fsbl_lc.csv", FS_COLS, &ref);
    double *t = malloc((size_t)n * sizeof *t), *A = malloc((size_t)n * sizeof *A);
    for (int64_t i = 0; i < n; i++)
        t[i] = ref[FS_COLS * i];
    /* the caustic's box, as the likelihood finds it */
    slt_ml p;
    slt_ml_load(&p);
    sl_ml_lenses L;
    p.lens->binary_lenses(1.1, 0.01, &L);
    sl_ml_caustic_set cs;
    SLT_OK(p.lens->caustics(&L, 256, 2e-4, &cs));
    cr_assert_eq(cs.n_curves, 1, "a resonant caustic: %d curves", cs.n_curves);
    double box[4];
    memcpy(box, cs.curve[0].box, sizeof box);
    p.lens->caustics_free(&cs);
    slt_ml_unload(&p);
    double reach = 10.0 * 3e-3 + 3e-3 + 2.0 * 2e-4;
    for (int ld = 0; ld < 2; ld++) {
        slt_lk k;
        /* the limb-darkened source with half the rays (CI's two cores) */
        SLT_OK(fsbl_open(&k, ld ? 0.5 : 0.0, ld ? "rays" : NULL, 50.0));
        SLT_OK(k.l->model(k.ctx, fs_par, t, (size_t)n, -1, A));
        double near = 0.0, far = 0.0;
        int n_near = 0, n_far = 0;
        for (int64_t i = 0; i < n; i++) {
            const double *r = ref + FS_COLS * i;
            double e = fabs(A[i] / r[3 + ld] - 1.0);
            double dx = fmax(fmax(box[0] - r[1], r[1] - box[1]), 0.0);
            double dy = fmax(fmax(box[2] - r[2], r[2] - box[3]), 0.0);
            if (hypot(dx, dy) > reach + 2e-3)
                far = fmax(far, e), n_far++;
            else
                near = fmax(near, e), n_near++;
        }
        cr_log_info("fsbl %s: %d epochs by the maps' caustic, worst %.2e; %d outside them, "
                    "worst %.2e", ld ? "a1 = 0.5" : "uniform", n_near, near, n_far, far);
        cr_assert_gt(n_near, 150);
        cr_assert_gt(n_far, 150);
        cr_assert_lt(near, 5e-3, "near the caustic: %.2e", near);
        cr_assert_lt(far, 1e-4, "outside the maps: %.2e", far);
        lk_close(&k);
    }
    free(t), free(A), free(ref);
}

/* fsbl's parameters, its domain (rho within the maps' [rho_min, rho_max])
 * and its options refused where they do not belong or cannot work. */
Test(ml_likelihood, fsbl_options)
{
    slt_lk k;
    SLT_OK(fsbl_open(&k, 0.0, "pixel", 1e-3)); /* coarse: quick */
    size_t np;
    const char *const *names;
    const double *lo, *hi;
    SLT_OK(k.l->free_params(k.ctx, &np, &names, &lo, &hi));
    cr_assert_eq(np, 5);
    const char *want[] = {"t0", "u0", "tE", "alpha", "rho"};
    for (int i = 0; i < 5; i++)
        cr_assert_str_eq(names[i], want[i]);
    cr_assert_eq(lo[4], 1e-3);
    cr_assert_eq(hi[4], 3e-3);
    double pv[3][5] = {{7000, 0.05, 25, 30, 2e-3}, {7000, 0.05, 25, 30, 5e-4},
                       {7000, 0.05, 25, 30, 4e-3}};
    double ll[3];
    sl_backend be = cpu();
    SLT_OK(k.l->eval_batch(k.ctx, &be, &pv[0][0], 3, ll));
    cr_assert(isfinite(ll[0]), "%g", ll[0]);
    cr_assert(isinf(ll[1]) && isinf(ll[2]), "rho outside [rho_min, rho_max]: %g %g", ll[1],
              ll[2]);
    lk_close(&k);
    /* s and q are needed, belong to fsbl only, and a map that cannot be made is refused */
    sl_registry *reg;
    SLT_OK(sl_registry_create(&reg));
    SLT_OK(sl_registry_load_default(reg));
    const void *tab;
    SLT_OK(sl_registry_get(reg, SL_KIND_LIKELIHOOD, "microlensing", &tab));
    const sl_likelihood *l = tab;
    sl_data d = sl_data_file(event_path());
    struct {
        const char *model, *key;
        double v;
        const char *want;
    } bad[] = {{"fsbl", "s", 1.1, "'q' is missing"},
               {"binary", "q", 0.01, "only model = \"fsbl\""},
               {"fsbl", "rho_max", 1e-4, "rho_min <= rho_max"},
               {"fsbl", "pixel", 1e-6, "65536 a side"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sl_param_values pv2;
        SLT_OK(sl_params_init(&pv2, l->params, l->n_params));
        SLT_OK(sl_params_set_word(&pv2, "model", bad[i].model));
        SLT_OK(sl_params_set(&pv2, bad[i].key, bad[i].v));
        if (strcmp(bad[i].key, "s") != 0 && !strcmp(bad[i].model, "fsbl")) {
            SLT_OK(sl_params_set(&pv2, "s", 1.1));
            SLT_OK(sl_params_set(&pv2, "q", 0.01));
        }
        void *ctx = NULL;
        cr_assert_eq(l->prepare(&pv2, &d, &ctx), SL_ERR_ARG, "case %zu accepted", i);
        cr_assert_null(ctx);
        cr_assert_not_null(strstr(sl_last_error(), bad[i].want), "case %zu: %s", i,
                           sl_last_error());
    }
    sl_param_values pq;
    SLT_OK(sl_params_init(&pq, l->params, l->n_params));
    cr_assert_eq(sl_params_set(&pq, "q", 0.0), SL_ERR_ARG, "q = 0 accepted");
    cr_assert_eq(sl_params_set(&pq, "s", -1.0), SL_ERR_ARG, "s = -1 accepted");
    sl_registry_destroy(reg);
}

/* chi^2 of the truth on fsbl_event.csv (a rho = 0.02 source across the
 * caustic, 1 % photometry) against the reference script's with
 * BinaryMag2's magnifications: the maps' 0.1-0.3 % error moves it by a few
 * units of chi^2 at most (measured: 123.70 against 124.12; 2 allowed). */
Test(ml_likelihood, fsbl_chi2_at_truth, .timeout = 300)
{
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s/microlensing/fsbl_event.csv", SL_TEST_DATA_DIR);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    double ref = NAN;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "# chi2_truth = %lf", &ref) == 1)
            break;
    fclose(f);
    cr_assert(isfinite(ref), "no chi2_truth in %s", path);
    slt_lk k;
    sl_param_values pv;
    lk_begin(&k, "fsbl", &pv);
    SLT_OK(sl_params_set(&pv, "s", 1.1));
    SLT_OK(sl_params_set(&pv, "q", 0.01));
    SLT_OK(sl_params_set(&pv, "rho_min", 0.01));
    SLT_OK(sl_params_set(&pv, "rho_max", 0.04));
    SLT_OK(sl_params_set(&pv, "pixel", 2e-3));
    sl_data d = sl_data_file(path);
    SLT_OK(k.l->prepare(&pv, &d, &k.ctx));
    double p[5] = {8000.0, 0.05, 20.0, 60.0, 0.02}, ll, chi2;
    sl_backend be = cpu();
    SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p, 1, &ll, &chi2));
    cr_log_info("fsbl chi2 at the truth %.4f, BinaryMag2's %.4f", chi2, ref);
    cr_assert_lt(fabs(chi2 - ref), 2.0, "chi2 %.4f vs %.4f", chi2, ref);
    lk_close(&k);
}

/* ---- fsbl with s and q free: the dynamic engine ----------------------------------- */

/* fsbl_lc.csv's model as model = "fsbl", engine = "dynamic": s and q among
 * the parameters (t0 u0 tE s q alpha rho). */
static const double dyn_par[7] = {0.0, 0.05, 10.0, 1.1, 0.01, 60.0, 2e-3};

static sl_status dyn_open(slt_lk *k, double ld, const char *path)
{
    sl_param_values pv;
    lk_begin(k, "fsbl", &pv);
    SLT_OK(sl_params_set_word(&pv, "engine", "dynamic"));
    SLT_OK(sl_params_set(&pv, "ld", ld));
    sl_data d = sl_data_file(path ? path : event_path());
    return k->l->prepare(&pv, &d, &k->ctx);
}

/* The light curve through the resonant caustic and 1.3 Einstein radii out,
 * every epoch by the engine's partition (point source, hexadecapole,
 * engine) at the default tol = 1e-3: against BinaryMag2 within that
 * tolerance at every epoch, uniform and limb-darkened, with s and q
 * parameters, not options. */
Test(ml_likelihood, fsbl_dynamic_against_vbmicrolensing, .timeout = 600)
{
    double *ref;
    int64_t n = slt_ml_csv("fsbl_lc.csv", FS_COLS, &ref);
    double *t = malloc((size_t)n * sizeof *t), *A = malloc((size_t)n * sizeof *A);
    for (int64_t i = 0; i < n; i++)
        t[i] = ref[FS_COLS * i];
    for (int ld = 0; ld < 2; ld++) {
        slt_lk k;
        SLT_OK(dyn_open(&k, ld ? 0.5 : 0.0, NULL));
        size_t np;
        const char *const *names;
        const double *lo, *hi;
        SLT_OK(k.l->free_params(k.ctx, &np, &names, &lo, &hi));
        cr_assert_eq(np, 7);
        const char *want[] = {"t0", "u0", "tE", "s", "q", "alpha", "rho"};
        for (int j = 0; j < 7; j++)
            cr_assert_str_eq(names[j], want[j]);
        SLT_OK(k.l->model(k.ctx, dyn_par, t, (size_t)n, -1, A));
        double worst = 0.0, near = 0.0;
        for (int64_t i = 0; i < n; i++) {
            const double *r = ref + FS_COLS * i;
            const double e = fabs(A[i] / r[3 + ld] - 1.0);
            worst = fmax(worst, e);
            if (r[5] < 10.0 * dyn_par[6])
                near = fmax(near, e);
        }
        cr_log_info("fsbl dynamic %s: %lld epochs, worst %.2e (within 10 rho of the caustic "
                    "%.2e)", ld ? "a1 = 0.5" : "uniform", (long long)n, worst, near);
        cr_assert_lt(worst, 1e-3, "worst %.2e", worst);
        lk_close(&k);
    }
    free(t), free(A), free(ref);
}

/* chi^2 at the truth of fsbl_event.csv (rho = 0.02 across the caustic, 1 %
 * photometry) by the engine, against the reference script's with
 * BinaryMag2; eval and model agree (the same magnifications). */
Test(ml_likelihood, fsbl_dynamic_chi2_at_truth, .timeout = 300)
{
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s/microlensing/fsbl_event.csv", SL_TEST_DATA_DIR);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    double ref = NAN;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "# chi2_truth = %lf", &ref) == 1)
            break;
    fclose(f);
    cr_assert(isfinite(ref), "no chi2_truth in %s", path);
    slt_lk k;
    SLT_OK(dyn_open(&k, 0.0, path));
    /* the truth, and the truth with s moved: the second a model the maps
     * would need a lens of their own for */
    double p[14] = {8000.0, 0.05, 20.0, 1.1, 0.01, 60.0, 0.02,
                    8000.0, 0.05, 20.0, 1.2, 0.01, 60.0, 0.02};
    double ll[2], chi2[2];
    sl_backend be = cpu();
    SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p, 2, ll, chi2));
    cr_log_info("fsbl dynamic chi2 at the truth %.4f, BinaryMag2's %.4f; s = 1.2: %.1f", chi2[0],
                ref, chi2[1]);
    cr_assert_lt(fabs(chi2[0] - ref), 1.0, "chi2 %.4f vs %.4f", chi2[0], ref);
    cr_assert_gt(chi2[1], chi2[0] + 100.0, "s = 1.2 must fit clearly worse: %.1f", chi2[1]);
    cr_assert_eq(ll[0], -0.5 * chi2[0]);
    /* one model at a time (the epochs over the threads) gives the same */
    double one;
    SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p + 7, 1, &ll[0], &one));
    cr_assert_eq(one, chi2[1], "%.17g vs %.17g", one, chi2[1]);
    lk_close(&k);
}

/* The engine's options are refused where they do not belong, and the
 * maps' options with the engine; a backend other than the CPU is refused
 * before any work. */
Test(ml_likelihood, fsbl_dynamic_bad_input)
{
    slt_lk k;
    sl_param_values pv;
    lk_begin(&k, "pspl", &pv);
    SLT_OK(sl_params_set_word(&pv, "engine", "dynamic"));
    sl_data d = sl_data_file(event_path());
    cr_assert_eq(k.l->prepare(&pv, &d, &k.ctx), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "'engine': only model = \"fsbl\" takes it"), "%s",
              sl_last_error());
    lk_close(&k);
    lk_begin(&k, "fsbl", &pv);
    SLT_OK(sl_params_set(&pv, "tol", 1e-4));
    SLT_OK(sl_params_set(&pv, "s", 1.1));
    SLT_OK(sl_params_set(&pv, "q", 0.01));
    cr_assert_eq(k.l->prepare(&pv, &d, &k.ctx), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "'tol': only model = \"fsbl\" with engine = \"dynamic\""),
              "%s", sl_last_error());
    lk_close(&k);
    lk_begin(&k, "fsbl", &pv);
    SLT_OK(sl_params_set_word(&pv, "engine", "dynamic"));
    SLT_OK(sl_params_set(&pv, "s", 1.1));
    cr_assert_eq(k.l->prepare(&pv, &d, &k.ctx), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "'s' = 1.1: model = \"fsbl\" with engine = \"dynamic\" "
                                      "fits s and q as free parameters"),
              "%s", sl_last_error());
    lk_close(&k);
    SLT_OK(dyn_open(&k, 0.0, NULL));
    sl_backend gpu = {.kind = SL_BACKEND_CUDA};
    double ll = 1.0;
    cr_assert_eq(k.l->eval_batch(k.ctx, &gpu, dyn_par, 1, &ll), SL_ERR_UNSUPPORTED);
    cr_assert(strstr(sl_last_error(), "runs on the CPU backend only"), "%s", sl_last_error());
    cr_assert_eq(ll, 1.0, "nothing written");
    /* outside the domain: s, q or rho not > 0 */
    double bad[7];
    memcpy(bad, dyn_par, sizeof bad);
    bad[4] = -0.01;
    sl_backend be = cpu();
    SLT_OK(k.l->eval_batch(k.ctx, &be, bad, 1, &ll));
    cr_assert(isinf(ll) && ll < 0, "%g", ll);
    cr_assert_eq(k.l->model(k.ctx, bad, dyn_par, 1, -1, &ll), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "s, q, rho"), "%s", sl_last_error());
    lk_close(&k);
}
