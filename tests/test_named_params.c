/* Named parameters (named_params.h): one list gives the schema, the struct
 * the kernels read and the packing, and the in-tree plugins' kernels read
 * the fields their keys were packed into. */
#include <stddef.h>

#include "sl_test.h"
#include "starling/named_params.h"
#include "starling/integrators/hermite_adaptive.h"
#include "starling/integrators/mvs.h"
#include "starling/integrators/rkck_adaptive.h"

/* Every kind of row, in an order that separates the schema's order from
 * the struct's: a derived value first, a key the kernels read, a key only
 * the pack reads, another derived value. */
#define SLT_PARAMS_demo(ARG, KEY, VAL)                                                      \
    VAL(dt, "the key dt, else 7")                                                          \
    ARG(eta, SL_PARAM_NUMBER, 0.25, 0.0, 1.0, 0, "a factor", NULL, NULL)                   \
    KEY(dt, SL_PARAM_NUMBER, NAN, 1e-300, 1e300, 0, "a step", NULL, "none")                \
    VAL(twice_eta, "2 eta")
SL_PARAMS_PROPAGATOR(slt_demo_params, SLT_PARAMS_demo)
SL_PARAMS_TABLE(slt_demo_params, SLT_PARAMS_demo)

Test(named_params, one_list_gives_schema_struct_and_fill)
{
    cr_assert_eq(SL_PARAMS_N_KEYS(SLT_PARAMS_demo), 2);
    cr_assert_eq(SL_PARAMS_COUNT(SLT_PARAMS_demo), 3);
    /* the schema: the ARG and KEY rows, in list order, fields as written */
    cr_assert_str_eq(slt_demo_params_schema[0].name, "eta");
    cr_assert_eq(slt_demo_params_schema[0].def, 0.25);
    cr_assert_str_eq(slt_demo_params_schema[1].name, "dt");
    cr_assert(isnan(slt_demo_params_schema[1].def));
    cr_assert_str_eq(slt_demo_params_schema[1].def_doc, "none");
    SLT_OK(sl_params_check_schema(slt_demo_params_schema, 2));
    /* the struct: the ARG and VAL rows, in list order */
    cr_assert_eq(offsetof(slt_demo_params, dt), 0 * sizeof(double));
    cr_assert_eq(offsetof(slt_demo_params, eta), 1 * sizeof(double));
    cr_assert_eq(offsetof(slt_demo_params, twice_eta), 2 * sizeof(double));
    /* fill: zeroes the whole vector, copies the ARG keys into their fields */
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, slt_demo_params_schema, 2));
    SLT_OK(sl_params_set(&pv, "eta", 0.5));
    SLT_OK(sl_params_set(&pv, "dt", 3.0));
    double pp[SL_PARAMS_PACKED_ROOM];
    for (int i = 0; i < SL_PARAMS_PACKED_ROOM; i++)
        pp[i] = -1.0;
    slt_demo_params *p = slt_demo_params_fill(&pv, pp);
    cr_assert_eq((void *)p, (void *)pp);
    cr_assert_eq(pp[1], 0.5, "eta is packed into its field's slot");
    cr_assert_eq(pp[0], 0.0, "a VAL field is the pack's to fill: zero until then");
    for (int i = 2; i < SL_PARAMS_PACKED_ROOM; i++)
        cr_assert_eq(pp[i], 0.0, "pp[%d] = %g: fill zeroes the vector", i, pp[i]);
    p->twice_eta = 2.0 * p->eta;
    cr_assert_eq(slt_demo_params_of(pp)->twice_eta, 1.0);
    cr_assert_eq(pp[2], 1.0);
}

Test(named_params, load_reads_a_strided_vector)
{
    enum { S = 4 };
    double fp[3 * S];
    for (int i = 0; i < 3 * S; i++)
        fp[i] = 100.0 + i;
    /* lane 1 of a block strided by S: field k at fp[1 + S k] */
    const slt_demo_params p = slt_demo_params_load(fp + 1, S);
    cr_assert_eq(p.dt, 101.0);
    cr_assert_eq(p.eta, 105.0);
    cr_assert_eq(p.twice_eta, 109.0);
}

/* The in-tree integrators' packs, through their tables: what a key was set
 * to is the field their kernels read. */
static void pack_with(const slt_plugins *P, const char *name, sl_param_values *pv,
                      double pp[SL_PROP_PARAMS_MAX], const char *words[][2], int n_words,
                      const char *nums[], const double *vals, int n_nums)
{
    const void *t;
    SLT_OK(sl_registry_get(P->reg, SL_KIND_PROPAGATOR, name, &t));
    const sl_propagator *prop = t;
    SLT_OK(sl_params_init(pv, prop->params, prop->n_params));
    for (int i = 0; i < n_words; i++)
        SLT_OK(sl_params_set_word(pv, words[i][0], words[i][1]));
    for (int i = 0; i < n_nums; i++)
        SLT_OK(sl_params_set(pv, nums[i], vals[i]));
    SLT_OK(prop->pack(pv, pp));
}

Test(named_params, integrators_pack_keys_into_the_fields_kernels_read)
{
    slt_plugins P;
    slt_load(&P);
    sl_param_values pv;
    double pp[SL_PROP_PARAMS_MAX];

    const char *mw[][2] = {{"coordinates", "jacobi"}};
    const char *mn[] = {"dt", "corrector", "kepler_tol", "min_mass_ratio"};
    const double mv[] = {0.125, 11.0, 1e-8, 20.0};
    pack_with(&P, "mvs", &pv, pp, mw, 1, mn, mv, 4);
    const sl_mvs_params *m = sl_mvs_params_of(pp);
    cr_assert_eq(m->dt, 0.125);
    cr_assert_eq(m->coordinates, 1.0, "jacobi is the word's index 1");
    cr_assert_eq(m->corrector, 11.0);
    cr_assert_eq(m->kepler_tol, 1e-8);
    cr_assert_eq(m->min_mass_ratio, 20.0);
    cr_assert_eq(pp[SL_PP_DT], 0.125, "the loops' step is the field dt");

    const char *hn[] = {"eta"};
    const double hv[] = {0.05};
    pack_with(&P, "hermite_adaptive", &pv, pp, NULL, 0, hn, hv, 1);
    cr_assert_eq(sl_hermite_adaptive_params_of(pp)->eta, 0.05);
    cr_assert_eq(sl_hermite_adaptive_params_of(pp)->dt, DBL_MAX, "no dt: no cap");

    const char *rn[] = {"tol", "dt"};
    const double rv[] = {1e-9, 0.5};
    pack_with(&P, "rkck_adaptive", &pv, pp, NULL, 0, rn, rv, 2);
    const sl_rkck_adaptive_params *r = sl_rkck_adaptive_params_of(pp);
    cr_assert_eq(r->dt, 0.5);
    cr_assert_eq(r->tol, 1e-9);
    cr_assert_eq(r->tol_abs, 1e-9, "tol_abs absent: tol");
    slt_unload(&P);
}
