/* Light curves from text files: one curve (t, y[, dy]), a batch with an
 * object-id column (id, t, y[, dy]) or a folder of one-curve files. Commas,
 * spaces, tabs or semicolons separate fields; '#' starts a comment. A first
 * line that is not numbers is a header: recognised names (t/time/mjd/jd,
 * y/mag/flux/value, dy/err/error/sigma/magerr/flux_err, id/object/name)
 * choose the columns, otherwise columns are taken in order. Values such as
 * "nan" are read and left to the per-object checks, so one bad object in a
 * batch is flagged and the rest carry on; text that is not a number is a
 * format error naming file, line and column. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "starling/periodogram.h"

void sl_ls_set_free(sl_ls_set *s)
{
    if (!s)
        return;
    for (int64_t i = 0; s->id && i < s->data.n_obj; i++)
        free(s->id[i]);
    free(s->id), free(s->offset), free(s->t), free(s->y), free(s->dy), free(s->path);
    free(s);
}

/* rows as read, before grouping by id */
typedef struct rows {
    int64_t n, cap;
    double *t, *y, *dy;
    int64_t *obj;
    char **ids;     /* distinct ids in order of first appearance */
    int64_t n_ids, cap_ids;
} rows;

static void rows_free(rows *r)
{
    free(r->t), free(r->y), free(r->dy), free(r->obj);
    for (int64_t i = 0; i < r->n_ids; i++)
        free(r->ids[i]);
    free(r->ids);
}

static int push_row(rows *r, double t, double y, double dy, int64_t obj)
{
    if (r->n == r->cap) {
        int64_t cap = r->cap ? 2 * r->cap : 1024;
        double *a = realloc(r->t, (size_t)cap * sizeof *a);
        if (a) r->t = a;
        double *b = realloc(r->y, (size_t)cap * sizeof *b);
        if (b) r->y = b;
        double *c = realloc(r->dy, (size_t)cap * sizeof *c);
        if (c) r->dy = c;
        int64_t *o = realloc(r->obj, (size_t)cap * sizeof *o);
        if (o) r->obj = o;
        if (!a || !b || !c || !o)
            return -1;
        r->cap = cap;
    }
    r->t[r->n] = t, r->y[r->n] = y, r->dy[r->n] = dy, r->obj[r->n] = obj;
    r->n++;
    return 0;
}

/* Index of id, adding it when new. Linear search from the last one seen:
 * ids of a batch file usually come in runs. */
static int64_t id_index(rows *r, const char *id)
{
    static _Thread_local int64_t last = 0;
    if (last < r->n_ids && !strcmp(r->ids[last], id))
        return last;
    for (int64_t i = r->n_ids - 1; i >= 0; i--)
        if (!strcmp(r->ids[i], id))
            return last = i;
    if (r->n_ids == r->cap_ids) {
        int64_t cap = r->cap_ids ? 2 * r->cap_ids : 64;
        char **a = realloc(r->ids, (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        r->ids = a, r->cap_ids = cap;
    }
    if (!(r->ids[r->n_ids] = strdup(id)))
        return -1;
    return last = r->n_ids++;
}

enum { MAX_FIELDS = 64 };

/* Splits a line in place; returns the number of fields. */
static int split(char *line, char **f)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '\n' || *p == '\r' || *p == '#')
            break;
        if (n == MAX_FIELDS)
            return -1;
        f[n++] = p;
        while (*p && !strchr(",; \t\r\n#", *p))
            p++;
        char end = *p;
        if (end == ' ' || end == '\t') { /* spaces then maybe a comma */
            *p++ = '\0';
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == ',' || *p == ';')
                p++;
            continue;
        }
        if (end == ',' || end == ';') {
            *p++ = '\0';
            continue;
        }
        *p = '\0';
        break;
    }
    return n;
}

static int parse_num(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && *end == '\0';
}

