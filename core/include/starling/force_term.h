/* The contract of a term: a correction that a run adds to a base force
 * (force.h), written once as the pull of the central body 0 on one planet.
 * A term's header defines, for a term named T:
 *
 *   SL_TERM_T_NPACKED   doubles its table's pack fills (its fp[0..])
 *   SL_TERM_T_JERK      1 when central gives the jerk jc, else 0
 *   SL_TERM_T_PERTURB   1 when it depends on positions and velocities
 *                       relative to body 0 alone, so that mvs-like
 *                       integrators can add it to their kick, else 0
 *
 *   void sl_term_T_central(int S, const double *x, const double *v,
 *                          const double *m, const double *fp, int i,
 *                          double *ac, double *jc);
 *       planet i's (i >= 1) acceleration ac[0..2] and, with JERK, its
 *       jerk jc[0..2], arrays strided by S, fp the term's own parameters
 *   double sl_term_T_potential(int S, const double *x, const double *m,
 *                              const double *fp, int i);
 *       planet i's potential energy in the term
 *
 * then includes <starling/force_term.inc> with SL_TERM defined as T. That
 * derives what kernels need: body 0 feels the reaction -m_i ac / m_0 of
 * each planet (momentum is conserved), the perturbation part leaves body 0
 * out (its reaction is carried by democratic heliocentric coordinates), and
 * the per-body variants for the grouped CUDA kernels sum in the same
 * order as the whole-system ones:
 *
 *   sl_term_T_add(n, S, x, v, m, fp, a, j, react)   adds to a (and j)
 *   sl_term_T_add_at(n, x, v, m, fp, i, a, j)       body i alone (S = 1)
 *   sl_term_T_potential_add(n, S, x, m, fp, u)      u plus the term's energy
 *   sl_term_T_acc(n, S, x, v, m, fp, a)             the term alone
 *   sl_term_T_host_acc, sl_term_T_host_potential    its table's host entries
 *
 * A term needs no kernels of its own: a stack (force_stack.h) sums it with
 * a base force and other terms. */
#ifndef STARLING_FORCE_TERM_H
#define STARLING_FORCE_TERM_H

#include "starling/force.h"
#include "starling/hd.h"

/* Bits of sl_force.caps beyond JERK and PERTURB (force.h). TERM: the table
 * is a term, added to a base force (its acc and potential are the term's
 * alone). STACK: the table carries the host functions of a stack's kernels
 * (a plugin made by starling_add_force_stack, force_stack.h); runs reach it
 * through a list, not by its name. LIST: core's table for a run's list
 * (sl_force_stack_resolve); a plugin's table never has it. */
enum { SL_FORCE_CAP_TERM = 4u, SL_FORCE_CAP_STACK = 8u, SL_FORCE_CAP_LIST = 16u };

/* A term's caps from its SL_TERM_<T>_JERK and _PERTURB flags. */
#define SL_TERM_CAPS(T)                                                                    \
    (SL_FORCE_CAP_TERM | (SL_TERM_##T##_JERK ? SL_FORCE_CAP_JERK : 0u) |                   \
     (SL_TERM_##T##_PERTURB ? SL_FORCE_CAP_PERTURB : 0u))

/* Names of a term's functions: SL_TERM_FN(gr, add) is sl_term_gr_add. */
#define SL_TERM_FN_(T, F) sl_term_##T##_##F
#define SL_TERM_FN(T, F) SL_TERM_FN_(T, F)

#endif
