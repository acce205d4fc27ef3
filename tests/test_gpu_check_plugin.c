/* GPU suite: the conformance suite's CPU-against-CUDA checks on the
 * in-tree plugins that have CUDA code (each integrator with newton, the
 * kernel sets of plummer and of the stack newton__gr__j2, kepler_rv in
 * double and mixed precision, lombscargle), with a GPU required: each must
 * run and pass, not skip. Skips when no CUDA device is usable, fails then
 * if SL_REQUIRE_GPU=1. */
#include "sl_test.h"
#include "starling/conformance.h"

#include "ls_check.h"

/* Every check named in names, in every report of the plugin (a force's
 * kernel sets each have one), must pass; at least min_each of each. */
static void cuda_checks_pass_n(const char *file, const char *const *names, size_t n,
                               size_t min_each)
{
    SLT_REQUIRE_GPU();
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SLT_PLUGIN_DIR, file);
    sl_check_options o;
    sl_check_options_default(&o);
    o.cuda = SL_CHECK_CUDA_REQUIRE;
    o.extra = &sl_ls_check_extra;
    o.n_extra = 1;
    sl_check_plugin_result res;
    SLT_OK(sl_check_plugin(path, &o, &res));
    for (size_t k = 0; k < n; k++) {
        size_t found = 0;
        for (size_t i = 0; i < res.n_reports; i++)
            for (size_t j = 0; j < res.reports[i].n; j++) {
                const sl_check *c = &res.reports[i].checks[j];
                if (strcmp(c->name, names[k]))
                    continue;
                found++;
                cr_assert_eq(c->result, SL_CHECK_PASS, "%s: %s is %s: %s", file, c->name,
                             sl_check_result_name(c->result), c->detail);
                fprintf(stderr, "gpu_check_plugin: %s %s: %s\n", file, c->name, c->detail);
            }
        cr_assert(found >= min_each, "%s: %zu checks '%s', expected at least %zu", file, found,
                  names[k], min_each);
    }
    cr_assert_eq(sl_check_plugin_failures(&res), 0, "%s: failed checks", file);
    sl_check_plugin_result_free(&res);
}

static void cuda_checks_pass(const char *file, const char *const *names, size_t n)
{
    cuda_checks_pass_n(file, names, n, 1);
}

Test(gpu_check_plugin, hermite, .timeout = 120)
{
    static const char *const n[] = {"cuda/newton"};
    cuda_checks_pass("hermite.so", n, 1);
}

/* mvs: Kepler drifts and the perturbation part on the GPU. */
Test(gpu_check_plugin, mvs, .timeout = 120)
{
    static const char *const n[] = {"cuda/newton"};
    cuda_checks_pass("mvs.so", n, 1);
}

Test(gpu_check_plugin, verlet, .timeout = 120)
{
    static const char *const n[] = {"cuda/newton"};
    cuda_checks_pass("verlet.so", n, 1);
}

Test(gpu_check_plugin, rkck, .timeout = 120)
{
    static const char *const n[] = {"cuda/newton"};
    cuda_checks_pass("rkck.so", n, 1);
}

/* Per-system steps with rejections, on the GPU. */
Test(gpu_check_plugin, rkck_adaptive, .timeout = 120)
{
    static const char *const n[] = {"cuda/newton"};
    cuda_checks_pass("rkck_adaptive.so", n, 1);
}

Test(gpu_check_plugin, hermite_adaptive, .timeout = 120)
{
    static const char *const n[] = {"cuda/newton"};
    cuda_checks_pass("hermite_adaptive.so", n, 1);
}

/* A force's CUDA code is reached through its kernel sets: plummer's for
 * every integrator that can use it. */
Test(gpu_check_plugin, plummer, .timeout = 120)
{
    static const char *const n[] = {"cuda/plummer"};
    /* hermite, verlet, rkck, rkck_adaptive, hermite_adaptive (mvs's set is
     * empty: plummer has no perturbation part) */
    cuda_checks_pass_n("plummer.so", n, 1, 5);
}

/* The terms gr and j2 carry no kernels: their stack with newton does, a
 * kernel set for every one of the six integrators (mvs included: newton,
 * gr and j2 each have a perturbation part), checked with all terms on. */
Test(gpu_check_plugin, newton_gr_j2_stack, .timeout = 180)
{
    static const char *const n[] = {"cuda/newton__gr__j2"};
    cuda_checks_pass_n("newton__gr__j2.so", n, 1, 6);
}

Test(gpu_check_plugin, kepler_rv, .timeout = 120)
{
    static const char *const n[] = {"cuda", "cuda/mixed"};
    cuda_checks_pass("kepler_rv.so", n, 2);
}

Test(gpu_check_plugin, lombscargle, .timeout = 120)
{
    static const char *const n[] = {"cuda"};
    cuda_checks_pass("lombscargle.so", n, 1);
}
