/* The conformance suite (starling/conformance.h, `starling check-plugin`):
 * every in-tree plugin passes it, with its key checks run rather than
 * skipped; plugins that break the physics contract fail it; plugins the
 * registry refuses are reported with the registry's message. */
#include "sl_test.h"
#include "starling/conformance.h"

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ls_check.h"
#include "slt_files.h"

#define STARLING SL_BUILD_DIR "/bin/starling"

/* A check by name in a result, or NULL. */
static const sl_check *find_check(const sl_check_plugin_result *res, const char *table,
                                  const char *name)
{
    for (size_t i = 0; i < res->n_reports; i++) {
        const sl_check_report *r = &res->reports[i];
        if (table && strcmp(r->table, table) != 0)
            continue;
        for (size_t k = 0; k < r->n; k++)
            if (!strcmp(r->checks[k].name, name))
                return &r->checks[k];
    }
    return NULL;
}

/* Every failed check, one per line, for assertion messages. */
static void list_failures(const sl_check_plugin_result *res, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < res->n_reports; i++)
        for (size_t k = 0; k < res->reports[i].n; k++) {
            const sl_check *c = &res->reports[i].checks[k];
            if (c->result == SL_CHECK_FAIL && used < cap)
                used += (size_t)snprintf(buf + used, cap - used, "\n  %s %s: %s",
                                         res->reports[i].table, c->name, c->detail);
        }
}

/* With lombscargle's layout checks passed by the caller, as a front end
 * may (the plugin exports the same ones). */
static void check_file(const char *path, sl_check_plugin_result *res)
{
    sl_check_options o;
    sl_check_options_default(&o);
    o.extra = &sl_ls_check_extra;
    o.n_extra = 1;
    SLT_OK(sl_check_plugin(path, &o, res));
}

/* Checks `file` from the build's plugin folder: nothing fails, and each
 * check named "table:check" ran and passed. */
/* Every check passes, the plugin has n_tables tables, and each "table:check"
 * of must_pass is there and passed; returns whether the report of table
 * `table` also has a check `extra` (any result; 1 when extra is NULL): one
 * run of the suite for both questions. */
static int passes_keep(const char *file, size_t n_tables, const char *const *must_pass,
                       size_t n_must, const char *table, const char *extra)
{
    char path[512], fails[4096];
    snprintf(path, sizeof path, "%s/%s", SLT_PLUGIN_DIR, file);
    sl_check_plugin_result res;
    check_file(path, &res);
    cr_assert_eq(res.n_reports, n_tables, "%s: %zu tables checked, expected %zu", file,
                 res.n_reports, n_tables);
    list_failures(&res, fails, sizeof fails);
    cr_assert_eq(sl_check_plugin_failures(&res), 0, "%s: failed checks:%s", file, fails);
    for (size_t i = 0; i < n_must; i++) {
        char tname[64];
        const char *colon = strchr(must_pass[i], ':');
        cr_assert(colon);
        snprintf(tname, sizeof tname, "%.*s", (int)(colon - must_pass[i]), must_pass[i]);
        const sl_check *c = find_check(&res, tname, colon + 1);
        cr_assert(c, "%s: no check '%s' for '%s'", file, colon + 1, tname);
        cr_assert_eq(c->result, SL_CHECK_PASS, "%s: %s %s is %s: %s", file, tname, c->name,
                     sl_check_result_name(c->result), c->detail);
    }
    int has = extra ? find_check(&res, table, extra) != NULL : 1;
    sl_check_plugin_result_free(&res);
    return has;
}

static void passes(const char *file, size_t n_tables, const char *const *must_pass, size_t n_must)
{
    passes_keep(file, n_tables, must_pass, n_must, NULL, NULL);
}

#define MUST(...)                                                                          \
    (const char *const[]){__VA_ARGS__},                                                    \
        sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)

TestSuite(check_plugin, .timeout = 60);

Test(check_plugin, hermite_passes)
{
    passes("hermite.so", 2, /* its table and its kernel set with newton */
           MUST("hermite/newton:kernels",
                "hermite:params/schema", "hermite:params/dt", "hermite:pack", "hermite:kernels",
                "hermite:order/newton", "hermite:repeat/newton",
                "hermite:unrolled_vs_runtime_n/newton"));
}

