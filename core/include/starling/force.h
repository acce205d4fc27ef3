/* The force interface. A force is written as SL_HD functions in a header
 * (e.g. forces/newton/newton.h), with every array strided by S:
 *
 *   sl_force_NAME_acc(n, S, x, v, m, fp, a)          accelerations
 *   sl_force_NAME_acc_jerk(n, S, x, v, m, fp, a, j)  accelerations and jerks
 *   sl_force_NAME_potential(n, S, x, m, fp)          potential energy
 *   sl_force_NAME_acc_perturb(n, S, x, v, m, fp, a)  accelerations without
 *       body 0's Newtonian pull on the others (for mvs-like integrators)
 *
 * and two flags, literal 0 or 1: SL_FORCE_NAME_JERK (acc_jerk is
 * provided) and SL_FORCE_NAME_PERTURB (acc_perturb is provided).
 *
 * (launch.h has the whole contract), and SL_FORCE_NAME_NPACKED, the doubles
 * its pack fills. Integrators are instantiated against it at build time;
 * the runtime table below names it, declares its parameters and gives host
 * entry points for energy diagnostics.
 *
 * Such a force is a base. A run may add terms to it (gr, j2: corrections
 * written once as the pull of body 0 on one planet, force_term.h); the
 * kernels that sum a base and terms are a stack's (force_stack.h). */
#ifndef STARLING_FORCE_H
#define STARLING_FORCE_H

#include <stdint.h>
#include "starling/named_params.h"
#include "starling/params.h"
#include "starling/plugin.h"

SL_EXTERN_C_BEGIN

enum { SL_FORCE_PARAMS_MAX = 8 };
SL_STATIC_ASSERT(SL_FORCE_PARAMS_MAX == SL_PARAMS_PACKED_ROOM,
                 "named_params.h packs SL_FORCE_PARAMS_MAX doubles");

typedef struct sl_force {
    SL_TABLE_HEAD; /* kind SL_KIND_FORCE */
    /* Packs validated parameter values into the vector kernels receive: one
     * system's values (sl_integrate packs each system's own when a
     * parameter is an attribute of the ensemble, see run.h). */
    sl_status (*pack)(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX]);
    /* Host versions (arrays not strided: S = 1), used for energies and
     * diagnostics; fp is the system's own, as the kernels get it. */
    void (*acc)(int n, const double *x, const double *v, const double *m, const double *fp,
                double *a);
    double (*potential)(int n, const double *x, const double *m, const double *fp);
    /* Leading doubles of fp that pack fills, 0..SL_FORCE_PARAMS_MAX (the
     * rest it sets to 0): what may differ between systems. The registry
     * and sl_integrate refuse a table outside that range. */
    int n_packed;
    /* What the force's header provides besides acc and potential:
     * SL_FORCE_CAPS(F) from its SL_FORCE_<F>_JERK and _PERTURB flags. An
     * integrator whose stages need what a force lacks has no kernels for
     * it (kernels.inc stamps none); the registry names the missing part. */
    unsigned caps;
} sl_force;

enum { SL_FORCE_CAP_JERK = 1u, SL_FORCE_CAP_PERTURB = 2u };
#define SL_FORCE_CAPS(F)                                                                   \
    ((SL_FORCE_##F##_JERK ? SL_FORCE_CAP_JERK : 0u) |                                      \
     (SL_FORCE_##F##_PERTURB ? SL_FORCE_CAP_PERTURB : 0u))

SL_EXTERN_C_END

#endif
