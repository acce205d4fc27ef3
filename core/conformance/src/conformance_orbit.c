/* The conformance checks of integrators and forces: the stated order on an
 * eccentric Kepler orbit, reproducibility, unrolled against runtime-N
 * kernels, CPU against CUDA, and acceleration = -grad(potential) / m. */
#include "conformance_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/force_stack.h"
#include "starling/kepler.h"
#include "starling/rng.h"
#include "starling/run.h"

/* The Kepler problem: bodies of mass 1 and 0.1, a = 1, e = 0.5, in a
 * tilted plane, started off pericentre; after whole orbits the relative
 * position is back where it started. */
enum { KEP_ORBITS = 2 };
static const double KEP_M0 = 1.0, KEP_M1 = 0.1, KEP_E = 0.5, KEP_MEAN0 = 1.1;
static const int kep_steps[] = {32, 64, 128, 256, 512, 1024, 2048}; /* per orbit */
enum { KEP_NSTEP = sizeof kep_steps / sizeof kep_steps[0] };
/* Errors used for the fit: below the top the step is in the asymptotic
 * range, above the floor rounding does not dominate. */
static const double KEP_ERR_MAX = 1e-2, KEP_ERR_MIN = 1e-10, ORDER_TOL = 0.3;
static const double KEP_ERR_COARSE = 0.5;
/* CPU against CUDA: the GPU contracts to FMA, so results differ by
 * rounding (the bound of tests/test_gpu_agreement.c). Unrolled against
 * runtime-N loops: the same arithmetic in another loop shape. */
static const double CUDA_TOL = 1e-10, FALLBACK_TOL = 1e-12;

static double kep_period(void)
{
    return 2.0 * SL_KEPLER_PI / sqrt(KEP_M0 + KEP_M1);
}

/* Relative position and velocity at time 0 (a = 1). */
static void kep_initial(double r[3], double v[3])
{
    const double mu = KEP_M0 + KEP_M1, e = KEP_E, b = sqrt(1.0 - e * e), n = sqrt(mu);
    double E = sl_kepler_markley(KEP_MEAN0, e), s = sin(E), c = cos(E), d = 1.0 - e * c;
    double p[3] = {c - e, b * s, 0.0}, q[3] = {-n * s / d, n * b * c / d, 0.0};
    /* argument of pericentre 0.3, inclination 0.4, node 0.9 */
    const double w = 0.3, inc = 0.4, node = 0.9;
    double cw = cos(w), sw = sin(w), ci = cos(inc), si = sin(inc), cn = cos(node), sn = sin(node);
    double R[3][3] = {{cn * cw - sn * sw * ci, -cn * sw - sn * cw * ci, sn * si},
                      {sn * cw + cn * sw * ci, -sn * sw + cn * cw * ci, -cn * si},
                      {sw * si, cw * si, ci}};
    for (int i = 0; i < 3; i++) {
        r[i] = R[i][0] * p[0] + R[i][1] * p[1] + R[i][2] * p[2];
        v[i] = R[i][0] * q[0] + R[i][1] * q[1] + R[i][2] * q[2];
    }
}

static sl_status kep_ensemble(sl_ensemble **out)
{
    double r[3], v[3], x0[3], v0[3], x1[3], v1[3], M = KEP_M0 + KEP_M1;
    kep_initial(r, v);
    for (int i = 0; i < 3; i++) {
        x0[i] = -KEP_M1 / M * r[i], v0[i] = -KEP_M1 / M * v[i];
        x1[i] = KEP_M0 / M * r[i], v1[i] = KEP_M0 / M * v[i];
    }
    sl_status st = sl_ensemble_create(1, 2, out);
    if (!st)
        st = sl_ensemble_set_body(*out, 0, 0, KEP_M0, x0, v0);
    if (!st)
        st = sl_ensemble_set_body(*out, 0, 1, KEP_M1, x1, v1);
    return st;
}

/* A run configuration for (p, f) with step dt: every key at its default,
 * required keys at a valid value, dt set. An integrator without a key 'dt'
 * keeps the step its pack puts in pp[0] (sl_integrate checks it). */
static sl_status make_config(const sl_propagator *p, const sl_force *f, double dt, double t_end,
                             sl_run_config *c)
{
    sl_param_values pv;
    sl_run_config_init(c);
    c->prop = p;
    c->force = f;
    c->t_end = t_end;
    sl_status st = sl_check_valid_values(p->params, p->n_params, &pv);
    int has_dt = sl_params_find(p->params, p->n_params, "dt") != NULL;
    if (!st && has_dt)
        st = sl_params_set(&pv, "dt", dt);
    if (!st && p->pack)
        st = p->pack(&pv, c->pp);
    if (st)
        return sl_fail_context(st, "integrator '%s'", p->name);
    st = sl_check_valid_values(f->params, f->n_params, &pv);
    if (!st && (f->pack || (f->caps & SL_FORCE_CAP_LIST)))
        st = sl_force_pack(f, &pv, c->fp);
    return st ? sl_fail_context(st, "force '%s'", f->name) : SL_OK;
}

/* Integrates a copy of e and returns it (NULL on failure, message set). */
static sl_ensemble *run_copy(const sl_backend *be, const sl_ensemble *e, const sl_run_config *c)
{
    sl_ensemble *w;
    if (sl_ensemble_clone(e, &w))
        return NULL;
    sl_run_result res;
    if (sl_integrate(be, w, c, &res)) {
        sl_ensemble_destroy(w);
        return NULL;
    }
    sl_run_result_free(&res);
    return w;
}

static double kep_error(const sl_ensemble *start, const sl_ensemble *end)
{
    double m, x0[3], x1[3], v[3], err = 0;
    double r0[3], r1[3];
    sl_ensemble_get_body(start, 0, 0, &m, x0, v);
    sl_ensemble_get_body(start, 0, 1, &m, x1, v);
    for (int i = 0; i < 3; i++)
        r0[i] = x1[i] - x0[i];
    sl_ensemble_get_body(end, 0, 0, &m, x0, v);
    sl_ensemble_get_body(end, 0, 1, &m, x1, v);
    for (int i = 0; i < 3; i++) {
        r1[i] = x1[i] - x0[i];
        err += (r1[i] - r0[i]) * (r1[i] - r0[i]);
    }
    return end->status[0] == SL_SYS_ACTIVE ? sqrt(err) : INFINITY;
}

