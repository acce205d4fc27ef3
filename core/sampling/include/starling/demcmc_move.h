/* One chain's DE-MCMC step as SL_HD code: the proposal (DE, DE-MCz or
 * snooker), the log prior and the accept test, written once for the host
 * sampler (core/src/demcmc.c) and for samplers that run a generation on
 * the device. Every draw comes from Philox keyed by (seed, chain,
 * generation) (demcmc.h), so where it runs changes no random number.
 *
 * The random blocks of chain i in generation g (two uniforms each) start
 * at counter (g + 1) * stride: block 0 the pair r1, r2 (with the snooker:
 * z's index and, unused, r2), blocks 1.. two normals each, block D + 1
 * the accept test and the outlier's draw, and with the snooker blocks
 * D + 2 (the choice, gamma) and D + 3 (z1, z2); stride = D + 2, or D + 4
 * with the snooker. */
#ifndef STARLING_DEMCMC_MOVE_H
#define STARLING_DEMCMC_MOVE_H

#include <math.h>
#include <stdint.h>
#include "starling/hd.h"
#include "starling/prior.h"
#include "starling/rng.h"

SL_EXTERN_C_BEGIN

/* What a proposal needs besides the states. */
typedef struct sl_dm_move {
    uint64_t seed, stride;
    int D, d;                /* parameters, free ones */
    double gamma;            /* the jump's scale */
    int64_t gamma1_every;    /* 0: never */
    double noise;            /* relative to the pair's difference */
    double snooker;          /* probability */
    const sl_prior *pr;      /* D priors */
} sl_dm_move;

SL_HD SL_INLINE void sl_dm_rng_at(const sl_dm_move *m, sl_rng *r, int64_t chain, int64_t g,
                                  uint64_t block)
{
    sl_rng_init(r, m->seed, (uint64_t)chain);
    r->counter = (uint64_t)(g + 1) * m->stride + block;
}

/* Two distinct indices in [0, n) from two uniforms. */
SL_HD SL_INLINE void sl_dm_two_of(double u1, double u2, int64_t n, int64_t *r1, int64_t *r2)
{
    int64_t a = (int64_t)(u1 * (double)n), b = (int64_t)(u2 * (double)(n - 1));
    a = a < n ? a : n - 1;
    b = b < n - 1 ? b : n - 2;
    *r1 = a;
    *r2 = b + (b >= a);
}

/* Box-Muller's two standard normals from l = log(1 - u1) and u2. */
SL_HD SL_INLINE void sl_dm_box_muller(double l, double u2, double *z0, double *z1)
{
    const double two_pi = 6.283185307179586476925286766559;
    double a = sqrt(-2.0 * l);
    *z0 = a * cos(two_pi * u2);
    *z1 = a * sin(two_pi * u2);
}

/* Two standard normals from one block. */
SL_HD SL_INLINE void sl_dm_normals(sl_rng *r, double *z0, double *z1)
{
    double u1 = sl_rng_uniform(r), u2 = sl_rng_uniform(r);
    sl_dm_box_muller(log(1.0 - u1), u2, z0, z1);
}

SL_HD SL_INLINE double sl_dm_log_prior(const sl_dm_move *m, const double *x)
{
    double lp = 0.0;
    for (int k = 0; k < m->D && lp > -INFINITY; k++)
        lp += sl_prior_logpdf(&m->pr[k], x[k]);
    return lp;
}

SL_HD SL_INLINE double sl_dm_place(const sl_prior *p, double y)
{
    return p->kind == SL_PRIOR_FIXED ? p->value : sl_prior_wrap(p, y);
}

/* The snooker update of chain i (state x) from the source's `on` rows
 * (src, row-major): z from u_z, z1 != z2 (and != z) from block D + 3;
 * returns the log Jacobian factor, or NaN for no move (x = z). */
SL_HD SL_INLINE double sl_dm_snooker(const sl_dm_move *m, int64_t i, int64_t g, const double *x,
                                     const double *src, int64_t on, double u_z, double u_gamma,
                                     double *y)
{
    sl_rng r;
    sl_dm_rng_at(m, &r, i, g, (uint64_t)m->D + 3);
    int64_t iz = (int64_t)(u_z * (double)on), i1, i2;
    iz = iz < on ? iz : on - 1;
    double v1 = sl_rng_uniform(&r), v2 = sl_rng_uniform(&r);
    sl_dm_two_of(v1, v2, on - 1, &i1, &i2);
    i1 += i1 >= iz, i2 += i2 >= iz; /* z, z1, z2 distinct */
    const double *z = src + iz * m->D, *z1 = src + i1 * m->D, *z2 = src + i2 * m->D;
    double xz2 = 0.0, proj = 0.0;
    for (int k = 0; k < m->D; k++) {
        double e = x[k] - z[k];
        xz2 += SL_DMUL(e, e);
        proj += SL_DMUL(z1[k] - z2[k], e);
    }
    if (!(xz2 > 0.0))
        return NAN;
    double step = (1.2 + u_gamma) * proj / xz2, yz2 = 0.0;
    for (int k = 0; k < m->D; k++) {
        double yk = x[k] + SL_DMUL(step, x[k] - z[k]), e = yk - z[k];
        yz2 += SL_DMUL(e, e);
        y[k] = sl_dm_place(&m->pr[k], yk);
    }
    return 0.5 * (double)(m->d - 1) * (log(yz2) - log(xz2));
}

