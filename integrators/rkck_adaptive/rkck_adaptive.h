/* Runge-Kutta Cash-Karp 4(5) with step control: the stages of rkck.h, the
 * fifth-order solution propagated, the difference from the embedded
 * fourth-order one as the error estimate, and GSL's standard step control
 * (gsl_odeiv2_control_y_new: a_y = 1, a_dydt = 0), as the GSL manual states
 * it ("Adaptive Step-size Control",
 * https://www.gnu.org/software/gsl/doc/html/ode-initval.html):
 *
 *   D_i = tol_abs + tol |y_i|   (y the state after the step), E_i = |err_i|,
 *   r = max_i E_i / D_i over every component of every body's x and v;
 *   r > 1.1: reject, h_new = h max(0.9 r^(-1/q), 1/5);
 *   r < 0.5: accept, h_new = h min(0.9 r^(-1/(q+1)), 5) (never below h);
 *   else:    accept, h_new = h;
 *
 * with q the consistency order of the estimate, 4 for a 4(5) pair as the
 * manual says. (GSL's own rkck reports order 5 to its control, so it
 * shrinks a little less after a rejection; with q = 4 the retry is more
 * likely to pass.) A NaN error rejects and shrinks by 5.
 *
 * The keys (sl_rkck_adaptive_params): dt caps the first step (DBL_MAX
 * when the user gave none), tol and tol_abs. ps per body: rkck's a_1..a_5 (15), then the body's
 * error ratio (1). */
#ifndef STARLING_RKCK_ADAPTIVE_H
#define STARLING_RKCK_ADAPTIVE_H

#include <float.h>
#include <math.h>
#include "starling/hd.h"
#include "starling/integrators/rkck.h"
#include "starling/named_params.h"

/* The keys (named_params.h), in the order `starling plugins` shows them;
 * the fields dt and tol_abs are the pack's: DBL_MAX and tol where the
 * keys are absent. */
#define SL_PARAMS_rkck_adaptive(ARG, KEY, VAL)                                             \
    VAL(dt, "the first step's cap: the key dt, else DBL_MAX")                              \
    ARG(tol, SL_PARAM_NUMBER, 1e-10, 1e-15, 1.0, 0,                                        \
        "relative error per step (GSL's eps_rel): the step is rejected when an error "     \
        "estimate exceeds 1.1 (tol_abs + tol |y|) for a component y of x or v", NULL, NULL) \
    KEY(tol_abs, SL_PARAM_NUMBER, NAN, 0.0, 1e300, 0,                                      \
        "absolute error per step (GSL's eps_abs)", NULL, "tol")                            \
    KEY(dt, SL_PARAM_NUMBER, NAN, 1e-300, 1e300, 0,                                        \
        "largest first step (later steps are the controller's)", NULL,                     \
        "none: 0.01 |y| / |y'| in the tolerance's norm (Hairer et al.)")                   \
    VAL(tol_abs, "the key tol_abs, else tol")
SL_PARAMS_PROPAGATOR(sl_rkck_adaptive_params, SL_PARAMS_rkck_adaptive)

#define SL_PROP_rkck_adaptive_NSTAGES SL_PROP_rkck_NSTAGES
#define SL_PROP_rkck_adaptive_SCRATCH 16
#define SL_PROP_rkck_adaptive_PERSIST 0
#define SL_PROP_rkck_adaptive_JERK 0
#define SL_PROP_rkck_adaptive_PERTURB 0
#define SL_PROP_rkck_adaptive_SYNC 0
#define SL_PROP_rkck_adaptive_ADAPTIVE 1

/* GSL's constants: the safety factor, the rejection and growth thresholds
 * on r, the limits of one change, and q. */
#define SL_RKCK_SAFETY 0.9
#define SL_RKCK_R_REJECT 1.1
#define SL_RKCK_R_GROW 0.5
#define SL_RKCK_SHRINK_MIN 0.2
#define SL_RKCK_GROW_MAX 5.0
#define SL_RKCK_Q 4.0

/* The initial accelerations, for control's first-step estimate (the first
 * stage of every step evaluates the force again, so nothing persists). */