Test(check_plugin, mvs_passes)
{
    passes("mvs.so", 2, /* its table and its kernel set with newton */
           MUST("mvs/newton:kernels",
                "mvs:params/schema", "mvs:params/dt", "mvs:pack", "mvs:kernels",
                "mvs:order/newton", "mvs:repeat/newton", "mvs:unrolled_vs_runtime_n/newton"));
}

/* The rest of the family: each states its order, and the suite measures
 * it (an adaptive one by tightening tol, or eta for hermite_adaptive). */
Test(check_plugin, verlet_passes)
{
    passes("verlet.so", 2, /* its table and its kernel set with newton */
           MUST("verlet/newton:kernels",
                "verlet:params/dt", "verlet:kernels", "verlet:order/newton",
                "verlet:repeat/newton", "verlet:unrolled_vs_runtime_n/newton"));
}

Test(check_plugin, rkck_passes)
{
    passes("rkck.so", 2, /* its table and its kernel set with newton */
           MUST("rkck/newton:kernels",
                "rkck:params/dt", "rkck:kernels", "rkck:order/newton", "rkck:repeat/newton",
                "rkck:unrolled_vs_runtime_n/newton"));
}

Test(check_plugin, rkck_adaptive_passes)
{
    passes("rkck_adaptive.so", 2, /* its table and its kernel set with newton */
           MUST("rkck_adaptive/newton:kernels",
                "rkck_adaptive:kernels", "rkck_adaptive:order/newton",
                "rkck_adaptive:repeat/newton", "rkck_adaptive:unrolled_vs_runtime_n/newton"));
}

Test(check_plugin, hermite_adaptive_passes)
{
    passes("hermite_adaptive.so", 2, /* its table and its kernel set with newton */
           MUST("hermite_adaptive/newton:kernels",
                "hermite_adaptive:kernels", "hermite_adaptive:order/newton",
                "hermite_adaptive:repeat/newton",
                "hermite_adaptive:unrolled_vs_runtime_n/newton"));
}

Test(check_plugin, newton_passes)
{
    passes("newton.so", 1,
           MUST("newton:pack", "newton:gradient", "newton:repeat", "newton:order/hermite"));
}

/* A force built with starling_add_force carries hermite's kernels for it:
 * the kernel set gets an integrator's with-force checks, the only place a
 * force's CUDA code can be compared with the CPU (cuda/plummer: a SKIP
 * here without CUDA, run by test_gpu_check_plugin on the GPU). */
Test(check_plugin, plummer_kernel_set_passes)
{
    passes("plummer.so", 7, /* plummer and a kernel set per in-tree integrator (mvs/plummer
                               empty: no acc_perturb) */
           MUST("plummer:gradient", "plummer:order/hermite", "hermite/plummer:kernels",
                "hermite/plummer:order/plummer", "hermite/plummer:repeat/plummer",
                "hermite/plummer:unrolled_vs_runtime_n/plummer"));
    char path[512];
    snprintf(path, sizeof path, "%s/plummer.so", SLT_PLUGIN_DIR);
    sl_check_plugin_result res;
    check_file(path, &res);
    cr_assert(find_check(&res, "hermite/plummer", "cuda/plummer"), "no CPU-vs-CUDA check");
    sl_check_plugin_result_free(&res);
}

/* gr and j2 are terms: each is checked alone (its gradient) and through
 * the stack that holds it, with only it on, under every in-tree integrator
 * (mvs too: both provide the perturbation part). */
static void term_passes(const char *name)
{
    char file[64], must[3][64];
    snprintf(file, sizeof file, "%s.so", name);
    snprintf(must[0], 64, "%s:gradient", name);
    snprintf(must[1], 64, "%s:order/hermite", name);
    snprintf(must[2], 64, "%s:order/mvs", name);
    const char *const list[] = {must[0], must[1], must[2]};
    passes(file, 1, list, 3);
}

Test(check_plugin, gr_passes) { term_passes("gr"); }
Test(check_plugin, j2_passes) { term_passes("j2"); }

