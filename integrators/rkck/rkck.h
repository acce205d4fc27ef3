/* Runge-Kutta Cash-Karp (Cash & Karp 1990, ACM TOMS 16, 201), fixed step
 * dt, six force evaluations per step, propagating the fifth-order
 * solution (the weights 37/378, 250/621, 125/594, 512/1771, as GSL's rkck
 * does). The embedded fourth-order solution is used by rkck_adaptive
 * (rkck_adaptive.h) for its error estimate; the stages are shared.
 *
 * The method is the explicit Runge-Kutta method on the first-order system
 * y = (x, v), y' = (v, a(x, v)). Its stage derivatives are (kx_j, kv_j) =
 * (ve_j, a_j), with ve_j = v + h sum_l a_jl a_l the stage's velocity, so the
 * position sums need no stored velocities:
 *
 *   xe_i = x + h sum_j a_ij ve_j = x + h (c_i v + h sum_l A_il a_l),
 *   A_il = sum_j a_ij a_jl,
 *
 * (and likewise for the final solution and the error, with b_j and the
 * difference of the two weight sets in place of a_ij). This is the same
 * method, rounding apart, as the six (x, v) derivatives GSL keeps, with
 * half the working state: the stage accelerations a_1..a_5 (a_6 arrives
 * with the last stage). Half matters on the GPU, where a thread keeps a
 * system's working state in registers.
 *
 * ps per body, in blocks of 3n strided by S: a_1 | a_2 | a_3 | a_4 | a_5.
 * Nothing persists from step to step (PERSIST 0): the first stage
 * evaluates the force at the step's start. */
#ifndef STARLING_RKCK_H
#define STARLING_RKCK_H

#include <math.h>
#include "starling/hd.h"
#include "starling/named_params.h"

/* The keys (named_params.h): the struct sl_rkck_params, its schema and pack. */
#define SL_PARAMS_rkck(ARG, KEY, VAL)                                                   \
    ARG(dt, SL_PARAM_NUMBER, 0.0, 1e-300, 1e300, 1, "time step (G = 1 units; one year = 2 pi)", \
        NULL, NULL)
SL_PARAMS_PROPAGATOR(sl_rkck_params, SL_PARAMS_rkck)

#define SL_PROP_rkck_NSTAGES 6
#define SL_PROP_rkck_SCRATCH 15
#define SL_PROP_rkck_PERSIST 0
#define SL_PROP_rkck_JERK 0
#define SL_PROP_rkck_PERTURB 0
#define SL_PROP_rkck_SYNC 0
#define SL_PROP_rkck_ADAPTIVE 0
#define SL_PROP_rkck_BODYWISE 1

/* The Cash-Karp tableau: nodes c_i, coefficients a_ij, fifth-order
 * weights b_j (b_2 = b_5 = 0) and the embedded fourth-order ones d_j. */
#define SL_RKCK_C2 (1.0 / 5.0)
#define SL_RKCK_C3 (3.0 / 10.0)
#define SL_RKCK_C4 (3.0 / 5.0)
#define SL_RKCK_C5 1.0
#define SL_RKCK_C6 (7.0 / 8.0)
#define SL_RKCK_A21 (1.0 / 5.0)
#define SL_RKCK_A31 (3.0 / 40.0)
#define SL_RKCK_A32 (9.0 / 40.0)
#define SL_RKCK_A41 (3.0 / 10.0)
#define SL_RKCK_A42 (-9.0 / 10.0)
#define SL_RKCK_A43 (6.0 / 5.0)
#define SL_RKCK_A51 (-11.0 / 54.0)
#define SL_RKCK_A52 (5.0 / 2.0)
#define SL_RKCK_A53 (-70.0 / 27.0)
#define SL_RKCK_A54 (35.0 / 27.0)
#define SL_RKCK_A61 (1631.0 / 55296.0)
#define SL_RKCK_A62 (175.0 / 512.0)
#define SL_RKCK_A63 (575.0 / 13824.0)
#define SL_RKCK_A64 (44275.0 / 110592.0)
#define SL_RKCK_A65 (253.0 / 4096.0)
#define SL_RKCK_B1 (37.0 / 378.0)
#define SL_RKCK_B3 (250.0 / 621.0)
#define SL_RKCK_B4 (125.0 / 594.0)
#define SL_RKCK_B6 (512.0 / 1771.0)
#define SL_RKCK_D1 (2825.0 / 27648.0)
#define SL_RKCK_D3 (18575.0 / 48384.0)
#define SL_RKCK_D4 (13525.0 / 55296.0)
#define SL_RKCK_D5 (277.0 / 14336.0)
#define SL_RKCK_D6 (1.0 / 4.0)

