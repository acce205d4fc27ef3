/* Internal: the CPU's lane loop, which steps a group of SL_LANES systems
 * in lockstep with the SL_HD stage and force functions vectorised across
 * systems: the helpers every lane loop shares. The loop itself is
 * internal/lanes.inc, included once per (integrator, force, N); the
 * contract is in launch.h. C only. */
#ifndef STARLING_INTERNAL_LANES_H
#define STARLING_INTERNAL_LANES_H

#include <string.h>
#include "starling/internal/loop.h"

#if !defined(__CUDACC__)

/* The CPU's lane loop. A group of SL_LANES systems (launch.h) is copied
 * into local arrays laid out [component][lane] and stepped in lockstep, so that each
 * `omp simd` loop over lanes runs the same SL_HD stage and force code as
 * the GPU, vectorised across systems. Lanes that are stopped, or already
 * at t_end, step with h = 0, which leaves a finite state bit-for-bit
 * unchanged. Monitors other than the non-finite check run per lane, and
 * only when configured. The function is cloned for AVX-512, AVX2 and
 * baseline x86-64 and picked at load time; -ffp-contract=off keeps the
 * clones' results identical. */
typedef struct sl_lanes {
    double t[SL_LANES], h[SL_LANES], t_next[SL_LANES], next_log[SL_LANES], t0[SL_LANES];
    int64_t step[SL_LANES], k0[SL_LANES], n_need[SL_LANES];
    int live[SL_LANES], was_live[SL_LANES];
    int lanes;
    /* Adaptive integrators only: the size of each lane's next try, what
     * control returned, whether it kept the step, steps kept in this launch,
     * rejections in a row, a step-size fault after a kept step, and the
     * chunk's rejections in this launch. */
    double hs[SL_LANES], hn[SL_LANES];
    int ok[SL_LANES], rej[SL_LANES], fault[SL_LANES];
    int64_t done[SL_LANES];
    unsigned long long rejected;
} sl_lanes;

/* Where lane group u's rows start in a buffer laid out in chunks of `rows`
 * rows of SL_CHUNK systems (ensemble.h): row r of its lane l is at
 * [SL_CHUNK * r + l] from there. */
static inline size_t sl_lanes_base(int64_t u, int rows)
{
    enum { G = SL_CHUNK / SL_LANES };
    return (size_t)(u / G) * (size_t)rows * SL_CHUNK + (size_t)(u % G) * SL_LANES;
}

static inline void sl_lanes_load(const sl_run_args *a, int64_t u, int n, int per_body,
                                 double *x, double *v, double *m, double *ps, sl_lanes *L)
{
    const int W = SL_LANES;
    const int64_t s0 = u * W;
    L->lanes = a->n_sys - s0 < W ? (int)(a->n_sys - s0) : W;
    const double *st = a->state + sl_lanes_base(u, n * SL_NFIELD);
    for (int b = 0; b < n; b++)
        for (int c = 0; c < 3; c++)
            for (int l = 0; l < W; l++) {
                x[W * (3 * b + c) + l] = st[(b * SL_NFIELD + SL_X + c) * SL_CHUNK + l];
                v[W * (3 * b + c) + l] = st[(b * SL_NFIELD + SL_VX + c) * SL_CHUNK + l];
            }
    for (int b = 0; b < n; b++)
        for (int l = 0; l < W; l++)
            m[W * b + l] = st[(b * SL_NFIELD + SL_M) * SL_CHUNK + l];
    if (!a->first_launch) {
        const double *pp = a->persist + sl_lanes_base(u, n * per_body);
        for (int k = 0; k < per_body * n; k++)
            for (int l = 0; l < W; l++)
                ps[W * k + l] = pp[k * SL_CHUNK + l];
    }
    for (int l = 0; l < W; l++) {
        int in = l < L->lanes;
        L->live[l] = L->was_live[l] = in && a->status[s0 + l] == SL_SYS_ACTIVE;
        L->t[l] = in ? a->time[s0 + l] : a->t_end;
        L->step[l] = in ? a->steps[s0 + l] : 0;
        L->t0[l] = in ? a->t_start[s0 + l] : a->t_end;
        L->k0[l] = in ? a->step_start[s0 + l] : 0;
        L->n_need[l] = sl_steps_needed(L->t0[l], a->t_end, a->pp[SL_PP_DT]);
        L->next_log[l] = in && a->mon.log_every_dt > 0.0 ? a->next_log[s0 + l] : 0.0;
    }
    if (a->h_next)
        for (int l = 0; l < W; l++) {
            L->hs[l] = l < L->lanes && !a->first_launch ? a->h_next[s0 + l] : 0.0;
            L->rej[l] = L->fault[l] = 0;
            L->done[l] = 0;
        }
    L->rejected = 0;
}

