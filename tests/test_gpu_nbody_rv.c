/* GPU suite: nbody_rv and ttv on CUDA against the CPU backend on the same
 * models: 512 parameter sets scattered around a GJ 876-like resonant pair
 * (REBOUND's velocities and transits from tests/data as the data, apart
 * and joined), some thrown out by their own interaction and some outside
 * the domain.
 *
 * The same code is compiled twice, and FMA contraction and the device's
 * sin and cos differ from the host's in the last bit. Many of these
 * models amplify a last-bit difference over ten years of a resonant pair:
 * on the CPU alone, parameters moved by one ulp change ln L by up to 6e-3
 * (nbody_rv) and by order 1 (ttv, where a transit crosses the window's
 * edge or the nearest-transit match changes, and refusals flip). So each
 * model's conditioning is measured on the CPU (ln L at parameters moved by
 * one ulp and by 1e-14, up, down and with random signs), and the models
 * whose ln L moves by at most 1e-11 relative (a hundredth of the bound)
 * and whose refusal does not flip under any of them must agree to 1e-9
 * and be refused alike; they must be at least a quarter of the batch (CPU
 * against itself: 381, 251 and 252 of 512 for nbody_rv, joined and ttv).
 * The reasons counted on the device are the CPU's, give or take
 * the flipped refusals. */
#include "sl_test.h"

#include <unistd.h>

#include "starling/cuda_nbodies.h"

static char path[256];

static void write_data(int ttv)
{
    snprintf(path, sizeof path, "/tmp/sl_gpu_nbody_%d_%d.csv", (int)getpid(), ttv);
    FILE *in = fopen(ttv ? SL_TEST_DATA_DIR "/nbody_ttv_gj876_rebound.csv"
                         : SL_TEST_DATA_DIR "/nbody_rv_gj876_rebound.csv", "r");
    FILE *f = fopen(path, "w");
    cr_assert(in && f);
    fprintf(f, ttv ? "planet,time,error\n" : "time,rv,err\n");
    char line[256];
    double a, b;
    while (fgets(line, sizeof line, in))
        if (line[0] != '#' && sscanf(line, "%lf,%lf", &a, &b) == 2)
            fprintf(f, ttv ? "%.0f,%.17g,0.001\n" : "%.17g,%.17g,2.0\n", a, b);
    fclose(in);
    fclose(f);
}

static void run_with(const char *name, int ttv, int integrator, int joint, double epoch,
                     int threads);

static void run(const char *name, int ttv, int integrator)
{
    run_with(name, ttv, integrator, 0, 0.0, 1);
}

/* Marks the models whose ln L is steady: at parameters moved by one ulp
 * and by 1e-14 relative, all up, all down, and with random signs, on the
 * CPU, ln L moves by at most 1e-11 relative and no refusal flips. One
 * direction alone is not enough: the device's rounding differs from the
 * host's inside the integration, not along one line in parameter space,
 * and models steady along one line flip along another. */
static void steady_models(const sl_likelihood *l, void *ctx, const sl_backend *cpu,
                          const double *p, size_t n, size_t np, const double *ll0,
                          unsigned char *steady)
{
    double *pu = malloc(n * np * sizeof *pu), *llu = malloc(n * sizeof *llu),
           *c2u = malloc(n * sizeof *c2u);
    memset(steady, 1, n);
    const double eps[] = {0x1p-52, -0x1p-52, 1e-14, -1e-14};
    for (int e = 0; e < 4; e++)
        for (int random_signs = 0; random_signs < 2; random_signs++) {
            sl_rng r;
            sl_rng_init(&r, 101 + e, 0);
            for (size_t k = 0; k < n * np; k++)
                pu[k] = p[k] * (1.0 + (random_signs && sl_rng_uniform(&r) < 0.5 ? -eps[e]
                                                                                  : eps[e]));
            SLT_OK(l->eval_batch_chi2(ctx, cpu, pu, n, llu, c2u));
            for (size_t s = 0; s < n; s++) {
                const int inf0 = ll0[s] == -INFINITY, infu = llu[s] == -INFINITY;
                if (inf0 != infu || (!inf0 && fabs(llu[s] - ll0[s]) > 1e-11 * fabs(ll0[s])))
                    steady[s] = 0;
            }
        }
    free(pu);
    free(llu);
    free(c2u);
}

