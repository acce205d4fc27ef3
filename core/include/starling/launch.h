/* The launch ABI: what a loop receives (sl_run_args), the layout of its
 * buffers, the limits, and the contract between the generic loop and the
 * physics it runs. The loops themselves are internal (internal/loop.inc,
 * lanes.inc, group.inc and kernel.inc), included per N by kernels.inc.
 *
 * Strides. Every array a stage or force function receives is strided by S:
 * component c of body b is x[S*(3b+c)] (likewise v, xe, ve, a, j), the
 * mass of body b is m[S*b], scratch double k is ps[S*k] and force
 * parameter k is fp[S*k]. The GPU and the scalar CPU loop pass S = 1; the
 * CPU lane loop passes SL_LANES, so that neighbouring systems are
 * neighbouring doubles and the loop over systems vectorises. pp, the
 * integrator's parameters, is the same for every system and not strided.
 *
 * An integrator P provides, in a header of SL_HD code, five macros
 *   SL_PROP_<P>_NSTAGES  force evaluations per step, 1..SL_STAGES_MAX
 *   SL_PROP_<P>_SCRATCH  doubles per body of working state ps, >= 0
 *   SL_PROP_<P>_PERSIST  leading doubles per body of ps kept between
 *                        launches, 0..SCRATCH; the table's persist_per_body
 *   SL_PROP_<P>_JERK     1: the stages need jerks (the loop calls the
 *                        force's acc_jerk); 0: accelerations (acc)
 *   SL_PROP_<P>_ADAPTIVE 1: each system chooses its own steps (control,
 *                        below); 0: a fixed step pp[0]. The table's adaptive
 *   SL_PROP_<P>_PERTURB  1: the stages take the force's perturbation part
 *                        (acc_perturb: all but body 0's Newtonian pull on
 *                        the others, which the stages move exactly, as mvs
 *                        does); 0: the whole force. Not 1 with JERK 1
 *   SL_PROP_<P>_SYNC     1: the stages step a working state of their own
 *                        in ps and leave x, v behind, which the loop has
 *                        them write only when it needs them (below); 0:
 *                        every step updates x, v. Not 1 with ADAPTIVE 1
 * (each a literal 0 or 1 where a flag: the loops paste them into names),
 * optionally
 *   SL_PROP_<P>_BODYWISE 1: begin, point and apply touch only each body's
 *                        own entries (3b+c; ps in blocks of 3n), so CUDA
 *                        may run a system of 8..16 bodies on a group of
 *                        threads, each calling them with n its own bodies
 *                        (internal/group.h; fixed-step, SYNC 0 only)
 *   SL_PROP_<P>_POINT_FAST 1: P also defines
 *                        double sl_prop_<P>_point_fast(<point's arguments>),
 *                        branch-free code for the common case that returns
 *                        1.0 having done exactly what point does (same bits),
 *                        or 0.0 (ps may be part-written); the CPU lane loop
 *                        runs it vectorised and runs point, from the PERSIST
 *                        doubles of ps as they were, on the lanes it refused
 *                        (tests/integrators/fast_refuse.h)
 *   SL_PROP_<P>_POINT_LANES 1: P also defines, CPU only,
 *                        void sl_prop_<P>_point_lanes(k, n, W, const double *h,
 *                        x, v, m, ps, xe, ve, pp), point for the chunk's W
 *                        lanes at once (h[l] each lane's step), called
 *                        outside any loop over lanes so that its iterations
 *                        may stop when every lane is done; each lane with
 *                        point's bits (no refusal: its fallback runs
 *                        inside); used instead of POINT_FAST (docs/PLUGINS.md)
 *   SL_PROP_<P>_APPLY_LANES 1: P also defines, CPU only,
 *                        void sl_prop_<P>_apply_lanes(k, n, W, const double *h,
 *                        x, v, m, ps, a, j, pp), apply for the chunk's W
 *                        lanes at once, called after the force of every
 *                        lane (so that a branch on pp runs once, outside
 *                        the loop over lanes, rather than if-converted in
 *                        it); each lane with apply's bits
 *   SL_PROP_<P>_SYNC_LANES 1 (SYNC 1): P also defines, CPU only,
 *                        close_start_lanes(n, W, x, v, m, ps, pp),
 *                        sync_point_lanes(mode, k, n, W, x, v, m, ps, xe, ve, pp)
 *                        and sync_apply_lanes(mode, k, n, W, x, v, m, ps, a, pp),
 *                        the three for the chunk's W lanes at once, each
 *                        lane with the bits of the one-lane function (no
 *                        refusal: a fast form's fallback runs inside)
 * and three functions, which the loop calls as
 *   sl_prop_<P>_begin(n, S, x, v, m, ps, a, j, pp)
 *       once per run, before the first step, after a force call at (x, v);
 *   then per step of size h, for k = 0 .. NSTAGES-1:
 *   sl_prop_<P>_point(k, n, S, h, x, v, m, ps, xe, ve, pp)
 *       writes (xe, ve), where stage k evaluates the force (and may keep
 *       in ps what it computed on the way, for apply: ps may be declared
 *       double * there);
 *   <the force at (xe, ve) with masses m: a, and j when JERK is 1>
 *   sl_prop_<P>_apply(k, n, S, h, x, v, m, ps, a, j, pp)
 *       uses stage k's forces: updates x, v and ps.
 * with the types
 *   void begin(int n, int S, const double *x, const double *v, const double *m,
 *              double *ps, const double *a, const double *j, const double *pp);
 *   void point(int k, int n, int S, double h, const double *x, const double *v,
 *              const double *m, const double *ps, double *xe, double *ve,
 *              const double *pp);
 *   void apply(int k, int n, int S, double h, double *x, double *v,
 *              const double *m, double *ps, const double *a, const double *j,
 *              const double *pp);
 * j is not written when JERK is 0. A stage never calls a force: the loop
 * does, between point and apply, so every integrator works with every force
 * without function pointers in the kernel. A system that does not step (it
 * stopped, or reached t_end while others in its chunk go on) is given
 * h = 0, which must leave a finite state bit-for-bit unchanged. A step may
 * depend only on x, v, m, pp, h and the PERSIST leading doubles of ps: the
 * rest of ps is not kept between launches, and results must not depend on
 * where launches begin.
 *
 * Synchronising integrators (SYNC 1) keep their own coordinates in the
 * PERSIST leading doubles of ps from step to step, unsynchronised (mvs:
 * democratic heliocentric coordinates with the closing half drift of the
 * last step pending, and symplectic correctors applied only when x, v are
 * wanted), so that a step costs one Kepler drift rather than two. They
 * provide
 *   void sl_prop_<P>_open(int n, int S, const double *x, const double *v,
 *                         const double *m, double *ps, const double *pp);
 *       the working state from (x, v), once per run after begin;
 *   void sl_prop_<P>_close_start(int n, int S, double *x, double *v,
 *                                const double *m, const double *ps,
 *                                const double *pp);
 *   void sl_prop_<P>_close_end(int n, int S, double *x, double *v,
 *                              const double *m, const double *ps,
 *                              const double *pp);
 *       (x, v) from the working state, in two parts: start copies it
 *       into x, v (as the integrator's own coordinates) and end makes
 *       them inertial; ps is not written, so a close never changes the
 *       trajectory;
 *   int sl_prop_<P>_sync_stages(int mode, const double *pp);
 *   void sl_prop_<P>_sync_point(int mode, int k, int n, int S, double *x,
 *                               double *v, const double *m, double *ps,
 *                               double *xe, double *ve, const double *pp);
 *   void sl_prop_<P>_sync_apply(int mode, int k, int n, int S, double *x,
 *                               double *v, const double *m, double *ps,
 *                               const double *a, const double *pp);
 *       stages with a force call between point and apply, like a step's,
 *       run after open (mode SL_SYNC_OPEN, on ps) and between close_start
 *       and close_end (SL_SYNC_CLOSE, on the copy in x, v): mvs's
 *       correctors. sync_stages gives their number (0: none).
 * After a step the loop closes when it needs x, v (sl_sync_need): fully
 * for logs, energy checks, the step cap, the end of a launch and of the
 * run; without the SL_SYNC_CLOSE stages for the stop monitors' look at
 * every step (a system they stop keeps that state) and when the working
 * state is no longer finite (so the non-finite check sees it).
 *
 * Adaptive integrators (ADAPTIVE 1) also provide
 *   double sl_prop_<P>_control(int n, int S, double h, const double *x,
 *                              const double *v, const double *m, double *ps,
 *                              const double *pp, int *accept);
 * called after the last stage of a step of size h, with the state that step
 * produced: it sets *accept (1: keep the step; 0: reject it) and returns the
 * size of the next try. On a rejection the loop puts x, v and the PERSIST
 * doubles of ps back as they were before the step (writes to them by the
 * stages or by control vanish) and tries again from the same time with the
 * returned size. Once per run, after begin, the loop calls control with
 * h = 0 for the first step (pp[0] is the user's first step, to use or
 * ignore); *accept is not read then. Control may also be called with h = 0
 * for a lane of the CPU loop that does not step: its result is discarded.
 * Each system keeps its own step from launch to launch; a step that would
 * end within SL_STEP_STRETCH of itself before t_end (or beyond it) is cut or
 * stretched to land on t_end exactly, and control sees the h actually
 * taken. Times are running sums of the steps taken; steps counts accepted
 * steps, monitors and logs act after accepted steps only, at their true
 * times, and rejected steps are counted (SL_CNT_REJECTED, then
 * sl_run_result.rejected_steps). A system stops with reason
 * SL_REASON_STEP_SIZE (the others go on) when control returns a size that is
 * not a finite number > 0 (detail SL_STEP_FAULT_NONFINITE), one below
 * SL_STEP_TINY (|t| + |t_end - t_start|) (SL_STEP_FAULT_UNDERFLOW: the time
 * would no longer advance), or rejects SL_REJECT_MAX steps in a row
 * (SL_STEP_FAULT_REJECTIONS). Fixed-step integrators define no control and
 * the loops compile none of this.
 *
 * A force F provides SL_HD functions
 *   void sl_force_<F>_acc(int n, int S, const double *x, const double *v,
 *                         const double *m, const double *fp, double *a);
 *   void sl_force_<F>_acc_jerk(int n, int S, const double *x, const double *v,
 *                              const double *m, const double *fp, double *a,
 *                              double *j);
 *   double sl_force_<F>_potential(int n, int S, const double *x, const double *m,
 *                                 const double *fp);
 *   void sl_force_<F>_acc_perturb(int n, int S, const double *x, const double *v,
 *                                 const double *m, const double *fp, double *a);
 * and two flags, each a literal 0 or 1:
 *   SL_FORCE_<F>_JERK     acc_jerk is provided
 *   SL_FORCE_<F>_PERTURB  acc_perturb is provided
 * acc for integrators with JERK 0 and PERTURB 0, acc_jerk for JERK 1 ones,
 * acc_perturb for PERTURB 1 ones, potential for the energy monitor
 * (always). acc_perturb gives bodies 1..n-1 the force less body 0's
 * Newtonian pull m_0 (x_0 - x_i)/|x_0 - x_i|^3, and body 0 zeros; it must
 * depend on differences of positions only (the stages may call it in body
 * 0's frame). A pair (P, F) where P needs a part that F's flags say it
 * lacks is not stamped (instantiate.h): the run is refused, naming the
 * part (registry.c). Velocities reach acc too, for forces that depend on
 * them (drag, post-Newtonian terms). Optionally, SL_FORCE_<F>_AT 1 and
 *   void sl_force_<F>_acc_at(int n, const double *x, const double *v,
 *                            const double *m, const double *fp, int i, double *a);
 *   void sl_force_<F>_acc_jerk_at(int n, const double *x, const double *v,
 *                                 const double *m, const double *fp, int i,
 *                                 double *a, double *j);
 * the pull (and jerk) on body i alone, arrays not strided: with a
 * BODYWISE integrator, CUDA then runs 8..16 bodies on a group of threads.
 * Likewise SL_FORCE_<F>_PERTURB_AT 1 and
 *   void sl_force_<F>_acc_perturb_at(int n, const double *x, const double *v,
 *                                    const double *m, const double *fp, int i,
 *                                    double *a);
 * acc_perturb's row i >= 1 alone, for an integrator with its own grouped
 * stepper (SL_PROP_<P>_GROUP_LOOP, internal/group.h; mvs).
 *
 * Parameters. pp holds SL_PROP_PARAMS_MAX doubles from the integrator
 * table's pack; pp[0] is the step the loop uses, or an adaptive
 * integrator's first step (sl_integrate refuses a pp[0] that is not a
 * finite number > 0, naming the integrator); pp[SL_PP_SMOOTH], its last,
 * is the core's (propagator.h: 1.0 where the run must be smooth to the
 * last bits, MEGNO's shadows). fp holds a system's
 * SL_FORCE_PARAMS_MAX doubles from the force table's pack, per system: a
 * force parameter named like an attribute of the ensemble takes that
 * attribute's value in each system (run.h), so each system may have its
 * own values, and the loop hands each system (each lane) its own.
 *
 * Limits, checked at compile time when a loop is stamped (instantiate.h):
 * NSTAGES in 1..SL_STAGES_MAX, 0 <= PERSIST <= SCRATCH, JERK and ADAPTIVE
 * 0 or 1, an unrolled body count N in 1..SL_NBODY_MAX. Every kernel entry
 * records the PERSIST, NSTAGES, JERK and ADAPTIVE it was compiled with
 * (sl_kernel_traits). Checked when a plugin is loaded and by sl_integrate,
 * naming the plugin: the tables' n_packed (1..SL_PROP_PACKED_MAX for an
 * integrator, 0..SL_FORCE_PARAMS_MAX for a force), and that an integrator
 * table's persist_per_body and adaptive are those its kernels were
 * compiled with (its own kernels when it loads, a kernel set's when a run
 * picks it). Refused by sl_integrate: a pp[0] that is not a step. */
