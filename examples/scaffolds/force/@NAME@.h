/* @NAME@: a term added to Newtonian gravity (the contract is
 * <starling/force_term.h>): a uniform background of density rho centred
 * on body 0 pulls each planet back by a_i = -k r_i, k = 4 pi rho / 3
 * (G = 1), r_i = x_i - x_0; its potential energy is k m_i r_i^2 / 2.
 * The kernels read k (sl_@NAME@_params, packed by @NAME@.c); arrays are
 * strided by S.
 * The core derives the rest: body 0's reaction, the kernels' variants. */
#ifndef @NAME_UPPER@_H
#define @NAME_UPPER@_H

#include <starling/named_params.h>

/* Its key rho, and k, the value the kernels read (named_params.h). */
#define SL_PARAMS_@NAME@(ARG, KEY, VAL) \
    KEY(rho, SL_PARAM_NUMBER, 0.0, 0.0, 1e150, 0, "background density", NULL, NULL) \
    VAL(k, "4 pi rho / 3")
SL_PARAMS_STRUCT(sl_@NAME@_params, SL_PARAMS_@NAME@)

#define SL_TERM_@NAME@_NPACKED SL_PARAMS_COUNT(SL_PARAMS_@NAME@)
#define SL_TERM_@NAME@_JERK 1    /* central gives the jerk too (Hermite) */
#define SL_TERM_@NAME@_PERTURB 1 /* a function of r_i alone: mvs can kick with it */

SL_HD SL_INLINE void sl_term_@NAME@_central(int S, const double *x, const double *v,
                                             const double *m, const double *fp, int i,
                                             double *ac, double *jc)
{
    (void)m;
    const double k = sl_@NAME@_params_load(fp, S).k;
    SL_UNROLL
    for (int c = 0; c < 3; c++) {
        ac[c] = -k * (x[S * (3 * i + c)] - x[S * c]);
        jc[c] = -k * (v[S * (3 * i + c)] - v[S * c]);
    }
}

SL_HD SL_INLINE double sl_term_@NAME@_potential(int S, const double *x, const double *m,
                                                 const double *fp, int i)
{
    double r2 = 0.0;
    for (int c = 0; c < 3; c++)
        r2 += (x[S * (3 * i + c)] - x[S * c]) * (x[S * (3 * i + c)] - x[S * c]);
    return 0.5 * sl_@NAME@_params_load(fp, S).k * m[S * i] * r2;
}

#define SL_TERM @NAME@
#include <starling/force_term.inc>

#endif
