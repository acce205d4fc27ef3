/* Radial-velocity data files: time, velocity, error and an optional
 * instrument name per line; whitespace- or comma-separated; '#' starts a
 * comment; one header line (non-numeric time and velocity) may precede the
 * data. Every problem is reported as "file:line: what, value, expectation".
 * Used by the kepler_rv plugin and by starling.rv.read. */
#ifndef STARLING_RV_DATA_H
#define STARLING_RV_DATA_H

#include <stddef.h>
#include "starling/status.h"

SL_EXTERN_C_BEGIN

#define SL_RV_MAX_INST 16
#define SL_RV_NAME_MAX 32

typedef struct sl_rv_data {
    size_t n;            /* observations, in file (time) order */
    double *t, *v, *err; /* days, m/s, m/s (units are the user's; kept as read) */
    int *inst;           /* instrument index per observation */
    int n_inst;
    char inst_names[SL_RV_MAX_INST][SL_RV_NAME_MAX]; /* "default" when no column */
} sl_rv_data;

/* Reads and checks a file: 3 or 4 columns on every line, numbers finite,
 * errors > 0, times sorted, no time repeated within one instrument (two
 * instruments may observe at the same time). */
sl_status sl_rv_read(const char *path, sl_rv_data *out);
void sl_rv_free(sl_rv_data *d);

SL_EXTERN_C_END

#endif
