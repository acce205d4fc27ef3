/* mvs on CUDA from 8 bodies: a group of threads per system, each thread
 * one planet (internal/group.h, "an integrator's own grouped loop";
 * docs/ARCHITECTURE.md).
 *
 * One thread holding a whole Sun + 8 planets system ran out of registers
 * (255 and a 1.5 KB stack): its eight Kepler drifts, the planets' mutual
 * pulls and the working state all spilled. Here thread g of G owns
 * planets 1 + g, 1 + g + G, ... (with G = 8 at N = 9, one each; the
 * narrow loop, G = 2, four each) and keeps
 * only their (Q, V); body 0's (Q_0, V_0), the centre of mass, is kept by
 * every thread alike. The stages of mvs.h are the same operators split by
 * planet: the Kepler drift is per planet; the jump's speed (the planets'
 * momentum over m_0) is a group sum; the kick's force is each planet's row
 * of acc_perturb (the force's acc_perturb_at) at the points the group
 * publishes to shared memory. Democratic heliocentric coordinates only:
 * Jacobi coordinates chain every planet to the ones inside it, and run on
 * the thread-per-system kernel, which the launcher picks for them
 * (sl_prop_mvs_group_threads, which also picks by the ensemble's size).
 *
 * The same steps, closes, correctors, stops and records as the
 * thread-per-system loop (loop.h with SYNC), in the same order. Sums over
 * planets are taken in a different order (a butterfly over the group), so
 * the results agree with the CPU's to rounding, not to the bit. */
#ifndef STARLING_MVS_GROUP_H
#define STARLING_MVS_GROUP_H

/* Threads per system (the fastest measured on the H200), for the
 * CUDA loops; C sees them too (tests/test_gpu_mvs.c). */
#define SL_PROP_mvs_GROUP_THREADS_8 8
#define SL_PROP_mvs_GROUP_THREADS_9 8
#define SL_PROP_mvs_GROUP_THREADS_10 16
#define SL_PROP_mvs_GROUP_THREADS_11 16
#define SL_PROP_mvs_GROUP_THREADS_12 16
#define SL_PROP_mvs_GROUP_THREADS_13 16
#define SL_PROP_mvs_GROUP_THREADS_14 16
#define SL_PROP_mvs_GROUP_THREADS_15 16
#define SL_PROP_mvs_GROUP_THREADS_16 16
/* The narrow loop: at 8 and 9 bodies, 2 threads a system (4 planets
 * each; at 8, three on the second thread). At 16, 8 threads a system
 * spilled and lost to the wide group. */
#define SL_PROP_mvs_GROUP_NARROW_8 2
#define SL_PROP_mvs_GROUP_NARROW_9 2
#define SL_PROP_mvs_GROUP_NARROW_10 0
#define SL_PROP_mvs_GROUP_NARROW_11 0
#define SL_PROP_mvs_GROUP_NARROW_12 0
#define SL_PROP_mvs_GROUP_NARROW_13 0
#define SL_PROP_mvs_GROUP_NARROW_14 0
#define SL_PROP_mvs_GROUP_NARROW_15 0
#define SL_PROP_mvs_GROUP_NARROW_16 0
#if defined(__CUDACC__)
#include "starling/internal/group.h"

/* SL_MVS_NO_GROUP (a compile definition): every N on one thread a
 * system, as before the grouped loop; for benchmarks comparing the two. */
#if !defined(SL_MVS_NO_GROUP)
#define SL_PROP_mvs_GROUP_LOOP 1
#endif
#define SL_PROP_mvs_GROUP_FORCE(F) SL_OPT_FLAG(SL_FORCE_##F##_PERTURB_AT)
#define SL_PROP_mvs_GROUP_DEFINE(P, F, N, G, NAME) SL_MVS_GROUP_LOOP_DEFINE(F, N, G, NAME)
#endif /* __CUDACC__ */

/* Which kernel a launch runs, by the systems a multiprocessor (H200, 132
 * SMs, the Sun + 8 planets). The wide group (8 threads a system,
 * 128 registers, no spills) cuts a system's latency 2.7x against one
 * thread a system but fills the device at about 64 systems a
 * multiprocessor; past that it runs in two waves. The narrow one (2
 * threads, 246 registers, no spills) has more latency but holds twice the
 * systems in one wave: 1.06 s against 1.29 s (wide) and 1.45 s (one
 * thread) for 16384 copies. Past 128 a multiprocessor the one-thread
 * kernel has enough systems to hide its latency and spends the fewest
 * instructions on each. Jacobi coordinates run one thread a system. All
 * make the same steps; they agree to rounding, not to the bit. */
