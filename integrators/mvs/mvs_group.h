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
/* The force rows are the planets' (the kick's perturbation). */
#define SL_PROP_mvs_GROUP_FIRST 1
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

/* The general drift, called, on copies: the call takes addresses, which
 * would put the whole share (the loop's sl_prop_mvs_gshare) in local
 * memory. */
SL_HD SL_INLINE void sl_mvs_gdrift_call(double m0, double h, double tol, double *q, double *u)
{
    double qq[3], uu[3];
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        qq[d] = q[d], uu[d] = u[d];
    sl_kepler_drift_call(m0, h, tol, qq, uu);
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        q[d] = qq[d], u[d] = uu[d];
}

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
            continue;
        if (how == SL_MVS_CALL)
            sl_mvs_gdrift_call(c->m0, h, tol, R->q + 3 * l, R->u + 3 * l);
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
        if (ok == 0.0)
            sl_mvs_gdrift_call(c->m0, h, tol, R->q + 3 * l, R->u + 3 * l);
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
        sl_mvs_gdrift_call(m0, h, tol, qa, ua);
    if (vb && okb == 0.0)
        sl_mvs_gdrift_call(m0, h, tol, qb, ub);
}

/* sl_mvs_gK for a step, the thread's planets two at a time (sl_mvs_gK2),
 * written out for up to SL_MVS_GROUP_PL = 4 planets: a loop over the pairs
 * indexes the share with a variable, which puts all of it in local
 * memory. */
SL_HD SL_INLINE void sl_mvs_gK_two(const sl_mvs_group *c, double tol, double h,
                                   sl_mvs_gstate *R)
{
    SL_STATIC_ASSERT(SL_MVS_GROUP_PL == 4, "sl_mvs_gK_two drifts up to 4 planets");
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        R->Q0[d] += h * R->V0[d];
    sl_mvs_gK2(c->m0, tol, h, R->q, R->u, sl_mvs_gplanet(c, 0) < c->n, R->q + 3, R->u + 3,
               c->PL > 1 && sl_mvs_gplanet(c, 1) < c->n);
    if (c->PL > 2)
        sl_mvs_gK2(c->m0, tol, h, R->q + 6, R->u + 6, sl_mvs_gplanet(c, 2) < c->n, R->q + 9,
                   R->u + 9, c->PL > 3 && sl_mvs_gplanet(c, 3) < c->n);
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

/* (Q, V) in R -> inertial, published to sx, sv (sl_prop_mvs_close_end).
 * The planets' rows go through registers and sl_group_publish: stored
 * straight from R under the test for a row past the last planet, the
 * share stayed in local memory (the narrow loop, 736 bytes of it). */
SL_HD SL_INLINE void sl_mvs_gpublish_inertial(const sl_mvs_group *c, const sl_mvs_gstate *R,
                                              double *sx, double *sv)
{
    double w[3], x0[3], xr[3 * SL_MVS_GROUP_PL], vr[3 * SL_MVS_GROUP_PL];
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
    for (int l = 0; l < c->PL; l++)
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            xr[3 * l + d] = R->q[3 * l + d] + x0[d];
            vr[3 * l + d] = R->u[3 * l + d] + R->V0[d];
        }
    sl_group_publish(c->n, c->g, c->GT, c->PL, 1, xr, vr, sx, sv);
    if (c->g == 0)
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            sx[d] = x0[d];
            sv[d] = R->V0[d] - w[d];
        }
}

/* ---- The stepper of the core's grouped loop (internal/group.h) -------- */

/* Every width of the tables leaves a thread at most SL_MVS_GROUP_PL
 * planets. */
#define SL__MVS_FITS(N, G) ((N) - 1 <= (G) * SL_MVS_GROUP_PL)
SL_STATIC_ASSERT(SL__MVS_FITS(8, SL_PROP_mvs_GROUP_NARROW_8) &&
                     SL__MVS_FITS(9, SL_PROP_mvs_GROUP_NARROW_9) &&
                     SL__MVS_FITS(8, SL_PROP_mvs_GROUP_THREADS_8) &&
                     SL__MVS_FITS(16, SL_PROP_mvs_GROUP_THREADS_16),
                 "mvs: a width of the group tables leaves a thread more planets than "
                 "SL_MVS_GROUP_PL");
