/* The tabular-text reader (table.h): one set of rules for every text format. */
#define _GNU_SOURCE
#include "starling/table.h"

#include "starling/cancel.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- text from a file, in messages ----------------------------------------- */

/* s as a message quotes it: printable ASCII as is, every other byte (binary
 * garbage, a terminal's escape sequences) and the backslash as \xNN, cut
 * with "..." after max bytes of s or when buf is full. */
static const char *shown(const char *s, size_t max, char *buf, size_t cap)
{
    size_t o = 0, i = 0;
    for (; s[i] && i < max; i++) {
        unsigned char b = (unsigned char)s[i];
        int plain = b >= 0x20 && b <= 0x7e && b != '\\';
        if (o + (plain ? 1 : 4) + 4 > cap)
            break;
        if (plain)
            buf[o++] = (char)b;
        else
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02X", b);
    }
    if (s[i] && o + 4 <= cap)
        memcpy(buf + o, "...", 3), o += 3;
    buf[o] = '\0';
    return buf;
}

/* ---- numbers ------------------------------------------------------------- */

int sl_table_parse_number(const char *s, double *out)
{
    char buf[256];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        return 0;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (!strcasecmp(p, "nan") || !strcasecmp(p, "inf") || !strcasecmp(p, "infinity")) {
        *out = strtod(s, NULL);
        return 1;
    }
    /* decimal only: strtod alone would also take hex floats and "nan(...)" */
    size_t digits = 0;
    while (isdigit((unsigned char)*p))
        p++, digits++;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            digits++;
    if (!digits)
        return 0;
    memcpy(buf, s, n + 1);
    if (*p == 'e' || *p == 'E' || *p == 'd' || *p == 'D') {
        buf[p - s] = 'e'; /* Fortran's 1.0D+03 */
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return 0;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p)
        return 0;
    errno = 0;
    double v = strtod(buf, NULL);
    if (errno == ERANGE && isinf(v))
        return 0; /* overflow: 1e999 is no number a file means */
    *out = v;
    return 1;
}

/* ---- lines and fields ------------------------------------------------------ */

enum sep { SEP_UNSET, SEP_COMMA, SEP_SEMI, SEP_BLANK };

typedef struct reader {
    const char *name;
    const sl_table_spec *spec;
    sl_table *t;
    enum sep sep;
    int64_t ln;
    char *fields_buf;  /* the current line, split in place */
    char *f[SL_TABLE_MAX_FIELDS];
    char *last_comment; /* the comment just before the current line, if any */
    int64_t last_comment_ln;
    int64_t cap_rows;
    /* interning: one open-addressing table per text column */
    int32_t *slots[SL_TABLE_MAX_COLS];
    uint32_t n_slots[SL_TABLE_MAX_COLS];
    int32_t cap_levels[SL_TABLE_MAX_COLS];
    int64_t bytes, max_bytes; /* read so far; the limit (0: none) */
} reader;

/* The first '#' outside double quotes, or NULL. */
static char *comment_start(char *s)
{
    int q = 0;
    for (; *s; s++) {
        if (*s == '"')
            q = !q;
        else if (*s == '#' && !q)
            return s;
    }
    return NULL;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = '\0';
    return s;
}

/* A quoted field starting at *pp: unquotes in place ("" is one quote) and
 * leaves *pp after the closing quote. Returns 0 when it never closes. */
static int unquote(char **pp)
{
    char *r = *pp + 1, *w = *pp;
    for (;;) {
        if (!*r)
            return 0;
        if (*r == '"') {
            if (r[1] == '"') {
                *w++ = '"';
                r += 2;
                continue;
            }
            *w = '\0';
            *pp = r + 1;
            return 1;
        }
        *w++ = *r++;
    }
}

/* Splits a (comment-free, trimmed) line in place into r->f. Returns the
 * number of fields, -1 for too many, -2 for an unclosed quote. */
