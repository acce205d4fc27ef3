/* `starling check CONFIG --reference FINAL.csv` (Swarm-NG's test mode): the
 * comparison of an integrated ensemble with a reference one, kept apart
 * from the command's printing so that it can be tested alone. */
#ifndef SL_CHECK_REF_H
#define SL_CHECK_REF_H

#include <stdint.h>
#include "starling/ensemble.h"
#include "starling/status.h"

/* One system's differences: max over bodies and components of |got - ref|,
 * over the system's scale (max |ref| over its bodies), for positions and
 * velocities, and the body where each is largest (0-based). */
typedef struct sl_ref_sys {
    double pos, vel;
    int pos_body, vel_body;
} sl_ref_sys;

/* Fills d[s] for every system. Fails, naming the file `ref_name`, when the
 * shapes differ or a mass differs (the reference is then of another
 * problem, not a result to compare). */
sl_status sl_ref_compare(const sl_ensemble *got, const sl_ensemble *ref, const char *ref_name,
                         sl_ref_sys *d);

#endif