static void run_with(const char *name, int ttv, int integrator, int joint, double epoch,
                     int threads)
{
    SLT_REQUIRE_GPU();
    char tr_path[256] = "";
    if (joint) { /* the transits first, kept under their own name */
        write_data(1);
        snprintf(tr_path, sizeof tr_path, "%s", path);
        snprintf(path, sizeof path, "/tmp/sl_gpu_nbody_%d_j.csv", (int)getpid());
        rename(tr_path, path);
        snprintf(tr_path, sizeof tr_path, "%s", path);
    }
    write_data(ttv);
    sl_registry *reg;
    SLT_OK(sl_registry_create(&reg));
    SLT_OK(sl_registry_load_default(reg));
    const void *t;
    SLT_OK(sl_registry_get(reg, SL_KIND_LIKELIHOOD, name, &t));
    const sl_likelihood *l = t;
    void *ctx;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, l->params, l->n_params));
    SLT_OK(sl_params_set(&pv, "planets", 2));
    SLT_OK(sl_params_set(&pv, "epoch", epoch));
    SLT_OK(sl_params_set(&pv, "threads_per_model", threads));
    SLT_OK(sl_params_set(&pv, "mstar", 0.32));
    SLT_OK(sl_params_set(&pv, "integrator", integrator));
    SLT_OK(sl_params_set(&pv, "steps", integrator ? 400 : 100));
    SLT_OK(sl_params_complete(&pv));
    sl_data d = sl_data_file(path), trd = sl_data_file(tr_path);
    const sl_data_named more[1] = {{"transits", &trd}};
    if (joint)
        d.more = more, d.n_more = 1;
    SLT_OK(l->prepare(&pv, &d, &ctx));
    size_t np;
    const char *const *names;
    const double *lo, *hi;
    SLT_OK(l->free_params(ctx, &np, &names, &lo, &hi));
    enum { N = 512 };
    double *p = calloc(N * np, sizeof *p), ll[2][N], c2[2][N];
    sl_rng r;
    sl_rng_init(&r, 11, 0);
    /* GJ 876 b and c-like; ttv: P, m (Earth masses), secosw, sesinw, tc */
    const double rv0[10] = {30.126, 88.34, 0.2531, 0.8, 2.1, 61.082, 212.07, 0.0354, 0.4, 5.4};
    const double tv0[10] = {30.126, 230.0, 0.4, 0.36, 22.14, 61.082, 715.0, 0.17, 0.07, 40.0};
    for (size_t s = 0; s < N; s++) {
        double *q = p + s * np;
        for (int k = 0; k < 10; k++) {
            const double base = ttv ? tv0[k] : rv0[k];
            const double spread = k % 5 == 0 ? 0.002 : k % 5 == 4 ? 0.05 : 0.1;
            q[k] = base * (1.0 + spread * (2.0 * sl_rng_uniform(&r) - 1.0));
        }
        if (!ttv)
            q[10] = 1.0, q[11] = 1.0;
        if (s % 37 == 5) /* masses a hundred times larger: many are thrown out */
            q[1] *= 100.0, q[6] *= 100.0;
    }
    p[3 * np + 2] = 1.5; /* outside the domain */
    sl_backend cpu, gpu;
    SLT_OK(sl_backend_open("cpu", &cpu));
    SLT_OK(sl_backend_open("cuda", &gpu));
    SLT_OK(l->eval_batch_chi2(ctx, &cpu, p, N, ll[0], c2[0]));
    size_t n;
    const char *const *cn;
    const uint64_t *cc;
    uint64_t cpu_counts[8] = {0};
    SLT_OK(l->counters(ctx, &n, &cn, &cc));
    cr_assert(n <= 8);
    memcpy(cpu_counts, cc, n * sizeof *cc);
    SLT_OK(l->eval_batch_chi2(ctx, &gpu, p, N, ll[1], c2[1]));
    SLT_OK(l->counters(ctx, &n, &cn, &cc));
    uint64_t both[8] = {0}; /* cc is the context's: the next call changes it */
    memcpy(both, cc, n * sizeof *cc);
    /* each model's conditioning, on the CPU */
    unsigned char *steady_at = malloc(N);
    steady_models(l, ctx, &cpu, p, N, np, ll[0], steady_at);
    double worst = 0.0;
    int refused = 0, steady = 0, flipped = 0;
    for (size_t s = 0; s < N; s++) {
        const int well = steady_at[s];
        flipped += (ll[0][s] == -INFINITY) != (ll[1][s] == -INFINITY);
        if (!well)
            continue;
        steady++;
        cr_expect((ll[0][s] == -INFINITY) == (ll[1][s] == -INFINITY),
                  "%s model %zu: CPU %g, GPU %g", name, s, ll[0][s], ll[1][s]);
        if (ll[0][s] == -INFINITY || ll[1][s] == -INFINITY) {
            refused++;
            continue;
        }
        worst = fmax(worst, fabs(ll[1][s] - ll[0][s]) / fabs(ll[0][s]));
    }
    cr_expect(worst < 1e-9, "%s: worst |GPU - CPU| / |ln L| = %g over %d steady models", name,
              worst, steady);
    cr_expect(steady >= N / 4, "%s: only %d of %d models are steady", name, steady, N);
    cr_expect(refused >= 2 && refused < N / 2, "%s: %d refused", name, refused);
    for (size_t i = 0; i < n; i++) { /* the device's counts are the CPU's again */
        const long long d = (long long)both[i] - 2 * (long long)cpu_counts[i];
        cr_expect(d <= flipped && -d <= flipped, "%s: %s: %llu after both, %llu on the CPU, %d "
                  "refusals flipped", name, cn[i], (unsigned long long)both[i],
                  (unsigned long long)cpu_counts[i], flipped);
    }
    free(steady_at);
    fprintf(stderr, "%s%s (%s, epoch %g, %d thread%s a model): %d of %d models steady, %d of them refused, worst relative "
            "difference %.3g; %d refusals differ among the others\n", name,
            joint ? " joined with ttv" : "", integrator ? "hermite" : "mvs", epoch, threads,
            threads > 1 ? "s" : "", steady, N, refused,
            worst, flipped);
    l->release(ctx);
    free(p);
    sl_registry_destroy(reg);
    unlink(path);
    if (joint)
        unlink(tr_path);
}