static int name_is(const char *s, const char *const *names)
{
    for (; *names; names++)
        if (!strcasecmp(s, *names))
            return 1;
    return 0;
}

static const char *const t_names[] = {"t", "time", "mjd", "jd", "hjd", "bjd", "date", NULL};
static const char *const y_names[] = {"y", "mag", "flux", "value", "magnitude", "rv", NULL};
static const char *const dy_names[] = {"dy", "err", "error", "sigma", "magerr", "mag_err",
                                       "flux_err", "fluxerr", "e_mag", "yerr", NULL};
static const char *const id_names[] = {"id", "object", "objid", "obj", "name", "source_id",
                                       "source", NULL};

/* Column positions: id (or -1), t, y, dy (or -1). */
typedef struct cols {
    int id, t, y, dy, n;
} cols;

static int header_cols(char **f, int n, int with_id, cols *c)
{
    cols named = {-1, -1, -1, -1, n};
    for (int i = 0; i < n; i++) {
        if (name_is(f[i], t_names) && named.t < 0) named.t = i;
        else if (name_is(f[i], y_names) && named.y < 0) named.y = i;
        else if (name_is(f[i], dy_names) && named.dy < 0) named.dy = i;
        else if (name_is(f[i], id_names) && named.id < 0) named.id = i;
    }
    if (named.t < 0 || named.y < 0 || (with_id && named.id < 0))
        return 0;
    if (!with_id)
        named.id = -1;
    *c = named;
    return 1;
}

static sl_status read_rows(const char *path, int with_id, rows *r, int *has_dy)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sl_fail(SL_ERR_IO, "%s: cannot be read: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int64_t lineno = 0, data_lines = 0;
    int first = 1;
    cols c = {with_id ? 0 : -1, with_id, with_id + 1, -1, 0};
    sl_status st = SL_OK;
    char *f[MAX_FIELDS];
    while (getline(&line, &cap, fp) >= 0) {
        lineno++;
        int n = split(line, f);
        if (n == 0)
            continue;
        if (n < 0) {
            st = sl_fail(SL_ERR_IO, "%s:%lld: more than %d fields", path, (long long)lineno,
                         MAX_FIELDS);
            break;
        }
        double v;
        if (first) {
            first = 0;
            /* a header: its t column's text is not a number */
            int numeric = 1;
            for (int i = with_id ? 1 : 0; i < n && numeric; i++)
                numeric = parse_num(f[i], &v);
            if (!numeric) {
                if (!header_cols(f, n, with_id, &c))
                    c.dy = n > c.y + 1 ? c.y + 1 : -1;
                c.n = n;
                continue;
            }
        }
        if (c.n == 0) { /* no header: the first data line fixes the columns */
            c.n = n;
            c.dy = n > c.y + 1 ? c.y + 1 : -1;
        }
        int need = (c.dy > c.y ? c.dy : c.y) + 1;
        if (c.t + 1 > need) need = c.t + 1;
        if (c.id + 1 > need) need = c.id + 1;
        if (n < need || n > c.n) {
            st = sl_fail(SL_ERR_IO, "%s:%lld: %d field%s: expected %d (%s%s%s)", path,
                         (long long)lineno, n, n == 1 ? "" : "s", c.n, with_id ? "id, " : "",
                         "t, y", c.dy >= 0 ? ", dy" : "");
            break;
        }
        double t = 0, y = 0, dy = 1.0;
        const int want[3] = {c.t, c.y, c.dy};
        double *dst[3] = {&t, &y, &dy};
        const char *what[3] = {"t", "y", "dy"};
        for (int k = 0; k < 3 && !st; k++)
            if (want[k] >= 0 && !parse_num(f[want[k]], dst[k]))
                st = sl_fail(SL_ERR_IO, "%s:%lld: column %d (%s) = \"%.40s\": expected a number",
                             path, (long long)lineno, want[k] + 1, what[k], f[want[k]]);
        if (st)
            break;
        int64_t obj = 0;
        if (with_id && (obj = id_index(r, f[c.id])) < 0) {
            st = sl_fail(SL_ERR_NOMEM, "%s: object ids", path);
            break;
        }
        if (push_row(r, t, y, dy, obj)) {
            st = sl_fail(SL_ERR_NOMEM, "%s: %lld rows", path, (long long)r->n);
            break;
        }
        data_lines++;
    }
    if (!st && ferror(fp))
        st = sl_fail(SL_ERR_IO, "%s: read error", path);
    free(line);
    fclose(fp);
    if (!st && data_lines == 0)
        st = sl_fail(SL_ERR_IO, "%s: no data rows (expected %s)", path,
                     with_id ? "id, t, y[, dy]" : "t, y[, dy]");
    *has_dy = c.dy >= 0;
    return st;
}

