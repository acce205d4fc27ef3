/* Internal: the SL_HD helpers every loop shares (loading a system,
 * monitors, logs, adaptive stepping, SYNC's needs) and what picks the
 * calls a loop makes from an integrator's flags. The loops themselves are
 * the .inc files beside it: the per-system loop (loop.inc), the CPU's lane
 * loop (lanes.inc), the grouped CUDA loop (group.inc) and the CUDA kernels
 * (kernel.inc); the contract they keep is in launch.h. It is installed
 * because plugins stamp loops in their own translation units. */
#ifndef STARLING_INTERNAL_LOOP_H
#define STARLING_INTERNAL_LOOP_H

#include <math.h>
#include <stdint.h>
#include "starling/cancel.h"
#include "starling/launch.h"

SL_EXTERN_C_BEGIN

#if defined(__CUDA_ARCH__)
#define SL_ATOMIC_INC(p) atomicAdd((p), 1ull)
#define SL_ATOMIC_ADD(p, k) atomicAdd((p), (unsigned long long)(k))
#else
#define SL_ATOMIC_INC(p) __atomic_fetch_add((p), 1ull, __ATOMIC_RELAXED)
#define SL_ATOMIC_ADD(p, k) __atomic_fetch_add((p), (unsigned long long)(k), __ATOMIC_RELAXED)
#endif

SL_HD SL_INLINE void sl_load_system(const sl_run_args *a, int64_t s, int n, double *x,
                                    double *v, double *m)
{
    SL_UNROLL
    for (int b = 0; b < n; b++) {
        SL_UNROLL
        for (int c = 0; c < 3; c++) {
            x[3 * b + c] = a->state[sl_state_at(s, n, b, SL_X + c)];
            v[3 * b + c] = a->state[sl_state_at(s, n, b, SL_VX + c)];
        }
        m[b] = a->state[sl_state_at(s, n, b, SL_M)];
    }
}

SL_HD SL_INLINE void sl_store_system(const sl_run_args *a, int64_t s, int n, const double *x,
                                     const double *v)
{
    SL_UNROLL
    for (int b = 0; b < n; b++) {
        SL_UNROLL
        for (int c = 0; c < 3; c++) {
            a->state[sl_state_at(s, n, b, SL_X + c)] = x[3 * b + c];
            a->state[sl_state_at(s, n, b, SL_VX + c)] = v[3 * b + c];
        }
    }
}

SL_HD SL_INLINE void sl_load_persist(const sl_run_args *a, int64_t s, int n, int per_body,
                                     double *ps)
{
    SL_UNROLL
    for (int k = 0; k < per_body * n; k++)
        ps[k] = a->persist[sl_persist_index(s, n, per_body, k)];
}

SL_HD SL_INLINE void sl_store_persist(const sl_run_args *a, int64_t s, int n, int per_body,
                                      const double *ps)
{
    SL_UNROLL
    for (int k = 0; k < per_body * n; k++)
        a->persist[sl_persist_index(s, n, per_body, k)] = ps[k];
}

SL_HD SL_INLINE double sl_kinetic(int n, int S, const double *v, const double *m)
{
    double k = 0.0;
    SL_UNROLL
    for (int b = 0; b < n; b++) {
        double vx = v[S * (3 * b)], vy = v[S * (3 * b + 1)], vz = v[S * (3 * b + 2)];
        k += 0.5 * m[S * b] * (vx * vx + vy * vy + vz * vz);
    }
    return k;
}

/* Whether planets i and j (>= 1) are closer than k mutual Hill radii:
 * hill = cbrt((m_i + m_j) / 3 m_0), times their mean distance from body 0.
 * Arrays strided by S. */
