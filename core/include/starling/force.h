/* The force interface. A force is written as SL_HD functions in a header
 * (e.g. forces/newton/newton.h):
 *
 *   sl_force_NAME_acc_jerk(n, x, v, m, fp, a, j)   accelerations and jerks
 *   sl_force_NAME_potential(n, x, m, fp)           potential energy
 *
 * with x, v, a, j as 3n arrays (body-major) and fp the force's parameter
 * vector. Integrators are instantiated against it at build time; the
 * runtime table below names it, declares its parameters and gives host
 * entry points for energy diagnostics. */
#ifndef STARLING_FORCE_H
#define STARLING_FORCE_H

#include <stdint.h>
#include "starling/params.h"
#include "starling/plugin.h"

SL_EXTERN_C_BEGIN

enum { SL_FORCE_PARAMS_MAX = 8 };

typedef struct sl_force {
    SL_TABLE_HEAD; /* kind SL_KIND_FORCE */
    /* Packs validated parameter values into the vector kernels receive. */
    sl_status (*pack)(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX]);
    /* Host versions, used for energies and diagnostics. */
    void (*acc)(int n, const double *x, const double *m, const double *fp, double *a);
    double (*potential)(int n, const double *x, const double *m, const double *fp);
} sl_force;

SL_EXTERN_C_END

#endif
