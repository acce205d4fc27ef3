/* Light curves from text files: one curve (t, y[, dy]), a batch with an
 * object-id column (id, t, y[, dy]) or a folder of one-curve files, read by
 * the core's tabular reader (starling/table.h), whose rules every text
 * format shares: a header is recognised by content and its names choose the
 * columns (the names below); a file without one is taken in the order
 * above. Values such as "nan" are read and left to the per-object checks,
 * so one bad object in a batch is flagged and the rest carry on; text that
 * is not a number is an error naming file, line and column. Every point
 * keeps its line in the file, for messages. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ls_names.h"
#include "lombscargle.h"
#include "starling/table.h"

void sl_ls_set_free(sl_ls_set *s)
{
    if (!s)
        return;
    for (int64_t i = 0; s->id && i < s->data.n_obj; i++)
        free(s->id[i]);
    free(s->id), free(s->offset), free(s->t), free(s->y), free(s->dy), free(s->line);
    free(s->source), free(s->path);
    free(s);
}

/* rows as read, before grouping by id */
typedef struct rows {
    int64_t n, cap;
    double *t, *y, *dy;
    int64_t *obj;
    int64_t *line;  /* line in the file, or -1 (FITS rows) */
    char **ids;     /* distinct ids in order of first appearance */
    int64_t n_ids, cap_ids;
} rows;

static void rows_free(rows *r)
{
    free(r->t), free(r->y), free(r->dy), free(r->obj), free(r->line);
    for (int64_t i = 0; i < r->n_ids; i++)
        free(r->ids[i]);
    free(r->ids);
}

static int push_row(rows *r, double t, double y, double dy, int64_t obj, int64_t line)
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
        int64_t *l = realloc(r->line, (size_t)cap * sizeof *l);
        if (l) r->line = l;
        if (!a || !b || !c || !o || !l)
            return -1;
        r->cap = cap;
    }
    r->t[r->n] = t, r->y[r->n] = y, r->dy[r->n] = dy, r->obj[r->n] = obj;
    r->line[r->n] = line;
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

/* Column names of light curves, shared with the FITS reader (ls_names.h):
 * within a list, earlier names win when a file has several. */
const char *const sl_ls_t_names[] = {"time", "t", "mjd", "bjd", "bjd_tdb", "hjd", "jd", "btjd",
                                     "date", NULL};
const char *const sl_ls_y_names[] = {"flux", "pdcsap_flux", "sap_flux", "mag", "magnitude", "y",
                                     "value", "rv", NULL};
const char *const sl_ls_dy_names[] = {"flux_err", "pdcsap_flux_err", "sap_flux_err", "magerr",
                                      "mag_err", "e_mag", "dy", "yerr", "fluxerr", "err",
                                      "error", "sigma", NULL};
const char *const sl_ls_id_names[] = {"id", "object", "objid", "obj", "oid", "name",
                                      "source_id", "source", NULL};

/* The table layout of a light-curve file: id (batches), t, y, dy. */
static void ls_spec(int with_id, const sl_ls_columns *names, sl_table_col cols[4],
                    const char *user[4], sl_table_spec *spec)
{
    int o = with_id ? 1 : 0;
    cols[0] = (sl_table_col){"t", sl_ls_t_names, SL_COL_NUMBER, 1, o, 0};
    cols[1] = (sl_table_col){"y", sl_ls_y_names, SL_COL_NUMBER, 1, o + 1, 0};
    cols[2] = (sl_table_col){"dy", sl_ls_dy_names, SL_COL_NUMBER, 0, o + 2, 0};
    cols[3] = (sl_table_col){"id", sl_ls_id_names, SL_COL_TEXT, with_id, with_id ? 0 : -1, 0};
    user[0] = names ? names->t : NULL;
    user[1] = names ? names->y : NULL;
    user[2] = names ? names->dy : NULL;
    user[3] = names && with_id ? names->id : NULL;
    int any = user[0] || user[1] || user[2] || user[3];
    *spec = (sl_table_spec){.what = with_id ? "a batch of light curves" : "a light curve",
                            .cols = cols, .n_cols = with_id ? 4 : 3, .can_name = 1,
                            .names = any ? user : NULL};
}

/* Rows of one text file, in file order; NaN and inf are kept for the
 * per-object checks. */
static sl_status read_rows(const char *path, int with_id, const sl_ls_columns *names, rows *r,
                           int *has_dy)
{
    sl_table_col cols[4];
    const char *user[4];
    sl_table_spec spec;
    ls_spec(with_id, names, cols, user, &spec);
    sl_table tab;
    int64_t max = names && names->max_bytes > 0 ? names->max_bytes : SL_LS_MAX_BYTES;
    sl_status st = strcmp(path, "-") ? sl_table_read_max(path, &spec, max, &tab)
                                     : sl_table_read_stream_max(stdin, "stdin", &spec, max, &tab);
    if (st)
        return st;
    const sl_table_column *ct = &tab.col[0], *cy = &tab.col[1], *cd = &tab.col[2];
    sl_table_column *ci = &tab.col[3];
    *has_dy = cd->present;
    if (with_id) { /* the table's levels are the ids, in order of first appearance */
        r->ids = ci->levels, r->n_ids = r->cap_ids = ci->n_levels;
        ci->levels = NULL, ci->n_levels = 0;
    }
    for (int64_t i = 0; i < tab.n_rows && !st; i++)
        if (push_row(r, ct->num[i], cy->num[i], cd->present ? cd->num[i] : 1.0,
                     with_id ? ci->code[i] : 0, tab.line[i]))
            st = sl_fail(SL_ERR_NOMEM, "%s: %lld rows", path, (long long)r->n);
    sl_table_free(&tab);
    return st;
}