/* The stack newton + gr + j2 carries a kernel set per in-tree integrator;
 * each is checked as its integrator with the stack, both terms on. */
Test(check_plugin, newton_gr_j2_stack_passes)
{
    /* the stack's table and a kernel set per in-tree integrator; one run
     * of the suite (it takes 20 s in the sanitizer build) */
    cr_assert(passes_keep("newton__gr__j2.so", 7,
                          MUST("newton__gr__j2:gradient", "newton__gr__j2:order/hermite",
                               "mvs/newton__gr__j2:kernels",
                               "mvs/newton__gr__j2:order/newton__gr__j2",
                               "mvs/newton__gr__j2:repeat/newton__gr__j2"),
                          "mvs/newton__gr__j2", "cuda/newton__gr__j2"),
              "no CPU-vs-CUDA check in mvs/newton__gr__j2");
}

Test(check_plugin, monitors_pass)
{
    passes("monitors.so", 6,
           MUST("log:configure", "log:params/refuse_bad", "eject:configure", "energy:configure",
                "close_encounter:params/refuse_bad", "nonfinite:configure",
                "collision:configure", "collision:params/refuse_bad"));
}

Test(check_plugin, kepler_rv_passes)
{
    passes("kepler_rv.so", 2, /* the likelihood and its Lua face */
           MUST("kepler_rv:params/schema", "kepler_rv:params/refuse_bad", "kepler_rv:prepare",
                "kepler_rv:prepare/missing_file", "kepler_rv:params", "kepler_rv:repeat",
                "kepler_rv:batch_vs_single"));
}

Test(check_plugin, lombscargle_passes)
{
    passes("lombscargle.so", 4, /* the periodogram, its Lua face, `ls` and its checks */
           MUST("lombscargle:params/schema", "lombscargle:configure", "lombscargle:repeat",
                "lombscargle:batch_vs_single", "lombscargle:refuse_bad"));
}

/* A lens model (SL_KIND_LENS) is checked by its head, as a periodogram
 * is, and the report says the rest of its layout is the plugin's. The
 * plugin's second table, the photometric likelihood, is prepared on its
 * own example_data, not refused on the generated RV file, so
 * every data check runs and passes. */
Test(check_plugin, lens_model_head_checked_layout_skipped)
{
    char path[512];
    snprintf(path, sizeof path, "%s/microlensing.so", SLT_PLUGIN_DIR);
    sl_check_options o;
    sl_check_options_default(&o);
    sl_check_plugin_result res;
    SLT_OK(sl_check_plugin(path, &o, &res));
    cr_assert_eq(res.n_reports, 3);
    cr_assert_eq(res.reports[0].kind, SL_KIND_LENS);
    cr_assert_eq(res.reports[1].kind, SL_KIND_LIKELIHOOD);
    cr_assert_eq(res.reports[2].kind, SL_KIND_LUA_FACE);
    const sl_check_report *lk = &res.reports[1];
    static const char *const must[] = {"prepare", "params", "repeat", "batch_vs_single",
                                       "data/memory_vs_file", "threads/distinct_contexts"};
    for (size_t i = 0; i < sizeof must / sizeof *must; i++) {
        const sl_check *c = NULL;
        for (size_t k = 0; k < lk->n; k++)
            if (!strcmp(lk->checks[k].name, must[i]))
                c = &lk->checks[k];
        cr_assert(c && c->result == SL_CHECK_PASS, "likelihood check %s: %s", must[i],
                  c ? c->detail : "missing");
        if (i == 0)
            cr_assert(strstr(c->detail, "example_data"), "%s", c->detail);
    }
    cr_assert_eq(lk->n_fail, 0u);
    const sl_check *schema = find_check(&res, "microlensing", "params/schema");
    const sl_check *layout = find_check(&res, "microlensing", "layout");
    cr_assert(schema && schema->result == SL_CHECK_PASS);
    cr_assert(layout && layout->result == SL_CHECK_SKIP);
    cr_assert(strstr(layout->detail, "a lens model table's layout is its plugin's"), "%s",
              layout->detail);
    sl_check_plugin_result_free(&res);
}

