/* The likelihood interface: a batch log-likelihood of n parameter vectors
 * against one prepared data set. Plugins (kepler_rv, ...) fill this table. */
#ifndef STARLING_LIKELIHOOD_H
#define STARLING_LIKELIHOOD_H

#include <stdint.h>
#include "starling/backend.h"
#include "starling/data.h"
#include "starling/params.h"
#include "starling/plugin.h"

SL_EXTERN_C_BEGIN

typedef struct sl_likelihood {
    SL_TABLE_HEAD; /* kind SL_KIND_LIKELIHOOD; params: configuration keys (e.g. planets) */
    /* The free parameters of the model (names and bounds) for a prepared
     * configuration: the columns of eval_batch's parameter vectors. */
    sl_status (*free_params)(void *ctx, size_t *n, const char *const **names,
                             const double **lo, const double **hi);
    /* Reads and checks data and options; returns an opaque context. data is
     * a file or named columns in memory (data.h; NULL: none given), which
     * the plugin reads through the same column names, so both give the
     * same context and an error names the column. */
    sl_status (*prepare)(const sl_param_values *options, const sl_data *data, void **ctx);
    /* params: n x n_params row-major; out: n log-likelihoods. */
    sl_status (*eval_batch)(void *ctx, const sl_backend *be, const double *params,
                            size_t n, double *out);
    void (*release)(void *ctx);
    /* Added in ABI 2; either may be NULL.
     * As eval_batch, and also chi^2 per model into chi2 (when not NULL). */
    sl_status (*eval_batch_chi2)(void *ctx, const sl_backend *be, const double *params,
                                 size_t n, double *loglik, double *chi2);
    /* The model (e.g. predicted velocities) at n_t points x for one parameter
     * vector, for plots; `series` selects a data subset's offset (-1: none). */
    sl_status (*model)(void *ctx, const double *params, const double *x, size_t n_x,
                       int series, double *out);
    /* Added in ABI 3; may be NULL. Seconds the last eval spent in device
     * kernels (0 after a CPU eval): with the call's wall time, it splits
     * a GPU evaluation into compute and transfers. */
    double (*last_kernel_s)(void *ctx);
} sl_likelihood;

SL_EXTERN_C_END

#endif