/* The distance between two runs' relative positions (body 1 about body 0). */
static double kep_distance(const sl_ensemble *a, const sl_ensemble *b)
{
    if (a->status[0] != SL_SYS_ACTIVE || b->status[0] != SL_SYS_ACTIVE)
        return INFINITY;
    double m, x0[3], x1[3], y0[3], y1[3], v[3], d = 0;
    sl_ensemble_get_body(a, 0, 0, &m, x0, v);
    sl_ensemble_get_body(a, 0, 1, &m, x1, v);
    sl_ensemble_get_body(b, 0, 0, &m, y0, v);
    sl_ensemble_get_body(b, 0, 1, &m, y1, v);
    for (int i = 0; i < 3; i++) {
        double e = (x1[i] - x0[i]) - (y1[i] - y0[i]);
        d += e * e;
    }
    return sqrt(d);
}

/* Whether the force, with the parameters the suite gives it, is Newtonian
 * gravity on the Kepler problem: then the orbit's return to its start is
 * the truth. A force that adds physics (gr, j2) moves the orbit away from
 * Kepler's, and the error is measured against the same integrator and
 * force at a far smaller step (or tighter accuracy) instead. */
static int force_is_kepler(const sl_force *f, const sl_ensemble *e, const double *fp)
{
    double x[6], v[6], m[2], a[6];
    for (int b = 0; b < 2; b++)
        sl_ensemble_get_body(e, 0, b, &m[b], x + 3 * b, v + 3 * b);
    f->acc(2, x, v, m, fp, a);
    double d[3], r2 = 0;
    for (int i = 0; i < 3; i++) {
        d[i] = x[3 + i] - x[i];
        r2 += d[i] * d[i];
    }
    double r3 = r2 * sqrt(r2), worst = 0;
    for (int i = 0; i < 3; i++) {
        worst = fmax(worst, fabs(a[i] - m[1] * d[i] / r3) / (m[1] / r2));
        worst = fmax(worst, fabs(a[3 + i] + m[0] * d[i] / r3) / (m[0] / r2));
    }
    return worst <= 1e-14;
}

/* "Kepler e = 0.5" or "Kepler e = 0.5 under force X, against dt/4". */
static void kep_what(char *buf, size_t cap, const sl_force *f, int kepler, const char *ref)
{
    if (kepler)
        snprintf(buf, cap, "Kepler e = %.1f", KEP_E);
    else
        snprintf(buf, cap, "Kepler e = %.1f start under '%s' (not Keplerian: errors against %s)",
                 KEP_E, f->name, ref);
}

/* Least-squares slope of log(err) against log(dt) over the finest (up to
 * 4) step sizes whose errors lie in [KEP_ERR_MIN, top]. */
static int fit_window(const double *err, double top, double *order, int *lo, int *hi)
{
    int idx[KEP_NSTEP], n = 0;
    for (int k = KEP_NSTEP - 1; k >= 0 && n < 4; k--)
        if (err[k] >= KEP_ERR_MIN && err[k] <= top)
            idx[n++] = k;
    if (n < 3)
        return 0;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double x = -log((double)kep_steps[idx[i]]), y = log(err[idx[i]]);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    *order = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    *lo = idx[n - 1], *hi = idx[0];
    return 1;
}

/* The asymptotic window first; a low-order method may never enter it, so
 * then any error below the orbit's size (the measure still tells 1 from 4). */
static int fit_order(const double *err, double *order, int *lo, int *hi, int *coarse)
{
    *coarse = 0;
    if (fit_window(err, KEP_ERR_MAX, order, lo, hi))
        return 1;
    *coarse = 1;
    return fit_window(err, KEP_ERR_COARSE, order, lo, hi);
}

/* An adaptive integrator's order, from its error against its work: its
 * accuracy key is tightened and the global error of the Kepler orbit falls
 * as steps^-order. The key is 'tol', a tolerance on the error per step (a
 * controller that holds the local error near tol gives N ~ tol^(-1/order)
 * steps, each contributing ~N^-(order+1)), tightened by decades; or, for an
 * integrator without one, 'eta', a factor on a step criterion (Aarseth's
 * eta |a|/|j|: N ~ 1/eta), halved. The errors must fall with every
 * tightening, and the slope over the finest four in [KEP_ERR_MIN,
 * KEP_ERR_MAX] must be within ORDER_TOL of the table's. */
enum { KEP_NTOL = 6 };
typedef struct kep_sweep {
    const char *key, *what;
    double v[KEP_NTOL];
} kep_sweep;
static const kep_sweep kep_sweeps[] = {
    {"tol", "a tolerance", {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8}},
    {"eta", "a step factor", {0.16, 0.08, 0.04, 0.02, 0.01, 0.005}},
};

static const kep_sweep *accuracy_key(const sl_propagator *p)
{
    for (size_t i = 0; i < sizeof kep_sweeps / sizeof kep_sweeps[0]; i++)
        if (sl_params_find(p->params, p->n_params, kep_sweeps[i].key))
            return &kep_sweeps[i];
    return NULL;
}