static int split(reader *r, char *s)
{
    int n = 0;
    if (r->sep == SEP_BLANK) {
        while (*s) {
            if (n == SL_TABLE_MAX_FIELDS)
                return -1;
            r->f[n++] = s;
            while (*s && *s != ' ' && *s != '\t')
                s++;
            if (*s)
                *s++ = '\0';
            while (*s == ' ' || *s == '\t')
                s++;
        }
        return n;
    }
    char sep = r->sep == SEP_COMMA ? ',' : ';';
    for (;;) {
        if (n == SL_TABLE_MAX_FIELDS)
            return -1;
        while (*s == ' ' || *s == '\t')
            s++;
        char *field = s;
        if (*s == '"') {
            char *after = s;
            if (!unquote(&after))
                return -2;
            s = after;
            while (*s == ' ' || *s == '\t')
                s++;
            if (*s && *s != sep)
                return -2;
        } else {
            while (*s && *s != sep)
                s++;
        }
        char end = *s;
        *s = '\0';
        r->f[n++] = field[0] == '"' ? field : trim(field);
        if (!end)
            return n;
        s++;
    }
}

static void choose_sep(reader *r, const char *line)
{
    if (strchr(line, ','))
        r->sep = SEP_COMMA;
    else if (strchr(line, ';'))
        r->sep = SEP_SEMI;
    else
        r->sep = SEP_BLANK;
}

static sl_status split_or_fail(reader *r, char *s, int *n)
{
    *n = split(r, s);
    if (*n == -1)
        return sl_fail(SL_ERR_ARG, "%s:%lld: more than %d fields", r->name, (long long)r->ln,
                       SL_TABLE_MAX_FIELDS);
    if (*n == -2)
        return sl_fail(SL_ERR_ARG, "%s:%lld: a quoted field (\"...\") does not close before "
                       "the end of the line or is followed by text", r->name, (long long)r->ln);
    return SL_OK;
}

/* ---- the header ------------------------------------------------------------ */

static int any_number(char **f, int n)
{
    double v;
    for (int i = 0; i < n; i++)
        if (sl_table_parse_number(f[i], &v))
            return 1;
    return 0;
}

static int is_alias(const sl_table_col *c, const char *s)
{
    for (const char *const *a = c->aliases; a && *a; a++)
        if (!strcasecmp(*a, s))
            return 1;
    return !strcasecmp(c->name, s);
}

static int any_alias(const sl_table_spec *spec, char **f, int n)
{
    for (int i = 0; i < n; i++)
        for (int c = 0; c < spec->n_cols; c++)
            if (is_alias(&spec->cols[c], f[i]))
                return 1;
    return 0;
}

/* "time, velocity, error[, instrument]" */
static void expected_cols(const sl_table_spec *spec, char *buf, size_t cap)
{
    size_t u = 0;
    buf[0] = '\0';
    for (int c = 0; c < spec->n_cols && u < cap; c++) {
        const sl_table_col *k = &spec->cols[c];
        if (k->position < 0 && !k->required)
            continue;
        const char *pre = k->required ? (u ? ", " : "") : (u ? "[, " : "[");
        u += (size_t)snprintf(buf + u, cap - u, "%s%s%s", pre, k->name, k->required ? "" : "]");
    }
}

static void list_names(char *const *f, int n, char *buf, size_t cap)
{
    size_t u = 0;
    buf[0] = '\0';
    char one[200];
    for (int i = 0; i < n && u < cap; i++)
        u += (size_t)snprintf(buf + u, cap - u, "%s\"%s\"", i ? ", " : "",
                              shown(f[i], 48, one, sizeof one));
}

static void list_aliases(const sl_table_col *c, char *buf, size_t cap)
{
    size_t u = (size_t)snprintf(buf, cap, "%s", c->name);
    for (const char *const *a = c->aliases; a && *a && u < cap; a++)
        if (strcasecmp(*a, c->name))
            u += (size_t)snprintf(buf + u, cap - u, ", %s", *a);
}

static sl_status keep_header(reader *r, char **f, int n, int64_t ln)
{
    sl_table *t = r->t;
    t->header = calloc((size_t)(n > 0 ? n : 1), sizeof *t->header);
    if (!t->header)
        return sl_fail(SL_ERR_NOMEM, "%s: header: out of memory", r->name);
    for (int i = 0; i < n; i++)
        if (!(t->header[i] = strdup(f[i])))
            return sl_fail(SL_ERR_NOMEM, "%s: header: out of memory", r->name);
    t->has_header = 1;
    t->header_line = ln;
    t->n_fields = n;
    return SL_OK;
}

/* Chooses each wanted column by name among t->header: the user's name for
 * it, else its aliases in order, else its own name. `where` starts the
 * messages; `d` (data from memory, else NULL) is checked for numbers where
 * numbers are wanted. Names come from a file's header or from in-memory
 * columns, which the messages say. */
