/* Tests of @NAME@ through starling's C API, as a user loads it (ctest puts
 * the build's plugins on STARLING_PLUGIN_PATH), on synthetic data made here
 * from known parameters and handed over as columns in memory.
 *
 * The tests run on the backend named by STARLING_TEST_BACKEND ("cpu" when
 * unset, or "cuda"); cpu_equals_cuda compares the two when the plugin was
 * built with CUDA and a GPU is usable, and skips otherwise, unless
 * STARLING_TEST_BACKEND=cuda asks for the GPU: then a missing GPU or a
 * CPU-only build is a failure. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <starling/starling.h>
#include "@NAME@.h"

static const char *test_backend(void)
{
    const char *b = getenv("STARLING_TEST_BACKEND");
    return b && *b ? b : "cpu";
}

static const sl_likelihood *load(sl_registry **reg)
{
    cr_assert_eq(sl_registry_create(reg), SL_OK);
    cr_assert_eq(sl_registry_load_default(*reg), SL_OK, "%s", sl_last_error());
    for (size_t i = 0; i < sl_registry_problem_count(*reg); i++)
        cr_assert_fail("a plugin was refused: %s", sl_registry_problem(*reg, i));
    const void *t;
    cr_assert_eq(sl_registry_get(*reg, SL_KIND_LIKELIHOOD, "@NAME@", &t), SL_OK, "%s",
                 sl_last_error());
    return t;
}

static void open_backend(const sl_likelihood *l, const char *spec, sl_backend *be)
{
    cr_assert_eq(sl_backend_open_for(spec, l->backends, "likelihood '@NAME@'", be), SL_OK, "%s",
                 sl_last_error());
}

/* ---- synthetic data ------------------------------------------------------------ */

enum { N_OBS = 80 };
static const double T_REF = 30.0;

/* The parameters the data are made from: P, A, phi, c0, c1, log_jitter. */
static void truth(double p[@NAME_UPPER@_NPAR])
{
    const double v[@NAME_UPPER@_NPAR] = {4.2, 1.5, 1.0, -3.0, 0.04, log(0.3)};
    memcpy(p, v, sizeof v);
}

typedef struct synthetic {
    double t[N_OBS], y[N_OBS], err[N_OBS];
    sl_data_column cols[3];
    sl_data data;
} synthetic;

/* N_OBS points over 60 time units at uneven times, errors 0.2..0.4 and
 * Gaussian noise of variance err^2 + jitter^2 (Box-Muller on starling's
 * counter-based generator: the same numbers on every machine). The
 * columns go by names the plugin accepts: t, y, sigma. */
static void make_data(synthetic *s)
{
    double p[@NAME_UPPER@_NPAR];
    truth(p);
    @NAME@_model m;
    cr_assert(@NAME@_unpack(p, &m));
    sl_rng g;
    sl_rng_init(&g, 2026, 0);
    for (int k = 0; k < N_OBS; k++) {
        double u1 = sl_rng_uniform(&g), u2 = sl_rng_uniform(&g);
        double gauss = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
        s->t[k] = 60.0 * (k + 0.8 * sl_rng_uniform(&g)) / N_OBS;
        s->err[k] = 0.2 + 0.2 * sl_rng_uniform(&g);
        s->y[k] = @NAME@_at(&m, s->t[k] - T_REF) + gauss * sqrt(s->err[k] * s->err[k] + m.jit2);
    }
    s->cols[0] = (sl_data_column){"t", s->t, NULL};
    s->cols[1] = (sl_data_column){"y", s->y, NULL};
    s->cols[2] = (sl_data_column){"sigma", s->err, NULL};
    s->data = (sl_data){.n_rows = N_OBS, .cols = s->cols, .n_cols = 3, .source = "test data"};
}

/* prepare with t_ref = T_REF and the given period bounds. */
static sl_status prepare(const sl_likelihood *l, const sl_data *d, double p_min, double p_max,
                         void **ctx)
{
    sl_param_values opt;
    cr_assert_eq(sl_params_init(&opt, l->params, l->n_params), SL_OK);
    cr_assert_eq(sl_params_set(&opt, "t_ref", T_REF), SL_OK, "%s", sl_last_error());
    cr_assert_eq(sl_params_set(&opt, "period_min", p_min), SL_OK, "%s", sl_last_error());
    cr_assert_eq(sl_params_set(&opt, "period_max", p_max), SL_OK, "%s", sl_last_error());
    *ctx = NULL;
    return l->prepare(&opt, d, ctx);
}

/* ---- tests ----------------------------------------------------------------------- */

/* ln L is highest at the parameters the data were made from: each one moved
 * either way lowers it, and the best of a grid over P alone is the true P. */
