#define _POSIX_C_SOURCE 200809L
#include "rv_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "starling/params.h" /* sl_fmt_num */
#include "starling/table.h"

/* Names astronomers give the columns (RadVel, DACE, astropy tables, ...);
 * an earlier name wins when a file has several. */
static const char *const t_names[] = {"time", "t", "bjd", "bjd_tdb", "jd", "hjd", "mjd", "rjd",
                                      "btjd", "date", NULL};
static const char *const v_names[] = {"vel", "mnvel", "rv", "vrad", "v", "velocity",
                                      "radial_velocity", NULL};
static const char *const e_names[] = {"errvel", "err", "error", "sigma", "e_rv", "rv_err",
                                      "erv", "sigma_rv", "svrad", "e_vrad", "e_vel", "evel",
                                      "verr", "unc", "uncertainty", NULL};
static const char *const i_names[] = {"tel", "inst", "instrument", "ins_name", "telescope",
                                      "spectrograph", NULL};

static const sl_table_col rv_cols[SL_RV_NCOL] = {
    {"time", t_names, SL_COL_NUMBER, 1, 0, 1},
    {"velocity", v_names, SL_COL_NUMBER, 1, 1, 1},
    {"error", e_names, SL_COL_NUMBER, 1, 2, 1},
    {"instrument", i_names, SL_COL_TEXT, 0, 3, 0},
};

/* Instruments are numbered by their earliest observation (ties: the
 * file's order), so that the likelihood's parameters, and the order its
 * sums run in, do not depend on how the file's rows were ordered. */
static void order_instruments(sl_rv_data *d, const sl_table_column *ci)
{
    double first[SL_RV_MAX_INST];
    int rank[SL_RV_MAX_INST], by[SL_RV_MAX_INST];
    for (int l = 0; l < d->n_inst; l++)
        first[l] = INFINITY, by[l] = l;
    for (size_t i = 0; i < d->n; i++)
        if (d->t[i] < first[ci->code[i]])
            first[ci->code[i]] = d->t[i];
    for (int a = 1; a < d->n_inst; a++) /* insertion sort: at most 16, stable */
        for (int b = a; b > 0 && first[by[b]] < first[by[b - 1]]; b--) {
            int x = by[b];
            by[b] = by[b - 1], by[b - 1] = x;
        }
    for (int r = 0; r < d->n_inst; r++) {
        rank[by[r]] = r;
        snprintf(d->inst_names[r], SL_RV_NAME_MAX, "%s", ci->levels[by[r]]);
    }
    for (size_t i = 0; i < d->n; i++)
        d->inst[i] = rank[ci->code[i]];
}

/* "rv.txt:12" in a file, "data: row 12" in memory. */
static void at_row(const sl_table *tab, int64_t i, char *buf, size_t cap)
{
    if (tab->in_memory)
        snprintf(buf, cap, "%s: row %lld", tab->path, (long long)i + 1);
    else
        snprintf(buf, cap, "%s:%lld", tab->path, (long long)tab->line[i]);
}

static sl_status take_instruments(const sl_table *tab, sl_rv_data *d)
{
    const sl_table_column *ci = &tab->col[SL_RV_COL_INST];
    if (!ci->present) {
        d->n_inst = 1;
        strcpy(d->inst_names[0], "default");
        memset(d->inst, 0, d->n * sizeof *d->inst);
        return SL_OK;
    }
    for (int32_t l = 0; l < ci->n_levels; l++) {
        int64_t i = 0;
        while (ci->code[i] != l) /* the first row naming it, for the message */
            i++;
        size_t len = strlen(ci->levels[l]);
        char at[320];
        if (len == 0 || len >= SL_RV_NAME_MAX) {
            sl_table_at(tab, SL_RV_COL_INST, i, at, sizeof at);
            return sl_fail(SL_ERR_ARG, "%s = \"%.40s\": expected a name of 1 to %d characters",
                           at, ci->levels[l], SL_RV_NAME_MAX - 1);
        }
        if (l == SL_RV_MAX_INST) {
            at_row(tab, i, at, sizeof at);
            return sl_fail(SL_ERR_ARG, "%s: instrument \"%s\" is the %dth: at most %d "
                           "instruments are supported", at, ci->levels[l], l + 1, SL_RV_MAX_INST);
        }
    }
    d->n_inst = ci->n_levels;
    order_instruments(d, ci);
    return SL_OK;
}

