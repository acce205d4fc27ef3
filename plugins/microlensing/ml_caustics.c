/* Critical curves and caustics of n point lenses (host code; a lens model
 * has a handful of curves, computed once per (s, q) or lens set).
 *
 * On a critical curve det J = 0, i.e. sum m_i / (z - z_i)^2 = e^{i phi} for
 * some phase phi (the conjugate of d zeta / d conj z has modulus 1). For
 * each phi that is a polynomial of degree 2n,
 *   e^{i phi} prod (z - z_i)^2 - sum_i m_i prod_{j != i} (z - z_j)^2 = 0,
 * whose roots (Laguerre with deflation, polished on the undeflated
 * polynomial) are 2n points of the critical curves. Roots are followed from
 * one phase to the next by nearest match; a track ends, at phi = 2 pi, at the
 * start of another (or its own), and the cycles of that permutation are the
 * closed curves. Phases are refined by bisection wherever a caustic step is
 * longer than the asked resolution; a resolution that would need more than
 * SL_ML_CAUSTIC_SAMPLES phases is refused. The caustics are the lens
 * map of the critical points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ml_caustics.h"
#include "ml_binary.h"
#include "starling/nomem.h"

#define ML_DEG_MAX (2 * SL_ML_LENS_MAX)

typedef struct ml_poly {
    int deg;
    sl_cplx a[ML_DEG_MAX + 1];
} ml_poly;

static void poly_mul_lin2(ml_poly *p, sl_cplx r)
{ /* p *= (z - r)^2 */
    for (int rep = 0; rep < 2; rep++) {
        p->a[p->deg + 1] = sl_c(0.0, 0.0);
        for (int k = p->deg + 1; k >= 1; k--)
            p->a[k] = sl_csub(p->a[k - 1], sl_cmul(r, p->a[k]));
        p->a[0] = sl_cscale(-1.0, sl_cmul(r, p->a[0]));
        p->deg++;
    }
}

/* The two polynomial parts, prod (z - z_i)^2 and sum m_i prod_{j != i}. */
static void ml_crit_parts(const sl_ml_lenses *L, ml_poly *P, ml_poly *S)
{
    memset(P, 0, sizeof *P);
    memset(S, 0, sizeof *S);
    P->a[0] = sl_c(1.0, 0.0);
    for (int i = 0; i < L->n; i++)
        poly_mul_lin2(P, sl_c(L->x[i], L->y[i]));
    S->deg = 2 * L->n - 2;
    for (int i = 0; i < L->n; i++) {
        ml_poly t;
        memset(&t, 0, sizeof t);
        t.a[0] = sl_c(L->m[i], 0.0);
        for (int j = 0; j < L->n; j++)
            if (j != i)
                poly_mul_lin2(&t, sl_c(L->x[j], L->y[j]));
        for (int k = 0; k <= t.deg; k++)
            S->a[k] = sl_cadd(S->a[k], t.a[k]);
    }
}

/* The 2n critical points of phase phi. */
static void ml_crit_roots(const ml_poly *P, const ml_poly *S, double phi, sl_cplx *roots)
{
    ml_poly c = *P, d;
    sl_cplx e = sl_c(cos(phi), sin(phi));
    for (int k = 0; k <= c.deg; k++)
        c.a[k] = sl_csub(sl_cmul(e, P->a[k]), k <= S->deg ? S->a[k] : sl_c(0.0, 0.0));
    d = c;
    for (int m = c.deg; m >= 1; m--) {
        sl_cplx z = sl_ml_laguerre(d.a, m, sl_c(0.0, 0.0), SL_ML_LAGUERRE_MAXIT);
        roots[m - 1] = z;
        sl_cplx carry = d.a[m];
        for (int k = m - 1; k >= 0; k--) {
            sl_cplx t = d.a[k];
            d.a[k] = carry;
            carry = sl_cadd(t, sl_cmul(carry, z));
        }
    }
    for (int k = 0; k < c.deg; k++)
        roots[k] = sl_ml_laguerre(c.a, c.deg, roots[k], 20);
}