static sl_status resolve_by_name(reader *r, const char *where, const sl_data *d)
{
    sl_table *t = r->t;
    const sl_table_spec *spec = r->spec;
    int taken[SL_TABLE_MAX_FIELDS] = {0};
    char names[1024], want[512];
    for (int c = 0; c < spec->n_cols; c++) {
        const sl_table_col *k = &spec->cols[c];
        const char *user = spec->names ? spec->names[c] : NULL;
        t->col[c].name = k->name;
        int at = -1;
        if (user) {
            for (int i = 0; i < t->n_fields && at < 0; i++)
                if (!taken[i] && !strcasecmp(t->header[i], user))
                    at = i;
            if (at < 0) {
                list_names(t->header, t->n_fields, names, sizeof names);
                return sl_fail(SL_ERR_ARG, d ? "%s: columns.%s = \"%s\": there is no such column "
                               "(the columns: %s)" : "%s: columns.%s = \"%s\": the header has no "
                               "such column (its names: %s)", where, k->name, user, names);
            }
        } else {
            for (const char *const *a = k->aliases; a && *a && at < 0; a++)
                for (int i = 0; i < t->n_fields && at < 0; i++)
                    if (!taken[i] && !strcasecmp(t->header[i], *a))
                        at = i;
            for (int i = 0; i < t->n_fields && at < 0; i++)
                if (!taken[i] && !strcasecmp(t->header[i], k->name))
                    at = i;
        }
        if (at < 0) {
            if (!k->required)
                continue;
            list_names(t->header, t->n_fields, names, sizeof names);
            list_aliases(k, want, sizeof want);
            return sl_fail(SL_ERR_ARG, "%s: the %s (%s) %s no %s column: expected %s %s%s%s%s",
                           where, d ? "columns" : "header", names, d ? "include" : "names",
                           k->name,
                           k->aliases && k->aliases[0] && k->aliases[1] ? "one of" : "a column named",
                           want, spec->can_name ? ", or name it with columns = {" : "",
                           spec->can_name ? k->name : "", spec->can_name ? " = \"...\"}" : "");
        }
        if (d && k->type == SL_COL_NUMBER && !d->cols[at].num)
            return sl_fail(SL_ERR_ARG, "%s: column '%s' holds text: expected numbers (the %s "
                           "column)", where, d->cols[at].name, k->name);
        taken[at] = 1;
        t->col[c].present = 1;
        t->col[c].src = at + 1;
        t->col[c].header = t->header[at];
    }
    return SL_OK;
}

/* Chooses each wanted column from the header's names. */
static sl_status resolve_named(reader *r)
{
    char where[4200];
    snprintf(where, sizeof where, "%s:%lld", r->name, (long long)r->t->header_line);
    return resolve_by_name(r, where, NULL);
}

/* Without a header: every wanted column sits at its documented position. */
static sl_status resolve_positional(reader *r, int n)
{
    sl_table *t = r->t;
    const sl_table_spec *spec = r->spec;
    char want[256];
    expected_cols(spec, want, sizeof want);
    if (spec->header_required)
        return sl_fail(SL_ERR_ARG, "%s:%lld: expected a header line naming the columns (%s) "
                       "before the data", r->name, (long long)r->ln, want);
    for (int c = 0; c < spec->n_cols; c++)
        if (spec->names && spec->names[c])
            return sl_fail(SL_ERR_ARG, "%s: columns.%s = \"%s\": the file has no header line "
                           "to find that name in (its columns are taken in the order %s)",
                           r->name, spec->cols[c].name, spec->names[c], want);
    for (int c = 0; c < spec->n_cols; c++) {
        const sl_table_col *k = &spec->cols[c];
        t->col[c].name = k->name;
        if (k->position >= 0 && k->position < n) {
            t->col[c].present = 1;
            t->col[c].src = k->position + 1;
        } else if (k->required) {
            return sl_fail(SL_ERR_ARG, "%s:%lld: %d field%s: expected at least %d (%s)%s",
                           r->name, (long long)r->ln, n, n == 1 ? "" : "s", k->position + 1,
                           want, n == 1 ? "; is the separator a character other than "
                           "commas, semicolons, spaces or tabs?" : "");
        }
    }
    t->n_fields = n;
    return SL_OK;
}

