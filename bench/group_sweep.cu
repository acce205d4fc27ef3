/* group_sweep: how many threads per system the grouped CUDA loop should use
 * at each body count (internal/group.h, SL_GROUP_THREADS_<N>). Built by
 * bench/group_sweep.sh once per candidate G (-DSL_SWEEP_G=G), each build
 * stamping hermite + newton for N = 5..16 with G threads per system (G = 1:
 * the one-thread loop), the real loops (internal/kernel.inc), launched through
 * core's launchers. Prints system-steps/s on Swarm-NG-like test systems
 * with and without the close-encounter and ejection monitors, and writes
 * the end states so the script can check every G against G = 1.
 *
 *   group_sweep SYSTEMS STEPS OUT_DIR TAG */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "starling/instantiate.h"
#include "forces/newton/newton.h"
#include "integrators/hermite/hermite.h"

#ifndef SL_SWEEP_G
#error "build with -DSL_SWEEP_G=<threads per system>"
#endif

/* Every N of the sweep at G threads per system (the loop's table is read
 * where the kernels are stamped, below). */
#undef SL_GROUP_THREADS_5
#undef SL_GROUP_THREADS_6
#undef SL_GROUP_THREADS_7
#undef SL_GROUP_THREADS_8
#undef SL_GROUP_THREADS_9
#undef SL_GROUP_THREADS_10
#undef SL_GROUP_THREADS_11
#undef SL_GROUP_THREADS_12
#undef SL_GROUP_THREADS_13
#undef SL_GROUP_THREADS_14
#undef SL_GROUP_THREADS_15
#undef SL_GROUP_THREADS_16
#define SL_GROUP_THREADS_5 SL_SWEEP_G
#define SL_GROUP_THREADS_6 SL_SWEEP_G
#define SL_GROUP_THREADS_7 SL_SWEEP_G
#define SL_GROUP_THREADS_8 SL_SWEEP_G
#define SL_GROUP_THREADS_9 SL_SWEEP_G
#define SL_GROUP_THREADS_10 SL_SWEEP_G
#define SL_GROUP_THREADS_11 SL_SWEEP_G
#define SL_GROUP_THREADS_12 SL_SWEEP_G
#define SL_GROUP_THREADS_13 SL_SWEEP_G
#define SL_GROUP_THREADS_14 SL_SWEEP_G
#define SL_GROUP_THREADS_15 SL_SWEEP_G
#define SL_GROUP_THREADS_16 SL_SWEEP_G

#define SWEEP_N(X, ...)                                                                    \
    X(__VA_ARGS__, 5) X(__VA_ARGS__, 6) X(__VA_ARGS__, 7) X(__VA_ARGS__, 8)                \
    X(__VA_ARGS__, 9) X(__VA_ARGS__, 10) X(__VA_ARGS__, 11) X(__VA_ARGS__, 12)             \
    X(__VA_ARGS__, 13) X(__VA_ARGS__, 14) X(__VA_ARGS__, 15) X(__VA_ARGS__, 16)
/* The kernels of every N of the sweep, whatever the build's SL_CUDA_NBODIES
 * (internal/kernel.inc stamps an N the build lists); -DSL_SWEEP_N=n: that
 * body count alone (a quicker build, for variants). */
#undef SL_CUDA_HAS_N
#define SL_CUDA_HAS_N(N) 1
#define SL_P hermite
#define SL_F newton
#if defined(SL_SWEEP_N)
#define SL_N SL_SWEEP_N
#include "starling/internal/kernel.inc"
#else
#define SL_N 5
#include "starling/internal/kernel.inc"
#define SL_N 6
#include "starling/internal/kernel.inc"
#define SL_N 7
#include "starling/internal/kernel.inc"
#define SL_N 8
#include "starling/internal/kernel.inc"
#define SL_N 9
#include "starling/internal/kernel.inc"
#define SL_N 10
#include "starling/internal/kernel.inc"
#define SL_N 11
#include "starling/internal/kernel.inc"
#define SL_N 12
#include "starling/internal/kernel.inc"
#define SL_N 13
#include "starling/internal/kernel.inc"
#define SL_N 14
#include "starling/internal/kernel.inc"
#define SL_N 15
#include "starling/internal/kernel.inc"
#define SL_N 16
#include "starling/internal/kernel.inc"
#endif
#undef SL_P
#undef SL_F

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "group_sweep: %s: %s\n", #call, cudaGetErrorString(e_));       \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static void *dev_zeros(size_t bytes)
{
    void *p;
    CHECK(cudaMalloc(&p, bytes + 64));
    CHECK(cudaMemset(p, 0, bytes + 64));
    return p;
}

/* A star and n - 1 light planets 1 + 0.4 k apart, near-circular, slightly
 * inclined, random phases (a fixed seed). */
static void test_systems(double *h, int n, int64_t n_sys)
{
    srand(7);
    for (int64_t s = 0; s < n_sys; s++) {
        for (int f = 0; f < SL_NFIELD; f++)
            h[sl_state_at(s, n, 0, f)] = f == SL_M ? 1.0 : 0.0;
        for (int b = 1; b < n; b++) {
            double a = 1.0 + 0.4 * b + 0.01 * (rand() / (double)RAND_MAX);
            double ph = 6.283 * rand() / (double)RAND_MAX, vc = sqrt(1.0 / a);
            h[sl_state_at(s, n, b, SL_X)] = a * cos(ph);
            h[sl_state_at(s, n, b, SL_X + 1)] = a * sin(ph);
            h[sl_state_at(s, n, b, SL_X + 2)] = 0.01 * a * (rand() / (double)RAND_MAX - 0.5);
            h[sl_state_at(s, n, b, SL_VX)] = -vc * sin(ph);
            h[sl_state_at(s, n, b, SL_VX + 1)] = vc * cos(ph);
            h[sl_state_at(s, n, b, SL_VX + 2)] = 0.0;
            h[sl_state_at(s, n, b, SL_M)] = 1e-5;
        }
    }
}

