/* GPU suite for the collision monitor's merge: the merging systems of
 * tests/merge_cases.h (quiet pairs, planets that meet, planets the star
 * swallows, a star left alone) on CUDA as on the CPU, with hermite and
 * mvs: the same merges at the same steps (merge records), the same bodies
 * removed, every system at t_end, and the survivors' states within 1e-9
 * (FMA contraction on the GPU is the only difference before a merge; a
 * close approach amplifies it after). Skips without a device unless
 * SL_REQUIRE_GPU=1. */
#include "merge_cases.h"

enum { NS = 512 };

static void run_on(const char *backend, sl_run_config *c, sl_ensemble *e, slt_log *log)
{
    sl_backend be;
    SLT_OK(sl_backend_open(backend, &be));
    slt_log_init(log, e->n_sys);
    slt_log_attach(c, log);
    sl_run_result r;
    SLT_OK(sl_integrate(&be, e, c, &r));
    cr_assert_eq(r.n_active, e->n_sys, "%s: %lld active", backend, (long long)r.n_active);
    sl_run_result_free(&r);
    slt_log_sort(log);
}

static void agrees(const char *integrator, double dt)
{
    SLT_REQUIRE_GPU();
    slt_plugins p;
    slt_load(&p);
    sl_run_config c;
    merge_config(&p, &c, integrator, dt, 6.0, 1);
    c.steps_per_launch = 400;
    slt_monitor(&p, &c, "log", 2, (const char *[]){"every", "on_stop"}, (double[]){250, 1});
    sl_ensemble *a = merge_systems(NS), *b = merge_systems(NS);
    slt_log la, lb;
    run_on("cpu", &c, a, &la);
    run_on("cuda", &c, b, &lb);
    cr_assert_eq(la.n, lb.n, "%s: %lld records on the CPU, %lld on CUDA", integrator,
                 (long long)la.n, (long long)lb.n);
    for (int64_t i = 0; i < la.n; i++) {
        const double *x = la.rec + (size_t)i * (size_t)la.rec_len,
                     *y = lb.rec + (size_t)i * (size_t)lb.rec_len;
        for (int k = 0; k < 4; k++)
            cr_assert_eq(x[k], y[k], "%s record %lld field %d: %.17g vs %.17g", integrator,
                         (long long)i, k, x[k], y[k]);
    }
    double worst = 0;
    for (int64_t s = 0; s < NS; s++) {
        int kind = (int)(s % M_KINDS);
        cr_assert_eq(merge_attr(a, "merges", s), merge_count(kind), "%s system %lld",
                     integrator, (long long)s);
        cr_assert_eq(merge_attr(b, "merges", s), merge_count(kind), "%s system %lld on CUDA",
                     integrator, (long long)s);
        cr_assert_eq(a->steps[s], b->steps[s]);
        cr_assert_eq(a->time[s], b->time[s]);
        for (int bd = 0; bd < 3; bd++) {
            int ra = sl_ensemble_body_removed(a, s, bd);
            cr_assert_eq(ra, sl_ensemble_body_removed(b, s, bd));
            cr_assert_eq(ra, (merge_removed(kind) >> bd) & 1);
            for (int f = 0; f < SL_NFIELD && !ra; f++) {
                double u = sl_ensemble_get(a, s, bd, f), w = sl_ensemble_get(b, s, bd, f);
                double d = fabs(u - w) / (1.0 + fabs(u));
                worst = fmax(worst, d);
                cr_assert(d <= 1e-9, "%s system %lld (kind %d) body %d field %d: %.17g on the "
                          "CPU, %.17g on CUDA", integrator, (long long)s, kind, bd, f, u, w);
            }
        }
    }
    cr_log_info("%s: survivors within %.3g of the CPU's", integrator, worst);
    slt_log_free(&la);
    slt_log_free(&lb);
    sl_ensemble_destroy(a);
    sl_ensemble_destroy(b);
    slt_unload(&p);
}

Test(gpu_merge, hermite_merges_as_on_the_cpu) { agrees("hermite", 0.002); }
Test(gpu_merge, mvs_merges_as_on_the_cpu) { agrees("mvs", 0.002); }
