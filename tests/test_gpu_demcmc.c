/* DE-MCMC with kepler_rv's likelihood on the GPU against the same run with
 * it on the CPU (gpu label): the sampler is the host's either way, so the
 * chains are the same wherever the backends' log-likelihoods (Danby's
 * solver on the GPU, Markley's on the CPU, equal to ~1e-12) decide alike,
 * and the posterior is the same always. */
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

/* The 60 synthetic velocities of examples/data/rv_2planet.txt, 2 planets,
 * priors about the truth; 1024 chains, 400 generations. */
static void run(const char *backend, sl_registry *reg, sl_demcmc_result *r)
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
    SLT_OK(sl_backend_open(backend, &k.be));
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
    c.chains = 1024, c.generations = 400, c.seed = 21;
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
    run("cpu", reg, &a);
    run("cuda", reg, &b);
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
