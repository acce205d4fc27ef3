/* The terms a run adds to Newtonian gravity: gr (the post-Newtonian
 * potential of Nobili & Roxburgh, REBOUNDx's gr_potential) and j2 (an
 * oblate central body), through the stack newton__gr__j2 that sums them.
 * Its SL_HD functions directly, each term switched on alone and both
 * together (the added terms' gradient, jerk, perturbation part and
 * momentum; the stack's sum against the terms' own), and their physics
 * through every integrator on the CPU: Mercury's relativistic perihelion
 * advance, the nodal regression and apsidal advance of a satellite of an
 * oblate planet, and both at once, against the textbook rates. */
#include "sl_test.h"
#include "slt_force.h"
#include "starling/forces/newton__gr__j2.h"

#define NB 5

typedef void (*acc_fn)(int, int, const double *, const double *, const double *,
                       const double *, double *);
typedef void (*jerk_fn)(int, int, const double *, const double *, const double *,
                        const double *, double *, double *);
typedef double (*pot_fn)(int, int, const double *, const double *, const double *);

typedef struct force_fns {
    const char *name;
    acc_fn acc, perturb;
    jerk_fn jerk;
    pot_fn pot;
    double fp[SL_FORCE_PARAMS_MAX];
} force_fns;

/* Strong terms, so that the added part is a sizeable fraction of the
 * whole: c = 2 (gr), J2 R^2 = 0.1 (j2). The stack's slots: 1/c^2, J2 R^2,
 * then the mask of the terms switched on (gr 1, j2 2). */
static force_fns gr_fns(void)
{
    return (force_fns){"gr", sl_force_newton__gr__j2_acc, sl_force_newton__gr__j2_acc_perturb, sl_force_newton__gr__j2_acc_jerk,
                       sl_force_newton__gr__j2_potential, {0.25, 0.0, 1.0}};
}

static force_fns j2_fns(void)
{
    return (force_fns){"j2", sl_force_newton__gr__j2_acc, sl_force_newton__gr__j2_acc_perturb, sl_force_newton__gr__j2_acc_jerk,
                       sl_force_newton__gr__j2_potential, {0.0, 0.1, 2.0}};
}

static force_fns both_fns(void)
{
    force_fns f = gr_fns();
    f.name = "gr + j2";
    f.fp[1] = 0.1;
    f.fp[2] = 3.0;
    return f;
}

/* A heavy body 0 off the origin and four light bodies around it, moving. */
static void bodies(double x[3 * NB], double v[3 * NB], double m[NB])
{
    static const double xs[3 * NB] = {0.1,  -0.2, 0.05, 1.1, 0.3,  0.4,  -0.7, 1.3,
                                      -0.5, 0.2,  -1.6, 0.9, -2.1, -0.8, -1.2};
    static const double vs[3 * NB] = {0.01, 0.02,  -0.01, -0.3, 0.9,  0.2,  -0.6, -0.4,
                                      0.3,  0.75, 0.1,   -0.2, 0.35, -0.5, 0.45};
    static const double ms[NB] = {1.0, 1e-3, 3e-4, 2e-3, 5e-4};
    memcpy(x, xs, sizeof xs);
    memcpy(v, vs, sizeof vs);
    memcpy(m, ms, sizeof ms);
}

/* What the force adds to Newton's accelerations (and jerks). */
static void added(const force_fns *f, const double *x, const double *v, const double *m,
                  double *a, double *j)
{
    double an[3 * NB], jn[3 * NB], fp0[SL_FORCE_PARAMS_MAX] = {0};
    f->jerk(NB, 1, x, v, m, f->fp, a, j);
    sl_force_newton_acc_jerk(NB, 1, x, v, m, fp0, an, jn);
    for (int k = 0; k < 3 * NB; k++) {
        a[k] -= an[k];
        j[k] -= jn[k];
    }
}

static double max_abs(const double *a, int n)
{
    double r = 0;
    for (int k = 0; k < n; k++)
        r = fmax(r, fabs(a[k]));
    return r;
}

/* The added acceleration is minus the gradient of the added potential over
 * the mass (central differences), and acc agrees with acc_jerk. */
