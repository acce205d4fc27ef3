#define _GNU_SOURCE
#include "csv.h"
#include "num_text.h"
#include "starling/cancel.h"
#include "starling/nomem.h"
#include "starling/table.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    /* a signal ends the rows; the commit after it then refuses (output.h) */
    for (int64_t s = 0; s < e->n_sys && !((s & 1023) == 0 && sl_cancelled()); s++)
        for (int b = 0; b < e->n_body; b++) {
            double m, x[3], v[3];
            sl_ensemble_get_body(e, s, b, &m, x, v);
            const double row[7] = {m, x[0], x[1], x[2], v[0], v[1], v[2]};
            fprintf(f, "%lld,%d", (long long)s + 1, b + 1);
            for (int k = 0; k < 7; k++)
                sl_put_num(f, ",", row[k]);
            fputc('\n', f);
        }
}

enum { NCOL = 9 };
#define SL_ONE_NAME(n) static const char *const n##_names[] = {#n, NULL};
SL_ONE_NAME(sys) SL_ONE_NAME(body) SL_ONE_NAME(m) SL_ONE_NAME(x) SL_ONE_NAME(y) SL_ONE_NAME(z)
SL_ONE_NAME(vx) SL_ONE_NAME(vy) SL_ONE_NAME(vz)
#undef SL_ONE_NAME

/* Every column by its name (in any order), finite, header required. */
static const sl_table_col ens_cols[NCOL] = {
    {"sys", sys_names, SL_COL_NUMBER, 1, 0, 1},  {"body", body_names, SL_COL_NUMBER, 1, 1, 1},
    {"m", m_names, SL_COL_NUMBER, 1, 2, 1},      {"x", x_names, SL_COL_NUMBER, 1, 3, 1},
    {"y", y_names, SL_COL_NUMBER, 1, 4, 1},      {"z", z_names, SL_COL_NUMBER, 1, 5, 1},
    {"vx", vx_names, SL_COL_NUMBER, 1, 6, 1},    {"vy", vy_names, SL_COL_NUMBER, 1, 7, 1},
    {"vz", vz_names, SL_COL_NUMBER, 1, 8, 1},
};

typedef struct reader {
    const char *path;
    long line;
    int64_t n_sys;
    int n_body;   /* bodies per system, fixed by system 1 */
    int cur_body; /* bodies seen in the current system */
} reader;

static sl_status check_value(reader *r, const sl_table *t, int col, double v)
{
    int ok = col >= 2 || (v >= 1 && v == floor(v) && v < 9e15);
    if (col == 2)
        ok = v >= 0;
    if (ok)
        return SL_OK;
    char where[160], num[40];
    sl_table_where(t, col, where, sizeof where);
    sl_fmt_num(num, sizeof num, v);
    return sl_fail(SL_ERR_ARG, "%s:%ld: %s = %s: expected %s", r->path, r->line, where, num,
                   col < 2 ? "an integer >= 1" : "a number >= 0");
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

static sl_status check_rows(reader *r, const sl_table *t)
{
    sl_status st = SL_OK;
    for (int64_t i = 0; !st && i < t->n_rows; i++) {
        r->line = (long)t->line[i];
        for (int c = 0; !st && c < 3; c++)
            st = check_value(r, t, c, t->col[c].num[i]);
        if (!st)
            st = check_order(r, (int64_t)t->col[0].num[i], (int64_t)t->col[1].num[i]);
        if (!st && r->cur_body > SL_NBODY_MAX)
            st = sl_fail(SL_ERR_ARG, "%s:%ld: more than %d bodies in one system", r->path,
                         r->line, SL_NBODY_MAX);
    }
    if (!st && r->n_sys == 1)
        r->n_body = r->cur_body;
    if (!st && r->cur_body != r->n_body)
        st = sl_fail(SL_ERR_ARG, "%s:%ld: system %lld has %d bodies, but system 1 has %d",
                     r->path, r->line, (long long)r->n_sys, r->cur_body, r->n_body);
    return st;
}

static void read_seed_comment(const sl_table *t, int *has_seed, uint64_t *seed)
{
    for (int64_t i = 0; i < t->n_comments; i++) {
        unsigned long long v;
        if (sscanf(t->comments[i], "seed = %llu", &v) == 1) {
            *has_seed = 1;
            *seed = v;
        }
    }
}

sl_status sl_csv_read_ensemble(const char *path, sl_ensemble **out, int *has_seed,
                               uint64_t *seed)
{
    *out = NULL;
    *has_seed = 0;
    sl_table_spec spec = {.what = "an ensemble (one row per body)", .cols = ens_cols, .n_cols = NCOL,
                          .header_required = 1};
    sl_table t;
    sl_status st = sl_table_read(path, &spec, &t);
    if (st)
        return st;
    reader r = {.path = path};
    read_seed_comment(&t, has_seed, seed);
    st = check_rows(&r, &t);
    if (!st)
        st = sl_ensemble_create(r.n_sys, r.n_body, out);
    for (int64_t i = 0; !st && i < t.n_rows; i++) {
        double x[3] = {t.col[3].num[i], t.col[4].num[i], t.col[5].num[i]};
        double v[3] = {t.col[6].num[i], t.col[7].num[i], t.col[8].num[i]};
        st = sl_ensemble_set_body(*out, i / r.n_body, (int)(i % r.n_body), t.col[2].num[i], x, v);
    }
    sl_table_free(&t);
    if (st) {
        sl_ensemble_destroy(*out);
        *out = NULL;
    }
    return st;
}
