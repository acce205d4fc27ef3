/* The likelihood interface: a batch log-likelihood of n parameter vectors
 * against one prepared data set. Plugins (kepler_rv, ...) fill this table.
 *
 * Thread safety: what a plugin must allow, and what callers (the Lua
 * binding, check-plugin, a C program) keep to.
 *   - prepare and release are never called concurrently: a caller
 *     serialises them (with each other, for every context of the plugin),
 *     and never releases a context while another call on it runs.
 *   - free_params, eval_batch, eval_batch_chi2, model and last_kernel_s on
 *     distinct contexts may run at the same time from different threads,
 *     also while another context is prepared or released. A plugin keeps
 *     its mutable state in the context (scratch, device buffers, timings),
 *     or guards what it shares.
 *   - One context is not re-entrant: a caller never makes two calls on the
 *     same context at once.
 *   - eval_batch may use threads of its own (OpenMP); calling it from
 *     several threads nests them, which OpenMP runs serially by default.
 * check-plugin evaluates two contexts from two threads at once and
 * requires the values of one thread alone (threads/distinct_contexts). */
#ifndef STARLING_LIKELIHOOD_H
#define STARLING_LIKELIHOOD_H

#include <stdint.h>
#include "starling/backend.h"
#include "starling/data.h"
#include "starling/params.h"
#include "starling/plugin.h"

SL_EXTERN_C_BEGIN

struct sl_dm_half; /* demcmc_fused.h */

/* The precisions a likelihood evaluates in (sl_likelihood.precisions). A
 * likelihood with more than one is told which by a word option named
 * "precision" whose words are the names below ("double", "mixed",
 * "single"), exactly those it declares; the registry checks that. */
enum {
    SL_PRECISION_DOUBLE = 1u << 0,
    SL_PRECISION_MIXED = 1u << 1,  /* float arithmetic where it is safe, double where not */
    SL_PRECISION_SINGLE = 1u << 2
};
enum { SL_PRECISION_ALL = SL_PRECISION_DOUBLE | SL_PRECISION_MIXED | SL_PRECISION_SINGLE };

/* "double", "mixed", "single" for one flag; NULL otherwise. */
static inline const char *sl_precision_name(uint32_t flag)
{
    return flag == SL_PRECISION_DOUBLE ? "double"
           : flag == SL_PRECISION_MIXED ? "mixed"
           : flag == SL_PRECISION_SINGLE ? "single"
                                         : (const char *)0;
}

typedef struct sl_likelihood {
    SL_TABLE_HEAD; /* kind SL_KIND_LIKELIHOOD; params: configuration keys (e.g. planets) */
    /* Capabilities (the registry refuses 0 for either).
     * backends: SL_BACKEND_CAN_CPU and/or SL_BACKEND_CAN_CUDA (the latter
     * only when the plugin was built with CUDA code): backend = "auto" picks
     * CUDA only for a plugin that can run there, and a backend the plugin
     * cannot run on is refused before prepare, naming the plugin.
     * precisions: SL_PRECISION_* (see above). */
    uint32_t backends;
    uint32_t precisions;
    /* The free parameters of the model (names and bounds) for a prepared
     * configuration: the columns of eval_batch's parameter vectors. */
    sl_status (*free_params)(void *ctx, size_t *n, const char *const **names,
                             const double **lo, const double **hi);
    /* Reads and checks data and options; returns an opaque context. data is
     * a file or named columns in memory (data.h; NULL: none given), which
     * the plugin reads through the same column names, so both give the
     * same context and an error names the column. */
    sl_status (*prepare)(const sl_param_values *options, const sl_data *data, void **ctx);
    /* params: n x n_params row-major; out: n log-likelihoods. be is one of
     * the backends the plugin declares. */
    sl_status (*eval_batch)(void *ctx, const sl_backend *be, const double *params,
                            size_t n, double *out);
    void (*release)(void *ctx);
    /* Optional (may be NULL). As eval_batch, and also chi^2 per model into
     * chi2 (when not NULL). */
    sl_status (*eval_batch_chi2)(void *ctx, const sl_backend *be, const double *params,
                                 size_t n, double *loglik, double *chi2);
    /* Optional. The model (e.g. predicted velocities) at n_x points x for one
     * parameter vector, for plots; `series` selects a data subset's offset
     * (-1: none). */
    sl_status (*model)(void *ctx, const double *params, const double *x, size_t n_x,
                       int series, double *out);
    /* Optional. Seconds the last eval spent in device kernels (0 after a
     * CPU eval): with the call's wall time, it splits a GPU evaluation into
     * compute and transfers. */
    double (*last_kernel_s)(void *ctx);
    /* Optional. eval_batch on the CUDA backend with params (n x
     * n_params) and out (n) in device memory of the current device, queued
     * on `stream` (a cudaStream_t; NULL: the default stream): a sampler
     * whose chains live on the device (demcmc.h) evaluates its proposals
     * without a copy. count: NULL, or an int in device memory that the
     * work before it on the stream sets to the rows to evaluate (<= n;
     * the rest are left alone), so that the host need not wait to learn
     * it. It returns once the work is queued. A row's result must not
     * depend on its place among the rows or on their values (n, fixed for
     * a run, may choose the kernel): the sampler packs its rows in an
     * order that varies from run to run. */
    sl_status (*eval_batch_device)(void *ctx, const double *params, size_t n, const int *count,
                                   double *out, void *stream);
    /* Optional. Writes a small data set of the plugin's own kind
     * (a text file prepare reads, with a header) to path, drawn from seed:
     * check-plugin prepares its data checks on it, so that a likelihood
     * whose data are not radial velocities is checked as fully as
     * kepler_rv. The file is written whole or not at all. */
    sl_status (*example_data)(const char *path, uint64_t seed);
    /* Optional. A half-generation of the device DE-MCMC sampler
     * in one kernel of the plugin's: proposals, ln L and decisions
     * (starling/demcmc_fused.h says how a kernel calls the sampler's
     * steps), queued on `stream` on the current device, as
     * eval_batch_device is. ln L of a row must be what eval_batch_device
     * gives for it with n = h->n, so that a fused run's chains are the
     * unfused run's. */
    sl_status (*demcmc_half_device)(void *ctx, const struct sl_dm_half *h, void *stream);
    /* Optional. Named counts the context keeps since prepare, for a front
     * end to show: the models that got ln L = -inf, by reason (an N-body
     * model that went unstable, a planet ejected, ...), so that a run
     * whose chains stall says why. n names and counts, valid until the
     * next call on ctx; the counts include evaluations on every backend
     * and through the device entry. */
    sl_status (*counters)(void *ctx, size_t *n, const char *const **names,
                          const uint64_t **counts);
    /* Optional (NULL-terminated names; NULL: none). Further data sets the
     * likelihood reads beside the main one, each optional, under its own
     * key: nbody_rv's "transits" joins transit times to the velocities.
     * A front end hands those given in data->more (data.h), and a script
     * gives them as keys beside `data`. */
    const char *const *more_data;
} sl_likelihood;

/* The problem with a likelihood's capabilities, or SL_OK: backends and
 * precisions declared, and a word option 'precision' whose words are the
 * declared precisions exactly when there is more than one (the registry
 * refuses a table this fails for). */
sl_status sl_likelihood_check_caps(const sl_likelihood *l);

SL_EXTERN_C_END

#endif
