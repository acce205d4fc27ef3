/* Backend selection: "cpu", "auto" (says which it picked), "cuda" on a
 * build or machine without CUDA, and malformed specs. Runs in both the CPU
 * and the CUDA build, with or without a device: each test checks the
 * answer that fits the build and the machine. */
#include "sl_test.h"

Test(backend, cpu)
{
    sl_backend be;
    memset(&be, 0xab, sizeof be);
    SLT_OK(sl_backend_open("cpu", &be));
    cr_assert_eq(be.kind, SL_BACKEND_CPU);
    cr_assert(be.threads >= 1);
    char want[64];
    snprintf(want, sizeof want, "cpu (%d OpenMP thread", be.threads);
    cr_assert(strncmp(be.description, want, strlen(want)) == 0, "description: %s", be.description);
    cr_assert_eq(be.mem_bytes, 0);
}

Test(backend, auto_says_what_it_picked)
{
    sl_backend be;
    SLT_OK(sl_backend_open("auto", &be));
    sl_backend be2;
    SLT_OK(sl_backend_open(NULL, &be2)); /* NULL means auto */
    cr_assert_eq(be.kind, be2.kind);
    cr_assert_str_eq(be.description, be2.description);
    if (!SL_CORE_HAS_CUDA) {
        cr_assert_eq(sl_cuda_built(), 0);
        cr_assert_eq(be.kind, SL_BACKEND_CPU);
        cr_assert(strstr(be.description, "cpu (") == be.description, "%s", be.description);
        cr_assert(strstr(be.description, "auto, starling was built without CUDA"), "%s",
                  be.description);
    } else if (sl_cuda_device_count() < 1) {
        cr_assert_eq(sl_cuda_built(), 1);
        cr_assert_eq(be.kind, SL_BACKEND_CPU);
        cr_assert(strstr(be.description, "auto, no CUDA device found"), "%s", be.description);
    } else {
        cr_assert_eq(be.kind, SL_BACKEND_CUDA);
        cr_assert(strstr(be.description, "cuda:0 (") == be.description, "%s", be.description);
    }
    cr_log_info("auto -> %s", be.description);
}

Test(backend, cuda_without_cuda)
{
    sl_backend be;
    if (SL_CORE_HAS_CUDA && sl_cuda_device_count() > 0) {
        /* a device is here: asking for one that is not must fail clearly */
        int n = sl_cuda_device_count();
        char spec[32];
        snprintf(spec, sizeof spec, "cuda:%d", n);
        cr_assert_eq(sl_backend_open(spec, &be), SL_ERR_NODEVICE);
        cr_assert(strstr(sl_last_error(), spec), "%s", sl_last_error());
        return;
    }
    const char *specs[] = {"cuda", "cuda:0", "cuda:3"};
    for (int i = 0; i < 3; i++) {
        sl_clear_error();
        sl_status st = sl_backend_open(specs[i], &be);
        cr_assert_eq(st, SL_ERR_NODEVICE, "%s: %s", specs[i], sl_status_name(st));
        cr_assert(strstr(sl_last_error(), specs[i]), "message does not repeat the spec: %s",
                  sl_last_error());
        if (!SL_CORE_HAS_CUDA)
            cr_assert(strstr(sl_last_error(), "built without CUDA"), "%s", sl_last_error());
        else
            cr_assert(strstr(sl_last_error(), "no CUDA device"), "%s", sl_last_error());
    }
    cr_assert_eq(sl_cuda_device_count(), 0);
}

/* The one parser: what it accepts and what it makes of it. */
Test(backend, parse_accepts_the_four_forms)
{
    struct {
        const char *spec;
        sl_backend_choice choice;
        int device;
    } ok[] = {{NULL, SL_BACKEND_AUTO, 0},        {"auto", SL_BACKEND_AUTO, 0},
              {"cpu", SL_BACKEND_WANT_CPU, 0},   {"cuda", SL_BACKEND_WANT_CUDA, 0},
              {"cuda:0", SL_BACKEND_WANT_CUDA, 0}, {"cuda:12", SL_BACKEND_WANT_CUDA, 12},
              {"cuda:007", SL_BACKEND_WANT_CUDA, 7}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        sl_backend_spec s = {SL_BACKEND_WANT_CPU, -1};
        SLT_OK(sl_backend_parse(ok[i].spec, &s));
        cr_assert_eq(s.choice, ok[i].choice, "%s", ok[i].spec ? ok[i].spec : "NULL");
        cr_assert_eq(s.device, ok[i].device, "%s", ok[i].spec ? ok[i].spec : "NULL");
    }
}

/* Refused by the parser, so by sl_backend_open and every front end, with
 * one message. Blanks, signs and numbers no int holds were accepted by
 * strtol once (and "cuda: 1" then asked for device 1). */
