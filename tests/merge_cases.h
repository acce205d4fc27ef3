/* Systems whose bodies touch, for the collision monitor's merge
 * (test_merge.c, test_gpu_merge.c): a star of mass 1 and radius R0, and two
 * planets of radius R (masses 3 PM and PM) that
 *   M_QUIET   never touch (circular orbits at 1 and 2);
 *   M_MEET    meet head-on near r = 1 (the second on a retrograde orbit at
 *             1.01): they merge into one planet of 4 PM on an eccentric
 *             orbit (pericentre about 0.14, clear of the star);
 *   M_PLUNGE  the first starts at a tenth of circular speed and falls onto
 *             the star (t about 1.1), which swallows it;
 *   M_BOTH    both fall onto the star (t about 1.1 and 2.05): the star is
 *             left alone and coasts.
 * Each system is then moved to its barycentric frame. */
#ifndef SLT_MERGE_CASES_H
#define SLT_MERGE_CASES_H

#include "sl_test.h"

enum { M_QUIET, M_MEET, M_PLUNGE, M_BOTH, M_KINDS };

static const double MPM = 1e-5, MR = 0.006, MR0 = 0.1;

/* planet at radius r and phase ph, at f times the circular speed (f < 0:
 * retrograde) */
static SLT_UNUSED void merge_orbit(double r, double ph, double f, double x[3], double v[3])
{
    double sp = f * sqrt(1.0 / r);
    x[0] = r * cos(ph), x[1] = r * sin(ph), x[2] = 0.0;
    v[0] = -sp * sin(ph), v[1] = sp * cos(ph), v[2] = 0.0;
}

static SLT_UNUSED sl_ensemble *merge_systems(int64_t n)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(n, 3, &e));
    for (int64_t s = 0; s < n; s++) {
        double z[3] = {0, 0, 0}, x1[3], v1[3], x2[3], v2[3], ph = 0.37 * (double)s;
        switch (s % M_KINDS) {
        case M_QUIET:
            merge_orbit(1.0, ph, 1.0, x1, v1);
            merge_orbit(2.0, ph + 2.0, 1.0, x2, v2);
            break;
        case M_MEET:
            merge_orbit(1.0, ph, 1.0, x1, v1);
            merge_orbit(1.01, ph + M_PI, -1.0, x2, v2);
            break;
        case M_PLUNGE:
            merge_orbit(1.0, ph, 0.1, x1, v1);
            merge_orbit(2.0, ph + 2.0, 1.0, x2, v2);
            break;
        default:
            merge_orbit(1.0, ph, 0.1, x1, v1);
            merge_orbit(1.5, ph + 2.0, 0.05, x2, v2);
            break;
        }
        SLT_OK(sl_ensemble_set_body(e, s, 0, 1.0, z, z));
        SLT_OK(sl_ensemble_set_body(e, s, 1, 3.0 * MPM, x1, v1));
        SLT_OK(sl_ensemble_set_body(e, s, 2, MPM, x2, v2));
    }
    sl_ensemble_to_barycentric(e);
    return e;
}

/* A run config for integrator `name` (key dt) with the collision monitor,
 * merging or not. */
static SLT_UNUSED void merge_config(const slt_plugins *p, sl_run_config *c, const char *name,
                                    double dt, double t_end, int merge)
{
    slt_config_with(p, c, name, dt, t_end, NULL, 0);
    slt_monitor(p, c, "collision", 3, (const char *[]){"radius", "central_radius", "merge"},
                (double[]){MR, MR0, merge});
}

/* The bodies each kind has removed at the end (bit b: body b), and its
 * merges. */
static SLT_UNUSED int merge_removed(int kind)
{
    return kind == M_MEET ? 4 : kind == M_PLUNGE ? 2 : kind == M_BOTH ? 6 : 0;
}

static SLT_UNUSED int merge_count(int kind)
{
    return kind == M_QUIET ? 0 : kind == M_BOTH ? 2 : 1;
}

/* The value of attribute `name` of system s. */
static SLT_UNUSED double merge_attr(const sl_ensemble *e, const char *name, int64_t s)
{
    for (int a = 0; a < e->n_attr; a++)
        if (!strcmp(e->attr_name[a], name))
            return e->attr[(size_t)a * (size_t)e->n_sys + (size_t)s];
    cr_assert_fail("no attribute '%s'", name);
    return NAN;
}

#endif
