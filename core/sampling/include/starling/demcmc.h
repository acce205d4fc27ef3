/* Differential-evolution MCMC (ter Braak 2006), the population sampler
 * Ford (2009) chose for GPUs: N chains over d parameters, every proposal
 * of a generation's half evaluated in one batched call of the target.
 *
 * A generation updates the chains in two halves, A = chains 0..N/2-1 then
 * B = N/2..N-1. Chain i of one half proposes
 *   x* = x_i + gamma (x_r1 - x_r2) + eps,  r1 != r2 drawn from the other half,
 * gamma = 2.38 / sqrt(2 d) (1 every gamma1_every-th generation, so that the
 * population can jump between modes), eps_k ~ N(0, (b (x_r1 - x_r2)_k)^2):
 * scaled by the pair's own difference, which needs no reduction over the
 * chains and keeps the proposal symmetric. The other half does not move while a
 * half proposes, so each half's update is a Metropolis step that leaves the
 * target invariant (ter Braak & Vrugt 2008), and all its proposals go to
 * the target at once. During burn-in only, chains stuck far below the
 * population restart from one above its median (outliers). A proposal outside a prior's support is rejected
 * without evaluating the target; one whose log-likelihood is NaN is
 * rejected and counted, never taken as a value.
 *
 * Random numbers are Philox (rng.h) keyed by (seed, chain, generation):
 * the same seed gives the same chains, and a run continued from its last
 * generation goes on exactly as one run would. */
#ifndef STARLING_DEMCMC_H
#define STARLING_DEMCMC_H

#include <stdint.h>
#include "starling/prior.h"
#include "starling/status.h"

SL_EXTERN_C_BEGIN

struct sl_dm_half; /* demcmc_fused.h */
struct sl_demcmc_result;

/* The target: n parameter vectors (n x n_params, row-major) to n
 * log-likelihoods. -inf is a valid value (outside the model's domain);
 * NaN is counted and the proposal rejected. A failure stops the run, and
 * so does a start where no chain has a finite log-posterior, or a
 * generation after which none has (+inf taken as a value). */
typedef sl_status (*sl_loglike_fn)(void *ud, const double *params, int64_t n, double *out);

/* What the progress function sees after each generation. */
typedef struct sl_demcmc_progress {
    int64_t generation;  /* run in all (a resumed run's earlier ones included) */
    int64_t last;        /* the generation this call ends at */
    double acceptance;   /* of this generation's proposals */
    double rhat, ess;    /* at the last convergence check (NaN before the first): the */
                         /* worst free parameter's R-hat and min(bulk, tail) ESS */
} sl_demcmc_progress;

/* The sampler's state after `generation` generations in all: what a run
 * needs to go on from there (start = x, first = generation, and the
 * archive with DE-MCz). */
typedef struct sl_demcmc_state {
    int64_t generation;
    const double *x, *lp, *ll;   /* chains x n_params; log prior and log-likelihood per chain */
    const double *archive;       /* archive_rows x n_params (DE-MCz), else NULL */
    int64_t archive_rows;
} sl_demcmc_state;

