/* Batched Nelder-Mead: many simplices advanced together, each step's
 * trial points of every simplex evaluated in one call of a batch
 * objective (a likelihood's eval_batch on the GPU or on every core), so
 * that a grid search's thousands of local fits cost a few thousand
 * batches rather than millions of single evaluations.
 *
 * The method is Nelder & Mead's (reflection 1, expansion 2, contraction
 * 1/2, shrink 1/2) with the usual ordering rules; a simplex stops when
 * the spread of its values, f_worst - f_best, is at most ftol, or after
 * max_iter steps. Non-finite values (a point outside a model's domain)
 * count as +inf, so a simplex walks back from the domain's edge. The
 * bookkeeping runs on the host in a fixed order: the same start gives the
 * same result on every run. */
#ifndef STARLING_SIMPLEX_H
#define STARLING_SIMPLEX_H

#include <stddef.h>
#include "starling/status.h"

SL_EXTERN_C_BEGIN

/* f(user, x, owner, n, out): out[i] = the value to minimise at point
 * x[i * dim ..] of simplex owner[i], for i < n (a simplex's fixed data,
 * such as a grid cell's parameters, are found by owner). An error stops
 * the search and is returned. */
typedef sl_status (*sl_simplex_fn)(void *user, const double *x, const size_t *owner, size_t n,
                                   double *out);

typedef struct sl_simplex_spec {
    int dim;             /* coordinates per point, 1 .. 32 */
    size_t n;            /* simplices */
    const double *start; /* n x dim starting points */
    const double *step;  /* dim initial steps (the simplex's edges), each != 0 */
    int max_iter;        /* steps per simplex (> 0) */
    double ftol;         /* absolute spread of values to stop at (>= 0) */
} sl_simplex_spec;

typedef struct sl_simplex_result {
    double *x;        /* n x dim best points (caller's memory) */
    double *f;        /* n best values */
    int *iters;       /* n steps taken (may be NULL) */
    size_t evals;     /* points evaluated, over all simplices */
    size_t batches;   /* calls of f */
} sl_simplex_result;

/* Checks the spec (the message names the field), then minimises. */
sl_status sl_simplex_minimise(const sl_simplex_spec *s, sl_simplex_fn f, void *user,
                              sl_simplex_result *out);

SL_EXTERN_C_END

#endif