static void check_order_adaptive(sl_check_report *r, const sl_propagator *p, const sl_force *f,
                                 const char *name)
{
    const kep_sweep *sw = accuracy_key(p);
    if (!sw) {
        sl_check_add(r, SL_CHECK_SKIP, name, "adaptive, no key 'tol' or 'eta': the suite "
                     "tightens one of them to measure the order");
        return;
    }
    const char *key = sw->key;
    const double *vals = sw->v;
    sl_backend be;
    sl_ensemble *e = NULL, *ref = NULL;
    double err[KEP_NTOL], steps[KEP_NTOL], P = kep_period();
    int kepler = 1;
    sl_status st = sl_backend_open("cpu", &be);
    if (!st)
        st = kep_ensemble(&e);
    /* k = KEP_NTOL: the reference run of a non-Keplerian force, two
     * decades of tol (or a quarter of eta) past the tightest */
    for (int k = KEP_NTOL; k >= 0 && !st; k--) {
        sl_run_config c;
        st = make_config(p, f, P / 1000, KEP_ORBITS * P, &c);
        if (k == KEP_NTOL && !st && (kepler = force_is_kepler(f, e, c.fp)))
            continue;
        double v = k < KEP_NTOL ? vals[k] : vals[KEP_NTOL - 1] * (key[0] == 't' ? 1e-2 : 0.25);
        sl_param_values pv;
        if (!st && !(st = sl_check_valid_values(p->params, p->n_params, &pv))) {
            if (sl_params_find(p->params, p->n_params, "dt"))
                st = sl_params_set(&pv, "dt", P / 1000);
            if (!st)
                st = sl_params_set(&pv, key, v);
            if (!st)
                st = p->pack(&pv, c.pp);
        }
        sl_ensemble *w = st ? NULL : run_copy(&be, e, &c);
        if (!w && !st)
            st = SL_ERR_INTERNAL;
        if (w && k == KEP_NTOL) {
            ref = w;
            continue;
        }
        if (w) {
            err[k] = kepler ? kep_error(e, w) : kep_distance(w, ref);
            steps[k] = (double)w->steps[0];
        }
        sl_ensemble_destroy(w);
    }
    sl_ensemble_destroy(e);
    sl_ensemble_destroy(ref);
    if (st) {
        sl_check_add(r, SL_CHECK_FAIL, name, "Kepler run: %s", sl_last_error());
        return;
    }
    char what[160], refd[64];
    snprintf(refd, sizeof refd, "%s = %g", key,
             vals[KEP_NTOL - 1] * (key[0] == 't' ? 1e-2 : 0.25));
    kep_what(what, sizeof what, f, kepler, refd);
    for (int k = 1; k < KEP_NTOL; k++)
        if (!(err[k] < err[k - 1]) && err[k - 1] > KEP_ERR_MIN) {
            sl_check_add(r, SL_CHECK_FAIL, name, "adaptive, %s: the error does not fall as %s "
                         "tightens: %.3g at %s = %g, %.3g at %s = %g", what, key, err[k - 1],
                         key, vals[k - 1], err[k], key, vals[k]);
            return;
        }
    int idx[KEP_NTOL], n = 0;
    for (int k = KEP_NTOL - 1; k >= 0 && n < 4; k--)
        if (err[k] >= KEP_ERR_MIN && err[k] <= KEP_ERR_MAX)
            idx[n++] = k;
    if (n < 3) {
        sl_check_add(r, SL_CHECK_FAIL, name, "adaptive: cannot measure: fewer than 3 errors in "
                     "[%g, %g] (%.2g at %s = %g .. %.2g at %s = %g)", KEP_ERR_MIN,
                     KEP_ERR_MAX, err[0], key, vals[0], err[KEP_NTOL - 1], key,
                     vals[KEP_NTOL - 1]);
        return;
    }
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double x = log(steps[idx[i]]), y = -log(err[idx[i]]);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    double order = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    int lo = idx[n - 1], hi = idx[0];
    int ok = p->order >= 1 && fabs(order - p->order) <= ORDER_TOL;
    sl_check_add(r, ok ? SL_CHECK_PASS : SL_CHECK_FAIL, name,
                 "adaptive, %s: measured order %.2f vs stated %d (+-%.1f) from error against "
                 "steps; %s %g..%g: error %.2g -> %.2g, %.0f -> %.0f steps", what, order,
                 p->order, ORDER_TOL, key, vals[lo], vals[hi], err[lo], err[hi], steps[lo],
                 steps[hi]);
}

void sl_check_order(sl_check_report *r, const sl_propagator *p, const sl_force *f,
                    const char *name)
{
    if (p->adaptive) {
        check_order_adaptive(r, p, f, name);
        return;
    }
    if (!sl_params_find(p->params, p->n_params, "dt")) {
        sl_check_add(r, SL_CHECK_SKIP, name, "no key 'dt': the suite cannot choose the step "
                     "(pp[0]) to measure the order");
        return;
    }
    if (p->order < 1) {
        sl_check_add(r, SL_CHECK_FAIL, name, "the table states order %d: expected >= 1",
                     p->order);
        return;
    }
    sl_backend be;
    sl_ensemble *e = NULL, *ref = NULL;
    double err[KEP_NSTEP], P = kep_period();
    int kepler = 1;
    sl_status st = sl_backend_open("cpu", &be);
    if (!st)
        st = kep_ensemble(&e);
    /* k = KEP_NSTEP: the reference run of a non-Keplerian force, at a
     * quarter of the finest step */
    for (int k = KEP_NSTEP; k >= 0 && !st; k--) {
        sl_run_config c;
        int n = k < KEP_NSTEP ? kep_steps[k] : 4 * kep_steps[KEP_NSTEP - 1];
        st = make_config(p, f, P / n, KEP_ORBITS * P, &c);
        if (k == KEP_NSTEP && !st && (kepler = force_is_kepler(f, e, c.fp)))
            continue;
        sl_ensemble *w = st ? NULL : run_copy(&be, e, &c);
        if (!w)
            st = SL_ERR_INTERNAL;
        else if (k == KEP_NSTEP)
            ref = w, w = NULL;
        else
            err[k] = kepler ? kep_error(e, w) : kep_distance(w, ref);
        sl_ensemble_destroy(w);
    }
    sl_ensemble_destroy(e);
    sl_ensemble_destroy(ref);
    if (st) {
        sl_check_add(r, SL_CHECK_FAIL, name, "Kepler run: %s", sl_last_error());
        return;
    }
    char what[160], refd[64];
    snprintf(refd, sizeof refd, "%d steps per orbit", 4 * kep_steps[KEP_NSTEP - 1]);
    kep_what(what, sizeof what, f, kepler, refd);
    double order;
    int lo, hi, coarse;
    if (!fit_order(err, &order, &lo, &hi, &coarse)) {
        sl_check_add(r, SL_CHECK_FAIL, name, "cannot measure: fewer than 3 errors in [%g, %g] "
                     "(%.2g at %d steps per orbit .. %.2g at %d); stated order %d", KEP_ERR_MIN,
                     KEP_ERR_COARSE, err[0], kep_steps[0], err[KEP_NSTEP - 1],
                     kep_steps[KEP_NSTEP - 1], p->order);
        return;
    }
    int ok = fabs(order - p->order) <= ORDER_TOL;
    sl_check_add(r, ok ? SL_CHECK_PASS : SL_CHECK_FAIL, name,
                 "%s: measured order %.2f vs stated %d (+-%.1f); error %.2g -> %.2g at %d..%d "
                 "steps per orbit%s", what, order, p->order, ORDER_TOL, err[lo], err[hi],
                 kep_steps[lo], kep_steps[hi], coarse ? " (errors above 1e-2)" : "");
}