/* The chunk's force parameters, fp[W*k + l]: its systems' own values, or
 * the same values in every lane. Once per launch and chunk. */
static inline void sl_lanes_load_fp(const sl_run_args *a, int64_t u, double *fp)
{
    const int W = SL_LANES;
    const double *own = a->fp_sys ? a->fp_sys + sl_lanes_base(u, a->n_fp) : NULL;
    for (int k = 0; k < SL_FORCE_PARAMS_MAX; k++)
        for (int l = 0; l < W; l++)
            fp[W * k + l] = own && k < a->n_fp ? own[SL_CHUNK * k + l] : a->fp[k];
}

static inline void sl_lanes_store(const sl_run_args *a, int64_t u, int n, int per_body,
                                  const double *x, const double *v, const double *ps,
                                  const sl_lanes *L)
{
    const int W = SL_LANES;
    const int64_t s0 = u * W;
    double *st = a->state + sl_lanes_base(u, n * SL_NFIELD);
    double *pp = a->persist + sl_lanes_base(u, n * per_body);
    for (int l = 0; l < L->lanes; l++) {
        if (!L->was_live[l])
            continue;
        for (int b = 0; b < n; b++)
            for (int c = 0; c < 3; c++) {
                st[(b * SL_NFIELD + SL_X + c) * SL_CHUNK + l] = x[W * (3 * b + c) + l];
                st[(b * SL_NFIELD + SL_VX + c) * SL_CHUNK + l] = v[W * (3 * b + c) + l];
            }
        for (int k = 0; k < per_body * n; k++)
            pp[k * SL_CHUNK + l] = ps[W * k + l];
        a->time[s0 + l] = L->t[l];
        a->steps[s0 + l] = L->step[l];
        if (a->mon.log_every_dt > 0.0)
            a->next_log[s0 + l] = L->next_log[l];
        if (L->live[l] && L->t[l] < a->t_end)
            SL_ATOMIC_INC(&a->counters[SL_CNT_UNFINISHED]);
        if (a->h_next)
            a->h_next[s0 + l] = L->hs[l];
    }
    if (L->rejected)
        SL_ATOMIC_ADD(&a->counters[SL_CNT_REJECTED], L->rejected);
}