/* zeta(z) for n lenses. */
static sl_cplx ml_map(const sl_ml_lenses *L, sl_cplx z)
{
    sl_cplx w = z, zb = sl_cconj(z);
    for (int i = 0; i < L->n; i++)
        w = sl_csub(w, sl_cscale(L->m[i], sl_cdiv(sl_c(1.0, 0.0),
                                                  sl_csub(zb, sl_c(L->x[i], -L->y[i])))));
    return w;
}

double sl_ml_det_jacobian(const sl_ml_lenses *L, double x, double y)
{
    sl_cplx zb = sl_c(x, -y), k = sl_c(0.0, 0.0);
    for (int i = 0; i < L->n; i++) {
        sl_cplx r = sl_cdiv(sl_c(1.0, 0.0), sl_csub(zb, sl_c(L->x[i], -L->y[i])));
        k = sl_cadd(k, sl_cscale(L->m[i], sl_cmul(r, r)));
    }
    return 1.0 - sl_cabs2(k);
}

/* A phase sample: its phase and the 2n roots in track order. */
typedef struct ml_sample {
    double phi;
    sl_cplx z[ML_DEG_MAX];
} ml_sample;

/* Orders the roots of b to follow a's tracks: greedy nearest pairs. */
static void ml_match(int m, const sl_cplx *prev, sl_cplx *next)
{
    sl_cplx out[ML_DEG_MAX];
    int used[ML_DEG_MAX] = {0};
    for (int k = 0; k < m; k++) {
        int best = -1;
        double bd = INFINITY;
        for (int j = 0; j < m; j++)
            if (!used[j] && sl_cabs2(sl_csub(next[j], prev[k])) < bd) {
                bd = sl_cabs2(sl_csub(next[j], prev[k]));
                best = j;
            }
        used[best] = 1;
        out[k] = next[best];
    }
    memcpy(next, out, (size_t)m * sizeof *out);
}

static double ml_caustic_step(const sl_ml_lenses *L, int m, const ml_sample *a,
                              const ml_sample *b)
{
    double d = 0.0;
    for (int k = 0; k < m; k++)
        d = fmax(d, sl_cabs(sl_csub(ml_map(L, a->z[k]), ml_map(L, b->z[k]))));
    return d;
}

sl_status sl_ml_lenses_check(const sl_ml_lenses *L)
{
    if (!L || L->n < 1 || L->n > SL_ML_LENS_MAX)
        return sl_fail(SL_ERR_ARG, "microlensing: caustics: %d lenses: expected 1 to %d",
                       L ? L->n : 0, SL_ML_LENS_MAX);
    double sum = 0.0;
    for (int i = 0; i < L->n; i++) {
        if (!isfinite(L->x[i]) || !isfinite(L->y[i]))
            return sl_fail(SL_ERR_ARG, "microlensing: caustics: lens %d at (%g, %g): expected a "
                           "finite position", i + 1, L->x[i], L->y[i]);
        if (!(L->m[i] > 0.0) || !isfinite(L->m[i]))
            return sl_fail(SL_ERR_ARG, "microlensing: caustics: lens %d mass %g: expected a "
                           "number > 0", i + 1, L->m[i]);
        for (int j = 0; j < i; j++)
            if (L->x[i] == L->x[j] && L->y[i] == L->y[j])
                return sl_fail(SL_ERR_ARG, "microlensing: caustics: lenses %d and %d are both at "
                               "(%g, %g): expected distinct positions", j + 1, i + 1, L->x[i],
                               L->y[i]);
        sum += L->m[i];
    }
    if (fabs(sum - 1.0) > 1e-12)
        return sl_fail(SL_ERR_ARG, "microlensing: caustics: masses sum to %.17g: expected "
                       "fractions of the total mass, summing to 1", sum);
    return SL_OK;
}