#ifndef STARLING_LAUNCH_H
#define STARLING_LAUNCH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "starling/ensemble.h"
#include "starling/force.h"
#include "starling/hd.h"
#include "starling/monitor.h"
#include "starling/propagator.h"

SL_EXTERN_C_BEGIN

/* The two kinds of a synchronising integrator's extra stages (SYNC 1). */
enum { SL_SYNC_OPEN = 0, SL_SYNC_CLOSE = 1 };

/* Stages an integrator may have (each is one force evaluation per step). */
#define SL_STAGES_MAX 16

enum { SL_LOG_HEAD = 4 };  /* sys, time, step, event; then 6 doubles per body */
enum { SL_LOG_PERIODIC = 0, SL_LOG_STOP = 1, SL_LOG_INITIAL = 2, SL_LOG_FINAL = 3,
       SL_LOG_MERGE = 4 /* the state just after a merge (written by the host) */ };
enum {
    SL_CNT_LOG = 0,
    SL_CNT_UNFINISHED = 1,
    SL_CNT_LOST = 2,
    SL_CNT_REJECTED = 3, /* steps an adaptive integrator rejected */
    SL_NCOUNTERS = 4
};

/* Adaptive stepping's guard rails (see above). A proposed step below
 * SL_STEP_TINY of the run's time scale no longer moves t reliably (double
 * has ~16 digits); SL_REJECT_MAX rejections in a row mean a controller that
 * does not shrink its step. A step that would leave less than
 * SL_STEP_STRETCH of itself before t_end is stretched onto t_end rather
 * than followed by a sliver (as Hairer's DOPRI5 does, by 1%). */
