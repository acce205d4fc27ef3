/* Cases for the kernel contract of issue 9, shared by the CPU suite
 * (test_contract.c) and the GPU suite (test_gpu_composition.c): the
 * slt_mdrift/slt_drag pair of integrators/mass_drift.h, whose results are
 * known in closed form, and plummer softening that differs per system.
 * Include after the kernels of slt_mdrift with slt_drag (starling/kernels.inc
 * with SL_KERNELS_OWN_TABLE). */
#ifndef SLT_CONTRACT_CASES_H
#define SLT_CONTRACT_CASES_H

#include "sl_test.h"
#include "integrators/mass_drift.h"

/* ---- slt_mdrift + slt_drag ---------------------------------------------------- */

static const double SLT_MDRIFT_DT = 0.25;

static sl_status slt_mdrift_pack(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX])
{
    (void)pv;
    for (int i = 0; i < SL_PROP_PARAMS_MAX; i++)
        pp[i] = 0.0;
    pp[0] = SLT_MDRIFT_DT;
    return SL_OK;
}

static const sl_propagator slt_mdrift = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_PROPAGATOR, .name = "slt_mdrift",
    .description = "kicks by the force at m v, drifts x by h m",
    .order = 1, .pack = slt_mdrift_pack, .kernels = sl_kernels_slt_mdrift,
    .n_kernels = sizeof sl_kernels_slt_mdrift / sizeof sl_kernels_slt_mdrift[0], .n_packed = 1,
};

static const sl_param slt_drag_params[] = {
    {.name = "gamma", .type = SL_PARAM_NUMBER, .max = 10.0, .doc = "drag rate"},
};

static sl_status slt_drag_pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    for (int i = 0; i < SL_FORCE_PARAMS_MAX; i++)
        fp[i] = 0.0;
    fp[0] = sl_params_get(pv, "gamma");
    return SL_OK;
}

static void slt_drag_acc(int n, const double *x, const double *v, const double *m,
                         const double *fp, double *a)
{
    sl_force_slt_drag_acc(n, 1, x, v, m, fp, a);
}

static double slt_drag_potential(int n, const double *x, const double *m, const double *fp)
{
    return sl_force_slt_drag_potential(n, 1, x, m, fp);
}

static const sl_force slt_drag = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE, .name = "slt_drag", .description = "a = -gamma v",
    .params = slt_drag_params, .n_params = 1, .pack = slt_drag_pack, .acc = slt_drag_acc,
    .potential = slt_drag_potential, .n_packed = 1,
};

static SLT_UNUSED double slt_gamma_of(int64_t s) { return 0.1 * (double)(1 + s % 5); }
static SLT_UNUSED double slt_mass_of(int b) { return 0.5 + 0.25 * b; }

/* n_sys systems of n bodies, body b of mass 0.5 + b/4 at x = (10 b, s, 0)
 * moving along x at 1 + b; attribute 'gamma' = 0.1 (1 + s mod 5). */
static SLT_UNUSED sl_ensemble *slt_drag_systems(int64_t n_sys, int n)
{
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(n_sys, n, &e));
    int a;
    SLT_OK(sl_ensemble_attr(e, "gamma", &a));
    for (int64_t s = 0; s < n_sys; s++) {
        for (int b = 0; b < n; b++) {
            double x[3] = {10.0 * b, (double)s, 0.0}, v[3] = {1.0 + b, 0.0, 0.0};
            SLT_OK(sl_ensemble_set_body(e, s, b, slt_mass_of(b), x, v));
        }
        e->attr[(size_t)a * (size_t)n_sys + (size_t)s] = slt_gamma_of(s);
    }
    return e;
}

/* A run of slt_mdrift + slt_drag to t_end, gamma from the attribute. */
static SLT_UNUSED void slt_drag_config(sl_run_config *c, sl_param_values *pv, double t_end)
{
    sl_run_config_init(c);
    c->prop = &slt_mdrift;
    c->force = &slt_drag;
    SLT_OK(slt_mdrift.pack(NULL, c->pp));
    SLT_OK(sl_params_init(pv, slt_drag_params, 1));
    SLT_OK(slt_drag_pack(pv, c->fp));
    c->force_values = pv;
    c->t_end = t_end;
}

/* ---- plummer softening per system ---------------------------------------------- */

static SLT_UNUSED double slt_eps_of(int64_t s)
{
    static const double eps[] = {0.0, 0.003, 0.01, 0.05};
    return eps[s % 4];
}
enum { SLT_N_EPS = 4 };

/* Star and planets on close, slightly perturbed orbits (softening shows). */
static SLT_UNUSED sl_ensemble *slt_plummer_systems(int64_t n_sys, int n_body)
{
    sl_test_system_spec sp = {.n_planets = n_body - 1, .planet_mass = 1e-3, .a1 = 0.3,
                              .spacing = 0.15, .perturb = 0.02, .random_phase = 1, .seed = 19};
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&sp, n_sys, &e));
    return e;
}

/* The same kind of systems, well conditioned: planets 1 and 1.5 (and
 * beyond) from the star, no close encounters by t = 10, so a 1-ulp change
 * in a coordinate moves the state ~1e-13 at t = 10 (slt_plummer_systems'
 * close pairs amplify it to ~300 at eps = 0: that set is chaotic, fit for
 * bit-for-bit comparisons of one arithmetic, not for comparing two). */
static SLT_UNUSED sl_ensemble *slt_plummer_calm_systems(int64_t n_sys, int n_body)
{
    sl_test_system_spec sp = {.n_planets = n_body - 1, .planet_mass = 1e-3, .a1 = 1.0,
                              .spacing = 0.5, .perturb = 0.02, .random_phase = 1, .seed = 19};
    sl_ensemble *e;
    SLT_OK(sl_ensemble_test_systems(&sp, n_sys, &e));
    return e;
}

static SLT_UNUSED void slt_set_eps_attr(sl_ensemble *e)
{
    int a;
    SLT_OK(sl_ensemble_attr(e, "eps", &a));
    for (int64_t s = 0; s < e->n_sys; s++)
        e->attr[(size_t)a * (size_t)e->n_sys + (size_t)s] = slt_eps_of(s);
}

/* hermite + plummer from the registry; eps given when eps >= 0, else from
 * the ensemble's attribute. pv must outlive the run. */
static SLT_UNUSED void slt_plummer_config(const slt_plugins *p, sl_run_config *c,
                                          sl_param_values *pv, double eps, double t_end)
{
    slt_config(p, c, 0.01, t_end);
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_FORCE, "plummer", &t));
    c->force = t;
    c->registry = p->reg;
    SLT_OK(sl_params_init(pv, c->force->params, c->force->n_params));
    if (eps >= 0)
        SLT_OK(sl_params_set(pv, "eps", eps));
    SLT_OK(c->force->pack(pv, c->fp));
    c->force_values = pv;
}

#endif