#define SL_MVS_GROUP_WIDE_PER_SM 64
#define SL_MVS_GROUP_SYSTEMS_PER_SM 128
SL_HD SL_INLINE int sl_prop_mvs_group_threads(const double *pp, int64_t n_sys, int sms, int wide,
                                              int narrow)
{
    if (sl_mvs_params_of(pp)->coordinates != 0.0 || n_sys > (int64_t)SL_MVS_GROUP_SYSTEMS_PER_SM * sms)
        return 0;
    if (narrow == 0 || n_sys <= (int64_t)SL_MVS_GROUP_WIDE_PER_SM * sms)
        return wide;
    return narrow;
}

#if defined(__CUDACC__)
/* Planets a thread owns, at most. */
enum { SL_MVS_GROUP_PL = 4 };

/* A thread's share of a working state: body 0's (Q_0, V_0) and its
 * planets' (Q_i, V_i); the planets' masses (0 past the last planet). */
typedef struct sl_mvs_gstate {
    double Q0[3], V0[3], q[3 * SL_MVS_GROUP_PL], u[3 * SL_MVS_GROUP_PL];
} sl_mvs_gstate;

typedef struct sl_mvs_group {
    int g, GT, PL, n;
    unsigned mask;
    double m0, mt, im0, mi[SL_MVS_GROUP_PL];
} sl_mvs_group;

SL_HD SL_INLINE int sl_mvs_gplanet(const sl_mvs_group *c, int l) { return 1 + c->g + c->GT * l; }

/* sl_mvs_K on the thread's share. */
SL_HD SL_INLINE void sl_mvs_gK(const sl_mvs_group *c, double tol, int how, double h,
                               sl_mvs_gstate *R)
{
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        R->Q0[d] += h * R->V0[d];
    SL_UNROLL
    for (int l = 0; l < c->PL; l++) {
        if (sl_mvs_gplanet(c, l) >= c->n)
            break;
        if (how == SL_MVS_CALL)
            sl_kepler_drift_call(c->m0, h, tol, R->q + 3 * l, R->u + 3 * l);
        else
            sl_kepler_drift_tol(c->m0, h, tol, R->q + 3 * l, R->u + 3 * l);
    }
}

/* sl_mvs_gK for a step, the thread's planets' drifts in lockstep: the
 * straight-line drift of the CPU's lanes (sl_kdrift_fast_*, the same bits
 * as sl_kepler_drift_tol) with its iterations run for all PL planets at
 * once, stopped when all of them are done, and the general drift, called,
 * for any planet the fast form refuses (left untouched by it). Used where
 * a thread has one planet (the wide group): Sun + 8 at 8192 copies 1.02x
 * faster than the general drift inlined (H200). With four planets a
 * thread (the narrow group) lockstep is 1.4x slower: its arrays, indexed
 * in loops over c->PL that the compiler does not unroll, live in local
 * memory (the PTX's ld.local). The narrow group drifts two planets at a time,
 * as scalars (sl_mvs_gK2). */
SL_HD SL_INLINE void sl_mvs_gK_joint(const sl_mvs_group *c, double tol, double h,
                                     sl_mvs_gstate *R)
{
    enum { L = SL_MVS_GROUP_PL };
    double r0[L], ir0[L], eta[L], beta[L], X[L], lo[L], hi[L], okf[L], done[L], G1[L], G2[L];
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        R->Q0[d] += h * R->V0[d];
    SL_UNROLL
    for (int l = 0; l < c->PL; l++) {
        /* a slot past the last planet: refused at once, never drifted */
        sl_kdrift_fast_begin(c->m0, h, tol, 1, R->q + 3 * l, R->u + 3 * l, r0 + l, ir0 + l,
                             eta + l, beta + l, X + l, lo + l, hi + l, okf + l, done + l);
        okf[l] = sl_mvs_gplanet(c, l) < c->n ? okf[l] : 0.0;
        G1[l] = G2[l] = 0.0;
    }
    SL_NOUNROLL
    for (int i = 0; i < SL_KDRIFT_FAST_IT; i++) {
        int open = 0;
        SL_UNROLL
        for (int l = 0; l < c->PL; l++) {
            sl_kdrift_fast_iter(1, c->m0, h, tol, r0[l], eta[l], beta[l], X + l, lo + l, hi + l,
                                okf + l, done + l, G1 + l, G2 + l);
            open |= done[l] == 0.0 && okf[l] != 0.0;
        }
        if (!open)
            break;
    }
    SL_UNROLL
    for (int l = 0; l < c->PL; l++) {
        if (sl_mvs_gplanet(c, l) >= c->n)
            break;
        double ok = sl_kdrift_fast_end(1, c->m0, 1, R->q + 3 * l, R->u + 3 * l, r0[l], ir0[l],
                                       eta[l], beta[l], X[l], okf[l], done[l], G1[l], G2[l]);
        if (ok == 0.0) {
            /* copies: the call takes addresses, which would put R itself in
             * local memory */
            double qq[3], uu[3];
            SL_UNROLL
            for (int d = 0; d < 3; d++)
                qq[d] = R->q[3 * l + d], uu[d] = R->u[3 * l + d];
            sl_kepler_drift_call(c->m0, h, tol, qq, uu);
            SL_UNROLL
            for (int d = 0; d < 3; d++)
                R->q[3 * l + d] = qq[d], R->u[3 * l + d] = uu[d];
        }
    }
}