/* ---- reproducibility and agreement on 3-body ensembles -------------------------- */

enum { ENS_SYS = 40 }; /* more than one chunk of lanes */
static const double ENS_DT = 0.01, ENS_T_END = 5.0;

static sl_status three_body(uint64_t seed, sl_ensemble **out)
{
    sl_test_system_spec sp = {.n_planets = 2, .planet_mass = 1e-3, .a1 = 1.0, .spacing = 0.6,
                              .perturb = 0.05, .random_phase = 1, .seed = seed};
    return sl_ensemble_test_systems(&sp, ENS_SYS, out);
}

/* Index of the first system whose state or bookkeeping differs bitwise, or -1. */
static int64_t first_difference(const sl_ensemble *a, const sl_ensemble *b)
{
    size_t n = sl_state_len(a->n_sys, a->n_body);
    for (int64_t s = 0; s < a->n_sys; s++) {
        if (a->status[s] != b->status[s] || a->steps[s] != b->steps[s] ||
            memcmp(&a->time[s], &b->time[s], sizeof(double)))
            return s;
        for (int bd = 0; bd < a->n_body; bd++)
            for (int fl = 0; fl < SL_NFIELD; fl++) {
                size_t i = sl_state_index(s, a->n_body, bd, fl);
                if (i < n && memcmp(&a->state[i], &b->state[i], sizeof(double)))
                    return s;
            }
    }
    return -1;
}

/* Largest difference of positions (velocities), relative to the system's
 * largest position (velocity); +inf when statuses or step counts differ. */
static double max_rel_diff(const sl_ensemble *a, const sl_ensemble *b)
{
    double worst = 0;
    for (int64_t s = 0; s < a->n_sys; s++) {
        if (a->status[s] != b->status[s] || a->steps[s] != b->steps[s])
            return INFINITY;
        for (int f0 = SL_X; f0 <= SL_VX; f0 += 3) {
            double scale = 0, d = 0;
            for (int bd = 0; bd < a->n_body; bd++)
                for (int k = 0; k < 3; k++) {
                    double x = sl_ensemble_get(a, s, bd, f0 + k), y = sl_ensemble_get(b, s, bd, f0 + k);
                    scale = fmax(scale, fmax(fabs(x), fabs(y)));
                    d = fmax(d, fabs(x - y));
                }
            double rel = scale > 0 ? d / scale : d;
            worst = isnan(rel) ? INFINITY : fmax(worst, rel);
        }
    }
    return worst;
}

static int64_t min_steps(const sl_ensemble *e)
{
    int64_t k = INT64_MAX;
    for (int64_t s = 0; s < e->n_sys; s++)
        k = e->steps[s] < k ? e->steps[s] : k;
    return k;
}

static int64_t max_steps(const sl_ensemble *e)
{
    int64_t k = 0;
    for (int64_t s = 0; s < e->n_sys; s++)
        k = e->steps[s] > k ? e->steps[s] : k;
    return k;
}

static void check_repeat(sl_check_report *r, const sl_propagator *p, const sl_force *f,
                         const sl_ensemble *e, const char *name)
{
    static const int64_t per_launch[] = {0, 0, 1, 7};
    sl_backend be;
    sl_ensemble *out[4] = {NULL};
    sl_status st = sl_backend_open("cpu", &be);
    for (int k = 0; k < 4 && !st; k++) {
        sl_run_config c;
        st = make_config(p, f, ENS_DT, ENS_T_END, &c);
        c.steps_per_launch = per_launch[k];
        if (!st && !(out[k] = run_copy(&be, e, &c)))
            st = SL_ERR_INTERNAL;
    }
    if (st)
        sl_check_add(r, SL_CHECK_FAIL, name, "run: %s", sl_last_error());
    for (int k = 1; k < 4 && !st; k++) {
        int64_t s = first_difference(out[0], out[k]);
        if (s >= 0) {
            sl_check_add(r, SL_CHECK_FAIL, name, "system %lld differs between two runs (steps "
                         "per launch default vs %lld)", (long long)s + 1,
                         (long long)per_launch[k]);
            st = SL_ERR_NUMERIC;
        }
    }
    if (!st && p->adaptive)
        sl_check_add(r, SL_CHECK_PASS, name, "%d 3-body systems to t = %g (adaptive, %lld to "
                     "%lld steps): bit-identical on repeat and with 1, 7 and default steps per "
                     "launch", ENS_SYS, ENS_T_END, (long long)min_steps(out[0]),
                     (long long)max_steps(out[0]));
    else if (!st)
        sl_check_add(r, SL_CHECK_PASS, name, "%d 3-body systems x %.0f steps: bit-identical on "
                     "repeat and with 1, 7 and default steps per launch", ENS_SYS,
                     ENS_T_END / ENS_DT);
    for (int k = 0; k < 4; k++)
        sl_ensemble_destroy(out[k]);
}

/* p with only the runtime-N kernels of force f (a copy the caller frees). */
static sl_propagator *fallback_only(const sl_propagator *p, const char *force)
{
    sl_propagator *q = malloc(sizeof *q + p->n_kernels * sizeof(sl_kernel_entry));
    if (!q)
        return NULL;
    *q = *p;
    sl_kernel_entry *k = (sl_kernel_entry *)(q + 1);
    q->kernels = k;
    q->n_kernels = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        if (p->kernels[i].n_body == 0 && strcmp(p->kernels[i].force, force) == 0)
            k[q->n_kernels++] = p->kernels[i];
    return q;
}