Test(gpu_nbody_rv, rv_mvs_matches_cpu) { run("nbody_rv", 0, 0); }
/* hermite has no kernel: the cuda backend says so and names the way out */
Test(gpu_nbody_rv, hermite_on_cuda_is_refused)
{
    SLT_REQUIRE_GPU();
    write_data(0);
    sl_registry *reg;
    SLT_OK(sl_registry_create(&reg));
    SLT_OK(sl_registry_load_default(reg));
    const void *t;
    SLT_OK(sl_registry_get(reg, SL_KIND_LIKELIHOOD, "nbody_rv", &t));
    const sl_likelihood *l = t;
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, l->params, l->n_params));
    SLT_OK(sl_params_set(&pv, "planets", 2));
    SLT_OK(sl_params_set(&pv, "integrator", 1));
    SLT_OK(sl_params_complete(&pv));
    sl_data d = sl_data_file(path);
    void *ctx;
    SLT_OK(l->prepare(&pv, &d, &ctx));
    sl_backend gpu;
    SLT_OK(sl_backend_open("cuda", &gpu));
    double p[12] = {30.126, 88.34, 0.2531, 0.8, 2.1, 61.082, 212.07, 0.0354, 0.4, 5.4, 0, 1}, ll;
    cr_expect_neq(l->eval_batch(ctx, &gpu, p, 1, &ll), SL_OK);
    cr_expect(strstr(sl_last_error(), "hermite") && strstr(sl_last_error(), "backend = \"cpu\""),
              "%s", sl_last_error());
    l->release(ctx);
    sl_registry_destroy(reg);
    unlink(path);
}
Test(gpu_nbody_rv, ttv_mvs_matches_cpu) { run("ttv", 1, 0); }
Test(gpu_nbody_rv, rv_and_transits_joined_match_cpu) { run_with("nbody_rv", 0, 0, 1, 0.0, 1); }
/* Two threads a model: the epoch mid-data, so that each thread has half the
 * velocities (the sums added by a shuffle, the forward run's refusal
 * first); and transits alone, where the backward thread has nothing. */
Test(gpu_nbody_rv, rv_two_threads_a_model_match_cpu) { run_with("nbody_rv", 0, 0, 0, 913.0, 2); }
Test(gpu_nbody_rv, ttv_two_threads_a_model_match_cpu) { run_with("ttv", 1, 0, 0, 0.0, 2); }

