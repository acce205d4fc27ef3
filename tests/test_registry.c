/* The plugin registry: broken plugins are refused with a message naming the
 * file and what is wrong; a folder scan records them as problems and still
 * loads the good ones; unknown names list what is available.
 *
 * The broken plugins are built from tests/plugins/test_plugin.c into
 * SLT_BAD_DIR/<case>/ (and all together into SLT_BAD_DIR/mixed/); those of
 * tests/plugins/traits_plugin.c into SLT_BAD_DIR/<case>/ only. */
#define _GNU_SOURCE
#include <limits.h>

#include "sl_test.h"

#ifndef SLT_BAD_DIR
#error "SLT_BAD_DIR must name the folder of the test plugins"
#endif
#ifndef SLT_PLUGIN_DIR
#error "SLT_PLUGIN_DIR must name the folder of the real plugins"
#endif

static void case_path(char *buf, size_t cap, const char *dir, const char *file)
{
    snprintf(buf, cap, "%s/%s/%s", SLT_BAD_DIR, dir, file);
}

/* Loads one file into a fresh registry and checks the refusal. */
static void expect_refused(const char *dir, const char *file, const char *phrase)
{
    char path[PATH_MAX];
    case_path(path, sizeof path, dir, file);
    sl_registry *r;
    SLT_OK(sl_registry_create(&r));
    sl_clear_error();
    sl_status st = sl_registry_load_file(r, path);
    cr_assert_eq(st, SL_ERR_PLUGIN, "%s: status %s (%s)", path, sl_status_name(st),
                 sl_last_error());
    const char *msg = sl_last_error();
    cr_assert(strstr(msg, path), "message does not name the file %s: %s", path, msg);
    cr_assert(strstr(msg, phrase), "message lacks \"%s\": %s", phrase, msg);
    cr_assert_eq(sl_registry_count(r), 0, "a refused plugin left tables behind");
    cr_assert_eq(sl_registry_problem_count(r), 0, "load_file reports through its status");
    sl_registry_destroy(r);
}

Test(registry, good_test_plugin_loads)
{
    char path[PATH_MAX];
    case_path(path, sizeof path, "good", "slt_good.so");
    sl_registry *r;
    SLT_OK(sl_registry_create(&r));
    SLT_OK(sl_registry_load_file(r, path));
    cr_assert_eq(sl_registry_count(r), 1);
    const sl_registry_item *it = sl_registry_at(r, 0);
    cr_assert_eq(it->kind, SL_KIND_MONITOR);
    cr_assert_str_eq(it->name, "slt_good");
    cr_assert_str_eq(it->path, path);
    cr_assert_str_eq(it->plugin->name, "slt_good");
    cr_assert_null(sl_registry_at(r, 1));
    const sl_monitor *m = sl_registry_find(r, SL_KIND_MONITOR, "slt_good");
    cr_assert_not_null(m);
    cr_assert_eq((const void *)m, it->table);
    sl_monitor_config mc;
    sl_monitor_config_default(&mc);
    SLT_OK(m->configure(NULL, &mc));
    cr_assert_eq(mc.eject_r, 42.0, "the table really is the plugin's code");
    cr_assert_null(sl_registry_find(r, SL_KIND_FORCE, "slt_good"), "kinds are separate");
    /* the same file again is a no-op */
    SLT_OK(sl_registry_load_file(r, path));
    cr_assert_eq(sl_registry_count(r), 1);
    sl_registry_destroy(r);
}

Test(registry, wrong_plugin_abi)
{
    expect_refused("abi_plugin", "abi_plugin.so", "ABI version");
    char want[64];
    snprintf(want, sizeof want, "ABI version %u, but this starling has ABI version %u",
             SL_ABI_VERSION + 1u, SL_ABI_VERSION);
    expect_refused("abi_plugin", "abi_plugin.so", want);
}

Test(registry, wrong_table_abi)
{
    char want[96];
    snprintf(want, sizeof want, "monitor 'slt_old' has ABI version %u", SL_ABI_VERSION + 7u);
    expect_refused("abi_table", "abi_table.so", want);
}

Test(registry, missing_entry_symbol)
{
    expect_refused("no_entry", "no_entry.so", "has no symbol sl_plugin_entry");
}