SL_HD SL_INLINE int sl_close_pair(int S, const double *x, int i, int j, double hill, double k)
{
#define SL_XP(b, c) x[S * (3 * (b) + (c))]
    double ri = sqrt((SL_XP(i, 0) - SL_XP(0, 0)) * (SL_XP(i, 0) - SL_XP(0, 0)) +
                     (SL_XP(i, 1) - SL_XP(0, 1)) * (SL_XP(i, 1) - SL_XP(0, 1)) +
                     (SL_XP(i, 2) - SL_XP(0, 2)) * (SL_XP(i, 2) - SL_XP(0, 2)));
    double rj = sqrt((SL_XP(j, 0) - SL_XP(0, 0)) * (SL_XP(j, 0) - SL_XP(0, 0)) +
                     (SL_XP(j, 1) - SL_XP(0, 1)) * (SL_XP(j, 1) - SL_XP(0, 1)) +
                     (SL_XP(j, 2) - SL_XP(0, 2)) * (SL_XP(j, 2) - SL_XP(0, 2)));
    double dx = SL_XP(i, 0) - SL_XP(j, 0), dy = SL_XP(i, 1) - SL_XP(j, 1),
           dz = SL_XP(i, 2) - SL_XP(j, 2);
#undef SL_XP
    double lim = k * (hill * 0.5 * (ri + rj));
    return dx * dx + dy * dy + dz * dz < lim * lim;
}

/* Whether the collision monitor is on, and body b's radius for it. */
SL_HD SL_INLINE int sl_collide_on(const sl_monitor_config *mc)
{
    return mc->collide_radius > 0.0 || mc->collide_density > 0.0;
}

SL_HD SL_INLINE double sl_collide_radius(const sl_monitor_config *mc, int b, double m)
{
    if (b == 0 && mc->collide_central >= 0.0)
        return mc->collide_central;
    if (mc->collide_density > 0.0)
        return cbrt(m * (3.0 / (4.0 * 3.14159265358979323846)) / mc->collide_density);
    return mc->collide_radius;
}

/* The stop monitors row by row, so that a grouped kernel (group.h) can
 * split the rows among its threads and still find the stop the one-thread
 * loop finds first. Arrays strided by S; body 0 is the central body. */

/* Body b (>= 1) beyond eject_r (SL_REASON_EJECTION), or beyond unbound_r
 * and unbound from body 0 (SL_REASON_UNBOUND); else SL_REASON_NONE. */
SL_HD SL_INLINE int sl_monitor_escape(const sl_monitor_config *mc, int S, const double *x,
                                      const double *v, const double *m, int b)
{
#define SL_XS(b, c) x[S * (3 * (b) + (c))]
    double dx = SL_XS(b, 0) - SL_XS(0, 0), dy = SL_XS(b, 1) - SL_XS(0, 1),
           dz = SL_XS(b, 2) - SL_XS(0, 2);
#undef SL_XS
    double r2 = dx * dx + dy * dy + dz * dz;
    if (mc->eject_r > 0.0 && r2 > mc->eject_r * mc->eject_r)
        return SL_REASON_EJECTION;
    if (mc->unbound_r >= 0.0 && r2 > mc->unbound_r * mc->unbound_r) {
        double ux = v[S * (3 * b)] - v[0], uy = v[S * (3 * b + 1)] - v[S],
               uz = v[S * (3 * b + 2)] - v[2 * S];
        double e = 0.5 * (ux * ux + uy * uy + uz * uz) - (m[0] + m[S * b]) / sqrt(r2);
        if (e > 0.0)
            return SL_REASON_UNBOUND;
    }
    return SL_REASON_NONE;
}

/* The first planet j > i (i >= 1) closer to planet i than close_hill mutual
 * Hill radii, or -1. */
SL_HD SL_INLINE int sl_monitor_close_row(const sl_monitor_config *mc, int n, int S,
                                         const double *x, const double *m, int i)
{
    SL_UNROLL
    for (int j = i + 1; j < n; j++) {
        double hill = cbrt((m[S * i] + m[S * j]) / (3.0 * m[0]));
        if (sl_close_pair(S, x, i, j, hill, mc->close_hill))
            return j;
    }
    return -1;
}

