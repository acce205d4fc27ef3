/* Light curves from FITS tables (cfitsio): time, value and optional error
 * columns, and for a batch an object-id column (text or integer). Column
 * names are given or found among common names (case-insensitive, the first
 * name of each list that the table has, so TIME wins over MJD). Null values
 * are read as NaN and left to the per-object checks, as the text reader
 * leaves "nan". Every error names the file, the HDU and the column. The
 * file's structure is checked card by card (fits_cards.h) before cfitsio
 * opens it: cfitsio trusts headers, and aborts on some malformed ones. */
#include <errno.h>
#include <fitsio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "fits_cards.h"
#include "ls_names.h"
#include "lombscargle.h"

sl_status sl_ls_set_from_columns(const char *path, int64_t n, const double *t, const double *y,
                                 const double *dy, char *const *ids, sl_ls_set **out);


static sl_status fits_err(const char *path, int hdu, const char *what, int status)
{
    char text[FLEN_STATUS] = "";
    fits_get_errstatus(status, text);
    fits_clear_errmsg();
    return sl_fail(SL_ERR_IO, "%s (FITS HDU %d): %s: %s", path, hdu, what, text);
}

/* The column number of `name`, or of the first candidate the table has;
 * 0 when absent. */
static int find_col(fitsfile *f, const char *name, const char *const *cands)
{
    int ncol = 0, st = 0;
    fits_get_num_cols(f, &ncol, &st);
    for (const char *const *c = name ? (const char *const[]){name, NULL} : cands; *c; c++)
        for (int i = 1; i <= ncol; i++) {
            char key[FLEN_KEYWORD], val[FLEN_VALUE] = "";
            snprintf(key, sizeof key, "TTYPE%d", i);
            st = 0;
            if (fits_read_key(f, TSTRING, key, val, NULL, &st) == 0 && !strcasecmp(val, *c))
                return i;
        }
    return 0;
}

static void col_names(fitsfile *f, char *buf, size_t cap)
{
    int ncol = 0, st = 0;
    size_t used = 0;
    buf[0] = 0;
    fits_get_num_cols(f, &ncol, &st);
    for (int i = 1; i <= ncol && used < cap; i++) {
        char key[FLEN_KEYWORD], val[FLEN_VALUE] = "";
        snprintf(key, sizeof key, "TTYPE%d", i);
        st = 0;
        fits_read_key(f, TSTRING, key, val, NULL, &st);
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i > 1 ? ", " : "", val);
    }
}

static sl_status need_col(fitsfile *f, const char *path, int hdu, const char *name,
                          const char *const *cands, const char *role, int *col)
{
    *col = find_col(f, name, cands);
    if (*col)
        return SL_OK;
    char have[512];
    col_names(f, have, sizeof have);
    if (name)
        return sl_fail(SL_ERR_IO, "%s (FITS HDU %d): no column '%s' for %s (columns: %s)", path,
                       hdu, name, role, have);
    return sl_fail(SL_ERR_IO, "%s (FITS HDU %d): no %s column (looked for %s, %s, ...; columns: "
                   "%s); name it with columns = {...}", path, hdu, role, cands[0], cands[1], have);
}

static sl_status read_num(fitsfile *f, const char *path, int hdu, int col, int64_t n, double *v)
{
    int st = 0, anynul = 0, type = 0;
    long rep = 0, width = 0;
    char name[FLEN_VALUE] = "", key[FLEN_KEYWORD];
    snprintf(key, sizeof key, "TTYPE%d", col);
    fits_read_key(f, TSTRING, key, name, NULL, &st);
    st = 0;
    fits_get_coltype(f, col, &type, &rep, &width, &st);
    if (!st && (type == TSTRING || type == TLOGICAL || rep != 1))
        return sl_fail(SL_ERR_IO, "%s (FITS HDU %d): column '%s' holds %s: expected one number "
                       "per row", path, hdu, name, type == TSTRING ? "text" : rep != 1 ?
                       "vectors" : "logicals");
    double nul = NAN;
    if (!st)
        fits_read_col(f, TDOUBLE, col, 1, 1, (LONGLONG)n, &nul, v, &anynul, &st);
    if (st) {
        char what[128];
        snprintf(what, sizeof what, "reading column '%s'", name);
        return fits_err(path, hdu, what, st);
    }
    return SL_OK;
}

