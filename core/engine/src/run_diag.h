/* What sl_integrate and sl_integrate_megno both report about a run: its
 * wall clock and each system's drift in energy and angular momentum. */
#ifndef SL_RUN_DIAG_H
#define SL_RUN_DIAG_H

#include <math.h>
#include <time.h>

static inline double sl__now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* |E/E0 - 1| (|E| when E0 = 0) and |L - L0| / |L0| (|L - L0| when L0 = 0) */
static inline void sl__drift(double e0, const double L0[3], double en, const double L[3],
                             double *de, double *dl)
{
    double d = sqrt((L[0] - L0[0]) * (L[0] - L0[0]) + (L[1] - L0[1]) * (L[1] - L0[1]) +
                    (L[2] - L0[2]) * (L[2] - L0[2]));
    double l0n = sqrt(L0[0] * L0[0] + L0[1] * L0[1] + L0[2] * L0[2]);
    *de = e0 != 0 ? fabs(en / e0 - 1.0) : fabs(en);
    *dl = l0n > 0 ? d / l0n : d;
}

#endif
