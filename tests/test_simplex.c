/* Batched Nelder-Mead (starling/simplex.h): minima of known functions from
 * many starts at once; a simplex's path alone equals its path in a batch;
 * points outside a domain (+inf) are walked away from; bad specs are
 * refused naming the field. */
#include "sl_test.h"
#include "starling/simplex.h"

typedef struct fn_user {
    int dim, kind; /* 0: Rosenbrock (dim 2), 1: a shifted quadratic, 2: quadratic for x0 > 0 */
    size_t calls;
} fn_user;

static sl_status fn(void *user, const double *x, const size_t *owner, size_t n, double *out)
{
    (void)owner;
    fn_user *u = user;
    u->calls++;
    for (size_t i = 0; i < n; i++) {
        const double *p = x + i * (size_t)u->dim;
        if (u->kind == 0) {
            out[i] = 100.0 * pow(p[1] - p[0] * p[0], 2) + pow(1.0 - p[0], 2);
        } else {
            double f = 0.0;
            for (int k = 0; k < u->dim; k++)
                f += (k + 1.0) * pow(p[k] - 0.5 * k, 2);
            out[i] = u->kind == 2 && !(p[0] > 0.0) ? INFINITY : f;
        }
    }
    return SL_OK;
}

Test(simplex, rosenbrock_many_starts)
{
    enum { N = 64 };
    double start[N * 2], x[N * 2], f[N], step[2] = {0.3, 0.3};
    int it[N];
    for (int i = 0; i < N; i++)
        start[2 * i] = -2.0 + 4.0 * (i % 8) / 7.0, start[2 * i + 1] = -1.0 + 3.0 * (i / 8) / 7.0;
    fn_user u = {2, 0, 0};
    sl_simplex_spec s = {2, N, start, step, 5000, 1e-14};
    sl_simplex_result r = {x, f, it, 0, 0};
    SLT_OK(sl_simplex_minimise(&s, fn, &u, &r));
    for (int i = 0; i < N; i++) {
        cr_assert_lt(fabs(x[2 * i] - 1.0) + fabs(x[2 * i + 1] - 1.0), 1e-4,
                     "start %d: (%g, %g) f %g after %d steps", i, x[2 * i], x[2 * i + 1], f[i],
                     it[i]);
        cr_assert_lt(f[i], 1e-9);
    }
    cr_log_info("Rosenbrock from %d starts: %zu points in %zu batches", N, r.evals, r.batches);
    /* a batch costs at most three calls per round, rounds are bounded by the slowest simplex */
    cr_assert_lt(r.batches, 3u * 5000u);
    cr_assert_eq(u.calls, r.batches);
}

Test(simplex, batch_equals_alone)
{
    enum { N = 10, D = 5 };
    double start[N * D], xb[N * D], fb[N], step[D];
    for (int k = 0; k < D; k++)
        step[k] = 0.1 * (k + 1);
    for (int i = 0; i < N * D; i++)
        start[i] = sin(1.0 + i);
    fn_user u = {D, 1, 0};
    sl_simplex_spec s = {D, N, start, step, 3000, 1e-12};
    sl_simplex_result r = {xb, fb, NULL, 0, 0};
    SLT_OK(sl_simplex_minimise(&s, fn, &u, &r));
    for (int i = 0; i < N; i++) {
        double xa[D], fa;
        sl_simplex_spec one = {D, 1, start + i * D, step, 3000, 1e-12};
        sl_simplex_result ra = {xa, &fa, NULL, 0, 0};
        SLT_OK(sl_simplex_minimise(&one, fn, &u, &ra));
        cr_assert(!memcmp(xa, xb + i * D, sizeof xa) && fa == fb[i],
                  "simplex %d: alone f = %.17g, in a batch %.17g", i, fa, fb[i]);
        for (int k = 0; k < D; k++)
            cr_assert_lt(fabs(xa[k] - 0.5 * k), 1e-4, "simplex %d coordinate %d: %g", i, k,
                         xa[k]);
    }
}

/* The minimum (0, 0.5) lies on the domain's edge x0 > 0: starts inside
 * end inside, near the edge, never at an infinite value. */
Test(simplex, domain_edge)
{
    double start[2] = {2.0, 2.0}, x[2], f, step[2] = {1.0, 1.0};
    fn_user u = {2, 2, 0};
    sl_simplex_spec s = {2, 1, start, step, 2000, 1e-12};
    sl_simplex_result r = {x, &f, NULL, 0, 0};
    SLT_OK(sl_simplex_minimise(&s, fn, &u, &r));
    cr_assert(isfinite(f) && x[0] > 0.0 && x[0] < 1e-3, "x = (%g, %g), f = %g", x[0], x[1], f);
    cr_assert_lt(fabs(x[1] - 0.5), 1e-3);
}

Test(simplex, bad_spec)
{
    double start[2] = {0, 0}, x[2], f, step[2] = {1.0, 0.0};
    fn_user u = {2, 1, 0};
    sl_simplex_result r = {x, &f, NULL, 0, 0};
    sl_simplex_spec s = {2, 1, start, step, 100, 1e-9};
    cr_assert_eq(sl_simplex_minimise(&s, fn, &u, &r), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "step[2] = 0"), "%s", sl_last_error());
    step[1] = 1.0;
    s.max_iter = 0;
    cr_assert_eq(sl_simplex_minimise(&s, fn, &u, &r), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "max_iter = 0"), "%s", sl_last_error());
    s.max_iter = 10;
    start[1] = NAN;
    cr_assert_eq(sl_simplex_minimise(&s, fn, &u, &r), SL_ERR_ARG);
    cr_assert_not_null(strstr(sl_last_error(), "coordinate 2 = nan"), "%s", sl_last_error());
    cr_assert_eq(u.calls, 0u);
}
