/* A DE-MCMC half-generation fused into a likelihood plugin's CUDA kernel
 * (likelihood.h demcmc_half_device). The device sampler (demcmc.h) hands
 * the plugin an sl_dm_half; the plugin's kernel gives each chain of the
 * half a group of adjacent threads (the lanes it already gives a model),
 * and every thread calls, in this order:
 *
 *     sl_dm_pending p;
 *     int in = sl_dm_group_propose(&h, t, lane, width, &p);
 *     ... ln L of row t of h.rows when `in` (the plugin's own code) ...
 *     sl_dm_group_decide(&h, t, lane, width, in, &p, lnl);
 *
 * t is the chain's index in the half (lo + t is its index in the run),
 * lane its thread's index in the group, width the group's size (a power
 * of two, at most 32, groups aligned in the warp); every thread of a warp
 * must arrive (t >= h.n: no chain, `in` is 0). The proposal is the host
 * sampler's (demcmc_move.h), made by the group's lanes a pair of
 * parameters each, so that one kernel launch does what the proposal, the
 * likelihood and the decision kernels did in three: the time outside the
 * likelihood is then a few microseconds a half-generation instead of the
 * launches and latency of two more kernels. The moves' products are
 * SL_DMUL, so the plugin's kernel may be compiled with FMA contraction:
 * the draws stay the host's. */
#ifndef STARLING_DEMCMC_FUSED_H
#define STARLING_DEMCMC_FUSED_H

#include <stdint.h>

#include "starling/demcmc_move.h"
#include "starling/hd.h"

SL_EXTERN_C_BEGIN

/* One half-generation: chains [lo, lo + n) of N move in generation g. All
 * pointers are device memory of the current device. */
typedef struct sl_dm_half {
    sl_dm_move m;          /* m.pr: the D priors, on the device */
    int64_t g, lo, n;
    const double *src;     /* the source rows (the other half, or the archive) */
    int64_t on;            /* how many */
    double *x, *lp, *ll;   /* every chain: N x D, N, N */
    int64_t *accepted;     /* N */
    double *rows;          /* n x D: row t is chain lo + t's proposal */
    unsigned long long *counts; /* N x 3: per chain, proposals outside the priors,
                                 * NaN evaluations, evaluations */
} sl_dm_half;

/* What a chain's group carries from its proposal to its decision (valid
 * on lane 0): the proposal's log prior and log Jacobian factor, ln u of
 * the accept test (made on a spare lane while the proposal was made), and
 * the chain's log posterior and counts as the kernel found them: loaded
 * before the proposal, so that their latency passes under the model's
 * instead of following it (the kernel is latency-bound: a load from L2 on
 * the decision's path was a measurable part of a half-generation). */
typedef struct sl_dm_pending {
    double plp, jac, log_u;
    double cur;                    /* lp + ll of the chain's state */
    unsigned long long nan, evals; /* the chain's counts */
    int64_t accepted;
} sl_dm_pending;

SL_EXTERN_C_END

#if defined(__CUDACC__)

/* Chain lo + t's proposal into row t of h->rows. Returns, on every lane of
 * the group, whether it is inside the priors (and so to be evaluated);
 * *p is valid on lane 0. */
static __device__ __forceinline__ int sl_dm_group_propose(const sl_dm_half *h, int64_t t,
                                                          int lane, int width, sl_dm_pending *p)
{
    const sl_dm_move *m = &h->m;
    const int D = m->D, active = t < h->n;
    const int64_t ch = h->lo + t;
    double *y = h->rows + t * D;
    const double *x = h->x + ch * D;
    double j = 0.0;
    unsigned long long outside = 0;
    if (active && lane == 0) {
        p->cur = h->lp[ch] + h->ll[ch];
        outside = h->counts[3 * ch], p->nan = h->counts[3 * ch + 1];
        p->evals = h->counts[3 * ch + 2], p->accepted = h->accepted[ch];
    }
    /* each lane's pair's log prior terms, when every lane makes one pair at
     * most: lane 0 then sums them from registers, in the host's order */
    const int one_pair = 2 * width >= D;
    double t0 = 0.0, t1 = 0.0;
    if (active && m->snooker > 0.0) {
        /* rare and serial: the host's code on one lane */
        if (lane == 0)
            j = sl_dm_propose(m, ch, h->g, x, h->src, h->on, y);
    } else if (active) {
        int64_t r1, r2;
        double gamma = sl_dm_de_pair(m, ch, h->g, h->on, &r1, &r2);
        const double *a = h->src + r1 * D, *b = h->src + r2 * D;
        for (int p = lane; 2 * p < D; p += width) {
            sl_rng r;
            double z0, z1;
            int k = 2 * p;
            sl_dm_rng_at(m, &r, ch, h->g, 1 + (uint64_t)p);
            sl_dm_normals(&r, &z0, &z1);
            double y0 = sl_dm_de_component(m, k, x[k], a[k], b[k], gamma, z0);
            y[k] = y0;
            t0 = sl_prior_logpdf(&m->pr[k], y0);
            if (k + 1 < D) {
                double y1 = sl_dm_de_component(m, k + 1, x[k + 1], a[k + 1], b[k + 1], gamma, z1);
                y[k + 1] = y1;
                t1 = sl_prior_logpdf(&m->pr[k + 1], y1);
            }
        }
    }
    /* the last lane, which makes the fewest pairs, draws the accept test's u */
    double log_u = active && lane == width - 1 ? sl_dm_accept_log_u(m, ch, h->g) : 0.0;
    __syncwarp(); /* the group's stores to y are seen by lane 0 */
    log_u = __shfl_sync(0xffffffffu, log_u, width - 1, width);
    double lp = 0.0;
    if (one_pair && !(m->snooker > 0.0)) { /* the same on every lane of the warp */
        /* sl_dm_log_prior's sum: the same terms in the same order */
        for (int k = 0; k < D; k++) {
            double tk = __shfl_sync(0xffffffffu, k % 2 ? t1 : t0, k / 2, width);
            if (lp > -INFINITY)
                lp += tk;
        }
    } else if (active && lane == 0) {
        lp = isnan(j) ? -INFINITY : sl_dm_log_prior(m, y);
    }
    int in = 0;
    if (active && lane == 0) {
        in = lp > -INFINITY;
        if (!in && !isnan(j))
            h->counts[3 * ch] = outside + 1;
        p->plp = lp, p->jac = j, p->log_u = log_u;
    }
    return __shfl_sync(0xffffffffu, in, 0, width);
}

/* Chain lo + t takes row t of h->rows, or not, given its ln L `lnl`
 * (lane 0's value is used). Every lane of the group calls it with the
 * same `in`. */
static __device__ __forceinline__ void sl_dm_group_decide(const sl_dm_half *h, int64_t t,
                                                          int lane, int width, int in,
                                                          const sl_dm_pending *p, double lnl)
{
    const int D = h->m.D;
    const int64_t ch = h->lo + t;
    int take = 0;
    if (in && lane == 0) {
        h->counts[3 * ch + 2] = p->evals + 1;
        if (isnan(lnl))
            h->counts[3 * ch + 1] = p->nan + 1;
        else
            take = sl_dm_accept_with(p->log_u, p->plp + lnl + p->jac, p->cur);
        if (take) {
            h->lp[ch] = p->plp;
            h->ll[ch] = lnl;
            h->accepted[ch] = p->accepted + 1;
        }
    }
    take = __shfl_sync(0xffffffffu, take, 0, width);
    if (take)
        for (int k = lane; k < D; k += width)
            h->x[ch * D + k] = h->rows[t * D + k];
}

#endif /* __CUDACC__ */

#endif
