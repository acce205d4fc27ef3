/* DE-MCMC with kepler_rv's likelihood on the GPU against the same run with
 * it on the CPU (gpu label): with the sampler on the host, the chains are
 * the same wherever the backends' log-likelihoods (Danby's solver on the
 * GPU, Markley's on the CPU, equal to ~1e-12) decide alike, and the
 * posterior is the same always. With whole generations on the device
 * (device_target), the draws are the host's code on the host's random
 * numbers, so the chains stay within rounding of the host's but where a
 * decision flips. */
#include "sl_test.h"

#include "starling/demcmc.h"
#include "starling/mcmc_diag.h"

typedef struct lik {
    const sl_likelihood *l;
    void *ctx;
    sl_backend be;
} lik;

static sl_status target(void *ud, const double *p, int64_t n, double *out)
{
    lik *k = ud;
    return k->l->eval_batch(k->ctx, &k->be, p, (size_t)n, out);
}

static sl_status device_target(void *ud, const double *p, int64_t n, const int *count,
                                double *out, void *stream)
{
    lik *k = ud;
    return k->l->eval_batch_device(k->ctx, p, (size_t)n, count, out, stream);
}

static sl_status device_half(void *ud, const struct sl_dm_half *h, void *stream)
{
    lik *k = ud;
    return k->l->demcmc_half_device(k->ctx, h, stream);
}

typedef struct how {
    const char *backend;
    int device;           /* generations on the device */
    int archive;          /* DE-MCz */
    double snooker;
    int fused;            /* half-generations in kepler_rv's kernel (demcmc_fused.h) */
    int64_t chains, generations; /* 0: 1024, 400 */
    int64_t time_every;   /* 0: the default */
} how;

/* The 60 synthetic velocities of examples/data/rv_2planet.txt, 2 planets,
 * priors about the truth; 1024 chains, 400 generations. */
static void run(how h, sl_registry *reg, sl_demcmc_result *r)
{
    const void *t;
    SLT_OK(sl_registry_get(reg, SL_KIND_LIKELIHOOD, "kepler_rv", &t));
    lik k = {t, NULL, {0}};
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, k.l->params, k.l->n_params));
    SLT_OK(sl_params_set(&pv, "planets", 2));
    char path[512];
    snprintf(path, sizeof path, "%s/examples/data/rv_2planet.txt", SL_SOURCE_DIR);
    sl_data d = sl_data_file(path);
    SLT_OK(k.l->prepare(&pv, &d, &k.ctx));
    SLT_OK(sl_backend_open(h.backend, &k.be));
    const double T = 6.283185307179586;
    sl_prior pr[12] = {
        {.kind = SL_PRIOR_UNIFORM, .lo = 14, .hi = 15.2},
        {.kind = SL_PRIOR_UNIFORM, .lo = 10, .hi = 50},
        {.kind = SL_PRIOR_UNIFORM, .lo = 0, .hi = 0.5},
        {.kind = SL_PRIOR_UNIFORM, .lo = 0, .hi = T, .periodic = 1},
        {.kind = SL_PRIOR_UNIFORM, .lo = 0, .hi = T, .periodic = 1},
        {.kind = SL_PRIOR_UNIFORM, .lo = 90, .hi = 105},
        {.kind = SL_PRIOR_UNIFORM, .lo = 5, .hi = 30},
        {.kind = SL_PRIOR_UNIFORM, .lo = 0, .hi = 0.6},
        {.kind = SL_PRIOR_UNIFORM, .lo = 0, .hi = T, .periodic = 1},
        {.kind = SL_PRIOR_UNIFORM, .lo = 0, .hi = T, .periodic = 1},
        {.kind = SL_PRIOR_UNIFORM, .lo = -20, .hi = 10},
        {.kind = SL_PRIOR_FIXED, .value = 2.5},
    };
    sl_demcmc_config c;
    sl_demcmc_config_default(&c);
    c.chains = h.chains ? h.chains : 1024, c.generations = h.generations ? h.generations : 400;
    c.seed = 21;
    c.archive = h.archive, c.snooker = h.snooker, c.device_time_every = h.time_every;
    /* the 400 kept generations go out in batches of 7, the last one short:
     * the double-buffered copies out, each slot in its place */
    c.device_batch = 7;
    if (h.device) {
        cr_assert(k.l->eval_batch_device, "kepler_rv has no device entry");
        c.device_target = device_target, c.device_target_ud = &k;
    }
    if (h.fused) {
        cr_assert(k.l->demcmc_half_device, "kepler_rv has no fused half-generation");
        c.device_half = device_half, c.device_half_ud = &k;
    }
    SLT_OK(sl_demcmc_run(&c, 12, pr, NULL, target, &k, NULL, 0, r));
    k.l->release(k.ctx);
}