static void gradient(force_fns f)
{
    double x[3 * NB], v[3 * NB], m[NB], a[3 * NB], j[3 * NB], a1[3 * NB], d = 0;
    bodies(x, v, m);
    added(&f, x, v, m, a, j);
    f.acc(NB, 1, x, v, m, f.fp, a1);
    double an[3 * NB], fp0[SL_FORCE_PARAMS_MAX] = {0};
    sl_force_newton_acc(NB, 1, x, v, m, fp0, an);
    const double h = 1e-6;
    for (int k = 0; k < 3 * NB; k++) {
        cr_assert(fabs(a1[k] - an[k] - a[k]) <= 1e-15 * fabs(a1[k]) + 1e-300,
                  "%s: acc and acc_jerk differ at %d", f.name, k);
        double keep = x[k];
        x[k] = keep + h;
        double up = f.pot(NB, 1, x, m, f.fp) - sl_force_newton_potential(NB, 1, x, m, fp0);
        x[k] = keep - h;
        double down = f.pot(NB, 1, x, m, f.fp) - sl_force_newton_potential(NB, 1, x, m, fp0);
        x[k] = keep;
        d = fmax(d, fabs(-(up - down) / (2 * h) / m[k / 3] - a[k]));
    }
    double rel = d / max_abs(a, 3 * NB);
    cr_log_info("%s: |added acc + grad(added U)/m| / max|added acc| = %.2g", f.name, rel);
    cr_assert(max_abs(a, 3 * NB) > 1e-3, "%s: the added term is too weak to test", f.name);
    cr_assert(rel < 1e-7, "%s: the added acceleration is not the potential's gradient (%.3g)",
              f.name, rel);
}

Test(forces, gr_is_the_gradient_of_its_potential) { gradient(gr_fns()); }
Test(forces, j2_is_the_gradient_of_its_potential) { gradient(j2_fns()); }
Test(forces, gr_and_j2_are_the_gradient_of_their_potential) { gradient(both_fns()); }

/* The jerk is the time derivative of the acceleration along x + v t. */
static void jerk(force_fns f)
{
    double x[3 * NB], v[3 * NB], m[NB], a[3 * NB], j[3 * NB], ap[3 * NB], am[3 * NB],
        xs[3 * NB], d = 0;
    bodies(x, v, m);
    added(&f, x, v, m, a, j);
    const double h = 1e-5;
    double jn[3 * NB];
    for (int k = 0; k < 3 * NB; k++)
        xs[k] = x[k] + h * v[k];
    added(&f, xs, v, m, ap, jn);
    for (int k = 0; k < 3 * NB; k++)
        xs[k] = x[k] - h * v[k];
    added(&f, xs, v, m, am, jn);
    for (int k = 0; k < 3 * NB; k++)
        d = fmax(d, fabs((ap[k] - am[k]) / (2 * h) - j[k]));
    double rel = d / max_abs(j, 3 * NB);
    cr_log_info("%s: |added jerk - d(added acc)/dt| / max|added jerk| = %.2g", f.name, rel);
    cr_assert(max_abs(j, 3 * NB) > 1e-3, "%s: the added jerk is too weak to test", f.name);
    cr_assert(rel < 1e-7, "%s: the jerk is not the acceleration's derivative (%.3g)", f.name,
              rel);
}

Test(forces, gr_jerk_is_the_derivative) { jerk(gr_fns()); }
Test(forces, j2_jerk_is_the_derivative) { jerk(j2_fns()); }
Test(forces, gr_and_j2_jerk_is_the_derivative) { jerk(both_fns()); }

typedef void (*acc_at_fn)(int, const double *, const double *, const double *, const double *,
                          int, double *);
typedef void (*jerk_at_fn)(int, const double *, const double *, const double *,
                           const double *, int, double *, double *);

/* The pull on one body (acc_at, acc_jerk_at: what the grouped CUDA kernels
 * call) is that body's row of the whole force, to rounding (the sums run in
 * another order), body 0's reaction to the added term included. */
static void one_body(const char *name, acc_fn acc, jerk_fn jerk, acc_at_fn acc_at,
                     jerk_at_fn jerk_at, const double *fp)
{
    double x[3 * NB], v[3 * NB], m[NB], a[3 * NB], j[3 * NB], a2[3 * NB];
    bodies(x, v, m);
    jerk(NB, 1, x, v, m, fp, a, j);
    acc(NB, 1, x, v, m, fp, a2);
    for (int i = 0; i < NB; i++) {
        double ai[3] = {0}, aj[3] = {0}, jj[3] = {0};
        acc_at(NB, x, v, m, fp, i, ai);
        jerk_at(NB, x, v, m, fp, i, aj, jj);
        double sa = max_abs(a + 3 * i, 3), sj = max_abs(j + 3 * i, 3);
        for (int c = 0; c < 3; c++) {
            cr_assert(fabs(ai[c] - a2[3 * i + c]) <= 1e-13 * sa,
                      "%s: acc_at(%d)[%d] = %.17g, acc's row %.17g", name, i, c, ai[c],
                      a2[3 * i + c]);
            cr_assert(fabs(aj[c] - a[3 * i + c]) <= 1e-13 * sa,
                      "%s: acc_jerk_at(%d) acc[%d] = %.17g, acc_jerk's row %.17g", name, i, c,
                      aj[c], a[3 * i + c]);
            cr_assert(fabs(jj[c] - j[3 * i + c]) <= 1e-13 * sj,
                      "%s: acc_jerk_at(%d) jerk[%d] = %.17g, acc_jerk's row %.17g", name, i, c,
                      jj[c], j[3 * i + c]);
        }
    }
}

