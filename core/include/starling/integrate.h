/* The generic integration loop, written once and instantiated per
 * (integrator, force, N) into a CPU loop and a CUDA kernel.
 *
 * Every array below is strided by S: component c of body b is x[S*(3b+c)],
 * mass b is m[S*b], scratch double k is ps[S*k]. The GPU and the scalar CPU
 * loops pass S = 1; the CPU lane loop passes SL_CHUNK, so that neighbouring
 * systems are neighbouring doubles and the loop over systems vectorises.
 *
 * An integrator P provides, as SL_HD functions and macros:
 *   SL_PROP_<P>_NSTAGES    force evaluations per step, 1..SL_STAGES_MAX
 *   SL_PROP_<P>_SCRATCH    doubles per body of working state (may be 0)
 *   SL_PROP_<P>_PERSIST    leading doubles of that kept between launches
 *   SL_PROP_<P>_JERK       1 if it needs jerks, 0 if accelerations suffice
 *   sl_prop_<P>_begin(n, S, x, v, m, ps, a, j, pp)       after a force call at (x, v)
 *   sl_prop_<P>_point(k, n, S, h, x, v, ps, xe, ve, pp)  where stage k evaluates
 *   sl_prop_<P>_apply(k, n, S, h, x, v, ps, a, j, pp)    use stage k's forces
 * (j is not written when JERK is 0) and never calls a force itself: the loop
 * calls the force between stages, so every integrator works with every force
 * without function pointers in the kernel. A force F provides
 *   sl_force_<F>_acc(n, S, x, m, fp, a)                  for JERK 0 integrators
 *   sl_force_<F>_acc_jerk(n, S, x, v, m, fp, a, j)       for JERK 1 integrators
 *   sl_force_<F>_potential(n, S, x, m, fp)               for the energy monitor
 * pp is the propagator's packed parameters (pp[0] is the step size) and fp
 * the force's. With N a literal, all body loops unroll. */
#ifndef STARLING_INTEGRATE_H
#define STARLING_INTEGRATE_H

#include <math.h>
#include <stdint.h>
#include "starling/cancel.h"
#include "starling/ensemble.h"
#include "starling/force.h"
#include "starling/hd.h"
#include "starling/monitor.h"
#include "starling/propagator.h"

SL_EXTERN_C_BEGIN

enum { SL_LOG_HEAD = 4 };  /* sys, time, step, event; then 6 doubles per body */
enum { SL_LOG_PERIODIC = 0, SL_LOG_STOP = 1, SL_LOG_INITIAL = 2, SL_LOG_FINAL = 3 };
enum { SL_CNT_LOG = 0, SL_CNT_UNFINISHED = 1, SL_CNT_LOST = 2, SL_NCOUNTERS = 4 };

/* Everything a launch needs; passed by value to CUDA kernels. All pointers
 * are in the memory space of the backend that runs the launch. */
typedef struct sl_run_args {
    double *state;       /* chunked SoA, see ensemble.h */
    double *persist;     /* chunked SoA of PERSIST doubles per body */
    double *time;
    int64_t *steps;
    int32_t *status, *reason, *detail;
    double *stop_time;
    const double *t_start;      /* per system time at the start of this run */
    const int64_t *step_start;  /* per system step count at the start of this run */
    double *next_log;    /* per system, for log_every_dt */
    const double *e0;    /* per system initial energy, for energy_max */
    double *log;         /* log_cap records of SL_LOG_HEAD + 6 n_body doubles */
    unsigned long long *counters; /* SL_NCOUNTERS */
    int64_t log_cap;
    int64_t n_sys;
    int n_body;
    int first_launch;    /* 1: compute the integrator's start state */
    double t_end;
    int64_t launch_steps;
    int64_t max_steps;   /* steps allowed in this run (0: no cap) */
    sl_monitor_config mon;
    double fp[SL_FORCE_PARAMS_MAX];
    double pp[SL_PROP_PARAMS_MAX];
} sl_run_args;

