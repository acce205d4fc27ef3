/* Internal: the grouped CUDA loop, G threads per system, for systems too
 * large for one thread's registers (docs/ARCHITECTURE.md, "Many bodies: a
 * group of threads per system").
 *
 * One thread holding a whole system of N bodies keeps x, v, the stage
 * points, forces and the integrator's working array in registers: about 30
 * doubles per body for Hermite, past the 255 registers a thread has from N
 * = 5 on, so larger systems spill to local memory and run 4x less
 * efficiently per body pair at N = 16. Here a system is G threads of one
 * warp; thread g owns bodies g, g + G, g + 2G, ... and keeps only their
 * state. Each force evaluation publishes the owned stage points to shared
 * memory, and every thread sums the pull on its own bodies from all N
 * (the force's *_at functions), or, at one body per thread and a force with
 * pair terms, evaluates half the pairs and passes the reactions on
 * (SL__GROUP_FORCE_PAIRS). Monitors, logs and the energy check read
 * the published state, every thread of the group alike, so the group
 * agrees on every stop without a vote.
 *
 * Which (integrator, force, N) run this way is decided at build time
 * (instantiate.h, SL_GROUP_USE): the integrator's stages act on each body
 * on its own (SL_PROP_<P>_BODYWISE), it is fixed-step and not SYNC, the
 * force has the *_at functions (SL_FORCE_<F>_AT), and the table
 * SL_GROUP_THREADS_<N> gives more than one thread for N. The kernel's name
 * and table entry are the thread-per-system kernel's: nothing else
 * changes. */
#ifndef STARLING_INTERNAL_GROUP_H
#define STARLING_INTERNAL_GROUP_H

#include "starling/internal/loop.h"

/* Threads per system by body count, chosen on the H100 and H200 from runs
 * with and without monitors: 1 is one thread per system. Powers of 2 up
 * to 32. */
#define SL_GROUP_THREADS_2 1
#define SL_GROUP_THREADS_3 1
#define SL_GROUP_THREADS_4 1
#define SL_GROUP_THREADS_5 1
#define SL_GROUP_THREADS_6 1
#define SL_GROUP_THREADS_7 1
#define SL_GROUP_THREADS_8 8
#define SL_GROUP_THREADS_9 4
#define SL_GROUP_THREADS_10 4
#define SL_GROUP_THREADS_11 4
#define SL_GROUP_THREADS_12 4
#define SL_GROUP_THREADS_13 16
#define SL_GROUP_THREADS_14 16
#define SL_GROUP_THREADS_15 16
#define SL_GROUP_THREADS_16 16

/* Blocks of 128 threads an SM should hold at once, for G threads per
 * system: caps a grouped kernel's registers (65536 / (128 * 4) = 128 for
 * 8 and 16 threads per system, 256 for the others). Its monitors, unrolled
 * for N, would otherwise take registers the step needs for occupancy;
 * chosen the way SL_GROUP_THREADS_<N> is. G = 8 (only
 * N = 8, one body a thread, pair terms) gained 12 % with the monitors and
 * 2 % without from 2 blocks to 4 on the H200. */
#if !defined(SL_GROUP_MIN_BLOCKS) /* a compile definition may set it, for benchmarks */
#define SL_GROUP_MIN_BLOCKS(G) ((G) >= 8 ? 4 : 2)
#endif

/* Doubles of shared memory per system at G threads a system: x, v (3N
 * each) and m (N), padded to an odd multiple of G (the least >= 7N that is
 * G mod 2G). A warp's 64-bit shared loads are served a half-warp at a
 * time, 16 doubles wide, so a half-warp's 16 / G systems must fall on
 * disjoint banks in the three ways the loops read: every thread of a
 * system the same body (the *_at sums, monitors), each thread its own
 * bodies g + G l, and at one body a thread each thread the body g + k
 * (the pair terms). With body b's component c at 3b + c, those rows of one
 * system fill the banks {3b + c} for G consecutive b, and a stride of G
 * mod 2G lays the half-warp's other systems on the banks left free. An
 * odd stride leaves N = 8's pair loads (G = 8) two-way conflicted, and
 * Hermite there runs 1.47x faster without the conflicts (H200). */