Test(registry, entry_returns_null)
{
    expect_refused("null_entry", "null_entry.so", "sl_plugin_entry returned NULL");
}

Test(registry, not_an_elf_file)
{
    expect_refused("notelf", "notelf.so", "cannot be loaded");
}

Test(registry, missing_file)
{
    expect_refused("nowhere", "absent.so", "cannot be loaded");
}

Test(registry, table_name_mismatch)
{
    expect_refused("name_mismatch", "name_mismatch.so", "table 'slt_other' is named 'slt_good'");
}

Test(registry, table_declared_twice)
{
    expect_refused("twice", "twice.so", "monitor 'slt_good' is declared twice");
}

/* launch.h's limit on packed parameters, which only the table knows */
Test(registry, packed_count_out_of_range)
{
    expect_refused("packed", "packed.so",
                   "force 'slt_packed' declares n_packed = 9: expected 0..8");
}

/* A stack's name (base__term) is a stack's only, and the caps of core's
 * table for a run's list are core's only (force_stack.h). */
Test(registry, stack_names_and_list_caps_are_reserved)
{
    expect_refused("stack_name", "stack_name.so",
                   "force 'slt__stack': a force's name has no '__'");
    expect_refused("list_cap", "list_cap.so",
                   "force 'slt_list' has SL_FORCE_CAP_LIST, which only core's table");
}

Test(registry, no_tables)
{
    expect_refused("no_tables", "no_tables.so", "declares no name or no tables");
}

/* The head every table starts with is checked the same way for every kind. */
Test(registry, head_kind_differs_from_listing)
{
    expect_refused("kind_mismatch", "kind_mismatch.so",
                   "table 'slt_kind' is listed as a monitor but its head says kind 2 (force)");
}

Test(registry, head_param_default_out_of_bounds)
{
    expect_refused("bad_default", "bad_default.so",
                   "monitor 'slt_default': parameters: key 'r': default 5 outside [0, 1]");
}

Test(registry, head_param_declared_twice)
{
    expect_refused("dup_param", "dup_param.so",
                   "monitor 'slt_dup_param': parameters: key 'r' is declared twice");
}

/* A likelihood must say what it runs on and in (likelihood.h). */
Test(registry, likelihood_without_capabilities)
{
    expect_refused("lik_no_caps", "lik_no_caps.so",
                   "likelihood 'slt_no_caps': backends = 0: expected SL_BACKEND_CAN_CPU and/or "
                   "SL_BACKEND_CAN_CUDA");
}

/* Faces are tables the front end calls into: one it could not call, or a
 * command it could mistake for an option, is refused with the reason. */
Test(registry, refuses_malformed_faces)
{
    expect_refused("face_empty", "face_empty.so",
                   "Lua face 'slt_face' has neither open nor a chunk");
    expect_refused("cmd_name", "cmd_name.so",
                   "command '-x': a command is named by one word without '/', '.', blanks or "
                   "a leading '-'");
    expect_refused("cmd_no_main", "cmd_no_main.so", "command 'slt_cmd' has no main");
}

static const char *const dm_words[] = {"double", "mixed", NULL};
static const char *const ds_words[] = {"double", "single", NULL};
static const char *const d_words[] = {"double", NULL};

static void expect_caps(uint32_t backends, uint32_t precisions, const sl_param *p, size_t n,
                        const char *phrase)
{
    sl_likelihood l = {.abi = SL_ABI_VERSION, .kind = SL_KIND_LIKELIHOOD, .name = "x",
                       .params = p, .n_params = n, .backends = backends,
                       .precisions = precisions};
    sl_clear_error();
    sl_status st = sl_likelihood_check_caps(&l);
    if (!phrase) {
        cr_assert_eq(st, SL_OK, "%s", sl_last_error());
        return;
    }
    cr_assert_neq(st, SL_OK, "accepted; expected \"%s\"", phrase);
    cr_assert(strstr(sl_last_error(), phrase), "\"%s\" not in: %s", phrase, sl_last_error());
}

