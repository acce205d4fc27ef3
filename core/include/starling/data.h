/* A data set handed to a plugin (sl_likelihood.prepare): a file the plugin
 * reads, or named columns already in memory (a script's tables, or a file a
 * front end has read). A plugin reads both through the same wanted columns
 * and aliases (sl_table_from_data, starling/table.h), so a file and the
 * same numbers in memory give the same result, and an error names the
 * column either way. */
#ifndef STARLING_DATA_H
#define STARLING_DATA_H

#include <stddef.h>
#include "starling/status.h"

SL_EXTERN_C_BEGIN

/* One named column of n_rows values: numbers, or text (one text column at
 * most, e.g. instrument names). */
typedef struct sl_data_column {
    const char *name;        /* as the user named it: "t", "rv", "BJD", ... */
    const double *num;       /* n_rows numbers, or NULL for text */
    const char *const *text; /* n_rows strings when num is NULL */
} sl_data_column;

/* A user's choice of a column (columns = {rv = "vel2"}): take the column
 * named `from` (a file's header name, or a column in memory) for the
 * plugin's column `want` (its name, or any name the plugin accepts for it). */
typedef struct sl_data_pick {
    const char *want, *from;
} sl_data_pick;

struct sl_data;

/* A further data set a likelihood declares by name (sl_likelihood.more_data:
 * nbody_rv's "transits"), handed over beside the main one. */
typedef struct sl_data_named {
    const char *name;
    const struct sl_data *data;
} sl_data_named;

typedef struct sl_data {
    const char *path;          /* a file; NULL: the columns below */
    size_t n_rows;
    const sl_data_column *cols;
    size_t n_cols;
    /* What the columns are called in messages ("data: column 'rv', row 3");
     * NULL: "data". A front end that read them names what it read, e.g.
     * "starling.rv.read(\"rv.txt\")". */
    const char *source;
    const sl_data_pick *picks; /* for a file or columns; may be NULL */
    size_t n_picks;
    /* The further data sets given (names among the likelihood's
     * more_data; NULL, 0: none), for the main data set only. */
    const sl_data_named *more;
    size_t n_more;
} sl_data;

/* The further data set named `name` in d, or NULL when none was given. */
static inline const struct sl_data *sl_data_more(const sl_data *d, const char *name)
{
    for (size_t i = 0; d && i < d->n_more; i++) {
        const char *a = d->more[i].name, *b = name;
        while (*a && *a == *b)
            a++, b++;
        if (*a == *b)
            return d->more[i].data;
    }
    return (const struct sl_data *)0;
}

/* A file, as a descriptor. */
static inline sl_data sl_data_file(const char *path)
{
    sl_data d = {path, 0, NULL, 0, NULL, NULL, 0, NULL, 0};
    return d;
}

SL_EXTERN_C_END

#endif