/* Two planets' drifts with their starts, first iterations and ends side by
 * side (straight-line code, scalars in registers: the compiler interleaves
 * the two chains), each further iteration a planet's own (Mercury's second
 * is no one else's); the general drift, called, for a planet the fast form
 * refuses. va, vb: whether the slots hold planets (an empty slot is
 * refused at once and left alone). The same bits as sl_kepler_drift_tol. */
SL_HD SL_INLINE void sl_mvs_gK2(double m0, double tol, double h, double *qa, double *ua, int va,
                                double *qb, double *ub, int vb)
{
    double r0a, ir0a, etaa, betaa, Xa, loa, hia, okfa, donea, G1a = 0.0, G2a = 0.0;
    double r0b, ir0b, etab, betab, Xb, lob, hib, okfb, doneb, G1b = 0.0, G2b = 0.0;
    sl_kdrift_fast_begin(m0, h, tol, 1, qa, ua, &r0a, &ir0a, &etaa, &betaa, &Xa, &loa, &hia,
                         &okfa, &donea);
    sl_kdrift_fast_begin(m0, h, tol, 1, qb, ub, &r0b, &ir0b, &etab, &betab, &Xb, &lob, &hib,
                         &okfb, &doneb);
    okfa = va ? okfa : 0.0;
    okfb = vb ? okfb : 0.0;
    sl_kdrift_fast_iter(1, m0, h, tol, r0a, etaa, betaa, &Xa, &loa, &hia, &okfa, &donea, &G1a,
                        &G2a);
    sl_kdrift_fast_iter(1, m0, h, tol, r0b, etab, betab, &Xb, &lob, &hib, &okfb, &doneb, &G1b,
                        &G2b);
    SL_NOUNROLL
    for (int i = 1; i < SL_KDRIFT_FAST_IT && donea == 0.0 && okfa != 0.0; i++)
        sl_kdrift_fast_iter(1, m0, h, tol, r0a, etaa, betaa, &Xa, &loa, &hia, &okfa, &donea,
                            &G1a, &G2a);
    SL_NOUNROLL
    for (int i = 1; i < SL_KDRIFT_FAST_IT && doneb == 0.0 && okfb != 0.0; i++)
        sl_kdrift_fast_iter(1, m0, h, tol, r0b, etab, betab, &Xb, &lob, &hib, &okfb, &doneb,
                            &G1b, &G2b);
    /* converged to the ulp rather than carried: the series at X (the
     * products of sl_kdrift_fast_end's), so that the ends need none */
    if (donea == 1.0) {
        double cs[4];
        sl_stumpff_series(betaa * Xa * Xa, cs);
        G1a = Xa * cs[1], G2a = Xa * Xa * cs[2], donea = 2.0;
    }
    if (doneb == 1.0) {
        double cs[4];
        sl_stumpff_series(betab * Xb * Xb, cs);
        G1b = Xb * cs[1], G2b = Xb * Xb * cs[2], doneb = 2.0;
    }
    const double oka = sl_kdrift_fast_end(0, m0, 1, qa, ua, r0a, ir0a, etaa, betaa, Xa, okfa,
                                          donea, G1a, G2a);
    const double okb = sl_kdrift_fast_end(0, m0, 1, qb, ub, r0b, ir0b, etab, betab, Xb, okfb,
                                          doneb, G1b, G2b);
    if (va && oka == 0.0)
        sl_kepler_drift_call(m0, h, tol, qa, ua);
    if (vb && okb == 0.0)
        sl_kepler_drift_call(m0, h, tol, qb, ub);
}