#undef SL__MVS_FITS

/* The thread's share: its planets' (Q, V) in P (body 0's, the centre of
 * mass, kept by every thread alike), the copy a close works on in C, the
 * group's masses (c), the drift still pending from the last step, the
 * Kepler tolerance, body 0's start (x0, v0, for the first launch) and the
 * corrector stage's coefficients (za, zb, from its point to its apply). */
typedef struct sl_prop_mvs_gshare {
    sl_mvs_group c;
    sl_mvs_gstate P, C;
    double pend, tol, za, zb, x0[3], v0[3];
} sl_prop_mvs_gshare;

/* The thread's place and the group's masses as the helpers above take
 * them: the counts from the loop's constants (gc), so that they stay
 * constants for the unrolled loops; the masses from the share. */
SL_HD SL_INLINE sl_mvs_group sl_mvs_gctx(const sl_group *gc, const sl_prop_mvs_gshare *w)
{
    sl_mvs_group c = w->c;
    c.g = gc->g, c.GT = gc->GT, c.PL = (gc->n - 1 + gc->GT - 1) / gc->GT, c.n = gc->n;
    c.mask = gc->mask;
    return c;
}

/* The start (inertial, from the ensemble) of bodies g + GT l into sx, sv. */
SL_HD SL_INLINE void sl_mvs_gpublish_start(const sl_run_args *a, int64_t s, const sl_group *gc,
                                           double *sx, double *sv)
{
    const int n = gc->n, GL = (n + gc->GT - 1) / gc->GT;
    SL_UNROLL
    for (int l = 0; l < GL; l++) {
        const int b = gc->g + gc->GT * l;
        if (b < n)
            SL_UNROLL
            for (int d = 0; d < 3; d++) {
                sx[3 * b + d] = a->state[sl_state_at(s, n, b, SL_X + d)];
                sv[3 * b + d] = a->state[sl_state_at(s, n, b, SL_VX + d)];
            }
    }
}

SL_HD SL_INLINE void sl_prop_mvs_gload(const sl_run_args *a, int64_t s, const sl_group *gc,
                                       sl_prop_mvs_gshare *w, double *x, double *v, double *sx,
                                       double *sv, double *sm)
{
    (void)x, (void)v;
    const int n = gc->n, GT = gc->GT, PL = (n - 1 + GT - 1) / GT;
    sl_mvs_group *c = &w->c;
    w->pend = 0.0;
    c->m0 = a->state[sl_state_at(s, n, 0, SL_M)];
    c->im0 = 1.0 / c->m0;
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        w->x0[d] = a->state[sl_state_at(s, n, 0, SL_X + d)];
        w->v0[d] = a->state[sl_state_at(s, n, 0, SL_VX + d)];
    }
    double mp = 0.0;
    SL_UNROLL
    for (int l = 0; l < PL; l++) {
        const int i = 1 + gc->g + GT * l;
        c->mi[l] = i < n ? a->state[sl_state_at(s, n, i, SL_M)] : 0.0;
        mp += c->mi[l];
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            w->P.q[3 * l + d] = i < n ? a->state[sl_state_at(s, n, i, SL_X + d)] : 0.0;
            w->P.u[3 * l + d] = i < n ? a->state[sl_state_at(s, n, i, SL_VX + d)] : 0.0;
        }
        if (i < n)
            sm[i] = c->mi[l];
    }
    if (gc->g == 0)
        sm[0] = c->m0;
    sl_mvs_gpublish_start(a, s, gc, sx, sv);
    c->mt = c->m0 + sl_group_sum(mp, GT, gc->mask);
    w->tol = SL_MVS_TOL(a->pp);
}