/* Runs (p, f) on e with both tables and backends given; returns the
 * largest relative difference, or NaN with the message set. */
static double compare_runs(const sl_backend *be_a, const sl_propagator *pa, const sl_backend *be_b,
                           const sl_propagator *pb, const sl_force *f, const sl_ensemble *e,
                           double dt, double t_end)
{
    sl_run_config ca, cb;
    if (make_config(pa, f, dt, t_end, &ca) || make_config(pb, f, dt, t_end, &cb))
        return NAN;
    sl_ensemble *a = run_copy(be_a, e, &ca), *b = a ? run_copy(be_b, e, &cb) : NULL;
    double d = a && b ? max_rel_diff(a, b) : NAN;
    sl_ensemble_destroy(a);
    sl_ensemble_destroy(b);
    return d;
}

static void check_fallback(sl_check_report *r, const sl_propagator *p, const sl_force *f,
                           const sl_ensemble *e, const char *name)
{
    const sl_kernel_entry *k = sl_propagator_kernel(p, f->name, e->n_body);
    sl_propagator *q = fallback_only(p, f->name);
    sl_backend be;
    if (!q || sl_backend_open("cpu", &be)) {
        free(q);
        sl_check_add(r, SL_CHECK_FAIL, name, "setup: %s", q ? sl_last_error() : "out of memory");
        return;
    }
    if (!k || k->n_body != e->n_body || q->n_kernels == 0) {
        sl_check_add(r, SL_CHECK_SKIP, name, "needs both an N = %d specialisation (%s) and a "
                     "runtime-N kernel (%s)", e->n_body, k && k->n_body ? "yes" : "no",
                     q->n_kernels ? "yes" : "no");
        free(q);
        return;
    }
    double d = compare_runs(&be, p, &be, q, f, e, ENS_DT, ENS_T_END);
    free(q);
    if (isnan(d))
        sl_check_add(r, SL_CHECK_FAIL, name, "run: %s", sl_last_error());
    else
        sl_check_add(r, d <= FALLBACK_TOL ? SL_CHECK_PASS : SL_CHECK_FAIL, name,
                     "N = %d unrolled vs runtime-N, %d systems: max relative difference %.3g "
                     "(bound %g)", e->n_body, ENS_SYS, d, FALLBACK_TOL);
}

static void check_cuda(sl_check_report *r, const sl_propagator *p, const sl_force *f,
                       const sl_ensemble *e, const sl_check_options *o, const char *name)
{
    const sl_kernel_entry *k = sl_propagator_kernel(p, f->name, e->n_body);
    if (!k || !k->cuda) {
        sl_check_add(r, SL_CHECK_SKIP, name, "the plugin has no CUDA kernel for '%s' (built "
                     "without CUDA)", f->name);
        return;
    }
    sl_backend cpu, gpu;
    sl_check_result why_res;
    char why[160];
    if (!sl_check_cuda_backend(o, &gpu, &why_res, why, sizeof why)) {
        sl_check_add(r, why_res, name, "%s", why);
        return;
    }
    sl_ensemble *kep = NULL;
    sl_propagator *q = fallback_only(p, f->name);
    double worst = NAN;
    if (q && !sl_backend_open("cpu", &cpu) && !kep_ensemble(&kep)) {
        double d1 = compare_runs(&cpu, p, &gpu, p, f, e, ENS_DT, ENS_T_END);
        double d2 = q->n_kernels ? compare_runs(&cpu, q, &gpu, q, f, e, ENS_DT, ENS_T_END) : 0;
        double d3 = compare_runs(&cpu, p, &gpu, p, f, kep, kep_period() / 256, kep_period());
        worst = isnan(d1) || isnan(d2) || isnan(d3) ? NAN : fmax(d1, fmax(d2, d3));
    }
    free(q);
    sl_ensemble_destroy(kep);
    if (isnan(worst))
        sl_check_add(r, SL_CHECK_FAIL, name, "run: %s", sl_last_error());
    else
        sl_check_add(r, worst <= CUDA_TOL ? SL_CHECK_PASS : SL_CHECK_FAIL, name,
                     "CPU vs CUDA (3-body unrolled and runtime-N, Kepler): max relative "
                     "difference %.3g (bound %g)", worst, CUDA_TOL);
}

/* ---- integrator checks --------------------------------------------------------- */

static void check_dt_refused(sl_check_report *r, const sl_propagator *p)
{
    static const double bad[] = {0.0, -0.01, NAN};
    if (!sl_params_find(p->params, p->n_params, "dt")) {
        sl_check_add(r, SL_CHECK_SKIP, "params/dt", "no key 'dt'");
        return;
    }
    for (int k = 0; k < 3; k++) {
        sl_param_values pv;
        sl_params_init(&pv, p->params, p->n_params);
        sl_clear_error();
        if (sl_params_set(&pv, "dt", bad[k]) == SL_OK || !sl_check_names_key("dt")) {
            sl_check_add(r, SL_CHECK_FAIL, "params/dt", "dt = %g %s", bad[k],
                         sl_last_error()[0] ? "refused without naming 'dt'" : "accepted");
            return;
        }
    }
    sl_check_add(r, SL_CHECK_PASS, "params/dt", "dt = 0, -0.01 and NaN refused naming 'dt'");
}