/* The position sums A_il = sum_j a_ij a_jl (A_2l = 0: stage 2's position
 * is x + h c_2 v). Constant expressions: the compilers fold them. */
#define SL_RKCK_AA31 (SL_RKCK_A32 * SL_RKCK_A21)
#define SL_RKCK_AA41 (SL_RKCK_A42 * SL_RKCK_A21 + SL_RKCK_A43 * SL_RKCK_A31)
#define SL_RKCK_AA42 (SL_RKCK_A43 * SL_RKCK_A32)
#define SL_RKCK_AA51 (SL_RKCK_A52 * SL_RKCK_A21 + SL_RKCK_A53 * SL_RKCK_A31 + SL_RKCK_A54 * SL_RKCK_A41)
#define SL_RKCK_AA52 (SL_RKCK_A53 * SL_RKCK_A32 + SL_RKCK_A54 * SL_RKCK_A42)
#define SL_RKCK_AA53 (SL_RKCK_A54 * SL_RKCK_A43)
#define SL_RKCK_AA61                                                                       \
    (SL_RKCK_A62 * SL_RKCK_A21 + SL_RKCK_A63 * SL_RKCK_A31 + SL_RKCK_A64 * SL_RKCK_A41 +   \
     SL_RKCK_A65 * SL_RKCK_A51)
#define SL_RKCK_AA62 (SL_RKCK_A63 * SL_RKCK_A32 + SL_RKCK_A64 * SL_RKCK_A42 + SL_RKCK_A65 * SL_RKCK_A52)
#define SL_RKCK_AA63 (SL_RKCK_A64 * SL_RKCK_A43 + SL_RKCK_A65 * SL_RKCK_A53)
#define SL_RKCK_AA64 (SL_RKCK_A65 * SL_RKCK_A54)
/* ... and the final position's, BB_l = sum_j b_j a_jl (b_2 = b_5 = 0). */
#define SL_RKCK_BB1 (SL_RKCK_B3 * SL_RKCK_A31 + SL_RKCK_B4 * SL_RKCK_A41 + SL_RKCK_B6 * SL_RKCK_A61)
#define SL_RKCK_BB2 (SL_RKCK_B3 * SL_RKCK_A32 + SL_RKCK_B4 * SL_RKCK_A42 + SL_RKCK_B6 * SL_RKCK_A62)
#define SL_RKCK_BB3 (SL_RKCK_B4 * SL_RKCK_A43 + SL_RKCK_B6 * SL_RKCK_A63)
#define SL_RKCK_BB4 (SL_RKCK_B6 * SL_RKCK_A64)
#define SL_RKCK_BB5 (SL_RKCK_B6 * SL_RKCK_A65)
/* The error weights e_j = b_j - d_j (e_2 = 0; sum e_j = 0, so the error of
 * the positions has no v term) and the error's position sums EE_l. */
#define SL_RKCK_E1 (SL_RKCK_B1 - SL_RKCK_D1)
#define SL_RKCK_E3 (SL_RKCK_B3 - SL_RKCK_D3)
#define SL_RKCK_E4 (SL_RKCK_B4 - SL_RKCK_D4)
#define SL_RKCK_E5 (-SL_RKCK_D5)
#define SL_RKCK_E6 (SL_RKCK_B6 - SL_RKCK_D6)
#define SL_RKCK_EE1                                                                        \
    (SL_RKCK_E3 * SL_RKCK_A31 + SL_RKCK_E4 * SL_RKCK_A41 + SL_RKCK_E5 * SL_RKCK_A51 +      \
     SL_RKCK_E6 * SL_RKCK_A61)