#if defined(__CUDA_ARCH__)
#define SL_ATOMIC_INC(p) atomicAdd((p), 1ull)
#else
#define SL_ATOMIC_INC(p) __atomic_fetch_add((p), 1ull, __ATOMIC_RELAXED)
#endif

SL_HD SL_INLINE size_t sl_persist_index(int64_t s, int n_body, int per_body, int k)
{
    return ((size_t)(s / SL_CHUNK) * (size_t)(n_body * per_body) + (size_t)k) * SL_CHUNK +
           (size_t)(s % SL_CHUNK);
}

SL_HD SL_INLINE size_t sl_state_at(int64_t s, int n_body, int body, int field)
{
    return ((size_t)(s / SL_CHUNK) * (size_t)(n_body * SL_NFIELD) +
            (size_t)(body * SL_NFIELD + field)) * SL_CHUNK + (size_t)(s % SL_CHUNK);
}

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

/* Stop conditions that need only the state: non-finite values, ejection,
 * unbound bodies and close encounters. Body 0 is the central body; arrays
 * are strided by S (see forces/newton/newton.h). Returns an sl_stop_reason,
 * with the body (or pair i*256+j) in *detail. */
SL_HD SL_INLINE int sl_monitor_stop(const sl_monitor_config *mc, int n, int S, const double *x,
                                    const double *v, const double *m, int *detail)
{
#define SL_XS(b, c) x[S * (3 * (b) + (c))]
    if (mc->check_nonfinite) {
        /* inf * 0 and nan * 0 are nan, so one sum covers every component */
        double sum = 0.0;
        SL_UNROLL
        for (int k = 0; k < 3 * n; k++)
            sum += x[S * k] * 0.0 + v[S * k] * 0.0;
        if (sum != 0.0) {
            *detail = -1;
            return SL_REASON_NONFINITE;
        }
    }
    if (mc->eject_r > 0.0 || mc->unbound_r >= 0.0) {
        SL_UNROLL
        for (int b = 1; b < n; b++) {
            double dx = SL_XS(b, 0) - SL_XS(0, 0), dy = SL_XS(b, 1) - SL_XS(0, 1),
                   dz = SL_XS(b, 2) - SL_XS(0, 2);
            double r2 = dx * dx + dy * dy + dz * dz;
            if (mc->eject_r > 0.0 && r2 > mc->eject_r * mc->eject_r) {
                *detail = b;
                return SL_REASON_EJECTION;
            }
            if (mc->unbound_r >= 0.0 && r2 > mc->unbound_r * mc->unbound_r) {
                double ux = v[S * (3 * b)] - v[0], uy = v[S * (3 * b + 1)] - v[S],
                       uz = v[S * (3 * b + 2)] - v[2 * S];
                double e = 0.5 * (ux * ux + uy * uy + uz * uz) - (m[0] + m[S * b]) / sqrt(r2);
                if (e > 0.0) {
                    *detail = b;
                    return SL_REASON_UNBOUND;
                }
            }
        }
    }
    if (mc->close_hill > 0.0) {
        SL_UNROLL
        for (int i = 1; i < n; i++) {
            SL_UNROLL
            for (int j = i + 1; j < n; j++) {
                double hill = cbrt((m[S * i] + m[S * j]) / (3.0 * m[0]));
                if (sl_close_pair(S, x, i, j, hill, mc->close_hill)) {
                    *detail = i * 256 + j;
                    return SL_REASON_CLOSE_ENCOUNTER;
                }
            }
        }
    }
#undef SL_XS
    return SL_REASON_NONE;
}

/* Steps from t0 to t_end with step dt. Times are t0 + k dt, not a running
 * sum, so rounding cannot add a sliver step; a last step within 1e-9 dt of
 * a whole step is merged into it. */