static void check_pack(sl_check_report *r, const sl_propagator *p)
{
    sl_param_values pv;
    double pp[SL_PROP_PARAMS_MAX];
    const double dt = 0.01;
    if (!p->pack) {
        sl_check_add(r, SL_CHECK_FAIL, "pack", "the table has no pack entry");
        return;
    }
    sl_status st = sl_check_valid_values(p->params, p->n_params, &pv);
    if (!st && sl_params_find(p->params, p->n_params, "dt"))
        st = sl_params_set(&pv, "dt", dt);
    if (!st)
        st = p->pack(&pv, pp);
    if (st) {
        sl_check_add(r, SL_CHECK_FAIL, "pack", "valid values refused: %s", sl_last_error());
        return;
    }
    if (p->n_packed < 1 || p->n_packed > SL_PROP_PACKED_MAX) {
        sl_check_add(r, SL_CHECK_FAIL, "pack", "n_packed = %d: expected 1..%d (pp[%d] is the "
                     "core's)", p->n_packed, SL_PROP_PACKED_MAX, SL_PP_SMOOTH);
        return;
    }
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        if (!isfinite(pp[i]) || (i >= p->n_packed && pp[i] != 0.0)) {
            sl_check_add(r, SL_CHECK_FAIL, "pack", "pp[%d] = %g: expected %s", i, pp[i],
                         i < p->n_packed ? "a finite number" : "0 (beyond n_packed)");
            return;
        }
    /* the loops step by pp[0], whatever the key that sets it is called */
    if (!(pp[SL_PP_DT] > 0)) {
        sl_check_add(r, SL_CHECK_FAIL, "pack", "pp[0] = %g: the loop steps by pp[0], so pack "
                     "must put the step there (a finite number > 0)", pp[SL_PP_DT]);
        return;
    }
    int has_dt = sl_params_find(p->params, p->n_params, "dt") != NULL;
    sl_check_add(r, !has_dt || pp[SL_PP_DT] == dt ? SL_CHECK_PASS : SL_CHECK_FAIL, "pack",
                 has_dt ? "pp finite, %d packed; pp[0] = %g for dt = %g (the step the loop uses)"
                        : "pp finite, %d packed; pp[0] = %g, the step (no key 'dt'; %g unused)",
                 p->n_packed, pp[SL_PP_DT], dt);
}

static void check_kernel_table(sl_check_report *r, const sl_propagator *p)
{
    if (!p->kernels || p->n_kernels == 0) {
        sl_check_add(r, SL_CHECK_FAIL, "kernels", "no kernels: neither its table nor a "
                     "loaded kernel set (\"%s/FORCE\") has any", p->name);
        return;
    }
    size_t n_cuda = 0, n_any = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        const sl_kernel_entry *k = &p->kernels[i];
        if (!k->force || !*k->force || !k->cpu || k->n_body < 0 || k->n_body > SL_NBODY_MAX) {
            sl_check_add(r, SL_CHECK_FAIL, "kernels", "entry %zu: force %s, N = %d, cpu %s: "
                         "expected a force name, N in 0..%d and a CPU entry", i + 1,
                         k->force ? k->force : "(null)", k->n_body, k->cpu ? "set" : "NULL",
                         SL_NBODY_MAX);
            return;
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(p->kernels[j].force, k->force) && p->kernels[j].n_body == k->n_body) {
                sl_check_add(r, SL_CHECK_FAIL, "kernels", "(%s, N = %d) listed twice", k->force,
                             k->n_body);
                return;
            }
        n_cuda += k->cuda != NULL;
        n_any += k->n_body == 0;
        if (sl_kernel_traits_check(p, k, "its kernel table or a loaded kernel set")) {
            sl_check_add(r, SL_CHECK_FAIL, "kernels", "%s", sl_last_error());
            return;
        }
    }
    sl_check_add(r, SL_CHECK_PASS, "kernels", "%zu entries well formed, its own and kernel "
                 "sets' (%zu runtime-N, %zu with CUDA), compiled with PERSIST %d and ADAPTIVE "
                 "%d as the table states", p->n_kernels, n_any, n_cuda, p->persist_per_body,
                 p->adaptive);
}

/* What runs reach f through (force_stack.h): a term's stack with the term
 * alone on, a stack's with every one of its terms on (its own table packs
 * none), any other force itself. NULL (message set) when a stack's forces
 * are not loaded or no stack holds the term. */
static const sl_force *checked_force(const sl_force *f, const sl_check_options *o,
                                     sl_force_stack *st)
{
    if (!(f->caps & (SL_FORCE_CAP_TERM | SL_FORCE_CAP_STACK)))
        return f;
    const sl_force *list[SL_STACK_TERMS_MAX + 1];
    int n = 0;
    if (f->caps & SL_FORCE_CAP_TERM)
        list[n++] = f;
    else {
        char buf[256];
        const char *part[SL_STACK_TERMS_MAX + 1];
        int np = sl_force_stack_split(f->name, buf, sizeof buf, part, SL_STACK_TERMS_MAX + 1);
        for (int k = 0; k < np; k++) {
            list[n] = o && o->reg ? sl_registry_find(o->reg, SL_KIND_FORCE, part[k]) : NULL;
            if (!list[n++]) {
                sl_fail(SL_ERR_ARG, "stack '%s': force '%s' is not loaded (put its plugin on "
                        "the plugin path)", f->name, part[k]);
                return NULL;
            }
        }
    }
    if (sl_force_stack_resolve(o ? o->reg : NULL, list, n, st))
        return NULL;
    return sl_force_stack_table(st);
}

/* Every check that needs a force, for one force of the kernel table. */
static void check_with_force(sl_check_report *r, const sl_propagator *p, const char *force,
                             const sl_check_options *o)
{
    char name[SL_CHECK_NAME_MAX];
    const sl_force *f = o && o->reg ? sl_registry_find(o->reg, SL_KIND_FORCE, force) : NULL;
    sl_force_stack stack;
    if (f && !(f = checked_force(f, o, &stack))) {
        snprintf(name, sizeof name, "with/%s", force);
        sl_check_add(r, SL_CHECK_SKIP, name, "%s", sl_last_error());
        return;
    }
    if (!f) {
        snprintf(name, sizeof name, "with/%s", force);
        sl_check_add(r, SL_CHECK_SKIP, name, "force '%s' is not loaded (put its plugin on the "
                     "plugin path)", force);
        return;
    }
    snprintf(name, sizeof name, "order/%s", force);
    sl_check_order(r, p, f, name);
    sl_ensemble *e;
    if (three_body(sl_check_seed(o), &e)) {
        sl_check_add(r, SL_CHECK_FAIL, "setup", "%s", sl_last_error());
        return;
    }
    snprintf(name, sizeof name, "repeat/%s", force);
    check_repeat(r, p, f, e, name);
    snprintf(name, sizeof name, "unrolled_vs_runtime_n/%s", force);
    check_fallback(r, p, f, e, name);
    snprintf(name, sizeof name, "cuda/%s", force);
    check_cuda(r, p, f, e, o, name);
    sl_ensemble_destroy(e);
}

