/* Lomb-Scargle benchmark (issue 4): the seed's batch (1,000 objects,
 * log-normal N_t around 300, N_f = 28,608 on [1.005, 150.796) rad/d) and a
 * single object (N_t = 3,554, N_f = 10^4 ...), on the CPU backend (OpenMP,
 * all cores) and the CUDA backend in the same run. Times are medians of 5
 * after two warm-ups; "kernel" is the time in the sums (CUDA events on the
 * GPU), "end to end" the whole compute call (preparation, copies, results).
 *
 *   ls-bench [--quick] [--no-cpu] [--dump FILE]
 * --dump writes the batch (int64 n_obj, int64 offsets[n+1], double t, y, dy)
 * for tests/reference/ls_bench_ref.py (astropy, nifty-ls on the same data). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/plugins/lombscargle/lombscargle.h"
#include "starling/starling.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static double urand(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static double nrand(void)
{
    double u = urand(), v = urand();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

/* ZTF-like cadence: nights over ~3 years, a few points per night; an
 * asteroid-like double-peaked light curve (period in hours). */
static void make_object(int64_t n, double *t, double *y, double *dy)
{
    double period = (2.0 + 20.0 * urand()) / 24.0, ph = urand();
    double tt = 0;
    for (int64_t i = 0; i < n; i++) {
        tt += urand() < 0.7 ? 0.01 + 0.02 * urand() : 1.0 + 3.0 * urand();
        t[i] = 58000.0 + tt;
        dy[i] = 0.02 + 0.03 * urand();
        y[i] = 18.0 + 0.3 * sin(4 * M_PI * (t[i] / period + ph)) +
               0.1 * sin(2 * M_PI * (t[i] / period + ph)) + dy[i] * nrand();
    }
}

typedef struct run_t {
    double kernel, wall, prep, xfer, best_f0;
} run_t;

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Medians of 5 calls after two warm-ups (each column its own median; the
 * first calls of a process pay for pinned buffers and waking threads). */
static int timed(const sl_periodogram *ls, const sl_backend *be, const sl_ls_data *d,
                 const sl_ls_options *o, run_t *out)
{
    double k[5], w[5], p[5], x[5];
    sl_ls_result r;
    for (int rep = -2; rep < 5; rep++) {
        if (ls->compute(be, d, o, &r)) {
            fprintf(stderr, "ls-bench: %s\n", sl_last_error());
            return 1;
        }
        if (rep >= 0)
            k[rep] = r.kernel_s, w[rep] = r.wall_s, p[rep] = r.prep_s, x[rep] = r.transfer_s;
        out->best_f0 = r.best_f[0];
        ls->result_free(&r);
    }
    qsort(k, 5, sizeof *k, cmpd);
    qsort(w, 5, sizeof *w, cmpd);
    qsort(p, 5, sizeof *p, cmpd);
    qsort(x, 5, sizeof *x, cmpd);
    out->kernel = k[2], out->wall = w[2], out->prep = p[2], out->xfer = x[2];
    return 0;
}

