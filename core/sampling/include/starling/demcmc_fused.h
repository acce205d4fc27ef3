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

/* What a chain's group carries from its proposal to its decision. On
 * lane 0: the proposal's log prior and log Jacobian factor, and ln u of
 * the accept test. On each lane making a pair of parameters (the "wide"
 * layout, below): the pair, which it stores into the state if the chain
 * takes the proposal. The chain's own lp, ll and counts are not carried:
 * lane 0 prefetches them at the proposal and loads them at the decision
 * (loaded at the proposal, they were spilled to the stack at once, and
 * the spill waited for the load: a stall at the kernel's start). */
typedef struct sl_dm_pending {
    double plp, jac, log_u;
    double y0, y1;                 /* this lane's pair of the proposal */
} sl_dm_pending;

SL_EXTERN_C_END

#if defined(__CUDACC__)

/* Whether the group makes a DE proposal in the wide layout: a pair of
 * parameters a lane, and a lane beyond the pairs for the accept test's u,
 * so that every lane runs the same code (a warp runs diverging lanes one
 * after the other: the accept test's draw on a lane of its own was as
 * long as the pairs' on theirs). */
static __device__ __forceinline__ int sl_dm_group_wide(const sl_dm_move *m, int width)
{
    return !(m->snooker > 0.0) && (m->D + 1) / 2 < width;
}

/* Lane 0 asks for the chain's state and counts, which the decision
 * reads, to be brought into L1 while the proposal and the model run. */
static __device__ __forceinline__ void sl_dm_prefetch_own(const sl_dm_half *h, int64_t ch)
{
    asm volatile("prefetch.global.L1 [%0];" ::"l"(h->lp + ch));
    asm volatile("prefetch.global.L1 [%0];" ::"l"(h->ll + ch));
    asm volatile("prefetch.global.L1 [%0];" ::"l"(h->counts + 3 * ch));
    asm volatile("prefetch.global.L1 [%0];" ::"l"(h->accepted + ch));
}

/* Chain lo + t's proposal into row t of h->rows. Returns, on every lane of
 * the group, whether it is inside the priors (and so to be evaluated);
 * what *p holds is said above.
 *
 * In the wide layout lane k < (D + 1) / 2 makes parameters 2k and 2k + 1
 * (p->y0, p->y1), lane (D + 1) / 2 draws ln u; each lane issues its loads
 * before it makes its normals, so that their latency passes under them. */