Test(@NAME@, peaks_at_the_true_parameters)
{
    sl_registry *reg;
    const sl_likelihood *l = load(&reg);
    sl_backend be;
    open_backend(l, test_backend(), &be);
    static synthetic s;
    make_data(&s);
    void *ctx;
    cr_assert_eq(prepare(l, &s.data, 1.0, 20.0, &ctx), SL_OK, "%s", sl_last_error());

    /* 6 to 12 times each parameter's uncertainty with these data, so the
     * noise cannot move the maximum past a step */
    const double step[@NAME_UPPER@_NPAR] = {0.05, 0.5, 0.3, 0.3, 0.03, 1.0};
    double p[1 + 2 * @NAME_UPPER@_NPAR][@NAME_UPPER@_NPAR], ll[1 + 2 * @NAME_UPPER@_NPAR];
    for (int r = 0; r < 1 + 2 * @NAME_UPPER@_NPAR; r++) {
        truth(p[r]);
        if (r > 0)
            p[r][(r - 1) / 2] += (r % 2 ? 1 : -1) * step[(r - 1) / 2];
    }
    cr_assert_eq(l->eval_batch(ctx, &be, &p[0][0], 1 + 2 * @NAME_UPPER@_NPAR, ll), SL_OK, "%s",
                 sl_last_error());
    cr_assert(isfinite(ll[0]), "ln L at the truth: %g", ll[0]);
    for (int r = 1; r < 1 + 2 * @NAME_UPPER@_NPAR; r++)
        cr_expect_lt(ll[r], ll[0], "parameter %d moved by %+g: ln L %.6f, at the truth %.6f",
                     (r - 1) / 2 + 1, (r % 2 ? 1 : -1) * step[(r - 1) / 2], ll[r], ll[0]);

    enum { N_GRID = 2000 };
    static double grid[N_GRID][@NAME_UPPER@_NPAR], gll[N_GRID];
    for (int i = 0; i < N_GRID; i++) {
        truth(grid[i]);
        grid[i][0] = 1.0 * pow(20.0, (double)i / (N_GRID - 1)); /* 1 .. 20, log-spaced */
    }
    cr_assert_eq(l->eval_batch(ctx, &be, &grid[0][0], N_GRID, gll), SL_OK, "%s",
                 sl_last_error());
    int best = 0;
    for (int i = 1; i < N_GRID; i++)
        best = gll[i] > gll[best] ? i : best;
    cr_expect(fabs(grid[best][0] / 4.2 - 1) < 0.005, "best P of the grid %.4f, true 4.2",
              grid[best][0]);
    l->release(ctx);
    sl_registry_destroy(reg);
}

/* A batch gives, bit for bit, what each vector gives alone, and
 * eval_batch_chi2 the same ln L as eval_batch; vectors outside the domain
 * get -inf. */
Test(@NAME@, batch_equals_single)
{
    sl_registry *reg;
    const sl_likelihood *l = load(&reg);
    sl_backend be;
    open_backend(l, test_backend(), &be);
    static synthetic s;
    make_data(&s);
    void *ctx;
    cr_assert_eq(prepare(l, &s.data, 1.0, 20.0, &ctx), SL_OK, "%s", sl_last_error());

    enum { N = 37 };
    const double lo[@NAME_UPPER@_NPAR] = {1, 0, 0, -5, -0.1, -3};
    const double hi[@NAME_UPPER@_NPAR] = {20, 3, 2 * M_PI, 5, 0.1, 1};
    double p[N][@NAME_UPPER@_NPAR], batch[N], chi2[N], ll2[N];
    sl_rng g;
    sl_rng_init(&g, 7, 1);
    for (int k = 0; k < N; k++)
        for (int i = 0; i < @NAME_UPPER@_NPAR; i++)
            p[k][i] = lo[i] + (hi[i] - lo[i]) * sl_rng_uniform(&g);
    p[3][0] = -1.0;     /* P <= 0 */
    p[11][1] = -0.5;    /* A < 0 */
    p[20][4] = INFINITY; /* not finite */
    cr_assert_eq(l->eval_batch(ctx, &be, &p[0][0], N, batch), SL_OK, "%s", sl_last_error());
    cr_assert_eq(l->eval_batch_chi2(ctx, &be, &p[0][0], N, ll2, chi2), SL_OK, "%s",
                 sl_last_error());
    for (int k = 0; k < N; k++) {
        double one;
        cr_assert_eq(l->eval_batch(ctx, &be, p[k], 1, &one), SL_OK, "%s", sl_last_error());
        cr_assert(!memcmp(&one, &batch[k], sizeof one), "vector %d: %.17g in the batch, %.17g "
                  "alone", k, batch[k], one);
        cr_assert(!memcmp(&ll2[k], &batch[k], sizeof one), "vector %d: eval_batch_chi2 %.17g, "
                  "eval_batch %.17g", k, ll2[k], batch[k]);
        int outside = k == 3 || k == 11 || k == 20;
        cr_expect(outside ? batch[k] == -INFINITY && chi2[k] == INFINITY
                          : isfinite(batch[k]) && chi2[k] >= 0,
                  "vector %d (%s the domain): ln L %g, chi2 %g", k, outside ? "outside" : "inside",
                  batch[k], chi2[k]);
    }
    l->release(ctx);
    sl_registry_destroy(reg);
}