Test(forces, newton_pull_on_one_body)
{
    const double fp[SL_FORCE_PARAMS_MAX] = {0};
    one_body("newton", sl_force_newton_acc, sl_force_newton_acc_jerk, sl_force_newton_acc_at,
             sl_force_newton_acc_jerk_at, fp);
}

Test(forces, gr_and_j2_pull_on_one_body)
{
    force_fns f = both_fns();
    one_body("gr + j2", f.acc, f.jerk, sl_force_newton__gr__j2_acc_at,
             sl_force_newton__gr__j2_acc_jerk_at, f.fp);
}

Test(forces, gr_pull_on_one_body)
{
    force_fns f = gr_fns();
    one_body("gr", f.acc, f.jerk, sl_force_newton__gr__j2_acc_at, sl_force_newton__gr__j2_acc_jerk_at, f.fp);
}

Test(forces, j2_pull_on_one_body)
{
    force_fns f = j2_fns();
    one_body("j2", f.acc, f.jerk, sl_force_newton__gr__j2_acc_at, sl_force_newton__gr__j2_acc_jerk_at, f.fp);
}

/* acc_perturb_at (what mvs's grouped CUDA kernel calls, a thread per
 * planet) is acc_perturb's row for every planet i >= 1, to rounding. */
static void one_planet(const char *name, acc_fn perturb, acc_at_fn perturb_at, const double *fp)
{
    double x[3 * NB], v[3 * NB], m[NB], a[3 * NB];
    bodies(x, v, m);
    perturb(NB, 1, x, v, m, fp, a);
    for (int i = 1; i < NB; i++) {
        double ai[3] = {0};
        perturb_at(NB, x, v, m, fp, i, ai);
        double sa = max_abs(a + 3 * i, 3);
        cr_assert(sa > 0.0, "%s: planet %d feels no perturbation", name, i);
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(ai[c] - a[3 * i + c]) <= 1e-13 * sa,
                      "%s: acc_perturb_at(%d)[%d] = %.17g, acc_perturb's row %.17g", name, i,
                      c, ai[c], a[3 * i + c]);
    }
}

Test(forces, newton_perturbation_on_one_planet)
{
    const double fp[SL_FORCE_PARAMS_MAX] = {0};
    one_planet("newton", sl_force_newton_acc_perturb, sl_force_newton_acc_perturb_at, fp);
}

Test(forces, gr_and_j2_perturbation_on_one_planet)
{
    force_fns f = both_fns();
    one_planet("gr + j2", f.perturb, sl_force_newton__gr__j2_acc_perturb_at, f.fp);
}

Test(forces, gr_perturbation_on_one_planet)
{
    force_fns f = gr_fns();
    one_planet("gr", f.perturb, sl_force_newton__gr__j2_acc_perturb_at, f.fp);
}

Test(forces, j2_perturbation_on_one_planet)
{
    force_fns f = j2_fns();
    one_planet("j2", f.perturb, sl_force_newton__gr__j2_acc_perturb_at, f.fp);
}

/* The pair terms summed the way the grouped kernel sums them at one body
 * per thread (internal/group.h): body g evaluates pairs (g, g + k mod n),
 * k = 1..n/2, keeps m_o t and gives -m_g t to the other body, except the
 * pair n/2 apart of an even n, which both evaluate. They add up to
 * acc_jerk, for odd n (each pair once) and even n. */
