/* The layout of an SL_KIND_CHECKS table: a plugin's own checks of a table
 * layout core does not know (its periodogram's, its lens model's). The
 * registry checks such a table when it loads the plugin; the conformance
 * suite (conformance.h) runs it, so the report and options it hands the
 * check are that suite's. */
#ifndef STARLING_CHECK_SET_H
#define STARLING_CHECK_SET_H

#include "starling/plugin.h"

SL_EXTERN_C_BEGIN

struct sl_check_options;
struct sl_check_report;

/* Checks a front end adds for tables whose layout it knows and core does
 * not (a plugin-defined kind such as lombscargle's periodogram); they run
 * after core's checks of the table and append to the same report. */
typedef sl_status (*sl_check_fn)(const void *table, const struct sl_check_options *o,
                                 struct sl_check_report *r);
typedef struct sl_check_extra {
    sl_kind kind;
    const char *table; /* the table's name (NULL: every table of the kind) */
    sl_check_fn check;
} sl_check_extra;

/* SL_KIND_CHECKS: sl_check_plugin runs a plugin's checks on every table
 * they match, after core's checks, unless the caller's options already
 * carry checks for the same kind and table. */
typedef struct sl_check_set {
    SL_TABLE_HEAD;
    sl_check_extra extra;
} sl_check_set;

SL_EXTERN_C_END

#endif