/* Ids as text, whatever the column's type. */
static sl_status read_ids(fitsfile *f, const char *path, int hdu, int col, int64_t n,
                          char ***out)
{
    int st = 0, anynul = 0, width = 0;
    fits_get_col_display_width(f, col, &width, &st);
    if (st)
        return fits_err(path, hdu, "id column width", st);
    char **ids = calloc((size_t)(n ? n : 1), sizeof *ids);
    char *buf = malloc((size_t)(n ? n : 1) * (size_t)(width + 1));
    if (!ids || !buf) {
        free(ids), free(buf);
        return sl_fail(SL_ERR_NOMEM, "%s: %lld ids", path, (long long)n);
    }
    for (int64_t i = 0; i < n; i++)
        ids[i] = buf + i * (width + 1);
    fits_read_col(f, TSTRING, col, 1, 1, (LONGLONG)n, "", ids, &anynul, &st);
    if (st) {
        free(ids), free(buf);
        return fits_err(path, hdu, "reading the id column", st);
    }
    for (int64_t i = 0; i < n; i++) { /* trim the padding numbers get */
        char *s = ids[i];
        while (*s == ' ')
            s++;
        memmove(ids[i], s, strlen(s) + 1);
        for (size_t L = strlen(ids[i]); L > 0 && ids[i][L - 1] == ' '; L--)
            ids[i][L - 1] = 0;
    }
    *out = ids;
    return SL_OK;
}

sl_status sl_ls_read_fits(const char *path, const sl_ls_columns *cols, int with_id,
                          sl_ls_set **out)
{
    static const sl_ls_columns none = {0};
    const sl_ls_columns *c = cols ? cols : &none;
    fitsfile *f = NULL;
    int st = 0, hdu = 0, type = 0;
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0) /* the same words as the text reader's */
        return sl_fail(SL_ERR_IO, "%s: cannot be read: %s", path, strerror(errno));
    if (c->hdu < 0)
        return sl_fail(SL_ERR_ARG, "%s: hdu = %d: expected 0 (the first table) or a 1-based HDU "
                       "number", path, c->hdu);
    sl_status checked = sl_fits_check(path);
    if (checked)
        return checked;
    if (c->hdu > 0) {
        if (fits_open_file(&f, path, READONLY, &st))
            return fits_err(path, 1, "cannot open", st);
        if (fits_movabs_hdu(f, c->hdu, &type, &st)) {
            fits_close_file(f, &(int){0});
            return fits_err(path, c->hdu, "no such HDU", st);
        }
        if (type == IMAGE_HDU) {
            fits_close_file(f, &(int){0});
            return sl_fail(SL_ERR_IO, "%s (FITS HDU %d): an image, not a table", path, c->hdu);
        }
    } else if (fits_open_table(&f, path, READONLY, &st)) {
        /* cfitsio may hand back an open file with the error: close it */
        sl_status e = fits_err(path, 1, "no table found", st);
        if (f)
            fits_close_file(f, &(int){0});
        return e;
    }
    fits_get_hdu_num(f, &hdu);
    LONGLONG nrows = 0;
    fits_get_num_rowsll(f, &nrows, &st);
    int64_t n = (int64_t)nrows;
    size_t alloc_n = (size_t)(n > 0 && n <= (int64_t)sb.st_size ? n : 1);
    double *t = malloc(alloc_n * sizeof *t), *y = malloc(alloc_n * sizeof *y);
    double *dy = NULL;
    char **ids = NULL;
    int ct = 0, cy = 0, cdy = 0, cid = 0;
    sl_status s = st ? fits_err(path, hdu, "number of rows", st) : SL_OK;
    if (!s && n == 0)
        s = sl_fail(SL_ERR_ARG, "%s (FITS HDU %d): the table has no rows (expected %s)", path,
                    hdu, with_id ? "id, t, y[, dy]" : "t, y[, dy]");
    if (!s && n > (int64_t)sb.st_size) /* a row takes at least a byte of the file */
        s = sl_fail(SL_ERR_ARG, "%s (FITS HDU %d): the header says %lld rows, but the file has "
                    "only %lld bytes: truncated or damaged", path, hdu, (long long)n,
                    (long long)sb.st_size);
    if (!s && (!t || !y))
        s = sl_fail(SL_ERR_NOMEM, "%s: %lld rows", path, (long long)n);
    if (!s)
        s = need_col(f, path, hdu, c->t, sl_ls_t_names, "time", &ct);
    if (!s)
        s = need_col(f, path, hdu, c->y, sl_ls_y_names, "value", &cy);
    if (!s && c->dy)
        s = need_col(f, path, hdu, c->dy, sl_ls_dy_names, "error", &cdy);
    else if (!s)
        cdy = find_col(f, NULL, sl_ls_dy_names); /* errors are optional */
    if (!s && with_id)
        s = need_col(f, path, hdu, c->id, sl_ls_id_names, "object id", &cid);
    if (!s)
        s = read_num(f, path, hdu, ct, n, t);
    if (!s)
        s = read_num(f, path, hdu, cy, n, y);
    if (!s && cdy) {
        if (!(dy = malloc((size_t)(n ? n : 1) * sizeof *dy)))
            s = sl_fail(SL_ERR_NOMEM, "%s", path);
        else
            s = read_num(f, path, hdu, cdy, n, dy);
    }
    if (!s && cid)
        s = read_ids(f, path, hdu, cid, n, &ids);
    fits_close_file(f, &(int){0});
    if (!s)
        s = sl_ls_set_from_columns(path, n, t, y, dy, ids, out);
    if (ids) {
        free(ids[0]);
        free(ids);
    }
    free(t), free(y), free(dy);
    return s;
}
