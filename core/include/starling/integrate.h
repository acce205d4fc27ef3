/* The generic integration loop, written once and instantiated per
 * (integrator, force, N) into a CPU loop and a CUDA kernel.
 *
 * An integrator P provides, as SL_HD functions and macros:
 *   SL_PROP_<P>_NSTAGES    force evaluations per step
 *   SL_PROP_<P>_SCRATCH    doubles per body of working state
 *   SL_PROP_<P>_PERSIST    leading doubles of that kept between launches
 *   SL_PROP_<P>_JERK       1 if it needs jerks, 0 if accelerations suffice
 *   sl_prop_<P>_begin(n, x, v, m, ps, a, j, pp)        after a force call at (x, v)
 *   sl_prop_<P>_point(k, n, h, x, v, ps, xe, ve, pp)   where stage k evaluates
 *   sl_prop_<P>_apply(k, n, h, x, v, ps, a, j, pp)     use stage k's forces
 * and never calls a force itself: the loop calls sl_force_<F>_* between
 * stages, so every integrator works with every force without function
 * pointers in the kernel. With N a literal, all body loops unroll. */
#ifndef STARLING_INTEGRATE_H
#define STARLING_INTEGRATE_H

#include <math.h>
#include <stdint.h>
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
    int64_t max_steps;   /* 0: no cap */
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

SL_HD SL_INLINE double sl_kinetic(int n, const double *v, const double *m)
{
    double k = 0.0;
    SL_UNROLL
    for (int b = 0; b < n; b++)
        k += 0.5 * m[b] * (v[3 * b] * v[3 * b] + v[3 * b + 1] * v[3 * b + 1] +
                           v[3 * b + 2] * v[3 * b + 2]);
    return k;
}

/* Stop conditions that need only the state: non-finite values, ejection,
 * unbound bodies and close encounters. Body 0 is the central body. Returns
 * an sl_stop_reason, with the body (or pair i*256+j) in *detail. */
SL_HD SL_INLINE int sl_monitor_stop(const sl_monitor_config *mc, int n, const double *x,
                                    const double *v, const double *m, int *detail)
{
    if (mc->check_nonfinite) {
        /* inf - inf and nan propagate, so one sum covers every component */
        double sum = 0.0;
        SL_UNROLL
        for (int k = 0; k < 3 * n; k++)
            sum += x[k] * 0.0 + v[k] * 0.0;
        if (sum != 0.0 || sum != sum) {
            *detail = -1;
            return SL_REASON_NONFINITE;
        }
    }
    if (mc->eject_r > 0.0 || mc->unbound_r >= 0.0) {
        SL_UNROLL
        for (int b = 1; b < n; b++) {
            double dx = x[3 * b] - x[0], dy = x[3 * b + 1] - x[1], dz = x[3 * b + 2] - x[2];
            double r2 = dx * dx + dy * dy + dz * dz;
            if (mc->eject_r > 0.0 && r2 > mc->eject_r * mc->eject_r) {
                *detail = b;
                return SL_REASON_EJECTION;
            }
            if (mc->unbound_r >= 0.0 && r2 > mc->unbound_r * mc->unbound_r) {
                double ux = v[3 * b] - v[0], uy = v[3 * b + 1] - v[1], uz = v[3 * b + 2] - v[2];
                double e = 0.5 * (ux * ux + uy * uy + uz * uz) - (m[0] + m[b]) / sqrt(r2);
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
                double ri = sqrt((x[3 * i] - x[0]) * (x[3 * i] - x[0]) +
                                 (x[3 * i + 1] - x[1]) * (x[3 * i + 1] - x[1]) +
                                 (x[3 * i + 2] - x[2]) * (x[3 * i + 2] - x[2]));
                double rj = sqrt((x[3 * j] - x[0]) * (x[3 * j] - x[0]) +
                                 (x[3 * j + 1] - x[1]) * (x[3 * j + 1] - x[1]) +
                                 (x[3 * j + 2] - x[2]) * (x[3 * j + 2] - x[2]));
                double rh = cbrt((m[i] + m[j]) / (3.0 * m[0])) * 0.5 * (ri + rj);
                double dx = x[3 * i] - x[3 * j], dy = x[3 * i + 1] - x[3 * j + 1],
                       dz = x[3 * i + 2] - x[3 * j + 2];
                double lim = mc->close_hill * rh;
                if (dx * dx + dy * dy + dz * dz < lim * lim) {
                    *detail = i * 256 + j;
                    return SL_REASON_CLOSE_ENCOUNTER;
                }
            }
        }
    }
    return SL_REASON_NONE;
}