/* sl_mvs_gK for a step, the thread's planets two at a time (sl_mvs_gK2). */
SL_HD SL_INLINE void sl_mvs_gK_two(const sl_mvs_group *c, double tol, double h,
                                   sl_mvs_gstate *R)
{
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        R->Q0[d] += h * R->V0[d];
    SL_NOUNROLL
    for (int l = 0; l < c->PL; l += 2) {
        const int lb = l + 1 < c->PL ? l + 1 : l;
        sl_mvs_gK2(c->m0, tol, h, R->q + 3 * l, R->u + 3 * l, sl_mvs_gplanet(c, l) < c->n,
                   R->q + 3 * lb, R->u + 3 * lb, lb != l && sl_mvs_gplanet(c, lb) < c->n);
    }
}

/* The step's drifts: lockstep at one planet a thread (the wide group), two
 * planets at a time at more (variants for benchmarks: SL_MVS_GK_SEQ, one
 * after another; SL_MVS_GK_JOINT, all in lockstep). */
#if defined(SL_MVS_GK_SEQ) /* variant: the drifts one after another */
#define SL_MVS_STEP_K(C, TOL, H, R) sl_mvs_gK(C, TOL, SL_MVS_INLINE, H, R)
#elif defined(SL_MVS_GK_JOINT) /* variant: in lockstep at every width */
#define SL_MVS_STEP_K(C, TOL, H, R) sl_mvs_gK_joint(C, TOL, H, R)
#else
#define SL_MVS_STEP_K(C, TOL, H, R)                                                        \
    ((C)->PL == 1 ? sl_mvs_gK_joint(C, TOL, H, R) : sl_mvs_gK_two(C, TOL, H, R))
#endif

/* The planets' momentum per unit mass of body 0 (sl_mvs_jump_speed), by a
 * product with 1 / m0 where the CPU divides (a division's chain of
 * dependent operations, twice a step, on the path every step waits on;
 * rounding, as the group sum's order is already). */
SL_HD SL_INLINE void sl_mvs_gspeed(const sl_mvs_group *c, const sl_mvs_gstate *R, double w[3])
{
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        double p = 0.0;
        SL_UNROLL
        for (int l = 0; l < c->PL; l++)
            p += c->mi[l] * R->u[3 * l + d];
        w[d] = sl_group_sum(p, c->GT, c->mask) * c->im0;
    }
}

SL_HD SL_INLINE void sl_mvs_gjump(const sl_mvs_group *c, double h, const double w[3],
                                  sl_mvs_gstate *R)
{
    SL_UNROLL
    for (int l = 0; l < c->PL; l++)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            R->q[3 * l + d] += h * w[d];
}

/* The jump by h, then the force's points into shared memory (sl_mvs_J_out:
 * the two share the speed, as the jump leaves V alone). */
SL_HD SL_INLINE void sl_mvs_gjump_publish(const sl_mvs_group *c, double h, sl_mvs_gstate *R,
                                          double *sx, double *sv)
{
    double w[3];
    sl_mvs_gspeed(c, R, w);
    sl_mvs_gjump(c, h, w, R);
    SL_UNROLL
    for (int l = 0; l < c->PL; l++) {
        const int i = sl_mvs_gplanet(c, l);
        if (i >= c->n)
            break;
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            sx[3 * i + d] = R->q[3 * l + d];
            sv[3 * i + d] = R->u[3 * l + d] + w[d];
        }
    }
    if (c->g == 0)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            sx[d] = sv[d] = 0.0;
}

/* The kick by h with the pulls ae, then the jump by hj. */
SL_HD SL_INLINE void sl_mvs_gkick_jump(const sl_mvs_group *c, double h, const double *ae,
                                       double hj, sl_mvs_gstate *R)
{
    SL_UNROLL
    for (int l = 0; l < c->PL; l++)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            R->u[3 * l + d] += h * ae[3 * l + d];
    double w[3];
    sl_mvs_gspeed(c, R, w);
    sl_mvs_gjump(c, hj, w, R);
}