/* A comment just before the first data line that reads as a header. */
static sl_status commented_header(reader *r, int n_data, int *found)
{
    *found = 0;
    if (!r->last_comment || r->last_comment_ln != r->ln - 1)
        return SL_OK;
    char *copy = strdup(r->last_comment);
    if (!copy)
        return sl_fail(SL_ERR_NOMEM, "%s: out of memory", r->name);
    char *saved[SL_TABLE_MAX_FIELDS];
    memcpy(saved, r->f, sizeof saved);
    int n = split(r, trim(copy));
    sl_status st = SL_OK;
    if (n == n_data && !any_number(r->f, n) && any_alias(r->spec, r->f, n)) {
        *found = 1;
        st = keep_header(r, r->f, n, r->last_comment_ln);
    }
    memcpy(r->f, saved, sizeof saved);
    free(copy);
    return st;
}

/* ---- rows -------------------------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static sl_status grow_slots(reader *r, int c)
{
    sl_table_column *col = &r->t->col[c];
    uint32_t n = r->n_slots[c] ? 2 * r->n_slots[c] : 64;
    int32_t *s = malloc(n * sizeof *s);
    if (!s)
        return sl_fail(SL_ERR_NOMEM, "%s: out of memory for %d distinct names", r->name,
                       col->n_levels);
    for (uint32_t i = 0; i < n; i++)
        s[i] = -1;
    for (int32_t l = 0; l < col->n_levels; l++) {
        uint32_t h = (uint32_t)hash_str(col->levels[l]) & (n - 1);
        while (s[h] >= 0)
            h = (h + 1) & (n - 1);
        s[h] = l;
    }
    free(r->slots[c]);
    r->slots[c] = s;
    r->n_slots[c] = n;
    return SL_OK;
}

static sl_status intern(reader *r, int c, const char *v, int32_t *code)
{
    sl_table_column *col = &r->t->col[c];
    sl_status st;
    if ((uint32_t)col->n_levels * 2 >= r->n_slots[c] && (st = grow_slots(r, c)))
        return st;
    uint32_t mask = r->n_slots[c] - 1, h = (uint32_t)hash_str(v) & mask;
    for (; r->slots[c][h] >= 0; h = (h + 1) & mask)
        if (!strcmp(col->levels[r->slots[c][h]], v)) {
            *code = r->slots[c][h];
            return SL_OK;
        }
    if (col->n_levels == r->cap_levels[c]) {
        int32_t cap = r->cap_levels[c] ? 2 * r->cap_levels[c] : 16;
        char **l = realloc(col->levels, (size_t)cap * sizeof *l);
        if (!l)
            return sl_fail(SL_ERR_NOMEM, "%s: out of memory for names", r->name);
        col->levels = l;
        r->cap_levels[c] = cap;
    }
    if (!(col->levels[col->n_levels] = strdup(v)))
        return sl_fail(SL_ERR_NOMEM, "%s: out of memory for names", r->name);
    r->slots[c][h] = col->n_levels;
    *code = col->n_levels++;
    return SL_OK;
}

static sl_status grow_rows(reader *r)
{
    sl_table *t = r->t;
    int64_t cap = r->cap_rows ? 2 * r->cap_rows : 1024;
    int64_t *ln = realloc(t->line, (size_t)cap * sizeof *ln);
    if (ln)
        t->line = ln;
    int ok = ln != NULL;
    for (int c = 0; ok && c < r->spec->n_cols; c++) {
        sl_table_column *col = &t->col[c];
        if (!col->present)
            continue;
        if (r->spec->cols[c].type == SL_COL_NUMBER) {
            double *v = realloc(col->num, (size_t)cap * sizeof *v);
            if (v)
                col->num = v;
            ok = v != NULL;
        } else {
            int32_t *v = realloc(col->code, (size_t)cap * sizeof *v);
            if (v)
                col->code = v;
            ok = v != NULL;
        }
    }
    if (!ok)
        return sl_fail(SL_ERR_NOMEM, "%s:%lld: out of memory after %lld rows", r->name,
                       (long long)r->ln, (long long)t->n_rows);
    r->cap_rows = cap;
    return SL_OK;
}

void sl_table_where(const sl_table *t, int col, char *buf, size_t cap)
{
    const sl_table_column *c = &t->col[col];
    char name[200];
    shown(c->header ? c->header : c->name, 48, name, sizeof name);
    if (t->in_memory)
        snprintf(buf, cap, "column '%s'", name);
    else
        snprintf(buf, cap, "column %d (%s)", c->src, name);
}

void sl_table_at(const sl_table *t, int col, int64_t row, char *buf, size_t cap)
{
    char where[160];
    sl_table_where(t, col, where, sizeof where);
    if (t->in_memory)
        snprintf(buf, cap, "%s: %s, row %lld", t->path, where, (long long)row + 1);
    else
        snprintf(buf, cap, "%s:%lld: %s", t->path, (long long)t->line[row], where);
}

static sl_status add_row(reader *r, int n)
{
    sl_table *t = r->t;
    const sl_table_spec *spec = r->spec;
    sl_status st;
    if (n != t->n_fields) {
        if (t->has_header)
            return sl_fail(SL_ERR_ARG, "%s:%lld: %d field%s, but the header (line %lld) has %d",
                           r->name, (long long)r->ln, n, n == 1 ? "" : "s",
                           (long long)t->header_line, t->n_fields);
        return sl_fail(SL_ERR_ARG, "%s:%lld: %d field%s, but the first data line (line %lld) "
                       "has %d", r->name, (long long)r->ln, n, n == 1 ? "" : "s",
                       (long long)t->line[0], t->n_fields);
    }
    if (t->n_rows == r->cap_rows && (st = grow_rows(r)))
        return st;
    int64_t i = t->n_rows;
    char where[160];
    for (int c = 0; c < spec->n_cols; c++) {
        sl_table_column *col = &t->col[c];
        if (!col->present)
            continue;
        const char *v = r->f[col->src - 1];
        if (spec->cols[c].type == SL_COL_TEXT) {
            if ((st = intern(r, c, v, &col->code[i])))
                return st;
            continue;
        }
        double x;
        if (!sl_table_parse_number(v, &x) || (spec->cols[c].finite && !isfinite(x))) {
            sl_table_where(t, c, where, sizeof where);
            char value[200];
            return sl_fail(SL_ERR_ARG, "%s:%lld: %s = \"%s\": expected a %snumber",
                           r->name, (long long)r->ln, where, shown(v, 40, value, sizeof value),
                           spec->cols[c].finite ? "finite " : "");
        }
        col->num[i] = x;
    }
    t->line[i] = r->ln;
    t->n_rows++;
    return SL_OK;
}

/* ---- the file ------------------------------------------------------------------ */