#define SL_STEP_TINY 1e-14
#define SL_REJECT_MAX 100
#define SL_STEP_STRETCH 0.01


/* Everything a launch needs; passed by value to CUDA kernels. All pointers
 * are in the memory space of the backend that runs the launch. */
typedef struct sl_run_args {
    double *state;       /* chunked SoA, see ensemble.h */
    double *persist;     /* chunked SoA of PERSIST doubles per body (sl_persist_index) */
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
    double fp[SL_FORCE_PARAMS_MAX]; /* force parameters of every system when fp_sys is
                                     * NULL; else those at k >= n_fp */
    /* Per-system force parameters, or NULL when every system has fp: n_fp
     * doubles per system, chunked like persist (sl_fp_index). */
    const double *fp_sys;
    int n_fp;
    double pp[SL_PROP_PARAMS_MAX];
    /* Per system, for adaptive integrators: the size of its next try,
     * carried from launch to launch like time and steps; NULL for
     * fixed-step ones. */
    double *h_next;
} sl_run_args;

SL_HD SL_INLINE size_t sl_persist_index(int64_t s, int n_body, int per_body, int k)
{
    return ((size_t)(s / SL_CHUNK) * (size_t)(n_body * per_body) + (size_t)k) * SL_CHUNK +
           (size_t)(s % SL_CHUNK);
}

/* Force parameter k of system s in sl_run_args.fp_sys. */
SL_HD SL_INLINE size_t sl_fp_index(int64_t s, int n_fp, int k)
{
    return sl_persist_index(s, 1, n_fp, k);
}

SL_HD SL_INLINE size_t sl_state_at(int64_t s, int n_body, int body, int field)
{
    return ((size_t)(s / SL_CHUNK) * (size_t)(n_body * SL_NFIELD) +
            (size_t)(body * SL_NFIELD + field)) * SL_CHUNK + (size_t)(s % SL_CHUNK);
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

SL_EXTERN_C_END

#endif