/* (Q, V) in R -> inertial, published to sx, sv (sl_prop_mvs_close_end). */
SL_HD SL_INLINE void sl_mvs_gpublish_inertial(const sl_mvs_group *c, const sl_mvs_gstate *R,
                                              double *sx, double *sv)
{
    double w[3], x0[3];
    sl_mvs_gspeed(c, R, w);
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        double p = 0.0;
        SL_UNROLL
        for (int l = 0; l < c->PL; l++)
            p += c->mi[l] * R->q[3 * l + d];
        x0[d] = R->Q0[d] - sl_group_sum(p, c->GT, c->mask) / c->mt;
    }
    SL_UNROLL
    for (int l = 0; l < c->PL; l++) {
        const int i = sl_mvs_gplanet(c, l);
        if (i >= c->n)
            break;
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            sx[3 * i + d] = R->q[3 * l + d] + x0[d];
            sv[3 * i + d] = R->u[3 * l + d] + R->V0[d];
        }
    }
    if (c->g == 0)
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            sx[d] = x0[d];
            sv[d] = R->V0[d] - w[d];
        }
}

/* The force's rows of the thread's planets at the published points. */
#define SL__MVS_GFORCE_0(F)                                                                \
    SL_UNROLL                                                                              \
    for (int l = 0; l < PL; l++) {                                                         \
        const int i = sl_mvs_gplanet(&c, l);                                               \
        if (i >= n)                                                                        \
            break;                                                                         \
        sl_force_##F##_acc_perturb_at(n, sx, sv, sm, fp, i, ae + 3 * l);                   \
    }
/* The same from the force's pair terms (SL_FORCE_<F>_PAIR: the perturbation
 * is the sum of the pulls between planets): a pair of the thread's own
 * planets is evaluated once for both, a pair with another thread's planet
 * for the own side only, as that thread evaluates it for its side. At 8
 * planets on 2 threads, 22 pair terms a thread instead of acc_perturb_at's
 * 32 (4 x 8: the own body's term is masked, not skipped); Sun + 8 at 16,384
 * copies 5 % faster on the H200. The other threads' planets are
 * visited from the next thread on, so that the group's threads read
 * different rows of shared memory at a time. */
#define SL__MVS_GPAIR(F, i, k, t)                                                          \
    {                                                                                      \
        double d[3], du[3];                                                                \
        SL_UNROLL                                                                          \
        for (int e = 0; e < 3; e++) {                                                      \
            d[e] = sx[3 * (k) + e] - sx[3 * (i) + e];                                      \
            du[e] = sv[3 * (k) + e] - sv[3 * (i) + e];                                     \
        }                                                                                  \
        sl_force_##F##_pair(d, du, fp, t);                                                 \
    }