static sl_status keep_comment(reader *r, const char *text)
{
    sl_table *t = r->t;
    if ((t->n_comments & (t->n_comments - 1)) == 0) { /* 0, 1, 2, 4, ...: grow */
        char **c = realloc(t->comments, (size_t)(t->n_comments ? 2 * t->n_comments : 1) *
                                            sizeof *c);
        if (!c)
            return sl_fail(SL_ERR_NOMEM, "%s: out of memory for comments", r->name);
        t->comments = c;
    }
    if (!(t->comments[t->n_comments] = strdup(text)))
        return sl_fail(SL_ERR_NOMEM, "%s: out of memory for comments", r->name);
    r->last_comment = t->comments[t->n_comments++];
    r->last_comment_ln = r->ln;
    return SL_OK;
}

/* One line; *state: 0 before the first non-comment line, 1 after. */
static sl_status one_line(reader *r, char *line, int *state)
{
    if (r->ln == 1 && !memcmp(line, "\xEF\xBB\xBF", 3))
        line += 3;
    char *s = trim(line);
    if (*s == '#') {
        s++;
        if (*s == ' ')
            s++;
        return keep_comment(r, trim(s));
    }
    char *hash = comment_start(s);
    if (hash)
        *hash = '\0';
    s = trim(s);
    if (!*s)
        return SL_OK;
    if (r->sep == SEP_UNSET)
        choose_sep(r, s);
    int n;
    sl_status st = split_or_fail(r, s, &n);
    if (st || *state)
        return st ? st : add_row(r, n);
    *state = 1;
    if (!any_number(r->f, n)) {
        if ((st = keep_header(r, r->f, n, r->ln)))
            return st;
        return resolve_named(r);
    }
    int found;
    if ((st = commented_header(r, n, &found)))
        return st;
    st = found ? resolve_named(r) : resolve_positional(r, n);
    return st ? st : add_row(r, n);
}

static sl_status check_spec(const char *name, const sl_table_spec *spec)
{
    if (spec->n_cols < 1 || spec->n_cols > SL_TABLE_MAX_COLS)
        return sl_fail(SL_ERR_INTERNAL, "%s: a table of %d wanted columns (1 to %d)", name,
                       spec->n_cols, SL_TABLE_MAX_COLS);
    return SL_OK;
}

