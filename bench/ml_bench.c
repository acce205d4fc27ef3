/* Microlensing magnification benchmark (issue 12): n models of one kind,
 * each at the same n_t epochs spanning t0 +- 2 tE, on the CPU backend
 * (OpenMP, all cores) and the CUDA backend in the same run; the rate is
 * model-epoch magnifications per second, end to end (checks, copies to and
 * from the GPU included), the median of 5 calls after a warm-up. Parameters
 * are drawn over the ranges users fit (binary: s in 0.3 .. 3, q in 1e-5 .. 1).
 *
 *   ml-bench [--model pspl|fspl|binary] [--models N] [--epochs T]
 *            [--cpu-models N] [--dump FILE]
 *   ml-bench --map N [--rays R] [--cpu-map N]
 * The second form shoots an N x N magnification map of a planetary binary
 * (s = 1.1, q = 0.01, box [-0.35, 0.35]^2, R rays per pixel, default 100)
 * on both backends: rays/s in the shooting (kernel time on CUDA) and end to
 * end (active cells, copies, normalisation), and whether the counts agree;
 * the CPU map is cpu-map pixels a side (default N).
 * The CPU runs the first cpu-models models (default: all) and its rate is
 * per magnification, so the two compare. --dump writes the batch for
 * bench/ml_vbm.py (the peer, VBMicrolensing, on the same inputs):
 * int32 kind, int64 n_models, n_t, double params[n_models * npar], t[n_t]; and
 * FILE.A, the CPU's magnifications (n_models x n_t doubles). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "starling/plugins/microlensing/microlensing.h"
#include "starling/starling.h"
#include "bench_time.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void make_models(sl_ml_model m, int64_t n, double *par)
{
    int np = sl_ml_npar(m);
    for (int64_t i = 0; i < n; i++) {
        double *p = par + i * np;
        p[0] = 0.0;
        p[1] = -1.0 + 2.0 * urand();
        p[2] = 5.0 + 95.0 * urand();
        if (m == SL_ML_FSPL) {
            p[3] = pow(10.0, -3.0 + 2.0 * urand());
            p[4] = 0.6 * urand();
        } else if (m == SL_ML_BINARY_PS) {
            p[3] = pow(10.0, -0.5 + urand());
            p[4] = pow(10.0, -5.0 + 5.0 * urand());
            p[5] = 360.0 * urand();
        }
    }
}

/* PATH SUFFIX: the n doubles of v (the CPU's magnifications, for ml_vbm.py). */
static int write_doubles(const char *path, const char *suffix, const double *v, size_t n)
{
    char name[1024];
    snprintf(name, sizeof name, "%s%s", path, suffix);
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(v, sizeof *v, n, f) != n || fclose(f)) {
        fprintf(stderr, "ml-bench: cannot write %s\n", name);
        return 1;
    }
    return 0;
}

/* One magnification call, for sl_bench_median5. */
typedef struct mag_call {
    const sl_lens *lens;
    const sl_backend *be;
    const sl_ml_batch *b;
    double *A;
} mag_call;

static int run_mag(void *arg)
{
    mag_call *c = arg;
    if (!c->lens->magnification(c->be, c->b, c->A))
        return 0;
    fprintf(stderr, "ml-bench: %s: %s\n", c->be->description, sl_last_error());
    return 1;
}

/* Median seconds of 5 calls after one warm-up; -1 on failure (printed). */
static double timed(const sl_lens *lens, const sl_backend *be, const sl_ml_batch *b, double *A)
{
    mag_call c = {lens, be, b, A};
    return sl_bench_median5(run_mag, &c);
}

/* The map benchmark: a planetary binary's map on each backend. */
static int map_bench(const sl_lens *lens, int n, int n_cpu, double rays)
{
    sl_ml_map_spec m;
    memset(&m, 0, sizeof m);
    lens->binary_lenses(1.1, 0.01, &m.lenses);
    m.x0 = m.y0 = -0.35;
    m.x1 = m.y1 = 0.35;
    m.rays_per_pixel = rays;
    m.seed = 1;
    printf("# ml-bench --map: s = 1.1, q = 0.01, box [-0.35, 0.35]^2, %g rays per pixel\n", rays);
    sl_ml_map r[2];
    int have[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        sl_backend be;
        if (k == 1 && sl_cuda_device_count() < 1) {
            printf("cuda  (no usable device)\n");
            continue;
        }
        if (sl_backend_open(k ? "cuda" : "cpu", &be))
            continue;
        m.nx = m.ny = k ? n : n_cpu;
        double best = INFINITY;
        for (int rep = 0; rep < 3; rep++) { /* the first call pays for waking the device */
            if (have[k])
                lens->map_free(&r[k]);
            double t0 = sl_bench_now();
            if (lens->map(&be, &m, &r[k])) {
                fprintf(stderr, "ml-bench: %s: %s\n", be.description, sl_last_error());
                return 1;
            }
            best = fmin(best, sl_bench_now() - t0);
            have[k] = 1;
        }
        printf("%-5s %-44s %5d^2 %10.3g rays: shooting %.4f s = %.3e rays/s; end to end %.4f s "
               "= %.3e rays/s\n", k ? "cuda" : "cpu", be.description, m.nx, (double)r[k].rays,
               r[k].seconds, (double)r[k].rays / r[k].seconds, best, (double)r[k].rays / best);
    }
    if (have[0] && have[1] && r[0].nx == r[1].nx) {
        long long moved = 0, total = 0;
        for (int64_t p = 0; p < (int64_t)n * n; p++) {
            moved += llabs((long long)r[0].count[p] - (long long)r[1].count[p]);
            total += r[0].count[p];
        }
        printf("counts: %lld of %lld rays in other pixels on the GPU\n", moved, total);
    }
    for (int k = 0; k < 2; k++)
        if (have[k])
            lens->map_free(&r[k]);
    return 0;
}