/* ---- kernels pooled by the registry ------------------------------------------------ */

typedef struct pool {
    sl_kernel_entry *k;
    size_t n, cap;
    const sl_kernel_entry *own;
    size_t n_own;
} pool;

static void pool_add(void *ud, const sl_kernel_entry *k, const char *path)
{
    (void)path;
    pool *q = ud;
    if (k >= q->own && k < q->own + q->n_own)
        return; /* the table's own entries are in already */
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 64;
        sl_kernel_entry *a = realloc(q->k, cap * sizeof *a);
        if (!a)
            return;
        q->k = a, q->cap = cap;
    }
    q->k[q->n++] = *k;
}

sl_propagator *sl_check_pooled(const sl_propagator *p, const sl_check_options *o)
{
    pool q = {NULL, 0, 0, NULL, 0};
    for (size_t i = 0; i < p->n_kernels; i++)
        pool_add(&q, &p->kernels[i], NULL);
    q.own = p->kernels, q.n_own = p->n_kernels; /* the registry offers them again: skip */
    if (o && o->reg)
        sl_registry_each_kernel(o->reg, p->name, pool_add, &q);
    sl_propagator *c = malloc(sizeof *c);
    if (!c) {
        free(q.k);
        return NULL;
    }
    *c = *p;
    c->kernels = q.k;
    c->n_kernels = q.n;
    return c;
}

void sl_check_pooled_free(sl_propagator *c)
{
    if (c)
        free((void *)c->kernels);
    free(c);
}

sl_status sl_check_propagator(const sl_propagator *p0, const sl_check_options *o,
                              sl_check_report *r)
{
    sl_check_begin(r, SL_KIND_PROPAGATOR, p0 ? p0->name : NULL);
    if (!p0)
        return sl_fail(SL_ERR_ARG, "check integrator: no table");
    sl_check_schema(r, "params", p0->params, p0->n_params);
    check_dt_refused(r, p0);
    check_pack(r, p0);
    /* the forces it runs with: its own kernels and every plugin's kernel
     * sets (an integrator built with starling_add_integrator has only sets) */
    sl_propagator *p = sl_check_pooled(p0, o);
    if (!p)
        return sl_fail(SL_ERR_NOMEM, "check integrator: kernels");
    check_kernel_table(r, p);
    for (size_t i = 0; i < p->n_kernels && p->kernels; i++) {
        const char *force = p->kernels[i].force;
        int seen = !force;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(p->kernels[j].force, force);
        if (!seen)
            check_with_force(r, p, force, o);
    }
    sl_check_pooled_free(p);
    return SL_OK;
}

/* ---- force checks --------------------------------------------------------------- */

enum { GRAD_N = 4 };
static const double GRAD_H = 1e-5, GRAD_TOL = 1e-6;

/* Random bodies in the unit cube, no two closer than 0.3; masses 0.5..1.5. */
static void random_bodies(uint64_t seed, double *x, double *m)
{
    sl_rng g;
    sl_rng_init(&g, seed, 9);
    for (int i = 0; i < GRAD_N; i++) {
        int close;
        do {
            for (int c = 0; c < 3; c++)
                x[3 * i + c] = 2.0 * sl_rng_uniform(&g) - 1.0;
            close = 0;
            for (int k = 0; k < i; k++) {
                double d2 = 0;
                for (int c = 0; c < 3; c++)
                    d2 += (x[3 * i + c] - x[3 * k + c]) * (x[3 * i + c] - x[3 * k + c]);
                close |= d2 < 0.09;
            }
        } while (close);
        m[i] = 0.5 + sl_rng_uniform(&g);
    }
}

/* Bodies at rest: a force that also depends on velocities (drag) is then
 * its conservative part, which the potential describes. */
static void check_gradient(sl_check_report *r, const sl_force *f, const double *fp, uint64_t seed)
{
    double x[3 * GRAD_N], v[3 * GRAD_N] = {0}, m[GRAD_N], a[3 * GRAD_N], amax = 0, dmax = 0;
    random_bodies(seed, x, m);
    f->acc(GRAD_N, x, v, m, fp, a);
    for (int k = 0; k < 3 * GRAD_N; k++) {
        double keep = x[k];
        x[k] = keep + GRAD_H;
        double up = f->potential(GRAD_N, x, m, fp);
        x[k] = keep - GRAD_H;
        double down = f->potential(GRAD_N, x, m, fp);
        x[k] = keep;
        double fd = -(up - down) / (2.0 * GRAD_H) / m[k / 3];
        amax = fmax(amax, fabs(a[k]));
        dmax = isnan(fd - a[k]) ? INFINITY : fmax(dmax, fabs(fd - a[k]));
    }
    double rel = amax > 0 ? dmax / amax : dmax;
    sl_check_add(r, rel <= GRAD_TOL ? SL_CHECK_PASS : SL_CHECK_FAIL, "gradient",
                 "%d random bodies: |acc + grad(U)/m| / max|acc| = %.3g (bound %g, central "
                 "differences h = %g)", GRAD_N, rel, GRAD_TOL, GRAD_H);
}

static void check_force_repeat(sl_check_report *r, const sl_force *f, const double *fp,
                               uint64_t seed)
{
    double x[3 * GRAD_N], v[3 * GRAD_N], m[GRAD_N], a1[3 * GRAD_N], a2[3 * GRAD_N];
    random_bodies(seed, x, m);
    for (int k = 0; k < 3 * GRAD_N; k++)
        v[k] = 0.1 * x[(k + 1) % (3 * GRAD_N)];
    f->acc(GRAD_N, x, v, m, fp, a1);
    f->acc(GRAD_N, x, v, m, fp, a2);
    double u1 = f->potential(GRAD_N, x, m, fp), u2 = f->potential(GRAD_N, x, m, fp);
    int same = !memcmp(a1, a2, sizeof a1) && !memcmp(&u1, &u2, sizeof u1);
    sl_check_add(r, same ? SL_CHECK_PASS : SL_CHECK_FAIL, "repeat",
                 same ? "acc and potential bit-identical on the same input"
                      : "acc or potential differ between two calls on the same input");
}

