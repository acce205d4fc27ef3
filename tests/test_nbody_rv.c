/* The nbody_rv and ttv likelihood plugins on the CPU backend:
 *   - one planet: mvs in Jacobi coordinates is the Kepler orbit, so
 *     nbody_rv's ln L is kepler_rv's on the same data and parameters (two
 *     instruments, a trend) to 1e-9 relative, in all three bases;
 *   - a GJ 876-like resonant pair against REBOUND's IAS15 velocities and
 *     transit times (tests/data, make_nbody_rv_reference.py): the truth's
 *     χ² is near 0 at the default step, and kepler_rv's sum is far off;
 *   - models refused with -inf and their reasons counted; bad data and
 *     options refused before any work with messages that name them. */
#define _POSIX_C_SOURCE 200809L
#include "sl_test.h"

#include <unistd.h>

#include "krv_model.h"
#include "nbody_elements.h"
#include "nbody_like.h"

typedef struct lik {
    sl_registry *reg;
    const sl_likelihood *l;
    void *ctx;
    size_t n_par;
    const char *const *names;
    const double *lo, *hi;
} lik;

/* Opens likelihood `name` on file `path` with options "key=value" pairs
 * (NULL-terminated); returns prepare's status (the context set on OK). */
static sl_status lik_try(lik *k, const char *name, const char *path, const char *const *opts)
{
    memset(k, 0, sizeof *k);
    SLT_OK(sl_registry_create(&k->reg));
    SLT_OK(sl_registry_load_default(k->reg));
    const void *t;
    SLT_OK(sl_registry_get(k->reg, SL_KIND_LIKELIHOOD, name, &t));
    k->l = t;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, k->l->params, k->l->n_params));
    for (; opts && *opts; opts += 2)
        SLT_OK(sl_params_set(&pv, opts[0], atof(opts[1])));
    SLT_OK(sl_params_complete(&pv));
    sl_data d = sl_data_file(path);
    sl_status st = k->l->prepare(&pv, &d, &k->ctx);
    if (st == SL_OK)
        SLT_OK(k->l->free_params(k->ctx, &k->n_par, &k->names, &k->lo, &k->hi));
    return st;
}

static void lik_open(lik *k, const char *name, const char *path, const char *const *opts)
{
    SLT_OK(lik_try(k, name, path, opts));
}

static void lik_close(lik *k)
{
    if (k->ctx)
        k->l->release(k->ctx);
    sl_registry_destroy(k->reg);
}

static uint64_t count_of(const lik *k, const char *reason)
{
    size_t n;
    const char *const *names;
    const uint64_t *counts;
    SLT_OK(k->l->counters(k->ctx, &n, &names, &counts));
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], reason))
            return counts[i];
    cr_assert_fail("no counter %s", reason);
    return 0;
}

#define OPTS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define RV_DATA SL_TEST_DATA_DIR "/rv_ref_data.txt"

static char tmp[256];