void sl_ml_binary_lenses(double s, double q, sl_ml_lenses *L)
{
    memset(L, 0, sizeof *L);
    L->n = 2;
    L->m[0] = 1.0 / (1.0 + q);
    L->m[1] = q / (1.0 + q);
    L->x[0] = -s * L->m[1];
    L->x[1] = s * L->m[0];
}

static void ml_box_add(double *box, double x, double y)
{
    box[0] = fmin(box[0], x);
    box[1] = fmax(box[1], x);
    box[2] = fmin(box[2], y);
    box[3] = fmax(box[3], y);
}

/* Phase samples from phi = 0 to 2 pi (the last one repeats 0 + 2 pi, its
 * roots in the tracks' order), refined until every caustic step is at most
 * `step` or the samples reach `cap`. */
static sl_status ml_samples(const sl_ml_lenses *L, const ml_poly *P, const ml_poly *S, int n0,
                            double step, int cap, ml_sample **out, int *n_out)
{
    const int m = 2 * L->n;
    int n = n0 + 1;
    ml_sample *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return sl_fail_nomem((size_t)n * sizeof *v, "caustics: phase samples");
    for (int k = 0; k < n; k++) {
        v[k].phi = 6.28318530717958647692 * k / n0;
        ml_crit_roots(P, S, v[k].phi, v[k].z);
        if (k > 0)
            ml_match(m, v[k - 1].z, v[k].z);
    }
    /* each pass bisects every interval whose caustic step is too long, into
     * a new array, so a pass costs its samples, not their square */
    double worst = INFINITY;
    for (int pass = 0; pass < 60; pass++) {
        int longer = 0;
        worst = 0.0;
        for (int k = 0; k + 1 < n; k++) {
            double d = ml_caustic_step(L, m, &v[k], &v[k + 1]);
            worst = fmax(worst, d);
            longer += d > step;
        }
        if (!longer)
            break;
        if (n + longer > cap) {
            free(v);
            return sl_fail(SL_ERR_ARG, "microlensing: caustics: resolution = %g: the caustic "
                           "points are still up to %g apart at %d phase samples, and the next "
                           "refinement would pass %d; expected a resolution >= %g, or fewer "
                           "lenses' worth of caustic", step, worst, n, cap, worst);
        }
        ml_sample *w = malloc((size_t)(n + longer) * sizeof *w);
        if (!w) {
            free(v);
            return sl_fail_nomem((size_t)(n + longer) * sizeof *w, "caustics: phase samples");
        }
        int j = 0;
        for (int k = 0; k < n; k++) {
            w[j++] = v[k];
            if (k + 1 < n && ml_caustic_step(L, m, &v[k], &v[k + 1]) > step) {
                w[j].phi = 0.5 * (v[k].phi + v[k + 1].phi);
                ml_crit_roots(P, S, w[j].phi, w[j].z);
                ml_match(m, v[k].z, w[j].z);
                j++;
            }
        }
        free(v);
        v = w;
        n = j;
    }
    /* re-follow the tracks through the refined samples: a bisection matched
     * to its left neighbour only may have swapped two tracks to its right */
    for (int k = 1; k < n; k++)
        ml_match(m, v[k - 1].z, v[k].z);
    *out = v;
    *n_out = n;
    return SL_OK;
}

/* Chains the tracks into closed curves: track k continues, past 2 pi, as the
 * track whose phi = 0 root is nearest its phi = 2 pi root. */
