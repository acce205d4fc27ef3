/* Convergence diagnostics of MCMC draws (Vehtari, Gelman, Simpson,
 * Carpenter & Buerkner 2021): rank-normalised split-R-hat, bulk and tail
 * effective sample sizes, and the integrated autocorrelation time, the
 * quantities Stan, ArviZ and posterior report under the same names.
 *
 * Draws of one parameter are addressed as x[t * step_t + c * step_c], t
 * the draw (0..n-1) of chain c (0..m-1), so a sampler's output (draws x
 * chains x parameters) is read in place. Chains are split in halves
 * (2 m chains of n / 2 draws: an odd last draw is dropped), so a chain
 * that drifts shows as two that disagree. */
#ifndef STARLING_MCMC_DIAG_H
#define STARLING_MCMC_DIAG_H

#include <stdint.h>
#include "starling/status.h"

SL_EXTERN_C_BEGIN

typedef struct sl_mcmc_diag {
    double rhat;     /* max of the bulk and the folded (tail) rank-normalised split-R-hat */
    double ess_bulk; /* of the rank-normalised draws */
    double ess_tail; /* min of the ESS of the 5 % and 95 % quantile indicators */
    double tau;      /* integrated autocorrelation time of the draws (in draws), */
                     /* n m / ESS of the draws as they are */
    double mean, sd, q16, q50, q84; /* of the pooled draws */
} sl_mcmc_diag;

/* The diagnostics of one parameter; needs n >= 4 and m >= 1. A parameter
 * that never moves gets rhat, ess and tau NaN. */
sl_status sl_mcmc_diagnose(const double *x, int64_t n, int64_t m, int64_t step_t,
                           int64_t step_c, sl_mcmc_diag *out);

SL_EXTERN_C_END

#endif
