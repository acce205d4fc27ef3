/* Per-system force parameters. A force parameter whose name is an
 * attribute of the ensemble (sl_ensemble_attr: one double per system)
 * takes that attribute's value in each system. Every system's values are
 * validated against the force's schema and packed by its table's pack
 * before any work starts; when they all pack to the same values the run
 * costs nothing extra (one vector for every system, as without
 * attributes). sl_integrate does this itself (sl_run_config.force_values);
 * this header is for code that needs the same values, e.g. to compute a
 * system's energy as the run does. */
#ifndef STARLING_FPARAMS_H
#define STARLING_FPARAMS_H

#include <stdint.h>
#include "starling/ensemble.h"
#include "starling/force.h"
#include "starling/params.h"

SL_EXTERN_C_BEGIN

typedef struct sl_fparams {
    int n_fp;        /* doubles per system in sys: the force's n_packed */
    int n_attr;      /* parameters taken from attributes of the ensemble */
    int64_t n_sys;
    double fp[SL_FORCE_PARAMS_MAX]; /* every system's values when sys is NULL; else k >= n_fp */
    /* NULL when every system has fp; else n_fp doubles per system, chunked
     * as the kernels read them (sl_fp_index in launch.h). */
    double *sys;
} sl_fparams;

/* The force parameters of every system of e. pv holds the force's
 * validated values (NULL: fp, packed by the caller, for every system).
 * Refuses, naming the force, the system (1-based), the attribute and the
 * value: an attribute value the parameter's schema refuses, a pack that
 * fails or gives a non-finite value, and a parameter given in pv that is
 * also an attribute. */
sl_status sl_fparams_build(const sl_force *f, const sl_param_values *pv,
                           const double fp[SL_FORCE_PARAMS_MAX], const sl_ensemble *e,
                           sl_fparams *out);
/* System s's values, as its kernel gets them. */
void sl_fparams_get(const sl_fparams *p, int64_t s, double fp[SL_FORCE_PARAMS_MAX]);
void sl_fparams_free(sl_fparams *p);

SL_EXTERN_C_END

#endif
