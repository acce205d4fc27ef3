/* Issue 3 benchmark (Ford 2009, Table 2 set-up): Kepler solves/s (float,
 * double; Danby and Markley) and chi² systems/s (double, mixed) for
 * n_obs = 256, n_pl = 4, on the CPU backend (OpenMP) and on CUDA when
 * present, with the accuracy columns (max fractional chi² error vs CPU
 * double, over 30,720 models). Median of 5 timed calls after a warm-up.
 *
 * Usage: rv-bench [--no-cpu] [n_sys ...]   (default 122880 1048576)
 * --no-cpu skips the CPU backend's systems/s rows (its double precision
 * takes ~20 s per call at 2^20 models on 16 cores). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "starling/kepler.h"
#include "starling/rng.h"
#include "starling/starling.h"
#include "starling/version.h" /* SL_HAVE_CUDA */

double rv_bench_cuda_solves(int is_float, int which, const double *e, int n_e);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* CPU Kepler solves/s over all threads. */
static double cpu_solves(int is_float, int which, const double *e, int n_e)
{
    const long n = 1L << 22;
    double t[5], sink = 0;
    for (int r = 0; r < 5; r++) {
        double t0 = now(), acc = 0;
#pragma omp parallel for reduction(+ : acc) schedule(static)
        for (long i = 0; i < n; i++) {
            double M = fmod(0.7853981633974483 * (double)i, SL_KEPLER_TWO_PI), ee = e[i % n_e];
            if (is_float)
                acc += which ? sl_kepler_markley_f((float)M, (float)ee)
                             : sl_kepler_danby_f((float)M, (float)ee);
            else
                acc += which ? sl_kepler_markley(M, ee) : sl_kepler_danby(M, ee);
        }
        t[r] = now() - t0;
        sink += acc;
    }
    qsort(t, 5, sizeof *t, cmpd);
    if (sink == 42.0)
        printf(" ");
    return n / t[2];
}

