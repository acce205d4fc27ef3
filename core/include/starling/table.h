/* Tabular text: the one reader behind every text format starling reads
 * (radial velocities, light curves and batches of them, ensembles), and
 * the same column rules for named columns already in memory
 * (sl_table_from_data).
 *
 * The rules, the same for every format (docs/GUIDE.md, "Reading files"):
 * - '#' starts a comment; blank lines are skipped; CR-LF line ends and a
 *   UTF-8 byte-order mark are accepted.
 * - The first line that is not a comment fixes the separator: commas if it
 *   has one (fields trimmed, "double quotes" allowed), else semicolons if it
 *   has one, else runs of spaces and tabs.
 * - That line is a header when none of its fields is a number; otherwise
 *   the file has no header. This is decided by content, never by guessing
 *   from the values' sizes. A comment line just before the first data line
 *   that has as many fields as the data, none of them a number and at least
 *   one a known column name, is a header too (astropy's commented_header).
 * - With a header, names choose the columns: each wanted column takes the
 *   first of its aliases (case-insensitive) that the header has, so the
 *   order of the aliases is their priority (PDCSAP_FLUX before SAP_FLUX).
 *   Columns nobody asked for are ignored, an unnamed pandas index column
 *   among them. A required column with no name in the header is an error
 *   that lists the header's names and the accepted ones: columns are never
 *   taken by position when a header exists.
 * - Without a header, columns are taken by their documented positions.
 * - Every line has as many fields as the first (header or data) line.
 * - Numbers are decimal (1.5, -2e-3, 1.0D+03), nan or inf; anything else in
 *   a number column is an error naming file, line, column and value.
 *
 * Reading polls sl_cancel_check (starling/cancel.h), so that a request to
 * stop ends a read of an input that never ends.
 *
 * Nothing here prints; every failure returns an sl_status with the file and
 * line in its message. */
#ifndef STARLING_TABLE_H
#define STARLING_TABLE_H

#include <stdint.h>
#include <stdio.h>
#include "starling/data.h"
#include "starling/status.h"

SL_EXTERN_C_BEGIN

typedef enum sl_col_type {
    SL_COL_NUMBER = 0, /* doubles; non-finite values allowed unless `finite` */
    SL_COL_TEXT        /* strings, interned: a code per row into `levels` */
} sl_col_type;

/* One wanted column. */
typedef struct sl_table_col {
    const char *name;           /* for messages and user overrides: "time" */
    const char *const *aliases; /* header names that select it, NULL-terminated */
    sl_col_type type;
    int required;               /* 1: the file must have it */
    int position;               /* 0-based column in a file without header; -1: none */
    int finite;                 /* numbers only: 1 rejects nan and inf */
} sl_table_col;

enum { SL_TABLE_MAX_COLS = 16, SL_TABLE_MAX_FIELDS = 1024 };

typedef struct sl_table_spec {
    const char *what;           /* "RV data", "a light curve": for messages */
    const sl_table_col *cols;
    int n_cols;                 /* at most SL_TABLE_MAX_COLS */
    int header_required;        /* 1: a file without a header is an error */
    int can_name;               /* 1: the front end takes columns = {...}: say so */
    /* The user's header name per wanted column (NULL entries: the aliases
     * decide). A name given here must be in the header. */
    const char *const *names;
} sl_table_spec;

typedef struct sl_table_column {
    const char *name;   /* the wanted column's name (the spec's) */
    int present;        /* the file has it */
    int src;            /* 1-based column in the file (0: absent) */
    const char *header; /* its name in the header (NULL without one) */
    double *num;        /* SL_COL_NUMBER: n_rows values */
    int32_t *code;      /* SL_COL_TEXT: n_rows indices into levels */
    char **levels;      /* SL_COL_TEXT: distinct values, in order of first use */
    int32_t n_levels;
} sl_table_column;

typedef struct sl_table {
    char *path;
    int64_t n_rows;
    int64_t *line;             /* n_rows: 1-based line of each row in the file */
    int has_header;
    int64_t header_line;       /* 0 without a header */
    int n_fields;              /* fields per line */
    char **header;             /* n_fields names (NULL without a header) */
    sl_table_column col[SL_TABLE_MAX_COLS]; /* one per wanted column */
    char **comments;           /* whole-line comments, '#' and one blank dropped */
    int64_t n_comments;
    int in_memory;             /* from columns in memory: path is their source, line[i] is
                                  row i + 1, header the columns' names */
} sl_table;

/* Reads a file. On failure *out is left empty (nothing to free). */
sl_status sl_table_read(const char *path, const sl_table_spec *spec, sl_table *out);

/* The same from an open stream; `name` stands for the file in messages. */
sl_status sl_table_read_stream(FILE *fp, const char *name, const sl_table_spec *spec,
                               sl_table *out);

/* The same from data a front end hands over (data.h): a file is read as
 * above; named columns in memory are matched by the same rules as a header
 * (a user's name first, else the first alias in priority order, else the
 * wanted name; case-insensitive; a required column missing is an error
 * listing the columns given and the names accepted), numbers checked as a
 * file's are, text interned. The user's picks (d->picks, columns = {rv =
 * "vel2"}: a wanted column's name or alias, and the name to take) add to
 * spec->names, for a file as for columns; a pick of a column that does not
 * exist, or of one named twice, is an error naming the pick. Messages
 * start with the data's source ("data: column 'rv', row 3 = nan: expected
 * a finite number"). */
sl_status sl_table_from_data(const sl_data *d, const sl_table_spec *spec, sl_table *out);

/* sl_table_read and sl_table_read_stream reading at most max_bytes of the
 * file (0: no limit): an input that never ends (a device, a FIFO fed
 * forever) is an error naming the file and the limit, not a full memory. */
sl_status sl_table_read_max(const char *path, const sl_table_spec *spec, int64_t max_bytes,
                            sl_table *out);
sl_status sl_table_read_stream_max(FILE *fp, const char *name, const sl_table_spec *spec,
                                   int64_t max_bytes, sl_table *out);

void sl_table_free(sl_table *t);

/* "column 3 (errvel)": the file's name for it, or the wanted name without
 * a header ("column 'err'" for columns in memory); for messages that point
 * at one wanted column. */
void sl_table_where(const sl_table *t, int col, char *buf, size_t cap);

/* Row `row` (0-based) of wanted column col, for messages: "rv.txt:12:
 * column 3 (errvel)" from a file, "data: column 'err', row 3" from memory. */
void sl_table_at(const sl_table *t, int col, int64_t row, char *buf, size_t cap);

/* Parses a whole field as a number by the rules above; 1 on success. */
int sl_table_parse_number(const char *s, double *out);

SL_EXTERN_C_END

#endif
