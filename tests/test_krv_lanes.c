/* The kepler_rv plugin's CPU lane code (plugins/kepler_rv/krv_lanes.h):
 * its Markley solver against Kepler's equation (the bounds of
 * test_kepler_solver.c), its velocities against krv_model.h's, and, through
 * the plugin, that a model's result does not depend on where it sits in a
 * batch, on the batch size or on the thread count, with models outside the
 * domain anywhere in a block (tail included). */
#include "sl_test.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include "kepler_rv.h"
#include "krv_lanes.h"

/* ---- solver and velocity ------------------------------------------------------ */

/* As test_kepler_solver.c: e up to 0.999, denser near 1; M over [−π, π]
 * and down to 1e-12 on both sides of 0. */
static double grid_e(int i) { return 0.999 * (1.0 - pow(1.0 - i / 999.0, 2.0)); }
static double grid_m(int j)
{
    if (j < 120)
        return (j < 60 ? 1.0 : -1.0) * 1e-12 * pow(10.0, (j % 60) / 5.0);
    return SL_KEPLER_PI * ((j - 120) / 1000.0 - 1.0);
}

Test(krv_lanes, markley_double_residual)
{
    double worst = 0, we = 0, wm = 0, worst_sc = 0;
    for (int i = 0; i < 1000; i++)
        for (int j = 0; j < 2120; j++) {
            double m = grid_m(j), e = grid_e(i), E, s, c;
            sl_krv_markley_v(m, e, &E, &s, &c);
            double r = fabs(E - e * sin(E) - m);
            if (!(r <= worst))
                worst = r, we = e, wm = m;
            /* the sine and cosine handed back are those of E */
            worst_sc = fmax(worst_sc, fmax(fabs(s - sin(E)), fabs(c - cos(E))));
        }
    cr_log_info("lane Markley (double): worst residual %.3g at e = %.17g, M = %.17g; "
                "worst |sin, cos error| %.3g", worst, we, wm, worst_sc);
    cr_assert(worst <= 1e-13, "residual %.3g at e = %.17g, M = %.17g", worst, we, wm);
    cr_assert(worst_sc <= 4e-16, "sin/cos of E off by %.3g", worst_sc);
}

Test(krv_lanes, markley_float_residual)
{
    double worst = 0, we = 0, wm = 0;
    for (int i = 0; i < 1000; i++)
        for (int j = 0; j < 2120; j++) {
            float m = (float)grid_m(j), e = (float)grid_e(i), E, s, c;
            sl_krv_markley_vf(m, e, &E, &s, &c);
            double r = fabs((double)E - (double)e * sin((double)E) - (double)m);
            if (!(r <= worst))
                worst = r, we = e, wm = m;
            cr_assert(fabs(s - sin((double)E)) <= 3e-7 && fabs(c - cos((double)E)) <= 3e-7,
                      "sin/cos of E = %.9g", E);
        }
    cr_log_info("lane Markley (float): worst residual %.3g at e = %.9g, M = %.9g", worst, we,
                wm);
    cr_assert(worst <= 2e-6, "residual %.3g at e = %.9g, M = %.9g", worst, we, wm);
}

/* Random orbits of the seed's Table 2 ranges (P from 2 d to 10 yr, K to
 * 500 m/s, e to 0.99) at times over 10 yr: the lane velocity against
 * sl_krv_v1 (libm), in units of K/(1 − e)², the scale of dv/dE. */
Test(krv_lanes, velocity_matches_krv_model)
{
    sl_rng r;
    sl_rng_init(&r, 11, 0);
    double worst_d = 0, worst_f = 0;
    for (int k = 0; k < 200000; k++) {
        double q[5] = {2.0 * pow(3652.5 / 2.0, sl_rng_uniform(&r)), pow(500.0, sl_rng_uniform(&r)),
                       0.99 * sl_rng_uniform(&r), SL_KEPLER_TWO_PI * sl_rng_uniform(&r),
                       SL_KEPLER_TWO_PI * sl_rng_uniform(&r)};
        sl_krv_orbit o;
        sl_krv_orbitf of;
        cr_assert(sl_krv_orbit_from(q, SL_KRV_BASIS_PKEWM0, 0.0, &o));
        sl_krv_orbit_to_f(&o, &of);
        double dt = 3652.5 * (sl_rng_uniform(&r) - 0.1), scale = q[1] / pow(1.0 - q[2], 2.0);
        double vd = sl_krv_v1_lane(o.inv_p, o.ph0, o.e, o.a, o.b, dt);
        float vf = sl_krv_v1f_lane(of.inv_p, of.ph0, of.e, of.a, of.b, dt);
        worst_d = fmax(worst_d, fabs(vd - sl_krv_v1(&o, dt)) / scale);
        worst_f = fmax(worst_f, fabs((double)vf - sl_krv_v1f(&of, dt)) / scale);
    }
    cr_log_info("lane velocity vs krv_model.h: double %.3g, mixed %.3g (units of K/(1-e)^2)",
                worst_d, worst_f);
    cr_assert(worst_d <= 1e-14, "double: %.3g K/(1-e)^2", worst_d);
    cr_assert(worst_f <= 1e-6, "mixed: %.3g K/(1-e)^2", worst_f);
}

/* ---- through the plugin: a model's result is its own --------------------------- */

typedef struct plug {
    sl_registry *reg;
    const sl_likelihood *l;
    void *ctx;
    size_t n_par;
} plug;