/* One stage a step; the correctors' (mvs.h, sl_prop_mvs_sync_stages) to
 * open and to close. */
SL_HD SL_INLINE int sl_prop_mvs_gstages(int mode, const double *pp)
{
    return mode == SL_GROUP_STEP ? 1 : sl_prop_mvs_sync_stages(mode, pp);
}

/* sl_mvs_to_dh: (Q_0, V_0) the centre of mass, Q_i heliocentric, V_i
 * barycentric (begin does nothing). */
SL_HD SL_INLINE void sl_prop_mvs_gbegin(const sl_run_args *a, const sl_group *gc,
                                        sl_prop_mvs_gshare *w)
{
    (void)a;
    const sl_mvs_group c = sl_mvs_gctx(gc, w);
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        double pc = 0.0, pu = 0.0;
        SL_UNROLL
        for (int l = 0; l < c.PL; l++) {
            pc += c.mi[l] * w->P.q[3 * l + d];
            pu += c.mi[l] * w->P.u[3 * l + d];
        }
        w->P.Q0[d] = (c.m0 * w->x0[d] + sl_group_sum(pc, gc->GT, gc->mask)) / c.mt;
        w->P.V0[d] = (c.m0 * w->v0[d] + sl_group_sum(pu, gc->GT, gc->mask)) / c.mt;
        SL_UNROLL
        for (int l = 0; l < c.PL; l++) {
            w->P.q[3 * l + d] -= w->x0[d];
            w->P.u[3 * l + d] -= w->P.V0[d];
        }
    }
}

/* The jump by h, then the force's points: Q_i, and V_i plus the jump's
 * speed (sl_mvs_J_out: the two share the speed, as the jump leaves V
 * alone); body 0 at the origin, at rest. */
SL_HD SL_INLINE void sl_mvs_gjump_points(const sl_mvs_group *c, double h, sl_mvs_gstate *R,
                                         double *xe, double *ve, double *sx, double *sv)
{
    double w[3];
    sl_mvs_gspeed(c, R, w);
    sl_mvs_gjump(c, h, w, R);
    SL_UNROLL
    for (int l = 0; l < c->PL; l++)
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            xe[3 * l + d] = R->q[3 * l + d];
            ve[3 * l + d] = R->u[3 * l + d] + w[d];
        }
    if (c->g == 0)
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            sx[d] = sv[d] = 0.0;
}

/* Corrector stage st of mode on R (sl_prop_mvs_sync_point/apply): the
 * point half, and the apply half with the pulls ae. */
SL_HD SL_INLINE void sl_mvs_gsync_point(const sl_run_args *a, const sl_mvs_group *c,
                                        sl_prop_mvs_gshare *w, int mode, int st,
                                        sl_mvs_gstate *R, double *xe, double *ve, double *sx,
                                        double *sv)
{
    sl_mvs_corrector_z((int)sl_mvs_params_of(a->pp)->corrector, st / 2,
                       mode == SL_SYNC_OPEN ? 1.0 : -1.0, sl_mvs_params_of(a->pp)->dt, &w->za,
                       &w->zb);
    const double sgn = st % 2 ? 1.0 : -1.0;
    sl_mvs_gK(c, w->tol, SL_MVS_CALL, st % 2 ? -2.0 * w->za : w->za, R);
    sl_mvs_gjump_points(c, 0.5 * sgn * w->zb, R, xe, ve, sx, sv);
}

SL_HD SL_INLINE void sl_mvs_gsync_apply(const sl_mvs_group *c, sl_prop_mvs_gshare *w, int st,
                                        sl_mvs_gstate *R, const double *ae)
{
    const double sgn = st % 2 ? 1.0 : -1.0;
    sl_mvs_gkick_jump(c, sgn * w->zb, ae, 0.5 * sgn * w->zb, R);
    if (st % 2)
        sl_mvs_gK(c, w->tol, SL_MVS_CALL, w->za, R);
}

/* A step: the drifts (the pending one and half of this one), the jump by
 * h/2 and the kick's points; the open's correctors work on P, a close's on
 * its copy C. */