SL_HD SL_INLINE void sl_log_record(const sl_run_args *a, int64_t s, int n, double t,
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
            r[SL_LOG_HEAD + 6 * b + c] = x[3 * b + c];
            r[SL_LOG_HEAD + 6 * b + 3 + c] = v[3 * b + c];
        }
}

/* Periodic logging: every k steps and/or every dt of simulated time. */
SL_HD SL_INLINE void sl_monitor_log(const sl_run_args *a, int64_t s, int n, double t,
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
        sl_log_record(a, s, n, t, step, SL_LOG_PERIODIC, x, v);
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
            sl_log_record(a, s, n, t, step, SL_LOG_STOP, x, v);
    } else if (t < a->t_end) {
        SL_ATOMIC_INC(&a->counters[SL_CNT_UNFINISHED]);
    }
}

#define SL_FORCE_EVAL_1(F, n, x, v, m, fp, acc, jerk) sl_force_##F##_acc_jerk(n, x, v, m, fp, acc, jerk)
#define SL_FORCE_EVAL_0(F, n, x, v, m, fp, acc, jerk) sl_force_##F##_acc(n, x, m, fp, acc)
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
        double ps[SL_PROP_##P##_SCRATCH * (NDECL)];                                        \
        sl_load_system(a, s, n, x, v, m);                                                  \
        if (a->first_launch) {                                                             \
            SL_FORCE_EVAL(F, SL_PROP_##P##_JERK, n, x, v, m, a->fp, ae, je);               \
            sl_prop_##P##_begin(n, x, v, m, ps, ae, je, a->pp);                            \
        } else {                                                                           \
            sl_load_persist(a, s, n, SL_PROP_##P##_PERSIST, ps);                           \
        }                                                                                  \
        double t = a->time[s];                                                             \
        int64_t step = a->steps[s];                                                        \
        double next_log = a->mon.log_every_dt > 0.0 ? a->next_log[s] : 0.0;                \
        const double dt = a->pp[0];                                                        \
        int why = SL_REASON_NONE, detail = 0;                                              \
        for (int64_t k = 0; k < a->launch_steps && t < a->t_end; k++) {                    \
            double rem = a->t_end - t;                                                     \
            int last = rem <= dt * (1.0 + 1e-12);                                          \
            double h = last ? rem : dt;                                                    \
            SL_UNROLL                                                                      \
            for (int st = 0; st < SL_PROP_##P##_NSTAGES; st++) {                           \
                sl_prop_##P##_point(st, n, h, x, v, ps, xe, ve, a->pp);                    \
                SL_FORCE_EVAL(F, SL_PROP_##P##_JERK, n, xe, ve, m, a->fp, ae, je);         \
                sl_prop_##P##_apply(st, n, h, x, v, ps, ae, je, a->pp);                    \
            }                                                                              \
            t = last ? a->t_end : t + h;                                                   \
            step++;                                                                        \
            why = sl_monitor_stop(&a->mon, n, x, v, m, &detail);                           \
            if (!why && a->mon.energy_max > 0.0 && step % a->mon.check_every == 0) {       \
                double e = sl_kinetic(n, v, m) + sl_force_##F##_potential(n, x, m, a->fp); \
                if (!(fabs(e / a->e0[s] - 1.0) <= a->mon.energy_max))                      \
                    why = SL_REASON_ENERGY;                                                \
            }                                                                              \
            if (!why && a->max_steps > 0 && step >= a->max_steps && t < a->t_end)          \
                why = SL_REASON_STEP_CAP;                                                  \
            if (why)                                                                       \
                break;                                                                     \
            sl_monitor_log(a, s, n, t, step, &next_log, x, v);                             \
        }                                                                                  \
        if (a->mon.log_every_dt > 0.0)                                                     \
            a->next_log[s] = next_log;                                                     \
        sl_store_persist(a, s, n, SL_PROP_##P##_PERSIST, ps);                              \
        sl_finish_system(a, s, n, t, step, why, detail, x, v);                             \
    }

/* CPU loop over systems: OpenMP threads, dynamic so that systems that stop
 * early do not leave threads idle. */
#define SL_CPU_DEFINE(P, F, SUFFIX)                                                        \
    sl_status sl_run_##P##_##F##_##SUFFIX##_cpu(const sl_run_args *a)                      \
    {                                                                                      \
        _Pragma("omp parallel for schedule(dynamic, 64)")                                  \
        for (int64_t s = 0; s < a->n_sys; s++)                                             \
            sl_loop_##P##_##F##_##SUFFIX(a, s);                                            \
        return SL_OK;                                                                      \
    }

SL_EXTERN_C_END

#endif
