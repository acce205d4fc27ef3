/* GPU suite: the CUDA Lomb-Scargle kernels against the CPU backend on the
 * same inputs: a single long light curve and a batch of objects of very
 * different lengths (with flagged ones), FP64 and FP32, best-only and full
 * output, both methods.
 *
 * Skips when no CUDA device is usable, fails then if SL_REQUIRE_GPU=1. */
#include "ls_test.h"

static void compare(const slt_ls *p, const sl_ls_data *d, sl_ls_options *o, double tol,
                    const char *what)
{
    sl_backend cpu, gpu;
    SLT_OK(sl_backend_open("cpu", &cpu));
    SLT_OK(sl_backend_open("cuda", &gpu));
    /* like with like: "auto" may pick the fast engine on the CPU for long
     * series and always the direct sum on the GPU */
    if (o->engine == SL_LS_ENGINE_AUTO)
        o->engine = SL_LS_ENGINE_DIRECT;
    sl_ls_result rc, rg;
    SLT_OK(p->ls->compute(&cpu, d, o, &rc));
    SLT_OK(p->ls->compute(&gpu, d, o, &rg));
    cr_assert(strstr(rg.engine, "cuda"), "%s", rg.engine);
    double worst = 0;
    int64_t same_best = 0, n_ok = 0;
    for (int64_t i = 0; i < d->n_obj; i++) {
        cr_assert_eq(rg.flag[i], rc.flag[i], "%s: object %lld flag", what, (long long)i);
        cr_assert_eq(rg.n_f[i], rc.n_f[i]);
        if (rc.flag[i])
            continue;
        n_ok++;
        same_best += rg.best_f[i] == rc.best_f[i];
        /* a different best bin is only allowed between near-equal powers */
        cr_assert(rg.best_f[i] == rc.best_f[i] || slt_rel(rg.best_p[i], rc.best_p[i]) < tol,
                  "%s: object %lld best f %.17g (p %.17g) vs cpu %.17g (p %.17g)", what,
                  (long long)i, rg.best_f[i], rg.best_p[i], rc.best_f[i], rc.best_p[i]);
        worst = fmax(worst, slt_rel(rg.best_p[i], rc.best_p[i]));
        if (o->full) {
            double peak = rc.best_p[i];
            for (int64_t k = 0; k < rc.n_f[i]; k++) {
                int64_t at = rc.power_offset[i] + k;
                double a = rg.power64 ? rg.power64[at] : rg.power32[at];
                double b = rc.power64 ? rc.power64[at] : rc.power32[at];
                if (b >= 1e-4 * peak)
                    worst = fmax(worst, slt_rel(a, b));
            }
        }
    }
    cr_log_info("%s: %lld objects, same best bin %lld, worst relative GPU-CPU %.2e "
                "(kernel %.4f s gpu, %.4f s cpu)", what, (long long)n_ok, (long long)same_best,
                worst, rg.kernel_s, rc.kernel_s);
    cr_assert(worst <= tol, "%s: GPU and CPU differ by %.3e (tolerance %.1e)", what, worst, tol);
    p->ls->result_free(&rc);
    p->ls->result_free(&rg);
}

Test(gpu_lombscargle, single_long_curve)
{
    SLT_REQUIRE_GPU();
    slt_ls p;
    slt_ls_load(&p);
    enum { N = 3554 };
    static double t[N], y[N], dy[N];
    slt_ls_curve(N, 1200.0, 0.5646, 3, t, y, dy);
    sl_ls_data d = {1, (int64_t[]){0, N}, t, y, dy, NULL, NULL};
    sl_ls_options o;
    sl_ls_options_default(&o);
    o.grid = SL_LS_GRID_EXPLICIT, o.f_min = 0.5, o.f_max = 24.0, o.n_f = 200000;
    o.full = 1;
    /* every kernel variant: 1, 2, 4, 8 frequencies per thread (rotations) */
    const char *per[] = {"1", "2", "4", "8"};
    for (int r = 0; r < 4; r++) {
        setenv("SL_LS_FREQ_PER_THREAD", per[r], 1);
        for (int m = 0; m < 2; m++) {
            char what[64];
            o.method = m ? SL_LS_GENERALISED : SL_LS_STANDARD;
            o.precision = SL_LS_FP64;
            snprintf(what, sizeof what, "single %s fp64, %s per thread", m ? "gen" : "std",
                     per[r]);
            compare(&p, &d, &o, 1e-9, what);
            o.precision = SL_LS_FP32;
            snprintf(what, sizeof what, "single %s fp32, %s per thread", m ? "gen" : "std",
                     per[r]);
            compare(&p, &d, &o, 1e-2, what);
        }
    }
    unsetenv("SL_LS_FREQ_PER_THREAD");
    slt_ls_unload(&p);
}