static void draw(sl_rng *r, double *q)
{
    for (int j = 0; j < 4; j++, q += 5) {
        q[0] = 2.0 * pow(3652.5 / 2.0, sl_rng_uniform(r));
        q[1] = pow(500.0, sl_rng_uniform(r));
        q[2] = 0.99 * sl_rng_uniform(r);
        q[3] = SL_KEPLER_TWO_PI * sl_rng_uniform(r);
        q[4] = SL_KEPLER_TWO_PI * sl_rng_uniform(r);
    }
    q[0] = 0, q[1] = 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows when piped through tee */
    sl_registry *reg;
    const void *t;
    if (sl_registry_create(&reg) || sl_registry_load_default(reg) ||
        sl_registry_get(reg, SL_KIND_LIKELIHOOD, "kepler_rv", &t)) {
        fprintf(stderr, "rv-bench: %s\n", sl_last_error());
        return 1;
    }
    const sl_likelihood *l = t;
    /* data: 256 observations over 10 years, one instrument */
    char path[64];
    snprintf(path, sizeof path, "/tmp/rv_bench_%d.txt", (int)getpid());
    FILE *f = fopen(path, "w");
    sl_rng r;
    sl_rng_init(&r, 1, 0);
    for (int i = 0; i < 256; i++)
        fprintf(f, "%.9f %.5f %.3f\n", 3652.5 * (i + 0.5 * sl_rng_uniform(&r)) / 256,
                50 * (sl_rng_uniform(&r) - 0.5), 1 + 4 * sl_rng_uniform(&r));
    fclose(f);
    double es[4096];
    for (int i = 0; i < 4096; i++)
        es[i] = 0.99 * sl_rng_uniform(&r);
    sl_backend cpu, gpu;
    sl_backend_open("cpu", &cpu);
    int have_gpu = sl_cuda_device_count() > 0 && sl_backend_open("cuda", &gpu) == SL_OK;
    printf("# rv-bench: n_obs 256, n_pl 4, Table 2 distribution; cpu: %s; gpu: %s\n",
           cpu.description, have_gpu ? gpu.description : "none");
    printf("\n| Kepler solver | precision | CPU solves/s | GPU solves/s |\n|---|---|---|---|\n");
    for (int which = 0; which < 2; which++)
        for (int fl = 1; fl >= 0; fl--) {
            double c = cpu_solves(fl, which, es, 4096), g = -1;
#if SL_HAVE_CUDA
            if (have_gpu)
                g = rv_bench_cuda_solves(fl, which, es, 4096);
#endif
            printf("| %s | %s | %.3g | %.3g |\n", which ? "markley" : "danby",
                   fl ? "float" : "double", c, g);
        }
    void *ctx[2];
    sl_param_values pv;
    sl_params_init(&pv, l->params, l->n_params);
    sl_params_set(&pv, "planets", 4);
    for (int m = 0; m < 2; m++) {
        sl_params_set(&pv, "precision", m);
        sl_data d = sl_data_file(path);
        if (l->prepare(&pv, &d, &ctx[m]) != SL_OK) {
            fprintf(stderr, "rv-bench: %s\n", sl_last_error());
            return 1;
        }
    }
    unlink(path);
    int no_cpu = argc > 1 && !strcmp(argv[1], "--no-cpu");
    argc -= no_cpu, argv += no_cpu;
    int nn = argc > 1 ? argc - 1 : 2;
    size_t sizes[8] = {122880, 1048576};
    for (int i = 1; i < argc && i <= 8; i++)
        sizes[i - 1] = (size_t)atol(argv[i]);
    printf("\n| n_sys | precision | backend | GPU solver | systems/s (end to end) | systems/s "
           "(kernel only) | ms per call | max frac chi2 err vs CPU double (30,720) |\n"
           "|---|---|---|---|---|---|---|---|\n");
    for (int s = 0; s < nn && s < 8; s++) {
        size_t n = sizes[s];
        double *p = malloc(n * 22 * sizeof *p), *ll = malloc(n * sizeof *ll);
        double *c2 = malloc(n * sizeof *c2), *ref = malloc(n * sizeof *ref);
        sl_rng_init(&r, 2009, 0);
        for (size_t k = 0; k < n; k++)
            draw(&r, p + 22 * k);
        size_t na = n < 30720 ? n : 30720;
        l->eval_batch_chi2(ctx[0], &cpu, p, na, ll, ref);
        /* CPU once; the GPU with each Kepler solver (SL_KRV_SOLVER) */
        for (int run = no_cpu ? 1 : 0; run < 1 + 2 * have_gpu; run++)
            for (int m = 0; m < 2; m++) {
                const sl_backend *b = run ? &gpu : &cpu;
                const char *solver = run == 1 ? "markley" : run == 2 ? "danby" : "-";
                if (run)
                    setenv("SL_KRV_SOLVER", solver, 1);
                double tt[5], tk[5];
                if (l->eval_batch_chi2(ctx[m], b, p, n, ll, c2) != SL_OK) { /* warm-up */
                    fprintf(stderr, "rv-bench: %s\n", sl_last_error());
                    return 1;
                }
                double err = 0;
                for (size_t k = 0; k < na; k++)
                    err = fmax(err, fabs(c2[k] - ref[k]) / ref[k]);
                for (int rep = 0; rep < 5; rep++) {
                    double t0 = now();
                    l->eval_batch_chi2(ctx[m], b, p, n, ll, c2);
                    tt[rep] = now() - t0;
                    tk[rep] = l->last_kernel_s ? l->last_kernel_s(ctx[m]) : 0.0;
                }
                qsort(tt, 5, sizeof *tt, cmpd);
                qsort(tk, 5, sizeof *tk, cmpd);
                char kern[32] = "-";
                if (run && tk[2] > 0)
                    snprintf(kern, sizeof kern, "%.3g", n / tk[2]);
                printf("| %zu | %s | %s | %s | %.3g | %s | %.2f | %.2g |\n", n,
                       m ? "mixed" : "double", run ? "cuda" : "cpu", solver, n / tt[2], kern,
                       1e3 * tt[2], err);
                fflush(stdout);
            }
        unsetenv("SL_KRV_SOLVER");
        free(p), free(ll), free(c2), free(ref);
    }
    l->release(ctx[0]);
    l->release(ctx[1]);
    sl_registry_destroy(reg);
    return 0;
}