Test(registry, likelihood_capabilities_agree_with_the_precision_option)
{
    const sl_param dm[] = {{"precision", SL_PARAM_WORD, 0, 0, 0, 0, "", dm_words, NULL}};
    const sl_param ds[] = {{"precision", SL_PARAM_WORD, 0, 0, 0, 0, "", ds_words, NULL}};
    const sl_param d[] = {{"precision", SL_PARAM_WORD, 0, 0, 0, 0, "", d_words, NULL}};
    const sl_param num[] = {{"precision", SL_PARAM_INTEGER, 0, 0, 1, 0, "", NULL, NULL}};
    unsigned cpu = SL_BACKEND_CAN_CPU;
    expect_caps(cpu, SL_PRECISION_DOUBLE, NULL, 0, NULL);
    expect_caps(cpu | SL_BACKEND_CAN_CUDA, SL_PRECISION_DOUBLE | SL_PRECISION_MIXED, dm, 1, NULL);
    expect_caps(cpu, SL_PRECISION_DOUBLE, d, 1, NULL);
    expect_caps(cpu, SL_PRECISION_DOUBLE, num, 1, NULL);
    expect_caps(8, SL_PRECISION_DOUBLE, NULL, 0, "backends = 0x8");
    expect_caps(cpu, 0, NULL, 0, "precisions = 0");
    expect_caps(cpu, 16, NULL, 0, "precisions = 0x10");
    expect_caps(cpu, SL_PRECISION_DOUBLE | SL_PRECISION_MIXED, NULL, 0,
                "several precisions but no word option 'precision'");
    expect_caps(cpu, SL_PRECISION_DOUBLE | SL_PRECISION_MIXED, num, 1,
                "several precisions but no word option 'precision'");
    expect_caps(cpu, SL_PRECISION_DOUBLE | SL_PRECISION_MIXED, ds, 1,
                "option 'precision' offers \"single\", which is not a precision it declares");
    expect_caps(cpu, SL_PRECISION_DOUBLE | SL_PRECISION_MIXED, d, 1,
                "it declares precision \"mixed\" but option 'precision' does not offer it");
    expect_caps(cpu, SL_PRECISION_DOUBLE, dm, 1,
                "option 'precision' offers \"mixed\", which is not a precision it declares");
}

Test(registry, duplicate_name_in_two_plugins)
{
    char a[PATH_MAX], b[PATH_MAX];
    case_path(a, sizeof a, "dup", "dup_a.so");
    case_path(b, sizeof b, "dup", "dup_b.so");
    sl_registry *r;
    SLT_OK(sl_registry_create(&r));
    SLT_OK(sl_registry_load_file(r, a));
    sl_status st = sl_registry_load_file(r, b);
    cr_assert_eq(st, SL_ERR_PLUGIN);
    const char *msg = sl_last_error();
    cr_assert(strstr(msg, b), "message does not name the refused file: %s", msg);
    cr_assert(strstr(msg, "force 'newton' is already provided by"), "message: %s", msg);
    cr_assert(strstr(msg, a), "message does not name the first provider: %s", msg);
    cr_assert_eq(sl_registry_count(r), 1);
    cr_assert_str_eq(sl_registry_at(r, 0)->path, a, "the first one loaded stays");
    sl_registry_destroy(r);
}

/* The real newton plugin and a test plugin that also calls itself newton. */
Test(registry, duplicate_of_a_real_plugin)
{
    char dir[PATH_MAX], real[PATH_MAX + 16], b[PATH_MAX];
    cr_assert_not_null(realpath(SLT_PLUGIN_DIR, dir));
    snprintf(real, sizeof real, "%s/newton.so", dir);
    case_path(b, sizeof b, "dup", "dup_a.so");
    sl_registry *r;
    SLT_OK(sl_registry_create(&r));
    SLT_OK(sl_registry_load_dir(r, SLT_PLUGIN_DIR));
    cr_assert_eq(sl_registry_problem_count(r), 0, "problem: %s", sl_registry_problem(r, 0));
    cr_assert_eq(sl_registry_load_file(r, b), SL_ERR_PLUGIN);
    cr_assert(strstr(sl_last_error(), "already provided by") && strstr(sl_last_error(), real),
              "message: %s", sl_last_error());
    sl_registry_destroy(r);
}

/* A folder with every case: the good plugin and the first of the
 * duplicates load, every other .so is a problem (in name order), other
 * files are ignored, and the scan itself succeeds. */