static void pairs_like_the_group(int n)
{
    double x[3 * NB], v[3 * NB], m[NB], a[3 * NB], j[3 * NB], s[6 * NB] = {0};
    const double fp[SL_FORCE_PARAMS_MAX] = {0};
    bodies(x, v, m);
    sl_force_newton_acc_jerk(n, 1, x, v, m, fp, a, j);
    for (int g = 0; g < n; g++)
        for (int k = 1; 2 * k <= n; k++) {
            const int o = (g + k) % n;
            double d[3], du[3], t[6], ta[3];
            for (int c = 0; c < 3; c++) {
                d[c] = x[3 * o + c] - x[3 * g + c];
                du[c] = v[3 * o + c] - v[3 * g + c];
            }
            sl_force_newton_pair_jerk(d, du, fp, t);
            sl_force_newton_pair(d, du, fp, ta);
            for (int c = 0; c < 3; c++)
                cr_assert_eq(ta[c], t[c], "pair and pair_jerk's pulls differ");
            for (int c = 0; c < 6; c++) {
                s[6 * g + c] += m[o] * t[c];
                if (2 * k != n)
                    s[6 * o + c] -= m[g] * t[c];
            }
        }
    for (int i = 0; i < n; i++) {
        double sa = max_abs(a + 3 * i, 3), sj = max_abs(j + 3 * i, 3);
        for (int c = 0; c < 3; c++) {
            cr_assert(fabs(s[6 * i + c] - a[3 * i + c]) <= 1e-13 * sa,
                      "n = %d: pulls summed by pairs, body %d [%d]: %.17g, acc_jerk %.17g", n,
                      i, c, s[6 * i + c], a[3 * i + c]);
            cr_assert(fabs(s[6 * i + 3 + c] - j[3 * i + c]) <= 1e-13 * sj,
                      "n = %d: jerks summed by pairs, body %d [%d]: %.17g, acc_jerk %.17g", n,
                      i, c, s[6 * i + 3 + c], j[3 * i + c]);
        }
    }
}

Test(forces, newton_pair_terms_add_up_as_the_group_sums_them)
{
    pairs_like_the_group(NB);
    pairs_like_the_group(NB - 1);
}

/* The perturbation part is the whole force less body 0's Newtonian pull on
 * the others, body 0's row zero; the whole conserves momentum. */
static void perturbation(force_fns f)
{
    double x[3 * NB], v[3 * NB], m[NB], a[3 * NB], p[3 * NB];
    bodies(x, v, m);
    f.acc(NB, 1, x, v, m, f.fp, a);
    f.perturb(NB, 1, x, v, m, f.fp, p);
    for (int c = 0; c < 3; c++)
        cr_assert_eq(p[c], 0.0, "%s: body 0's perturbation row is not zero", f.name);
    double worst = 0, mom[3] = {0, 0, 0};
    for (int i = 1; i < NB; i++) {
        double d[3], r2 = 0;
        for (int c = 0; c < 3; c++) {
            d[c] = x[c] - x[3 * i + c];
            r2 += d[c] * d[c];
        }
        double an = sqrt(a[3 * i] * a[3 * i] + a[3 * i + 1] * a[3 * i + 1] +
                         a[3 * i + 2] * a[3 * i + 2]);
        for (int c = 0; c < 3; c++) {
            double pull = m[0] * d[c] / (r2 * sqrt(r2));
            worst = fmax(worst, fabs(a[3 * i + c] - pull - p[3 * i + c]) / an);
        }
    }
    for (int i = 0; i < NB; i++)
        for (int c = 0; c < 3; c++)
            mom[c] += m[i] * a[3 * i + c];
    cr_assert(worst < 1e-13, "%s: acc_perturb is not acc less body 0's pull (%.3g)", f.name,
              worst);
    cr_assert(max_abs(mom, 3) < 1e-15, "%s: total force %.3g, not 0", f.name, max_abs(mom, 3));
}

Test(forces, gr_perturbation_part) { perturbation(gr_fns()); }
Test(forces, j2_perturbation_part) { perturbation(j2_fns()); }
Test(forces, gr_and_j2_perturbation_part) { perturbation(both_fns()); }

/* The stack with both terms on is Newton's sum plus each term's own (the
 * terms' host functions, force_term.inc), to rounding; with one on, it is
 * Newton plus that term to the bit (the base first, then the term, as a
 * force written by hand would sum them). */