/* Bad options and bad data are refused before any work, with a message
 * naming what is wrong. */
Test(@NAME@, refuses_bad_options_and_data)
{
    sl_registry *reg;
    const sl_likelihood *l = load(&reg);
    static synthetic s;
    make_data(&s);
    void *ctx;

    /* each option alone: the schema */
    sl_param_values opt;
    cr_assert_eq(sl_params_init(&opt, l->params, l->n_params), SL_OK);
    cr_assert_neq(sl_params_set(&opt, "period_min", -1.0), SL_OK);
    cr_expect(strstr(sl_last_error(), "period_min"), "%s", sl_last_error());

    /* options together: prepare */
    cr_assert_eq(prepare(l, &s.data, 5.0, 2.0, &ctx), SL_ERR_ARG);
    cr_expect(strstr(sl_last_error(), "period_min = 5") &&
                  strstr(sl_last_error(), "period_max = 2"), "%s", sl_last_error());

    /* no data, an error of 0, a missing column */
    cr_assert_eq(prepare(l, NULL, 1.0, 20.0, &ctx), SL_ERR_ARG);
    cr_expect(strstr(sl_last_error(), "no data"), "%s", sl_last_error());
    s.err[2] = 0.0;
    cr_assert_eq(prepare(l, &s.data, 1.0, 20.0, &ctx), SL_ERR_ARG);
    cr_expect(strstr(sl_last_error(), "row 3") && strstr(sl_last_error(), "expected a number > 0"),
              "%s", sl_last_error());
    s.err[2] = 0.3;
    s.data.n_cols = 2; /* t and y only */
    cr_assert_neq(prepare(l, &s.data, 1.0, 20.0, &ctx), SL_OK);
    cr_expect(strstr(sl_last_error(), "err"), "%s", sl_last_error());
    sl_registry_destroy(reg);
}

/* The CPU and CUDA evaluations agree to 1e-9 relative (the bound of
 * check-plugin's `cuda` check), and device time is reported only for the
 * GPU. */
Test(@NAME@, cpu_equals_cuda)
{
    sl_registry *reg;
    const sl_likelihood *l = load(&reg);
    int want_gpu = !strcmp(test_backend(), "cuda");
    const char *why = !(l->backends & SL_BACKEND_CAN_CUDA) ? "the plugin was built without CUDA"
                      : sl_cuda_device_count() < 1          ? "no usable CUDA device"
                                                            : NULL;
    if (why && want_gpu)
        cr_assert_fail("STARLING_TEST_BACKEND=cuda, but %s", why);
    if (why) {
        sl_registry_destroy(reg);
        cr_skip_test("%s (STARLING_TEST_BACKEND=cuda makes this a failure)", why);
    }
    sl_backend cpu, gpu;
    open_backend(l, "cpu", &cpu);
    open_backend(l, "cuda", &gpu);
    static synthetic s;
    make_data(&s);
    void *ctx;
    cr_assert_eq(prepare(l, &s.data, 1.0, 20.0, &ctx), SL_OK, "%s", sl_last_error());

    enum { N = 1000 };
    static double p[N][@NAME_UPPER@_NPAR], a[N], b[N];
    sl_rng g;
    sl_rng_init(&g, 11, 2);
    for (int k = 0; k < N; k++) {
        truth(p[k]);
        for (int i = 0; i < @NAME_UPPER@_NPAR; i++)
            p[k][i] *= 0.5 + sl_rng_uniform(&g); /* around the truth: finite ln L */
    }
    cr_assert_eq(l->eval_batch(ctx, &gpu, &p[0][0], N, b), SL_OK, "%s", sl_last_error());
    cr_expect_gt(l->last_kernel_s(ctx), 0.0, "no device time after a CUDA evaluation");
    cr_assert_eq(l->eval_batch(ctx, &cpu, &p[0][0], N, a), SL_OK, "%s", sl_last_error());
    cr_expect_eq(l->last_kernel_s(ctx), 0.0, "device time after a CPU evaluation");
    double worst = 0;
    for (int k = 0; k < N; k++) {
        cr_assert(isfinite(a[k]), "vector %d: ln L %g", k, a[k]);
        worst = fmax(worst, fabs(a[k] - b[k]) / fmax(fabs(a[k]), 1e-300));
    }
    cr_expect_leq(worst, 1e-9, "max relative difference CPU vs CUDA %.3g", worst);
    l->release(ctx);
    sl_registry_destroy(reg);
}