/* The DE pair (rows r1, r2 of the source) and gamma of chain i in
 * generation g, from block 0. */
SL_HD SL_INLINE double sl_dm_de_pair(const sl_dm_move *m, int64_t i, int64_t g, int64_t on,
                                     int64_t *r1, int64_t *r2)
{
    sl_rng r;
    sl_dm_rng_at(m, &r, i, g, 0);
    double u1 = sl_rng_uniform(&r), u2 = sl_rng_uniform(&r);
    sl_dm_two_of(u1, u2, on, r1, r2);
    return m->gamma1_every > 0 && (g + 1) % m->gamma1_every == 0 ? 1.0 : m->gamma;
}

/* A parameter of a DE proposal, of prior pr: x + gamma (a - b) plus the
 * noise, z a standard normal. Parameters 2j and 2j + 1 take the two
 * normals of block 1 + j, so that a group of threads may make them in any
 * order. */
SL_HD SL_INLINE double sl_dm_de_component(const sl_dm_move *m, const sl_prior *pr, double x,
                                          double a, double b, double gamma, double z)
{
    double e = SL_DMUL(SL_DMUL(m->noise, a - b), z);
    return sl_dm_place(pr, x + SL_DMUL(gamma, a - b) + e);
}

/* Chain i's proposal y in generation g from its state x and the source's
 * `on` rows (the other half, or the archive); returns its log Jacobian
 * factor (0 but for the snooker; NaN: no move). The noise of parameter k
 * is noise x (a_k - b_k) x a normal: scaled by the pair's own difference,
 * so that it needs no reduction over the chains, and still symmetric (the
 * pair (b, a) proposes the way back with the same spread). */
SL_HD SL_INLINE double sl_dm_propose(const sl_dm_move *m, int64_t i, int64_t g, const double *x,
                                     const double *src, int64_t on, double *y)
{
    sl_rng r;
    sl_dm_rng_at(m, &r, i, g, 0);
    double u1 = sl_rng_uniform(&r), u2 = sl_rng_uniform(&r);
    if (m->snooker > 0.0) {
        sl_rng q;
        sl_dm_rng_at(m, &q, i, g, (uint64_t)m->D + 2);
        double u_which = sl_rng_uniform(&q), u_gamma = sl_rng_uniform(&q);
        if (u_which < m->snooker)
            return sl_dm_snooker(m, i, g, x, src, on, u1, u_gamma, y);
    }
    int64_t r1, r2;
    sl_dm_two_of(u1, u2, on, &r1, &r2);
    const double *a = src + r1 * m->D, *b = src + r2 * m->D;
    double gamma = m->gamma1_every > 0 && (g + 1) % m->gamma1_every == 0 ? 1.0 : m->gamma;
    double z[2] = {0.0, 0.0};
    for (int k = 0; k < m->D; k++) {
        if (k % 2 == 0)
            sl_dm_normals(&r, &z[0], &z[1]);
        y[k] = sl_dm_de_component(m, &m->pr[k], x[k], a[k], b[k], gamma, z[k % 2]);
    }
    return 0.0;
}

/* Whether chain i, at log posterior `cur`, takes a proposal of log
 * posterior `post` (log Jacobian included) in generation g. A chain still
 * outside the model's domain (-inf) moves to any proposal not worse. */
SL_HD SL_INLINE int sl_dm_accept_with(double log_u, double post, double cur)
{
    if (cur == -INFINITY)
        return post > -INFINITY || post == cur;
    return log_u < post - cur;
}

/* ln u of chain i's accept test in generation g (block D + 1). It does
 * not depend on the state, so a fused kernel makes it on a spare lane
 * while the proposal is made. */
SL_HD SL_INLINE double sl_dm_accept_log_u(const sl_dm_move *m, int64_t i, int64_t g)
{
    sl_rng r;
    sl_dm_rng_at(m, &r, i, g, (uint64_t)m->D + 1);
    return log(sl_rng_uniform(&r));
}

SL_HD SL_INLINE int sl_dm_accept(const sl_dm_move *m, int64_t i, int64_t g, double post,
                                 double cur)
{
    if (cur == -INFINITY)
        return post > -INFINITY || post == cur;
    return sl_dm_accept_log_u(m, i, g) < post - cur;
}

SL_EXTERN_C_END

#endif