Test(gpu_demcmc, cuda_likelihood_gives_the_cpu_chains, .timeout = 300)
{
    SLT_REQUIRE_GPU();
    sl_registry *reg;
    SLT_OK(sl_registry_create(&reg));
    SLT_OK(sl_registry_load_default(reg));
    sl_demcmc_result a, b;
    run((how){.backend = "cpu"}, reg, &a);
    run((how){.backend = "cuda"}, reg, &b);
    const int64_t N = a.chains, D = 12;
    int64_t differ = 0;
    for (int64_t i = 0; i < N; i++)
        differ += memcmp(a.last + i * D, b.last + i * D, (size_t)D * sizeof(double)) != 0;
    cr_log_info("chains whose last state differs: %lld of %lld", (long long)differ, (long long)N);
    /* a decision can flip only where ln u falls within ~1e-12 of the
     * posterior ratio: expected ~1e-6 of the 4e5 decisions */
    cr_assert(differ <= N / 100, "%lld of %lld chains differ", (long long)differ, (long long)N);
    for (int p = 0; p < 11; p++) {
        sl_mcmc_diag x, y;
        SLT_OK(sl_mcmc_diagnose(a.samples + p, a.kept, N, N * D, (int)D, &x));
        SLT_OK(sl_mcmc_diagnose(b.samples + p, b.kept, N, N * D, (int)D, &y));
        cr_assert(fabs(x.q50 - y.q50) <= 0.05 * x.sd, "parameter %d: median %.10g on the CPU, "
                  "%.10g on the GPU (sd %g)", p + 1, x.q50, y.q50, x.sd);
    }
    sl_demcmc_result_free(&a), sl_demcmc_result_free(&b);
    sl_registry_destroy(reg);
}

/* Chains whose last state differs from the other run's by more than
 * `tol` relative in any parameter. */
static int64_t chains_apart(const sl_demcmc_result *a, const sl_demcmc_result *b, double tol)
{
    const int64_t N = a->chains, D = a->n_params;
    int64_t apart = 0;
    for (int64_t i = 0; i < N; i++) {
        int far = 0;
        for (int64_t p = 0; p < D; p++) {
            double x = a->last[i * D + p], y = b->last[i * D + p];
            far |= fabs(x - y) > tol * fmax(1.0, fabs(x));
        }
        apart += far;
    }
    return apart;
}

/* The whole generation on the device against the host sampler with the
 * CPU likelihood: the same chains to rounding (but where a decision flips
 * on the backends' last bits), the same counts, the same posterior. */