Test(gpu_lombscargle, batch_mixed_lengths)
{
    SLT_REQUIRE_GPU();
    slt_ls p;
    slt_ls_load(&p);
    enum { NOBJ = 300 };
    int64_t off[NOBJ + 1] = {0};
    for (int i = 0; i < NOBJ; i++) /* one huge object among small ones, and a 2-point one */
        off[i + 1] = off[i] + (i == 17 ? 20000 : i == 5 ? 2 : 20 + (i * 37) % 400);
    double *t = malloc((size_t)off[NOBJ] * sizeof *t), *y = malloc((size_t)off[NOBJ] * sizeof *y),
           *dy = malloc((size_t)off[NOBJ] * sizeof *dy);
    for (int i = 0; i < NOBJ; i++)
        slt_ls_curve(off[i + 1] - off[i], 50.0 + i, 0.2 + 0.01 * i, (uint64_t)i, t + off[i],
                     y + off[i], dy + off[i]);
    y[off[40] + 3] = NAN;
    sl_ls_data d = {NOBJ, off, t, y, dy, NULL, NULL};
    sl_ls_options o;
    sl_ls_options_default(&o);
    o.grid = SL_LS_GRID_BASELINE, o.f_min = 0.16, o.f_max = 24.0;
    compare(&p, &d, &o, 1e-9, "batch fp64 best");
    o.precision = SL_LS_FP32;
    compare(&p, &d, &o, 1e-2, "batch fp32 best");
    o.full = 1;
    compare(&p, &d, &o, 1e-2, "batch fp32 full");
    o.precision = SL_LS_FP64;
    o.grid = SL_LS_GRID_AUTO;
    o.norm = SL_LS_NORM_PSD;
    compare(&p, &d, &o, 1e-9, "batch fp64 full autofrequency psd");
    free(t), free(y), free(dy);
    slt_ls_unload(&p);
}

/* The fast engine on the GPU (cuFFT) against the fast engine on the CPU
 * (FFTW): the same extirpolation, so they differ only by rounding (atomic
 * adds' order, the FFTs'); 1e-7 relative where power >= 1e-4 of the peak. */
Test(gpu_lombscargle, fast_engine_matches_cpu)
{
    SLT_REQUIRE_GPU();
    slt_ls p;
    slt_ls_load(&p);
    enum { N = 5000 };
    static double t[N], y[N], dy[N];
    slt_ls_curve(N, 900.0, 0.731, 11, t, y, dy);
    sl_ls_data d = {1, (int64_t[]){0, N}, t, y, dy, NULL, NULL};
    for (int m = 0; m < 2; m++) {
        sl_ls_options o;
        sl_ls_options_default(&o);
        o.method = m ? SL_LS_GENERALISED : SL_LS_STANDARD;
        o.grid = SL_LS_GRID_EXPLICIT, o.f_min = 0.01, o.f_max = 15.0, o.n_f = 200000;
        o.engine = SL_LS_ENGINE_FAST;
        o.full = 1;
        compare(&p, &d, &o, 1e-7, m ? "fast generalised" : "fast standard");
    }
    slt_ls_unload(&p);
}

/* The cuFFT path against the exact sum (the CPU's direct engine) on the
 * survey curve of test_lombscargle's fast_engine_survey_curve (n_f = 2^17,
 * so the FFT is exactly 8 n_f): the documented bound, SLT_LS_FAST_BOUND of
 * the peak, with the defaults, as the CPU's FFTW path is held to. */
