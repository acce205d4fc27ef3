/* Microlensing fitting benchmarks (issue 12), CPU and CUDA in one run.
 *
 *   ml-fit-bench --tracks N [--models M] [--rays R] [--pixel F] [--dump FILE]
 * Finite-source binary light curves from a resident map, the set-up:
 * s = 1, q = 1e-3, rho = 1e-3, u0 = 0.005, tE = 20 d, alpha = 60 deg, N
 * epochs over t0 +- 1 d through the central caustic; the map covers the
 * track with pixels of rho/F (default 10) and R rays per pixel (default
 * 1000), shot on the GPU (CPU: the same map). Printed: light-curve points/s
 * with the map resident (M models of N epochs each, the first the set-up
 * above, the others with t0, u0, alpha jittered), and with the map's own
 * time added for one model; uniform and linearly limb-darkened (a1 = 0.5).
 * --dump writes the set-up and the GPU's values for bench/ml_vbm.py --fs
 * (VBMicrolensing's BinaryMag2 on the same points: its rate and the error).
 *
 *   ml-fit-bench --like M [--data FILE]
 * The photometric likelihood (model binary) on FILE (default the test
 * suite's two-passband event): M models around its truth per call, median
 * of 5 after a warm-up; models/s and light-curve points/s on each backend.
 *
 *   ml-fit-bench --fsbl M [--rho-min R]
 * The finite-source binary likelihood (model fsbl, s = 1.1, q = 0.01, rho in
 * [R, 0.04], R default 5e-3; maps of pixel R/5 and 200 rays a pixel) on the
 * test suite's fsbl_event.csv (rho = 0.02 across the caustic): each backend
 * makes its own maps in its first call (timed), then M models around the
 * truth per call, median of 5. */
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

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

enum { S_T0, S_U0, S_TE, S_ALPHA, S_RHO };
static const double setup[SL_ML_TRACK_NPAR] = {0.0, 0.005, 20.0, 60.0, 1e-3};

/* One light-curve call, for sl_bench_median5. */
typedef struct tracks_call {
    const sl_lens *lens;
    const sl_backend *be;
    const sl_ml_map *m;
    const sl_ml_tracks *tr;
    double *A;
} tracks_call;

static int run_tracks(void *arg)
{
    tracks_call *c = arg;
    if (!c->lens->lightcurves(c->be, c->m, c->tr, c->A))
        return 0;
    fprintf(stderr, "ml-fit-bench: %s: %s\n", c->be->description, sl_last_error());
    return 1;
}

static double time_tracks(const sl_lens *lens, const sl_backend *be, const sl_ml_map *m,
                          const sl_ml_tracks *tr, double *A)
{
    tracks_call c = {lens, be, m, tr, A};
    return sl_bench_median5(run_tracks, &c);
}

