#define _GNU_SOURCE
#include "csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- atomic output files ------------------------------------------------ */

sl_status sl_afile_open(sl_afile *af, const char *path)
{
    memset(af, 0, sizeof *af);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base)
        return sl_fail(SL_ERR_IO, "'%s': expected a file name, not a folder", path);
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    af->path = strdup(path);
    af->tmp = malloc(strlen(path) + 16);
    if (!af->path || !af->tmp) {
        sl_afile_abort(af);
        return sl_fail(SL_ERR_NOMEM, "file name '%s'", path);
    }
    /* hidden name beside the destination: same file system, so rename is atomic */
    sprintf(af->tmp, "%.*s.%s.XXXXXX", (int)dirlen, path, base);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        int err = errno;
        free(af->tmp);
        af->tmp = NULL;
        sl_afile_abort(af);
        return sl_fail(SL_ERR_IO, "cannot create '%s': %s", path, strerror(err));
    }
    /* mkstemp makes 0600 files; outputs should get the usual permissions */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    af->f = fdopen(fd, "w");
    if (!af->f) {
        close(fd);
        sl_afile_abort(af);
        return sl_fail(SL_ERR_IO, "cannot open '%s' for writing", path);
    }
    return SL_OK;
}

sl_status sl_afile_commit(sl_afile *af)
{
    int bad = ferror(af->f);
    bad |= fclose(af->f) != 0;
    af->f = NULL;
    if (bad) {
        int err = errno;
        sl_afile_abort(af);
        return sl_fail(SL_ERR_IO, "writing '%s' failed: %s", af->path ? af->path : "?",
                       strerror(err));
    }
    if (rename(af->tmp, af->path) != 0) {
        int err = errno;
        sl_status st = sl_fail(SL_ERR_IO, "cannot rename the finished file to '%s': %s",
                               af->path, strerror(err));
        sl_afile_abort(af);
        return st;
    }
    free(af->tmp);
    free(af->path);
    memset(af, 0, sizeof *af);
    return SL_OK;
}

void sl_afile_abort(sl_afile *af)
{
    if (af->f)
        fclose(af->f);
    if (af->tmp)
        unlink(af->tmp);
    free(af->tmp);
    free(af->path);
    memset(af, 0, sizeof *af);
}

void sl_csv_comment_lines(FILE *f, const char *const *lines, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fputs("# ", f);
        for (const char *c = lines[i]; *c; c++)
            fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
        fputc('\n', f);
    }
}

/* ---- ensembles ------------------------------------------------------------ */

void sl_csv_write_ensemble(FILE *f, const sl_ensemble *e)
{
    fputs(SL_ENSEMBLE_CSV_HEADER "\n", f);
    for (int64_t s = 0; s < e->n_sys; s++)
        for (int b = 0; b < e->n_body; b++) {
            double m, x[3], v[3];
            sl_ensemble_get_body(e, s, b, &m, x, v);
            fprintf(f, "%lld,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", (long long)s + 1,
                    b + 1, m, x[0], x[1], x[2], v[0], v[1], v[2]);
        }
}

enum { NCOL = 9 };
static const char *const col_name[NCOL] = {"sys", "body", "m", "x", "y", "z", "vx", "vy", "vz"};

typedef struct reader {
    const char *path;
    long line;
    double *rows; /* NCOL - 2 doubles (m x y z vx vy vz) per body */
    size_t n_rows, cap;
    int64_t n_sys;
    int n_body;   /* bodies per system, fixed by system 1 */
    int cur_body; /* bodies seen in the current system */
} reader;

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
        *--end = '\0';
    return s;
}