static sl_status take_rows(const sl_table *tab, sl_rv_data *d)
{
    size_t n = (size_t)tab->n_rows;
    d->t = malloc(n * sizeof *d->t);
    d->v = malloc(n * sizeof *d->v);
    d->err = malloc(n * sizeof *d->err);
    d->inst = malloc(n * sizeof *d->inst);
    d->line = malloc(n * sizeof *d->line);
    if (!d->t || !d->v || !d->err || !d->inst || !d->line)
        return sl_fail(SL_ERR_NOMEM, "%s: out of memory for %zu observations", tab->path, n);
    d->n = n;
    for (size_t i = 0; i < n; i++) {
        d->t[i] = tab->col[SL_RV_COL_TIME].num[i];
        d->v[i] = tab->col[SL_RV_COL_VEL].num[i];
        d->err[i] = tab->col[SL_RV_COL_ERR].num[i];
        d->line[i] = (long)tab->line[i];
        if (!(d->err[i] > 0)) {
            char at[320], num[40];
            sl_table_at(tab, SL_RV_COL_ERR, (int64_t)i, at, sizeof at);
            sl_fmt_num(num, sizeof num, d->err[i]);
            return sl_fail(SL_ERR_ARG, "%s = %s: expected a number > 0", at, num);
        }
    }
    return take_instruments(tab, d);
}

int sl_rv_column(const char *key)
{
    for (int c = 0; key && c < SL_RV_NCOL; c++) {
        if (!strcasecmp(key, rv_cols[c].name))
            return c;
        for (const char *const *a = rv_cols[c].aliases; *a; a++)
            if (!strcasecmp(key, *a))
                return c;
    }
    return -1;
}

static sl_status read_named(const sl_data *d, const char *const names[SL_RV_NCOL],
                            sl_rv_data *out)
{
    memset(out, 0, sizeof *out);
    int named = 0;
    for (int c = 0; names && c < SL_RV_NCOL; c++)
        named |= names[c] != NULL;
    sl_table_spec spec = {.what = "RV data", .cols = rv_cols, .n_cols = SL_RV_NCOL,
                          .can_name = 1, .names = named ? names : NULL};
    sl_table tab;
    sl_status st = sl_table_from_data(d, &spec, &tab);
    if (st)
        return st;
    st = take_rows(&tab, out);
    sl_table_free(&tab);
    if (st)
        sl_rv_free(out);
    return st;
}

sl_status sl_rv_read_data(const sl_data *d, sl_rv_data *out)
{
    memset(out, 0, sizeof *out);
    if (!d)
        return sl_fail(SL_ERR_ARG, "no RV data given (expected a file, or columns time, "
                       "velocity, error[, instrument])");
    /* the user's picks (columns = {...}) are applied by sl_table_from_data */
    return read_named(d, NULL, out);
}

sl_status sl_rv_read_with(const char *path, const char *const names[SL_RV_NCOL],
                          sl_rv_data *out)
{
    sl_data d = sl_data_file(path);
    return read_named(&d, names, out);
}

sl_status sl_rv_read(const char *path, sl_rv_data *out)
{
    return sl_rv_read_with(path, NULL, out);
}

void sl_rv_free(sl_rv_data *d)
{
    free(d->t), free(d->v), free(d->err), free(d->inst), free(d->line);
    memset(d, 0, sizeof *d);
}