#define SL__MVS_GFORCE_1(F)                                                                \
    {                                                                                      \
        SL_UNROLL                                                                          \
        for (int k3 = 0; k3 < 3 * PL; k3++)                                                \
            ae[k3] = 0.0;                                                                  \
        SL_UNROLL                                                                          \
        for (int l = 0; l < PL; l++) {                                                     \
            const int i = sl_mvs_gplanet(&c, l);                                           \
            if (i >= n)                                                                    \
                break;                                                                     \
            SL_UNROLL                                                                      \
            for (int l2 = l + 1; l2 < PL; l2++) {                                          \
                const int k = sl_mvs_gplanet(&c, l2);                                      \
                if (k >= n)                                                                \
                    break;                                                                 \
                double t[3];                                                               \
                SL__MVS_GPAIR(F, i, k, t)                                                  \
                const double mk = sm[k], mi = sm[i];                                       \
                SL_UNROLL                                                                  \
                for (int e = 0; e < 3; e++) {                                              \
                    ae[3 * l + e] += mk * t[e];                                            \
                    ae[3 * l2 + e] -= mi * t[e];                                           \
                }                                                                          \
            }                                                                              \
            SL_UNROLL                                                                      \
            for (int j = 1; j < GT; j++) {                                                 \
                const int o = (c.g + j) & (GT - 1);                                        \
                SL_UNROLL                                                                  \
                for (int l2 = 0; l2 < PL; l2++) {                                          \
                    const int k = 1 + o + GT * l2;                                         \
                    if (k >= n)                                                            \
                        break;                                                             \
                    double t[3];                                                           \
                    SL__MVS_GPAIR(F, i, k, t)                                              \
                    const double mk = sm[k];                                               \
                    SL_UNROLL                                                              \
                    for (int e = 0; e < 3; e++)                                            \
                        ae[3 * l + e] += mk * t[e];                                        \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
    }
#define SL__MVS_GFORCE(F) SL__GROUP_FCAT(SL__MVS_GFORCE_, SL_OPT_FLAG(SL_FORCE_##F##_PAIR))(F)

/* Corrector stage st of mode on R (sl_prop_mvs_sync_point/apply). */
#define SL__MVS_GSYNC_STAGES(F, MODE, R)                                                   \
    SL_NOUNROLL                                                                            \
    for (int st = 0; st < sl_prop_mvs_sync_stages(MODE, a->pp); st++) {                    \
        double za, zb;                                                                     \
        sl_mvs_corrector_z((int)sl_mvs_params_of(a->pp)->corrector, st / 2, (MODE) == SL_SYNC_OPEN ? 1.0 : -1.0,     \
                           sl_mvs_params_of(a->pp)->dt, &za, &zb);                                            \
        const double sgn = st % 2 ? 1.0 : -1.0;                                            \
        sl_mvs_gK(&c, tol, SL_MVS_CALL, st % 2 ? -2.0 * za : za, &(R));                    \
        sl_mvs_gjump_publish(&c, 0.5 * sgn * zb, &(R), sx, sv);                            \
        SL__GROUP_SYNC();                                                                  \
        SL__MVS_GFORCE(F)                                                                  \
        SL__GROUP_SYNC();                                                                  \
        sl_mvs_gkick_jump(&c, sgn * zb, ae, 0.5 * sgn * zb, &(R));                         \
        if (st % 2)                                                                        \
            sl_mvs_gK(&c, tol, SL_MVS_CALL, za, &(R));                                     \
    }

/* The persistent entries of the thread's share (mvs.h's layout: Q | V |
 * the pending drift); thread 0 also keeps body 0's and the rest of the
 * drift's block, which the one-thread loop zeroes. */
#define SL__MVS_GPERSIST(LOAD)                                                             \
    {                                                                                      \
        const int np = SL_PROP_mvs_PERSIST;                                                \
        SL_UNROLL                                                                          \
        for (int d = 0; d < 3; d++) {                                                      \
            const size_t iq = sl_persist_index(s, n, np, d),                               \
                         iv = sl_persist_index(s, n, np, 3 * n + d);                       \
            if (LOAD) {                                                                    \
                P.Q0[d] = a->persist[iq];                                                  \
                P.V0[d] = a->persist[iv];                                                  \
            } else if (g == 0) {                                                           \
                a->persist[iq] = P.Q0[d];                                                  \
                a->persist[iv] = P.V0[d];                                                  \
            }                                                                              \
        }                                                                                  \
        SL_UNROLL                                                                          \
        for (int l = 0; l < PL; l++) {                                                     \
            const int i = sl_mvs_gplanet(&c, l);                                           \
            if (i >= n)                                                                    \
                break;                                                                     \
            SL_UNROLL                                                                      \
            for (int d = 0; d < 3; d++) {                                                  \
                const size_t iq = sl_persist_index(s, n, np, 3 * i + d),                   \
                             iv = sl_persist_index(s, n, np, 3 * n + 3 * i + d);           \
                if (LOAD) {                                                                \
                    P.q[3 * l + d] = a->persist[iq];                                       \
                    P.u[3 * l + d] = a->persist[iv];                                       \
                } else {                                                                   \
                    a->persist[iq] = P.q[3 * l + d];                                       \
                    a->persist[iv] = P.u[3 * l + d];                                       \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
        if (LOAD)                                                                          \
            pend = a->persist[sl_persist_index(s, n, np, 6 * n)];                          \
        else if (g == 0)                                                                   \
            for (int k = 0; k < n; k++)                                                    \
                a->persist[sl_persist_index(s, n, np, 6 * n + k)] = k == 0 ? pend : 0.0;   \
    }

/* Close into sx, sv: the pending drift on a copy, the correctors when
 * need is 2, inertial coordinates published; then the rows this thread's
 * monitors check (GL of them, b = g + GT l) into x, v. */
#define SL__MVS_GCLOSE(F, need)                                                            \
    {                                                                                      \
        /* a copy of the entries in use only: the struct holds room for the \
         * narrow loop's planets, and a whole copy put it on the stack */   \
        sl_mvs_gstate C;                                                                   \
        SL_UNROLL                                                                          \
        for (int d = 0; d < 3; d++)                                                        \
            C.Q0[d] = P.Q0[d], C.V0[d] = P.V0[d];                                          \
        SL_UNROLL                                                                          \
        for (int k3 = 0; k3 < 3 * PL; k3++)                                                \
            C.q[k3] = P.q[k3], C.u[k3] = P.u[k3];                                          \
        sl_mvs_gK(&c, tol, SL_MVS_CALL, pend, &C);                                         \
        if ((need) == 2)                                                                   \
            SL__MVS_GSYNC_STAGES(F, SL_SYNC_CLOSE, C)                                      \
        sl_mvs_gpublish_inertial(&c, &C, sx, sv);                                          \
        SL__GROUP_SYNC();                                                                  \
        SL_UNROLL                                                                          \
        for (int l = 0; l < GL; l++) {                                                     \
            const int b = g + GT * l;                                                      \
            SL_UNROLL                                                                      \
            for (int d = 0; d < 3; d++) {                                                  \
                x[3 * l + d] = b < n ? sx[3 * b + d] : 0.0;                                \
                v[3 * l + d] = b < n ? sv[3 * b + d] : 0.0;                                \
            }                                                                              \
        }                                                                                  \
    }

/* The state the run starts from (inertial, from the ensemble) to sx, sv. */
#define SL__MVS_GPUBLISH_START()                                                           \
    SL_UNROLL                                                                              \
    for (int l = 0; l < GL; l++) {                                                         \
        const int b = g + GT * l;                                                          \
        if (b < n)                                                                         \
            SL_UNROLL                                                                      \
            for (int d = 0; d < 3; d++) {                                                  \
                sx[3 * b + d] = a->state[sl_state_at(s, n, b, SL_X + d)];                  \
                sv[3 * b + d] = a->state[sl_state_at(s, n, b, SL_VX + d)];                 \
            }                                                                              \
    }

#define SL_MVS_GROUP_LOOP_DEFINE(F, N, G, NAME)                                            \
    SL_STATIC_ASSERT((N) - 1 <= (G) * SL_MVS_GROUP_PL,                                     \
                     "mvs: " #N " bodies on " #G " threads a system leave a thread more "  \
                     "planets than SL_MVS_GROUP_PL");                                       \
    __device__ __forceinline__ void NAME(const sl_run_args *a, int64_t s, int g, double *sh) \
    {                                                                                      \
        enum { GT = (G), PL = ((N) - 1 + (G) - 1) / (G), GL = ((N) + (G) - 1) / (G) };     \
        const int n = (N);                                                                 \
        if (a->status[s] != SL_SYS_ACTIVE)                                                 \
            return;                                                                        \
        const unsigned gmask = sl_group_mask(GT);                                          \
        double *sx = sh, *sv = sh + 3 * (N), *sm = sh + 6 * (N);                           \
        sl_mvs_group c;                                                                    \
        c.g = g, c.GT = GT, c.PL = PL, c.n = n, c.mask = gmask;                            \
        sl_mvs_gstate P;                                                                   \
        double x[3 * GL], v[3 * GL], ae[3 * PL], fp[SL_FORCE_PARAMS_MAX], pend = 0.0;       \
        double x0[3], v0[3];                                                               \
        c.m0 = a->state[sl_state_at(s, n, 0, SL_M)];                                       \
        c.im0 = 1.0 / c.m0;                                                                \
        SL_UNROLL                                                                          \
        for (int d = 0; d < 3; d++) {                                                      \
            x0[d] = a->state[sl_state_at(s, n, 0, SL_X + d)];                              \
            v0[d] = a->state[sl_state_at(s, n, 0, SL_VX + d)];                             \
        }                                                                                  \
        double mp = 0.0;                                                                   \
        SL_UNROLL                                                                          \
        for (int l = 0; l < PL; l++) {                                                     \
            const int i = sl_mvs_gplanet(&c, l);                                           \
            c.mi[l] = i < n ? a->state[sl_state_at(s, n, i, SL_M)] : 0.0;                  \
            mp += c.mi[l];                                                                 \
            SL_UNROLL                                                                      \
            for (int d = 0; d < 3; d++) {                                                  \
                P.q[3 * l + d] = i < n ? a->state[sl_state_at(s, n, i, SL_X + d)] : 0.0;   \
                P.u[3 * l + d] = i < n ? a->state[sl_state_at(s, n, i, SL_VX + d)] : 0.0;  \
                ae[3 * l + d] = 0.0;                                                       \
            }                                                                              \
            if (i < n)                                                                     \
                sm[i] = c.mi[l];                                                           \
        }                                                                                  \
        if (g == 0)                                                                        \
            sm[0] = c.m0;                                                                  \
        SL__MVS_GPUBLISH_START()                                                           \
        c.mt = c.m0 + sl_group_sum(mp, GT, gmask);                                         \
        sl_load_fp(a, s, fp);                                                              \
        const double tol = SL_MVS_TOL(a->pp);                                              \
        SL__GROUP_SYNC();                                                                  \
        if (a->first_launch) {                                                             \
            /* sl_mvs_to_dh: (Q_0, V_0) the centre of mass, Q_i heliocentric, \
             * V_i barycentric (begin does nothing) */                          \
            SL_UNROLL                                                                      \
            for (int d = 0; d < 3; d++) {                                                  \
                double pc = 0.0, pu = 0.0;                                                 \
                SL_UNROLL                                                                  \
                for (int l = 0; l < PL; l++) {                                             \
                    pc += c.mi[l] * P.q[3 * l + d];                                        \
                    pu += c.mi[l] * P.u[3 * l + d];                                        \
                }                                                                          \
                P.Q0[d] = (c.m0 * x0[d] + sl_group_sum(pc, GT, gmask)) / c.mt;             \
                P.V0[d] = (c.m0 * v0[d] + sl_group_sum(pu, GT, gmask)) / c.mt;             \
                SL_UNROLL                                                                  \
                for (int l = 0; l < PL; l++) {                                             \
                    P.q[3 * l + d] -= x0[d];                                               \
                    P.u[3 * l + d] -= P.V0[d];                                             \
                }                                                                          \
            }                                                                              \
            SL__MVS_GSYNC_STAGES(F, SL_SYNC_OPEN, P)                                       \
            /* the correctors' force points overwrote the published state,   \
             * which a launch without steps would store */                   \
            SL__GROUP_SYNC();                                                              \
            SL__MVS_GPUBLISH_START()                                                       \
            SL__GROUP_SYNC();                                                              \
        } else {                                                                           \
            SL__MVS_GPERSIST(1)                                                            \
        }                                                                                  \
        double t = a->time[s];                                                             \
        int64_t step = a->steps[s];                                                        \
        const double t0 = a->t_start[s];                                                   \
        const int64_t k0 = a->step_start[s];                                               \
        double next_log = a->mon.log_every_dt > 0.0 ? a->next_log[s] : 0.0;                \
        int why = SL_REASON_NONE, detail = -1;                                             \
        const double dt = a->pp[SL_PP_DT];                                                        \
        const int64_t n_need = sl_steps_needed(t0, a->t_end, dt);                          \
        for (int64_t k = 0; k < a->launch_steps && step - k0 < n_need; k++) {              \
            const int64_t j = step - k0 + 1;                                               \
            const double t_next = sl_step_time(t0, a->t_end, dt, j, n_need);               \
            const double h = j < n_need ? dt : t_next - t;                                 \
            SL_MVS_STEP_K(&c, tol, h > 0.0 ? pend + 0.5 * h : 0.0, &P);                      \
            sl_mvs_gjump_publish(&c, 0.5 * h, &P, sx, sv);                                 \
            SL__GROUP_SYNC();                                                              \
            SL__MVS_GFORCE(F)                                                              \
            SL__GROUP_SYNC();                                                              \
            sl_mvs_gkick_jump(&c, h, ae, 0.5 * h, &P);                                     \
            pend = h > 0.0 ? 0.5 * h : pend;                                               \
            int need = sl_sync_need(a, t_next, step + 1, k0, next_log,                     \
                                    k == a->launch_steps - 1 || j == n_need);              \
            if (!need && a->mon.check_nonfinite) {                                         \
                double z = pend * 0.0;                                                     \
                SL_UNROLL                                                                  \
                for (int d = 0; d < 3; d++)                                                \
                    z += P.Q0[d] * 0.0 + P.V0[d] * 0.0;                                    \
                SL_UNROLL                                                                  \
                for (int k3 = 0; k3 < 3 * PL; k3++)                                        \
                    z += P.q[k3] * 0.0 + P.u[k3] * 0.0;                                    \
                need = sl_group_any(z != 0.0, GT, gmask);                                  \
            }                                                                              \
            t = t_next;                                                                    \
            step++;                                                                        \
            if (!need)                                                                     \
                continue;                                                                  \
            SL__MVS_GCLOSE(F, need)                                                        \
            SL__GROUP_CHECKS(F)                                                            \
            SL__GROUP_SYNC();                                                              \
        }                                                                                  \
        SL__GROUP_SYNC();                                                                  \
        SL__MVS_GPERSIST(0)                                                                \
        if (g == 0) {                                                                      \
            if (a->mon.log_every_dt > 0.0)                                                 \
                a->next_log[s] = next_log;                                                 \
            sl_finish_system(a, s, n, t, step, why, detail, sx, sv);                       \
        }                                                                                  \
    }

#endif /* __CUDACC__ */

#endif