Test(forces, the_stack_is_the_sum_of_its_terms)
{
    double x[3 * NB], v[3 * NB], m[NB], a[3 * NB], j[3 * NB], an[3 * NB], jn[3 * NB];
    double tg[3 * NB], tj[3 * NB], fp0[SL_FORCE_PARAMS_MAX] = {0};
    bodies(x, v, m);
    force_fns f = both_fns();
    const double fg[1] = {0.25}, fj[1] = {0.1};
    f.jerk(NB, 1, x, v, m, f.fp, a, j);
    sl_force_newton_acc_jerk(NB, 1, x, v, m, fp0, an, jn);
    sl_term_gr_acc(NB, 1, x, v, m, fg, tg);
    sl_term_j2_acc(NB, 1, x, v, m, fj, tj);
    double worst = 0, scale = max_abs(a, 3 * NB);
    for (int k = 0; k < 3 * NB; k++)
        worst = fmax(worst, fabs(a[k] - (an[k] + tg[k] + tj[k])));
    cr_log_info("stack - (newton + gr + j2): %.3g of max |a| = %.3g", worst, scale);
    cr_assert(worst <= 4e-16 * scale, "the stack's sum is off by %.3g", worst);
    cr_assert(max_abs(tg, 3 * NB) > 1e-3 && max_abs(tj, 3 * NB) > 1e-3,
              "both terms must weigh in");
    double u = f.pot(NB, 1, x, m, f.fp);
    double us = sl_force_newton_potential(NB, 1, x, m, fp0) +
                sl_term_gr_potential_add(NB, 1, x, m, fg, 0.0) +
                sl_term_j2_potential_add(NB, 1, x, m, fj, 0.0);
    cr_assert(fabs(u - us) <= 4e-16 * fabs(u), "potential %.17g, terms' sum %.17g", u, us);
    /* one term on: newton, then the term's add, bit for bit */
    force_fns g = gr_fns();
    double a1[3 * NB], j1[3 * NB];
    g.jerk(NB, 1, x, v, m, g.fp, a1, j1);
    sl_term_gr_add(NB, 1, x, v, m, fg, an, jn, 1);
    cr_assert(memcmp(a1, an, sizeof a1) == 0 && memcmp(j1, jn, sizeof j1) == 0,
              "newton + gr differs from newton then gr's term");
}

/* ---- physics through the integrators ----------------------------------------------- */

typedef struct orbit_elems {
    double omega, node, a, e, inc;
} orbit_elems;

/* Osculating elements of body 1 about body 0 (gm = m0 + m1). */
static orbit_elems elements(const sl_ensemble *e)
{
    double m0, m1, x0[3], v0[3], x1[3], v1[3], r[3], u[3], h[3], ev[3];
    sl_ensemble_get_body(e, 0, 0, &m0, x0, v0);
    sl_ensemble_get_body(e, 0, 1, &m1, x1, v1);
    double gm = m0 + m1, rr = 0, uu = 0, ru = 0;
    for (int c = 0; c < 3; c++) {
        r[c] = x1[c] - x0[c];
        u[c] = v1[c] - v0[c];
        rr += r[c] * r[c];
        uu += u[c] * u[c];
        ru += r[c] * u[c];
    }
    rr = sqrt(rr);
    h[0] = r[1] * u[2] - r[2] * u[1];
    h[1] = r[2] * u[0] - r[0] * u[2];
    h[2] = r[0] * u[1] - r[1] * u[0];
    for (int c = 0; c < 3; c++)
        ev[c] = ((uu - gm / rr) * r[c] - ru * u[c]) / gm;
    double hn = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
    orbit_elems o;
    o.node = atan2(h[0], -h[1]);
    o.inc = acos(h[2] / hn);
    /* the pericentre's angle from the node, in the orbit's plane */
    double nx = cos(o.node), ny = sin(o.node);
    double ecos = ev[0] * nx + ev[1] * ny;
    double esin = (-ev[0] * ny + ev[1] * nx) * cos(o.inc) + ev[2] * sin(o.inc);
    o.omega = atan2(esin, ecos);
    o.e = sqrt(ev[0] * ev[0] + ev[1] * ev[1] + ev[2] * ev[2]);
    o.a = 1.0 / (2.0 / rr - uu / gm);
    return o;
}

/* Body 1 at pericentre of (a, e) about body 0 (gm = m0 + m1), inclined by
 * inc about the x axis: the node on +x, the pericentre at the node. */
static sl_ensemble *two_body(double m1, double a, double ecc, double inc)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(1, 2, &e));
    double gm = 1.0 + m1, rp = a * (1 - ecc), vp = sqrt(gm * (1 + ecc) / rp);
    double zero[3] = {0, 0, 0}, x[3] = {rp, 0, 0}, v[3] = {0, vp * cos(inc), vp * sin(inc)};
    SLT_OK(sl_ensemble_set_body(e, 0, 0, 1.0, zero, zero));
    SLT_OK(sl_ensemble_set_body(e, 0, 1, m1, x, v));
    sl_ensemble_to_barycentric(e);
    return e;
}

static const void *table(const slt_plugins *p, sl_kind kind, const char *name)
{
    const void *t;
    SLT_OK(sl_registry_get(p->reg, kind, name, &t));
    return t;
}

/* Integrates e with integrator `prop` (step dt) and force `force` (a list
 * joined by '+') with up to three keys set (key NULL: defaults) to t_end
 * on the CPU. */