static void write_file(const char *name, const char *text)
{
    snprintf(tmp, sizeof tmp, "/tmp/sl_test_nbody_%d_%s", (int)getpid(), name);
    FILE *f = fopen(tmp, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

/* ---- one planet is kepler_rv ------------------------------------------------ */

Test(nbody_rv, one_planet_is_kepler_rv)
{
    static const char *const bases[3] = {"0", "1", "2"};
    for (int b = 0; b < 3; b++) {
        lik nb, kr;
        lik_open(&nb, "nbody_rv", RV_DATA,
                 OPTS("planets", "1", "basis", bases[b], "trend", "2", "epoch", "2458000"));
        lik_open(&kr, "kepler_rv", RV_DATA,
                 OPTS("planets", "1", "basis", bases[b], "trend", "2", "epoch", "2458000"));
        cr_assert_eq(nb.n_par, kr.n_par);
        for (size_t i = 0; i < nb.n_par; i++)
            cr_expect_str_eq(nb.names[i], kr.names[i]);
        /* P 41 d, K 35 m/s, e 0.3, offsets and jitters per instrument, a trend */
        const double planet[3][5] = {{41.0, 35.0, 0.3, 1.1, 2.0},
                                     {log(41.0), log(35.0), 0.3, 0.45, 2458011.0},
                                     {log(41.0), log(35.0), 0.3, 0.45, 2458011.0}};
        double p[32];
        for (int q = 0; q < 5; q++)
            p[q] = planet[b][q];
        for (size_t i = 5; i < nb.n_par; i++)
            p[i] = 0.3 + 0.1 * (double)i;
        p[nb.n_par - 2] = 0.002, p[nb.n_par - 1] = -1e-6;
        double ln, xn, lk, xk;
        SLT_OK(nb.l->eval_batch_chi2(nb.ctx, NULL, p, 1, &ln, &xn));
        SLT_OK(kr.l->eval_batch_chi2(kr.ctx, NULL, p, 1, &lk, &xk));
        cr_expect(isfinite(ln) && fabs(ln - lk) < 1e-9 * fabs(lk),
                  "basis %d: nbody_rv ln L %.15g, kepler_rv %.15g", b, ln, lk);
        cr_expect(fabs(xn - xk) < 1e-9 * xk, "basis %d: chi2 %.15g against %.15g", b, xn, xk);
        /* and the model curve, with an instrument's offset */
        double t[3] = {2457900.5, 2458000.0, 2458333.3}, mn[3], mk[3];
        SLT_OK(nb.l->model(nb.ctx, p, t, 3, 1, mn));
        SLT_OK(kr.l->model(kr.ctx, p, t, 3, 1, mk));
        for (int k = 0; k < 3; k++)
            cr_expect(fabs(mn[k] - mk[k]) < 1e-9 * 35.0, "model at %g: %.15g against %.15g",
                      t[k], mn[k], mk[k]);
        lik_close(&nb);
        lik_close(&kr);
    }
}

/* ---- the resonant pair against REBOUND ------------------------------------------ */

static const double gj_truth[10] = {30.126, 88.34, 0.2531, 0.8, 2.1,
                                    61.082, 212.07, 0.0354, 0.4, 5.4};

/* tests/data's IAS15 velocities as RV data with errors of err m/s. */
static void gj_rv_file(double err)
{
    FILE *in = fopen(SL_TEST_DATA_DIR "/nbody_rv_gj876_rebound.csv", "r");
    cr_assert(in);
    snprintf(tmp, sizeof tmp, "/tmp/sl_test_nbody_%d_gj.csv", (int)getpid());
    FILE *f = fopen(tmp, "w");
    cr_assert(f);
    fprintf(f, "time,rv,err\n");
    char line[256];
    double t, v;
    while (fgets(line, sizeof line, in))
        if (sscanf(line, "%lf,%lf", &t, &v) == 2)
            fprintf(f, "%.17g,%.17g,%g\n", t, v, err);
    fclose(in);
    fclose(f);
}

Test(nbody_rv, resonant_pair_is_rebounds)
{
    gj_rv_file(1.0);
    static const char *const what[3] = {"mvs", "hermite", "mvs corrector 11"};
    for (int integ = 0; integ < 3; integ++) {
        lik k;
        lik_open(&k, "nbody_rv", tmp,
                 integ == 1   ? OPTS("planets", "2", "epoch", "0", "mstar", "0.32", "integrator",
                                     "1", "steps", "2000")
                 : integ == 2 ? OPTS("planets", "2", "epoch", "0", "mstar", "0.32", "corrector",
                                     "11")
                              : OPTS("planets", "2", "epoch", "0", "mstar", "0.32"));
        cr_assert_eq(k.n_par, 12);
        double p[12] = {0}, ll, x2;
        memcpy(p, gj_truth, sizeof gj_truth);
        SLT_OK(k.l->eval_batch_chi2(k.ctx, NULL, p, 1, &ll, &x2));
        /* 200 points at 1 m/s: chi2 < 1e-2 is an RMS residual under 7 mm/s */
        cr_expect(x2 < 1e-2, "%s: chi2 at the truth %g", what[integ], x2);
        cr_expect(fabs(ll - (-0.5 * (x2 + 200.0 * log(SL_KEPLER_TWO_PI)))) < 1e-9,
                  "ln L %.15g with chi2 %g", ll, x2);
        lik_close(&k);
    }
    /* kepler_rv's sum of the same planets is hundreds of m/s away */
    lik kr;
    lik_open(&kr, "kepler_rv", tmp, OPTS("planets", "2", "epoch", "0"));
    double p[12] = {0}, ll, x2;
    memcpy(p, gj_truth, sizeof gj_truth);
    SLT_OK(kr.l->eval_batch_chi2(kr.ctx, NULL, p, 1, &ll, &x2));
    cr_expect(x2 > 1e6, "kepler_rv chi2 %g: the pair's interaction should show", x2);
    lik_close(&kr);
    unlink(tmp);
}

/* The pair's transits (tests/data) with 30 s errors: the truth, in ttv's
 * parameters (mass in Earth masses, tc a transit near the epoch), scores
 * χ² near 0; tc one minute off scores far worse. */
static void gj_ttv_truth(double *p)
{
    sl_nbody_elements el[2];
    for (int j = 0; j < 2; j++) {
        const double *q = gj_truth + 5 * j;
        el[j] = (sl_nbody_elements){q[0] * SL_NBODY_K_GAUSS, q[1] / SL_NBODY_V_UNIT, q[2], q[3],
                                    q[4], 0.5 * SL_KEPLER_PI, 0.0};
    }
    double x[9], v[9], m[3];
    int bad = 0;
    cr_assert(sl_nbody_system(2, el, 0.32, x, v, m, &bad));
    for (int j = 0; j < 2; j++) {
        const double *q = gj_truth + 5 * j;
        const double P = q[0], e = q[2], w = q[3];
        const double tp = -q[4] * P / SL_KEPLER_TWO_PI;
        const double tc = tp + (tp - sl_krv_tc_to_tp(tp, P, e, w));
        p[5 * j + 0] = P;
        p[5 * j + 1] = m[j + 1] / SL_NBODY_M_EARTH;
        p[5 * j + 2] = sqrt(e) * cos(w);
        p[5 * j + 3] = sqrt(e) * sin(w);
        p[5 * j + 4] = tc;
    }
}

static int gj_ttv_file(double err)
{
    FILE *in = fopen(SL_TEST_DATA_DIR "/nbody_ttv_gj876_rebound.csv", "r");
    cr_assert(in);
    snprintf(tmp, sizeof tmp, "/tmp/sl_test_nbody_%d_ttv.csv", (int)getpid());
    FILE *f = fopen(tmp, "w");
    cr_assert(f);
    fprintf(f, "planet,tmid,sigma\n");
    char line[256];
    int j, n = 0;
    double t;
    while (fgets(line, sizeof line, in))
        if (sscanf(line, "%d,%lf", &j, &t) == 2)
            fprintf(f, "%d,%.17g,%.17g\n", j, t, err), n++;
    fclose(in);
    fclose(f);
    return n;
}

Test(nbody_rv, resonant_pair_transits_are_rebounds)
{
    const int n = gj_ttv_file(30.0 / 86400.0);
    cr_assert(n > 80, "%d transits", n);
    lik k;
    lik_open(&k, "ttv", tmp, OPTS("planets", "2", "epoch", "0", "mstar", "0.32"));
    cr_assert_eq(k.n_par, 10);
    cr_expect_str_eq(k.names[1], "m1");
    cr_expect_str_eq(k.names[9], "tc2");
    double p[2][10], ll[2], x2[2];
    gj_ttv_truth(p[0]);
    memcpy(p[1], p[0], sizeof p[0]);
    p[1][4] += 60.0 / 86400.0, p[1][9] += 60.0 / 86400.0; /* the system a minute late */
    SLT_OK(k.l->eval_batch_chi2(k.ctx, NULL, &p[0][0], 2, ll, x2));
    /* each transit within 30 s: chi2 < n; REBOUND's agree to well under a second */
    cr_expect(x2[0] < 0.05 * n, "chi2 at the truth %g over %d transits", x2[0], n);
    /* every transit a minute late: (60 s / 30 s)^2 = 4 a transit */
    cr_expect(fabs(x2[1] / n - 4.0) < 0.2, "a minute off: chi2 %g over %d transits", x2[1], n);
    cr_expect(isfinite(ll[0]) && ll[0] > ll[1]);
    /* ln L in days, as the errors are given: -(chi2 + n ln 2 pi sigma^2) / 2 */
    const double sd = 30.0 / 86400.0;
    cr_expect(fabs(ll[0] + 0.5 * (x2[0] + n * log(SL_KEPLER_TWO_PI * sd * sd))) < 1e-9 * fabs(ll[0]),
              "ln L %.15g, chi2 %g", ll[0], x2[0]);
    lik_close(&k);
    unlink(tmp);
}

/* ---- refused models and their reasons --------------------------------------------- */

Test(nbody_rv, refused_models_are_counted)
{
    gj_rv_file(1.0);
    lik k;
    lik_open(&k, "nbody_rv", tmp, OPTS("planets", "2", "epoch", "0", "mstar", "0.32"));
    enum { N = 4 };
    double p[N][12], ll[N], x2[N];
    for (int i = 0; i < N; i++) {
        memset(p[i], 0, sizeof p[i]);
        memcpy(p[i], gj_truth, sizeof gj_truth);
    }
    p[1][2] = 1.2;            /* e >= 1: the domain */
    p[2][11] = -1.0;          /* a negative jitter: the domain */
    p[3][1] = p[3][6] = 3e4;  /* planets of ~0.1 M_sun near 2:1: thrown out */
    SLT_OK(k.l->eval_batch_chi2(k.ctx, NULL, &p[0][0], N, ll, x2));
    cr_expect(isfinite(ll[0]));
    for (int i = 1; i < N; i++) {
        cr_expect(ll[i] == -INFINITY, "model %d: ln L %g", i, ll[i]);
        cr_expect(x2[i] == INFINITY, "model %d: chi2 %g", i, x2[i]);
    }
    cr_expect_eq(count_of(&k, "ok"), 1);
    cr_expect_eq(count_of(&k, "domain"), 2);
    cr_expect_eq(count_of(&k, "unstable") + count_of(&k, "unbound"), 1,
                 "unstable %llu, unbound %llu", (unsigned long long)count_of(&k, "unstable"),
                 (unsigned long long)count_of(&k, "unbound"));
    /* the counts accumulate over calls */
    SLT_OK(k.l->eval_batch(k.ctx, NULL, &p[1][0], 1, ll));
    cr_expect_eq(count_of(&k, "domain"), 3);
    /* the model names the planet outside the domain */
    double t = 10.0, out;
    sl_status st = k.l->model(k.ctx, p[1], &t, 1, -1, &out);
    cr_expect_neq(st, SL_OK);
    cr_expect(strstr(sl_last_error(), "planet 1") && strstr(sl_last_error(), "e1 = 1.2"), "%s",
              sl_last_error());
    lik_close(&k);
    unlink(tmp);
}

/* ---- bad data and options ------------------------------------------------------------ */

Test(nbody_rv, bad_transit_data_is_named)
{
    lik k;
    write_file("bad_planet.csv", "planet,time,error\n1,10.5,0.001\n3,20.0,0.001\n");
    cr_expect_neq(lik_try(&k, "ttv", tmp, OPTS("planets", "2")), SL_OK);
    cr_expect(strstr(sl_last_error(), ":3") && strstr(sl_last_error(), "planet number 1..2"),
              "%s", sl_last_error());
    lik_close(&k);
    write_file("bad_err.csv", "planet,time,error\n1,10.5,0.001\n2,20.0,0\n");
    cr_expect_neq(lik_try(&k, "ttv", tmp, OPTS("planets", "2")), SL_OK);
    cr_expect(strstr(sl_last_error(), ":3") && strstr(sl_last_error(), "expected a number > 0"),
              "%s", sl_last_error());
    lik_close(&k);
    write_file("bad_time.csv", "planet,time,error\n1,10.5,0.001\n2,nan,0.01\n");
    cr_expect_neq(lik_try(&k, "ttv", tmp, OPTS("planets", "2")), SL_OK);
    cr_expect(strstr(sl_last_error(), ":3"), "%s", sl_last_error());
    lik_close(&k);
    write_file("early.csv", "planet,time,error\n1,10.5,0.001\n2,20.0,0.01\n");
    cr_expect_neq(lik_try(&k, "ttv", tmp, OPTS("planets", "2", "epoch", "15")), SL_OK);
    cr_expect(strstr(sl_last_error(), "epoch = 15") && strstr(sl_last_error(), "10.5"), "%s",
              sl_last_error());
    lik_close(&k);
    /* the default epoch: a day before the first transit */
    cr_expect_eq(lik_try(&k, "ttv", tmp, OPTS("planets", "2")), SL_OK, "%s", sl_last_error());
    lik_close(&k);
    write_file("bad_rv.csv", "time,rv,err\n1,2,1\n2,inf,1\n");
    cr_expect_neq(lik_try(&k, "nbody_rv", tmp, OPTS("planets", "1")), SL_OK);
    cr_expect(strstr(sl_last_error(), ":3"), "%s", sl_last_error());
    lik_close(&k);
    cr_expect_neq(lik_try(&k, "nbody_rv", RV_DATA, OPTS("planets", "1", "corrector", "4")),
                  SL_OK);
    cr_expect(strstr(sl_last_error(), "corrector = 4"), "%s", sl_last_error());
    lik_close(&k);
}

/* ---- velocities and transits joined --------------------------------------------- */

/* nbody_rv with `transits` given: one integration serves both, and its ln L
 * is nbody_rv's on the velocities plus ttv's on the transits (the same
 * system; ttv's parameters are the same planets in its basis, so only
 * rounding in the start parts them). Transits before the epoch are
 * refused, naming them. */
Test(nbody_rv, velocities_and_transits_joined)
{
    gj_rv_file(1.0);
    char rv_path[256], tr_path[256];
    snprintf(rv_path, sizeof rv_path, "%s", tmp);
    const int n_tr = gj_ttv_file(30.0 / 86400.0);
    snprintf(tr_path, sizeof tr_path, "%s", tmp);
    lik rv, tv, jn;
    lik_open(&rv, "nbody_rv", rv_path, OPTS("planets", "2", "epoch", "0", "mstar", "0.32"));
    lik_open(&tv, "ttv", tr_path, OPTS("planets", "2", "epoch", "0", "mstar", "0.32"));
    /* the joined one, through data.more as a front end hands it */
    memset(&jn, 0, sizeof jn);
    SLT_OK(sl_registry_create(&jn.reg));
    SLT_OK(sl_registry_load_default(jn.reg));
    const void *t;
    SLT_OK(sl_registry_get(jn.reg, SL_KIND_LIKELIHOOD, "nbody_rv", &t));
    jn.l = t;
    cr_assert(jn.l->more_data && !strcmp(jn.l->more_data[0], "transits"));
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, jn.l->params, jn.l->n_params));
    SLT_OK(sl_params_set(&pv, "planets", 2));
    SLT_OK(sl_params_set(&pv, "epoch", 0));
    SLT_OK(sl_params_set(&pv, "mstar", 0.32));
    SLT_OK(sl_params_complete(&pv));
    sl_data trd = sl_data_file(tr_path);
    const sl_data_named more[1] = {{"transits", &trd}};
    sl_data d = sl_data_file(rv_path);
    d.more = more, d.n_more = 1;
    SLT_OK(jn.l->prepare(&pv, &d, &jn.ctx));
    SLT_OK(jn.l->free_params(jn.ctx, &jn.n_par, &jn.names, &jn.lo, &jn.hi));
    cr_assert_eq(jn.n_par, 12, "transits add no parameters");
    double p[12] = {0}, q[10], llr, x2r, llt, x2t, llj, x2j;
    memcpy(p, gj_truth, sizeof gj_truth);
    gj_ttv_truth(q);
    SLT_OK(rv.l->eval_batch_chi2(rv.ctx, NULL, p, 1, &llr, &x2r));
    SLT_OK(tv.l->eval_batch_chi2(tv.ctx, NULL, q, 1, &llt, &x2t));
    SLT_OK(jn.l->eval_batch_chi2(jn.ctx, NULL, p, 1, &llj, &x2j));
    cr_expect(fabs(x2j - (x2r + x2t)) < 1e-6 * (x2r + x2t), "chi2 joined %.15g, apart %.15g + %.15g",
              x2j, x2r, x2t);
    cr_expect(fabs(llj - (llr + llt)) < 1e-9 * fabs(llr + llt), "ln L joined %.15g, apart %.15g",
              llj, llr + llt);
    cr_expect(x2t > 0.1 && n_tr > 80, "the transits count: chi2 %g over %d", x2t, n_tr);
    /* a planet 1 minute late shows in the joined chi2 as in ttv's */
    p[4] += SL_KEPLER_TWO_PI * 60.0 / 86400.0 / gj_truth[0];
    SLT_OK(jn.l->eval_batch_chi2(jn.ctx, NULL, p, 1, &llj, &x2j));
    cr_expect(x2j > x2r + x2t + 20.0, "a minute late: joined chi2 %g", x2j);
    lik_close(&jn);
    lik_close(&rv);
    lik_close(&tv);
    /* transits before the epoch */
    lik bad;
    memset(&bad, 0, sizeof bad);
    SLT_OK(sl_registry_create(&bad.reg));
    SLT_OK(sl_registry_load_default(bad.reg));
    SLT_OK(sl_registry_get(bad.reg, SL_KIND_LIKELIHOOD, "nbody_rv", &t));
    bad.l = t;
    SLT_OK(sl_params_init(&pv, bad.l->params, bad.l->n_params));
    SLT_OK(sl_params_set(&pv, "planets", 2));
    SLT_OK(sl_params_set(&pv, "epoch", 100));
    SLT_OK(sl_params_complete(&pv));
    cr_expect_neq(bad.l->prepare(&pv, &d, &bad.ctx), SL_OK);
    cr_expect(strstr(sl_last_error(), "epoch = 100") && strstr(sl_last_error(), "nbody_rv"), "%s",
              sl_last_error());
    bad.ctx = NULL;
    lik_close(&bad);
    unlink(rv_path);
    unlink(tr_path);
}