#define SL_RKCK_EE2                                                                        \
    (SL_RKCK_E3 * SL_RKCK_A32 + SL_RKCK_E4 * SL_RKCK_A42 + SL_RKCK_E5 * SL_RKCK_A52 +      \
     SL_RKCK_E6 * SL_RKCK_A62)
#define SL_RKCK_EE3 (SL_RKCK_E4 * SL_RKCK_A43 + SL_RKCK_E5 * SL_RKCK_A53 + SL_RKCK_E6 * SL_RKCK_A63)
#define SL_RKCK_EE4 (SL_RKCK_E5 * SL_RKCK_A54 + SL_RKCK_E6 * SL_RKCK_A64)
#define SL_RKCK_EE5 (SL_RKCK_E6 * SL_RKCK_A65)

/* Stage l's acceleration (1..5) for component k, in a function whose ps
 * and n are in scope. */
#define SL_RKCK_K(l) ps[S * (3 * n * ((l) - 1) + k)]

SL_HD SL_INLINE void sl_prop_rkck_begin(int n, int S, const double *x, const double *v,
                                        const double *m, double *ps, const double *a,
                                        const double *j, const double *pp)
{
    (void)n, (void)S, (void)x, (void)v, (void)m, (void)ps, (void)a, (void)j, (void)pp;
}

/* Stage st + 1 evaluates the force at (xe, ve): y + h sum_j a_ij k_j. Each
 * case reads only the stages already taken in this step. */
SL_HD SL_INLINE void sl_prop_rkck_point(int st, int n, int S, double h, const double *x,
                                        const double *v, const double *m, const double *ps,
                                        double *xe, double *ve, const double *pp)
{
    (void)m, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        const double xk = x[S * k], vk = v[S * k];
        switch (st) {
        case 0:
            xe[S * k] = xk;
            ve[S * k] = vk;
            break;
        case 1:
            xe[S * k] = xk + h * (SL_RKCK_C2 * vk);
            ve[S * k] = vk + h * (SL_RKCK_A21 * SL_RKCK_K(1));
            break;
        case 2:
            xe[S * k] = xk + h * (SL_RKCK_C3 * vk + h * (SL_RKCK_AA31 * SL_RKCK_K(1)));
            ve[S * k] = vk + h * (SL_RKCK_A31 * SL_RKCK_K(1) + SL_RKCK_A32 * SL_RKCK_K(2));
            break;
        case 3:
            xe[S * k] = xk + h * (SL_RKCK_C4 * vk + h * (SL_RKCK_AA41 * SL_RKCK_K(1) +
                                                         SL_RKCK_AA42 * SL_RKCK_K(2)));
            ve[S * k] = vk + h * (SL_RKCK_A41 * SL_RKCK_K(1) + SL_RKCK_A42 * SL_RKCK_K(2) +
                                  SL_RKCK_A43 * SL_RKCK_K(3));
            break;
        case 4:
            xe[S * k] = xk + h * (SL_RKCK_C5 * vk + h * (SL_RKCK_AA51 * SL_RKCK_K(1) +
                                                         SL_RKCK_AA52 * SL_RKCK_K(2) +
                                                         SL_RKCK_AA53 * SL_RKCK_K(3)));
            ve[S * k] = vk + h * (SL_RKCK_A51 * SL_RKCK_K(1) + SL_RKCK_A52 * SL_RKCK_K(2) +
                                  SL_RKCK_A53 * SL_RKCK_K(3) + SL_RKCK_A54 * SL_RKCK_K(4));
            break;
        default:
            xe[S * k] = xk + h * (SL_RKCK_C6 * vk + h * (SL_RKCK_AA61 * SL_RKCK_K(1) +
                                                         SL_RKCK_AA62 * SL_RKCK_K(2) +
                                                         SL_RKCK_AA63 * SL_RKCK_K(3) +
                                                         SL_RKCK_AA64 * SL_RKCK_K(4)));
            ve[S * k] = vk + h * (SL_RKCK_A61 * SL_RKCK_K(1) + SL_RKCK_A62 * SL_RKCK_K(2) +
                                  SL_RKCK_A63 * SL_RKCK_K(3) + SL_RKCK_A64 * SL_RKCK_K(4) +
                                  SL_RKCK_A65 * SL_RKCK_K(5));
            break;
        }
    }
}