Test(backend, bad_specs)
{
    const char *bad[] = {"", "gpu", "CPU", "cpu:0", "cuda:", "cuda:x", "cuda:-1", "cuda:1x",
                         "cudax", "auto ", "cuda: 1", "cuda:+1", "cuda:0x1", " cpu",
                         "cuda:99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sl_backend be;
        sl_backend_spec s;
        char want[256];
        snprintf(want, sizeof want, "backend \"%s\": expected " SL_BACKEND_SPECS, bad[i]);
        sl_clear_error();
        cr_assert_eq(sl_backend_parse(bad[i], &s), SL_ERR_ARG, "spec '%s'", bad[i]);
        cr_assert_str_eq(sl_last_error(), want);
        sl_clear_error();
        sl_status st = sl_backend_open(bad[i], &be);
        cr_assert_eq(st, SL_ERR_ARG, "spec '%s': %s (%s)", bad[i], sl_status_name(st),
                     sl_last_error());
        cr_assert_str_eq(sl_last_error(), want);
    }
    cr_assert(strstr(SL_BACKEND_SPECS, "\"auto\", \"cpu\", \"cuda\" or \"cuda:N\""));
}

Test(backend, device_memory_helpers_without_cuda)
{
    if (SL_CORE_HAS_CUDA)
        cr_skip_test("built with CUDA: the helpers are exercised by the GPU suites");
    void *p = (void *)1;
    cr_assert_eq(sl_dev_alloc(&p, 64, "test buffer"), SL_ERR_NODEVICE);
    cr_assert_null(p);
    cr_assert(strstr(sl_last_error(), "test buffer"), "%s", sl_last_error());
    char buf[8] = {0};
    cr_assert_eq(sl_dev_upload(buf, buf, 8, "up"), SL_ERR_NODEVICE);
    cr_assert_eq(sl_dev_download(buf, buf, 8, "down"), SL_ERR_NODEVICE);
    cr_assert_eq(sl_dev_zero(buf, 8, "zero"), SL_ERR_NODEVICE);
    cr_assert_eq(sl_dev_sync("sync"), SL_ERR_NODEVICE);
    sl_dev_free(NULL);
}

/* A CUDA backend handle on a build without CUDA kernels is refused by
 * sl_integrate rather than run on the CPU by mistake. */
Test(backend, integrate_refuses_cuda_kind_without_kernels)
{
    if (SL_CORE_HAS_CUDA)
        cr_skip_test("built with CUDA: the kernels exist");
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(2, 3, &e));
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    be.kind = SL_BACKEND_CUDA;
    sl_run_config c;
    slt_config(&p, &c, 0.01, 1.0);
    sl_run_result res;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_ERR_UNSUPPORTED);
    cr_assert(strstr(sl_last_error(), "no CUDA kernel"), "%s", sl_last_error());
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* A plugin that runs on the CPU only: "auto" picks the CPU and says why,
 * "cuda" and "cuda:N" are refused naming it; one that runs on CUDA only
 * refuses "cpu". */
Test(backend, open_for_a_plugin_that_runs_on_one_backend)
{
    sl_backend be;
    const char *who = "likelihood 'x'";
    SLT_OK(sl_backend_open_for("auto", SL_BACKEND_CAN_CPU, who, &be));
    cr_assert_eq(be.kind, SL_BACKEND_CPU);
    cr_assert(strstr(be.description, "auto, likelihood 'x' runs on the CPU only"), "%s",
              be.description);
    SLT_OK(sl_backend_open_for("cpu", SL_BACKEND_CAN_CPU, who, &be));
    cr_assert_eq(be.kind, SL_BACKEND_CPU);
    const char *cudas[] = {"cuda", "cuda:0", "cuda:3"};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(sl_backend_open_for(cudas[i], SL_BACKEND_CAN_CPU, who, &be),
                     SL_ERR_UNSUPPORTED, "%s", cudas[i]);
        char want[160];
        snprintf(want, sizeof want, "backend \"%s\": likelihood 'x' runs on the CPU only "
                 "(built without CUDA code); use backend = \"cpu\" or \"auto\"", cudas[i]);
        cr_assert_str_eq(sl_last_error(), want);
    }
    cr_assert_eq(sl_backend_open_for("cpu", SL_BACKEND_CAN_CUDA, who, &be), SL_ERR_UNSUPPORTED);
    cr_assert_str_eq(sl_last_error(), "backend \"cpu\": likelihood 'x' runs on CUDA only");
    if (!SL_CORE_HAS_CUDA || sl_cuda_device_count() < 1) {
        cr_assert_eq(sl_backend_open_for("auto", SL_BACKEND_CAN_CUDA, who, &be),
                     SL_ERR_NODEVICE);
        cr_assert(strstr(sl_last_error(), "likelihood 'x' runs on CUDA only, and "), "%s",
                  sl_last_error());
    }
    /* a bad spec is the parser's, whatever the plugin */
    cr_assert_eq(sl_backend_open_for("gpu", SL_BACKEND_CAN_CPU, who, &be), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "expected " SL_BACKEND_SPECS), "%s", sl_last_error());
}