#define SL_GROUP_STRIDE(N, G)                                                              \
    (7 * (N) + (3 * (G) - (7 * (N)) % (2 * (G))) % (2 * (G)))

/* Where a loop evaluates pair terms (one body a thread, SL__GROUP_FORCE_PAIRS)
 * at up to 8 threads a system (SL_GROUP_XCHG), each thread passes the terms
 * of its pairs (g, g + k), k < G/2, to thread g + k through an exchange
 * block after the system's x, v and m: a row per receiving thread, the
 * terms of each k at NT (k - 1), NT = 6 with the jerk, 3 without. Rows of
 * odd length and a block a multiple of 2G long keep the writes (thread g
 * to row g + k) and the reads (thread g its own row) of a half-warp on
 * disjoint banks, as SL_GROUP_STRIDE does for the points. Through shared
 * memory rather than shuffles: a shuffle moves 32 bits, so the terms took
 * 72 shuffles a Hermite step at N = 8, with the moves and convergence
 * checks around them, against 18 stores, a barrier and 18 loads (1.05x on
 * the H200). At 16 threads the block is
 * 704 doubles a system, four blocks of 128 threads take 208 KB of an SM's
 * shared memory and leave the L1 too little for the kernel's spills:
 * Hermite N = 16 with the close-encounter monitor ran 0.90x, so there the
 * terms still go by shuffles. */
