/* Critical curves and caustics of n point lenses (ml_caustics.c): the
 * functions behind sl_lens's caustics entries (microlensing.h). */
#ifndef STARLING_ML_CAUSTICS_H
#define STARLING_ML_CAUSTICS_H

#include "microlensing.h"

/* The most phase samples a caustic set may take to reach its resolution
 * (each holds 2n roots: 264 bytes), so a resolution finer than a few
 * millionths of the caustic's length is refused rather than coarsened. */
#ifndef SL_ML_CAUSTIC_SAMPLES
#define SL_ML_CAUSTIC_SAMPLES (1 << 19)
#endif

SL_EXTERN_C_BEGIN

sl_status sl_ml_lenses_check(const sl_ml_lenses *L);
sl_status sl_ml_caustics(const sl_ml_lenses *L, int min_points, double resolution,
                         sl_ml_caustic_set *out);
void sl_ml_caustics_free(sl_ml_caustic_set *c);
void sl_ml_binary_lenses(double s, double q, sl_ml_lenses *L);
double sl_ml_det_jacobian(const sl_ml_lenses *L, double x, double y);

SL_EXTERN_C_END

#endif
