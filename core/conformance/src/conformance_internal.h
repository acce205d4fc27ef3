/* Helpers shared by the conformance suite's files (conformance*.c). */
#ifndef STARLING_CONFORMANCE_INTERNAL_H
#define STARLING_CONFORMANCE_INTERNAL_H

#include "starling/backend.h"
#include "starling/conformance.h"

enum { SL_CHECK_DEFAULT_SEED = 20240509 };

void sl_check_begin(sl_check_report *r, sl_kind kind, const char *table);

/* The schema checks every kind shares: well formed, and bad values refused
 * with the key named. `what` prefixes the check names ("params"). */
void sl_check_schema(sl_check_report *r, const char *what, const sl_param *s, size_t n);

/* A valid value for a key without a usable default: a required key's
 * example (a non-zero def inside the range, params.h), else 1 where
 * allowed, else the bound nearest to it. */
double sl_check_valid_value(const sl_param *p);

/* The integrator contract for one (integrator, force) pair, shared by the
 * integrator and the force checks. */
void sl_check_order(sl_check_report *r, const sl_propagator *p, const sl_force *f,
                    const char *name);

/* A copy of p whose kernel table also holds every loaded plugin's kernel
 * sets for p (what the registry would run); freed by sl_check_pooled_free. */
sl_propagator *sl_check_pooled(const sl_propagator *p, const sl_check_options *o);
void sl_check_pooled_free(sl_propagator *c);

#endif
