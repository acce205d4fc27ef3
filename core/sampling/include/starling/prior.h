/* Priors of one parameter each, for the samplers (demcmc.h): the log
 * density up to a constant, -inf outside the support, written once as
 * SL_HD so that a generation on the device rejects the same proposals as
 * one on the host. */
#ifndef STARLING_PRIOR_H
#define STARLING_PRIOR_H

#include <math.h>
#include "starling/hd.h"
#include "starling/status.h"

SL_EXTERN_C_BEGIN

typedef enum sl_prior_kind {
    SL_PRIOR_UNIFORM = 1,     /* flat on [lo, hi]; periodic: wraps into [lo, hi) */
    SL_PRIOR_LOG_UNIFORM,     /* flat in ln x on [lo, hi], 0 < lo */
    SL_PRIOR_NORMAL,          /* N(mu, sigma^2) */
    SL_PRIOR_TRUNC_NORMAL,    /* N(mu, sigma^2) cut to [lo, hi] */
    SL_PRIOR_FIXED            /* the value; not sampled */
} sl_prior_kind;

typedef struct sl_prior {
    int kind;          /* sl_prior_kind */
    double lo, hi;     /* support (uniform, log-uniform, truncated normal) */
    double mu, sigma;  /* normal, truncated normal */
    double value;      /* fixed */
    int periodic;      /* uniform only: a proposal past hi comes back from lo */
} sl_prior;

/* "uniform", "log_uniform", "normal", "truncated_normal", "fixed"; NULL
 * for anything else. */
const char *sl_prior_kind_name(int kind);

/* SL_OK, or SL_ERR_ARG naming the parameter, the value and what was
 * expected (lo < hi, both finite; 0 < lo for log-uniform; sigma > 0; a
 * finite value; periodic only on a uniform prior). */
sl_status sl_prior_check(const sl_prior *p, const char *name);

/* A periodic parameter brought into [lo, hi); others unchanged. */
SL_HD SL_INLINE double sl_prior_wrap(const sl_prior *p, double x)
{
    if (!p->periodic)
        return x;
    double w = p->hi - p->lo, r = fmod(x - p->lo, w);
    r = r < 0.0 ? r + w : r;
    return p->lo + (r >= w ? 0.0 : r);
}

/* ln p(x) up to a constant; -inf outside the support (and for a fixed
 * parameter anywhere but its value). */
SL_HD SL_INLINE double sl_prior_logpdf(const sl_prior *p, double x)
{
    const double out = -INFINITY;
    if (!(x == x))
        return out;
    switch (p->kind) {
    case SL_PRIOR_UNIFORM:
        return x >= p->lo && x <= p->hi ? 0.0 : out;
    case SL_PRIOR_LOG_UNIFORM:
        return x >= p->lo && x <= p->hi ? -log(x) : out;
    case SL_PRIOR_NORMAL: {
        double z = (x - p->mu) / p->sigma;
        return SL_DMUL(-0.5 * z, z);
    }
    case SL_PRIOR_TRUNC_NORMAL: {
        double z = (x - p->mu) / p->sigma;
        return x >= p->lo && x <= p->hi ? SL_DMUL(-0.5 * z, z) : out;
    }
    case SL_PRIOR_FIXED:
        return x == p->value ? 0.0 : out;
    default:
        return out;
    }
}

/* A draw from the prior, from two uniforms u1, u2 in [0, 1) (a truncated
 * normal by inversion of its CDF, in logarithms where its interval holds
 * less than 1e-6 of the normal: no rejection loop, the same draw for the
 * same uniforms). */
double sl_prior_draw(const sl_prior *p, double u1, double u2);

SL_EXTERN_C_END

#endif