typedef struct sl_demcmc_config {
    int64_t chains;       /* N: even, >= 2 d and >= 4 */
    int64_t generations;  /* to run */
    uint64_t seed;
    double gamma;         /* 0: 2.38 / sqrt(2 d) */
    int64_t gamma1_every; /* every k-th generation gamma = 1; 0: never (default 10) */
    double noise;         /* b, relative to the pair's difference (default 1e-4) */
    int64_t burn;         /* generations not kept (default 0) */
    int64_t thin;         /* keep every thin-th generation after burn (default 1) */
    int outliers;         /* 1 (default): during burn-in, at every tenth of it, chains */
                          /* far below the others restart from one above the median */
    /* DE-MCz (ter Braak & Vrugt 2008): the differences come from an archive
     * of past states (the start, then every chain every archive_every
     * generations) instead of the other half. The archive does not move
     * during a generation, so all chains propose at once, in one call of
     * the target. A run resumed from a DE-MCz state passes the archive it
     * had in archive_start (archive_start_rows rows). */
    int archive;
    int64_t archive_every; /* default 10 */
    const double *archive_start;
    int64_t archive_start_rows;
    /* The snooker update (ter Braak & Vrugt 2008), with this probability
     * per proposal (default 0): a jump along the line from the chain
     * through a state z of the archive (or the other half), of length
     * gamma_s ~ U(1.2, 2.2) times the projection of a difference of two
     * more, accepted with the Jacobian factor (|x* - z| / |x - z|)^(d-1). */
    double snooker;
    /* Stop once every free parameter has R-hat < stop_rhat and
     * min(bulk, tail) ESS > stop_ess over the kept draws (0: that test is
     * not asked; both 0: run every generation), checked every stop_every
     * kept generations (0: a twentieth of those asked, at least 50). */
    double stop_rhat, stop_ess;
    int64_t stop_every;
    /* Optional: the target on the CUDA device (params and out in device
     * memory, queued on `stream`, a cudaStream_t; *count in device memory the
     * rows to evaluate, at most n: likelihood.h eval_batch_device). With it, and a core built
     * with CUDA, whole generations run on the current device: proposals,
     * priors, the target, the decisions and the archive; the host sees the
     * chains only where it needs them (kept generations, progress,
     * checkpoints, burn-in's outlier resets). `target` still evaluates the
     * start. The draws are the host sampler's (demcmc_move.h); the device's
     * log, sin and cos may differ from the host's in the last bits. */
    sl_status (*device_target)(void *ud, const double *params, int64_t n, const int *count,
                               double *out, void *stream);
    void *device_target_ud;
    /* Optional, with device_target: a half-generation in one kernel of the
     * likelihood's (likelihood.h demcmc_half_device, demcmc_fused.h), used
     * instead of the sampler's proposal and decision kernels around
     * device_target. The chains are the same; the time outside the
     * likelihood shrinks to what the fused kernel adds. */
    sl_status (*device_half)(void *ud, const struct sl_dm_half *h, void *stream);
    void *device_half_ud;
    /* Kept generations the device holds in each of its two batches, one
     * filling while the other is copied out (0: as many as fit in 4 MiB;
     * larger batches cost more to pin at the start than they save). */
    int64_t device_batch;
    /* On the device, the likelihood's time (result target_s) is measured
     * on every k-th step and scaled by the steps run: a measurement costs
     * the stream a few microseconds, 10 % of a 4,096-chain half-generation
     * (0: 16; 1: every step, exact). */
    int64_t device_time_every;
    /* Optional: called after each generation; nonzero cancels the run. */
    int (*progress)(void *ud, const sl_demcmc_progress *p);
    void *progress_ud;
    /* Optional: every checkpoint_every generations, the state as it
     * stands. A failure stops the run. */
    sl_status (*checkpoint)(void *ud, const sl_demcmc_state *s);
    void *checkpoint_ud;
    int64_t checkpoint_every;
    /* Optional: the kept generations [from, to) of the result's samples,
     * logpost and loglike, final and on the host, handed on as they
     * accumulate: every checkpoint_every generations (before the
     * checkpoint function, so that the draws handed on reach the state it
     * saves) and at the end of the run. A failure stops the run. */
    sl_status (*draws)(void *ud, const struct sl_demcmc_result *r, int64_t from, int64_t to);
    void *draws_ud;
} sl_demcmc_config;

/* chains 0 (must be set), generations 0, seed 1, gamma 0, gamma1_every
 * 10, noise 1e-4, burn 0, thin 1, outliers 1, archive 0 (every 10),
 * snooker 0, no stopping rule. */
void sl_demcmc_config_default(sl_demcmc_config *c);

typedef struct sl_demcmc_result {
    int64_t chains, n_params, kept; /* kept generations */
    int64_t generations;            /* run (fewer than asked when the stopping rule met) */
    int converged;                  /* the stopping rule was met */
    double rhat, ess;               /* at the last convergence check (NaN: none) */
    double *samples;  /* kept x chains x n_params */
    double *logpost;  /* kept x chains: log prior + log-likelihood */
    double *loglike;  /* kept x chains */
    double *last;     /* chains x n_params: the last generation, kept or not */
    double *last_logpost, *last_loglike; /* chains */
    int64_t *accepted;  /* per chain, over all generations */
    int64_t proposals;  /* chains x generations */
    int64_t outside;    /* proposals outside a prior's support (not evaluated) */
    int64_t nan;        /* evaluations that gave NaN (rejected), the start's included */
    int64_t evaluations;/* rows given to the target */
    int64_t reset;      /* outlier chains restarted during burn-in */
    double wall_s, target_s; /* the run, and the part spent in the target (fused: in the
                              * fused kernels, the sampler's steps included) */
    int fused;               /* generations ran fused into the likelihood's kernel */
    double setup_s, finish_s; /* of wall_s: before the first generation (the result's and
                               * the device's memory, the start's evaluation, the upload),
                               * and after the last was issued (the device's queued
                               * generations, the last copies out, the counts) */
    double *archive;         /* DE-MCz: archive_rows x n_params, to resume with */
    int64_t archive_rows;
    /* What a finished run found doubtful (no proposal accepted: the draws
     * are the start), one sentence a line; "" when nothing. The library
     * prints nothing: a front end shows these. */
    char warnings[512];
} sl_demcmc_result;

/* Everything sl_demcmc_run refuses before work, and nothing else. */
sl_status sl_demcmc_check(const sl_demcmc_config *c, int n_params, const sl_prior *priors,
                          const char *const *names);

/* Runs c->generations generations. start: chains x n_params initial
 * states, or NULL to draw each from the priors (keyed by the seed, as
 * generation -1). first: the number of generations already run, to go on
 * from a previous result's `last` with the same seed (0 for a new run).
 * names: the parameters' names, for messages (may be NULL). */
sl_status sl_demcmc_run(const sl_demcmc_config *c, int n_params, const sl_prior *priors,
                        const char *const *names, sl_loglike_fn target, void *target_ud,
                        const double *start, int64_t first, sl_demcmc_result *res);
void sl_demcmc_result_free(sl_demcmc_result *res);

SL_EXTERN_C_END

#endif