/* Core knows a periodogram table by its head only; the checks of its
 * layout come with the plugin (an SL_KIND_CHECKS table), so check-plugin
 * runs them with no options, once, after core's; checks the caller passes
 * for the same table take their place rather than run twice. */
static size_t count_checks(const sl_check_plugin_result *res, const char *table,
                           const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < res->n_reports; i++)
        for (size_t k = 0; k < res->reports[i].n; k++)
            n += !strcmp(res->reports[i].table, table) &&
                 !strcmp(res->reports[i].checks[k].name, name);
    return n;
}

Test(check_plugin, periodogram_layout_checks_come_from_the_plugin)
{
    char path[512];
    snprintf(path, sizeof path, "%s/lombscargle.so", SLT_PLUGIN_DIR);
    sl_check_options o;
    sl_check_options_default(&o);
    sl_check_plugin_result res;
    SLT_OK(sl_check_plugin(path, &o, &res));
    cr_assert_eq(res.reports[0].kind, SL_KIND_PERIODOGRAM);
    cr_assert_null(find_check(&res, "lombscargle", "layout"), "the layout was not checked");
    const sl_check *rep = find_check(&res, "lombscargle", "repeat");
    cr_assert(rep && rep->result == SL_CHECK_PASS);
    cr_assert_eq(count_checks(&res, "lombscargle", "repeat"), 1);
    cr_assert_eq(res.reports[0].checks[0].result, SL_CHECK_PASS, "core's checks come first");
    cr_assert_str_eq(res.reports[0].checks[0].name, "params/schema");
    sl_check_plugin_result_free(&res);

    check_file(path, &res);
    cr_assert_eq(count_checks(&res, "lombscargle", "repeat"), 1, "the checks ran twice");
    sl_check_plugin_result_free(&res);
}

/* Every plugin in the build's folder is checked, not only those above (20 s
 * here; 13 plugins take over 120 s in the sanitizer build). */
Test(check_plugin, every_plugin_in_the_folder_passes, .timeout = 400)
{
    DIR *d = opendir(SLT_PLUGIN_DIR);
    cr_assert(d, "cannot open %s", SLT_PLUGIN_DIR);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 4 || strcmp(de->d_name + len - 3, ".so"))
            continue;
        char path[512], fails[4096];
        snprintf(path, sizeof path, "%s/%s", SLT_PLUGIN_DIR, de->d_name);
        sl_check_plugin_result res;
        check_file(path, &res);
        list_failures(&res, fails, sizeof fails);
        cr_assert_eq(sl_check_plugin_failures(&res), 0, "%s: failed checks:%s", de->d_name,
                     fails);
        cr_assert_gt(res.n_reports, 0, "%s: no tables checked", de->d_name);
        sl_check_plugin_result_free(&res);
        n++;
    }
    closedir(d);
    cr_assert_geq(n, 5, "only %d plugins in %s", n, SLT_PLUGIN_DIR);
}

/* ---- the suite can fail ---------------------------------------------------------- */

Test(check_plugin, integrator_below_its_stated_order_fails)
{
    sl_check_plugin_result res;
    check_file(SLT_PHYSICS_DIR "/euler_order4.so", &res);
    const sl_check *c = find_check(&res, "slt_euler", "order/newton");
    cr_assert(c, "no order check for slt_euler");
    cr_assert_eq(c->result, SL_CHECK_FAIL, "order of a first-order method stated as 4: %s: %s",
                 sl_check_result_name(c->result), c->detail);
    const char *m = strstr(c->detail, "measured order ");
    cr_assert(m, "detail: %s", c->detail);
    double order = strtod(m + strlen("measured order "), NULL);
    cr_assert(order > 0.7 && order < 1.3, "symplectic Euler measured as order %g: %s", order,
              c->detail);
    cr_assert_gt(sl_check_plugin_failures(&res), 0);
    sl_check_plugin_result_free(&res);
}

/* An adaptive integrator is checked, not skipped: its order from its
 * error against its steps as 'tol' tightens, its repeatability for any
 * steps per launch, unrolled against runtime-N; the same method stating a
 * higher order fails. */
static double measured_order(const sl_check *c)
{
    const char *m = strstr(c->detail, "measured order ");
    cr_assert(m, "detail: %s", c->detail);
    return strtod(m + strlen("measured order "), NULL);
}