/* The larger of two error ratios, NaN if either is NaN (fmax would drop
 * it, and a NaN error must reject the step). */
SL_HD SL_INLINE double sl_rkck_worse(double r, double q) { return q > r || q != q ? q : r; }

/* E / D, GSL's ratio of an error estimate to the level asked for, with
 * D = tol_abs + tol |y| (y the component after the step); an exact zero
 * error is 0 even where D is 0. */
SL_HD SL_INLINE double sl_rkck_ratio(double e, double y, double tol, double tol_abs)
{
    return e == 0.0 ? 0.0 : fabs(e) / (tol_abs + tol * fabs(y));
}

/* The last stage (a6 its acceleration): the fifth-order solution replaces
 * (x, v). With err set (rkck_adaptive), the ratio of the fifth minus
 * fourth-order difference to the level asked for, the largest over each
 * body's six components, goes to err[S*b]; with err NULL the compiler
 * drops that arithmetic. */
SL_HD SL_INLINE void sl_rkck_finish(int n, int S, double h, double *x, double *v,
                                    const double *ps, const double *a6, double *err, double tol,
                                    double tol_abs)
{
    SL_UNROLL
    for (int b = 0; b < n; b++) {
        double r = 0.0;
        SL_UNROLL
        for (int c = 0; c < 3; c++) {
            const int k = 3 * b + c;
            const double x1 = x[S * k] + h * (v[S * k] + h * (SL_RKCK_BB1 * SL_RKCK_K(1) +
                                                              SL_RKCK_BB2 * SL_RKCK_K(2) +
                                                              SL_RKCK_BB3 * SL_RKCK_K(3) +
                                                              SL_RKCK_BB4 * SL_RKCK_K(4) +
                                                              SL_RKCK_BB5 * SL_RKCK_K(5)));
            const double v1 = v[S * k] + h * (SL_RKCK_B1 * SL_RKCK_K(1) + SL_RKCK_B3 * SL_RKCK_K(3) +
                                              SL_RKCK_B4 * SL_RKCK_K(4) + SL_RKCK_B6 * a6[S * k]);
            if (err) {
                const double ex = h * h * (SL_RKCK_EE1 * SL_RKCK_K(1) + SL_RKCK_EE2 * SL_RKCK_K(2) +
                                           SL_RKCK_EE3 * SL_RKCK_K(3) + SL_RKCK_EE4 * SL_RKCK_K(4) +
                                           SL_RKCK_EE5 * SL_RKCK_K(5));
                const double ev = h * (SL_RKCK_E1 * SL_RKCK_K(1) + SL_RKCK_E3 * SL_RKCK_K(3) +
                                       SL_RKCK_E4 * SL_RKCK_K(4) + SL_RKCK_E5 * SL_RKCK_K(5) +
                                       SL_RKCK_E6 * a6[S * k]);
                r = sl_rkck_worse(r, sl_rkck_ratio(ex, x1, tol, tol_abs));
                r = sl_rkck_worse(r, sl_rkck_ratio(ev, v1, tol, tol_abs));
            }
            x[S * k] = x1;
            v[S * k] = v1;
        }
        if (err)
            err[S * b] = r;
    }
}

/* Stages 1..5 keep their accelerations; the sixth completes the step. */
SL_HD SL_INLINE void sl_prop_rkck_apply(int st, int n, int S, double h, double *x, double *v,
                                        const double *m, double *ps, const double *a,
                                        const double *j, const double *pp)
{
    (void)m, (void)j, (void)pp;
    if (st < 5) {
        SL_UNROLL
        for (int k = 0; k < 3 * n; k++)
            ps[S * (3 * n * st + k)] = a[S * k];
    } else {
        sl_rkck_finish(n, S, h, x, v, ps, a, (double *)0, 0.0, 0.0);
    }
}

#endif
