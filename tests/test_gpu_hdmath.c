/* GPU suite: hd.h's device arithmetic, CUDA's own fast paths without their
 * branches to the special cases (SL_RSQRT, SL_SQRT, SL_RCP, SL_DIV), gives
 * the bits of CUDA's rsqrt, sqrt, 1.0 / x and y / x for positive and
 * negative normal arguments over the range the header states, and is
 * within 2^-51 (relative) of the host's (the CPU backend's macros: sqrt and
 * IEEE division, correctly rounded, and 1 / sqrt). At 0, SL_RSQRT and
 * SL_SQRT give non-finite values, as the header says (two bodies at one
 * point: the monitors' non-finite check stops the system).
 *
 * Skips when no CUDA device is usable, fails then if SL_REQUIRE_GPU=1. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpu_hdmath.h"
#include "sl_test.h"
#include "starling/rng.h"

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static const char *what[4] = {"SL_RSQRT / rsqrt", "SL_SQRT / sqrt", "SL_RCP / 1.0 / x",
                              "SL_DIV / y / x"};

Test(gpu_hdmath, cuda_bits_and_host_values)
{
    SLT_REQUIRE_GPU();
    enum { N = 1 << 20 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y),
           *sl = malloc(4 * N * sizeof *sl), *cu = malloc(4 * N * sizeof *cu);
    cr_assert(x && y && sl && cu);
    /* Mantissas at random, exponents over +-300 decades (the quotients
     * inside the header's range), signs at random for y, and the squared
     * distances of planetary systems (1e-8 .. 1e8) drawn densely, a
     * quarter of the points. */
    sl_rng r;
    sl_rng_init(&r, 0x125e7, 0);
    for (int i = 0; i < N; i++) {
        double u = sl_rng_uniform(&r), w = sl_rng_uniform(&r);
        double u2 = sl_rng_uniform(&r), w2 = sl_rng_uniform(&r);
        int dense = i % 4 == 0;
        x[i] = (1.0 + u) * pow(10.0, dense ? -8.0 + 16.0 * w : -150.0 + 300.0 * w);
        y[i] = (u2 < 0.5 ? -1.0 : 1.0) * (1.0 + 2.0 * fabs(u2 - 0.5)) *
               pow(10.0, dense ? -8.0 + 16.0 * w2 : -150.0 + 300.0 * w2);
    }
    x[0] = 1.0, x[1] = 4.0, x[2] = nextafter(1.0, 2.0), x[3] = nextafter(4.0, 0.0);
    x[4] = 0x1p-960, x[5] = 0x1p+960, y[4] = 1.0, y[5] = 1.0;
    char err[256] = "";
    cr_assert(slt_gpu_hdmath(N, x, y, sl, cu, err, sizeof err), "%s", err);
    for (int i = 0; i < N; i++) {
        cr_assert(isnormal(x[i]) && x[i] > 0.0 && isnormal(y[i]));
        double host[4] = {1.0 / sqrt(x[i]), sqrt(x[i]), 1.0 / x[i], y[i] / x[i]};
        for (int k = 0; k < 4; k++) {
            double s = sl[4 * i + k], c = cu[4 * i + k];
            cr_assert_eq(bits(s), bits(c), "%s, x = %.17g, y = %.17g: %.17g against %.17g",
                         what[k], x[i], y[i], s, c);
            cr_assert(fabs(s - host[k]) <= 0x1p-51 * fabs(host[k]),
                      "%s, x = %.17g, y = %.17g: device %.17g, host %.17g", what[k], x[i],
                      y[i], s, host[k]);
            /* sqrt and the divisions are correctly rounded on both sides */
            if (k > 0)
                cr_assert_eq(bits(s), bits(host[k]), "%s, x = %.17g, y = %.17g: device "
                             "%.17g, host %.17g", what[k], x[i], y[i], s, host[k]);
        }
    }
    free(x), free(y), free(sl), free(cu);
}

Test(gpu_hdmath, zero_is_not_finite)
{
    SLT_REQUIRE_GPU();
    double x[2] = {0.0, 1.0}, y[2] = {1.0, 1.0}, sl[8], cu[8];
    char err[256] = "";
    cr_assert(slt_gpu_hdmath(2, x, y, sl, cu, err, sizeof err), "%s", err);
    cr_assert(!isfinite(sl[0]), "SL_RSQRT(0) = %g", sl[0]);
    cr_assert(!isfinite(sl[1]), "SL_SQRT(0) = %g", sl[1]);
    for (int k = 0; k < 4; k++)
        cr_assert_eq(sl[4 + k], 1.0, "%s at 1: %.17g", what[k], sl[4 + k]);
}