SL_HD SL_INLINE void sl_prop_rkck_adaptive_begin(int n, int S, const double *x,
                                                 const double *v, const double *m, double *ps,
                                                 const double *a, const double *j,
                                                 const double *pp)
{
    (void)x, (void)v, (void)m, (void)j, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        ps[S * k] = a[S * k];
}

SL_HD SL_INLINE void sl_prop_rkck_adaptive_point(int st, int n, int S, double h,
                                                 const double *x, const double *v,
                                                 const double *m, const double *ps, double *xe,
                                                 double *ve, const double *pp)
{
    sl_prop_rkck_point(st, n, S, h, x, v, m, ps, xe, ve, pp);
}

SL_HD SL_INLINE void sl_prop_rkck_adaptive_apply(int st, int n, int S, double h, double *x,
                                                 double *v, const double *m, double *ps,
                                                 const double *a, const double *j,
                                                 const double *pp)
{
    if (st < 5)
        sl_prop_rkck_apply(st, n, S, h, x, v, m, ps, a, j, pp);
    else
        sl_rkck_finish(n, S, h, x, v, ps, a, ps + S * 15 * n,
                       sl_rkck_adaptive_params_of(pp)->tol,
                       sl_rkck_adaptive_params_of(pp)->tol_abs);
}

/* The first step, when the user gave none smaller: Hairer, Norsett &
 * Wanner's first guess (Solving ODEs I, II.4), h0 = 0.01 d0 / d1 with d0,
 * d1 the RMS norms of y = (x, v) and y' = (v, a) scaled by tol_abs +
 * tol |y| (a component whose scale is 0 carries no information and is left
 * out); 1e-6 when either norm is below 1e-5, as there. Too large a guess
 * costs rejections (each shrinks at least 5 times), too small a few steps
 * (each grows up to 5 times). */
SL_HD SL_INLINE double sl_rkck_first_step(int n, int S, const double *x, const double *v,
                                          const double *a, double tol, double tol_abs)
{
    double s0 = 0.0, s1 = 0.0;
    int used = 0;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        const double sx = tol_abs + tol * fabs(x[S * k]), sv = tol_abs + tol * fabs(v[S * k]);
        if (sx > 0.0) {
            s0 += (x[S * k] / sx) * (x[S * k] / sx);
            s1 += (v[S * k] / sx) * (v[S * k] / sx);
            used++;
        }
        if (sv > 0.0) {
            s0 += (v[S * k] / sv) * (v[S * k] / sv);
            s1 += (a[S * k] / sv) * (a[S * k] / sv);
            used++;
        }
    }
    const double d0 = sqrt(s0 / (used > 0 ? used : 1)), d1 = sqrt(s1 / (used > 0 ? used : 1));
    return d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : 0.01 * d0 / d1;
}

SL_HD SL_INLINE double sl_prop_rkck_adaptive_control(int n, int S, double h, const double *x,
                                                     const double *v, const double *m,
                                                     double *ps, const double *pp, int *accept)
{
    (void)m;
    const sl_rkck_adaptive_params *p = sl_rkck_adaptive_params_of(pp);
    if (h == 0.0)
        return fmin(p->dt, sl_rkck_first_step(n, S, x, v, ps, p->tol, p->tol_abs));
    double r = 0.0;
    SL_UNROLL
    for (int b = 0; b < n; b++)
        r = sl_rkck_worse(r, ps[S * (15 * n + b)]);
    double f = 1.0;
    if (!(r <= SL_RKCK_R_REJECT)) { /* NaN too */
        f = r == r ? fmax(SL_RKCK_SAFETY * pow(r, -1.0 / SL_RKCK_Q), SL_RKCK_SHRINK_MIN)
                   : SL_RKCK_SHRINK_MIN;
    } else if (r < SL_RKCK_R_GROW) {
        f = r > 0.0 ? SL_RKCK_SAFETY * pow(r, -1.0 / (SL_RKCK_Q + 1.0)) : SL_RKCK_GROW_MAX;
        f = fmax(1.0, fmin(f, SL_RKCK_GROW_MAX));
    }
    *accept = r <= SL_RKCK_R_REJECT;
    return h * f;
}

#endif
