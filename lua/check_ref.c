#include "check_ref.h"

#include <math.h>

static double sys_diff(const sl_ensemble *a, const sl_ensemble *b, int64_t s, int field0,
                       int *worst_body)
{
    double scale = 0, d = 0;
    *worst_body = 0;
    for (int bd = 0; bd < b->n_body; bd++)
        for (int k = 0; k < 3; k++) {
            double x = sl_ensemble_get(a, s, bd, field0 + k), y = sl_ensemble_get(b, s, bd, field0 + k);
            scale = fmax(scale, fabs(y));
            double dk = fabs(x - y);
            if (!(dk <= d)) { /* NaN counts as the worst */
                d = isnan(dk) ? INFINITY : dk;
                *worst_body = bd;
            }
        }
    return scale > 0 ? d / scale : d;
}

sl_status sl_ref_compare(const sl_ensemble *got, const sl_ensemble *ref, const char *ref_name,
                         sl_ref_sys *d)
{
    if (got->n_sys != ref->n_sys || got->n_body != ref->n_body)
        return sl_fail(SL_ERR_ARG, "check: %s has %lld systems of %d bodies, the run %lld of %d",
                       ref_name, (long long)ref->n_sys, ref->n_body, (long long)got->n_sys,
                       got->n_body);
    for (int64_t s = 0; s < ref->n_sys; s++)
        for (int b = 0; b < ref->n_body; b++) {
            double mg = sl_ensemble_get(got, s, b, SL_M), mr = sl_ensemble_get(ref, s, b, SL_M);
            if (!(fabs(mg - mr) <= 1e-14 * fabs(mr)))
                return sl_fail(SL_ERR_ARG, "check: %s: system %lld body %d has mass %.17g, the "
                               "run %.17g: a reference for other initial conditions",
                               ref_name, (long long)s + 1, b + 1, mr, mg);
        }
    for (int64_t s = 0; s < ref->n_sys; s++) {
        d[s].pos = sys_diff(got, ref, s, SL_X, &d[s].pos_body);
        d[s].vel = sys_diff(got, ref, s, SL_VX, &d[s].vel_body);
    }
    return SL_OK;
}