SL_HD SL_INLINE void sl_prop_mvs_gpoint(const sl_run_args *a, const sl_group *gc,
                                        sl_prop_mvs_gshare *w, int mode, int st, double h,
                                        const double *x, const double *v, double *xe,
                                        double *ve, double *sx, double *sv)
{
    (void)x, (void)v;
    const sl_mvs_group c = sl_mvs_gctx(gc, w);
    if (mode == SL_GROUP_STEP) {
        SL_MVS_STEP_K(&c, w->tol, h > 0.0 ? w->pend + 0.5 * h : 0.0, &w->P);
        sl_mvs_gjump_points(&c, 0.5 * h, &w->P, xe, ve, sx, sv);
    } else if (mode == SL_SYNC_OPEN) {
        sl_mvs_gsync_point(a, &c, w, mode, st, &w->P, xe, ve, sx, sv);
    } else {
        sl_mvs_gsync_point(a, &c, w, mode, st, &w->C, xe, ve, sx, sv);
    }
}

/* The kick by h with the pulls ae, the jump by h/2; half the step's drift
 * stays pending. */
SL_HD SL_INLINE void sl_prop_mvs_gapply(const sl_run_args *a, const sl_group *gc,
                                        sl_prop_mvs_gshare *w, int mode, int st, double h,
                                        double *x, double *v, const double *ae,
                                        const double *je)
{
    (void)a, (void)x, (void)v, (void)je;
    const sl_mvs_group c = sl_mvs_gctx(gc, w);
    if (mode == SL_GROUP_STEP) {
        sl_mvs_gkick_jump(&c, h, ae, 0.5 * h, &w->P);
        w->pend = h > 0.0 ? 0.5 * h : w->pend;
    } else if (mode == SL_SYNC_OPEN) {
        sl_mvs_gsync_apply(&c, w, st, &w->P, ae);
    } else {
        sl_mvs_gsync_apply(&c, w, st, &w->C, ae);
    }
}

/* The correctors' force points overwrote the published state, which a
 * launch without steps would store. */
SL_HD SL_INLINE void sl_prop_mvs_gopened(const sl_run_args *a, int64_t s, const sl_group *gc,
                                         sl_prop_mvs_gshare *w, double *sx, double *sv)
{
    (void)w;
    sl_group_sync(gc->mask);
    sl_mvs_gpublish_start(a, s, gc, sx, sv);
    sl_group_sync(gc->mask);
}

/* The persistent entries of the thread's share (mvs.h's layout: Q | V |
 * the pending drift); thread 0 also keeps body 0's and the rest of the
 * drift's block, which the one-thread loop zeroes. */
SL_HD SL_INLINE void sl_prop_mvs_gpersist(const sl_run_args *a, int64_t s, const sl_group *gc,
                                          sl_prop_mvs_gshare *w, int load)
{
    const int n = gc->n, np = SL_PROP_mvs_PERSIST;
    SL_UNROLL
    for (int d = 0; d < 3; d++) {
        const size_t iq = sl_persist_index(s, n, np, d), iv = sl_persist_index(s, n, np, 3 * n + d);
        if (load) {
            w->P.Q0[d] = a->persist[iq];
            w->P.V0[d] = a->persist[iv];
        } else if (gc->g == 0) {
            a->persist[iq] = w->P.Q0[d];
            a->persist[iv] = w->P.V0[d];
        }
    }
    const sl_mvs_group c = sl_mvs_gctx(gc, w);
    SL_UNROLL
    for (int l = 0; l < c.PL; l++) {
        const int i = sl_mvs_gplanet(&c, l);
        if (i >= n)
            break;
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            const size_t iq = sl_persist_index(s, n, np, 3 * i + d),
                         iv = sl_persist_index(s, n, np, 3 * n + 3 * i + d);
            if (load) {
                w->P.q[3 * l + d] = a->persist[iq];
                w->P.u[3 * l + d] = a->persist[iv];
            } else {
                a->persist[iq] = w->P.q[3 * l + d];
                a->persist[iv] = w->P.u[3 * l + d];
            }
        }
    }
    if (load)
        w->pend = a->persist[sl_persist_index(s, n, np, 6 * n)];
    else if (gc->g == 0)
        for (int k = 0; k < n; k++)
            a->persist[sl_persist_index(s, n, np, 6 * n + k)] = k == 0 ? w->pend : 0.0;
}

