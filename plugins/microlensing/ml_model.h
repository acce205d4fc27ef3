/* One model at one epoch, for both backends: the source's trajectory and
 * the magnification of each model kind (microlensing.h). SL_HD: compiled
 * into the CPU loop and the CUDA kernel alike. */
#ifndef STARLING_ML_MODEL_H
#define STARLING_ML_MODEL_H

#include <math.h>
#include "microlensing.h"
#include "ml_binary.h"
#include "ml_point.h"

/* MulensModel's rectilinear trajectory in ml_binary.h's frame (lens 1 at
 * x = -s q/(1+q)): with tau = (t - t0)/tE, the source is at
 * -(tau cos alpha - u0 sin alpha, tau sin alpha + u0 cos alpha). The sign
 * is MulensModel's (its light curves match to 3e-15 with it,
 * tests/data/microlensing/binary_lc.csv); a point lens sees only
 * u^2 = tau^2 + u0^2. */
SL_HD SL_INLINE void sl_ml_trajectory_tb(double tau, double beta, double alpha_deg, double *y1,
                                         double *y2)
{
    const double deg = 3.14159265358979323846 / 180.0;
    double ca = cos(alpha_deg * deg), sa = sin(alpha_deg * deg);
    *y1 = -tau * ca + beta * sa;
    *y2 = -tau * sa - beta * ca;
}

SL_HD SL_INLINE void sl_ml_trajectory(double t, double t0, double u0, double tE,
                                      double alpha_deg, double *y1, double *y2)
{
    sl_ml_trajectory_tb((t - t0) / tE, u0, alpha_deg, y1, y2);
}

/* The magnification of the model p with the source at (tau, beta): tau
 * along the path, beta across it (u0 at closest approach without
 * parallax). */
SL_HD SL_INLINE double sl_ml_eval_tb(sl_ml_model model, const double *p, double tau, double beta)
{
    if (model == SL_ML_BINARY_PS) {
        double y1, y2;
        sl_ml_trajectory_tb(tau, beta, p[5], &y1, &y2);
        return sl_ml_binary_mag0(p[3], p[4], y1, y2, 0);
    }
    double u = sqrt(tau * tau + beta * beta);
    if (model == SL_ML_PSPL)
        return sl_ml_pspl(u);
    return sl_ml_disk_ld(u, p[3], p[4]);
}

SL_HD SL_INLINE double sl_ml_eval(sl_ml_model model, const double *p, double t)
{
    return sl_ml_eval_tb(model, p, (t - p[0]) / p[2], p[1]);
}

#endif