#define SL_GROUP_XCHG(G) ((G) <= 8)
#define SL_GROUP_XROW(P, G) (((SL_PROP_##P##_JERK ? 6 : 3) * ((G) / 2 - 1)) | 1)
#define SL_GROUP_XLEN(P, G) (((G) * SL_GROUP_XROW(P, G) + 2 * (G) - 1) / (2 * (G)) * (2 * (G)))
/* Doubles of shared memory a system of SL_GROUP_LOOP_DEFINE's loop takes. */
#define SL_GROUP_LOOP_STRIDE(P, F, N, G)                                                   \
    (SL_GROUP_STRIDE(N, G) + (SL_OPT_FLAG(SL_FORCE_##F##_PAIR) && (G) == (N) && SL_GROUP_XCHG(G) \
                                  ? SL_GROUP_XLEN(P, G)                                    \
                                  : 0))

/* Whether integrator P and force F can run grouped, as a literal: P's
 * stages are per body (BODYWISE), fixed-step (ADAPTIVE 0) and plain (SYNC
 * 0); F has the *_at functions. */
#define SL__GROUP_OK_1001 ~, 1
#define SL__GROUP_OK_(b, ad, sy, at) SL__PROBE(SL__GROUP_OK_##b##ad##sy##at)
#define SL__GROUP_OK(b, ad, sy, at) SL__GROUP_OK_(b, ad, sy, at)
#define SL_GROUP_OK(P, F)                                                                  \
    SL__GROUP_OK(SL_OPT_FLAG(SL_PROP_##P##_BODYWISE), SL_PROP_##P##_ADAPTIVE,              \
                 SL_PROP_##P##_SYNC, SL_OPT_FLAG(SL_FORCE_##F##_AT))
/* Whether (P, F, N) runs grouped: SL_GROUP_OK and more than one thread. */
#define SL__GROUP_USE_1_2 ~, 1
#define SL__GROUP_USE_1_4 ~, 1
#define SL__GROUP_USE_1_8 ~, 1
#define SL__GROUP_USE_1_16 ~, 1
#define SL__GROUP_USE_1_32 ~, 1
#define SL__GROUP_USE_(ok, g) SL__PROBE(SL__GROUP_USE_##ok##_##g)
#define SL__GROUP_USE(ok, g) SL__GROUP_USE_(ok, g)
#define SL__GROUP_CAT_(a, b) a##b
#define SL__GROUP_CAT(a, b) SL__GROUP_CAT_(a, b)
#define SL_GROUP_THREADS(N) SL__GROUP_CAT(SL_GROUP_THREADS_, N)
#define SL_GROUP_USE(P, F, N) SL__GROUP_USE(SL_GROUP_OK(P, F), SL_GROUP_THREADS(N))

/* SL_GROUP_PICK(C, T, E, args...): T(args...) when C is 1, else E(args...)
 * (own pasting: it expands inside instantiate.h's SL_WHEN). SL_GROUP_PICK2
 * is the same, for a pick inside a pick's expansion. */
#define SL__GROUP_PICK_1(T, E, ...) T(__VA_ARGS__)
#define SL__GROUP_PICK_0(T, E, ...) E(__VA_ARGS__)
#define SL_GROUP_PICK(C, T, E, ...) SL__GROUP_CAT(SL__GROUP_PICK_, C)(T, E, __VA_ARGS__)
#define SL__GROUP_PICK2_1(T, E, ...) T(__VA_ARGS__)
#define SL__GROUP_PICK2_0(T, E, ...) E(__VA_ARGS__)
#define SL_GROUP_PICK2(C, T, E, ...) SL__GROUP_CAT(SL__GROUP_PICK2_, C)(T, E, __VA_ARGS__)

/* An integrator whose stages are not per body (mvs: the jump sums the
 * planets' momenta, the kick needs the planets' mutual pulls) can bring
 * its own grouped loop, written with the helpers below (publish, monitors,
 * group sums). It declares
 *   SL_PROP_<P>_GROUP_LOOP 1;
 *   SL_PROP_<P>_GROUP_THREADS_<N>: threads per system (a power of 2 from 2
 *       to 32) for each N it groups, none for the others;
 *   SL_PROP_<P>_GROUP_NARROW_<N>: a second, narrower width for the same N
 *       (fewer threads a system, more planets a thread: a system's latency
 *       is higher, but twice the systems fit on the device), 0 for none;
 *       2, 4 or 8 stamps a second grouped kernel;
 *   SL_PROP_<P>_GROUP_FORCE(F): 1 when force F has what its loop calls;
 *   SL_PROP_<P>_GROUP_DEFINE(P, F, N, G, NAME): defines the loop for G
 *       threads a system as
 *       NAME(const sl_run_args *a, int64_t s, int g, double *sh),
 *       as SL_GROUP_LOOP_DEFINE does, sh SL_GROUP_STRIDE(N, G) doubles;
 *   int sl_prop_<P>_group_threads(const double *pp, int64_t n_sys, int sms,
 *                                 int wide, int narrow):
 *       the threads a system for a launch of n_sys systems with these
 *       parameters on a device of sms multiprocessors: wide
 *       (_GROUP_THREADS_<N>), narrow (_GROUP_NARROW_<N>, when not 0) or
 *       0 for one thread a system (mvs: 0 in Jacobi coordinates; wide up
 *       to 64 systems a multiprocessor, narrow to 128, then 0).
 * instantiate.h then stamps the kernels for (P, F, N), and the launcher
 * picks one per run from pp and the ensemble's size. */
#define SL__GROUP_OWN_0(P, F, N) 0
#define SL__GROUP_OWN_1(P, F, N)                                                           \
    SL__GROUP_USE(SL_PROP_##P##_GROUP_FORCE(F), SL_PROP_##P##_GROUP_THREADS_##N)
#define SL_GROUP_OWN(P, F, N)                                                              \
    SL__GROUP_CAT(SL__GROUP_OWN_, SL_OPT_FLAG(SL_PROP_##P##_GROUP_LOOP))(P, F, N)

#if defined(__CUDACC__)

/* The *_at call the stages need, on JERK: the pull (and jerk) on body i
 * from every body, arrays in shared memory (S = 1). */
#define SL_FORCE_AT_1(F, n, x, v, m, fp, i, acc, jerk)                                     \
    sl_force_##F##_acc_jerk_at(n, x, v, m, fp, i, acc, jerk)
#define SL_FORCE_AT_0(F, n, x, v, m, fp, i, acc, jerk) sl_force_##F##_acc_at(n, x, v, m, fp, i, acc)
#define SL_FORCE_AT(F, P, ...) SL_CAT(SL_FORCE_AT_, SL_PROP_##P##_JERK)(F, __VA_ARGS__)

/* The group's lanes in the warp, for __syncwarp: G consecutive lanes
 * starting at a multiple of G. */
SL_HD SL_INLINE unsigned sl_group_mask(int G)
{
#if defined(__CUDA_ARCH__)
    if (G >= 32)
        return 0xffffffffu;
    return ((1u << G) - 1u) << ((threadIdx.x & 31u) & ~(unsigned)(G - 1));
#else
    return (unsigned)G;
#endif
}

#if defined(__CUDA_ARCH__)
#define SL__GROUP_SYNC() __syncwarp(gmask)
#else
#define SL__GROUP_SYNC()
#endif

/* The sum of x over the group's GT lanes, the same bits in every lane: a
 * butterfly, where each lane adds the same two partial sums (a + b and
 * b + a round alike). */
SL_HD SL_INLINE double sl_group_sum(double x, int GT, unsigned gmask)
{
#if defined(__CUDA_ARCH__)
    SL_UNROLL
    for (int off = GT / 2; off > 0; off /= 2)
        x += __shfl_xor_sync(gmask, x, off);
#else
    (void)GT, (void)gmask;
#endif
    return x;
}

/* Whether any lane of the group has flag set: a butterfly of shuffles, as
 * sl_group_sum. __any_sync with the group's mask, which differs between
 * the warp's groups, was compiled as a loop of one vote a group (16 at two
 * lanes a group: 8 % of mvs's narrow loop's stalls by Nsight Compute; by
 * shuffles that loop runs 3.5 % faster on the H200). */
SL_HD SL_INLINE int sl_group_any(int flag, int GT, unsigned gmask)
{
#if defined(__CUDA_ARCH__)
    SL_UNROLL
    for (int off = GT / 2; off > 0; off /= 2)
        flag |= __shfl_xor_sync(gmask, flag, off);
    return flag;
#else
    (void)GT, (void)gmask;
    return flag;
#endif
}

/* The smallest of the group's keys: a butterfly over lanes g ^ 1, g ^ 2,
 * ..., which stay inside an aligned group of G lanes. */
#if defined(__CUDA_ARCH__)
#define SL__GROUP_MIN(key)                                                                 \
    SL_UNROLL                                                                              \
    for (int off = GT / 2; off > 0; off /= 2) {                                            \
        unsigned other = __shfl_xor_sync(gmask, key, off);                                 \
        key = other < key ? other : key;                                                   \
    }
#else
#define SL__GROUP_MIN(key)
#endif

/* The stop monitors of loop.h (sl_monitor_stop) split by rows: each thread
 * checks the rows of the bodies it owns and keys its first stop by
 * (category, row, column), in the order sl_monitor_stop checks them; the
 * group's smallest key is the stop sl_monitor_stop finds first. Sets why and
 * detail. Each thread checks its own rows, not the whole system: the close
 * encounter check is O(N^2) cube roots. */
#define SL__GROUP_KEY_NONE 0xffffffffu
#define SL__GROUP_KEY(cat, i, j) (((unsigned)(cat) << 20) | ((unsigned)(i) << 10) | (unsigned)(j))
#define SL__GROUP_MONITORS()                                                               \
    {                                                                                      \
        unsigned key = SL__GROUP_KEY_NONE;                                                 \
        if (a->mon.check_nonfinite && sl_nonfinite(3 * GL, 1, x, v))                       \
            key = SL__GROUP_KEY(0, 0, 0);                                                  \
        SL_UNROLL                                                                          \
        for (int l = 0; l < GL && key == SL__GROUP_KEY_NONE; l++) {                        \
            const int b = g + GT * l;                                                      \
            if (b >= n)                                                                    \
                break;                                                                     \
            if (b >= 1 && (a->mon.eject_r > 0.0 || a->mon.unbound_r >= 0.0)) {             \
                int w = sl_monitor_escape(&a->mon, 1, sx, sv, sm, b);                      \
                if (w)                                                                     \
                    key = SL__GROUP_KEY(1, b, w == SL_REASON_EJECTION ? 0 : 1);            \
            }                                                                              \
        }                                                                                  \
        SL_UNROLL                                                                          \
        for (int l = 0; l < GL; l++) {                                                     \
            const int b = g + GT * l;                                                      \
            if (b >= n || key != SL__GROUP_KEY_NONE)                                       \
                break;                                                                     \
            if (b >= 1 && a->mon.close_hill > 0.0) {                                       \
                int jj = sl_monitor_close_row(&a->mon, n, 1, sx, sm, b);                   \
                if (jj >= 0)                                                               \
                    key = SL__GROUP_KEY(2, b, jj);                                         \
            }                                                                              \
        }                                                                                  \
        SL_UNROLL                                                                          \
        for (int l = 0; l < GL; l++) {                                                     \
            const int b = g + GT * l;                                                      \
            if (b >= n || key != SL__GROUP_KEY_NONE)                                       \
                break;                                                                     \
            if (sl_collide_on(&a->mon)) {                                                  \
                int jj = sl_collide_row(&a->mon, n, 1, sx, sm, b);                         \
                if (jj >= 0)                                                               \
                    key = SL__GROUP_KEY(3, b, jj);                                         \
            }                                                                              \
        }                                                                                  \
        SL__GROUP_MIN(key)                                                                 \
        if (key != SL__GROUP_KEY_NONE) {                                                   \
            const int cat = (int)(key >> 20), ki = (int)((key >> 10) & 1023u),             \
                      kj = (int)(key & 1023u);                                             \
            why = cat == 0   ? SL_REASON_NONFINITE                                         \
                  : cat == 1 ? (kj == 0 ? SL_REASON_EJECTION : SL_REASON_UNBOUND)          \
                  : cat == 2 ? SL_REASON_CLOSE_ENCOUNTER                                   \
                             : SL_REASON_COLLISION;                                        \
            detail = cat == 0 ? -1 : cat == 1 ? ki : ki * 256 + kj;                        \
        }                                                                                  \
    }

/* After a step that reached (t, step), with the state published in sx,
 * sv: the stop monitors, the energy check and the step cap set why, and
 * the loop breaks; else thread 0 logs if a record is due. Inside a
 * grouped loop's step loop (SL_GROUP_LOOP_DEFINE, and integrators' own). */
#define SL__GROUP_CHECKS(F)                                                                \
    SL__GROUP_MONITORS()                                                                   \
    if (!why && a->mon.energy_max > 0.0 && step % a->mon.check_every == 0) {               \
        double e = sl_kinetic(n, 1, sv, sm) + sl_force_##F##_potential(n, 1, sx, sm, fp);  \
        if (!(fabs(e / a->e0[s] - 1.0) <= a->mon.energy_max))                              \
            why = SL_REASON_ENERGY;                                                        \
    }                                                                                      \
    if (!why && a->max_steps > 0 && step - k0 >= a->max_steps && t < a->t_end)             \
        why = SL_REASON_STEP_CAP;                                                          \
    if (why)                                                                               \
        break;                                                                             \
    if (sl_log_due(&a->mon, t, step, next_log)) {                                          \
        if (a->mon.log_every_dt > 0.0)                                                     \
            while (next_log <= t)                                                          \
                next_log += a->mon.log_every_dt;                                           \
        if (g == 0)                                                                        \
            sl_log_record(a, s, n, 1, t, step, SL_LOG_PERIODIC, sx, sv);                   \
    }

/* Own bodies' xs, vs into the shared copy. */
#define SL__GROUP_PUBLISH(xs, vs)                                                          \
    SL_UNROLL                                                                              \
    for (int l = 0; l < GL; l++) {                                                         \
        const int b = g + GT * l;                                                          \
        if (b < n) {                                                                       \
            SL_UNROLL                                                                      \
            for (int c = 0; c < 3; c++) {                                                  \
                sx[3 * b + c] = (xs)[3 * l + c];                                           \
                sv[3 * b + c] = (vs)[3 * l + c];                                           \
            }                                                                              \
        }                                                                                  \
    }

/* The force at the published points, on the own bodies: the pull on each
 * from all N (the force's *_at). */
#define SL__GROUP_FORCE_AT(P, F)                                                           \
    SL_UNROLL                                                                              \
    for (int l = 0; l < GL; l++) {                                                         \
        const int b = g + GT * l;                                                          \
        if (b < n)                                                                         \
            SL_FORCE_AT(F, P, n, sx, sv, sm, fp, b, ae + 3 * l, je + 3 * l);               \
    }

/* The same with each pair evaluated once, for a force with pair terms
 * (SL_FORCE_<F>_PAIR) when every thread owns one body (GT == n): thread g
 * evaluates the pairs (g, g + k), k = 1..GT/2, keeps m_{g+k} t and leaves t
 * in thread g + k's exchange row (SL_GROUP_XROW), which after a barrier
 * takes -m_g t from it (at more than 8 threads, passes t by a shuffle,
 * SL_GROUP_XCHG); the pair (g, g + GT/2) is evaluated by both its
 * threads, each for itself. GT/2 pair terms a thread instead of GT - 1: 4
 * at N = 8, 8 at N = 16 (N(N-1)/2 is 28 and 120). The thread's own point
 * is XS, VS, the registers it published (the same bits): read back from
 * shared memory it was loaded again for every k, and those loads were 3 in
 * 7 of the loop's shared traffic (N = 8 4 %, N = 16 11 % faster without
 * them). */
#define SL__GROUP_PAIR_1(F, d, du, fp, t) sl_force_##F##_pair_jerk(d, du, fp, t)
#define SL__GROUP_PAIR_0(F, d, du, fp, t) sl_force_##F##_pair(d, du, fp, t)
#define SL__GROUP_PAIR(F, P, ...) SL__GROUP_FCAT(SL__GROUP_PAIR_, SL_PROP_##P##_JERK)(F, __VA_ARGS__)
#if defined(__CUDA_ARCH__)
#define SL__GROUP_SHFL(val, src) __shfl_sync(gmask, val, src, GT)
#else
#define SL__GROUP_SHFL(val, src) (val)
#endif
#define SL__GROUP_FORCE_PAIRS(P, F, XS, VS)                                                \
    {                                                                                      \
        enum { NT = SL_PROP_##P##_JERK ? 6 : 3, XROW = SL_GROUP_XROW(P, GT) };             \
        double acc[NT];                                                                    \
        const double *xr = sxe + XROW * g;                                                 \
        SL_UNROLL                                                                          \
        for (int c = 0; c < NT; c++)                                                       \
            acc[c] = 0.0;                                                                  \
        SL_UNROLL                                                                          \
        for (int k = 1; k <= GT / 2; k++) {                                                \
            const int o = (g + k) & (GT - 1);                                              \
            double d[3], du[3], t[NT];                                                     \
            SL_UNROLL                                                                      \
            for (int c = 0; c < 3; c++) {                                                  \
                d[c] = sx[3 * o + c] - (XS)[c];                                            \
                du[c] = sv[3 * o + c] - (VS)[c];                                           \
            }                                                                              \
            SL__GROUP_PAIR(F, P, d, du, fp, t);                                            \
            const double mo = sm[o];                                                       \
            SL_UNROLL                                                                      \
            for (int c = 0; c < NT; c++)                                                   \
                acc[c] += mo * t[c];                                                       \
            if (2 * k != GT && SL_GROUP_XCHG(GT)) {                                        \
                double *xw = sxe + XROW * o + NT * (k - 1);                                \
                SL_UNROLL                                                                  \
                for (int c = 0; c < NT; c++)                                               \
                    xw[c] = t[c];                                                          \
            } else if (2 * k != GT) {                                                      \
                const int src = (g - k) & (GT - 1);                                        \
                const double ms = sm[src];                                                 \
                SL_UNROLL                                                                  \
                for (int c = 0; c < NT; c++)                                               \
                    acc[c] -= ms * SL__GROUP_SHFL(t[c], src);                              \
            }                                                                              \
        }                                                                                  \
        if (SL_GROUP_XCHG(GT))                                                             \
            SL__GROUP_SYNC();                                                              \
        SL_UNROLL                                                                          \
        for (int k = 1; k < GT / 2 && SL_GROUP_XCHG(GT); k++) {                            \
            const double ms = pms[k];                                                      \
            SL_UNROLL                                                                      \
            for (int c = 0; c < NT; c++)                                                   \
                acc[c] -= ms * xr[NT * (k - 1) + c];                                       \
        }                                                                                  \
        SL_UNROLL                                                                          \
        for (int c = 0; c < 3; c++) {                                                      \
            ae[c] = acc[c];                                                                \
            if (SL_PROP_##P##_JERK)                                                        \
                je[c] = acc[NT - 3 + c];                                                   \
        }                                                                                  \
    }
#define SL__GROUP_FCAT_(a, b) a##b
#define SL__GROUP_FCAT(a, b) SL__GROUP_FCAT_(a, b)
#define SL__GROUP_FORCE_0(P, F, XS, VS) SL__GROUP_FORCE_AT(P, F)
#define SL__GROUP_FORCE_1(P, F, XS, VS)                                                    \
    if (GT == n) {                                                                         \
        SL__GROUP_FORCE_PAIRS(P, F, XS, VS)                                                \
    } else {                                                                               \
        SL__GROUP_FORCE_AT(P, F)                                                           \
    }
/* The force on the own bodies, whose points (published) are XS, VS. */
#define SL__GROUP_FORCE(P, F, XS, VS)                                                      \
    SL__GROUP_FCAT(SL__GROUP_FORCE_, SL_OPT_FLAG(SL_FORCE_##F##_PAIR))(P, F, XS, VS)

/* Own entries of the working array: the integrator keeps it in blocks of 3n
 * (3 per body, the BODYWISE contract), here blocks of 3 GL. */
#define SL__GROUP_PERSIST(P, LOAD)                                                         \
    SL_UNROLL                                                                              \
    for (int k = 0; k < SL_PROP_##P##_PERSIST * GL; k++) {                                 \
        const int blk = k / (3 * GL), l = (k % (3 * GL)) / 3, c = k % 3;                   \
        const int b = g + GT * l;                                                          \
        if (b < n) {                                                                       \
            const size_t at = sl_persist_index(s, n, SL_PROP_##P##_PERSIST,                \
                                               blk * 3 * n + 3 * b + c);                   \
            if (LOAD)                                                                      \
                ps[k] = a->persist[at];                                                    \
            else                                                                           \
                a->persist[at] = ps[k];                                                    \
        }                                                                                  \
    }

/* One step of size h through every stage, each force evaluation between
 * two group barriers (the second keeps the next publish from overwriting
 * points a slower lane is still reading, and the next pair terms from
 * overwriting an exchange row not yet read). */
#define SL__GROUP_STAGES(P, F, h)                                                          \
    SL_UNROLL                                                                              \
    for (int st = 0; st < SL_PROP_##P##_NSTAGES; st++) {                                   \
        sl_prop_##P##_point(st, GL, 1, h, x, v, m, ps, xe, ve, a->pp);                     \
        SL__GROUP_PUBLISH(xe, ve)                                                          \
        SL__GROUP_SYNC();                                                                  \
        SL__GROUP_FORCE(P, F, xe, ve)                                                      \
        SL__GROUP_SYNC();                                                                  \
        sl_prop_##P##_apply(st, GL, 1, h, x, v, m, ps, ae, je, a->pp);                     \
    }

/* The loop of one system by its group: thread g of GT, sh the system's
 * shared block (SL_GROUP_LOOP_STRIDE(P, F, N, G) doubles). The same steps, stops and
 * records as SL_LOOP_DEFINE's fixed-step loop. */
#define SL_GROUP_LOOP_DEFINE(P, F, N, G)                                                   \
    SL_STATIC_ASSERT(SL_PROP_##P##_SCRATCH % 3 == 0 && SL_PROP_##P##_PERSIST % 3 == 0,     \
                     "integrator " #P ": a BODYWISE integrator keeps its working array "   \
                     "in blocks of 3 doubles per body");                                   \
    __device__ __forceinline__ void sl_gloop_##P##_##F##_##N(const sl_run_args *a,         \
                                                             int64_t s, int g, double *sh) \
    {                                                                                      \
        enum { GT = (G), GL = ((N) + (G)-1) / (G) };                                       \
        const int n = (N);                                                                 \
        if (a->status[s] != SL_SYS_ACTIVE)                                                 \
            return;                                                                        \
        const unsigned gmask = sl_group_mask(GT);                                          \
        (void)gmask;                                                                       \
        double *sx = sh, *sv = sh + 3 * (N), *sm = sh + 6 * (N);                           \
        double *sxe = sh + SL_GROUP_STRIDE(N, G); /* the pair terms' exchange */             \
        (void)sxe;                                                                         \
        double x[3 * GL], v[3 * GL], m[GL], xe[3 * GL], ve[3 * GL], ae[3 * GL],            \
            je[3 * GL];                                                                    \
        double ps[SL_SCRATCH_LEN(P) * GL];                                                 \
        double fp[SL_FORCE_PARAMS_MAX];                                                    \
        SL_UNROLL                                                                          \
        for (int l = 0; l < GL; l++) {                                                     \
            const int b = g + GT * l;                                                      \
            SL_UNROLL                                                                      \
            for (int c = 0; c < 3; c++) {                                                  \
                x[3 * l + c] = b < n ? a->state[sl_state_at(s, n, b, SL_X + c)] : 0.0;     \
                v[3 * l + c] = b < n ? a->state[sl_state_at(s, n, b, SL_VX + c)] : 0.0;    \
                ae[3 * l + c] = je[3 * l + c] = 0.0;                                       \
            }                                                                              \
            m[l] = b < n ? a->state[sl_state_at(s, n, b, SL_M)] : 0.0;                     \
            if (b < n)                                                                     \
                sm[b] = m[l];                                                              \
        }                                                                                  \
        SL_UNROLL                                                                          \
        for (int k = 0; k < SL_SCRATCH_LEN(P) * GL; k++)                                   \
            ps[k] = 0.0;                                                                   \
        sl_load_fp(a, s, fp);                                                              \
        /* the masses of the threads whose terms this one reads from its      \
         * exchange row, in registers for the launch rather than loaded at   \
         * every force evaluation (up to 8 threads a system, SL_GROUP_XCHG;  \
         * unused and dropped elsewhere): Hermite N = 8 runs 2.6 % faster  \
         * so on the H200 */                                                 \
        SL__GROUP_SYNC();                                                                  \
        double pms[GT / 2 + 1];                                                            \
        SL_UNROLL                                                                          \
        for (int k = 1; k <= GT / 2; k++)                                                  \
            pms[k] = sm[(g - k) & (GT - 1)];                                               \
        (void)pms;                                                                         \
        if (a->first_launch) {                                                             \
            SL__GROUP_PUBLISH(x, v)                                                        \
            SL__GROUP_SYNC();                                                              \
            SL__GROUP_FORCE(P, F, x, v)                                                    \
            SL__GROUP_SYNC();                                                              \
            sl_prop_##P##_begin(GL, 1, x, v, m, ps, ae, je, a->pp);                        \
        } else {                                                                           \
            SL__GROUP_PERSIST(P, 1)                                                        \
        }                                                                                  \
        double t = a->time[s];                                                             \
        int64_t step = a->steps[s];                                                        \
        const double t0 = a->t_start[s];                                                   \
        const int64_t k0 = a->step_start[s];                                               \
        double next_log = a->mon.log_every_dt > 0.0 ? a->next_log[s] : 0.0;                \
        int why = SL_REASON_NONE, detail = -1;                                             \
        const double dt = a->pp[SL_PP_DT];                                                        \
        const int64_t n_need = sl_steps_needed(t0, a->t_end, dt);                          \
        /* whether anything after a step reads the whole state (the non-finite       \
         * check reads each thread's own bodies) */                                  \
        const int shared_state = sl_stop_monitors_on(&a->mon) || a->mon.energy_max > 0.0 ||  \
                                 a->mon.log_every_steps > 0 || a->mon.log_every_dt > 0.0;  \
        for (int64_t k = 0; k < a->launch_steps && step - k0 < n_need; k++) {              \
            const int64_t j = step - k0 + 1;                                               \
            const double t_next = sl_step_time(t0, a->t_end, dt, j, n_need);               \
            const double h = j < n_need ? dt : t_next - t;                                 \
            SL__GROUP_STAGES(P, F, h)                                                      \
            t = t_next;                                                                    \
            step++;                                                                        \
            if (shared_state) {                                                            \
                SL__GROUP_PUBLISH(x, v)                                                    \
                SL__GROUP_SYNC();                                                          \
            }                                                                              \
            SL__GROUP_CHECKS(F)                                                            \
            if (shared_state)                                                              \
                SL__GROUP_SYNC();                                                          \
        }                                                                                  \
        SL__GROUP_SYNC();                                                                  \
        SL__GROUP_PUBLISH(x, v)                                                            \
        SL__GROUP_SYNC();                                                                  \
        SL__GROUP_PERSIST(P, 0)                                                            \
        if (g == 0) {                                                                      \
            if (a->mon.log_every_dt > 0.0)                                                 \
                a->next_log[s] = next_log;                                                 \
            sl_finish_system(a, s, n, t, step, why, detail, sx, sv);                       \
        }                                                                                  \
    }

#endif /* __CUDACC__ */

#endif