/* The first body j > i touching body i (their radii summed), or -1. */
SL_HD SL_INLINE int sl_collide_row(const sl_monitor_config *mc, int n, int S, const double *x,
                                   const double *m, int i)
{
    double ri = sl_collide_radius(mc, i, m[S * i]);
    for (int j = i + 1; j < n; j++) {
        double lim = ri + sl_collide_radius(mc, j, m[S * j]);
        double dx = x[S * (3 * i)] - x[S * (3 * j)], dy = x[S * (3 * i + 1)] - x[S * (3 * j + 1)],
               dz = x[S * (3 * i + 2)] - x[S * (3 * j + 2)];
        if (dx * dx + dy * dy + dz * dz < lim * lim)
            return j;
    }
    return -1;
}

/* The first pair (i, j), i < j, closer than the sum of their radii: i*256+j,
 * or -1. Arrays strided by S. */
SL_HD SL_INLINE int sl_collide_pair(const sl_monitor_config *mc, int n, int S, const double *x,
                                    const double *m)
{
    for (int i = 0; i < n; i++) {
        int j = sl_collide_row(mc, n, S, x, m, i);
        if (j >= 0)
            return i * 256 + j;
    }
    return -1;
}

/* Whether any of the k values is not finite (inf * 0 and nan * 0 are nan,
 * so one sum covers them all). */
SL_HD SL_INLINE int sl_nonfinite(int k, int S, const double *x, const double *v)
{
    double sum = 0.0;
    SL_UNROLL
    for (int i = 0; i < k; i++)
        sum += x[S * i] * 0.0 + v[S * i] * 0.0;
    return sum != 0.0;
}

/* Stop conditions that need only the state: non-finite values, ejection,
 * unbound bodies, close encounters and collisions, in that order, each in
 * body (pair) order. Returns an sl_stop_reason, with the body (or pair
 * i*256+j) in *detail. */
SL_HD SL_INLINE int sl_monitor_stop(const sl_monitor_config *mc, int n, int S, const double *x,
                                    const double *v, const double *m, int *detail)
{
    if (mc->check_nonfinite && sl_nonfinite(3 * n, S, x, v)) {
        *detail = -1;
        return SL_REASON_NONFINITE;
    }
    if (mc->eject_r > 0.0 || mc->unbound_r >= 0.0) {
        SL_UNROLL
        for (int b = 1; b < n; b++) {
            int why = sl_monitor_escape(mc, S, x, v, m, b);
            if (why) {
                *detail = b;
                return why;
            }
        }
    }
    if (mc->close_hill > 0.0) {
        SL_UNROLL
        for (int i = 1; i < n; i++) {
            int j = sl_monitor_close_row(mc, n, S, x, m, i);
            if (j >= 0) {
                *detail = i * 256 + j;
                return SL_REASON_CLOSE_ENCOUNTER;
            }
        }
    }
    if (sl_collide_on(mc)) {
        int pair = sl_collide_pair(mc, n, S, x, m);
        if (pair >= 0) {
            *detail = pair;
            return SL_REASON_COLLISION;
        }
    }
    return SL_REASON_NONE;
}

SL_HD SL_INLINE void sl_log_record(const sl_run_args *a, int64_t s, int n, int S, double t,
                                   int64_t step, int event, const double *x, const double *v)
{
    unsigned long long i = SL_ATOMIC_INC(&a->counters[SL_CNT_LOG]);
    if ((int64_t)i >= a->log_cap) {
        SL_ATOMIC_INC(&a->counters[SL_CNT_LOST]);
        return;
    }
    double *r = a->log + (size_t)i * (size_t)(SL_LOG_HEAD + 6 * n);
    r[0] = (double)s;
    r[1] = t;
    r[2] = (double)step;
    r[3] = (double)event;
    for (int b = 0; b < n; b++)
        for (int c = 0; c < 3; c++) {
            r[SL_LOG_HEAD + 6 * b + c] = x[S * (3 * b + c)];
            r[SL_LOG_HEAD + 6 * b + 3 + c] = v[S * (3 * b + c)];
        }
}

