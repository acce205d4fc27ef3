/* MEGNO's measurement between segments (megno.h says what and why),
 * written once for the host and the device: after each interval every
 * system and its shadow are compared where the kernels keep them, so a run
 * never leaves the GPU to sample. Systems 0..n-1 of the pass are the
 * user's, n..2n-1 their shadows. */
#ifndef SL_MEGNO_PAIRS_H
#define SL_MEGNO_PAIRS_H

#include <math.h>

#include "starling/launch.h"
#include "pass_view.h"

typedef struct sl__megno_pair {
    double unit[2]; /* the metric: spread in position, velocity */
    double t0;      /* time at the start */
    double tau;     /* time since, at the last sample */
    double I;       /* integral of s dL */
    double J;       /* integral of Y ds */
    double Y;
    /* <Y> against time, least squares: its slope is lambda / 2 for a
     * chaotic orbit (Cincotta & Simo 2000) and ~0 for a regular one */
    double n, mean_t, mean_y, cov_ty, var_t;
    int live;       /* still measured */
} sl__megno_pair;

SL_HD SL_INLINE void sl__megno_fit_add(sl__megno_pair *p, double t, double y)
{
    p->n += 1.0;
    double dt = t - p->mean_t; /* from the previous means (Welford) */
    p->mean_t += dt / p->n;
    p->mean_y += (y - p->mean_y) / p->n;
    p->cov_ty += dt * (y - p->mean_y);
    p->var_t += dt * (t - p->mean_t);
}

/* The shadow's distance from its system, in units of the spread. */
SL_HD SL_INLINE double sl__megno_distance(const sl__pass_view *w, int64_t s, int64_t n,
                                          const double *unit)
{
    double d2 = 0.0;
    for (int b = 0; b < w->n_body; b++)
        for (int f = 0; f < 6; f++) {
            double d = (w->state[sl_state_at(s + n, w->n_body, b, f)] -
                        w->state[sl_state_at(s, w->n_body, b, f)]) / unit[f < 3 ? 0 : 1];
            d2 += d * d;
        }
    return sqrt(d2);
}

/* shadow = system + (shadow - system) * k */
SL_HD SL_INLINE void sl__megno_pull(const sl__pass_view *w, int64_t s, int64_t n, double k)
{
    for (int b = 0; b < w->n_body; b++)
        for (int f = 0; f < 6; f++) {
            size_t i = sl_state_at(s, w->n_body, b, f), j = sl_state_at(s + n, w->n_body, b, f);
            w->state[j] = w->state[i] + (w->state[j] - w->state[i]) * k;
        }
}

/* A system that stopped takes its shadow with it (it would only cost). */
SL_HD SL_INLINE void sl__megno_stop_shadow(const sl__pass_view *w, int64_t s, int64_t n)
{
    if (w->status[s] == SL_SYS_ACTIVE || w->status[s + n] != SL_SYS_ACTIVE)
        return;
    w->status[s + n] = w->status[s];
    w->reason[s + n] = w->reason[s];
    w->detail[s + n] = w->detail[s];
    w->stop_time[s + n] = w->time[s + n];
}

/* One pair at the end of an interval: the growth since the last sample
 * into the integrals, then the shadow pulled back to distance delta. */
SL_HD SL_INLINE void sl__megno_sample(const sl__pass_view *w, int64_t s, int64_t n,
                                      sl__megno_pair *p, double delta)
{
    sl__megno_stop_shadow(w, s, n);
    if (!p->live)
        return;
    if (w->status[s] != SL_SYS_ACTIVE || w->status[s + n] != SL_SYS_ACTIVE) {
        p->live = 0; /* the values stay those of the last interval both finished */
        return;
    }
    double tau = w->time[s] - p->t0;
    if (!(tau > p->tau))
        return;
    double d = sl__megno_distance(w, s, n, p->unit);
    if (!(d > 0.0) || !isfinite(d)) {
        p->live = 0;
        return;
    }
    double dL = log(d / delta);
    p->I += dL * 0.5 * (p->tau + tau);
    double y = 2.0 * p->I / tau;
    p->J += 0.5 * (p->Y + y) * (tau - p->tau);
    p->Y = y, p->tau = tau;
    sl__megno_fit_add(p, tau, p->J / tau);
    sl__megno_pull(w, s, n, delta / d);
}

/* The device's sampling (megno_cuda.cu): pairs on the device. */
SL_EXTERN_C_BEGIN
sl_status sl__megno_sample_cuda(const sl__pass_view *w, int64_t n, sl__megno_pair *pairs,
                                double delta);
SL_EXTERN_C_END

#endif
