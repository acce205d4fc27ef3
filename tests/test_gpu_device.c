/* GPU suite: the device is really used. The cuda backend opens and names
 * the GPU the CUDA runtime reports; a run names its specialisation, spends
 * time in kernels, holds the ensemble in device memory while it runs (seen
 * through cudaMemGetInfo from the progress callback) and gives it back.
 *
 * Skips when no CUDA device is usable, fails then if SL_REQUIRE_GPU=1. */
#include <cuda_runtime_api.h>

#include "sl_test.h"

#define CUDA_OK(call)                                                                      \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        cr_assert_eq(e_, cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));            \
    } while (0)

Test(gpu_device, backend_names_the_gpu)
{
    SLT_REQUIRE_GPU();
    int n = 0;
    CUDA_OK(cudaGetDeviceCount(&n));
    cr_assert_eq(sl_cuda_device_count(), n);
    sl_backend be;
    SLT_OK(sl_backend_open("cuda", &be));
    cr_assert_eq(be.kind, SL_BACKEND_CUDA);
    cr_assert_eq(be.device, 0);
    struct cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    cr_assert(strstr(be.description, prop.name), "description '%s' does not name '%s'",
              be.description, prop.name);
    cr_assert(strstr(be.description, "cuda:0 (") == be.description, "%s", be.description);
    cr_assert_eq(be.sm_count, prop.multiProcessorCount);
    cr_assert_eq(be.mem_bytes, prop.totalGlobalMem);
    int dev = -1;
    CUDA_OK(cudaGetDevice(&dev));
    cr_assert_eq(dev, 0, "the backend selected the device");
    /* "auto" prefers the GPU when there is one */
    sl_backend au;
    SLT_OK(sl_backend_open("auto", &au));
    cr_assert_eq(au.kind, SL_BACKEND_CUDA);
    cr_assert_str_eq(au.description, be.description);
    cr_log_info("%s", be.description);
}

typedef struct probe {
    size_t min_free;
    int calls;
} probe;

static int on_progress(void *ud, double fraction, int64_t launches, double elapsed)
{
    probe *pr = ud;
    size_t fr = 0, total = 0;
    if (cudaMemGetInfo(&fr, &total) == cudaSuccess && (pr->calls == 0 || fr < pr->min_free))
        pr->min_free = fr;
    pr->calls++;
    (void)fraction, (void)launches, (void)elapsed;
    return 0;
}

Test(gpu_device, run_uses_the_device)
{
    SLT_REQUIRE_GPU();
    slt_plugins p;
    slt_load(&p);
    sl_backend be;
    SLT_OK(sl_backend_open("cuda", &be));
    CUDA_OK(cudaFree(0)); /* the context exists before the baseline */
    const int64_t NS = 1 << 16;
    sl_test_system_spec sp = {.n_planets = 2, .planet_mass = 1e-4, .a1 = 1, .spacing = 0.6,
                              .perturb = 0.01, .random_phase = 1, .seed = 9};
    sl_ensemble *e, *ref;
    SLT_OK(sl_ensemble_test_systems(&sp, NS, &e));
    SLT_OK(sl_ensemble_clone(e, &ref));
    size_t state_bytes = sl_state_len(NS, 3) * sizeof(double);
    size_t free0 = 0, free1 = 0, total = 0;
    CUDA_OK(cudaMemGetInfo(&free0, &total));
    sl_run_config c;
    /* dt a power of two, so that 1000 steps end exactly at t_end */
    slt_config(&p, &c, 1.0 / 128.0, 1000.0 / 128.0);
    c.steps_per_launch = 250; /* four launches, four probes */
    probe pr = {0, 0};
    c.progress = on_progress;
    c.progress_ud = &pr;
    sl_run_result res;
    SLT_OK(sl_integrate(&be, e, &c, &res));
    CUDA_OK(cudaMemGetInfo(&free1, &total));
    cr_assert_str_eq(res.kernel, "hermite/newton/3");
    cr_assert_eq(res.launches, 4);
    cr_assert_eq(pr.calls, 4);
    cr_assert(res.kernel_s > 0.0, "kernel_s = %g", res.kernel_s);
    cr_assert(res.kernel_s <= res.wall_s);
    cr_assert_eq(res.n_active, NS);
    cr_assert_eq(res.system_steps, (double)NS * 1000.0);
    cr_log_info("%lld systems x 1000 steps: kernel %.4f s, wall %.4f s; device memory in use "
                "during the run: %.1f MiB (state %.1f MiB)", (long long)NS, res.kernel_s,
                res.wall_s, (double)(free0 - pr.min_free) / 1048576.0,
                (double)state_bytes / 1048576.0);
    cr_assert(pr.min_free + state_bytes <= free0,
              "device memory in use during the run (%zu bytes) is less than the ensemble "
              "(%zu bytes)", free0 - pr.min_free, state_bytes);
    cr_assert(free1 + (4u << 20) >= free0, "the run leaked %zu bytes of device memory",
              free0 - free1);
    /* and it computed the same thing as the CPU */
    sl_backend cpu;
    SLT_OK(sl_backend_open("cpu", &cpu));
    sl_run_config cc;
    slt_config(&p, &cc, 1.0 / 128.0, 1000.0 / 128.0);
    sl_run_result rc;
    SLT_OK(sl_integrate(&cpu, ref, &cc, &rc));
    double worst = 0;
    for (int64_t s = 0; s < NS; s += 97)
        for (int b = 0; b < 3; b++)
            for (int k = 0; k < 3; k++)
                worst = fmax(worst, fabs(sl_ensemble_get(e, s, b, SL_X + k) -
                                         sl_ensemble_get(ref, s, b, SL_X + k)));
    cr_assert(worst < 1e-10, "cuda and cpu differ by %.3e", worst);
    sl_run_result_free(&res);
    sl_run_result_free(&rc);
    sl_ensemble_destroy(e);
    sl_ensemble_destroy(ref);
    slt_unload(&p);
}

/* A failing CUDA call surfaces as SL_ERR_NOMEM/SL_ERR_CUDA with a message,
 * not a crash: ask for more device memory than exists. */
Test(gpu_device, device_errors_are_reported)
{
    SLT_REQUIRE_GPU();
    sl_backend be;
    SLT_OK(sl_backend_open("cuda", &be));
    void *ptr = (void *)1;
    sl_status st = sl_dev_alloc(&ptr, be.mem_bytes * 4, "an impossible buffer");
    cr_assert_eq(st, SL_ERR_NOMEM, "%s", sl_last_error());
    cr_assert_null(ptr);
    cr_assert(strstr(sl_last_error(), "an impossible buffer"), "%s", sl_last_error());
    /* the context is still usable afterwards */
    SLT_OK(sl_dev_alloc(&ptr, 1024, "a small buffer"));
    SLT_OK(sl_dev_zero(ptr, 1024, "zeroing"));
    unsigned char host[1024];
    memset(host, 0xff, sizeof host);
    SLT_OK(sl_dev_download(host, ptr, sizeof host, "reading back"));
    for (int i = 0; i < 1024; i++)
        cr_assert_eq(host[i], 0);
    sl_dev_free(ptr);
    SLT_OK(sl_dev_sync("sync"));
}
