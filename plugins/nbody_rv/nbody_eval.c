/* The CPU's dispatch over nbody_like.inc's compiled instances: one
 * translation unit per integrator (nbody_eval_mvs.c, nbody_eval_hermite.c),
 * so that the two, each a long compilation, build in parallel. */
#include "nbody_eval.h"

#include <stdlib.h>

const sl_nbody_one_fn *const sl_nbody_cpu_ones[2] = {sl_nbody_cpu_ones_mvs,
                                                     sl_nbody_cpu_ones_hermite};
static const sl_nbody_path_fn *const paths[2] = {sl_nbody_cpu_paths_mvs,
                                                 sl_nbody_cpu_paths_hermite};

typedef struct t_key {
    double t;
    int k;
} t_key;

static int cmp_t(const void *pa, const void *pb)
{
    const t_key *a = pa, *b = pb;
    return (a->t > b->t) - (a->t < b->t);
}

int sl_nbody_cpu_curve(int integrator, const sl_nbody_view *d, const sl_nbody_model *M,
                       const double *pp, const double *fp, const double *t, int n, double *out)
{
    double x[3 * (SL_NBODY_MAX_PL + 1)], v[3 * (SL_NBODY_MAX_PL + 1)], m[SL_NBODY_MAX_PL + 1];
    int bad = 0;
    if (!sl_nbody_system(d->n_pl, M->el, d->mstar, x, v, m, &bad))
        return SL_NBODY_DOMAIN;
    if (n == 0)
        return SL_NBODY_OK;
    t_key *o = malloc((size_t)n * sizeof *o);
    double *ts = malloc((size_t)n * sizeof *ts), *vz = malloc((size_t)n * sizeof *vz);
    if (!o || !ts || !vz) {
        free(o), free(ts), free(vz);
        return -1;
    }
    for (int k = 0; k < n; k++)
        o[k] = (t_key){(t[k] - d->epoch_days) * SL_NBODY_K_GAUSS, k};
    qsort(o, (size_t)n, sizeof *o, cmp_t);
    for (int k = 0; k < n; k++)
        ts[k] = o[k].t;
    int ok = paths[integrator][d->n_pl](x, v, m, pp, fp, ts, n, 0, vz);
    for (int k = 0; ok && k < n; k++)
        out[o[k].k] = vz[k] * SL_NBODY_V_UNIT;
    free(o), free(ts), free(vz);
    return ok ? SL_NBODY_OK : SL_NBODY_UNSTABLE;
}