static sl_ls_set *new_set(const char *path)
{
    sl_ls_set *s = calloc(1, sizeof *s);
    if (s && !(s->path = strdup(strcmp(path, "-") ? path : "stdin"))) {
        free(s);
        s = NULL;
    }
    return s;
}

/* source: the file the points' lines refer to (NULL: none, e.g. a folder
 * of several files, where the object ids name the files). */
static sl_status finish_set(sl_ls_set *s, const char *source)
{
    s->data.offset = s->offset;
    s->data.t = s->t, s->data.y = s->y, s->data.dy = s->dy;
    if (source && s->line && !(s->source = strdup(source)))
        return sl_fail(SL_ERR_NOMEM, "%s", s->path);
    s->data.source = s->source;
    s->data.line = s->source ? s->line : NULL;
    return SL_OK;
}

/* Groups rows by object (stable: each object keeps its rows' order). */
static sl_status group_rows(rows *r, int with_id, int has_dy, const char *source,
                            sl_ls_set *s)
{
    int64_t n_obj = with_id ? r->n_ids : 1;
    size_t n = (size_t)r->n;
    s->offset = calloc((size_t)n_obj + 1, sizeof *s->offset);
    s->t = malloc(n * sizeof(double));
    s->y = malloc(n * sizeof(double));
    s->dy = has_dy ? malloc(n * sizeof(double)) : NULL;
    s->id = calloc((size_t)n_obj, sizeof *s->id);
    s->line = malloc((n ? n : 1) * sizeof *s->line);
    if (!s->offset || !s->t || !s->y || (has_dy && !s->dy) || !s->id || !s->line)
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
        s->t[k] = r->t[i], s->y[k] = r->y[i], s->line[k] = r->line[i];
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
    return finish_set(s, source);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder: every regular file not starting with '.' is one light curve. */
static sl_status read_dir(const char *path, const sl_ls_columns *cols, sl_ls_set **out)
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
        st = read_rows(file, 0, cols, &one, &has_dy);
        if (!st && any_dy >= 0 && has_dy != any_dy)
            st = sl_fail(SL_ERR_IO, "%s: has %s error column, unlike the folder's earlier files",
                         file, has_dy ? "an" : "no");
        any_dy = has_dy;
        int64_t obj = st ? -1 : id_index(&r, names[i]);
        for (int64_t k = 0; !st && k < one.n; k++)
            if (obj < 0 || push_row(&r, one.t[k], one.y[k], one.dy[k], obj, one.line[k]))
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
    char *only = NULL; /* a folder of one file: its lines name that file */
    if (!st && r.n_ids == 1 && asprintf(&only, "%s/%s", path, r.ids[0]) < 0)
        only = NULL;
    if (!st)
        st = group_rows(&r, 1, any_dy == 1, only, s);
    free(only);
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
        if (obj < 0 || push_row(&r, t[i], y[i], dy ? dy[i] : 1.0, obj, -1))
            st = sl_fail(SL_ERR_NOMEM, "%s: %lld rows", path, (long long)n);
    }
    if (!st && !(s = new_set(path)))
        st = sl_fail(SL_ERR_NOMEM, "%s", path);
    if (!st)
        st = group_rows(&r, ids != NULL, dy != NULL, NULL, s);
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

/* Text, FITS or a folder; cols (may be NULL) names the columns. */
sl_status sl_ls_read_with(const char *path, const sl_ls_columns *cols, int with_id,
                          sl_ls_set **out)
{
    *out = NULL;
    struct stat sb;
    int is_stdin = !strcmp(path, "-");
    if (!is_stdin && stat(path, &sb) != 0)
        return sl_fail(SL_ERR_IO, "%s: cannot be read: %s", path, strerror(errno));
    if (!is_stdin && S_ISDIR(sb.st_mode))
        return read_dir(path, cols, out);
    /* only a regular file can be looked into and then read again */
    if (!is_stdin && S_ISREG(sb.st_mode) && is_fits(path))
        return sl_ls_read_fits(path, cols, with_id, out);
    rows r;
    memset(&r, 0, sizeof r);
    int has_dy = 0;
    sl_status st = read_rows(path, with_id, cols, &r, &has_dy);
    sl_ls_set *s = NULL;
    if (!st && !(s = new_set(path)))
        st = sl_fail(SL_ERR_NOMEM, "%s", path);
    if (!st)
        st = group_rows(&r, with_id, has_dy, s->path, s);
    rows_free(&r);
    if (st) {
        sl_ls_set_free(s);
        return st;
    }
    *out = s;
    return SL_OK;
}

sl_status sl_ls_read(const char *path, int with_id, sl_ls_set **out)
{
    return sl_ls_read_with(path, NULL, with_id, out);
}
