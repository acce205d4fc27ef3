/* Fourth-order Hermite integrator, fixed step, PEC^2 (Kokubo, Yoshinaga &
 * Makino 1998): predict with a and jerk, evaluate, correct, evaluate,
 * correct. The forces at the first corrected state start the next step, so
 * a step costs two force evaluations.
 *
 * Working state per body (ps, in blocks of 3n, strided by S like every
 * array, see <starling/launch.h>): a0 | j0 | xc | vc; the first two blocks
 * persist between launches. Its one parameter, dt, is the step the loops
 * take (sl_hermite_params). */
#ifndef STARLING_HERMITE_H
#define STARLING_HERMITE_H

#include "starling/hd.h"
#include "starling/named_params.h"

/* The keys (named_params.h): the struct sl_hermite_params, its schema and pack. */
#define SL_PARAMS_hermite(ARG, KEY, VAL)                                                   \
    ARG(dt, SL_PARAM_NUMBER, 0.0, 1e-300, 1e300, 1, "time step (G = 1 units; one year = 2 pi)", \
        NULL, NULL)
SL_PARAMS_PROPAGATOR(sl_hermite_params, SL_PARAMS_hermite)

#define SL_PROP_hermite_NSTAGES 2
#define SL_PROP_hermite_SCRATCH 12
#define SL_PROP_hermite_PERSIST 6
#define SL_PROP_hermite_JERK 1
#define SL_PROP_hermite_PERTURB 0
#define SL_PROP_hermite_SYNC 0
#define SL_PROP_hermite_ADAPTIVE 0
#define SL_PROP_hermite_BODYWISE 1

SL_HD SL_INLINE void sl_prop_hermite_begin(int n, int S, const double *x, const double *v,
                                           const double *m, double *ps, const double *a,
                                           const double *j, const double *pp)
{
    (void)x, (void)v, (void)m, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        ps[S * k] = a[S * k];
        ps[S * (3 * n + k)] = j[S * k];
    }
}

SL_HD SL_INLINE void sl_prop_hermite_point(int st, int n, int S, double h, const double *x,
                                           const double *v, const double *m, const double *ps,
                                           double *xe, double *ve, const double *pp)
{
    (void)m, (void)pp;
    const double *a0 = ps, *j0 = ps + S * 3 * n, *xc = ps + S * 6 * n, *vc = ps + S * 9 * n;
    if (st == 0) {
        /* by 1/6 and 1/12 rounded, not divided: a double division is a
         * dozen instructions and a branch on the GPU, a step's 2.5 % at
         * N = 8 */
        const double h2 = 0.5 * h * h, h3 = h * h * h * (1.0 / 6.0);
        SL_UNROLL
        for (int k = 0; k < 3 * n; k++) {
            xe[S * k] = x[S * k] + h * v[S * k] + h2 * a0[S * k] + h3 * j0[S * k];
            ve[S * k] = v[S * k] + h * a0[S * k] + h2 * j0[S * k];
        }
    } else {
        SL_UNROLL
        for (int k = 0; k < 3 * n; k++) {
            xe[S * k] = xc[S * k];
            ve[S * k] = vc[S * k];
        }
    }
}

SL_HD SL_INLINE void sl_prop_hermite_apply(int st, int n, int S, double h, double *x,
                                           double *v, const double *m, double *ps,
                                           const double *a1, const double *j1, const double *pp)
{
    (void)m, (void)pp;
    double *a0 = ps, *j0 = ps + S * 3 * n, *xc = ps + S * 6 * n, *vc = ps + S * 9 * n;
    const double h2 = 0.5 * h, h12 = h * h * (1.0 / 12.0);
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        double v1 = v[S * k] + h2 * (a0[S * k] + a1[S * k]) + h12 * (j0[S * k] - j1[S * k]);
        double x1 = x[S * k] + h2 * (v[S * k] + v1) + h12 * (a0[S * k] - a1[S * k]);
        if (st == 0) {
            xc[S * k] = x1;
            vc[S * k] = v1;
        } else {
            x[S * k] = x1;
            v[S * k] = v1;
            a0[S * k] = a1[S * k];
            j0[S * k] = j1[S * k];
        }
    }
}

#endif
