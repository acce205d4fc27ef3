/* Pair forces (force_pair.h): one pair term gives every variant the loops
 * call, and the variants agree with each other and with the potential. */
#include "sl_test.h"
#include "starling/force_pair.h"

/* A softened pull of its own: s^2 = r^2 + 0.01, no parameters. */
typedef struct sl_pair_slt_soft_p {
    double eps2;
} sl_pair_slt_soft_p;
SL_HD SL_INLINE sl_pair_slt_soft_p sl_pair_slt_soft_load(const double *fp, int S)
{
    (void)fp, (void)S;
    sl_pair_slt_soft_p p = {0.01};
    return p;
}
SL_HD SL_INLINE double sl_pair_slt_soft_s2(double r2, sl_pair_slt_soft_p p)
{
    return r2 + p.eps2;
}
#define SL_FORCE_slt_soft_PERTURB 0
#define SL_PAIR slt_soft
#include "starling/force_pair.inc"

#include "starling/forces/newton.h"

enum { N = 5 };
static const double X[3 * N] = {0.1, -0.2, 0.05, 1.1, 0.3, -0.1, -0.7, 0.9, 0.2,
                                0.4, -1.3, 0.6, 2.0, 0.5, -0.4};
static const double V[3 * N] = {0.0, 0.1, 0.0, -0.3, 0.8, 0.1, 0.5, -0.2, 0.3,
                                0.9, 0.1, -0.2, -0.1, 0.4, 0.2};
static const double M[N] = {1.0, 1e-3, 3e-3, 5e-4, 2e-3};
static const double FP[8] = {0};

static void near(double got, double want, double tol, const char *what, int k)
{
    cr_assert(fabs(got - want) <= tol * (1.0 + fabs(want)), "%s[%d] = %.17g, expected %.17g",
              what, k, got, want);
}

/* The force is minus the potential's gradient over the mass. */
Test(force_pair, acc_is_the_potential_gradient)
{
    double a[3 * N], x[3 * N];
    sl_force_slt_soft_acc(N, 1, X, V, M, FP, a);
    for (int k = 0; k < 3 * N; k++) {
        const double h = 1e-6;
        memcpy(x, X, sizeof x);
        x[k] = X[k] + h;
        double up = sl_force_slt_soft_potential(N, 1, x, M, FP);
        x[k] = X[k] - h;
        double down = sl_force_slt_soft_potential(N, 1, x, M, FP);
        near(a[k], -(up - down) / (2 * h) / M[k / 3], 1e-6, "a", k);
    }
}

/* acc_jerk's a is acc's; its jerk is da/dt along x + v t; the per-body and
 * per-pair variants sum to the same. */
Test(force_pair, the_variants_agree)
{
    double a[3 * N], aj[3 * N], j[3 * N], a1[3 * N], a0[3 * N], x[3 * N];
    sl_force_slt_soft_acc(N, 1, X, V, M, FP, a);
    sl_force_slt_soft_acc_jerk(N, 1, X, V, M, FP, aj, j);
    const double h = 1e-6;
    for (int k = 0; k < 3 * N; k++)
        x[k] = X[k] + h * V[k];
    sl_force_slt_soft_acc(N, 1, x, V, M, FP, a1);
    for (int k = 0; k < 3 * N; k++)
        x[k] = X[k] - h * V[k];
    sl_force_slt_soft_acc(N, 1, x, V, M, FP, a0);
    for (int k = 0; k < 3 * N; k++) {
        near(aj[k], a[k], 1e-14, "acc_jerk's a", k);
        near(j[k], (a1[k] - a0[k]) / (2 * h), 1e-6, "jerk", k);
    }
    for (int i = 0; i < N; i++) {
        double ai[3], ji[3], p[3] = {0, 0, 0}, pj[3] = {0, 0, 0};
        sl_force_slt_soft_acc_at(N, X, V, M, FP, i, ai);
        sl_force_slt_soft_acc_jerk_at(N, X, V, M, FP, i, ai + 0, ji);
        for (int k = 0; k < N; k++) {
            if (k == i)
                continue;
            double d[3], du[3], t[6];
            for (int c = 0; c < 3; c++)
                d[c] = X[3 * k + c] - X[3 * i + c], du[c] = V[3 * k + c] - V[3 * i + c];
            sl_force_slt_soft_pair_jerk(d, du, FP, t);
            for (int c = 0; c < 3; c++)
                p[c] += M[k] * t[c], pj[c] += M[k] * t[3 + c];
        }
        for (int c = 0; c < 3; c++) {
            near(ai[c], a[3 * i + c], 1e-13, "acc_jerk_at's a", 3 * i + c);
            near(ji[c], j[3 * i + c], 1e-13, "acc_jerk_at's j", 3 * i + c);
            near(p[c], a[3 * i + c], 1e-13, "pair_jerk's sum", 3 * i + c);
            near(pj[c], j[3 * i + c], 1e-13, "pair_jerk's jerk sum", 3 * i + c);
        }
    }
}

/* newton's perturbation part: the whole pull on bodies 1..n-1 less body
 * 0's; body 0's row zero. */
Test(force_pair, newton_perturbation_leaves_out_body_0)
{
    double a[3 * N], ap[3 * N];
    sl_force_newton_acc(N, 1, X, V, M, FP, a);
    sl_force_newton_acc_perturb(N, 1, X, V, M, FP, ap);
    for (int c = 0; c < 3; c++)
        cr_assert_eq(ap[c], 0.0, "body 0's row of the perturbation part is zero");
    for (int i = 1; i < N; i++) {
        double d[3], r2 = 0.0;
        for (int c = 0; c < 3; c++) {
            d[c] = X[c] - X[3 * i + c];
            r2 += d[c] * d[c];
        }
        double at[3];
        sl_force_newton_acc_perturb_at(N, X, V, M, FP, i, at);
        for (int c = 0; c < 3; c++) {
            near(ap[3 * i + c], a[3 * i + c] - M[0] * d[c] / (r2 * sqrt(r2)), 1e-12, "perturb",
                 3 * i + c);
            near(at[c], ap[3 * i + c], 1e-13, "perturb_at", 3 * i + c);
        }
    }
}
