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

/* ln P(Z <= x), relatively accurate far into the lower tail (x = -1e4
 * included), where P itself underflows. */
double sl_norm_logcdf(double x);

/* x with ln P(Z <= x) = l, for l <= 0: the inverse of sl_norm_logcdf,
 * relatively accurate where sl_norm_quantile(exp(l)) underflows; NaN for l
 * > 0 or NaN. */
double sl_norm_logcdf_quantile(double l);

SL_EXTERN_C_END

#endif