static int dump_setup(const char *path, int64_t n, const double *t, const double *Au,
                      const double *Ald)
{
    FILE *f = fopen(path, "wb");
    double head[6] = {1.0, 1e-3, setup[S_U0], setup[S_TE], setup[S_ALPHA], setup[S_RHO]};
    if (!f || fwrite(&n, 8, 1, f) != 1 || fwrite(head, 8, 6, f) != 6 ||
        fwrite(t, 8, (size_t)n, f) != (size_t)n || fwrite(Au, 8, (size_t)n, f) != (size_t)n ||
        fwrite(Ald, 8, (size_t)n, f) != (size_t)n || fclose(f)) {
        fprintf(stderr, "ml-fit-bench: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

static int tracks_bench(const sl_lens *lens, int64_t n_t, int64_t n_models, double rays,
                        double pixel_frac, const char *dump)
{
    sl_backend cpu, gpu;
    int have_gpu = sl_cuda_device_count() > 0 && !sl_backend_open("cuda", &gpu);
    if (sl_backend_open("cpu", &cpu))
        return 1;
    sl_ml_map_spec m;
    memset(&m, 0, sizeof m);
    lens->binary_lenses(1.0, 1e-3, &m.lenses);
    /* the track's box (tau within +-0.05 plus the jitter below) with a margin of 3 rho */
    double h = 0.05 + 0.002 + 4.0 * setup[S_RHO], px = setup[S_RHO] / pixel_frac;
    m.x0 = m.y0 = -h;
    m.x1 = m.y1 = h;
    m.nx = m.ny = (int)ceil(2.0 * h / px);
    m.rays_per_pixel = rays;
    m.seed = 1;
    const sl_backend *mb = have_gpu ? &gpu : &cpu;
    sl_ml_map map;
    double best = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        if (rep)
            lens->map_free(&map);
        double t0 = sl_bench_now();
        if (lens->map(mb, &m, &map)) {
            fprintf(stderr, "ml-fit-bench: map: %s\n", sl_last_error());
            return 1;
        }
        best = fmin(best, sl_bench_now() - t0);
    }
    printf("# ml-fit-bench --tracks: s = 1, q = 1e-3, rho = %g, u0 = %g, tE = %g d, alpha = %g "
           "deg, %lld epochs over t0 +- 1 d\n", setup[S_RHO], setup[S_U0], setup[S_TE],
           setup[S_ALPHA], (long long)n_t);
    printf("map on %s: %d^2 pixels of rho/%g over [%g, %g]^2, %g rays per pixel, %.3e rays: "
           "%.4f s end to end\n", mb->description, m.nx, pixel_frac, -h, h, rays,
           (double)map.rays, best);
    double *par = malloc((size_t)n_models * SL_ML_TRACK_NPAR * sizeof *par);
    double *t = malloc((size_t)n_t * sizeof *t);
    size_t npt = (size_t)(n_models * n_t);
    double *A = malloc(npt * sizeof *A), *B = malloc(npt * sizeof *B);
    double *Au = malloc((size_t)n_t * sizeof *Au), *Ald = malloc((size_t)n_t * sizeof *Ald);
    if (!par || !t || !A || !B || !Au || !Ald)
        return 1;
    for (int64_t j = 0; j < n_t; j++)
        t[j] = -1.0 + 2.0 * (double)j / (double)(n_t > 1 ? n_t - 1 : 1);
    for (int64_t i = 0; i < n_models; i++) {
        double *p = par + i * SL_ML_TRACK_NPAR;
        memcpy(p, setup, sizeof setup);
        if (i) {
            p[S_T0] = 0.02 * (urand() - 0.5);
            p[S_U0] = setup[S_U0] * (0.8 + 0.4 * urand());
            p[S_ALPHA] = setup[S_ALPHA] + 2.0 * (urand() - 0.5);
        }
    }
    for (int ld = 0; ld < 2; ld++) {
        sl_ml_tracks one = {1, par, n_t, t, ld ? 0.5 : 0.0, 0.0};
        sl_ml_tracks many = {n_models, par, n_t, t, ld ? 0.5 : 0.0, 0.0};
        const char *law = ld ? "a1=0.5" : "uniform";
        double sc = time_tracks(lens, &cpu, &map, &one, A);
        if (sc < 0)
            return 1;
        printf("cpu   %-9s %-44s 1 x %lld points: %.4f s = %.3e points/s (map resident)\n", law,
               cpu.description, (long long)n_t, sc, (double)n_t / sc);
        if (!have_gpu) {
            printf("cuda  (no usable device)\n");
            continue;
        }
        memcpy(ld ? Ald : Au, A, (size_t)n_t * sizeof *A);
        double s1 = time_tracks(lens, &gpu, &map, &one, B);
        double sm = time_tracks(lens, &gpu, &map, &many, B);
        if (s1 < 0 || sm < 0)
            return 1;
        double worst = 0.0;
        for (int64_t j = 0; j < n_t; j++)
            worst = fmax(worst, fabs(B[j] / A[j] - 1.0));
        memcpy(ld ? Ald : Au, B, (size_t)n_t * sizeof *B);
        printf("cuda  %-9s %-44s 1 x %lld points: %.5f s = %.3e points/s (map resident); "
               "with the map %.4f s = %.3e points/s\n", law, gpu.description, (long long)n_t,
               s1, (double)n_t / s1, s1 + best, (double)n_t / (s1 + best));
        printf("cuda  %-9s %-44s %lld x %lld points: %.4f s = %.3e points/s (map resident); "
               "gpu/cpu %.0fx; CPU-GPU worst %.1e\n", law, gpu.description, (long long)n_models,
               (long long)n_t, sm, (double)npt / sm, ((double)npt / sm) / ((double)n_t / sc),
               worst);
    }
    int rc = have_gpu && dump ? dump_setup(dump, n_t, t, Au, Ald) : 0;
    lens->map_free(&map);
    free(par), free(t), free(A), free(B), free(Au), free(Ald);
    return rc;
}

/* One likelihood call, for sl_bench_median5. */
typedef struct like_call {
    const sl_likelihood *l;
    void *ctx;
    const sl_backend *be;
    const double *p;
    size_t n;
    double *out;
} like_call;

static int run_like(void *arg)
{
    like_call *c = arg;
    if (!c->l->eval_batch(c->ctx, c->be, c->p, c->n, c->out))
        return 0;
    fprintf(stderr, "ml-fit-bench: %s: %s\n", c->be->description, sl_last_error());
    return 1;
}

static double time_like(const sl_likelihood *l, void *ctx, const sl_backend *be,
                        const double *p, size_t n, double *out)
{
    like_call c = {l, ctx, be, p, n, out};
    return sl_bench_median5(run_like, &c);
}

static int like_bench(const sl_registry *reg, size_t n, const char *data)
{
    const void *tab;
    if (sl_registry_get(reg, SL_KIND_LIKELIHOOD, "microlensing", &tab))
        return 1;
    const sl_likelihood *l = tab;
    sl_param_values pv;
    void *ctx;
    sl_data d = sl_data_file(data);
    if (sl_params_init(&pv, l->params, l->n_params) || sl_params_set_word(&pv, "model", "binary") ||
        l->prepare(&pv, &d, &ctx)) {
        fprintf(stderr, "ml-fit-bench: %s\n", sl_last_error());
        return 1;
    }
    FILE *f = fopen(data, "r");
    size_t n_obs = 0;
    char line[512];
    while (f && fgets(line, sizeof line, f))
        n_obs += line[0] >= '0' && line[0] <= '9';
    if (f)
        fclose(f);
    double *p = malloc(n * 6 * sizeof *p), *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) {
        double *q = p + i * 6;
        q[0] = 7000.0 + urand() - 0.5, q[1] = 0.05 * (0.8 + 0.4 * urand());
        q[2] = 25.0 * (0.9 + 0.2 * urand()), q[3] = 1.2 * (0.8 + 0.4 * urand());
        q[4] = 3e-3 * pow(10.0, urand() - 0.5), q[5] = 30.0 + 20.0 * (urand() - 0.5);
    }
    printf("# ml-fit-bench --like: binary point source, %zu models around the truth, %s "
           "(%zu points)\n", n, data, n_obs);
    sl_backend cpu, gpu;
    double rc = 0.0;
    if (!sl_backend_open("cpu", &cpu)) {
        double s = time_like(l, ctx, &cpu, p, n, a);
        if (s < 0)
            return 1;
        rc = n / s;
        printf("cpu   %-44s %.4f s = %.3e models/s = %.3e points/s\n", cpu.description, s,
               rc, rc * n_obs);
    }
    if (sl_cuda_device_count() > 0 && !sl_backend_open("cuda", &gpu)) {
        double s = time_like(l, ctx, &gpu, p, n, b);
        if (s < 0)
            return 1;
        double worst = 0.0;
        for (size_t i = 0; i < n; i++)
            worst = fmax(worst, fabs(b[i] / a[i] - 1.0));
        printf("cuda  %-44s %.4f s = %.3e models/s = %.3e points/s (kernel %.4f s); gpu/cpu "
               "%.1fx; worst %.1e\n", gpu.description, s, n / s, n / s * n_obs,
               l->last_kernel_s(ctx), (n / s) / rc, worst);
    } else {
        printf("cuda  (no usable device)\n");
    }
    l->release(ctx);
    free(p), free(a), free(b);
    return 0;
}

/* The first call (maps made) and the median of 5 after it, on one backend. */
static int fsbl_on(const sl_likelihood *l, const sl_param_values *pv, const sl_backend *be,
                   const double *p, size_t n, size_t n_obs, double *out, double *rate)
{
    sl_data d = sl_data_file(SL_BENCH_DATA_DIR "/microlensing/fsbl_event.csv");
    void *ctx;
    if (l->prepare(pv, &d, &ctx)) {
        fprintf(stderr, "ml-fit-bench: %s\n", sl_last_error());
        return 1;
    }
    double t0 = sl_bench_now();
    if (l->eval_batch(ctx, be, p, 1, out)) {
        fprintf(stderr, "ml-fit-bench: %s\n", sl_last_error());
        l->release(ctx);
        return 1;
    }
    double first = sl_bench_now() - t0, s = time_like(l, ctx, be, p, n, out);
    if (s < 0) {
        l->release(ctx);
        return 1;
    }
    *rate = n / s;
    printf("%-5s %-44s maps and first model %.3f s; %.4f s = %.3e models/s = %.3e points/s\n",
           be->kind == SL_BACKEND_CUDA ? "cuda" : "cpu", be->description, first, s, n / s,
           n / s * n_obs);
    l->release(ctx);
    return 0;
}

static int fsbl_bench(const sl_registry *reg, size_t n, double rho_min)
{
    const void *tab;
    if (sl_registry_get(reg, SL_KIND_LIKELIHOOD, "microlensing", &tab))
        return 1;
    const sl_likelihood *l = tab;
    sl_param_values pv;
    if (sl_params_init(&pv, l->params, l->n_params) || sl_params_set_word(&pv, "model", "fsbl") ||
        sl_params_set(&pv, "s", 1.1) || sl_params_set(&pv, "q", 0.01) ||
        sl_params_set(&pv, "rho_min", rho_min) || sl_params_set(&pv, "rho_max", 0.04)) {
        fprintf(stderr, "ml-fit-bench: %s\n", sl_last_error());
        return 1;
    }
    size_t n_obs = 141;
    double *p = malloc(n * 5 * sizeof *p), *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) {
        double *q = p + i * 5;
        q[0] = 8000.0 + 0.2 * (urand() - 0.5), q[1] = 0.05 * (0.9 + 0.2 * urand());
        q[2] = 20.0 * (0.95 + 0.1 * urand()), q[3] = 60.0 + 4.0 * (urand() - 0.5);
        q[4] = 0.02 * (0.8 + 0.4 * urand());
    }
    printf("# ml-fit-bench --fsbl: finite-source binary (s = 1.1, q = 0.01, rho in [%g, 0.04], "
           "maps of pixel %g, 200 rays a pixel), %zu models around the truth, fsbl_event.csv "
           "(%zu points)\n", rho_min, rho_min / 5, n, n_obs);
    sl_backend cpu, gpu;
    double rc = 0.0, rg = 0.0;
    if (sl_backend_open("cpu", &cpu) || fsbl_on(l, &pv, &cpu, p, n, n_obs, a, &rc))
        return 1;
    if (sl_cuda_device_count() > 0 && !sl_backend_open("cuda", &gpu)) {
        if (fsbl_on(l, &pv, &gpu, p, n, n_obs, b, &rg))
            return 1;
        double worst = 0.0;
        for (size_t i = 0; i < n; i++)
            worst = fmax(worst, fabs(b[i] / a[i] - 1.0));
        printf("gpu/cpu %.1fx (models/s); ln L worst relative difference %.1e (each backend's "
               "own maps)\n", rg / rc, worst);
    } else {
        printf("cuda  (no usable device)\n");
    }
    free(p), free(a), free(b);
    return 0;
}