Test(registry, load_dir_records_problems_and_loads_good_plugins)
{
    char dir[PATH_MAX], canon[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/mixed", SLT_BAD_DIR);
    cr_assert_not_null(realpath(dir, canon));
    sl_registry *r;
    SLT_OK(sl_registry_create(&r));
    SLT_OK(sl_registry_load_dir(r, dir));
    struct {
        const char *file, *phrase;
    } want[] = {
        {"abi_plugin.so", "ABI version"},
        {"abi_table.so", "'slt_old' has ABI version"},
        {"bad_default.so", "key 'r': default 5 outside [0, 1]"},
        {"cmd_name.so", "command '-x': a command is named by one word"},
        {"cmd_no_main.so", "command 'slt_cmd' has no main"},
        {"dup_b.so", "force 'newton' is already provided by"},
        {"dup_param.so", "key 'r' is declared twice"},
        {"face_empty.so", "Lua face 'slt_face' has neither open nor a chunk"},
        {"kind_mismatch.so", "is listed as a monitor but its head says kind 2"},
        {"lik_no_caps.so", "likelihood 'slt_no_caps': backends = 0"},
        {"list_cap.so", "has SL_FORCE_CAP_LIST"},
        {"name_mismatch.so", "is named 'slt_good' inside"},
        {"no_entry.so", "has no symbol sl_plugin_entry"},
        {"no_tables.so", "declares no name or no tables"},
        {"notelf.so", "cannot be loaded"},
        {"null_entry.so", "returned NULL"},
        {"packed.so", "declares n_packed = 9"},
        {"stack_name.so", "a force's name has no '__'"},
        /* slt_good.so came first, so the clash with it is found first */
        {"twice.so", "monitor 'slt_good' is already provided by"},
    };
    size_t nw = sizeof want / sizeof want[0];
    for (size_t i = 0; i < sl_registry_problem_count(r); i++)
        cr_log_info("problem %zu: %s", i, sl_registry_problem(r, i));
    cr_assert_eq(sl_registry_problem_count(r), nw, "%zu problems, expected %zu",
                 sl_registry_problem_count(r), nw);
    for (size_t i = 0; i < nw; i++) {
        const char *p = sl_registry_problem(r, i);
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s", canon, want[i].file);
        cr_assert(strstr(p, path), "problem %zu does not name %s: %s", i, path, p);
        cr_assert(strstr(p, want[i].phrase), "problem %zu lacks \"%s\": %s", i, want[i].phrase, p);
    }
    cr_assert_null(sl_registry_problem(r, nw));
    /* loaded: dup_a (force newton) and slt_good (monitor) */
    cr_assert_eq(sl_registry_count(r), 2);
    cr_assert_not_null(sl_registry_find(r, SL_KIND_MONITOR, "slt_good"));
    const sl_force *f = sl_registry_find(r, SL_KIND_FORCE, "newton");
    cr_assert_not_null(f);
    cr_assert_str_eq(f->description, "a second force named newton");
    /* scanning the same folder again changes nothing */
    SLT_OK(sl_registry_load_dir(r, dir));
    cr_assert_eq(sl_registry_problem_count(r), nw);
    cr_assert_eq(sl_registry_count(r), 2);
    sl_registry_destroy(r);
}

Test(registry, absent_folder_is_not_an_error)
{
    sl_registry *r;
    SLT_OK(sl_registry_create(&r));
    SLT_OK(sl_registry_load_dir(r, SLT_BAD_DIR "/does-not-exist"));
    cr_assert_eq(sl_registry_count(r), 0);
    cr_assert_eq(sl_registry_problem_count(r), 0);
    sl_registry_destroy(r);
}

Test(registry, unknown_name_lists_available)
{
    slt_plugins p;
    slt_load(&p);
    cr_assert_eq(sl_registry_problem_count(p.reg), 0, "problem: %s",
                 sl_registry_problem(p.reg, 0));
    const void *t = (const void *)1;
    sl_status st = sl_registry_get(p.reg, SL_KIND_FORCE, "newtonian", &t);
    cr_assert_eq(st, SL_ERR_ARG);
    cr_assert_null(t);
    cr_assert(strstr(sl_last_error(), "unknown force 'newtonian'"), "%s", sl_last_error());
    cr_assert(strstr(sl_last_error(), "available: gr, j2, newton, plummer"), "%s",
              sl_last_error());
    st = sl_registry_get(p.reg, SL_KIND_MONITOR, "ejection", &t);
    cr_assert_eq(st, SL_ERR_ARG);
    const char *names[] = {"log", "eject", "close_encounter", "nonfinite", "energy", "collision"};
    for (int i = 0; i < 6; i++)
        cr_assert(strstr(sl_last_error(), names[i]), "'%s' missing from: %s", names[i],
                  sl_last_error());
    cr_assert(!strstr(sl_last_error(), "hermite"), "other kinds listed: %s", sl_last_error());
    st = sl_registry_get(p.reg, SL_KIND_PROPAGATOR, "leapfrog", &t);
    cr_assert_eq(st, SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "unknown integrator 'leapfrog'; available: hermite"), "%s",
              sl_last_error());
    st = sl_registry_get(p.reg, SL_KIND_LIKELIHOOD, "nothing", &t);
    cr_assert_eq(st, SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "unknown likelihood 'nothing'"), "%s", sl_last_error());
    slt_unload(&p);

    /* an empty registry says where to look */
    sl_registry *r;
    SLT_OK(sl_registry_create(&r));
    cr_assert_eq(sl_registry_get(r, SL_KIND_FORCE, "newton", &t), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "STARLING_PLUGIN_PATH"), "%s", sl_last_error());
    sl_registry_destroy(r);
}