int main(int argc, char **argv)
{
    sl_ml_model m = SL_ML_BINARY_PS;
    int64_t n_models = 100000, n_t = 100, cpu_models = -1;
    const char *dump = NULL;
    int map_n = 0, map_cpu = 0;
    double map_rays = 100.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--model") && i + 1 < argc) {
            const char *k = argv[++i];
            m = !strcmp(k, "pspl") ? SL_ML_PSPL : !strcmp(k, "fspl") ? SL_ML_FSPL : SL_ML_BINARY_PS;
        } else if (!strcmp(argv[i], "--models") && i + 1 < argc) {
            n_models = atoll(argv[++i]);
        } else if (!strcmp(argv[i], "--epochs") && i + 1 < argc) {
            n_t = atoll(argv[++i]);
        } else if (!strcmp(argv[i], "--cpu-models") && i + 1 < argc) {
            cpu_models = atoll(argv[++i]);
        } else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
            dump = argv[++i];
        } else if (!strcmp(argv[i], "--map") && i + 1 < argc) {
            map_n = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--cpu-map") && i + 1 < argc) {
            map_cpu = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--rays") && i + 1 < argc) {
            map_rays = atof(argv[++i]);
        } else {
            fprintf(stderr, "usage: ml-bench [--model pspl|fspl|binary] [--models N] "
                            "[--epochs T] [--cpu-models N] [--dump FILE]\n"
                            "       ml-bench --map N [--rays R] [--cpu-map N]\n");
            return 2;
        }
    }
    if (n_models < 1 || n_t < 1) {
        fprintf(stderr, "ml-bench: --models and --epochs must be >= 1\n");
        return 2;
    }
    if (cpu_models < 1 || cpu_models > n_models)
        cpu_models = n_models;
    sl_registry *reg;
    const void *tab;
    if (sl_registry_create(&reg) || sl_registry_load_default(reg) ||
        sl_registry_get(reg, SL_KIND_LENS, "microlensing", &tab)) {
        fprintf(stderr, "ml-bench: %s\n", sl_last_error());
        return 1;
    }
    const sl_lens *lens = tab;
    if (map_n > 0) {
        int rc = map_bench(lens, map_n, map_cpu > 0 ? map_cpu : map_n, map_rays);
        sl_registry_destroy(reg);
        return rc;
    }
    int np = sl_ml_npar(m);
    double *par = malloc((size_t)n_models * np * sizeof *par);
    double *t = malloc((size_t)n_t * sizeof *t);
    double *A = malloc((size_t)(n_models * n_t) * sizeof *A);
    double *B = malloc((size_t)(n_models * n_t) * sizeof *B);
    if (!par || !t || !A || !B) {
        fprintf(stderr, "ml-bench: out of memory\n");
        return 1;
    }
    make_models(m, n_models, par);
    for (int64_t j = 0; j < n_t; j++)
        t[j] = -200.0 + 400.0 * (double)j / (double)(n_t > 1 ? n_t - 1 : 1);
    if (dump) {
        FILE *f = fopen(dump, "wb");
        int32_t kind = (int32_t)m;
        if (!f || fwrite(&kind, 4, 1, f) != 1 || fwrite(&cpu_models, 8, 1, f) != 1 ||
            fwrite(&n_t, 8, 1, f) != 1 ||
            fwrite(par, sizeof *par, (size_t)cpu_models * np, f) != (size_t)cpu_models * np ||
            fwrite(t, sizeof *t, (size_t)n_t, f) != (size_t)n_t || fclose(f)) {
            fprintf(stderr, "ml-bench: cannot write %s\n", dump);
            return 1;
        }
    }
    printf("# ml-bench: model %s, %lld models x %lld epochs (CPU: %lld models)\n",
           sl_ml_model_name(m), (long long)n_models, (long long)n_t, (long long)cpu_models);
    sl_backend cpu, gpu;
    sl_ml_batch bc = {.model = m, .n_models = cpu_models, .params = par, .n_t = n_t, .t = t};
    double cpu_rate = 0.0, gpu_rate = 0.0;
    if (!sl_backend_open("cpu", &cpu)) {
        double s = timed(lens, &cpu, &bc, A);
        if (s > 0) {
            cpu_rate = (double)(cpu_models * n_t) / s;
            printf("cpu   %-48s %10.4f s  %.3e magnifications/s\n", cpu.description, s, cpu_rate);
        }
        if (s > 0 && dump && write_doubles(dump, ".A", A, (size_t)(cpu_models * n_t)))
            return 1;
    }
    if (sl_cuda_device_count() > 0 && !sl_backend_open("cuda", &gpu)) {
        sl_ml_batch bg = bc;
        bg.n_models = n_models;
        double s = timed(lens, &gpu, &bg, B);
        if (s > 0) {
            gpu_rate = (double)(n_models * n_t) / s;
            printf("cuda  %-48s %10.4f s  %.3e magnifications/s\n", gpu.description, s, gpu_rate);
            double worst = 0.0;
            for (int64_t k = 0; k < cpu_models * n_t; k++)
                worst = fmax(worst, fabs(B[k] - A[k]) / fabs(A[k]));
            printf("gpu/cpu %.1fx; worst relative CPU-GPU difference %.2e\n",
                   cpu_rate > 0 ? gpu_rate / cpu_rate : 0.0, worst);
        }
    } else {
        printf("cuda  (no usable device)\n");
    }
    free(par);
    free(t);
    free(A);
    free(B);
    sl_registry_destroy(reg);
    return 0;
}