static void device_as_host(how dev, how host)
{
    SLT_REQUIRE_GPU();
    sl_registry *reg;
    SLT_OK(sl_registry_create(&reg));
    SLT_OK(sl_registry_load_default(reg));
    sl_demcmc_result a, b;
    run(host, reg, &a);
    run(dev, reg, &b);
    const int64_t N = a.chains, D = 12;
    int64_t apart = chains_apart(&a, &b, 1e-8);
    int64_t same = 0;
    for (int64_t i = 0; i < N; i++)
        same += !memcmp(a.last + i * D, b.last + i * D, (size_t)D * sizeof(double));
    int64_t acc_a = 0, acc_b = 0;
    for (int64_t i = 0; i < N; i++)
        acc_a += a.accepted[i], acc_b += b.accepted[i];
    cr_log_info("archive %d, snooker %g: %lld of %lld chains apart (> 1e-8), %lld bit for bit; "
                "accepted %lld and %lld; evaluations %lld and %lld; outside %lld and %lld; "
                "likelihood %.3f of %.3f s on the device", dev.archive, dev.snooker,
                (long long)apart, (long long)N, (long long)same, (long long)acc_a,
                (long long)acc_b, (long long)a.evaluations, (long long)b.evaluations,
                (long long)a.outside, (long long)b.outside, b.target_s, b.wall_s);
    cr_assert(apart <= N / 100, "%lld of %lld chains apart", (long long)apart, (long long)N);
    cr_assert(a.kept == 400 && b.kept == 400);
    int64_t rows_apart = chains_apart(&(sl_demcmc_result){.chains = a.kept * N, .n_params = D,
                                                          .last = a.samples},
                                      &(sl_demcmc_result){.chains = b.kept * N, .n_params = D,
                                                          .last = b.samples}, 1e-8);
    int64_t lp_apart = 0;
    for (int64_t j = 0; j < a.kept * N; j++)
        lp_apart += fabs(a.logpost[j] - b.logpost[j]) > 1e-8 * fmax(1.0, fabs(a.logpost[j]));
    cr_log_info("kept draws apart (> 1e-8): %lld states, %lld log posteriors of %lld",
                (long long)rows_apart, (long long)lp_apart, (long long)(a.kept * N));
    cr_assert(rows_apart <= a.kept * N / 100 && lp_apart <= a.kept * N / 100,
              "kept draws apart: %lld states, %lld log posteriors of %lld", (long long)rows_apart,
              (long long)lp_apart, (long long)(a.kept * N));
    cr_assert(llabs(acc_a - acc_b) <= acc_a / 100, "accepted %lld on the host, %lld on the "
              "device", (long long)acc_a, (long long)acc_b);
    cr_assert(llabs(a.evaluations - b.evaluations) <= a.evaluations / 100 &&
              llabs(a.outside - b.outside) <= a.outside / 100 + 10, "evaluations %lld, %lld; "
              "outside %lld, %lld", (long long)a.evaluations, (long long)b.evaluations,
              (long long)a.outside, (long long)b.outside);
    cr_assert(b.target_s > 0.0 && b.target_s < b.wall_s);
    if (dev.archive)
        cr_assert(b.archive_rows == a.archive_rows &&
                  chains_apart(&(sl_demcmc_result){.chains = a.archive_rows, .n_params = D,
                                                   .last = a.archive},
                               &(sl_demcmc_result){.chains = b.archive_rows, .n_params = D,
                                                   .last = b.archive}, 1e-8) <=
                      a.archive_rows / 100,
                  "the archives differ");
    for (int p = 0; p < 11; p++) {
        sl_mcmc_diag x, y;
        SLT_OK(sl_mcmc_diagnose(a.samples + p, a.kept, N, N * D, (int)D, &x));
        SLT_OK(sl_mcmc_diagnose(b.samples + p, b.kept, N, N * D, (int)D, &y));
        cr_assert(fabs(x.q50 - y.q50) <= 0.05 * x.sd, "parameter %d: median %.10g on the host, "
                  "%.10g on the device (sd %g)", p + 1, x.q50, y.q50, x.sd);
    }
    sl_demcmc_result_free(&a), sl_demcmc_result_free(&b);
    sl_registry_destroy(reg);
}

Test(gpu_demcmc, device_generations_as_the_host_sampler, .timeout = 300)
{
    device_as_host((how){.backend = "cuda", .device = 1}, (how){.backend = "cpu"});
}

Test(gpu_demcmc, device_dez_snooker_as_the_host_sampler, .timeout = 300)
{
    device_as_host((how){.backend = "cuda", .device = 1, .archive = 1, .snooker = 0.1}, (how){.backend = "cpu", .archive = 1, .snooker = 0.1});
}

Test(gpu_demcmc, fused_generations_as_the_host_sampler, .timeout = 300)
{
    device_as_host((how){.backend = "cuda", .device = 1, .fused = 1}, (how){.backend = "cpu"});
}

static int64_t bytes_differ(const double *a, const double *b, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        k += memcmp(a + i, b + i, sizeof *a) != 0;
    return k;
}

/* Fused half-generations against the sampler's own kernels around the
 * device entry: the same draws (the moves' products are SL_DMUL, so the
 * plugin's FMA contraction cannot touch them), the same ln L (the same
 * model code at the same lanes a model), so the same chains bit for bit:
 * every kept draw, log posterior and log-likelihood, every count. */