static sl_ls_set *new_set(const char *path)
{
    sl_ls_set *s = calloc(1, sizeof *s);
    if (s && !(s->path = strdup(path))) {
        free(s);
        s = NULL;
    }
    return s;
}

static sl_status finish_set(sl_ls_set *s)
{
    s->data.offset = s->offset;
    s->data.t = s->t, s->data.y = s->y, s->data.dy = s->dy;
    return SL_OK;
}

/* Groups rows by object (stable: each object keeps its rows' order). */
static sl_status group_rows(rows *r, int with_id, int has_dy, sl_ls_set *s)
{
    int64_t n_obj = with_id ? r->n_ids : 1;
    size_t n = (size_t)r->n;
    s->offset = calloc((size_t)n_obj + 1, sizeof *s->offset);
    s->t = malloc(n * sizeof(double));
    s->y = malloc(n * sizeof(double));
    s->dy = has_dy ? malloc(n * sizeof(double)) : NULL;
    s->id = calloc((size_t)n_obj, sizeof *s->id);
    if (!s->offset || !s->t || !s->y || (has_dy && !s->dy) || !s->id)
        return sl_fail(SL_ERR_NOMEM, "%s: %lld rows", s->path, (long long)r->n);
    for (int64_t i = 0; i < r->n; i++)
        s->offset[r->obj[i] + 1]++;
    for (int64_t o = 0; o < n_obj; o++)
        s->offset[o + 1] += s->offset[o];
    int64_t *at = malloc((size_t)n_obj * sizeof *at);
    if (!at)
        return sl_fail(SL_ERR_NOMEM, "%s", s->path);
    memcpy(at, s->offset, (size_t)n_obj * sizeof *at);
    for (int64_t i = 0; i < r->n; i++) {
        int64_t k = at[r->obj[i]]++;
        s->t[k] = r->t[i], s->y[k] = r->y[i];
        if (has_dy)
            s->dy[k] = r->dy[i];
    }
    free(at);
    s->data.n_obj = n_obj;
    for (int64_t o = 0; o < n_obj; o++) {
        const char *name = with_id ? r->ids[o] : s->path;
        if (!with_id) {
            const char *slash = strrchr(name, '/');
            name = slash ? slash + 1 : name;
        }
        if (!(s->id[o] = strdup(name)))
            return sl_fail(SL_ERR_NOMEM, "%s", s->path);
    }
    return finish_set(s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder: every regular file not starting with '.' is one light curve. */
static sl_status read_dir(const char *path, sl_ls_set **out)
{
    DIR *d = opendir(path);
    if (!d)
        return sl_fail(SL_ERR_IO, "%s: cannot open folder: %s", path, strerror(errno));
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    sl_status st = SL_OK;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char **a = realloc(names, (n + 1) * sizeof *a);
        if (!a || !(a[n] = strdup(de->d_name))) {
            names = a ? a : names;
            st = sl_fail(SL_ERR_NOMEM, "%s: file names", path);
            break;
        }
        names = a, n++;
    }
    closedir(d);
    if (!st && n == 0)
        st = sl_fail(SL_ERR_IO, "%s: the folder holds no light-curve files", path);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    rows r;
    memset(&r, 0, sizeof r);
    int any_dy = -1;
    for (size_t i = 0; i < n && !st; i++) {
        char *file;
        if (asprintf(&file, "%s/%s", path, names[i]) < 0) {
            st = sl_fail(SL_ERR_NOMEM, "%s", path);
            break;
        }
        rows one;
        memset(&one, 0, sizeof one);
        int has_dy = 0;
        st = read_rows(file, 0, &one, &has_dy);
        if (!st && any_dy >= 0 && has_dy != any_dy)
            st = sl_fail(SL_ERR_IO, "%s: has %s error column, unlike the folder's earlier files",
                         file, has_dy ? "an" : "no");
        any_dy = has_dy;
        int64_t obj = st ? -1 : id_index(&r, names[i]);
        for (int64_t k = 0; !st && k < one.n; k++)
            if (obj < 0 || push_row(&r, one.t[k], one.y[k], one.dy[k], obj))
                st = sl_fail(SL_ERR_NOMEM, "%s", file);
        rows_free(&one);
        free(file);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    sl_ls_set *s = st ? NULL : new_set(path);
    if (!st && !s)
        st = sl_fail(SL_ERR_NOMEM, "%s", path);
    if (!st)
        st = group_rows(&r, 1, any_dy == 1, s);
    rows_free(&r);
    if (st) {
        sl_ls_set_free(s);
        return st;
    }
    *out = s;
    return SL_OK;
}

/* A set from whole columns (the FITS reader's rows): ids NULL for one
 * object, else one id per row, grouped as the text reader groups them. */
sl_status sl_ls_set_from_columns(const char *path, int64_t n, const double *t, const double *y,
                                 const double *dy, char *const *ids, sl_ls_set **out)
{
    rows r;
    memset(&r, 0, sizeof r);
    sl_status st = SL_OK;
    sl_ls_set *s = NULL;
    for (int64_t i = 0; i < n && !st; i++) {
        int64_t obj = ids ? id_index(&r, ids[i]) : 0;
        if (obj < 0 || push_row(&r, t[i], y[i], dy ? dy[i] : 1.0, obj))
            st = sl_fail(SL_ERR_NOMEM, "%s: %lld rows", path, (long long)n);
    }
    if (!st && !(s = new_set(path)))
        st = sl_fail(SL_ERR_NOMEM, "%s", path);
    if (!st)
        st = group_rows(&r, ids != NULL, dy != NULL, s);
    rows_free(&r);
    if (st) {
        sl_ls_set_free(s);
        return st;
    }
    *out = s;
    return SL_OK;
}

sl_status sl_ls_read_fits(const char *path, const sl_ls_columns *cols, int with_id,
                          sl_ls_set **out);

/* FITS files start with the 80-byte card "SIMPLE  =". */
static int is_fits(const char *path)
{
    char head[9] = "";
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t got = fread(head, 1, 9, f);
    fclose(f);
    return got == 9 && !memcmp(head, "SIMPLE  =", 9);
}

sl_status sl_ls_read(const char *path, int with_id, sl_ls_set **out)
{
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return sl_fail(SL_ERR_IO, "%s: cannot be read: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return read_dir(path, out);
    if (is_fits(path))
        return sl_ls_read_fits(path, NULL, with_id, out);
    rows r;
    memset(&r, 0, sizeof r);
    int has_dy = 0;
    sl_status st = read_rows(path, with_id, &r, &has_dy);
    sl_ls_set *s = NULL;
    if (!st && !(s = new_set(path)))
        st = sl_fail(SL_ERR_NOMEM, "%s", path);
    if (!st)
        st = group_rows(&r, with_id, has_dy, s);
    rows_free(&r);
    if (st) {
        sl_ls_set_free(s);
        return st;
    }
    *out = s;
    return SL_OK;
}
