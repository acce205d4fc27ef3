/* A planetary system's state (tests/data/outer_ss.csv, solar_system.csv:
 * body,m,x,y,z,vx,vy,vz after '#' comments and a header, up to 16 bodies;
 * G = 1, AU, Msun) and copies of it for the benchmarks that time REBOUND's
 * question (ss-bench, energy-bench). Messages name the program PROG. */
#ifndef SL_BENCH_OUTER_SS_H
#define SL_BENCH_OUTER_SS_H

#include <stdio.h>
#include <string.h>

#include "starling/starling.h"

enum { SS_NB_MAX = 16 };

/* qsort's order for doubles */
static inline int ss_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The bodies of path into m, x, v; their number in *nb (2..SS_NB_MAX). */
static int ss_read_state(const char *prog, const char *path, double m[SS_NB_MAX],
                         double x[SS_NB_MAX][3], double v[SS_NB_MAX][3], int *nb)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s\n", prog, path);
        return -1;
    }
    char line[512];
    int b = 0, header = 0, extra = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        if (!header++)
            continue;
        if (b == SS_NB_MAX) {
            extra = 1;
            break;
        }
        char *p = strchr(line, ',');
        if (!p || sscanf(p + 1, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &m[b], &x[b][0], &x[b][1],
                         &x[b][2], &v[b][0], &v[b][1], &v[b][2]) != 7)
            break;
        b++;
    }
    fclose(f);
    *nb = b;
    if (b < 2 || extra)
        fprintf(stderr, "%s: %s: expected 2..%d bodies, read %d%s\n", prog, path, SS_NB_MAX, b,
                extra ? " and more" : "");
    return b < 2 || extra ? -1 : 0;
}

/* n copies of the state in path, each copy's planets nudged by 1e-9 x
 * (copy mod 1000) of their position so that the copies differ. */
static int ss_make(const char *prog, const char *path, int64_t n, sl_ensemble **out)
{
    double m[SS_NB_MAX], x[SS_NB_MAX][3], v[SS_NB_MAX][3];
    int nb;
    if (ss_read_state(prog, path, m, x, v, &nb) || sl_ensemble_create(n, nb, out))
        return -1;
    for (int64_t s = 0; s < n; s++)
        for (int b = 0; b < nb; b++) {
            double y[3];
            for (int k = 0; k < 3; k++)
                y[k] = x[b][k] * (1.0 + (b ? 1e-9 * (double)(s % 1000) : 0.0));
            if (sl_ensemble_set_body(*out, s, b, m[b], y, v[b]))
                return -1;
        }
    return 0;
}

#endif