static void fused_as_unfused(how h)
{
    SLT_REQUIRE_GPU();
    sl_registry *reg;
    SLT_OK(sl_registry_create(&reg));
    SLT_OK(sl_registry_load_default(reg));
    sl_demcmc_result a, b;
    how f = h;
    h.fused = 0, f.fused = 1;
    h.time_every = 1; /* timing every step or every 16th changes no draw */
    run(h, reg, &a);
    run(f, reg, &b);
    cr_assert(!a.fused && b.fused, "fused: %d and %d", a.fused, b.fused);
    const int64_t N = a.chains, D = a.n_params, K = a.kept;
    cr_assert(K == b.kept && N == b.chains && K > 0);
    int64_t xs = bytes_differ(a.samples, b.samples, K * N * D);
    int64_t lps = bytes_differ(a.logpost, b.logpost, K * N);
    int64_t lls = bytes_differ(a.loglike, b.loglike, K * N);
    int64_t last = bytes_differ(a.last, b.last, N * D), acc = 0, acc_a = 0;
    for (int64_t i = 0; i < N; i++)
        acc += a.accepted[i] != b.accepted[i], acc_a += a.accepted[i];
    cr_log_info("%lld chains, %lld kept, archive %d, snooker %g: differ %lld of %lld states, "
                "%lld and %lld of %lld log posteriors and likelihoods, %lld last, %lld "
                "acceptance counts (%lld accepted); evaluations %lld and %lld, outside %lld and "
                "%lld; wall %.3f and %.3f s", (long long)N, (long long)K, h.archive, h.snooker,
                (long long)xs, (long long)(K * N * D), (long long)lps, (long long)lls,
                (long long)(K * N), (long long)last, (long long)acc, (long long)acc_a,
                (long long)a.evaluations, (long long)b.evaluations, (long long)a.outside,
                (long long)b.outside, a.wall_s, b.wall_s);
    cr_assert(acc_a > N, "hardly any proposal was taken (%lld): nothing compared",
              (long long)acc_a);
    cr_assert(xs == 0 && lps == 0 && lls == 0 && last == 0 && acc == 0,
              "the fused run's chains are not the unfused run's");
    cr_assert(a.evaluations == b.evaluations && a.outside == b.outside && a.nan == b.nan,
              "evaluations %lld, %lld; outside %lld, %lld; NaN %lld, %lld",
              (long long)a.evaluations, (long long)b.evaluations, (long long)a.outside,
              (long long)b.outside, (long long)a.nan, (long long)b.nan);
    if (h.archive)
        cr_assert(a.archive_rows == b.archive_rows &&
                  bytes_differ(a.archive, b.archive, a.archive_rows * D) == 0);
    sl_demcmc_result_free(&a), sl_demcmc_result_free(&b);
    sl_registry_destroy(reg);
}

Test(gpu_demcmc, fused_halves_give_the_unfused_chains, .timeout = 300)
{
    /* 512 chains a half: a warp a chain */
    fused_as_unfused((how){.backend = "cuda", .device = 1});
    /* DE-MCz with the snooker: the snooker's serial proposal on lane 0 */
    fused_as_unfused((how){.backend = "cuda", .device = 1, .archive = 1, .snooker = 0.1});
    /* 16,384 chains a half: 4 lanes a chain, 6 parameter pairs on 4 lanes */
    fused_as_unfused((how){.backend = "cuda", .device = 1, .chains = 32768, .generations = 30});
}

/* The likelihood's device time measured on every 16th step and scaled,
 * against every step measured: the same chains bit for bit (events change
 * no draw), and a time inside the run. How close the estimate comes is a
 * benchmark's business (docs/BENCHMARKS.md): Criterion runs this file's
 * tests at once, on one GPU, so a kernel's time here is anyone's. */
Test(gpu_demcmc, sampled_likelihood_time_changes_no_draw, .timeout = 300)
{
    SLT_REQUIRE_GPU();
    sl_registry *reg;
    SLT_OK(sl_registry_create(&reg));
    SLT_OK(sl_registry_load_default(reg));
    sl_demcmc_result a, b;
    how h = {.backend = "cuda", .device = 1, .chains = 2048};
    h.time_every = 16;
    run(h, reg, &a);
    h.time_every = 1;
    run(h, reg, &b);
    const int64_t N = a.chains, D = a.n_params;
    cr_log_info("likelihood %.4f s measured on every 16th step and scaled, %.4f s on every step; "
                "wall %.3f and %.3f s", a.target_s, b.target_s, a.wall_s, b.wall_s);
    cr_assert(a.kept == b.kept && a.kept > 0);
    cr_assert(bytes_differ(a.last, b.last, N * D) == 0 &&
              bytes_differ(a.samples, b.samples, a.kept * N * D) == 0 &&
              bytes_differ(a.logpost, b.logpost, a.kept * N) == 0 &&
              a.evaluations == b.evaluations && a.outside == b.outside,
              "timing changed the chains");
    cr_assert(a.target_s > 0.0 && a.target_s < a.wall_s && b.target_s > 0.0 &&
              b.target_s < b.wall_s, "likelihood %.4f of %.4f s (every 16th, scaled), %.4f of "
              "%.4f s (every one)", a.target_s, a.wall_s, b.target_s, b.wall_s);
    sl_demcmc_result_free(&a), sl_demcmc_result_free(&b);
    sl_registry_destroy(reg);
}