/* Whether a periodic record is due at (t, step): every k steps and/or
 * every dt of simulated time (next_log the next such time). */
SL_HD SL_INLINE int sl_log_due(const sl_monitor_config *mc, double t, int64_t step,
                               double next_log)
{
    return (mc->log_every_steps > 0 && step % mc->log_every_steps == 0) ||
           (mc->log_every_dt > 0.0 && t >= next_log);
}

/* Whether a stop monitor that looks at the state every step is on
 * (ejection, unbound, close encounter, collision). */
SL_HD SL_INLINE int sl_stop_monitors_on(const sl_monitor_config *mc)
{
    return mc->eject_r > 0.0 || mc->unbound_r >= 0.0 || mc->close_hill > 0.0 ||
           sl_collide_on(mc);
}

/* Periodic logging. */
SL_HD SL_INLINE void sl_monitor_log(const sl_run_args *a, int64_t s, int n, int S, double t,
                                    int64_t step, double *next_log, const double *x,
                                    const double *v)
{
    if (!sl_log_due(&a->mon, t, step, *next_log))
        return;
    if (a->mon.log_every_dt > 0.0)
        while (*next_log <= t)
            *next_log += a->mon.log_every_dt;
    sl_log_record(a, s, n, S, t, step, SL_LOG_PERIODIC, x, v);
}

SL_HD SL_INLINE void sl_finish_system(const sl_run_args *a, int64_t s, int n, double t,
                                      int64_t step, int why, int detail, const double *x,
                                      const double *v)
{
    sl_store_system(a, s, n, x, v);
    a->time[s] = t;
    a->steps[s] = step;
    if (why) {
        a->status[s] = why == SL_REASON_NONFINITE ? SL_SYS_FAILED : SL_SYS_STOPPED;
        a->reason[s] = why;
        a->detail[s] = detail;
        a->stop_time[s] = t;
        if (a->mon.log_on_stop)
            sl_log_record(a, s, n, 1, t, step, SL_LOG_STOP, x, v);
    } else if (t < a->t_end) {
        SL_ATOMIC_INC(&a->counters[SL_CNT_UNFINISHED]);
    }
}

/* Adaptive stepping (launch.h). The size of a try of h from t: cut or
 * stretched to land on t_end when it would end within SL_STEP_STRETCH of
 * itself before it, so the last step is never a sliver; *t_next is the
 * time after it, t_end exactly for the last one. */
SL_HD SL_INLINE double sl_adaptive_try(double t, double t_end, double h, double *t_next)
{
    if (t + h * (1.0 + SL_STEP_STRETCH) >= t_end) {
        *t_next = t_end;
        return t_end - t;
    }
    *t_next = t + h;
    return h;
}

/* 0 when h, a controller's size for the next try at time t of a run from
 * t0 to t_end, can be taken; else why not (SL_STEP_FAULT_*). */
SL_HD SL_INLINE int sl_step_fault(double h, double t, double t0, double t_end)
{
    if (!(h > 0.0) || !(h < INFINITY))
        return SL_STEP_FAULT_NONFINITE;
    if (h < SL_STEP_TINY * (fabs(t) + fabs(t_end - t0)))
        return SL_STEP_FAULT_UNDERFLOW;
    return 0;
}

/* For x, v and the PERSIST leading doubles of ps: what a rejected step
 * must put back (S = 1). */
SL_HD SL_INLINE void sl_keep_copy(int len, const double *src, double *dst)
{
    SL_UNROLL
    for (int k = 0; k < len; k++)
        dst[k] = src[k];
}

/* The control call of integrator P, pasted on its ADAPTIVE flag (like
 * SL_FORCE_EVAL on JERK and PERTURB), so that a fixed-step integrator
 * needs no control function: for it every step is accepted and the step stays h. The sizeof
 * makes a missing control a compile error: C would take the undeclared
 * call for an implicit declaration, a warning, and the plugin would only
 * fail when it loads. */