static void run3(const slt_plugins *p, sl_ensemble *e, const char *prop, double dt,
                 const char *force, const char *k1, double v1, const char *k2, double v2,
                 const char *k3, double v3, double t_end)
{
    sl_run_config c;
    slt_config(p, &c, dt, t_end);
    c.registry = p->reg;
    c.prop = table(p, SL_KIND_PROPAGATOR, prop);
    sl_force_stack st;
    c.force = slt_force(p, force, &st);
    sl_param_values pp, fv;
    SLT_OK(sl_params_init(&pp, c.prop->params, c.prop->n_params));
    SLT_OK(sl_params_set(&pp, "dt", dt));
    SLT_OK(sl_params_complete(&pp));
    SLT_OK(c.prop->pack(&pp, c.pp));
    SLT_OK(sl_params_init(&fv, c.force->params, c.force->n_params));
    if (k1)
        SLT_OK(sl_params_set(&fv, k1, v1));
    if (k2)
        SLT_OK(sl_params_set(&fv, k2, v2));
    if (k3)
        SLT_OK(sl_params_set(&fv, k3, v3));
    SLT_OK(sl_params_complete(&fv));
    SLT_OK(sl_force_pack(c.force, &fv, c.fp));
    c.force_values = &fv;
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result r;
    SLT_OK(sl_integrate(&be, e, &c, &r));
    cr_assert_eq(e->status[0], SL_SYS_ACTIVE, "%s/%s: the system stopped", prop, force);
    sl_run_result_free(&r);
}

static void run(const slt_plugins *p, sl_ensemble *e, const char *prop, double dt,
                const char *force, const char *k1, double v1, const char *k2, double v2,
                double t_end)
{
    run3(p, e, prop, dt, force, k1, v1, k2, v2, NULL, 0.0, t_end);
}

static double wrap(double a)
{
    return atan2(sin(a), cos(a));
}

/* Mercury over ten centuries: the perihelion advances by 6 pi m0 / (c^2 a
 * (1 - e^2)) per orbit, 42.98 arcsec a century. Measured against the same
 * integrator and step without gr, so that each integrator's own small
 * advance (a truncation error) cancels; the osculating pericentre's
 * short-period wobble (~4e-7 rad) is 2e-4 of the advance. */
static void mercury(const char *integrator)
{
    slt_plugins p;
    slt_load(&p);
    const double m1 = 1.6601e-7, a = 0.387098, ecc = 0.205630, century = 100 * 2 * M_PI;
    const double span = 10 * century;
    const double c = 10065.320121, gm = 1.0 + m1;
    double period = 2 * M_PI * sqrt(a * a * a / gm);
    double expect = 6 * M_PI / (c * c * a * (1 - ecc * ecc)) * span / period;
    const double arcsec_cy = 180 / M_PI * 3600 * century / span;
    cr_log_info("expected %.4f arcsec per century", expect * arcsec_cy);
    cr_assert(fabs(expect * arcsec_cy - 42.98) < 0.05, "the textbook value");
    double w[2];
    for (int with = 0; with < 2; with++) {
        sl_ensemble *e = two_body(m1, a, ecc, 0.0);
        run(&p, e, integrator, period / 300, with ? "gr" : "newton", NULL, 0, NULL, 0, span);
        w[with] = elements(e).omega;
        sl_ensemble_destroy(e);
    }
    double got = wrap(w[1] - w[0]);
    cr_log_info("%s: %.4f arcsec per century", integrator, got * arcsec_cy);
    cr_assert(fabs(got / expect - 1) < 2e-3, "%s: perihelion advance %.5g rad, expected %.5g",
              integrator, got, expect);
    slt_unload(&p);
}

/* One test per integrator: they run in parallel, each within its own
 * time limit (the sanitizer build is some 30x slower). */
Test(forces, gr_mercury_mvs, .timeout = 600) { mercury("mvs"); }
Test(forces, gr_mercury_hermite, .timeout = 600) { mercury("hermite"); }
Test(forces, gr_mercury_hermite_adaptive, .timeout = 600) { mercury("hermite_adaptive"); }
Test(forces, gr_mercury_rkck, .timeout = 600) { mercury("rkck"); }
Test(forces, gr_mercury_rkck_adaptive, .timeout = 600) { mercury("rkck_adaptive"); }
Test(forces, gr_mercury_verlet, .timeout = 600) { mercury("verlet"); }

/* A satellite of an oblate planet (J2 = 1e-3, a = 3 R, e = 0.1, i = 30
 * deg) over 200 orbits: the node regresses at 3/2 n J2 (R/p)^2 cos i and
 * the pericentre advances at 3/4 n J2 (R/p)^2 (5 cos^2 i - 1). Short-period
 * terms (J2 (R/a)^2 / e ~ 1e-3 rad in the pericentre) and J2^2 bound the
 * agreement to a few 1e-3. */