/* "1 GiB", "512 MiB", "1000 bytes": a limit as users would write it. */
static void fmt_bytes(char *buf, size_t cap, int64_t n)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && n >= 1024 && n % 1024 == 0)
        n /= 1024, u++;
    snprintf(buf, cap, "%lld %s", (long long)n, unit[u]);
}

/* The next line (its '\n' kept) into *buf, or *got = 0 at the end. Read a
 * byte at a time, so that an input that never ends (a device, a FIFO fed
 * forever, a line without end) stops at max_bytes instead of filling
 * the memory, and a cancellation request (Ctrl-C) is seen while reading. */
static sl_status next_line(FILE *fp, reader *r, char **buf, size_t *cap, int *got)
{
    const int64_t max = r->max_bytes;
    size_t n = 0;
    int c = 0;
    sl_status st;
    while ((c = getc_unlocked(fp)) != EOF) {
        if (n + 2 > *cap) {
            size_t grown = *cap ? 2 * *cap : 256;
            char *b = realloc(*buf, grown);
            if (!b)
                return sl_fail(SL_ERR_NOMEM, "%s:%lld: out of memory for a line of %zu bytes",
                               r->name, (long long)r->ln + 1, n);
            *buf = b, *cap = grown;
        }
        (*buf)[n++] = (char)c;
        if (++r->bytes % 65536 == 0 && (st = sl_cancel_check(r->name)))
            return st;
        if (max > 0 && r->bytes > max) {
            char lim[32];
            fmt_bytes(lim, sizeof lim, max);
            return sl_fail(SL_ERR_IO, "%s: more than %s read (line %lld): over the size limit "
                           "for one file; is it a device or a FIFO that never ends? If the file "
                           "is that large, raise the limit (starling ls --max-size=SIZE)",
                           r->name, lim, (long long)r->ln + 1);
        }
        if (c == '\n')
            break;
    }
    if (c == EOF && ferror(fp) && (st = sl_cancel_check(r->name)))
        return st; /* a blocked read that the signal interrupted */
    if (n)
        (*buf)[n] = '\0';
    *got = n > 0;
    return SL_OK;
}

sl_status sl_table_read_stream(FILE *fp, const char *name, const sl_table_spec *spec,
                               sl_table *out)
{
    return sl_table_read_stream_max(fp, name, spec, 0, out);
}

sl_status sl_table_read_stream_max(FILE *fp, const char *name, const sl_table_spec *spec,
                                   int64_t max_bytes, sl_table *out)
{
    memset(out, 0, sizeof *out);
    sl_status st = check_spec(name, spec);
    if (st)
        return st;
    if (!(out->path = strdup(name)))
        return sl_fail(SL_ERR_NOMEM, "%s: out of memory", name);
    reader r = {.name = name, .spec = spec, .t = out, .max_bytes = max_bytes};
    char *line = NULL;
    size_t cap = 0;
    int state = 0, got = 0;
    flockfile(fp);
    while (!st && !(st = next_line(fp, &r, &line, &cap, &got)) && got) {
        r.ln++;
        st = one_line(&r, line, &state);
    }
    funlockfile(fp);
    free(line);
    for (int c = 0; c < SL_TABLE_MAX_COLS; c++)
        free(r.slots[c]);
    if (!st && ferror(fp))
        st = sl_fail(SL_ERR_IO, "%s: read error after line %lld: %s", name, (long long)r.ln,
                     strerror(errno));
    if (!st && out->n_rows == 0) {
        char want[256];
        expected_cols(spec, want, sizeof want);
        st = sl_fail(SL_ERR_ARG, "%s: no data lines (expected %s: %s)", name,
                     spec->what ? spec->what : "rows", want);
    }
    if (st)
        sl_table_free(out);
    return st;
}

sl_status sl_table_read(const char *path, const sl_table_spec *spec, sl_table *out)
{
    return sl_table_read_max(path, spec, 0, out);
}