int main(int argc, char **argv)
{
    int quick = 0, no_cpu = 0;
    const char *dump = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--no-cpu")) no_cpu = 1;
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc) dump = argv[++i];
        else {
            fprintf(stderr, "usage: ls-bench [--quick] [--no-cpu] [--dump FILE]\n");
            return 2;
        }
    }
    sl_registry *reg;
    const void *tab;
    if (sl_registry_create(&reg) || sl_registry_load_default(reg) ||
        sl_registry_get(reg, SL_KIND_PERIODOGRAM, "lombscargle", &tab)) {
        fprintf(stderr, "ls-bench: %s\n", sl_last_error());
        return 1;
    }
    const sl_periodogram *ls = tab;
    sl_backend cpu, gpu;
    sl_backend_open("cpu", &cpu);
    int have_gpu = sl_backend_open("cuda", &gpu) == SL_OK;
    printf("# cpu: %s\n# gpu: %s\n", cpu.description, have_gpu ? gpu.description : "none");

    /* the batch */
    int64_t n_obj = quick ? 100 : 1000;
    int64_t *off = malloc((size_t)(n_obj + 1) * sizeof *off);
    off[0] = 0;
    for (int64_t i = 0; i < n_obj; i++) {
        double n = exp(log(300.0) + 0.5 * nrand());
        off[i + 1] = off[i] + (int64_t)fmax(20.0, fmin(3000.0, n));
    }
    int64_t np = off[n_obj];
    double *t = malloc((size_t)np * sizeof *t), *y = malloc((size_t)np * sizeof *y),
           *dy = malloc((size_t)np * sizeof *dy);
    for (int64_t i = 0; i < n_obj; i++)
        make_object(off[i + 1] - off[i], t + off[i], y + off[i], dy + off[i]);
    if (dump) {
        FILE *f = fopen(dump, "wb");
        if (!f || fwrite(&n_obj, 8, 1, f) != 1 || fwrite(off, 8, (size_t)n_obj + 1, f) != (size_t)n_obj + 1 ||
            fwrite(t, 8, (size_t)np, f) != (size_t)np || fwrite(y, 8, (size_t)np, f) != (size_t)np ||
            fwrite(dy, 8, (size_t)np, f) != (size_t)np) {
            fprintf(stderr, "ls-bench: cannot write %s\n", dump);
            return 1;
        }
        fclose(f);
    }
    sl_ls_data d = {n_obj, off, t, y, dy, NULL, NULL};
    printf("\n## batch: %lld objects, %lld points (mean N_t %.0f), N_f = 28608 on [1.005, "
           "150.796) rad/d, generalised\n", (long long)n_obj, (long long)np, (double)np / n_obj);
    printf("| backend | precision | output | host prep [ms] | transfers [ms] | kernel [ms] | "
           "end to end [ms] | Gfreq-pts/s (e2e) |\n");
    printf("|---|---|---|---:|---:|---:|---:|---:|\n");
    for (int b = no_cpu ? 1 : 0; b < (have_gpu ? 2 : 1); b++)
        for (int prec = 0; prec < 2; prec++)
            for (int full = 0; full < (b ? 4 : 2); full++) {
                sl_ls_options o;
                sl_ls_options_default(&o);
                o.grid = SL_LS_GRID_EXPLICIT;
                o.f_min = 1.005 / (2 * M_PI), o.f_max = 150.796 / (2 * M_PI), o.n_f = 28608;
                o.precision = prec ? SL_LS_FP32 : SL_LS_FP64;
                /* full: 1 staged (pinned + 3 streams), 2 plain cudaMemcpy, 3 kept on device */
                o.full = full > 0;
                o.transfer = full == 2 ? SL_LS_TRANSFER_PLAIN
                             : full == 3 ? SL_LS_TRANSFER_DEVICE : SL_LS_TRANSFER_STAGED;
                o.engine = SL_LS_ENGINE_DIRECT;
                run_t r;
                if (timed(ls, b ? &gpu : &cpu, &d, &o, &r))
                    return 1;
                printf("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.1f |\n", b ? "cuda" : "cpu",
                       prec ? "fp32" : "fp64",
                       full == 0 ? "best period" : !b ? "full periodograms"
                       : full == 1 ? "full, staged (pinned, 3 streams)"
                       : full == 2 ? "full, plain cudaMemcpy" : "full, kept on device",
                       1e3 * r.prep, 1e3 * r.xfer, 1e3 * r.kernel, 1e3 * r.wall,
                       (double)np * 28608 / r.wall / 1e9);
                fflush(stdout);
            }

    /* the single object */
    int64_t n1 = 3554;
    double *t1 = malloc((size_t)n1 * sizeof *t1), *y1 = malloc((size_t)n1 * sizeof *y1),
           *dy1 = malloc((size_t)n1 * sizeof *dy1);
    make_object(n1, t1, y1, dy1);
    sl_ls_data d1 = {1, (int64_t[]){0, n1}, t1, y1, dy1, NULL, NULL};
    printf("\n## single object: N_t = %lld, grid [0.5, 24) c/d, generalised, best period\n",
           (long long)n1);
    printf("| backend | engine | precision | N_f | kernel [ms] | end to end [ms] |\n|---|---|---|---:|---:|---:|\n");
    /* b = 2, 3: the fast engine (Press & Rybicki; FFTW on the CPU, cuFFT on
     * the GPU; FP64 sums) */
    for (int b = no_cpu ? 1 : 0; b < 4; b++) {
        if ((b == 1 || b == 3) && !have_gpu)
            continue;
        if (b == 2 && no_cpu)
            break;
        for (int prec = 0; prec < 2; prec++)
            for (int64_t nf = 10000; nf <= (b == 1 || b == 3 ? (quick ? 10000000 : 100000000)
                                                    : b == 2 ? 10000000 : 1000000);
                 nf *= 10) {
                if (b >= 2 && prec)
                    break;
                sl_ls_options o;
                sl_ls_options_default(&o);
                o.grid = SL_LS_GRID_EXPLICIT, o.f_min = 0.5, o.f_max = 24.0, o.n_f = nf;
                o.precision = prec ? SL_LS_FP32 : SL_LS_FP64;
                o.engine = b >= 2 ? SL_LS_ENGINE_FAST : SL_LS_ENGINE_DIRECT;
                run_t r;
                if (timed(ls, b == 1 || b == 3 ? &gpu : &cpu, &d1, &o, &r))
                    return 1;
                printf("| %s | %s | %s | %lld | %.2f | %.2f |\n", b == 1 || b == 3 ? "cuda" : "cpu",
                       b >= 2 ? "fast" : "direct", prec ? "fp32" : "fp64", (long long)nf,
                       1e3 * r.kernel, 1e3 * r.wall);
                fflush(stdout);
            }
    }
    free(off), free(t), free(y), free(dy), free(t1), free(y1), free(dy1);
    sl_registry_destroy(reg);
    return 0;
}