Test(registry, default_path_finds_build_plugins_and_env_path)
{
    /* Criterion forks per test, so the environment change stays here. */
    char good[PATH_MAX];
    snprintf(good, sizeof good, "%s/good", SLT_BAD_DIR);
    setenv("STARLING_PLUGIN_PATH", good, 1);
    sl_registry *r;
    SLT_OK(sl_registry_create(&r));
    SLT_OK(sl_registry_load_default(r));
    cr_assert_eq(sl_registry_problem_count(r), 0, "problem: %s", sl_registry_problem(r, 0));
    cr_assert_not_null(sl_registry_find(r, SL_KIND_MONITOR, "slt_good"));
    cr_assert_not_null(sl_registry_find(r, SL_KIND_PROPAGATOR, "hermite"));
    cr_assert_not_null(sl_registry_find(r, SL_KIND_FORCE, "newton"));
    cr_assert_not_null(sl_registry_find(r, SL_KIND_MONITOR, "energy"));
    /* the environment comes first on the path */
    cr_assert_str_eq(sl_registry_at(r, 0)->name, "slt_good");
    sl_registry_destroy(r);
}


/* Hermite's plugin carries a kernel per N of the build's SL_UNROLL_NBODIES
 * (2..16 by default) plus the runtime-N fallback, which every other N
 * gets, as the kernel set hermite/newton (stamped by
 * starling_add_integrator), not in its propagator table. */
Test(registry, hermite_kernel_table)
{
    slt_plugins p;
    slt_load(&p);
    cr_assert_null(sl_propagator_kernel(p.hermite, "newton", 3), "hermite's own table has kernels");
    const sl_kernel_set *set = sl_registry_find(p.reg, SL_KIND_KERNELS, "hermite/newton");
    cr_assert_not_null(set, "no kernel set hermite/newton");
    size_t listed = 0;
    for (int n = 2; n <= 16; n++)
        listed += (size_t)slt_unrolled(n);
    cr_assert_geq(listed, 1, "SL_UNROLL_NBODIES_LIST \"%s\"", SL_UNROLL_NBODIES_LIST);
    cr_assert_eq(set->n_kernels, listed + 1, "%zu entries: expected N = %s and any",
                 set->n_kernels, SL_UNROLL_NBODIES_LIST);
    for (int n = 2; n <= 16; n++) {
        const sl_kernel_entry *k;
        SLT_OK(sl_registry_kernel(p.reg, p.hermite, "newton", n, &k));
        cr_assert_not_null(k);
        cr_assert_eq(k->n_body, slt_unrolled(n) ? n : 0, "N = %d: n_body %d", n, k->n_body);
        cr_assert_not_null(k->cpu);
        /* in the tree, hermite has CUDA code exactly when core has */
        cr_assert_eq(k->cuda != NULL, SL_CORE_HAS_CUDA != 0);
    }
    const sl_kernel_entry *any, *k64;
    SLT_OK(sl_registry_kernel(p.reg, p.hermite, "newton", 17, &any));
    cr_assert_not_null(any);
    cr_assert_eq(any->n_body, 0);
    SLT_OK(sl_registry_kernel(p.reg, p.hermite, "newton", 64, &k64));
    cr_assert_eq(k64, any);
    const sl_kernel_entry *none;
    cr_assert_neq(sl_registry_kernel(p.reg, p.hermite, "gr", 3, &none), SL_OK);
    cr_assert_eq(p.hermite->order, 4);
    cr_assert_eq(p.hermite->abi, SL_ABI_VERSION);
    slt_unload(&p);
}

