/* Helpers shared by the conformance suite's files (conformance*.c). */
#ifndef STARLING_CONFORMANCE_INTERNAL_H
#define STARLING_CONFORMANCE_INTERNAL_H

#include "starling/backend.h"
#include "starling/conformance.h"

enum { SL_CHECK_DEFAULT_SEED = 20240509 };

/* Appends a check with a printf-style detail. */
void sl_check_add(sl_check_report *r, sl_check_result res, const char *name, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));
void sl_check_begin(sl_check_report *r, sl_kind kind, const char *table);

/* The schema checks every kind shares: well formed, and bad values refused
 * with the key named. `what` prefixes the check names ("params"). */
void sl_check_schema(sl_check_report *r, const char *what, const sl_param *s, size_t n);

/* Values for every key: defaults, and a valid value for required keys. */
sl_status sl_check_valid_values(const sl_param *s, size_t n, sl_param_values *pv);

/* Whether the library's last message names `key` (as 'key'). */
int sl_check_names_key(const char *key);

/* The CUDA backend for a comparison, or why there is none: returns 1 and
 * fills be when comparisons should run; else 0 with *res and why set. */
int sl_check_cuda_backend(const sl_check_options *o, sl_backend *be, sl_check_result *res,
                          char *why, size_t cap);

/* Relative difference |a - b| / max(|a|, |b|, floor); 0 when bit-identical
 * non-finite values, +inf when only one is finite. */
double sl_check_rel(double a, double b, double floor);

uint64_t sl_check_seed(const sl_check_options *o);

/* The integrator contract for one (integrator, force) pair, shared by the
 * integrator and the force checks. */
void sl_check_order(sl_check_report *r, const sl_propagator *p, const sl_force *f,
                    const char *name);

/* A copy of p whose kernel table also holds every loaded plugin's kernel
 * sets for p (what the registry would run); freed by sl_check_pooled_free. */
sl_propagator *sl_check_pooled(const sl_propagator *p, const sl_check_options *o);
void sl_check_pooled_free(sl_propagator *c);

#endif
