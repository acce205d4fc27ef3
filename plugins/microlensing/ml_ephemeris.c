/* Satellite ephemerides (ml_ephemeris.h). */
#include "ml_ephemeris.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/nomem.h"
#include "starling/table.h"

enum { EC_TIME, EC_RA, EC_DEC, EC_DIST, EC_BAND, EC_N };

static const char *const e_time[] = {"time", "t", "jd", "jd_tdb", "bjd", "hjd", "date", NULL};
static const char *const e_ra[] = {"ra", "r.a.", "alpha", NULL};
static const char *const e_dec[] = {"dec", "decl", "delta_dec", NULL};
static const char *const e_dist[] = {"distance", "dist", "delta", NULL};
static const char *const e_band[] = {"band", "passband", "filter", "dataset", "observatory",
                                     "telescope", "tel", "instrument", "satellite", NULL};

static const sl_table_col e_cols[EC_N] = {
    {"time", e_time, SL_COL_NUMBER, 1, 0, 1},
    {"ra", e_ra, SL_COL_NUMBER, 1, 1, 1},
    {"dec", e_dec, SL_COL_NUMBER, 1, 2, 1},
    {"distance", e_dist, SL_COL_NUMBER, 1, 3, 1},
    {"band", e_band, SL_COL_TEXT, 0, 4, 0},
};

/* A row's value outside its range, named by the table. */
static sl_status bad_value(const sl_table *tab, int col, int64_t i, double v, const char *want)
{
    char at[320];
    sl_table_at(tab, col, i, at, sizeof at);
    return sl_fail(SL_ERR_ARG, "ephemeris: %s = %.10g: expected %s", at, v, want);
}

static sl_status check_row(const sl_table *tab, int64_t i)
{
    const double ra = tab->col[EC_RA].num[i], dec = tab->col[EC_DEC].num[i];
    const double r = tab->col[EC_DIST].num[i];
    if (!(ra >= 0.0 && ra < 360.0))
        return bad_value(tab, EC_RA, i, ra, "degrees in [0, 360)");
    if (!(dec >= -90.0 && dec <= 90.0))
        return bad_value(tab, EC_DEC, i, dec, "degrees in [-90, 90]");
    if (!(r > 0.0))
        return bad_value(tab, EC_DIST, i, r, "a distance > 0 (AU, from the Earth's centre)");
    return SL_OK;
}

typedef struct e_row {
    double t;
    int64_t i;
} e_row;

static int cmp_row(const void *pa, const void *pb)
{
    const e_row *a = pa, *b = pb;
    return (a->t > b->t) - (a->t < b->t);
}

/* The rows of band level l (-1: every row) into track k, sorted by time;
 * two rows at one time, or fewer than four rows, are refused. */
static sl_status take_track(const sl_table *tab, int l, sl_ml_ephemeris_track *k)
{
    const sl_table_column *cb = &tab->col[EC_BAND];
    e_row *r = malloc((size_t)(tab->n_rows ? tab->n_rows : 1) * sizeof *r);
    if (!r)
        return sl_fail_nomem((double)tab->n_rows * sizeof *r, "ephemeris: rows");
    size_t n = 0;
    for (int64_t i = 0; i < tab->n_rows; i++)
        if (l < 0 || cb->code[i] == l)
            r[n++] = (e_row){tab->col[EC_TIME].num[i], i};
    qsort(r, n, sizeof *r, cmp_row);
    snprintf(k->band, sizeof k->band, "%s", l < 0 ? "" : cb->levels[l]);
    sl_status st = SL_OK;
    if (n < 4)
        st = sl_fail(SL_ERR_ARG, "ephemeris: %s: %s%s%s has %zu rows: expected at least 4 (the "
                     "interpolation is cubic)", tab->path, l < 0 ? "the table" : "band \"",
                     k->band, l < 0 ? "" : "\"", n);
    for (size_t j = 1; j < n && !st; j++)
        if (r[j].t == r[j - 1].t) {
            char a[320];
            sl_table_at(tab, EC_TIME, r[j].i, a, sizeof a);
            st = sl_fail(SL_ERR_ARG, "ephemeris: %s = %.10g: the same time as line %lld of the "
                         "same observer", a, r[j].t, (long long)tab->line[r[j - 1].i]);
        }
    k->t = malloc((n ? n : 1) * sizeof *k->t);
    k->x = malloc((n ? n : 1) * sizeof *k->x);
    k->y = malloc((n ? n : 1) * sizeof *k->y);
    k->z = malloc((n ? n : 1) * sizeof *k->z);
    if (!st && (!k->t || !k->x || !k->y || !k->z))
        st = sl_fail_nomem((double)n * 32.0, "ephemeris: %zu rows", n);
    const double deg = 3.14159265358979323846 / 180.0;
    for (size_t j = 0; j < n && !st; j++) {
        const int64_t i = r[j].i;
        const double a = tab->col[EC_RA].num[i] * deg, d = tab->col[EC_DEC].num[i] * deg;
        const double dist = tab->col[EC_DIST].num[i];
        k->t[j] = r[j].t;
        k->x[j] = dist * cos(d) * cos(a);
        k->y[j] = dist * cos(d) * sin(a);
        k->z[j] = dist * sin(d);
    }
    k->n = n;
    free(r);
    return st;
}