/* ---- tables whose kernels were compiled with other values ---------------------------- */

/* An integrator whose table states another persist_per_body than its own
 * kernels keep: the run would size the per-system buffer from the table
 * and the loops would read it by the kernels' (past its end, the other
 * way round). Refused when the plugin loads, naming it and both values. */
Test(registry, own_kernels_with_another_persist_refused)
{
    expect_refused("traits_own", "traits_own.so",
                   "integrator 'drift9' declares persist_per_body = 2, but its kernels for "
                   "force 'newton'");
    expect_refused("traits_own", "traits_own.so", "compiled with SL_PROP_drift9_PERSIST 0");
}

static sl_status drift9_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    (void)pv;
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = 0.25;
    return SL_OK;
}

/* A kernel set is compared with its integrator's table when a run picks
 * it (the integrator may load after it): a table stating another
 * persist_per_body or adaptive than the set was compiled with is refused
 * by the dry run and the run, before any work, naming the plugin that
 * carries the kernels and both values. */
Test(registry, kernel_set_with_other_traits_refused_by_the_run)
{
    char path[PATH_MAX];
    case_path(path, sizeof path, "traits_set", "traits_set.so");
    slt_plugins p;
    slt_load(&p);
    SLT_OK(sl_registry_load_file(p.reg, path));
    sl_propagator drift9 = {
        .abi = SL_ABI_VERSION, .kind = SL_KIND_PROPAGATOR, .name = "drift9",
        .description = "kernels in a kernel set only", .order = 1, .persist_per_body = 0,
        .pack = drift9_pack, .n_packed = 1,
    };
    sl_run_config c;
    sl_run_config_init(&c);
    c.prop = &drift9;
    c.force = p.newton;
    c.registry = p.reg;
    SLT_OK(drift9_pack(NULL, c.pp));
    c.t_end = 1.0;
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(3, 2, &e));
    for (int64_t s = 0; s < 3; s++)
        for (int b = 0; b < 2; b++) {
            double x[3] = {10.0 * b, 0, 0}, v[3] = {1, 0, 0};
            SLT_OK(sl_ensemble_set_body(e, s, b, 1e-9, x, v));
        }
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result r;
    /* as compiled: runs, through the set */
    SLT_OK(sl_integrate(&be, e, &c, &r));
    cr_assert_str_eq(r.kernel, "drift9/newton/any");
    sl_run_result_free(&r);
    const struct {
        int persist, adaptive;
        const char *says, *compiled;
    } cases[] = {
        {3, 0, "declares persist_per_body = 3", "compiled with SL_PROP_drift9_PERSIST 0"},
        {0, 1, "declares adaptive = 1", "compiled with SL_PROP_drift9_ADAPTIVE 0"},
    };
    for (int k = 0; k < 2; k++) {
        drift9.persist_per_body = cases[k].persist;
        drift9.adaptive = cases[k].adaptive;
        sl_ensemble *before;
        SLT_OK(sl_ensemble_clone(e, &before));
        cr_assert_eq(sl_run_check(&be, e, &c), SL_ERR_PLUGIN, "dry run: %s", sl_last_error());
        cr_assert_eq(sl_integrate(&be, e, &c, &r), SL_ERR_PLUGIN, "run: %s", sl_last_error());
        const char *msg = sl_last_error();
        const char *has[] = {"integrator 'drift9'", cases[k].says, path, cases[k].compiled,
                             "force 'newton'"};
        for (int i = 0; i < 5; i++)
            cr_assert(strstr(msg, has[i]), "message lacks \"%s\": %s", has[i], msg);
        slt_assert_same_ensemble(e, before, "a refused run");
        sl_ensemble_destroy(before);
    }
    sl_ensemble_destroy(e);
    slt_unload(&p);
}