/* Splits on commas in place; returns the number of fields (at most cap kept). */
static int split(char *s, char **fields, int cap)
{
    int n = 0;
    for (char *p = s;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (n < cap)
            fields[n] = trim(p);
        n++;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

static sl_status check_header(reader *r, char **f, int n)
{
    int ok = n == NCOL;
    for (int i = 0; ok && i < NCOL; i++)
        ok = strcmp(f[i], col_name[i]) == 0;
    if (!ok)
        return sl_fail(SL_ERR_ARG, "%s:%ld: header: expected the columns %s", r->path, r->line,
                       SL_ENSEMBLE_CSV_HEADER);
    return SL_OK;
}

static sl_status parse_field(reader *r, int col, const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    int ok = *s && !*end && isfinite(*v);
    if (ok && col < 2)
        ok = *v >= 1 && *v == floor(*v) && *v < 9e15;
    if (ok && col == 2)
        ok = *v >= 0;
    if (!ok)
        return sl_fail(SL_ERR_ARG, "%s:%ld: column '%s' = '%s': expected %s", r->path, r->line,
                       col_name[col], s,
                       col < 2 ? "an integer >= 1"
                       : col == 2 ? "a finite number >= 0"
                                  : "a finite number");
    return SL_OK;
}

/* Systems and bodies must come in order, so that a row out of place (a
 * missing body, a duplicated line) is an error rather than a silent hole. */
static sl_status check_order(reader *r, int64_t sys, int64_t body)
{
    if (sys == r->n_sys && body == r->cur_body + 1) {
        r->cur_body++;
        return SL_OK;
    }
    if (sys == r->n_sys + 1 && body == 1) {
        if (r->n_sys == 1)
            r->n_body = r->cur_body;
        if (r->n_sys >= 1 && r->cur_body != r->n_body)
            return sl_fail(SL_ERR_ARG, "%s:%ld: system %lld has %d bodies, but system 1 has %d",
                           r->path, r->line, (long long)r->n_sys, r->cur_body, r->n_body);
        r->n_sys++;
        r->cur_body = 1;
        return SL_OK;
    }
    if (r->n_sys == 0)
        return sl_fail(SL_ERR_ARG, "%s:%ld: sys %lld, body %lld: expected sys 1 body 1 first",
                       r->path, r->line, (long long)sys, (long long)body);
    return sl_fail(SL_ERR_ARG,
                   "%s:%ld: sys %lld, body %lld out of order: expected sys %lld body %d or "
                   "sys %lld body 1",
                   r->path, r->line, (long long)sys, (long long)body, (long long)r->n_sys,
                   r->cur_body + 1, (long long)r->n_sys + 1);
}

static sl_status add_row(reader *r, char **f)
{
    double v[NCOL];
    sl_status st;
    for (int c = 0; c < NCOL; c++)
        if ((st = parse_field(r, c, f[c], &v[c])))
            return st;
    if ((st = check_order(r, (int64_t)v[0], (int64_t)v[1])))
        return st;
    if (r->cur_body > SL_NBODY_MAX)
        return sl_fail(SL_ERR_ARG, "%s:%ld: more than %d bodies in one system", r->path, r->line,
                       SL_NBODY_MAX);
    if (r->n_rows == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 1024;
        double *rows = realloc(r->rows, cap * (NCOL - 2) * sizeof(double));
        if (!rows)
            return sl_fail(SL_ERR_NOMEM, "%s: %zu rows", r->path, r->n_rows);
        r->rows = rows;
        r->cap = cap;
    }
    memcpy(r->rows + r->n_rows++ * (NCOL - 2), v + 2, (NCOL - 2) * sizeof(double));
    return SL_OK;
}

static void read_seed_comment(const char *s, int *has_seed, uint64_t *seed)
{
    unsigned long long v;
    if (sscanf(s, "# seed = %llu", &v) == 1) {
        *has_seed = 1;
        *seed = v;
    }
}

static sl_status read_lines(reader *r, FILE *fp, int *has_seed, uint64_t *seed)
{
    char *buf = NULL;
    size_t cap = 0;
    int have_header = 0;
    sl_status st = SL_OK;
    while (!st && getline(&buf, &cap, fp) > 0) {
        r->line++;
        char *s = trim(buf);
        if (*s == '#')
            read_seed_comment(s, has_seed, seed);
        if (*s == '#' || *s == '\0')
            continue;
        char *f[NCOL];
        int n = split(s, f, NCOL);
        if (!have_header) {
            st = check_header(r, f, n);
            have_header = 1;
        } else if (n != NCOL)
            st = sl_fail(SL_ERR_ARG, "%s:%ld: %d columns: expected %d (%s)", r->path, r->line, n,
                         NCOL, SL_ENSEMBLE_CSV_HEADER);
        else
            st = add_row(r, f);
    }
    free(buf);
    if (!st && ferror(fp))
        st = sl_fail(SL_ERR_IO, "%s: read error", r->path);
    if (!st && r->n_rows == 0)
        st = sl_fail(SL_ERR_ARG, "%s: no bodies (expected a header %s and one row per body)",
                     r->path, SL_ENSEMBLE_CSV_HEADER);
    if (!st && r->n_sys == 1)
        r->n_body = r->cur_body;
    if (!st && r->cur_body != r->n_body)
        st = sl_fail(SL_ERR_ARG, "%s:%ld: system %lld has %d bodies, but system 1 has %d",
                     r->path, r->line, (long long)r->n_sys, r->cur_body, r->n_body);
    return st;
}

sl_status sl_csv_read_ensemble(const char *path, sl_ensemble **out, int *has_seed,
                               uint64_t *seed)
{
    *out = NULL;
    *has_seed = 0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sl_fail(SL_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    reader r = {.path = path};
    sl_status st = read_lines(&r, fp, has_seed, seed);
    fclose(fp);
    if (!st)
        st = sl_ensemble_create(r.n_sys, r.n_body, out);
    for (size_t i = 0; !st && i < r.n_rows; i++) {
        const double *row = r.rows + i * (NCOL - 2);
        st = sl_ensemble_set_body(*out, (int64_t)(i / (size_t)r.n_body), (int)(i % (size_t)r.n_body),
                                  row[0], row + 1, row + 4);
    }
    free(r.rows);
    if (st) {
        sl_ensemble_destroy(*out);
        *out = NULL;
    }
    return st;
}