/* Every planet count the parameter allows: a widely spaced system of n
 * planets (periods 30 d x 2.3^j, K 3 m/s, e 0.05: weakly interacting,
 * so ln L is well conditioned) on CUDA against the CPU where the build's
 * SL_CUDA_NBODIES lists n + 1 bodies, and refused, naming the counts it
 * runs, where it does not. */
Test(gpu_nbody_rv, every_planet_count_matches_cpu_or_is_refused)
{
    SLT_REQUIRE_GPU();
    write_data(0);
    const int has[8] = {0, 0, SL_CUDA_N_2, SL_CUDA_N_3, SL_CUDA_N_4,
                        SL_CUDA_N_5, SL_CUDA_N_6, SL_CUDA_N_7};
    sl_registry *reg;
    SLT_OK(sl_registry_create(&reg));
    SLT_OK(sl_registry_load_default(reg));
    const void *t;
    SLT_OK(sl_registry_get(reg, SL_KIND_LIKELIHOOD, "nbody_rv", &t));
    const sl_likelihood *l = t;
    sl_backend cpu, gpu;
    SLT_OK(sl_backend_open("cpu", &cpu));
    SLT_OK(sl_backend_open("cuda", &gpu));
    int ran = 0;
    for (int n_pl = 1; n_pl <= 6; n_pl++) {
        sl_param_values pv;
        SLT_OK(sl_params_init(&pv, l->params, l->n_params));
        SLT_OK(sl_params_set(&pv, "planets", n_pl));
        SLT_OK(sl_params_complete(&pv));
        sl_data d = sl_data_file(path);
        void *ctx;
        SLT_OK(l->prepare(&pv, &d, &ctx));
        size_t np;
        const char *const *names;
        const double *lo, *hi;
        SLT_OK(l->free_params(ctx, &np, &names, &lo, &hi));
        cr_assert_eq(np, (size_t)(5 * n_pl + 2), "%d planets: %zu parameters", n_pl, np);
        enum { N = 64 };
        double *p = calloc(N * np, sizeof *p), ll[2][N];
        sl_rng r;
        sl_rng_init(&r, 23 + n_pl, 0);
        for (size_t s = 0; s < N; s++) {
            double *q = p + s * np;
            for (int j = 0; j < n_pl; j++) {
                const double base[5] = {30.0 * pow(2.3, j), 3.0, 0.05, 1.0 + j, 2.0 + 0.5 * j};
                for (int k = 0; k < 5; k++)
                    q[5 * j + k] = base[k] * (1.0 + 0.01 * (2.0 * sl_rng_uniform(&r) - 1.0));
            }
            q[5 * n_pl] = 1.0, q[5 * n_pl + 1] = 1.0; /* offset, jitter */
        }
        SLT_OK(l->eval_batch(ctx, &cpu, p, N, ll[0]));
        const sl_status st = l->eval_batch(ctx, &gpu, p, N, ll[1]);
        if (has[n_pl + 1]) {
            SLT_OK(st);
            double worst = 0.0;
            for (size_t s = 0; s < N; s++) {
                cr_assert(isfinite(ll[0][s]) && isfinite(ll[1][s]),
                          "%d planets, model %zu: CPU %g, GPU %g", n_pl, s, ll[0][s], ll[1][s]);
                worst = fmax(worst, fabs(ll[1][s] - ll[0][s]) / fabs(ll[0][s]));
            }
            cr_expect(worst < 1e-9, "%d planets: worst |GPU - CPU| / |ln L| = %g", n_pl, worst);
            fprintf(stderr, "%d planets on CUDA: worst relative difference %.3g over %d models\n",
                    n_pl, worst, N);
            ran++;
        } else {
            cr_expect_neq(st, SL_OK, "%d planets: the build lists no %d bodies", n_pl, n_pl + 1);
            cr_expect(strstr(sl_last_error(), "SL_CUDA_NBODIES") &&
                          strstr(sl_last_error(), "backend = \"cpu\""),
                      "%s", sl_last_error());
            fprintf(stderr, "%d planets refused on CUDA: %s\n", n_pl, sl_last_error());
        }
        l->release(ctx);
        free(p);
    }
    cr_expect(ran >= 1, "no planet count ran on CUDA");
    sl_registry_destroy(reg);
    unlink(path);
}