static void satellite(const char *integrator)
{
    slt_plugins p;
    slt_load(&p);
    const double m1 = 1e-9, a = 3.0, ecc = 0.1, inc = 30 * M_PI / 180, J2 = 1e-3, R = 1.0;
    const double gm = 1.0 + m1, n = sqrt(gm / (a * a * a)), period = 2 * M_PI / n;
    const double t = 200 * period, pr = R / (a * (1 - ecc * ecc));
    const double node_rate = -1.5 * n * J2 * pr * pr * cos(inc);
    const double peri_rate = 0.75 * n * J2 * pr * pr * (5 * cos(inc) * cos(inc) - 1);
    {
        sl_ensemble *e = two_body(m1, a, ecc, inc), *ne = two_body(m1, a, ecc, inc);
        orbit_elems o0 = elements(e);
        run(&p, e, integrator, period / 200, "j2", "J2", J2, "R", R, t);
        run(&p, ne, integrator, period / 200, "newton", NULL, 0, NULL, 0, t);
        orbit_elems o1 = elements(e), on = elements(ne);
        sl_ensemble_destroy(ne);
        /* the pericentre against the same integrator without j2 (verlet's
         * own advance at this step is 10% of j2's); the node has none */
        double dn = wrap(o1.node - o0.node) / t, dw = wrap(o1.omega - on.omega) / t;
        cr_log_info("%s: node %.5g (expected %.5g), pericentre %.5g (expected %.5g) rad per "
                    "unit time", integrator, dn, node_rate, dw, peri_rate);
        cr_assert(fabs(dn / node_rate - 1) < 5e-3, "%s: nodal rate %.5g, expected %.5g",
                  integrator, dn, node_rate);
        cr_assert(fabs(dw / peri_rate - 1) < 2e-2, "%s: apsidal rate %.5g, expected %.5g",
                  integrator, dw, peri_rate);
        sl_ensemble_destroy(e);
    }
    slt_unload(&p);
}

Test(forces, j2_satellite_mvs, .timeout = 600) { satellite("mvs"); }
Test(forces, j2_satellite_hermite, .timeout = 600) { satellite("hermite"); }
Test(forces, j2_satellite_hermite_adaptive, .timeout = 600) { satellite("hermite_adaptive"); }
Test(forces, j2_satellite_rkck, .timeout = 600) { satellite("rkck"); }
Test(forces, j2_satellite_rkck_adaptive, .timeout = 600) { satellite("rkck_adaptive"); }
Test(forces, j2_satellite_verlet, .timeout = 600) { satellite("verlet"); }

/* Mercury with both terms: GR, and an oblate Sun (J2 = 5e-4, far above
 * the real 2e-7, so that its rates are as large as GR's) on an orbit
 * inclined by 30 degrees, over ten centuries. The node regresses at j2's
 * rate alone; the pericentre advances at GR's plus j2's (each first order
 * in its small parameter, so they add; their product is 1e-10 of either).
 * Against the same integrator and step without either, as above. */
