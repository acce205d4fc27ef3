/* The outer Solar System of tests/data/outer_ss*.csv and the whole one of
 * tests/data/solar_system*.csv (made by tests/reference/make_mvs_reference.py:
 * J2000 mean elements, G = 1, AU, Msun, one year = 2 pi) for the suites
 * that compare with REBOUND. */
#ifndef SLT_OUTER_SS_H
#define SLT_OUTER_SS_H

#include "sl_test.h"

static const double YEAR = 2.0 * 3.14159265358979323846;
enum { NB = 5, NB_MAX = 16 };

/* The state of file tests/data/NAME (body,m,x,y,z,vx,vy,vz after '#'
 * comment lines and a header), nb bodies, into m, x, v. */
static SLT_UNUSED void read_state_n(const char *name, int nb, double *m, double (*x)[3],
                                    double (*v)[3])
{
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/%s", SL_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    int b = 0, header = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        if (!header) {
            header = 1;
            continue;
        }
        cr_assert(b < nb, "%s: more than %d bodies", path, nb);
        char *p = strchr(line, ',');
        cr_assert_not_null(p, "%s: no comma in '%s'", path, line);
        cr_assert_eq(sscanf(p + 1, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &m[b], &x[b][0], &x[b][1],
                            &x[b][2], &v[b][0], &v[b][1], &v[b][2]), 7, "%s: row %d", path, b);
        b++;
    }
    fclose(f);
    cr_assert_eq(b, nb, "%s: %d bodies", path, b);
}

static SLT_UNUSED void read_state(const char *name, double m[NB], double x[NB][3], double v[NB][3])
{
    read_state_n(name, NB, m, x, v);
}

/* n_sys copies of the nb-body state in tests/data/NAME. */
static SLT_UNUSED sl_ensemble *state_copies(const char *name, int nb, int64_t n_sys)
{
    double m[NB_MAX], x[NB_MAX][3], v[NB_MAX][3];
    read_state_n(name, nb, m, x, v);
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(n_sys, nb, &e));
    for (int64_t s = 0; s < n_sys; s++)
        for (int b = 0; b < nb; b++)
            SLT_OK(sl_ensemble_set_body(e, s, b, m[b], x[b], v[b]));
    return e;
}

static SLT_UNUSED sl_ensemble *outer_ss(int64_t n_sys)
{
    return state_copies("outer_ss.csv", NB, n_sys);
}

/* Largest distance between the bodies of system 0 of e and a reference
 * state, in AU. */
static SLT_UNUSED double worst_distance(const sl_ensemble *e, const double (*x)[3])
{
    double worst = 0.0;
    for (int b = 0; b < e->n_body; b++) {
        double m, y[3], u[3], d = 0.0;
        sl_ensemble_get_body(e, 0, b, &m, y, u);
        for (int k = 0; k < 3; k++)
            d += (y[k] - x[b][k]) * (y[k] - x[b][k]);
        worst = fmax(worst, sqrt(d));
    }
    return worst;
}

/* The same over Neptune's 30 AU: the outer Solar System's scale. */
static SLT_UNUSED double worst_position(const sl_ensemble *e, const double x[NB][3])
{
    return worst_distance(e, x) / 30.0;
}

#endif
