/* Internal: what the grouped CUDA loop (internal/group.inc) is built from,
 * G threads per system, for systems too
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
 * pair terms, evaluates half the pairs and passes the reactions on (the
 * EXCHANGE scheme, SL_GROUP_PAIRS). Monitors, logs and the energy check read
 * the published state, every thread of the group alike, so the group
 * agrees on every stop without a vote.
 *
 * Which (integrator, force, N) run this way is decided at build time
 * (internal/kernel.inc, SL_GROUP_USE): the integrator's stages act on each body
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

/* Where a loop evaluates pair terms (one body a thread, the EXCHANGE scheme)
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
/* Doubles of shared memory a system of the grouped loop (group.inc)
 * takes: the points, and the exchange block where the EXCHANGE pair scheme
 * passes its terms through shared memory. */
#define SL_GROUP_LOOP_STRIDE(P, F, N, G)                                                   \
    (SL_GROUP_STRIDE(N, G) +                                                               \
     (SL_GROUP_PAIRS(P, F, N, G) == SL_GROUP_PAIRS_EXCHANGE && SL_GROUP_XCHG(G)            \
          ? SL_GROUP_XLEN(P, G)                                                            \
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

/* An integrator whose stages are not per body (mvs: the jump sums the
 * planets' momenta, the kick needs the planets' mutual pulls) brings its
 * own stepper to the core's grouped loop (group.inc): the functions below,
 * which see neither the force nor the loop, only the thread's share of the
 * state. It declares
 *   SL_PROP_<P>_GROUP_LOOP 1;
 *   SL_PROP_<P>_GROUP_FIRST 1 when a thread's force rows start from body
 *       1 (the planets: the rows a perturbation acts on), else nothing;
 *   SL_PROP_<P>_GROUP_THREADS_<N>: threads per system (a power of 2 from 2
 *       to 32) for each N it groups, none for the others;
 *   SL_PROP_<P>_GROUP_NARROW_<N>: a second, narrower width for the same N
 *       (fewer threads a system, more planets a thread: a system's latency
 *       is higher, but twice the systems fit on the device), 0 for none;
 *       2, 4 or 8 stamps a second grouped kernel;
 *   SL_PROP_<P>_GROUP_FORCE(F): 1 when force F has what the loop calls for
 *       P's rows (acc_perturb_at for a PERTURB integrator);
 *   int sl_prop_<P>_group_threads(const double *pp, int64_t n_sys, int sms,
 *                                 int wide, int narrow):
 *       the threads a system for a launch of n_sys systems with these
 *       parameters on a device of sms multiprocessors: wide
 *       (_GROUP_THREADS_<N>), narrow (_GROUP_NARROW_<N>, when not 0) or
 *       0 for one thread a system (mvs: 0 in Jacobi coordinates; wide up
 *       to 64 systems a multiprocessor, narrow to 128, then 0);
 * and the stepper, c the thread's place (sl_group), w its share (a struct
 * sl_prop_<P>_gshare), x, v the rows of bodies g, g + G, ... that the
 * monitors check, xe, ve and ae the thread's force rows (bodies FIRST + g,
 * FIRST + g + G, ...), sx, sv, sm the group's shared copy:
 *   gload(a, s, c, w, x, v, sx, sv, sm): the share from the ensemble, the
 *       masses into sm and the start into sx, sv;
 *   gstages(mode, pp): the stages of a mode: SL_GROUP_STEP (a step),
 *       SL_SYNC_OPEN (the first launch's, after gbegin), SL_SYNC_CLOSE (a
 *       full close's, between gclose and gclosed);
 *   gbegin(a, c, w) and gopened(a, s, c, w, sx, sv): before and after the
 *       open stages;
 *   gpoint(a, c, w, mode, st, h, x, v, xe, ve, sx, sv): stage st's force
 *       points into xe, ve (the loop publishes them);
 *   gapply(a, c, w, mode, st, h, x, v, ae, je): the stage with the force;
 *   gneed(a, c, w, t_next, step_next, k0, next_log, last): what the loop
 *       needs after a step, as sl_sync_need (0 skips the monitors);
 *   gclose(a, c, w, need) and gclosed(a, c, w, x, v, sx, sv): around the
 *       close stages; gclosed publishes the state to sx, sv, fills x, v
 *       and returns 1 when it published;
 *   gend(a, c, w, x, v, sx, sv): the state the launch stores into sx, sv;
 *   gpersist(a, s, c, w, load): the share's persistent part.
 * The library's stepper for a BODYWISE integrator (group.inc) is written
 * against the same list. */
#define SL__GROUP_OWN_0(P, F, N) 0
#define SL__GROUP_OWN_1(P, F, N)                                                           \
    SL__GROUP_USE(SL_PROP_##P##_GROUP_FORCE(F), SL_PROP_##P##_GROUP_THREADS_##N)
#define SL_GROUP_OWN(P, F, N)                                                              \
    SL__GROUP_CAT(SL__GROUP_OWN_, SL_OPT_FLAG(SL_PROP_##P##_GROUP_LOOP))(P, F, N)
/* Whether integrator P brings its own stepper, and its rows' first body. */
#define SL_GROUP_OWN_STEPPER(P) SL_OPT_FLAG(SL_PROP_##P##_GROUP_LOOP)
#define SL_GROUP_FIRST(P) SL_OPT_FLAG(SL_PROP_##P##_GROUP_FIRST)

/* The modes of a stepper's stages: the open and close of launch.h, and a
 * step. */
#define SL_GROUP_STEP 2

/* How the force on a thread's rows is evaluated (group.inc), for #if:
 * EXCHANGE, each pair once at one body a thread (a force with pair terms,
 * SL_FORCE_<F>_PAIR, G == N, the whole force); OWN_SIDE, the pair terms
 * between the thread's rows and all others, own pairs once (a PERTURB
 * integrator with such a force: the perturbation is the pulls between
 * planets); AT, the force's *_at functions row by row. */
#define SL_GROUP_PAIRS_AT 0
#define SL_GROUP_PAIRS_EXCHANGE 1
#define SL_GROUP_PAIRS_OWN_SIDE 2
#define SL_GROUP_PAIRS(P, F, N, G)                                                         \
    (!SL_OPT_FLAG(SL_FORCE_##F##_PAIR) ? SL_GROUP_PAIRS_AT                                 \
     : SL_PROP_##P##_PERTURB           ? SL_GROUP_PAIRS_OWN_SIDE                           \
     : (G) == (N)                      ? SL_GROUP_PAIRS_EXCHANGE                           \
                                       : SL_GROUP_PAIRS_AT)

#if defined(__CUDACC__)

/* The *_at call the stages need, on JERK: the pull (and jerk) on body i
 * from every body, arrays in shared memory (S = 1). */
#define SL_FORCE_AT_1(F, n, x, v, m, fp, i, acc, jerk)                                     \
    sl_force_##F##_acc_jerk_at(n, x, v, m, fp, i, acc, jerk)
#define SL_FORCE_AT_0(F, n, x, v, m, fp, i, acc, jerk) sl_force_##F##_acc_at(n, x, v, m, fp, i, acc)
#define SL_FORCE_AT(F, P, ...) SL_CAT(SL_FORCE_AT_, SL_PROP_##P##_JERK)(F, __VA_ARGS__)

/* A thread's place in its group: g of GT threads running a system of n
 * bodies; mask, the group's lanes in the warp. */
typedef struct sl_group {
    int g, GT, n;
    unsigned mask;
} sl_group;

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

/* A barrier of the group's lanes. */
SL_HD SL_INLINE void sl_group_sync(unsigned gmask)
{
#if defined(__CUDA_ARCH__)
    __syncwarp(gmask);
#else
    (void)gmask;
#endif
}

/* val of lane src of the group (GT lanes). */
SL_HD SL_INLINE double sl_group_shfl(double val, int src, int GT, unsigned gmask)
{
#if defined(__CUDA_ARCH__)
    return __shfl_sync(gmask, val, src, GT);
#else
    (void)src, (void)GT, (void)gmask;
    return val;
#endif
}

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
 * ..., which stay inside an aligned group of GT lanes. */
SL_HD SL_INLINE unsigned sl_group_min(unsigned key, int GT, unsigned gmask)
{
#if defined(__CUDA_ARCH__)
    SL_UNROLL
    for (int off = GT / 2; off > 0; off /= 2) {
        unsigned other = __shfl_xor_sync(gmask, key, off);
        key = other < key ? other : key;
    }
#else
    (void)GT, (void)gmask;
#endif
    return key;
}

/* Rows xs, vs of bodies first + g + GT r (r < R) into the shared copy. */
SL_HD SL_INLINE void sl_group_publish(int n, int g, int GT, int R, int first, const double *xs,
                                      const double *vs, double *sx, double *sv)
{
    SL_UNROLL
    for (int r = 0; r < R; r++) {
        const int b = first + g + GT * r;
        if (b < n) {
            SL_UNROLL
            for (int c = 0; c < 3; c++) {
                sx[3 * b + c] = xs[3 * r + c];
                sv[3 * b + c] = vs[3 * r + c];
            }
        }
    }
}

/* The stop monitors of loop.h (sl_monitor_stop) split by rows: thread g
 * checks the rows of its bodies b = g + GT l (l < GL; x, v those bodies'
 * states, sx, sv, sm the whole system's) and keys its first stop by
 * (category, row, column), in the order sl_monitor_stop checks them; the
 * group's smallest key is the stop sl_monitor_stop finds first. Returns
 * an sl_stop_reason, the body or pair in *detail. Each thread checks its
 * own rows, not the whole system: the close encounter check is O(N^2) cube
 * roots. */
#define SL__GROUP_KEY_NONE 0xffffffffu
#define SL__GROUP_KEY(cat, i, j) (((unsigned)(cat) << 20) | ((unsigned)(i) << 10) | (unsigned)(j))
SL_HD SL_INLINE int sl_group_monitors(const sl_monitor_config *mc, int n, int g, int GT, int GL,
                                      unsigned gmask, const double *x, const double *v,
                                      const double *sx, const double *sv, const double *sm,
                                      int *detail)
{
    unsigned key = SL__GROUP_KEY_NONE;
    if (mc->check_nonfinite && sl_nonfinite(3 * GL, 1, x, v))
        key = SL__GROUP_KEY(0, 0, 0);
    SL_UNROLL
    for (int l = 0; l < GL && key == SL__GROUP_KEY_NONE; l++) {
        const int b = g + GT * l;
        if (b >= n)
            break;
        if (b >= 1 && (mc->eject_r > 0.0 || mc->unbound_r >= 0.0)) {
            int w = sl_monitor_escape(mc, 1, sx, sv, sm, b);
            if (w)
                key = SL__GROUP_KEY(1, b, w == SL_REASON_EJECTION ? 0 : 1);
        }
    }
    SL_UNROLL
    for (int l = 0; l < GL; l++) {
        const int b = g + GT * l;
        if (b >= n || key != SL__GROUP_KEY_NONE)
            break;
        if (b >= 1 && mc->close_hill > 0.0) {
            int jj = sl_monitor_close_row(mc, n, 1, sx, sm, b);
            if (jj >= 0)
                key = SL__GROUP_KEY(2, b, jj);
        }
    }
    SL_UNROLL
    for (int l = 0; l < GL; l++) {
        const int b = g + GT * l;
        if (b >= n || key != SL__GROUP_KEY_NONE)
            break;
        if (sl_collide_on(mc)) {
            int jj = sl_collide_row(mc, n, 1, sx, sm, b);
            if (jj >= 0)
                key = SL__GROUP_KEY(3, b, jj);
        }
    }
    key = sl_group_min(key, GT, gmask);
    if (key == SL__GROUP_KEY_NONE)
        return SL_REASON_NONE;
    const int cat = (int)(key >> 20), ki = (int)((key >> 10) & 1023u), kj = (int)(key & 1023u);
    *detail = cat == 0 ? -1 : cat == 1 ? ki : ki * 256 + kj;
    return cat == 0   ? SL_REASON_NONFINITE
           : cat == 1 ? (kj == 0 ? SL_REASON_EJECTION : SL_REASON_UNBOUND)
           : cat == 2 ? SL_REASON_CLOSE_ENCOUNTER
                      : SL_REASON_COLLISION;
}
#undef SL__GROUP_KEY_NONE
#undef SL__GROUP_KEY

#endif /* __CUDACC__ */

#endif
