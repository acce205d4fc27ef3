/* The DE-MCMC sampler's device half (demcmc_cuda.cu): the chains, the
 * archive and a generation's work on the current CUDA device, driven by
 * the host loop of demcmc.c. A build without CUDA defines the opener as a
 * refusal (demcmc.c), so callers need no #if. */
#ifndef SL_DEMCMC_DEV_H
#define SL_DEMCMC_DEV_H

#include <stdint.h>

#include "starling/demcmc.h"
#include "starling/demcmc_move.h"

SL_EXTERN_C_BEGIN

typedef struct sl__dm_dev sl__dm_dev;

/* Buffers for N chains of m->D parameters, an archive of zcap rows and
 * `keep` kept generations; m->pr is copied to the device. The target's
 * time is measured on every time_every-th step (>= 1). */
sl_status sl__dm_dev_open(sl__dm_dev **out, const sl_dm_move *m, int64_t N, int64_t zcap,
                          int64_t keep, int64_t time_every);
void sl__dm_dev_close(sl__dm_dev *d);

/* The chains' states (x: N x D, lp, ll: N) and acceptance counts, host to
 * device and back; NULL arguments are skipped. */
sl_status sl__dm_dev_put(sl__dm_dev *d, const double *x, const double *lp, const double *ll,
                         const int64_t *accepted);
sl_status sl__dm_dev_get(sl__dm_dev *d, double *x, double *lp, double *ll, int64_t *accepted);

/* The archive: set from the host (rows), append the chains, read back. */
sl_status sl__dm_dev_archive_put(sl__dm_dev *d, const double *z, int64_t rows);
sl_status sl__dm_dev_archive_add(sl__dm_dev *d);
sl_status sl__dm_dev_archive_get(sl__dm_dev *d, double *z);

/* Chains [lo, lo + n) propose in generation g from chains [olo, olo + n)
 * (archive 0) or from the archive, the proposals inside the priors go to
 * `target` in one call, the chains decide; queued, not waited for. */
typedef sl_status (*sl__dm_dev_target)(void *ud, const double *params, int64_t n,
                                       const int *count, double *out, void *stream);
sl_status sl__dm_dev_step(sl__dm_dev *d, int64_t g, int64_t lo, int64_t olo, int64_t n,
                          int archive, sl__dm_dev_target target, void *ud);

/* From now on each step is one call of `half` (a likelihood's
 * demcmc_half_device: proposals, target and decisions in the plugin's
 * kernel) instead of the proposal kernel, `target` and the decision
 * kernel; the step's `target` is then not called. */
typedef sl_status (*sl__dm_dev_half)(void *ud, const struct sl_dm_half *h, void *stream);
void sl__dm_dev_set_half(sl__dm_dev *d, sl__dm_dev_half half, void *ud);

/* Kept generations: the chains as they stand become kept slot `slot`
 * (consecutive slots), held on the device until flushed into the
 * result's arrays (kept x N x D, kept x N, kept x N) at their slots. */
int sl__dm_dev_keep_full(const sl__dm_dev *d);
sl_status sl__dm_dev_keep(sl__dm_dev *d, int64_t slot);
sl_status sl__dm_dev_flush(sl__dm_dev *d, double *samples, double *logpost, double *loglike);
/* The same, without waiting: the batch goes out on a copy stream while
 * the chains run on (it waits only for the batch before, whose room it
 * takes). The result's arrays are complete after sl__dm_dev_flush. */
sl_status sl__dm_dev_flush_async(sl__dm_dev *d, double *samples, double *logpost,
                                 double *loglike);

/* A kept batch of `rows` chain states into the result (demcmc.c, on the
 * host's cores): samples from x (rows x D), loglike from ll, logpost =
 * lp + ll. Called by the copy stream's host function. */
void sl__dm_unpack(double *samples, double *logpost, double *loglike, const double *x,
                   const double *lp, const double *ll, size_t rows, size_t D);

/* Proposals outside the priors, NaN evaluations and rows evaluated since
 * the opening, and the target's device time (the host does not wait for
 * each step: these are known once the queue has run); with a fused half,
 * the time of its kernels, the sampler's steps included. The time is the
 * measured steps' scaled by steps run / steps measured. */
sl_status sl__dm_dev_counts(sl__dm_dev *d, int64_t *outside, int64_t *nan, int64_t *evaluated,
                            double *target_s);

SL_EXTERN_C_END

#endif