SL_HD SL_INLINE int64_t sl_steps_needed(double t0, double t_end, double dt)
{
    if (!(t_end > t0))
        return 0;
    double n = ceil((t_end - t0) / dt - 1e-9);
    return n < 1.0 ? 1 : (int64_t)n;
}

/* The time after step j (1-based) of n. */
SL_HD SL_INLINE double sl_step_time(double t0, double t_end, double dt, int64_t j, int64_t n)
{
    return j >= n ? t_end : t0 + (double)j * dt;
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

/* Periodic logging: every k steps and/or every dt of simulated time. */
SL_HD SL_INLINE void sl_monitor_log(const sl_run_args *a, int64_t s, int n, int S, double t,
                                    int64_t step, double *next_log, const double *x,
                                    const double *v)
{
    int due = a->mon.log_every_steps > 0 && step % a->mon.log_every_steps == 0;
    if (a->mon.log_every_dt > 0.0 && t >= *next_log) {
        due = 1;
        while (*next_log <= t)
            *next_log += a->mon.log_every_dt;
    }
    if (due)
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

/* Stages an integrator may have (each is one force evaluation per step). */
#define SL_STAGES_MAX 16
/* Doubles per body of an integrator's working array: SCRATCH may be 0, and
 * a zero-length array is not C (nvcc refuses it). */
#define SL_SCRATCH_LEN(P) (SL_PROP_##P##_SCRATCH > 0 ? SL_PROP_##P##_SCRATCH : 1)

#define SL_FORCE_EVAL_1(F, n, S, x, v, m, fp, acc, jerk)                                   \
    sl_force_##F##_acc_jerk(n, S, x, v, m, fp, acc, jerk)
#define SL_FORCE_EVAL_0(F, n, S, x, v, m, fp, acc, jerk) sl_force_##F##_acc(n, S, x, m, fp, acc)
#define SL_FORCE_EVAL(F, JERK, ...) SL_CAT(SL_FORCE_EVAL_, JERK)(F, __VA_ARGS__)

/* The loop for one system. NDECL sizes the local arrays (a literal N, or
 * SL_NBODY_MAX for the runtime-N fallback); NVAL is the body count. */
#define SL_LOOP_DEFINE(P, F, SUFFIX, NDECL, NVAL)                                          \
    SL_HD SL_INLINE void sl_loop_##P##_##F##_##SUFFIX(const sl_run_args *a, int64_t s)     \
    {                                                                                      \
        const int n = (NVAL);                                                              \
        if (a->status[s] != SL_SYS_ACTIVE)                                                 \
            return;                                                                        \
        double x[3 * (NDECL)], v[3 * (NDECL)], m[(NDECL)];                                 \
        double xe[3 * (NDECL)], ve[3 * (NDECL)], ae[3 * (NDECL)], je[3 * (NDECL)];         \
        double ps[SL_SCRATCH_LEN(P) * (NDECL)];                                            \
        sl_load_system(a, s, n, x, v, m);                                                  \
        if (a->first_launch) {                                                             \
            SL_FORCE_EVAL(F, SL_PROP_##P##_JERK, n, 1, x, v, m, a->fp, ae, je);            \
            sl_prop_##P##_begin(n, 1, x, v, m, ps, ae, je, a->pp);                            \
        } else {                                                                           \
            sl_load_persist(a, s, n, SL_PROP_##P##_PERSIST, ps);                           \
        }                                                                                  \
        double t = a->time[s];                                                             \
        int64_t step = a->steps[s];                                                        \
        const double t0 = a->t_start[s];                                                   \
        const int64_t k0 = a->step_start[s];                                               \
        const double dt = a->pp[0];                                                        \
        const int64_t n_need = sl_steps_needed(t0, a->t_end, dt);                          \
        double next_log = a->mon.log_every_dt > 0.0 ? a->next_log[s] : 0.0;                \
        int why = SL_REASON_NONE, detail = -1;                                             \
        for (int64_t k = 0; k < a->launch_steps && step - k0 < n_need; k++) {              \
            const int64_t j = step - k0 + 1;                                               \
            const double t_next = sl_step_time(t0, a->t_end, dt, j, n_need);               \
            const double h = j < n_need ? dt : t_next - t;                                 \
            SL_UNROLL                                                                      \
            for (int st = 0; st < SL_PROP_##P##_NSTAGES; st++) {                           \
                sl_prop_##P##_point(st, n, 1, h, x, v, ps, xe, ve, a->pp);                    \
                SL_FORCE_EVAL(F, SL_PROP_##P##_JERK, n, 1, xe, ve, m, a->fp, ae, je);      \
                sl_prop_##P##_apply(st, n, 1, h, x, v, ps, ae, je, a->pp);                    \
            }                                                                              \
            t = t_next;                                                                    \
            step++;                                                                        \
            why = sl_monitor_stop(&a->mon, n, 1, x, v, m, &detail);                           \
            if (!why && a->mon.energy_max > 0.0 && step % a->mon.check_every == 0) {       \
                double e = sl_kinetic(n, 1, v, m) + sl_force_##F##_potential(n, 1, x, m, a->fp); \
                if (!(fabs(e / a->e0[s] - 1.0) <= a->mon.energy_max))                      \
                    why = SL_REASON_ENERGY;                                                \
            }                                                                              \
            if (!why && a->max_steps > 0 && step - k0 >= a->max_steps && t < a->t_end)     \
                why = SL_REASON_STEP_CAP;                                                  \
            if (why)                                                                       \
                break;                                                                     \
            sl_monitor_log(a, s, n, 1, t, step, &next_log, x, v);                             \
        }                                                                                  \
        if (a->mon.log_every_dt > 0.0)                                                     \
            a->next_log[s] = next_log;                                                     \
        sl_store_persist(a, s, n, SL_PROP_##P##_PERSIST, ps);                              \
        sl_finish_system(a, s, n, t, step, why, detail, x, v);                             \
    }

#if !defined(__CUDACC__)

/* The CPU's lane loop. A chunk of SL_CHUNK systems is copied into local
 * arrays laid out [component][lane] and stepped in lockstep, so that each
 * `omp simd` loop over lanes runs the same SL_HD stage and force code as
 * the GPU, vectorised across systems. Lanes that are stopped, or already
 * at t_end, step with h = 0, which leaves a finite state bit-for-bit
 * unchanged. Monitors other than the non-finite check run per lane, and
 * only when configured. The function is cloned for AVX-512, AVX2 and
 * baseline x86-64 and picked at load time; -ffp-contract=off keeps the
 * clones' results identical. */
typedef struct sl_lanes {
    double t[SL_CHUNK], h[SL_CHUNK], t_next[SL_CHUNK], next_log[SL_CHUNK], t0[SL_CHUNK];
    int64_t step[SL_CHUNK], k0[SL_CHUNK], n_need[SL_CHUNK];
    int live[SL_CHUNK], was_live[SL_CHUNK];
    int lanes;
} sl_lanes;

static inline void sl_lanes_load(const sl_run_args *a, int64_t chunk, int n, int per_body,
                                 double *x, double *v, double *m, double *ps, sl_lanes *L)
{
    const int W = SL_CHUNK;
    const int64_t s0 = chunk * W;
    L->lanes = a->n_sys - s0 < W ? (int)(a->n_sys - s0) : W;
    const double *st = a->state + (size_t)chunk * (size_t)(n * SL_NFIELD) * W;
    for (int b = 0; b < n; b++)
        for (int c = 0; c < 3; c++)
            for (int l = 0; l < W; l++) {
                x[W * (3 * b + c) + l] = st[(b * SL_NFIELD + SL_X + c) * W + l];
                v[W * (3 * b + c) + l] = st[(b * SL_NFIELD + SL_VX + c) * W + l];
            }
    for (int b = 0; b < n; b++)
        for (int l = 0; l < W; l++)
            m[W * b + l] = st[(b * SL_NFIELD + SL_M) * W + l];
    if (!a->first_launch) {
        const double *pp = a->persist + (size_t)chunk * (size_t)(n * per_body) * W;
        for (int k = 0; k < per_body * n; k++)
            for (int l = 0; l < W; l++)
                ps[W * k + l] = pp[k * W + l];
    }
    for (int l = 0; l < W; l++) {
        int in = l < L->lanes;
        L->live[l] = L->was_live[l] = in && a->status[s0 + l] == SL_SYS_ACTIVE;
        L->t[l] = in ? a->time[s0 + l] : a->t_end;
        L->step[l] = in ? a->steps[s0 + l] : 0;
        L->t0[l] = in ? a->t_start[s0 + l] : a->t_end;
        L->k0[l] = in ? a->step_start[s0 + l] : 0;
        L->n_need[l] = sl_steps_needed(L->t0[l], a->t_end, a->pp[0]);
        L->next_log[l] = in && a->mon.log_every_dt > 0.0 ? a->next_log[s0 + l] : 0.0;
    }
}

static inline void sl_lanes_store(const sl_run_args *a, int64_t chunk, int n, int per_body,
                                  const double *x, const double *v, const double *ps,
                                  const sl_lanes *L)
{
    const int W = SL_CHUNK;
    const int64_t s0 = chunk * W;
    double *st = a->state + (size_t)chunk * (size_t)(n * SL_NFIELD) * W;
    double *pp = a->persist + (size_t)chunk * (size_t)(n * per_body) * W;
    for (int l = 0; l < L->lanes; l++) {
        if (!L->was_live[l])
            continue;
        for (int b = 0; b < n; b++)
            for (int c = 0; c < 3; c++) {
                st[(b * SL_NFIELD + SL_X + c) * W + l] = x[W * (3 * b + c) + l];
                st[(b * SL_NFIELD + SL_VX + c) * W + l] = v[W * (3 * b + c) + l];
            }
        for (int k = 0; k < per_body * n; k++)
            pp[k * W + l] = ps[W * k + l];
        a->time[s0 + l] = L->t[l];
        a->steps[s0 + l] = L->step[l];
        if (a->mon.log_every_dt > 0.0)
            a->next_log[s0 + l] = L->next_log[l];
        if (L->live[l] && L->t[l] < a->t_end)
            SL_ATOMIC_INC(&a->counters[SL_CNT_UNFINISHED]);
    }
}

/* Sets the step of every lane; returns how many lanes step. */
static inline int sl_lanes_plan(const sl_run_args *a, sl_lanes *L)
{
    const double dt = a->pp[0];
    int any = 0;
    for (int l = 0; l < SL_CHUNK; l++) {
        const int64_t j = L->step[l] - L->k0[l] + 1;
        int go = L->live[l] && j <= L->n_need[l];
        L->t_next[l] = sl_step_time(L->t0[l], a->t_end, dt, j, L->n_need[l]);
        L->h[l] = go ? (j < L->n_need[l] ? dt : L->t_next[l] - L->t[l]) : 0.0;
        any += go;
    }
    return any;
}

static inline void sl_lanes_stop(const sl_run_args *a, int64_t s, sl_lanes *L, int l, int why,
                                 int detail, int n, const double *x, const double *v)
{
    L->live[l] = 0;
    a->status[s] = why == SL_REASON_NONFINITE ? SL_SYS_FAILED : SL_SYS_STOPPED;
    a->reason[s] = why;
    a->detail[s] = detail;
    a->stop_time[s] = L->t[l];
    if (a->mon.log_on_stop)
        sl_log_record(a, s, n, SL_CHUNK, L->t[l], L->step[l], SL_LOG_STOP, x + l, v + l);
}

/* Per-lane work that is cheap to decide in scalar code: energy checks,
 * the step cap and logging. */
static inline int sl_lanes_need_scalar(const sl_run_args *a)
{
    const sl_monitor_config *mc = &a->mon;
    return mc->energy_max > 0.0 || a->max_steps > 0 || mc->log_every_steps > 0 ||
           mc->log_every_dt > 0.0;
}

/* The state-only stop checks (ejection, unbound, close encounter) cost a
 * scalar sl_monitor_stop per lane and step, which halved the CPU's speed.
 * So a vectorised screen runs first, on the same values with the same
 * formulas but thresholds loosened by 1e-12 relative: a lane it passes
 * cannot stop (rounding is ~1e-16), and only the lanes it flags go through
 * sl_monitor_stop, which decides exactly as before. The Hill factor
 * cbrt((m_i + m_j) / 3 m_0) of a pair depends on the masses only, so it
 * is computed once per launch (the planet pairs of n bodies, i, j >= 1). */
#define SL_SCREEN_SLACK 1e-12
#define SL_PAIRS(n) (((n) - 1) * ((n) - 2) / 2)

static inline void sl_lanes_hill(int n, const double *m, double *hf)
{
    const int W = SL_CHUNK;
    int q = 0;
    for (int i = 1; i < n; i++)
        for (int j = i + 1; j < n; j++, q++)
            for (int l = 0; l < W; l++)
                hf[W * q + l] = cbrt((m[W * i + l] + m[W * j + l]) / (3.0 * m[l]));
}

static inline int sl_lanes_screened(const sl_monitor_config *mc)
{
    return mc->eject_r > 0.0 || mc->unbound_r >= 0.0 || mc->close_hill > 0.0;
}

/* flag[l] |= 1 where lane l may meet a state-only stop condition; returns
 * whether any lane may. */
static inline int sl_lanes_screen(const sl_monitor_config *mc, int n, const double *x,
                                  const double *hf, int *flag)
{
    const int W = SL_CHUNK;
    double rr = INFINITY;
    if (mc->eject_r > 0.0)
        rr = mc->eject_r * mc->eject_r;
    if (mc->unbound_r >= 0.0 && mc->unbound_r * mc->unbound_r < rr)
        rr = mc->unbound_r * mc->unbound_r;
    rr *= 1.0 - SL_SCREEN_SLACK;
    const double ch = mc->close_hill * (1.0 + SL_SCREEN_SLACK);
    const int close = mc->close_hill > 0.0;
    int any = 0;
#pragma omp simd reduction(| : any)
    for (int l = 0; l < W; l++) {
#define SL_XL(b, c) x[W * (3 * (b) + (c)) + l]
        int f = 0;
        SL_UNROLL
        for (int b = 1; b < n; b++) {
            double dx = SL_XL(b, 0) - SL_XL(0, 0), dy = SL_XL(b, 1) - SL_XL(0, 1),
                   dz = SL_XL(b, 2) - SL_XL(0, 2);
            f |= dx * dx + dy * dy + dz * dz > rr;
        }
        if (close) {
            int q = 0;
            SL_UNROLL
            for (int i = 1; i < n; i++) {
                SL_UNROLL
                for (int j = i + 1; j < n; j++, q++)
                    f |= sl_close_pair(W, x + l, i, j, hf[W * q + l], ch);
            }
        }
#undef SL_XL
        flag[l] |= f;
        any |= f;
    }
    return any;
}

/* One stage of every lane: the stage number is a literal, so the
 * integrator's per-stage branches fold away and the lane loop is straight
 * code the vectoriser accepts. SL_LANES_DEFINE stamps SL_STAGES_MAX of
 * them and refuses, at compile time, an integrator with more. */
#define SL__LANES_STAGE(P, F, N, ST)                                                       \
    if ((ST) < SL_PROP_##P##_NSTAGES) {                                                    \
        _Pragma("omp simd")                                                                \
        for (int l = 0; l < W; l++) {                                                      \
            sl_prop_##P##_point(ST, N, W, L.h[l], x + l, v + l, ps + l, xe + l, ve + l,    \
                                a->pp);                                                    \
            SL_FORCE_EVAL(F, SL_PROP_##P##_JERK, N, W, xe + l, ve + l, m + l, a->fp,       \
                          ae + l, je + l);                                                 \
            sl_prop_##P##_apply(ST, N, W, L.h[l], x + l, v + l, ps + l, ae + l, je + l,    \
                                a->pp);                                                    \
        }                                                                                  \
    }

#define SL_LANES_DEFINE(P, F, N)                                                           \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))          \
    static void sl_lanes_##P##_##F##_##N(const sl_run_args *a, int64_t chunk)              \
    {                                                                                      \
        _Static_assert(SL_PROP_##P##_NSTAGES >= 1 &&                                       \
                           SL_PROP_##P##_NSTAGES <= SL_STAGES_MAX,                         \
                       "integrator " #P ": SL_PROP_" #P "_NSTAGES must be 1.."             \
                       SL_STR(SL_STAGES_MAX));                                             \
        enum { W = SL_CHUNK };                                                             \
        _Alignas(64) double x[3 * (N) * W], v[3 * (N) * W], m[(N) * W];                    \
        _Alignas(64) double xe[3 * (N) * W], ve[3 * (N) * W];                              \
        _Alignas(64) double ae[3 * (N) * W], je[3 * (N) * W];                              \
        _Alignas(64) double ps[SL_SCRATCH_LEN(P) * (N) * W];                               \
        sl_lanes L;                                                                        \
        const int64_t s0 = chunk * W;                                                      \
        sl_lanes_load(a, chunk, N, SL_PROP_##P##_PERSIST, x, v, m, ps, &L);                \
        if (a->first_launch) {                                                             \
            _Pragma("omp simd")                                                            \
            for (int l = 0; l < W; l++) {                                                  \
                SL_FORCE_EVAL(F, SL_PROP_##P##_JERK, N, W, x + l, v + l, m + l, a->fp,     \
                              ae + l, je + l);                                             \
                sl_prop_##P##_begin(N, W, x + l, v + l, m + l, ps + l, ae + l, je + l,     \
                                    a->pp);                                                \
            }                                                                              \
        }                                                                                  \
        const int scalar = sl_lanes_need_scalar(a), screened = sl_lanes_screened(&a->mon);  \
        _Alignas(64) double hf[(SL_PAIRS(N) > 0 ? SL_PAIRS(N) : 1) * W];                   \
        int flag[W];                                                                       \
        if (screened && a->mon.close_hill > 0.0)                                           \
            sl_lanes_hill(N, m, hf);                                                       \
        for (int64_t k = 0; k < a->launch_steps && sl_lanes_plan(a, &L); k++) {            \
            SL__LANES_STAGE(P, F, N, 0)                                                    \
            SL__LANES_STAGE(P, F, N, 1)                                                    \
            SL__LANES_STAGE(P, F, N, 2)                                                    \
            SL__LANES_STAGE(P, F, N, 3)                                                    \
            SL__LANES_STAGE(P, F, N, 4)                                                    \
            SL__LANES_STAGE(P, F, N, 5)                                                    \
            SL__LANES_STAGE(P, F, N, 6)                                                    \
            SL__LANES_STAGE(P, F, N, 7)                                                    \
            SL__LANES_STAGE(P, F, N, 8)                                                    \
            SL__LANES_STAGE(P, F, N, 9)                                                    \
            SL__LANES_STAGE(P, F, N, 10)                                                   \
            SL__LANES_STAGE(P, F, N, 11)                                                   \
            SL__LANES_STAGE(P, F, N, 12)                                                   \
            SL__LANES_STAGE(P, F, N, 13)                                                   \
            SL__LANES_STAGE(P, F, N, 14)                                                   \
            SL__LANES_STAGE(P, F, N, 15)                                                   \
            int bad = 0;                                                                   \
            const int nf = a->mon.check_nonfinite;                                         \
            _Pragma("omp simd reduction(|:bad)")                                           \
            for (int l = 0; l < W; l++) {                                                  \
                double sum = 0.0;                                                          \
                SL_UNROLL                                                                  \
                for (int q = 0; q < 3 * (N); q++)                                          \
                    sum += x[W * q + l] * 0.0 + v[W * q + l] * 0.0;                        \
                flag[l] = nf & (sum != 0.0);                                               \
                bad |= (L.h[l] > 0.0) & flag[l];                                           \
            }                                                                              \
            for (int l = 0; l < W; l++)                                                    \
                if (L.h[l] > 0.0) {                                                        \
                    L.t[l] = L.t_next[l];                                                  \
                    L.step[l]++;                                                           \
                }                                                                          \
            if (screened)                                                                  \
                bad |= sl_lanes_screen(&a->mon, N, x, hf, flag);                           \
            if (!scalar && !bad)                                                           \
                continue;                                                                  \
            for (int l = 0; l < W; l++) {                                                  \
                if (!(L.h[l] > 0.0))                                                       \
                    continue;                                                              \
                int detail = -1;                                                           \
                int why = flag[l] ? sl_monitor_stop(&a->mon, N, W, x + l, v + l, m + l,    \
                                                    &detail)                               \
                                  : SL_REASON_NONE;                                        \
                if (!why && a->mon.energy_max > 0.0 && L.step[l] % a->mon.check_every == 0) { \
                    double e = sl_kinetic(N, W, v + l, m + l) +                            \
                               sl_force_##F##_potential(N, W, x + l, m + l, a->fp);        \
                    if (!(fabs(e / a->e0[s0 + l] - 1.0) <= a->mon.energy_max))              \
                        why = SL_REASON_ENERGY;                                            \
                }                                                                          \
                if (!why && a->max_steps > 0 && L.step[l] - L.k0[l] >= a->max_steps &&     \
                    L.t[l] < a->t_end)                                                     \
                    why = SL_REASON_STEP_CAP;                                              \
                if (why)                                                                   \
                    sl_lanes_stop(a, s0 + l, &L, l, why, detail, N, x, v);                 \
                else                                                                       \
                    sl_monitor_log(a, s0 + l, N, W, L.t[l], L.step[l], &L.next_log[l],     \
                                   x + l, v + l);                                          \
            }                                                                              \
        }                                                                                  \
        sl_lanes_store(a, chunk, N, SL_PROP_##P##_PERSIST, x, v, ps, &L);                  \
    }                                                                                      \
    sl_status sl_run_##P##_##F##_##N##_cpu(const sl_run_args *a)                           \
    {                                                                                      \
        const int64_t chunks = (a->n_sys + SL_CHUNK - 1) / SL_CHUNK;                       \
        _Pragma("omp parallel for schedule(dynamic, 1)")                                   \
        for (int64_t c = 0; c < chunks; c++)                                               \
            if (!sl_cancelled()) /* run.c abandons the launch */                           \
                sl_lanes_##P##_##F##_##N(a, c);                                            \
        return SL_OK;                                                                      \
    }

#endif /* !__CUDACC__ */

/* CPU loop over systems: OpenMP threads, dynamic so that systems that stop
 * early do not leave threads idle. */
#define SL_CPU_DEFINE(P, F, SUFFIX)                                                        \
    sl_status sl_run_##P##_##F##_##SUFFIX##_cpu(const sl_run_args *a)                      \
    {                                                                                      \
        _Pragma("omp parallel for schedule(dynamic, 64)")                                  \
        for (int64_t s = 0; s < a->n_sys; s++)                                             \
            if (!sl_cancelled()) /* run.c abandons the launch */                           \
                sl_loop_##P##_##F##_##SUFFIX(a, s);                                        \
        return SL_OK;                                                                      \
    }

SL_EXTERN_C_END

#endif