static void mercury_oblate(const char *integrator)
{
    slt_plugins p;
    slt_load(&p);
    const double m1 = 1.6601e-7, a = 0.387098, ecc = 0.205630, inc = 30 * M_PI / 180;
    const double c = 10065.320121, J2 = 5e-4, R = 0.00465047, gm = 1.0 + m1;
    const double span = 1000 * 2 * M_PI, n = sqrt(gm / (a * a * a)), period = 2 * M_PI / n;
    const double pr = R / (a * (1 - ecc * ecc));
    const double gr_rate = 6 * M_PI / (c * c * a * (1 - ecc * ecc)) / period;
    const double node_rate = -1.5 * n * J2 * pr * pr * cos(inc);
    const double peri_rate = gr_rate + 0.75 * n * J2 * pr * pr * (5 * cos(inc) * cos(inc) - 1);
    sl_ensemble *e = two_body(m1, a, ecc, inc), *ne = two_body(m1, a, ecc, inc);
    orbit_elems o0 = elements(e);
    run3(&p, e, integrator, period / 300, "newton+gr+j2", "c", c, "J2", J2, "R", R, span);
    run(&p, ne, integrator, period / 300, "newton", NULL, 0, NULL, 0, span);
    orbit_elems o1 = elements(e), on = elements(ne);
    double dn = wrap(o1.node - o0.node) / span, dw = wrap(o1.omega - on.omega) / span;
    cr_log_info("%s: node %.6g (expected %.6g), pericentre %.6g (expected %.6g: gr %.4g)",
                integrator, dn, node_rate, dw, peri_rate, gr_rate);
    cr_assert(fabs(dn / node_rate - 1) < 2e-3, "%s: nodal rate %.6g, expected %.6g",
              integrator, dn, node_rate);
    cr_assert(fabs(dw / peri_rate - 1) < 2e-3, "%s: apsidal rate %.6g, expected %.6g",
              integrator, dw, peri_rate);
    sl_ensemble_destroy(ne);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

Test(forces, gr_and_j2_mercury_mvs, .timeout = 600) { mercury_oblate("mvs"); }
Test(forces, gr_and_j2_mercury_hermite, .timeout = 600) { mercury_oblate("hermite"); }

/* A list is one base, then terms; the stack with the fewest terms that
 * holds them is picked, and the terms sum in its order. */
Test(forces, lists_resolve_to_a_stack)
{
    slt_plugins p;
    slt_load(&p);
    const sl_force *nw = table(&p, SL_KIND_FORCE, "newton"), *gr = table(&p, SL_KIND_FORCE, "gr");
    const sl_force *j2 = table(&p, SL_KIND_FORCE, "j2");
    const sl_force *pl = table(&p, SL_KIND_FORCE, "plummer");
    const sl_force *stk = table(&p, SL_KIND_FORCE, "newton__gr__j2");
    sl_force_stack st;
    const sl_force *alone[] = {gr};
    SLT_OK(sl_force_stack_resolve(p.reg, alone, 1, &st));
    cr_assert_str_eq(sl_force_stack_label(&st), "newton + gr");
    cr_assert_str_eq(sl_force_stack_table(&st)->name, "newton__gr__j2");
    double fp[SL_FORCE_PARAMS_MAX];
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, sl_force_stack_table(&st)->params,
                          sl_force_stack_table(&st)->n_params));
    SLT_OK(sl_params_set(&pv, "c", 2.0));
    SLT_OK(sl_params_complete(&pv));
    SLT_OK(sl_force_pack(sl_force_stack_table(&st), &pv, fp));
    cr_assert(fp[0] == 0.25 && fp[1] == 0.0 && fp[2] == 1.0, "packed %g %g %g", fp[0], fp[1],
              fp[2]);
    const sl_force *swapped[] = {nw, j2, gr};
    SLT_OK(sl_force_stack_resolve(p.reg, swapped, 3, &st));
    cr_assert_str_eq(sl_force_stack_label(&st), "newton + gr + j2");
    const sl_force *base_only[] = {nw};
    SLT_OK(sl_force_stack_resolve(p.reg, base_only, 1, &st));
    cr_assert_eq(sl_force_stack_table(&st), nw, "a base alone is its own table");
    const sl_force *twice[] = {nw, gr, gr};
    cr_assert_neq(sl_force_stack_resolve(p.reg, twice, 3, &st), SL_OK);
    cr_assert(strstr(sl_last_error(), "'gr' is listed twice"), "%s", sl_last_error());
    const sl_force *late[] = {gr, nw};
    cr_assert_neq(sl_force_stack_resolve(p.reg, late, 2, &st), SL_OK);
    cr_assert(strstr(sl_last_error(), "'newton' (entry 2 of the list) is a base"), "%s",
              sl_last_error());
    const sl_force *none[] = {pl, gr};
    cr_assert_neq(sl_force_stack_resolve(p.reg, none, 2, &st), SL_OK);
    cr_assert(strstr(sl_last_error(), "no stack of kernels sums plummer + gr") &&
                  strstr(sl_last_error(), "newton__gr__j2"),
              "%s", sl_last_error());
    const sl_force *direct[] = {stk};
    cr_assert_neq(sl_force_stack_resolve(p.reg, direct, 1, &st), SL_OK);
    cr_assert(strstr(sl_last_error(), "a stack's kernels"), "%s", sl_last_error());
    slt_unload(&p);
}

/* Bad values are refused before any work, naming the key. */
Test(forces, bad_parameters_are_refused)
{
    slt_plugins p;
    slt_load(&p);
    const sl_force *gr = table(&p, SL_KIND_FORCE, "gr"), *j2 = table(&p, SL_KIND_FORCE, "j2");
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, gr->params, gr->n_params));
    cr_assert_neq(sl_params_set(&pv, "c", 0.0), SL_OK);
    cr_assert(strstr(sl_last_error(), "'c'"), "%s", sl_last_error());
    cr_assert_neq(sl_params_set(&pv, "c", -3e5), SL_OK);
    SLT_OK(sl_params_init(&pv, j2->params, j2->n_params));
    cr_assert_neq(sl_params_set(&pv, "R", -1.0), SL_OK);
    cr_assert(strstr(sl_last_error(), "'R'"), "%s", sl_last_error());
    cr_assert_neq(sl_params_complete(&pv), SL_OK, "J2 and R must be given");
    cr_assert(strstr(sl_last_error(), "J2"), "%s", sl_last_error());
    slt_unload(&p);
}