Test(check_plugin, adaptive_integrator_is_checked, .timeout = 120)
{
    sl_check_plugin_result res;
    char fails[4096];
    check_file(SLT_PHYSICS_DIR "/heun/heun.so", &res);
    list_failures(&res, fails, sizeof fails);
    cr_assert_eq(sl_check_plugin_failures(&res), 0, "failures:%s", fails);
    const char *must[] = {"kernels", "order/newton", "repeat/newton",
                          "unrolled_vs_runtime_n/newton"};
    for (int i = 0; i < 4; i++) {
        const sl_check *c = find_check(&res, "slt_heun", must[i]);
        cr_assert(c, "no check %s", must[i]);
        cr_assert_eq(c->result, SL_CHECK_PASS, "%s: %s: %s", must[i],
                     sl_check_result_name(c->result), c->detail);
    }
    const sl_check *o = find_check(&res, "slt_heun", "order/newton");
    cr_assert(strstr(o->detail, "adaptive"), "%s", o->detail);
    double order = measured_order(o);
    cr_assert(order > 1.7 && order < 2.3, "Heun measured as order %g: %s", order, o->detail);
    cr_assert(strstr(find_check(&res, "slt_heun", "repeat/newton")->detail, "adaptive"));
    sl_check_plugin_result_free(&res);

    check_file(SLT_PHYSICS_DIR "/heun_order4/heun_order4.so", &res);
    o = find_check(&res, "slt_heun", "order/newton");
    cr_assert(o, "no order check");
    cr_assert_eq(o->result, SL_CHECK_FAIL, "a second-order method stated as 4: %s: %s",
                 sl_check_result_name(o->result), o->detail);
    order = measured_order(o);
    cr_assert(order > 1.7 && order < 2.3, "Heun measured as order %g: %s", order, o->detail);
    sl_check_plugin_result_free(&res);
}

/* A likelihood on core's API only passes, data from memory included; the
 * same likelihood losing a row of data from memory fails that check. */
Test(check_plugin, likelihood_whose_memory_data_differ_fails)
{
    sl_check_plugin_result res;
    check_file(SLT_PHYSICS_DIR "/tiny/tiny.so", &res);
    char fails[4096];
    list_failures(&res, fails, sizeof fails);
    cr_assert_eq(sl_check_plugin_failures(&res), 0, "slt_tiny: failed checks:%s", fails);
    const sl_check *c = find_check(&res, "slt_tiny", "data/memory_vs_file");
    cr_assert(c && c->result == SL_CHECK_PASS, "%s", c ? c->detail : "no check");
    cr_assert(strstr(c->detail, "the file's 60 rows as 4 named columns in memory"), "%s",
              c->detail);
    sl_check_plugin_result_free(&res);

    check_file(SLT_PHYSICS_DIR "/tiny_memory/tiny_memory.so", &res);
    c = find_check(&res, "slt_tiny", "data/memory_vs_file");
    cr_assert(c, "no data/memory_vs_file check");
    cr_assert_eq(c->result, SL_CHECK_FAIL, "%s: %s", sl_check_result_name(c->result), c->detail);
    cr_assert(strstr(c->detail, "from the file") && strstr(c->detail, "in memory"), "%s",
              c->detail);
    cr_assert_eq(sl_check_plugin_failures(&res), 1, "only that check fails");
    sl_check_plugin_result_free(&res);
}

/* Contexts that share mutable state break likelihood.h's thread contract:
 * two threads evaluating two contexts at once must catch it. */