sl_status sl_table_read_max(const char *path, const sl_table_spec *spec, int64_t max_bytes,
                            sl_table *out)
{
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sl_fail(SL_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    sl_status st = sl_table_read_stream_max(fp, path, spec, max_bytes, out);
    fclose(fp);
    return st;
}

/* ---- columns in memory ------------------------------------------------------------ */

/* The descriptor itself: rows, names given once, numbers or text. */
static sl_status check_columns(const char *src, const sl_data *d)
{
    if (d->n_rows == 0 || d->n_cols == 0 || !d->cols)
        return sl_fail(SL_ERR_ARG, "%s: no %s: expected columns of at least one row", src,
                       d->n_cols ? "rows" : "columns");
    if (d->n_cols > SL_TABLE_MAX_FIELDS || d->n_rows > (size_t)INT64_MAX / 16)
        return sl_fail(SL_ERR_ARG, "%s: %zu columns of %zu rows: at most %d columns", src,
                       d->n_cols, d->n_rows, SL_TABLE_MAX_FIELDS);
    for (size_t i = 0; i < d->n_cols; i++) {
        const sl_data_column *c = &d->cols[i];
        if (!c->name || !*c->name)
            return sl_fail(SL_ERR_ARG, "%s: column %zu has no name", src, i + 1);
        if (!c->num == !c->text)
            return sl_fail(SL_ERR_ARG, "%s: column '%s' has %s", src, c->name,
                           c->num ? "both numbers and text" : "no values");
        for (size_t k = 0; k < i; k++)
            if (!strcasecmp(d->cols[k].name, c->name))
                return sl_fail(SL_ERR_ARG, "%s: two columns are named '%s'", src, c->name);
    }
    return SL_OK;
}

/* Chooses each wanted column among the named ones, as resolve_named does
 * among a header's names. */
static sl_status resolve_columns(reader *r, const sl_data *d)
{
    return resolve_by_name(r, r->name, d);
}

/* Text for a number in a text column: the shortest form that reads back. */
static void number_text(double v, char *buf, size_t cap)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (!isfinite(v) || strtod(buf, NULL) == v)
            return;
    }
}

static sl_status copy_columns(reader *r, const sl_data *d)
{
    sl_table *t = r->t;
    sl_status st;
    int64_t n = (int64_t)d->n_rows;
    while (r->cap_rows < n)
        if ((st = grow_rows(r)))
            return st;
    for (int64_t i = 0; i < n; i++)
        t->line[i] = i + 1;
    t->n_rows = n;
    for (int c = 0; c < r->spec->n_cols; c++) {
        sl_table_column *col = &t->col[c];
        if (!col->present)
            continue;
        const sl_data_column *src = &d->cols[col->src - 1];
        for (int64_t i = 0; i < n; i++) {
            if (r->spec->cols[c].type == SL_COL_NUMBER) {
                col->num[i] = src->num[i];
                if (r->spec->cols[c].finite && !isfinite(src->num[i])) {
                    char at[256], num[40];
                    sl_table_at(t, c, i, at, sizeof at);
                    number_text(src->num[i], num, sizeof num);
                    return sl_fail(SL_ERR_ARG, "%s = %s: expected a finite number", at,
                                   isnan(src->num[i]) ? "nan" : num);
                }
                continue;
            }
            char num[40];
            const char *v = src->text ? src->text[i] : num;
            if (!src->text) /* numbers as names: instrument 1, 2, ... */
                number_text(src->num[i], num, sizeof num);
            if (!v) {
                char at[256];
                sl_table_at(t, c, i, at, sizeof at);
                return sl_fail(SL_ERR_ARG, "%s has no value", at);
            }
            if ((st = intern(r, c, v, &col->code[i])))
                return st;
        }
    }
    return SL_OK;
}

static sl_status table_from_columns(const sl_data *d, const sl_table_spec *spec, sl_table *out)
{
    const char *src = d->source ? d->source : "data";
    sl_status st = check_spec(src, spec);
    if (st || (st = check_columns(src, d)))
        return st;
    if (!(out->path = strdup(src)))
        return sl_fail(SL_ERR_NOMEM, "%s: out of memory", src);
    out->in_memory = 1;
    out->has_header = 1;
    out->n_fields = (int)d->n_cols;
    out->header = calloc(d->n_cols, sizeof *out->header);
    for (size_t i = 0; out->header && i < d->n_cols; i++)
        if (!(out->header[i] = strdup(d->cols[i].name)))
            return sl_fail(SL_ERR_NOMEM, "%s: out of memory", src);
    if (!out->header)
        return sl_fail(SL_ERR_NOMEM, "%s: out of memory", src);
    reader r = {.name = out->path, .spec = spec, .t = out};
    st = resolve_columns(&r, d);
    if (!st)
        st = copy_columns(&r, d);
    for (int c = 0; c < SL_TABLE_MAX_COLS; c++)
        free(r.slots[c]);
    return st;
}