#define SL_PROP_CONTROL_1(P, n, S, h, x, v, m, ps, pp, acc)                                 \
    ((void)sizeof(&sl_prop_##P##_control), sl_prop_##P##_control(n, S, h, x, v, m, ps, pp, acc))
#define SL_PROP_CONTROL_0(P, n, S, h, x, v, m, ps, pp, acc) (*(acc) = 1, (h))
#define SL_PROP_CONTROL(P, ADAPTIVE, ...) SL_CAT(SL_PROP_CONTROL_, ADAPTIVE)(P, __VA_ARGS__)

/* System s's force parameters, fp[k] (S = 1). With N and k literals the
 * copy lives in registers, and a force that reads no parameter (newton)
 * leaves nothing of it after dead-code elimination. */
SL_HD SL_INLINE void sl_load_fp(const sl_run_args *a, int64_t s, double *fp)
{
    SL_UNROLL
    for (int k = 0; k < SL_FORCE_PARAMS_MAX; k++)
        fp[k] = a->fp_sys && k < a->n_fp ? a->fp_sys[sl_fp_index(s, a->n_fp, k)] : a->fp[k];
}

/* Doubles per body of an integrator's working array: SCRATCH may be 0, and
 * a zero-length array is not C (nvcc refuses it). */
#define SL_SCRATCH_LEN(P) (SL_PROP_##P##_SCRATCH > 0 ? SL_PROP_##P##_SCRATCH : 1)
#define SL_PERSIST_LEN(P) (SL_PROP_##P##_PERSIST > 0 ? SL_PROP_##P##_PERSIST : 1)

/* The force call integrator P's stages need, pasted on its JERK and
 * PERTURB flags: acc (00), acc_jerk (10) or acc_perturb (01). */
#define SL_FORCE_EVAL_10(F, n, S, x, v, m, fp, acc, jerk)                                  \
    sl_force_##F##_acc_jerk(n, S, x, v, m, fp, acc, jerk)
#define SL_FORCE_EVAL_00(F, n, S, x, v, m, fp, acc, jerk)                                  \
    sl_force_##F##_acc(n, S, x, v, m, fp, acc)
#define SL_FORCE_EVAL_01(F, n, S, x, v, m, fp, acc, jerk)                                  \
    sl_force_##F##_acc_perturb(n, S, x, v, m, fp, acc)
#define SL_FORCE_EVAL(F, P, ...)                                                           \
    SL_CAT(SL_FORCE_EVAL_, SL_CAT(SL_PROP_##P##_JERK, SL_PROP_##P##_PERTURB))(F, __VA_ARGS__)

/* Whether integrator P can run with force F: what P's stages need (JERK,
 * PERTURB) F must provide (SL_FORCE_<F>_JERK, _PERTURB). Expands to a
 * literal 0 or 1, for SL_WHEN. */
#define SL__CAN_0000 1
#define SL__CAN_0001 1
#define SL__CAN_0100 1
#define SL__CAN_0101 1
#define SL__CAN_1100 1
#define SL__CAN_1101 1
#define SL__CAN_0011 1
#define SL__CAN_0111 1
#define SL__CAN_1111 1
#define SL__CAN_1000 0
#define SL__CAN_1001 0
#define SL__CAN_0010 0
#define SL__CAN_0110 0
#define SL__CAN_1010 0
#define SL__CAN_1011 0
#define SL__CAN_1110 0
#define SL__CAN_4(pj, fj, pp, fp) SL__CAN_##pj##fj##pp##fp
#define SL__CAN_X(pj, fj, pp, fp) SL__CAN_4(pj, fj, pp, fp)
#define SL_CAN_RUN(P, F)                                                                   \
    SL__CAN_X(SL_PROP_##P##_JERK, SL_FORCE_##F##_JERK, SL_PROP_##P##_PERTURB,              \
              SL_FORCE_##F##_PERTURB)
/* SL_WHEN(COND, M, args...): M(args...) when COND expands to 1, else nothing. */
#define SL__WHEN_1(M, ...) M(__VA_ARGS__)
#define SL__WHEN_0(M, ...)
#define SL_WHEN(COND, M, ...) SL_CAT(SL__WHEN_, COND)(M, __VA_ARGS__)

/* The limits of launch.h on integrator P, at file scope where a loop for
 * it is stamped (C and CUDA alike). */
#define SL_CHECK_PROP(P)                                                                   \
    SL_STATIC_ASSERT(SL_PROP_##P##_NSTAGES >= 1 && SL_PROP_##P##_NSTAGES <= SL_STAGES_MAX,  \
                     "integrator " #P ": SL_PROP_" #P "_NSTAGES must be 1.."               \
                     SL_STR(SL_STAGES_MAX));                                               \
    SL_STATIC_ASSERT(SL_PROP_##P##_SCRATCH >= 0,                                           \
                     "integrator " #P ": SL_PROP_" #P "_SCRATCH must be >= 0");            \
    SL_STATIC_ASSERT(SL_PROP_##P##_PERSIST >= 0 &&                                         \
                         SL_PROP_##P##_PERSIST <= SL_PROP_##P##_SCRATCH,                   \
                     "integrator " #P ": SL_PROP_" #P "_PERSIST must be 0..SL_PROP_" #P    \
                     "_SCRATCH (the persistent doubles are the leading part of scratch)");  \
    SL_STATIC_ASSERT(SL_PROP_##P##_JERK == 0 || SL_PROP_##P##_JERK == 1,                   \
                     "integrator " #P ": SL_PROP_" #P "_JERK must be 0 or 1");               \
    SL_STATIC_ASSERT(SL_PROP_##P##_ADAPTIVE == 0 || SL_PROP_##P##_ADAPTIVE == 1,           \
                     "integrator " #P ": SL_PROP_" #P "_ADAPTIVE must be 0 or 1");           \
    SL_STATIC_ASSERT((SL_PROP_##P##_SYNC == 0 || SL_PROP_##P##_SYNC == 1) &&               \
                         SL_PROP_##P##_SYNC + SL_PROP_##P##_ADAPTIVE <= 1,                 \
                     "integrator " #P ": SL_PROP_" #P "_SYNC must be 0 or 1, and not 1 "   \
                     "with ADAPTIVE 1 (a synchronising integrator steps a fixed dt)");      \
    SL_STATIC_ASSERT((SL_PROP_##P##_PERTURB == 0 || SL_PROP_##P##_PERTURB == 1) &&         \
                         SL_PROP_##P##_JERK + SL_PROP_##P##_PERTURB <= 1,                  \
                     "integrator " #P ": SL_PROP_" #P "_PERTURB must be 0 or 1, and not 1 " \
                     "with JERK 1 (acc_perturb gives no jerks)");
/* ... and on a force F's flags. */
#define SL_CHECK_FORCE(F)                                                                  \
    SL_STATIC_ASSERT(SL_FORCE_##F##_JERK == 0 || SL_FORCE_##F##_JERK == 1,                 \
                     "force " #F ": SL_FORCE_" #F "_JERK must be 0 or 1");                 \
    SL_STATIC_ASSERT(SL_FORCE_##F##_PERTURB == 0 || SL_FORCE_##F##_PERTURB == 1,           \
                     "force " #F ": SL_FORCE_" #F "_PERTURB must be 0 or 1");
/* ... and on an unrolled body count N. */
#define SL_CHECK_NBODY(P, F, N)                                                            \
    SL_STATIC_ASSERT((N) >= 1 && (N) <= SL_NBODY_MAX,                                      \
                     "integrator " #P ", force " #F ": unrolled body count " #N            \
                     " is outside 1..SL_NBODY_MAX");

/* SYNC integrators (launch.h): what the loop needs of x, v after a step
 * that reaches (t_next, step_next); last: the launch's last step. 2: the
 * full close (logs, energy checks, the step cap, the end of a launch or of
 * the run); 1: the stop monitors' look, every step while one is on; 0:
 * nothing, x and v may stay behind. */
SL_HD SL_INLINE int sl_sync_need(const sl_run_args *a, double t_next, int64_t step_next,
                                 int64_t k0, double next_log, int last)
{
    const sl_monitor_config *mc = &a->mon;
    if (last || !(t_next < a->t_end) ||
        (mc->energy_max > 0.0 && step_next % mc->check_every == 0) ||
        sl_log_due(mc, t_next, step_next, next_log) ||
        (a->max_steps > 0 && step_next - k0 >= a->max_steps))
        return 2;
    return sl_stop_monitors_on(mc);
}

/* Whether len doubles of a working state (strided by S) hold a non-finite
 * value: x, v may be behind it, and the non-finite check reads them. */
SL_HD SL_INLINE int sl_sync_nonfinite(int len, int S, const double *ps)
{
    double sum = 0.0;
    SL_UNROLL
    for (int k = 0; k < len; k++)
        sum += ps[S * k] * 0.0;
    return sum != 0.0;
}

/* The CPU's loops over steps (the lane loops, lanes.inc, and the runtime-N
 * loop, loop.inc) are compiled for x86-64-v4, v3 and the baseline and picked when
 * the plugin loads; one baseline copy with SL_NO_LANE_CLONES (CMake's
 * SL_LANE_CLONES=OFF: CI and the sanitizer build). The v4 and v3 copies,
 * whose processors have FMA, contract a * b + c into one rounding
 * (fp-contract=fast for these functions alone: the rest of the host code
 * keeps the build's -ffp-contract=off). Same inputs on the same processor
 * give the same bits, and the lane and scalar loops, each contracted alike,
 * agree to the bit (tests/test_adaptive.c, test_kepler.c); a machine with
 * FMA and one without differ in the last bits, as the CPU and the GPU do
 * (docs/ARCHITECTURE.md, "Reproducibility"). Clang, which has no per-function
 * contraction attribute, compiles the clones uncontracted. */
#define SL__CPU_CLONE_TARGETS target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")
#if defined(SL_NO_LANE_CLONES) && SL_NO_LANE_CLONES
#define SL_CPU_CLONES
#elif defined(__clang__)
#define SL_CPU_CLONES __attribute__((SL__CPU_CLONE_TARGETS))
#else
#define SL_CPU_CLONES __attribute__((SL__CPU_CLONE_TARGETS, optimize("fp-contract=fast")))
#endif

/* The scalar (runtime-N) loop: the same, without gcc's -O3 pass "load CSE
 * after reload" (-fgcse-after-reload). On this one long function, with its
 * loops over a runtime N and arrays of SL_NBODY_MAX, the pass took 80 % of
 * the compile: mvs.c (its table and scalar loops) compiled in 97 s of CPU
 * with it and 20 s without, the same code within 0.1 % of its size; every
 * integrator's and every stamped kernel set's translation unit carries such
 * a loop. The unrolled lane loops keep the pass. One optimize attribute
 * with both options: a second one would start again from the command
 * line's and drop fp-contract=fast. */
#if defined(__clang__) || !defined(__GNUC__)
#define SL_CPU_SCALAR_CLONES SL_CPU_CLONES
#elif defined(SL_NO_LANE_CLONES) && SL_NO_LANE_CLONES
#define SL_CPU_SCALAR_CLONES __attribute__((optimize("no-gcse-after-reload")))
#else
#define SL_CPU_SCALAR_CLONES                                                               \
    __attribute__((SL__CPU_CLONE_TARGETS, optimize("fp-contract=fast", "no-gcse-after-reload")))
#endif

SL_EXTERN_C_END

#endif
