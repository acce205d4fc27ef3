/* GPU suite: the Kepler drift (kepler_drift.h) on the device against the
 * CPU on the same random orbits and steps as the CPU suite draws: every
 * drift converges on both, and both lie within the CPU suite's bound of
 * the long-double reference, so within the sum of the two bounds of each
 * other (the device's sin, sinh, log... round differently from glibc's).
 * Skips when no CUDA device is usable, fails then if SL_REQUIRE_GPU=1. */
#include "gpu_kdrift.h"
#include "sl_test.h"

#include "mvs/kepler_drift.h"

#include "kepler_drift_ref.h"

static double slt_u01(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * 0x1p-53;
}

Test(gpu_kepler_drift, cpu_and_cuda_agree_on_random_drifts, .timeout = 300)
{
    SLT_REQUIRE_GPU();
    enum { N = 20000 };
    double *gm = malloc(N * sizeof *gm), *dt = malloc(N * sizeof *dt);
    double *start = malloc(6 * N * sizeof *start), *dev = malloc(6 * N * sizeof *dev);
    int *it = malloc(N * sizeof *it);
    cr_assert(gm && dt && start && dev && it);
    unsigned long long s = 0x5eedULL;
    for (int i = 0; i < N;) {
        double g = exp(4 * slt_u01(&s) - 2), e = slt_u01(&s) < 0.5 ? 1.2 * slt_u01(&s)
                                                                    : 5 * slt_u01(&s);
        double q = exp(4 * slt_u01(&s) - 2), nu = (2 * slt_u01(&s) - 1) * M_PI;
        double tscale = q * sqrt(q / g);
        double d = (slt_u01(&s) < 0.5 ? -1 : 1) * tscale * exp(30 * slt_u01(&s) - 20);
        if (e >= 1 && fabs(nu) >= 0.99 * acos(-1 / e))
            continue;
        gm[i] = g, dt[i] = d;
        orbit_state(g, q, e, nu, start + 6 * i, start + 6 * i + 3);
        i++;
    }
    memcpy(dev, start, 6 * N * sizeof *dev);
    char err[256] = "";
    cr_assert(slt_gpu_kdrift(N, gm, dt, dev, it, err, sizeof err), "%s", err);
    int same = 0;
    double worst = 0;
    for (int i = 0; i < N; i++) {
        const double *x0 = start + 6 * i, *v0 = x0 + 3, *xd = dev + 6 * i, *vd = xd + 3;
        double x[3] = {x0[0], x0[1], x0[2]}, v[3] = {v0[0], v0[1], v0[2]};
        int ic = sl_kepler_drift(gm[i], dt[i], x, v);
        cr_assert(ic > 0 && it[i] > 0, "draw %d (gm %.17g, dt %.17g): CPU %d, CUDA %d iterations",
                  i, gm[i], dt[i], ic, it[i]);
        double bound = 2 * drift_bound(gm[i], dt[i], x0, v0);
        double d = fmax(drift_err(x0, xd, x), drift_err(v0, vd, v));
        cr_assert(d <= bound, "draw %d (gm %.17g, dt %.17g): CPU and CUDA differ by %.3g "
                  "(bound %.3g)", i, gm[i], dt[i], d, bound);
        worst = fmax(worst, d / bound);
        same += memcmp(x, xd, sizeof x) == 0 && memcmp(v, vd, sizeof v) == 0;
    }
    fprintf(stderr, "kepler drift, %d random drifts: CPU = CUDA bit for bit in %d; worst "
            "difference %.3g of the bound\n", N, same, worst);
    free(gm), free(dt), free(start), free(dev), free(it);
}
