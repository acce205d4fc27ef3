/* The contract of a pair force: gravity between every two bodies, m_i m_k
 * times a function of their (softened) distance, written once as that
 * distance. A pair force's header defines, for a force named T:
 *
 *   SL_FORCE_T_NPACKED   doubles its table's pack fills (its fp[0..])
 *   SL_PAIR_T_KEPLER     1 when the pull is Newton's exactly (s2 = r2), so
 *                        that body 0's pull is a Kepler orbit and the
 *                        perturbation part (acc_perturb) exists, else 0
 *   typedef ... sl_pair_T_p;
 *       what s2 reads of the parameters, loaded once per call
 *   sl_pair_T_p sl_pair_T_load(const double *fp, int S);
 *   double sl_pair_T_s2(double r2, sl_pair_T_p p);
 *       the squared distance the pull sees, from r2 = |x_k - x_i|^2:
 *       the pull on i is m_k d s^-3, d = x_k - x_i, the potential energy
 *       -m_i m_k / s (newton: s2 = r2; plummer: r2 + eps^2)
 *
 * then includes <starling/force_pair.inc> with SL_PAIR defined as T. That
 * derives every variant the kernels call, each summing in the order
 * newton's hand-written loops did (so newton's results are the bits they
 * were):
 *
 *   sl_force_T_acc, sl_force_T_acc_jerk, sl_force_T_potential
 *   sl_force_T_pair, sl_force_T_pair_jerk        one pair, per unit mass
 *   sl_force_T_acc_at, sl_force_T_acc_jerk_at    body i alone (S = 1)
 *   sl_force_T_acc_perturb, sl_force_T_acc_perturb_at   with KEPLER 1
 *
 * and the flags SL_FORCE_T_JERK, _PERTURB, _AT, _PAIR and _PERTURB_AT. */
#ifndef STARLING_FORCE_PAIR_H
#define STARLING_FORCE_PAIR_H

#include <math.h>
#include "starling/hd.h"

/* Names of a pair force's functions: SL_PAIR_FN(newton, acc) is
 * sl_force_newton_acc, SL_PAIR_TERM(newton, s2) sl_pair_newton_s2. */
#define SL_PAIR_FN_(T, F) sl_force_##T##_##F
#define SL_PAIR_FN(T, F) SL_PAIR_FN_(T, F)
#define SL_PAIR_TERM_(T, F) sl_pair_##T##_##F
#define SL_PAIR_TERM(T, F) SL_PAIR_TERM_(T, F)

#endif