static void plug_open(plug *k, int mixed)
{
    SLT_OK(sl_registry_create(&k->reg));
    SLT_OK(sl_registry_load_default(k->reg));
    const void *t;
    SLT_OK(sl_registry_get(k->reg, SL_KIND_LIKELIHOOD, "kepler_rv", &t));
    k->l = t;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, k->l->params, k->l->n_params));
    SLT_OK(sl_params_set(&pv, "planets", 3));
    SLT_OK(sl_params_set(&pv, "trend", 2));
    SLT_OK(sl_params_set(&pv, "precision", mixed));
    SLT_OK(sl_params_complete(&pv));
    sl_data d = sl_data_file(SL_TEST_DATA_DIR "/rv_ref_data.txt");
    SLT_OK(k->l->prepare(&pv, &d, &k->ctx));
    const char *const *names;
    const double *lo, *hi;
    SLT_OK(k->l->free_params(k->ctx, &k->n_par, &names, &lo, &hi));
    cr_assert_eq(k->n_par, 3 * 5 + 2 * 2 + 2);
}

static void plug_close(plug *k)
{
    k->l->release(k->ctx);
    sl_registry_destroy(k->reg);
}

/* 3 planets, 2 offsets, 2 jitters, dvdt, curv; every 7th model outside
 * the domain (e, P or a jitter), so that bad lanes fall at every position
 * of a block. */
static void draw_models(sl_rng *r, size_t n, size_t np, double *p)
{
    for (size_t s = 0; s < n; s++) {
        double *q = p + s * np;
        for (int j = 0; j < 3; j++, q += 5) {
            q[0] = 2.0 * pow(3652.5 / 2.0, sl_rng_uniform(r));
            q[1] = pow(500.0, sl_rng_uniform(r));
            q[2] = 0.99 * sl_rng_uniform(r);
            q[3] = SL_KEPLER_TWO_PI * sl_rng_uniform(r);
            q[4] = SL_KEPLER_TWO_PI * sl_rng_uniform(r);
        }
        q[0] = 10 * (sl_rng_uniform(r) - 0.5), q[1] = 10 * (sl_rng_uniform(r) - 0.5);
        q[2] = 3 * sl_rng_uniform(r), q[3] = 3 * sl_rng_uniform(r);
        q[4] = 1e-3 * (sl_rng_uniform(r) - 0.5), q[5] = 1e-7 * (sl_rng_uniform(r) - 0.5);
        if (s % 7 == 3)
            p[s * np + 5 * (s % 3) + ((s / 7) % 2 ? 2 : 0)] = (s / 7) % 2 ? 1.0 : -1.0;
        if (s % 7 == 5)
            p[s * np + 15 + 2 + (s / 7) % 2] = -0.5;
    }
}

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void check_own_result(int mixed)
{
    enum { N = 211 }; /* 13 blocks of 16 and a tail of 3 */
    plug k;
    plug_open(&k, mixed);
    double *p = malloc(N * k.n_par * sizeof *p);
    sl_rng r;
    sl_rng_init(&r, 2024 + (uint64_t)mixed, 0);
    draw_models(&r, N, k.n_par, p);
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    double ll[N], c2[N], ll1[N], c21[N], ll2[N], c22[N];
    SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p, N, ll, c2));
    /* one at a time: each model alone in a block of tail lanes */
    for (size_t s = 0; s < N; s++)
        SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p + s * k.n_par, 1, &ll1[s], &c21[s]));
    /* shifted by 5 and on one thread: other block neighbours, other order */
#ifdef _OPENMP
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    SLT_OK(k.l->eval_batch_chi2(k.ctx, &be, p + 5 * k.n_par, N - 5, ll2 + 5, c22 + 5));
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    int bad = 0;
    for (size_t s = 0; s < N; s++) {
        int out = s % 7 == 3 || s % 7 == 5;
        bad += out;
        if (out)
            cr_assert(ll[s] == -INFINITY && c2[s] == INFINITY && ll1[s] == -INFINITY,
                      "model %zu is outside the domain: %g %g", s, ll[s], c2[s]);
        else
            cr_assert(isfinite(ll[s]) && isfinite(c2[s]) && c2[s] > 0, "model %zu: %g %g", s,
                      ll[s], c2[s]);
        cr_assert(same(ll[s], ll1[s]) && same(c2[s], c21[s]),
                  "model %zu: in a batch %.17g %.17g, alone %.17g %.17g", s, ll[s], c2[s],
                  ll1[s], c21[s]);
        if (s >= 5)
            cr_assert(same(ll[s], ll2[s]) && same(c2[s], c22[s]),
                      "model %zu: %.17g, shifted on one thread %.17g", s, ll[s], ll2[s]);
    }
    cr_assert(bad > 50);
    /* eval_batch (log-likelihood only) gives the same values */
    SLT_OK(k.l->eval_batch(k.ctx, &be, p, N, ll2));
    for (size_t s = 0; s < N; s++)
        cr_assert(same(ll[s], ll2[s]), "model %zu: eval_batch %.17g vs %.17g", s, ll2[s], ll[s]);
    free(p);
    plug_close(&k);
}

Test(krv_lanes, results_do_not_depend_on_the_batch_double) { check_own_result(0); }
Test(krv_lanes, results_do_not_depend_on_the_batch_mixed) { check_own_result(1); }