int main(int argc, char **argv)
{
    int64_t n_tracks = 0, n_models = 1000;
    size_t n_like = 0, n_fsbl = 0;
    double rho_min = 5e-3;
    double rays = 1000.0, pixel = 10.0;
    const char *dump = NULL, *data = SL_BENCH_DATA_DIR "/microlensing/phot_event.csv";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tracks") && i + 1 < argc)
            n_tracks = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--models") && i + 1 < argc)
            n_models = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--rays") && i + 1 < argc)
            rays = atof(argv[++i]);
        else if (!strcmp(argv[i], "--pixel") && i + 1 < argc)
            pixel = atof(argv[++i]);
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
            dump = argv[++i];
        else if (!strcmp(argv[i], "--like") && i + 1 < argc)
            n_like = (size_t)atoll(argv[++i]);
        else if (!strcmp(argv[i], "--fsbl") && i + 1 < argc)
            n_fsbl = (size_t)atoll(argv[++i]);
        else if (!strcmp(argv[i], "--rho-min") && i + 1 < argc)
            rho_min = atof(argv[++i]);
        else if (!strcmp(argv[i], "--data") && i + 1 < argc)
            data = argv[++i];
        else {
            fprintf(stderr, "usage: ml-fit-bench --tracks N [--models M] [--rays R] [--pixel F] "
                            "[--dump FILE]\n       ml-fit-bench --like M [--data FILE]\n"
                            "       ml-fit-bench --fsbl M [--rho-min R]\n");
            return 2;
        }
    }
    if ((n_tracks < 1 && n_like < 1 && n_fsbl < 1) || n_models < 1 || !(rays > 0) ||
        !(pixel > 0) || !(rho_min > 0 && rho_min <= 0.04)) {
        fprintf(stderr, "ml-fit-bench: give --tracks N, --like M or --fsbl M (N, M, R, F > 0; "
                        "--rho-min in (0, 0.04])\n");
        return 2;
    }
    sl_registry *reg;
    const void *tab;
    if (sl_registry_create(&reg) || sl_registry_load_default(reg) ||
        sl_registry_get(reg, SL_KIND_LENS, "microlensing", &tab)) {
        fprintf(stderr, "ml-fit-bench: %s\n", sl_last_error());
        return 1;
    }
    int rc = 0;
    if (n_tracks > 0)
        rc = tracks_bench(tab, n_tracks, n_models, rays, pixel, dump);
    if (!rc && n_like > 0)
        rc = like_bench(reg, n_like, data);
    if (!rc && n_fsbl > 0)
        rc = fsbl_bench(reg, n_fsbl, rho_min);
    sl_registry_destroy(reg);
    return rc;
}