typedef sl_status (*launcher)(const sl_run_args *);

/* Best of three runs of `steps` steps in two launches (so the second reads
 * the working array the first kept); system-steps/s. Writes the end state
 * to `dump`. */
static double sweep_one(launcher run, int n, int64_t n_sys, int64_t steps, int monitors,
                        const char *dump)
{
    const size_t n_state = (size_t)((n_sys + SL_CHUNK - 1) / SL_CHUNK) * SL_CHUNK * n * SL_NFIELD;
    double *h = (double *)malloc(n_state * sizeof *h);
    test_systems(h, n, n_sys);
    /* SL_SWEEP_NUDGE: body 1 moved by one part in 2^52, for the script to
     * tell rounding amplified by the dynamics from a wrong pull. */
    if (getenv("SL_SWEEP_NUDGE"))
        for (int64_t s = 0; s < n_sys; s++)
            h[sl_state_at(s, n, 1, SL_X)] *= 1.0 + DBL_EPSILON;
    sl_run_args a;
    memset(&a, 0, sizeof a);
    a.state = (double *)dev_zeros(n_state * sizeof(double));
    a.persist = (double *)dev_zeros(n_state / SL_NFIELD * 6 * sizeof(double));
    a.time = (double *)dev_zeros(n_sys * sizeof(double));
    a.steps = (int64_t *)dev_zeros(n_sys * sizeof(int64_t));
    a.status = (int32_t *)dev_zeros(n_sys * sizeof(int32_t));
    a.reason = (int32_t *)dev_zeros(n_sys * sizeof(int32_t));
    a.detail = (int32_t *)dev_zeros(n_sys * sizeof(int32_t));
    a.stop_time = (double *)dev_zeros(n_sys * sizeof(double));
    a.t_start = (const double *)dev_zeros(n_sys * sizeof(double));
    a.step_start = (const int64_t *)dev_zeros(n_sys * sizeof(int64_t));
    a.next_log = (double *)dev_zeros(n_sys * sizeof(double));
    a.e0 = (const double *)dev_zeros(n_sys * sizeof(double));
    a.counters = (unsigned long long *)dev_zeros(SL_NCOUNTERS * sizeof(unsigned long long));
    a.log = (double *)dev_zeros(16 * sizeof(double));
    a.n_sys = n_sys;
    a.n_body = n;
    a.launch_steps = steps / 2;
    sl_monitor_config_default(&a.mon);
    if (monitors) {
        a.mon.close_hill = 0.5;
        a.mon.eject_r = 100.0;
    }
    a.pp[0] = 0.01;
    a.t_end = 0.01 * (double)steps;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    float best = 1e30f;
    for (int rep = 0; rep < 3; rep++) {
        CHECK(cudaMemcpy(a.state, h, n_state * sizeof(double), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(a.time, 0, n_sys * sizeof(double)));
        CHECK(cudaMemset(a.steps, 0, n_sys * sizeof(int64_t)));
        CHECK(cudaMemset(a.status, 0, n_sys * sizeof(int32_t)));
        CHECK(cudaEventRecord(e0));
        for (int l = 0; l < 2; l++) {
            a.first_launch = l == 0;
            if (run(&a)) {
                fprintf(stderr, "group_sweep: %s\n", sl_last_error());
                exit(1);
            }
        }
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        best = ms < best ? ms : best;
    }
    CHECK(cudaMemcpy(h, a.state, n_state * sizeof(double), cudaMemcpyDeviceToHost));
    FILE *f = fopen(dump, "wb");
    if (!f || fwrite(h, sizeof *h, n_state, f) != n_state) {
        fprintf(stderr, "group_sweep: cannot write %s\n", dump);
        exit(1);
    }
    fclose(f);
    free(h);
    void *bufs[] = {a.state, a.persist, a.time, a.steps, a.status, a.reason, a.detail,
                    a.stop_time, (void *)a.t_start, (void *)a.step_start, a.next_log,
                    (void *)a.e0, a.counters, a.log};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        CHECK(cudaFree(bufs[i]));
    return (double)n_sys * (double)steps / (best * 1e-3);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: group_sweep SYSTEMS STEPS OUT_DIR TAG\n");
        return 2;
    }
    const int64_t n_sys = atoll(argv[1]), steps = atoll(argv[2]);
    char path[1024];
#define SWEEP_RUN(N)                                                                       \
    for (int mon = 0; mon < 2; mon++) {                                                    \
        snprintf(path, sizeof path, "%s/%s_N%d_m%d.bin", argv[3], argv[4], N, mon);        \
        printf("%s N=%d mon=%d: %.3e system-steps/s\n", argv[4], N, mon,                   \
               sweep_one(sl_run_hermite_newton_##N##_cuda, N, n_sys, steps, mon, path));   \
        fflush(stdout);                                                                    \
    }
#define SWEEP_RUN1(N) SWEEP_RUN(N)
#if defined(SL_SWEEP_N)
    SWEEP_RUN1(SL_SWEEP_N)
#else
    SWEEP_RUN(5) SWEEP_RUN(6) SWEEP_RUN(7) SWEEP_RUN(8) SWEEP_RUN(9) SWEEP_RUN(10)
    SWEEP_RUN(11) SWEEP_RUN(12) SWEEP_RUN(13) SWEEP_RUN(14) SWEEP_RUN(15) SWEEP_RUN(16)
#endif
    return 0;
}
