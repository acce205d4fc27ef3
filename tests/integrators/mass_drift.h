/* A test integrator and force for the parts of the kernel contract that
 * in-tree physics does not use (issue 9): masses in the stage functions,
 * velocities in an acceleration-only force, per-system force parameters.
 *
 * slt_mdrift (JERK 0, one stage): point evaluates the force at
 * ve_x = m_b v_x (other components as they are); apply kicks v += h a and
 * moves x_x by h m_b. slt_drag: a = -gamma ve, gamma = fp[S*0].
 * With v_y = v_z = 0, a step of h takes v_x to v_x (1 - h gamma m_b) and
 * x_x to x_x + h m_b, so every loop's result is known in closed form, and
 * a mass or a gamma that reached the wrong body or system shows. */
#ifndef SLT_MASS_DRIFT_H
#define SLT_MASS_DRIFT_H

#include "starling/hd.h"

#define SL_PROP_slt_mdrift_NSTAGES 1
#define SL_PROP_slt_mdrift_SCRATCH 0
#define SL_PROP_slt_mdrift_PERSIST 0
#define SL_PROP_slt_mdrift_JERK 0
#define SL_PROP_slt_mdrift_PERTURB 0
#define SL_PROP_slt_mdrift_SYNC 0
#define SL_PROP_slt_mdrift_ADAPTIVE 0

SL_HD SL_INLINE void sl_prop_slt_mdrift_begin(int n, int S, const double *x, const double *v,
                                              const double *m, double *ps, const double *a,
                                              const double *j, const double *pp)
{
    (void)n, (void)S, (void)x, (void)v, (void)m, (void)ps, (void)a, (void)j, (void)pp;
}

SL_HD SL_INLINE void sl_prop_slt_mdrift_point(int st, int n, int S, double h, const double *x,
                                              const double *v, const double *m,
                                              const double *ps, double *xe, double *ve,
                                              const double *pp)
{
    (void)st, (void)h, (void)ps, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        xe[S * k] = x[S * k];
        ve[S * k] = k % 3 == 0 ? m[S * (k / 3)] * v[S * k] : v[S * k];
    }
}

SL_HD SL_INLINE void sl_prop_slt_mdrift_apply(int st, int n, int S, double h, double *x,
                                              double *v, const double *m, double *ps,
                                              const double *a, const double *j,
                                              const double *pp)
{
    (void)st, (void)ps, (void)j, (void)pp;
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++) {
        v[S * k] += h * a[S * k];
        if (k % 3 == 0)
            x[S * k] += h * m[S * (k / 3)];
    }
}

/* Velocity drag: accelerations only. */
#define SL_FORCE_slt_drag_JERK 0
#define SL_FORCE_slt_drag_PERTURB 0

SL_HD SL_INLINE void sl_force_slt_drag_acc(int n, int S, const double *x, const double *v,
                                           const double *m, const double *fp, double *a)
{
    (void)x, (void)m;
    const double gamma = fp[S * 0];
    SL_UNROLL
    for (int k = 0; k < 3 * n; k++)
        a[S * k] = -gamma * v[S * k];
}

SL_HD SL_INLINE double sl_force_slt_drag_potential(int n, int S, const double *x,
                                                   const double *m, const double *fp)
{
    (void)n, (void)S, (void)x, (void)m, (void)fp;
    return 0.0;
}

#define SLT_DRAG_FORCES(X, ...) X(__VA_ARGS__, slt_drag)
#define SLT_MDRIFT_NBODIES(X, ...) X(__VA_ARGS__, 3)

#endif
