/* The standard normal distribution's CDF and quantile, for the samplers'
 * priors and diagnostics. */
#ifndef STARLING_STATS_H
#define STARLING_STATS_H

#include "starling/hd.h"

SL_EXTERN_C_BEGIN

/* P(Z <= x). */
double sl_norm_cdf(double x);

/* x with P(Z <= x) = p, to about 1e-15 relative; -inf at 0, inf at 1, NaN
 * outside [0, 1]. */
double sl_norm_quantile(double p);

SL_EXTERN_C_END

#endif
