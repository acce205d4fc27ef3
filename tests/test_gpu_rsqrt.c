/* GPU suite: the forces' 1/sqrt on the device (SL_RSQRT, hd.h), CUDA's
 * rsqrt without its branch to the special cases, gives rsqrt's bits for
 * every positive normal argument, from the smallest normal to the largest
 * double, and is within 2^-51 (relative) of the host's 1 / sqrt(x), the
 * CPU backend's SL_RSQRT. At 0 it gives a non-finite value, as the header says (two
 * bodies at one point: the monitors' non-finite check stops the system).
 *
 * Skips when no CUDA device is usable, fails then if SL_REQUIRE_GPU=1. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpu_rsqrt.h"
#include "sl_test.h"
#include "starling/rng.h"

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

Test(gpu_rsqrt, rsqrt_bits_and_host_ulps)
{
    SLT_REQUIRE_GPU();
    enum { N = 1 << 20 };
    double *x = malloc(N * sizeof *x), *sl = malloc(N * sizeof *sl),
           *cu = malloc(N * sizeof *cu);
    cr_assert(x && sl && cu);
    /* Mantissas at random, exponents over the whole normal range, and the
     * ends themselves; the squared distances of planetary systems (1e-8 ..
     * 1e8) drawn densely, a quarter of the points. */
    sl_rng r;
    sl_rng_init(&r, 0x125e7, 0);
    for (int i = 0; i < N; i++) {
        double u = sl_rng_uniform(&r), w = sl_rng_uniform(&r);
        double e = i % 4 == 0 ? -8.0 + 16.0 * w : -307.0 + 615.0 * w;
        x[i] = (1.0 + u) * pow(10.0, e);
    }
    x[0] = DBL_MIN, x[1] = DBL_MAX, x[2] = 1.0, x[3] = 4.0, x[4] = nextafter(1.0, 2.0);
    char err[256] = "";
    cr_assert(slt_gpu_rsqrt(N, x, sl, cu, err, sizeof err), "%s", err);
    for (int i = 0; i < N; i++) {
        cr_assert(isnormal(x[i]) && x[i] > 0.0);
        cr_assert_eq(bits(sl[i]), bits(cu[i]), "x = %.17g: SL_RSQRT %.17g, rsqrt %.17g", x[i],
                     sl[i], cu[i]);
        double host = 1.0 / sqrt(x[i]);
        cr_assert(fabs(sl[i] - host) <= 2.0 * DBL_EPSILON * host,
                  "x = %.17g: device %.17g, host %.17g (%.3g ulp)", x[i], sl[i], host,
                  fabs(sl[i] - host) / (DBL_EPSILON * host));
    }
    free(x), free(sl), free(cu);
}

Test(gpu_rsqrt, zero_is_not_finite)
{
    SLT_REQUIRE_GPU();
    double x[2] = {0.0, 1.0}, sl[2], cu[2];
    char err[256] = "";
    cr_assert(slt_gpu_rsqrt(2, x, sl, cu, err, sizeof err), "%s", err);
    cr_assert(!isfinite(sl[0]), "SL_RSQRT(0) = %g", sl[0]);
    cr_assert_eq(sl[1], 1.0);
}