/* Sets the step of every lane; returns how many lanes step. */
static inline int sl_lanes_plan(const sl_run_args *a, sl_lanes *L)
{
    const double dt = a->pp[SL_PP_DT];
    int any = 0;
    for (int l = 0; l < SL_LANES; l++) {
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
        sl_log_record(a, s, n, SL_LANES, L->t[l], L->step[l], SL_LOG_STOP, x + l, v + l);
}

/* ---- adaptive integrators (the same arithmetic as SL__LOOP_ADAPTIVE) ---- */

/* Sets every lane's try; returns how many lanes step. A lane steps until
 * t_end or launch_steps kept steps, so lanes that are done idle at h = 0
 * while the others go on, rejections included. */
static inline int sl_lanes_plan_adaptive(const sl_run_args *a, sl_lanes *L)
{
    int any = 0;
    for (int l = 0; l < SL_LANES; l++) {
        int go = L->live[l] && L->t[l] < a->t_end && L->done[l] < a->launch_steps;
        L->h[l] = go ? sl_adaptive_try(L->t[l], a->t_end, L->hs[l], &L->t_next[l]) : 0.0;
        any += go;
    }
    return any;
}

/* The first try of every live lane, from control's answer at h = 0: a lane
 * whose answer cannot be taken stops at once. */
static inline void sl_lanes_first_try(const sl_run_args *a, int64_t s0, sl_lanes *L, int n,
                                      const double *x, const double *v)
{
    for (int l = 0; l < SL_LANES; l++) {
        int f = L->live[l] && L->t[l] < a->t_end ? sl_step_fault(L->hs[l], L->t[l], L->t0[l],
                                                                 a->t_end)
                                                 : 0;
        if (f)
            sl_lanes_stop(a, s0 + l, L, l, SL_REASON_STEP_SIZE, f, n, x, v);
    }
}

/* Puts back x, v and the persistent scratch of every lane whose try is not
 * kept (rejected, or a lane that did not step: control may have written
 * its ps). len doubles per lane in each of the three copies. */
static inline void sl_lanes_undo(int len_xv, int len_ps, const int *keep, double *x, double *v,
                                 double *ps, const double *xk, const double *vk, const double *pk)
{
    const int W = SL_LANES;
    for (int q = 0; q < len_xv; q++) {
#pragma omp simd
        for (int l = 0; l < W; l++) {
            x[W * q + l] = keep[l] ? x[W * q + l] : xk[W * q + l];
            v[W * q + l] = keep[l] ? v[W * q + l] : vk[W * q + l];
        }
    }
    for (int q = 0; q < len_ps; q++) {
#pragma omp simd
        for (int l = 0; l < W; l++)
            ps[W * q + l] = keep[l] ? ps[W * q + l] : pk[W * q + l];
    }
}

/* After control: the lanes whose step is kept go on (their h stays > 0);
 * a rejected lane gets h = 0 (it did not step), counts the rejection and
 * retries at control's size, or stops when that size cannot be taken or
 * it has rejected SL_REJECT_MAX steps in a row. Its state is already put
 * back (sl_lanes_undo), so a stop record shows the state it stops in. */
static inline void sl_lanes_settle(const sl_run_args *a, int64_t s0, sl_lanes *L, int n,
                                   const double *x, const double *v)
{
    for (int l = 0; l < SL_LANES; l++) {
        if (!(L->h[l] > 0.0))
            continue;
        if (L->ok[l]) {
            L->done[l]++;
            L->rej[l] = 0;
            L->hs[l] = L->hn[l];
            continue;
        }
        L->h[l] = 0.0;
        L->rejected++;
        int f = sl_step_fault(L->hn[l], L->t[l], L->t0[l], a->t_end);
        if (!f && ++L->rej[l] >= SL_REJECT_MAX)
            f = SL_STEP_FAULT_REJECTIONS;
        if (f)
            sl_lanes_stop(a, s0 + l, L, l, SL_REASON_STEP_SIZE, f, n, x, v);
        else
            L->hs[l] = L->hn[l];
    }
}

/* After the kept steps moved their lanes' times: a lane short of t_end
 * whose next size cannot be taken must stop (decided with the other
 * monitors, in the same order as the per-system loop); returns whether any. */
static inline int sl_lanes_next_fault(const sl_run_args *a, sl_lanes *L)
{
    int any = 0;
    for (int l = 0; l < SL_LANES; l++) {
        L->fault[l] = L->h[l] > 0.0 && L->t[l] < a->t_end
                          ? sl_step_fault(L->hs[l], L->t[l], L->t0[l], a->t_end)
                          : 0;
        any |= L->fault[l] != 0;
    }
    return any;
}

/* Per-lane work that is cheap to decide in scalar code: energy checks,
 * the step cap and logging. */
static inline int sl_lanes_need_scalar(const sl_run_args *a)
{
    const sl_monitor_config *mc = &a->mon;
    return mc->energy_max > 0.0 || a->max_steps > 0 || mc->log_every_steps > 0 ||
           mc->log_every_dt > 0.0;
}

/* The state-only stop checks (ejection, unbound, close encounter,
 * collision) cost a
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
    const int W = SL_LANES;
    int q = 0;
    for (int i = 1; i < n; i++)
        for (int j = i + 1; j < n; j++, q++)
            for (int l = 0; l < W; l++)
                hf[W * q + l] = cbrt((m[W * i + l] + m[W * j + l]) / (3.0 * m[l]));
}

static inline int sl_lanes_screened(const sl_monitor_config *mc)
{
    return sl_stop_monitors_on(mc);
}

/* The collision radii depend on the masses only: once per launch too. */
static inline void sl_lanes_radii(const sl_monitor_config *mc, int n, const double *m,
                                  double *rf)
{
    const int W = SL_LANES;
    for (int b = 0; b < n; b++)
        for (int l = 0; l < W; l++)
            rf[W * b + l] = sl_collide_radius(mc, b, m[W * b + l]) * (1.0 + SL_SCREEN_SLACK);
}

/* flag[l] |= 1 where lane l may meet a state-only stop condition; returns
 * whether any lane may. */
static inline int sl_lanes_screen(const sl_monitor_config *mc, int n, const double *x,
                                  const double *hf, const double *rf, int *flag)
{
    const int W = SL_LANES;
    double rr = INFINITY;
    if (mc->eject_r > 0.0)
        rr = mc->eject_r * mc->eject_r;
    if (mc->unbound_r >= 0.0 && mc->unbound_r * mc->unbound_r < rr)
        rr = mc->unbound_r * mc->unbound_r;
    rr *= 1.0 - SL_SCREEN_SLACK;
    const double ch = mc->close_hill * (1.0 + SL_SCREEN_SLACK);
    const int close = mc->close_hill > 0.0, collide = sl_collide_on(mc);
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
        if (collide) {
            SL_UNROLL
            for (int i = 0; i < n; i++) {
                SL_UNROLL
                for (int j = i + 1; j < n; j++) {
                    double dx = SL_XL(i, 0) - SL_XL(j, 0), dy = SL_XL(i, 1) - SL_XL(j, 1),
                           dz = SL_XL(i, 2) - SL_XL(j, 2);
                    double lim = rf[W * i + l] + rf[W * j + l];
                    f |= dx * dx + dy * dy + dz * dz < lim * lim;
                }
            }
        }
#undef SL_XL
        flag[l] |= f;
        any |= f;
    }
    return any;
}

/* What the chunk needs of x, v after this step (sl_sync_need over the
 * lanes that step, and the non-finite check of their working state: a
 * product with 0 per double, summed across the lanes' vectors rather
 * than lane by lane, which ran scalar and took a tenth of mvs's time). */
static inline int sl_lanes_sync_need(const sl_run_args *a, const sl_lanes *L, int last,
                                     int len, const double *ps)
{
    const int W = SL_LANES;
    double bad[SL_LANES] = {0.0};
    if (a->mon.check_nonfinite)
        for (int k = 0; k < len; k++) {
#pragma omp simd
            for (int l = 0; l < W; l++)
                bad[l] += ps[W * k + l] * 0.0;
        }
    int need = 0;
    for (int l = 0; l < W && need < 2; l++) {
        if (!(L->h[l] > 0.0))
            continue;
        int nl = sl_sync_need(a, L->t_next[l], L->step[l] + 1, L->k0[l], L->next_log[l],
                              last || L->step[l] + 1 - L->k0[l] == L->n_need[l]);
        if (!nl && bad[l] != 0.0)
            nl = 1;
        need = nl > need ? nl : need;
    }
    return need;
}


#endif /* !__CUDACC__ */

#endif
