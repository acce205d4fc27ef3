/* Radial-velocity data, from files or from named columns in memory, read
 * by the core's tabular reader (starling/table.h): a header's names (or the
 * columns' names) choose the columns (time:
 * t/time/bjd/jd/..., velocity: vel/mnvel/rv/vrad/..., error:
 * errvel/err/sigma/svrad/..., instrument: tel/inst/instrument/ins_name/...;
 * docs/GUIDE.md lists them all); a file without a header is read as time,
 * velocity, error[, instrument]; other columns (an unnamed pandas index,
 * RadVel's svalue) are ignored. Rows may come in any order and times may
 * repeat: the likelihood sorts what it needs. Every problem is reported as
 * "file:line: what, value, expectation". Used by the kepler_rv plugin and
 * by starling.rv.read. */
#ifndef STARLING_RV_DATA_H
#define STARLING_RV_DATA_H

#include <stddef.h>
#include "starling/data.h"
#include "starling/status.h"

SL_EXTERN_C_BEGIN

#define SL_RV_MAX_INST 16
#define SL_RV_NAME_MAX 32

typedef struct sl_rv_data {
    size_t n;            /* observations, in file order */
    double *t, *v, *err; /* days, m/s, m/s (units are the user's; kept as read) */
    int *inst;           /* instrument index per observation; instruments are
                            numbered by their earliest observation */
    int n_inst;
    char inst_names[SL_RV_MAX_INST][SL_RV_NAME_MAX]; /* "default" when no column */
    long *line;          /* the line of each observation in the file */
} sl_rv_data;

/* The wanted columns, in the order sl_rv_read_with's names take them. */
enum { SL_RV_COL_TIME, SL_RV_COL_VEL, SL_RV_COL_ERR, SL_RV_COL_INST, SL_RV_NCOL };

/* Reads and checks a file: numbers finite, errors > 0, at most
 * SL_RV_MAX_INST instruments with names of 1 to SL_RV_NAME_MAX - 1 bytes. */
sl_status sl_rv_read(const char *path, sl_rv_data *out);

/* The same with the user's header names for the columns (NULL entries,
 * or names NULL: the accepted names decide). */
sl_status sl_rv_read_with(const char *path, const char *const names[SL_RV_NCOL],
                          sl_rv_data *out);
/* The same from data handed over (starling/data.h): a file, or named
 * columns in memory matched by the same names (an error names the column
 * and row: "data: column 'err', row 3 = 0: expected a number > 0"), with
 * the user's picks (columns = {rv = "vel2"}: sl_rv_column's keys). */
sl_status sl_rv_read_data(const sl_data *d, sl_rv_data *out);

/* The wanted column (SL_RV_COL_*) a user's key names in columns = {...}:
 * the column's name (time, velocity, error, instrument) or any name it is
 * accepted under (rv, err, inst, ...), case-insensitive; -1 for none. */
int sl_rv_column(const char *key);

void sl_rv_free(sl_rv_data *d);

SL_EXTERN_C_END

#endif