/* What the loop needs after a step (sl_sync_need), and a look at a
 * non-finite working state when nothing else is due. */
SL_HD SL_INLINE int sl_prop_mvs_gneed(const sl_run_args *a, const sl_group *gc,
                                      sl_prop_mvs_gshare *w, double t_next, int64_t step_next,
                                      int64_t k0, double next_log, int last)
{
    int need = sl_sync_need(a, t_next, step_next, k0, next_log, last);
    if (!need && a->mon.check_nonfinite) {
        double z = w->pend * 0.0;
        SL_UNROLL
        for (int d = 0; d < 3; d++)
            z += w->P.Q0[d] * 0.0 + w->P.V0[d] * 0.0;
        const int PL = (gc->n - 1 + gc->GT - 1) / gc->GT;
        SL_UNROLL
        for (int k3 = 0; k3 < 3 * PL; k3++)
            z += w->P.q[k3] * 0.0 + w->P.u[k3] * 0.0;
        need = sl_group_any(z != 0.0, gc->GT, gc->mask);
    }
    return need;
}

/* A close starts from a copy with the pending drift done (a copy of the
 * entries in use only: the struct holds room for the narrow loop's
 * planets, and a whole copy put it on the stack). */
SL_HD SL_INLINE void sl_prop_mvs_gclose(const sl_run_args *a, const sl_group *gc,
                                        sl_prop_mvs_gshare *w, int need)
{
    (void)a, (void)need;
    const sl_mvs_group c = sl_mvs_gctx(gc, w);
    SL_UNROLL
    for (int d = 0; d < 3; d++)
        w->C.Q0[d] = w->P.Q0[d], w->C.V0[d] = w->P.V0[d];
    SL_UNROLL
    for (int k3 = 0; k3 < 3 * c.PL; k3++)
        w->C.q[k3] = w->P.q[k3], w->C.u[k3] = w->P.u[k3];
    sl_mvs_gK(&c, w->tol, SL_MVS_CALL, w->pend, &w->C);
}

/* The closed copy in inertial coordinates into sx, sv, then the rows this
 * thread's monitors check (b = g + GT l) into x, v. */
SL_HD SL_INLINE int sl_prop_mvs_gclosed(const sl_run_args *a, const sl_group *gc,
                                        sl_prop_mvs_gshare *w, double *x, double *v, double *sx,
                                        double *sv)
{
    (void)a;
    const int n = gc->n, GL = (n + gc->GT - 1) / gc->GT;
    const sl_mvs_group c = sl_mvs_gctx(gc, w);
    sl_mvs_gpublish_inertial(&c, &w->C, sx, sv);
    sl_group_sync(gc->mask);
    SL_UNROLL
    for (int l = 0; l < GL; l++) {
        const int b = gc->g + gc->GT * l;
        SL_UNROLL
        for (int d = 0; d < 3; d++) {
            x[3 * l + d] = b < n ? sx[3 * b + d] : 0.0;
            v[3 * l + d] = b < n ? sv[3 * b + d] : 0.0;
        }
    }
    return 1;
}

/* The last close (every launch ends with one) left the state in sx, sv. */
SL_HD SL_INLINE void sl_prop_mvs_gend(const sl_run_args *a, const sl_group *gc,
                                      sl_prop_mvs_gshare *w, const double *x, const double *v,
                                      double *sx, double *sv)
{
    (void)a, (void)gc, (void)w, (void)x, (void)v, (void)sx, (void)sv;
}

#endif /* __CUDACC__ */

#endif
