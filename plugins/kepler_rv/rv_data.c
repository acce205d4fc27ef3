#define _POSIX_C_SOURCE 200809L
#include "rv_data.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const col_name[] = {"time", "velocity", "error", "instrument"};

/* Splits a line in place into at most `cap` fields: on commas when the
 * line has one (fields trimmed), else on runs of blanks. Returns the count,
 * or cap + 1 when there are more. */
static int split(char *s, char **f, int cap)
{
    int n = 0, csv = strchr(s, ',') != NULL;
    while (*s) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s && !csv)
            break;
        if (n == cap)
            return cap + 1;
        f[n++] = s;
        if (csv) {
            char *c = strchr(s, ',');
            char *end = c ? c : s + strlen(s);
            char *t = end;
            while (t > s && isspace((unsigned char)t[-1]))
                t--;
            *t = '\0';
            if (!c)
                break;
            s = c + 1;
        } else {
            while (*s && !isspace((unsigned char)*s))
                s++;
            if (*s)
                *s++ = '\0';
        }
    }
    return n;
}

static int parse_num(const char *s, double *x)
{
    char *end;
    errno = 0;
    *x = strtod(s, &end);
    return *s && !*end && errno != ERANGE && isfinite(*x);
}

static sl_status push(sl_rv_data *d, size_t *cap, double t, double v, double e, int inst)
{
    if (d->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        double *nt = realloc(d->t, nc * sizeof *nt);
        if (nt) d->t = nt;
        double *nv = realloc(d->v, nc * sizeof *nv);
        if (nv) d->v = nv;
        double *ne = realloc(d->err, nc * sizeof *ne);
        if (ne) d->err = ne;
        int *ni = realloc(d->inst, nc * sizeof *ni);
        if (ni) d->inst = ni;
        if (!nt || !nv || !ne || !ni)
            return sl_fail(SL_ERR_NOMEM, "out of memory reading %zu observations", nc);
        *cap = nc;
    }
    d->t[d->n] = t, d->v[d->n] = v, d->err[d->n] = e, d->inst[d->n] = inst;
    d->n++;
    return SL_OK;
}

static int instrument(sl_rv_data *d, const char *name)
{
    for (int i = 0; i < d->n_inst; i++)
        if (strcmp(d->inst_names[i], name) == 0)
            return i;
    if (d->n_inst == SL_RV_MAX_INST)
        return -1;
    snprintf(d->inst_names[d->n_inst], SL_RV_NAME_MAX, "%s", name);
    return d->n_inst++;
}

/* One data line (already split); `ncol` is the column count fixed by the
 * first data line. Last time per instrument is kept for the order checks. */
typedef struct rd_state {
    const char *path;
    int ncol;
    double last_t;
    long last_line;
    double inst_t[SL_RV_MAX_INST];
    long inst_line[SL_RV_MAX_INST];
} rd_state;

static sl_status data_line(sl_rv_data *d, size_t *cap, rd_state *s, long ln, char **f, int n)
{
    if (n > 4)
        return sl_fail(SL_ERR_ARG, "%s:%ld: more than 4 columns: expected 3 or 4 "
                       "(time, velocity, error[, instrument])", s->path, ln);
    if (n < 3)
        return sl_fail(SL_ERR_ARG, "%s:%ld: %d column%s: expected 3 or 4 "
                       "(time, velocity, error[, instrument])", s->path, ln, n, n == 1 ? "" : "s");
    if (s->ncol && n != s->ncol)
        return sl_fail(SL_ERR_ARG, "%s:%ld: %d columns, but earlier lines have %d", s->path, ln,
                       n, s->ncol);
    s->ncol = n;
    double x[3];
    for (int c = 0; c < 3; c++)
        if (!parse_num(f[c], &x[c]))
            return sl_fail(SL_ERR_ARG, "%s:%ld: column %d (%s) = \"%.40s\": expected a finite number",
                           s->path, ln, c + 1, col_name[c], f[c]);
    if (!(x[2] > 0))
        return sl_fail(SL_ERR_ARG, "%s:%ld: error = %.17g: expected a number > 0", s->path, ln,
                       x[2]);
    if (n == 4 && (strlen(f[3]) == 0 || strlen(f[3]) >= SL_RV_NAME_MAX))
        return sl_fail(SL_ERR_ARG, "%s:%ld: instrument = \"%.40s\": expected a name of 1 to %d characters",
                       s->path, ln, f[3], SL_RV_NAME_MAX - 1);
    int inst = instrument(d, n == 4 ? f[3] : "default");
    if (inst < 0)
        return sl_fail(SL_ERR_ARG, "%s:%ld: instrument \"%s\": more than %d instruments", s->path,
                       ln, f[3], SL_RV_MAX_INST);
    if (d->n && x[0] < s->last_t)
        return sl_fail(SL_ERR_ARG, "%s:%ld: time %.17g is before time %.17g of line %ld: "
                       "expected times sorted in increasing order", s->path, ln, x[0], s->last_t,
                       s->last_line);
    if (s->inst_line[inst] && x[0] == s->inst_t[inst])
        return sl_fail(SL_ERR_ARG, "%s:%ld: time %.17g of instrument \"%s\" repeats line %ld: "
                       "expected distinct times", s->path, ln, x[0], d->inst_names[inst],
                       s->inst_line[inst]);
    s->last_t = x[0], s->last_line = ln;
    s->inst_t[inst] = x[0], s->inst_line[inst] = ln;
    return push(d, cap, x[0], x[1], x[2], inst);
}

static sl_status read_lines(FILE *fp, sl_rv_data *d, rd_state *s)
{
    char *line = NULL;
    size_t lcap = 0, cap = 0;
    long ln = 0;
    int seen_any = 0;
    sl_status st = SL_OK;
    while (st == SL_OK && getline(&line, &lcap, fp) >= 0) {
        ln++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *f[6];
        int n = split(line, f, 5);
        if (n == 0)
            continue;
        double x;
        /* a header: the first line with words where time and velocity go */
        if (!seen_any && n >= 2 && !parse_num(f[0], &x) && !parse_num(f[1], &x)) {
            seen_any = 1;
            continue;
        }
        seen_any = 1;
        st = data_line(d, &cap, s, ln, f, n);
    }
    free(line);
    if (st == SL_OK && ferror(fp))
        st = sl_fail(SL_ERR_IO, "%s: read error", s->path);
    return st;
}

sl_status sl_rv_read(const char *path, sl_rv_data *out)
{
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sl_fail(SL_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    rd_state s;
    memset(&s, 0, sizeof s);
    s.path = path;
    sl_status st = read_lines(fp, out, &s);
    fclose(fp);
    if (st == SL_OK && out->n == 0)
        st = sl_fail(SL_ERR_ARG, "%s: no observations (expected lines of time, velocity, "
                     "error[, instrument])", path);
    if (st != SL_OK)
        sl_rv_free(out);
    return st;
}

void sl_rv_free(sl_rv_data *d)
{
    free(d->t), free(d->v), free(d->err), free(d->inst);
    memset(d, 0, sizeof *d);
}