sl_status sl_ml_ephemeris_read(const sl_data *d, sl_ml_ephemeris *out)
{
    memset(out, 0, sizeof *out);
    sl_table_spec spec = {.what = "an ephemeris", .cols = e_cols, .n_cols = EC_N,
                          .can_name = 1};
    sl_table tab;
    sl_status st = sl_table_from_data(d, &spec, &tab);
    if (st)
        return st;
    for (int64_t i = 0; i < tab.n_rows && !st; i++)
        st = check_row(&tab, i);
    const sl_table_column *cb = &tab.col[EC_BAND];
    int n_track = cb->present ? cb->n_levels : 1;
    if (!st && n_track > SL_ML_EPHEMERIS_MAX)
        st = sl_fail(SL_ERR_ARG, "ephemeris: %s: %d observers: at most %d", tab.path, n_track,
                     SL_ML_EPHEMERIS_MAX);
    for (int l = 0; l < n_track && !st; l++) {
        if (cb->present && strlen(cb->levels[l]) >= sizeof out->track[0].band)
            st = sl_fail(SL_ERR_ARG, "ephemeris: %s: band \"%.40s\": expected a passband name "
                         "of at most %zu characters", tab.path, cb->levels[l],
                         sizeof out->track[0].band - 1);
        else
            st = take_track(&tab, cb->present ? l : -1, &out->track[l]);
        out->n_track = l + 1;
    }
    if (!st && !(out->source = strdup(tab.path)))
        st = sl_fail_nomem((double)strlen(tab.path), "ephemeris: its name");
    sl_table_free(&tab);
    if (st)
        sl_ml_ephemeris_free(out);
    return st;
}

void sl_ml_ephemeris_free(sl_ml_ephemeris *e)
{
    for (int k = 0; k < e->n_track; k++) {
        sl_ml_ephemeris_track *t = &e->track[k];
        free(t->t), free(t->x), free(t->y), free(t->z);
    }
    free(e->source);
    memset(e, 0, sizeof *e);
}

int sl_ml_ephemeris_find(const sl_ml_ephemeris *e, const char *band)
{
    for (int k = 0; k < e->n_track; k++)
        if (e->track[k].band[0] == '\0' || strcmp(e->track[k].band, band) == 0)
            return k;
    return -1;
}

/* Lagrange's cubic through rows j..j+3 of v at t. */
static double cubic(const double *tt, const double *v, size_t j, double t)
{
    double s = 0.0;
    for (size_t a = j; a < j + 4; a++) {
        double w = 1.0;
        for (size_t b = j; b < j + 4; b++)
            if (b != a)
                w *= (t - tt[b]) / (tt[a] - tt[b]);
        s += w * v[a];
    }
    return s;
}

sl_status sl_ml_ephemeris_at(const sl_ml_ephemeris *e, int k, double jd, const char *what,
                             double xyz[3])
{
    const sl_ml_ephemeris_track *t = &e->track[k];
    if (!(jd >= t->t[0] && jd <= t->t[t->n - 1]))
        return sl_fail(SL_ERR_ARG, "ephemeris: %s: %s = %.10g (Julian date, with time_offset) is "
                       "outside the ephemeris%s%s%s, %.10g .. %.10g: expected a table that covers "
                       "the data", e->source, what, jd, t->band[0] ? " of band \"" : "", t->band,
                       t->band[0] ? "\"" : "", t->t[0], t->t[t->n - 1]);
    size_t lo = 0, hi = t->n - 1; /* t[lo] <= jd <= t[hi], hi = lo + 1 at the end */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (t->t[mid] <= jd)
            lo = mid;
        else
            hi = mid;
    }
    size_t j = lo >= 1 ? lo - 1 : 0;
    if (j + 3 >= t->n)
        j = t->n - 4;
    xyz[0] = cubic(t->t, t->x, j, jd);
    xyz[1] = cubic(t->t, t->y, j, jd);
    xyz[2] = cubic(t->t, t->z, j, jd);
    return SL_OK;
}