Test(check_plugin, likelihood_sharing_state_between_contexts_fails)
{
    sl_check_plugin_result res;
    check_file(SLT_PHYSICS_DIR "/tiny_shared/tiny_shared.so", &res);
    const sl_check *c = find_check(&res, "slt_tiny", "threads/distinct_contexts");
    cr_assert(c, "no threads/distinct_contexts check");
    cr_assert_eq(c->result, SL_CHECK_FAIL, "%s: %s", sl_check_result_name(c->result), c->detail);
    cr_assert(strstr(c->detail, "while another context was evaluated"), "%s", c->detail);
    cr_assert_eq(find_check(&res, "slt_tiny", "batch_vs_single")->result, SL_CHECK_PASS,
                 "alone, the plugin is right");
    sl_check_plugin_result_free(&res);
    check_file(SLT_PHYSICS_DIR "/tiny/tiny.so", &res);
    c = find_check(&res, "slt_tiny", "threads/distinct_contexts");
    cr_assert(c && c->result == SL_CHECK_PASS, "%s", c ? c->detail : "no check");
    c = find_check(&res, "slt_tiny", "cuda");
    cr_assert(c && c->result == SL_CHECK_SKIP && strstr(c->detail, "CPU only"), "%s",
              c ? c->detail : "no check");
    sl_check_plugin_result_free(&res);
}

/* A CPU-only likelihood from outside the tree: "auto" picks the CPU and
 * says why, "cuda" is refused naming the plugin, and data from a script's
 * tables reach it through core's reader. */
Test(check_plugin, cpu_only_likelihood_backend_choice)
{
    char dir[600], script[1200], cmd[2400];
    snprintf(dir, sizeof dir, "%s", "/tmp/sl_check_cpu_only_XXXXXX");
    cr_assert(mkdtemp(dir));
    snprintf(script, sizeof script, "%s/s.lua", dir);
    FILE *f = fopen(script, "w");
    cr_assert(f);
    fputs("local s = require 'starling'\n"
          "local D = {t = {0, 1, 2, 3}, y = {1, 3, 5, 7.5}, err = {1, 1, 1, 1}}\n"
          "local L = s.likelihood{name = 'slt_tiny', data = D}\n"
          "print(L:info().backend)\n"
          "print(L:eval({1, 2}))\n"
          "print(pcall(s.likelihood, 'slt_tiny', {data = D, backend = 'cuda'}))\n"
          "print(pcall(s.likelihood, 'slt_tiny', {data = D, backend = 'cuda:1'}))\n"
          "for _, p in ipairs(s.plugins()) do\n"
          "  if p.name == 'slt_tiny' then print(table.concat(p.backends, ','), "
          "table.concat(p.precisions, ',')) end\n"
          "end\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "STARLING_PLUGIN_PATH='%s/tiny' '%s' run '%s' > '%s/out.txt' "
             "2>&1", SLT_PHYSICS_DIR, STARLING, script, dir);
    int st = system(cmd);
    snprintf(script, sizeof script, "%s/out.txt", dir);
    char *out = slt_slurp(script);
    cr_assert(out);
    cr_expect_eq(st, 0, "%s", out);
    const char *want[] = {
        "cpu (", "auto, likelihood 'slt_tiny' runs on the CPU only\n",
        "-0.125\t",
        "false\t", "likelihood 'slt_tiny': key 'backend' = \"cuda\": likelihood 'slt_tiny' runs "
        "on the CPU only (built without CUDA code); use backend = \"cpu\" or \"auto\"",
        "key 'backend' = \"cuda:1\": likelihood 'slt_tiny' runs on the CPU only",
        "cpu\tdouble\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(out, want[i]), "no \"%s\" in:\n%s", want[i], out);
    free(out);
    unlink(script);
    snprintf(script, sizeof script, "%s/s.lua", dir);
    unlink(script);
    rmdir(dir);
}

Test(check_plugin, force_that_is_not_the_gradient_fails)
{
    sl_check_plugin_result res;
    check_file(SLT_PHYSICS_DIR "/not_gradient.so", &res);
    const sl_check *c = find_check(&res, "slt_off_gradient", "gradient");
    cr_assert(c, "no gradient check");
    cr_assert_eq(c->result, SL_CHECK_FAIL, "%s: %s", sl_check_result_name(c->result), c->detail);
    /* its acceleration is Newton's, the potential 1.1 times too deep */
    cr_assert(strstr(c->detail, "= 0.1 (bound"), "detail: %s", c->detail);
    sl_check_plugin_result_free(&res);
}

