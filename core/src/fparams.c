/* Per-system force parameters from attributes of the ensemble (fparams.h). */
#include "starling/fparams.h"
#include "starling/force_stack.h"
#include "starling/launch.h"
#include "starling/nomem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int find_attr(const sl_ensemble *e, const char *name)
{
    for (int a = 0; a < e->n_attr; a++)
        if (strcmp(e->attr_name[a], name) == 0)
            return a;
    return -1;
}

/* The parameters of pv's schema that are attributes of e: key[i] in the
 * schema, attr[i] in e. */
static sl_status match_attrs(const sl_force *f, const sl_param_values *pv, const sl_ensemble *e,
                             int *key, int *attr, int *n)
{
    *n = 0;
    for (size_t i = 0; i < pv->n; i++) {
        int a = find_attr(e, pv->schema[i].name);
        if (a < 0)
            continue;
        if (pv->given[i]) {
            char got[40];
            sl_fmt_num(got, sizeof got, pv->v[i]);
            return sl_fail(SL_ERR_ARG, "force '%s': parameter '%s' is given (%s) and is also an "
                           "attribute of the ensemble (one value per system); give it one way "
                           "only", f->name, pv->schema[i].name, got);
        }
        key[*n] = (int)i;
        attr[(*n)++] = a;
    }
    if (*n > 0 && f->n_packed < 1)
        return sl_fail(SL_ERR_ARG, "force '%s': parameter '%s' is an attribute of the ensemble, "
                       "but the force packs no values (n_packed = 0), so they cannot differ "
                       "between systems", f->name, pv->schema[key[0]].name);
    return SL_OK;
}

/* System s's packed values, from pv with the matched attributes set. */
static sl_status pack_system(const sl_force *f, const sl_param_values *pv, const sl_ensemble *e,
                             const int *key, const int *attr, int n, int64_t s, double *fp)
{
    sl_param_values v = *pv;
    for (int q = 0; q < n; q++) {
        const sl_param *p = &pv->schema[key[q]];
        double val = e->attr[(size_t)attr[q] * (size_t)e->n_sys + (size_t)s];
        if (sl_params_set(&v, p->name, val) != SL_OK) {
            char got[40], want[96];
            sl_fmt_num(got, sizeof got, val);
            sl_param_expectation(p, want, sizeof want);
            return sl_fail(SL_ERR_ARG, "force '%s': system %lld: ensemble attribute '%s' = %s: "
                           "expected %s (the force's parameter '%s')", f->name, (long long)s + 1,
                           p->name, got, want, p->name);
        }
    }
    memset(fp, 0, SL_FORCE_PARAMS_MAX * sizeof *fp);
    sl_status st = sl_force_pack(f, &v, fp);
    if (st)
        return sl_fail_context(st, "force '%s': system %lld (parameters from ensemble "
                               "attributes)", f->name, (long long)s + 1);
    for (int k = 0; k < f->n_packed; k++)
        if (!isfinite(fp[k]))
            return sl_fail(SL_ERR_ARG, "force '%s': system %lld: its attributes pack to fp[%d] = "
                           "%g, not a finite number", f->name, (long long)s + 1, k, fp[k]);
    return SL_OK;
}

sl_status sl_fparams_build(const sl_force *f, const sl_param_values *pv,
                           const double fp[SL_FORCE_PARAMS_MAX], const sl_ensemble *e,
                           sl_fparams *out)
{
    memset(out, 0, sizeof *out);
    out->n_sys = e->n_sys;
    out->n_fp = f->n_packed;
    memcpy(out->fp, fp, sizeof out->fp);
    if (!pv || e->n_attr == 0 || e->n_sys == 0)
        return SL_OK;
    int key[SL_PARAMS_MAX], attr[SL_PARAMS_MAX], n;
    sl_status st = match_attrs(f, pv, e, key, attr, &n);
    if (st || n == 0)
        return st;
    out->n_attr = n;
    const int nf = f->n_packed;
    const int64_t padded = e->n_chunks * SL_CHUNK;
    double *sys = malloc((size_t)padded * (size_t)nf * sizeof *sys);
    if (!sys)
        return sl_fail_nomem((double)padded * nf * sizeof *sys, "force '%s': parameters of "
                             "%lld systems", f->name, (long long)e->n_sys);
    double first[SL_FORCE_PARAMS_MAX], p[SL_FORCE_PARAMS_MAX];
    int uniform = 1;
    for (int64_t s = 0; s < e->n_sys && !st; s++) {
        st = pack_system(f, pv, e, key, attr, n, s, s ? p : first);
        for (int k = 0; k < nf && !st; k++)
            sys[sl_fp_index(s, nf, k)] = s ? p[k] : first[k];
        uniform = uniform && (!s || !memcmp(p, first, (size_t)nf * sizeof *p));
    }
    /* lanes past the last system step with h = 0, on valid values */
    for (int64_t s = e->n_sys; s < padded && !st; s++)
        for (int k = 0; k < nf; k++)
            sys[sl_fp_index(s, nf, k)] = first[k];
    if (st || uniform) {
        free(sys);
        if (!st)
            memcpy(out->fp, first, (size_t)nf * sizeof *first);
        return st;
    }
    out->sys = sys;
    return SL_OK;
}

void sl_fparams_get(const sl_fparams *p, int64_t s, double fp[SL_FORCE_PARAMS_MAX])
{
    memcpy(fp, p->fp, SL_FORCE_PARAMS_MAX * sizeof *fp);
    if (p->sys)
        for (int k = 0; k < p->n_fp; k++)
            fp[k] = p->sys[sl_fp_index(s, p->n_fp, k)];
}

void sl_fparams_free(sl_fparams *p)
{
    free(p->sys);
    p->sys = NULL;
}