static int force_pack(sl_check_report *r, const sl_force *f, double *fp)
{
    sl_param_values pv;
    memset(fp, 0, SL_FORCE_PARAMS_MAX * sizeof *fp);
    sl_status st = sl_check_valid_values(f->params, f->n_params, &pv);
    int has_pack = f->pack || (f->caps & SL_FORCE_CAP_LIST);
    if (!st && has_pack)
        st = sl_force_pack(f, &pv, fp);
    if (st || !has_pack) {
        sl_check_add(r, SL_CHECK_FAIL, "pack", "%s", has_pack ? sl_last_error()
                                                              : "the table has no pack entry");
        return 0;
    }
    if (f->n_packed < 0 || f->n_packed > SL_FORCE_PARAMS_MAX) {
        sl_check_add(r, SL_CHECK_FAIL, "pack", "n_packed = %d: expected 0..%d", f->n_packed,
                     SL_FORCE_PARAMS_MAX);
        return 0;
    }
    /* a stack's mask, in the slot after its parameters, is the core's */
    const int extra = f->caps & SL_FORCE_CAP_LIST ? 1 : 0;
    for (int i = 0; i < SL_FORCE_PARAMS_MAX; i++)
        if (!isfinite(fp[i]) || (i >= f->n_packed + extra && fp[i] != 0.0)) {
            sl_check_add(r, SL_CHECK_FAIL, "pack", "fp[%d] = %g: expected %s", i, fp[i],
                         i < f->n_packed ? "a finite number" : "0 (beyond n_packed)");
            return 0;
        }
    sl_check_add(r, SL_CHECK_PASS, "pack", "defaults packed, all finite, %d packed",
                 f->n_packed);
    return 1;
}

/* The force's kernels live in the integrators built for it (a term's in
 * the stacks that hold it): the order check is what reaches its acc and
 * acc_jerk. */
static void check_integrators(sl_check_report *r, const sl_force *f0, const sl_check_options *o)
{
    size_t n = 0;
    sl_force_stack stack;
    const sl_force *f = checked_force(f0, o, &stack);
    if (!f) {
        sl_check_add(r, SL_CHECK_SKIP, "order", "%s", sl_last_error());
        return;
    }
    for (size_t i = 0; o && o->reg && i < sl_registry_count(o->reg); i++) {
        const sl_registry_item *it = sl_registry_at(o->reg, i);
        if (it->kind != SL_KIND_PROPAGATOR)
            continue;
        sl_propagator *p = sl_check_pooled(it->table, o);
        if (p && sl_propagator_kernel(p, f->name, 2)) {
            char name[SL_CHECK_NAME_MAX];
            snprintf(name, sizeof name, "order/%s", p->name);
            sl_check_order(r, p, f, name);
            n++;
        }
        sl_check_pooled_free(p);
    }
    if (n == 0)
        sl_check_add(r, SL_CHECK_SKIP, "order", "no loaded integrator has kernels for '%s'",
                     f->name);
}

sl_status sl_check_force(const sl_force *f, const sl_check_options *o, sl_check_report *r)
{
    sl_check_begin(r, SL_KIND_FORCE, f ? f->name : NULL);
    if (!f)
        return sl_fail(SL_ERR_ARG, "check force: no table");
    sl_check_schema(r, "params", f->params, f->n_params);
    /* a stack's own table packs no term: check its functions with all on */
    sl_force_stack stack;
    const sl_force *whole = f->caps & SL_FORCE_CAP_STACK ? checked_force(f, o, &stack) : f;
    if (!whole) {
        sl_check_add(r, SL_CHECK_SKIP, "stack", "%s", sl_last_error());
        whole = f;
    }
    f = whole;
    double fp[SL_FORCE_PARAMS_MAX];
    int packed = force_pack(r, f, fp);
    if (!f->acc || !f->potential) {
        sl_check_add(r, SL_CHECK_FAIL, "entries", "acc %s, potential %s: both are required",
                     f->acc ? "set" : "NULL", f->potential ? "set" : "NULL");
        return SL_OK;
    }
    if (packed) {
        check_gradient(r, f, fp, sl_check_seed(o));
        check_force_repeat(r, f, fp, sl_check_seed(o));
    }
    check_integrators(r, f, o);
    return SL_OK;
}

/* ---- kernel sets ---------------------------------------------------------------------- */

/* A kernel set is checked by what it is for: its integrator with its
 * force, through these kernels, passes what an integrator passes with a
 * force (order, repeat, unrolled vs runtime-N, CPU vs CUDA). A force
 * plugin's CUDA code lives only here, so this is where check-plugin on a
 * force file compares it with the CPU. */
sl_status sl_check_kernel_set(const sl_kernel_set *k, const sl_check_options *o,
                              sl_check_report *r)
{
    sl_check_begin(r, SL_KIND_KERNELS, k ? k->name : NULL);
    if (!k)
        return sl_fail(SL_ERR_ARG, "check kernel set: no table");
    if (k->n_kernels == 0) {
        sl_check_add(r, SL_CHECK_SKIP, "kernels", "no kernels: integrator '%s' needs a part "
                     "of force '%s' that its flags say it lacks (a run with the pair is "
                     "refused, naming it)", k->integrator, k->force);
        return SL_OK;
    }
    const sl_propagator *p0 = o && o->reg ? sl_registry_find(o->reg, SL_KIND_PROPAGATOR,
                                                             k->integrator) : NULL;
    const sl_force *f = o && o->reg ? sl_registry_find(o->reg, SL_KIND_FORCE, k->force) : NULL;
    if (!p0 || !f) {
        sl_check_add(r, SL_CHECK_SKIP, "order", "integrator '%s' or force '%s' is not loaded",
                     k->integrator, k->force);
        return SL_OK;
    }
    sl_check_add(r, SL_CHECK_PASS, "kernels", "%zu entries for %s", k->n_kernels, k->name);
    sl_propagator *p = sl_check_pooled(p0, o);
    if (!p)
        return sl_fail(SL_ERR_NOMEM, "check kernel set: kernels");
    check_with_force(r, p, k->force, o);
    sl_check_pooled_free(p);
    return SL_OK;
}