static sl_status ml_chain(const sl_ml_lenses *L, const ml_sample *v, int n, sl_ml_caustic_set *out)
{
    const int m = 2 * L->n;
    int next[ML_DEG_MAX], done[ML_DEG_MAX] = {0};
    for (int k = 0; k < m; k++) {
        double bd = INFINITY;
        for (int j = 0; j < m; j++)
            if (sl_cabs2(sl_csub(v[0].z[j], v[n - 1].z[k])) < bd) {
                bd = sl_cabs2(sl_csub(v[0].z[j], v[n - 1].z[k]));
                next[k] = j;
            }
    }
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 4; i++)
        out->box[i] = out->crit_box[i] = i % 2 ? -INFINITY : INFINITY;
    for (int start = 0; start < m; start++) {
        if (done[start])
            continue;
        int len = 0;
        for (int k = start; !done[k]; k = next[k]) {
            done[k] = 1;
            len += n - 1;
        }
        sl_ml_curve *cv = &out->curve[out->n_curves++];
        size_t bytes = (size_t)(len + 1) * sizeof(double);
        cv->x = malloc(bytes);
        cv->y = malloc(bytes);
        cv->cx = malloc(bytes);
        cv->cy = malloc(bytes);
        if (!cv->x || !cv->y || !cv->cx || !cv->cy)
            return sl_fail_nomem(4 * bytes, "caustics: a curve");
        for (int i = 0; i < 4; i++)
            cv->box[i] = i % 2 ? -INFINITY : INFINITY;
        int p = 0, k = start;
        do {
            for (int s = 0; s < n - 1; s++, p++) {
                sl_cplx z = v[s].z[k], w = ml_map(L, z);
                cv->x[p] = z.re;
                cv->y[p] = z.im;
                cv->cx[p] = w.re;
                cv->cy[p] = w.im;
                ml_box_add(cv->box, w.re, w.im);
                ml_box_add(out->crit_box, z.re, z.im);
            }
            k = next[k];
        } while (k != start);
        /* closed: the first point again */
        cv->x[p] = cv->x[0];
        cv->y[p] = cv->y[0];
        cv->cx[p] = cv->cx[0];
        cv->cy[p] = cv->cy[0];
        cv->n = p + 1;
        out->box[0] = fmin(out->box[0], cv->box[0]);
        out->box[1] = fmax(out->box[1], cv->box[1]);
        out->box[2] = fmin(out->box[2], cv->box[2]);
        out->box[3] = fmax(out->box[3], cv->box[3]);
    }
    return SL_OK;
}

sl_status sl_ml_caustics(const sl_ml_lenses *L, int min_points, double resolution,
                         sl_ml_caustic_set *out)
{
    memset(out, 0, sizeof *out);
    sl_status st = sl_ml_lenses_check(L);
    if (st)
        return st;
    if (min_points < 8 || min_points > 1000000)
        return sl_fail(SL_ERR_ARG, "microlensing: caustics: points = %d: expected 8 to 1000000",
                       min_points);
    if (!(resolution > 0.0) || !isfinite(resolution))
        return sl_fail(SL_ERR_ARG, "microlensing: caustics: resolution = %g: expected a number > 0",
                       resolution);
    ml_poly P, S;
    ml_crit_parts(L, &P, &S);
    ml_sample *v = NULL;
    int n = 0;
    /* each phase gives 2n points, each curve takes at least one track: the
     * curves get at least min_points each with min_points phases; phases are
     * bisected until the resolution holds or SL_ML_CAUSTIC_SAMPLES would be
     * passed, which is an error, not a coarser answer */
    if ((st = ml_samples(L, &P, &S, min_points, resolution, SL_ML_CAUSTIC_SAMPLES + min_points,
                         &v, &n)))
        return st;
    st = ml_chain(L, v, n, out);
    free(v);
    if (st)
        sl_ml_caustics_free(out);
    return st;
}

void sl_ml_caustics_free(sl_ml_caustic_set *c)
{
    for (int i = 0; i < c->n_curves; i++) {
        free(c->curve[i].x);
        free(c->curve[i].y);
        free(c->curve[i].cx);
        free(c->curve[i].cy);
    }
    memset(c, 0, sizeof *c);
}
