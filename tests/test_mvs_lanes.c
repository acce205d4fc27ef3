/* mvs's stages for the CPU lane loop's whole chunk (integrators/mvs/mvs.h:
 * POINT_LANES, APPLY_LANES, SYNC_LANES) against its one-lane stages, bit for bit: the
 * lanes' drifts stop their iterations when the chunk is done and fall back
 * to the general drift per (lane, body), and neither may change a bit. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "starling/launch.h"
#include "mvs/mvs.h"

enum { W = SL_CHUNK, NB = 5, PSL = 10 * NB };

static double u01(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/* W systems: a star and four planets, a few of them on hyperbolas or
 * near-radial orbits (the fast drift refuses those), inertial x, v. */
static void systems(unsigned long long *s, double *x, double *v, double *m)
{
    for (int l = 0; l < W; l++) {
        m[l] = 1.0 + 0.1 * u01(s);
        for (int d = 0; d < 3; d++)
            x[W * d + l] = 1e-3 * (u01(s) - 0.5), v[W * d + l] = 1e-3 * (u01(s) - 0.5);
        for (int b = 1; b < NB; b++) {
            double r = 0.4 * b * (1.0 + 0.2 * u01(s)), vc = sqrt(m[l] / r);
            double boost = (l % 7 == 3 && b == 2) ? 1.6 : (l % 11 == 5 && b == 3 ? 0.05 : 1.0);
            m[W * b + l] = 1e-3 * u01(s);
            x[W * (3 * b) + l] = r, x[W * (3 * b + 1) + l] = 0.1 * r * (u01(s) - 0.5);
            x[W * (3 * b + 2) + l] = 0.05 * r * (u01(s) - 0.5);
            v[W * (3 * b) + l] = 0.1 * vc * (u01(s) - 0.5);
            v[W * (3 * b + 1) + l] = boost * vc * (1.0 + 0.3 * (u01(s) - 0.5));
            v[W * (3 * b + 2) + l] = 0.05 * vc * (u01(s) - 0.5);
        }
    }
}

static void same(const double *a, const double *b, int len, const char *what)
{
    for (int k = 0; k < len; k++)
        cr_assert(!memcmp(&a[k], &b[k], sizeof(double)), "%s: double %d (lane %d): %.17g vs %.17g",
                  what, k, k % W, a[k], b[k]);
}

Test(mvs_lanes, chunk_stages_are_the_one_lane_stages_bit_for_bit, .timeout = 60)
{
    unsigned long long s = 99;
    int refused = 0;
    for (int rep = 0; rep < 40; rep++) {
        const int jac = rep % 2, order = rep % 4 < 2 ? 11 : 5;
        const double dt = rep % 5 == 0 ? 0.9 : 0.05; /* long steps: refusals */
        const double tol = rep % 8 < 4 ? 1e-6 : 0.0;   /* kepler_tol: early stop or none */
        double pp[SL_PROP_PARAMS_MAX] = {dt, 0.0, order, jac, tol};
        static double x[3 * NB * W], v[3 * NB * W], m[NB * W], ps[PSL * W], h[W];
        static double x1[3 * NB * W], v1[3 * NB * W], ps1[PSL * W];
        static double xe1[3 * NB * W], ve1[3 * NB * W];
        static double x2[3 * NB * W], v2[3 * NB * W], ps2[PSL * W];
        static double xe2[3 * NB * W], ve2[3 * NB * W];
        static double acc[3 * NB * W];
        systems(&s, x, v, m);
        memset(ps, 0, sizeof ps);
        for (int l = 0; l < W; l++) {
            sl_prop_mvs_open(NB, W, x + l, v + l, m + l, ps + l, pp);
            ps[W * 6 * NB + l] = l % 3 ? 0.5 * dt : 0.0; /* a pending drift */
            h[l] = l % 9 == 4 ? 0.0 : dt;                /* a lane that does not step */
        }
        for (int k = 0; k < 3 * NB * W; k++)
            acc[k] = 1e-4 * (u01(&s) - 0.5);
        /* point */
        memcpy(ps1, ps, sizeof ps), memcpy(ps2, ps, sizeof ps);
        for (int l = 0; l < W; l++)
            sl_prop_mvs_point(0, NB, W, h[l], x + l, v + l, m + l, ps1 + l, xe1 + l, ve1 + l, pp);
        sl_prop_mvs_point_lanes(0, NB, W, h, x, v, m, ps2, xe2, ve2, pp);
        same(ps1, ps2, 7 * NB * W, "point: ps");
        same(xe1, xe2, 3 * NB * W, "point: xe");
        same(ve1, ve2, 3 * NB * W, "point: ve");
        /* apply, on point's ps (the Jacobi kick reads body 0's pulls there) */
        for (int l = 0; l < W; l++)
            sl_prop_mvs_apply(0, NB, W, h[l], x + l, v + l, m + l, ps1 + l, acc + l, NULL, pp);
        sl_prop_mvs_apply_lanes(0, NB, W, h, x, v, m, ps2, acc, NULL, pp);
        same(ps1, ps2, PSL * W, "apply: ps");
        /* close_start */
        for (int l = 0; l < W; l++)
            sl_prop_mvs_close_start(NB, W, x1 + l, v1 + l, m + l, ps + l, pp);
        sl_prop_mvs_close_start_lanes(NB, W, x2, v2, m, ps, pp);
        same(x1, x2, 3 * NB * W, "close_start: x");
        same(v1, v2, 3 * NB * W, "close_start: v");
        /* the corrector's stages, opening (on ps) and closing (on x, v) */
        for (int mode = SL_SYNC_OPEN; mode <= SL_SYNC_CLOSE; mode++)
            for (int st = 0; st < sl_prop_mvs_sync_stages(mode, pp); st++) {
                memcpy(ps1, ps, sizeof ps), memcpy(ps2, ps, sizeof ps);
                memcpy(x2, x1, sizeof x1), memcpy(v2, v1, sizeof v1);
                for (int l = 0; l < W; l++) {
                    sl_prop_mvs_sync_point(mode, st, NB, W, x1 + l, v1 + l, m + l, ps1 + l,
                                           xe1 + l, ve1 + l, pp);
                    sl_prop_mvs_sync_apply(mode, st, NB, W, x1 + l, v1 + l, m + l, ps1 + l,
                                           acc + l, pp);
                }
                sl_prop_mvs_sync_point_lanes(mode, st, NB, W, x2, v2, m, ps2, xe2, ve2, pp);
                sl_prop_mvs_sync_apply_lanes(mode, st, NB, W, x2, v2, m, ps2, acc, pp);
                same(ps1, ps2, 7 * NB * W, "sync stage: ps");
                same(x1, x2, 3 * NB * W, "sync stage: x");
                same(v1, v2, 3 * NB * W, "sync stage: v");
                same(xe1, xe2, 3 * NB * W, "sync stage: xe");
            }
        /* how many (lane, body) drifts the fast form refuses here */
        for (int l = 0; l < W; l++)
            for (int b = 1; b < NB; b++) {
                double q[3], u[3];
                for (int d = 0; d < 3; d++)
                    q[d] = ps[W * (3 * b + d) + l], u[d] = ps[W * (3 * NB + 3 * b + d) + l];
                refused += sl_kepler_drift_fast(jac ? 1.0 : m[l], dt, tol, 1, q, u) == 0.0;
            }
    }
    cr_expect_gt(refused, 0, "no drift fell back: the fallback is untested");
}