Test(gpu_lombscargle, fast_engine_survey_bound)
{
    SLT_REQUIRE_GPU();
    slt_ls p;
    slt_ls_load(&p);
    sl_backend cpu, gpu;
    SLT_OK(sl_backend_open("cpu", &cpu));
    SLT_OK(sl_backend_open("cuda", &gpu));
    static double t[1000], y[1000], dy[1000];
    int64_t n = slt_ls_macho(1000, 0.5668, 0.15, 11, t, y, dy);
    cr_assert_eq(n, 1000);
    sl_ls_data d = {1, (int64_t[]){0, n}, t, y, dy, NULL, NULL};
    for (int m = 0; m < 2; m++) {
        sl_ls_options o;
        sl_ls_options_default(&o);
        o.method = m ? SL_LS_GENERALISED : SL_LS_STANDARD;
        o.grid = SL_LS_GRID_EXPLICIT, o.f_min = 1e-3, o.f_max = 10.0, o.n_f = 131072;
        o.full = 1;
        sl_ls_result rd, rf;
        o.engine = SL_LS_ENGINE_DIRECT;
        SLT_OK(p.ls->compute(&cpu, &d, &o, &rd));
        o.engine = SL_LS_ENGINE_FAST;
        SLT_OK(p.ls->compute(&gpu, &d, &o, &rf));
        cr_assert(rf.n_fast == 1 && strstr(rf.engine, "cuda"), "%s", rf.engine);
        double peak = rd.best_p[0], worst = 0;
        for (int64_t k = 0; k < rd.n_f[0]; k++)
            worst = fmax(worst, fabs(rf.power64[k] - rd.power64[k]) / peak);
        fprintf(stderr, "cuFFT fast engine, defaults, MACHO-like, %s: max |dP| / P_peak = %.3g\n",
                m ? "generalised" : "standard", worst);
        cr_assert(worst < SLT_LS_FAST_BOUND, "%s: %.3g >= %g", m ? "generalised" : "standard",
                  worst, SLT_LS_FAST_BOUND);
        cr_assert_eq(rf.best_f[0], rd.best_f[0], "best %.12g vs direct %.12g", rf.best_f[0],
                     rd.best_f[0]);
        p.ls->result_free(&rd);
        p.ls->result_free(&rf);
    }
    slt_ls_unload(&p);
}

/* Full batch periodograms: the staged copy (pinned buffers, 3 streams)
 * gives exactly the plain cudaMemcpy's bytes (more than 3 x 8 MiB, so
 * every buffer is reused); transfer "device" leaves them on the GPU. */
Test(gpu_lombscargle, transfers_agree)
{
    SLT_REQUIRE_GPU();
    slt_ls p;
    slt_ls_load(&p);
    enum { NOBJ = 200, NPT = 100 };
    static double t[NOBJ * NPT], y[NOBJ * NPT], dy[NOBJ * NPT];
    static int64_t off[NOBJ + 1];
    for (int i = 0; i < NOBJ; i++) {
        off[i] = (int64_t)i * NPT;
        slt_ls_curve(NPT, 50.0, 0.2 + 0.01 * i, (uint64_t)i + 1, t + off[i], y + off[i],
                     dy + off[i]);
    }
    off[NOBJ] = NOBJ * NPT;
    sl_ls_data d = {NOBJ, off, t, y, dy, NULL, NULL};
    sl_backend gpu;
    SLT_OK(sl_backend_open("cuda", &gpu));
    sl_ls_options o;
    sl_ls_options_default(&o);
    o.grid = SL_LS_GRID_EXPLICIT, o.f_min = 0.01, o.f_max = 20.0, o.n_f = 20000;
    o.full = 1; /* 200 x 20,000 doubles = 32 MB */
    sl_ls_result rs, rp, rd;
    o.transfer = SL_LS_TRANSFER_STAGED;
    SLT_OK(p.ls->compute(&gpu, &d, &o, &rs));
    o.transfer = SL_LS_TRANSFER_PLAIN;
    SLT_OK(p.ls->compute(&gpu, &d, &o, &rp));
    o.transfer = SL_LS_TRANSFER_DEVICE;
    SLT_OK(p.ls->compute(&gpu, &d, &o, &rd));
    int64_t n = rs.power_offset[NOBJ];
    cr_assert_eq(n, (int64_t)NOBJ * 20000);
    cr_assert(!memcmp(rs.power64, rp.power64, (size_t)n * sizeof(double)),
              "staged and plain copies differ");
    cr_assert_not_null(rd.device_power);
    cr_assert_null(rd.power64);
    for (int i = 0; i < NOBJ; i++)
        cr_assert_eq(rd.best_f[i], rp.best_f[i]);
    p.ls->result_free(&rs), p.ls->result_free(&rp), p.ls->result_free(&rd);
    slt_ls_unload(&p);
}