static __device__ __forceinline__ int sl_dm_group_propose(const sl_dm_half *h, int64_t t,
                                                          int lane, int width, sl_dm_pending *p)
{
    const sl_dm_move *m = &h->m;
    const int D = m->D, active = t < h->n, wide = sl_dm_group_wide(m, width);
    const int64_t ch = h->lo + t;
    double *y = h->rows + t * D;
    const double *x = h->x + ch * D;
    double j = 0.0, t0 = 0.0, t1 = 0.0, log_u = 0.0;
    int u_lane = width - 1;
    if (active && lane == 0)
        sl_dm_prefetch_own(h, ch);
    if (wide) {
        const int np = (D + 1) / 2, k = 2 * lane;
        const int mine = active && lane < np, two = mine && k + 1 < D;
        double x0 = 0.0, x1 = 0.0, a0 = 0.0, a1 = 0.0, b0 = 0.0, b1 = 0.0;
        sl_prior q0, q1;
        if (mine) {
            q0 = m->pr[k], x0 = x[k];
            if (two)
                q1 = m->pr[k + 1], x1 = x[k + 1];
        }
        int64_t r1, r2;
        double gamma = sl_dm_de_pair(m, ch, h->g, h->on, &r1, &r2);
        if (mine) {
            const double *a = h->src + r1 * D, *b = h->src + r2 * D;
            a0 = a[k], b0 = b[k];
            if (two)
                a1 = a[k + 1], b1 = b[k + 1];
        }
        sl_rng r;
        sl_dm_rng_at(m, &r, ch, h->g, lane < np ? 1 + (uint64_t)lane : (uint64_t)D + 1);
        double u1 = sl_rng_uniform(&r), u2 = sl_rng_uniform(&r), z0, z1;
        /* the accept lane's log(1 - (1 - u)) is ln u bit for bit: u is a
         * multiple of 2^-53 in [0, 1), so 1 - u and 1 - (1 - u) are exact */
        double l = log(1.0 - (lane == np ? 1.0 - u1 : u1));
        sl_dm_box_muller(l, u2, &z0, &z1);
        log_u = l, u_lane = np;
        if (mine) {
            p->y0 = y[k] = sl_dm_de_component(m, &q0, x0, a0, b0, gamma, z0);
            t0 = sl_prior_logpdf(&q0, p->y0);
            if (two) {
                p->y1 = y[k + 1] = sl_dm_de_component(m, &q1, x1, a1, b1, gamma, z1);
                t1 = sl_prior_logpdf(&q1, p->y1);
            }
        }
    } else {
        if (active && m->snooker > 0.0) {
            /* rare and serial: the host's code on one lane */
            if (lane == 0)
                j = sl_dm_propose(m, ch, h->g, x, h->src, h->on, y);
        } else if (active) {
            int64_t r1, r2;
            double gamma = sl_dm_de_pair(m, ch, h->g, h->on, &r1, &r2);
            const double *a = h->src + r1 * D, *b = h->src + r2 * D;
            for (int q = lane; 2 * q < D; q += width) {
                sl_rng r;
                double z0, z1;
                int k = 2 * q;
                sl_dm_rng_at(m, &r, ch, h->g, 1 + (uint64_t)q);
                sl_dm_normals(&r, &z0, &z1);
                double y0 = sl_dm_de_component(m, &m->pr[k], x[k], a[k], b[k], gamma, z0);
                y[k] = y0;
                t0 = sl_prior_logpdf(&m->pr[k], y0);
                if (k + 1 < D) {
                    double y1 = sl_dm_de_component(m, &m->pr[k + 1], x[k + 1], a[k + 1],
                                                   b[k + 1], gamma, z1);
                    y[k + 1] = y1;
                    t1 = sl_prior_logpdf(&m->pr[k + 1], y1);
                }
            }
        }
        if (active && lane == width - 1) /* the lane with the fewest pairs */
            log_u = sl_dm_accept_log_u(m, ch, h->g);
    }
    __syncwarp(); /* the group's stores to y are seen by lane 0 */
    log_u = __shfl_sync(0xffffffffu, log_u, u_lane, width);
    double lp = 0.0;
    /* each lane's pair's log prior terms, when every lane makes one pair at
     * most: summed from registers, in the host's order */
    if (2 * width >= D && !(m->snooker > 0.0)) { /* the same on every lane of the warp */
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
            h->counts[3 * ch]++;
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
        h->counts[3 * ch + 2]++;
        if (isnan(lnl))
            h->counts[3 * ch + 1]++;
        else
            take = sl_dm_accept_with(p->log_u, p->plp + lnl + p->jac, h->lp[ch] + h->ll[ch]);
        if (take) {
            h->lp[ch] = p->plp;
            h->ll[ch] = lnl;
            h->accepted[ch]++;
        }
    }
    take = __shfl_sync(0xffffffffu, take, 0, width);
    if (!take)
        return;
    double *x = h->x + ch * D;
    if (sl_dm_group_wide(&h->m, width)) { /* the pairs are still in the lanes' registers */
        int k = 2 * lane;
        if (k < D)
            x[k] = p->y0;
        if (k + 1 < D)
            x[k + 1] = p->y1;
    } else {
        for (int k = lane; k < D; k += width)
            x[k] = h->rows[t * D + k];
    }
}

#endif /* __CUDACC__ */

#endif