/* The wanted column a user's key names: its name or an alias, any case. */
static int wanted_column(const sl_table_spec *spec, const char *key)
{
    for (int c = 0; key && c < spec->n_cols; c++)
        if (is_alias(&spec->cols[c], key))
            return c;
    return -1;
}

/* "time, velocity or error (or a name they go by, such as t, rv, err)" */
static void wanted_list(const sl_table_spec *spec, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int c = 0; c < spec->n_cols && k < cap; c++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%s", c == 0 ? "" : c + 1 < spec->n_cols
                              ? ", " : " or ", spec->cols[c].name);
    int first = 1;
    for (int c = 0; c < spec->n_cols && k < cap; c++)
        for (const char *const *a = spec->cols[c].aliases; a && *a; a++)
            if (strcasecmp(*a, spec->cols[c].name)) {
                k += (size_t)snprintf(buf + k, cap - k, "%s%s", first ? " (or a name they go by, "
                                      "such as " : ", ", *a);
                first = 0;
                break;
            }
    if (!first && k < cap)
        snprintf(buf + k, cap - k, ")");
}

/* The user's picks (columns = {rv = "vel2"}) as a header name per wanted
 * column, over those the spec already names. */
static sl_status apply_picks(const sl_data *d, const sl_table_spec *spec,
                             const char *names[SL_TABLE_MAX_COLS])
{
    const char *src = d->path ? d->path : d->source ? d->source : "data";
    for (int c = 0; c < SL_TABLE_MAX_COLS; c++)
        names[c] = spec->names && c < spec->n_cols ? spec->names[c] : NULL;
    for (size_t i = 0; i < d->n_picks; i++) {
        const sl_data_pick *p = &d->picks[i];
        int c = wanted_column(spec, p->want);
        if (c < 0) {
            char list[512];
            wanted_list(spec, list, sizeof list);
            return sl_fail(SL_ERR_ARG, "%s: columns.%s = \"%s\": %s has no column '%s': "
                           "expected %s", src, p->want ? p->want : "(null)",
                           p->from ? p->from : "(null)", spec->what ? spec->what : "the data",
                           p->want ? p->want : "(null)", list);
        }
        if (names[c])
            return sl_fail(SL_ERR_ARG, "%s: columns.%s = \"%s\": the %s column is already "
                           "named \"%s\"", src, p->want, p->from ? p->from : "(null)",
                           spec->cols[c].name, names[c]);
        if (!p->from || !*p->from)
            return sl_fail(SL_ERR_ARG, "%s: columns.%s: expected a column name", src, p->want);
        names[c] = p->from;
    }
    return SL_OK;
}

sl_status sl_table_from_data(const sl_data *d, const sl_table_spec *spec, sl_table *out)
{
    memset(out, 0, sizeof *out);
    if (!d)
        return sl_fail(SL_ERR_ARG, "no data given (expected %s)",
                       spec->what ? spec->what : "a file or columns");
    const char *names[SL_TABLE_MAX_COLS];
    sl_table_spec picked = *spec;
    if (d->n_picks) {
        sl_status st = check_spec(d->path ? d->path : "data", spec);
        if (!st)
            st = apply_picks(d, spec, names);
        if (st)
            return st;
        picked.names = names;
    }
    if (d->path)
        return sl_table_read(d->path, &picked, out);
    sl_status st = table_from_columns(d, &picked, out);
    if (st)
        sl_table_free(out);
    return st;
}

void sl_table_free(sl_table *t)
{
    if (!t)
        return;
    for (int c = 0; c < SL_TABLE_MAX_COLS; c++) {
        sl_table_column *col = &t->col[c];
        free(col->num);
        free(col->code);
        for (int32_t l = 0; l < col->n_levels; l++)
            free(col->levels[l]);
        free(col->levels);
    }
    for (int i = 0; t->header && i < t->n_fields; i++)
        free(t->header[i]);
    free(t->header);
    for (int64_t i = 0; i < t->n_comments; i++)
        free(t->comments[i]);
    free(t->comments);
    free(t->line);
    free(t->path);
    memset(t, 0, sizeof *t);
}