/* A plugin of another author that keeps the contract passes. */
Test(check_plugin, foreign_good_monitor_passes)
{
    sl_check_plugin_result res;
    check_file(SLT_BAD_DIR "/good/slt_good.so", &res);
    cr_assert_eq(res.n_reports, 1);
    cr_assert_eq(sl_check_plugin_failures(&res), 0);
    cr_assert_str_eq(res.plugin, "slt_good");
    sl_check_plugin_result_free(&res);
}

/* ---- refusals: the registry's message, naming the file ---------------------------- */

static void refused(const char *path, sl_status want, const char *phrase)
{
    sl_check_options o;
    sl_check_options_default(&o);
    sl_check_plugin_result res;
    sl_status st = sl_check_plugin(path, &o, &res);
    cr_assert_eq(st, want, "%s: status %s, expected %s (%s)", path, sl_status_name(st),
                 sl_status_name(want), sl_last_error());
    cr_assert(strstr(sl_last_error(), phrase), "%s: message \"%s\" lacks \"%s\"", path,
              sl_last_error(), phrase);
    cr_assert_eq(res.n_reports, 0);
    sl_check_plugin_result_free(&res);
}

Test(check_plugin, wrong_abi_is_reported)
{
    refused(SLT_BAD_DIR "/abi_plugin/abi_plugin.so", SL_ERR_PLUGIN, "ABI version");
    refused(SLT_BAD_DIR "/abi_plugin/abi_plugin.so", SL_ERR_PLUGIN, "abi_plugin.so");
}

Test(check_plugin, missing_entry_is_reported)
{
    refused(SLT_BAD_DIR "/no_entry/no_entry.so", SL_ERR_PLUGIN, "has no symbol sl_plugin_entry");
}

Test(check_plugin, missing_file_is_reported)
{
    refused("/nonexistent/plugin.so", SL_ERR_IO, "/nonexistent/plugin.so");
}

/* ---- the executable ----------------------------------------------------------------- */

typedef struct run_out {
    int status;
    char *out, *err;
} run_out;

static run_out run_starling(const char *args)
{
    char base[256], cmd[2048], out_path[300], err_path[300];
    slt_tmpdir(base, sizeof base, "/tmp/sl_test_check");
    snprintf(out_path, sizeof out_path, "%s/stdout", base);
    snprintf(err_path, sizeof err_path, "%s/stderr", base);
    snprintf(cmd, sizeof cmd, "'%s' check-plugin %s >'%s' 2>'%s'", STARLING, args, out_path,
             err_path);
    int st = system(cmd);
    run_out o = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slt_slurp(out_path), slt_slurp(err_path)};
    slt_rmtree(base);
    cr_assert(o.out && o.err, "no output captured for: %s", cmd);
    return o;
}

Test(check_plugin, executable_reports_and_sets_the_exit_status, .timeout = 120)
{
    run_out o = run_starling("--cpu-only " SLT_PLUGIN_DIR "/hermite.so");
    cr_assert_eq(o.status, 0, "stdout:\n%s\nstderr:\n%s", o.out, o.err);
    cr_assert(strstr(o.out, "integrator 'hermite':"), "%s", o.out);
    cr_assert(strstr(o.out, "PASS  order/newton"), "%s", o.out);
    cr_assert(strstr(o.out, "measured order 4."), "%s", o.out);
    cr_assert(strstr(o.out, "SKIP  cuda/newton"), "%s", o.out);
    cr_assert(strstr(o.out, " 0 failed"), "%s", o.out);
    free(o.out), free(o.err);

    o = run_starling(SLT_PHYSICS_DIR "/euler_order4.so");
    cr_assert_eq(o.status, 1, "stdout:\n%s\nstderr:\n%s", o.out, o.err);
    cr_assert(strstr(o.out, "FAIL  order/newton"), "%s", o.out);
    free(o.out), free(o.err);

    o = run_starling(SLT_BAD_DIR "/abi_plugin/abi_plugin.so");
    cr_assert_eq(o.status, 1);
    cr_assert(strstr(o.err, "ABI version"), "%s", o.err);
    free(o.out), free(o.err);

    o = run_starling("--bogus x.so");
    cr_assert_eq(o.status, 2);
    cr_assert(strstr(o.err, "--bogus"), "%s", o.err);
    free(o.out), free(o.err);
}
