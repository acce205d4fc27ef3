/* Parameter schemas: defaults, validation, and error messages that name
 * the key, the value and what was expected. */
#include "sl_test.h"

static const sl_param schema[] = {
    {"dt", SL_PARAM_NUMBER, 0.0, 1e-6, 10.0, 1, "time step", NULL, NULL},
    {"every", SL_PARAM_INTEGER, 100, 1, 1000, 0, "period in steps", NULL, NULL},
    {"on", SL_PARAM_BOOL, 1, 0, 1, 0, "switch", NULL, NULL},
    {"r", SL_PARAM_NUMBER, 2.5, 0.0, 1e300, 0, "radius", NULL, NULL},
};
enum { NS = sizeof schema / sizeof schema[0] };

static void expect_error(sl_param_values *pv, const char *key, double value, const char *const *parts,
                         int n_parts)
{
    double before[SL_PARAMS_MAX];
    memcpy(before, pv->v, sizeof before);
    sl_clear_error();
    sl_status st = sl_params_set(pv, key, value);
    cr_assert_eq(st, SL_ERR_ARG, "%s = %g was accepted", key, value);
    for (int i = 0; i < n_parts; i++)
        cr_assert(strstr(sl_last_error(), parts[i]), "message for %s = %g lacks \"%s\": %s", key,
                  value, parts[i], sl_last_error());
    cr_assert(memcmp(before, pv->v, sizeof before) == 0, "a refused value was stored");
}

Test(params, defaults_and_set)
{
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, schema, NS));
    cr_assert_eq(sl_params_get(&pv, "every"), 100);
    cr_assert_eq(sl_params_get(&pv, "on"), 1);
    cr_assert_eq(sl_params_get(&pv, "r"), 2.5);
    cr_assert(isnan(sl_params_get(&pv, "nokey")));
    for (int i = 0; i < NS; i++)
        cr_assert_eq(pv.given[i], 0);
    /* dt is required */
    cr_assert_eq(sl_params_complete(&pv), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "'dt' is required"), "%s", sl_last_error());
    cr_assert(strstr(sl_last_error(), "time step"), "the doc line helps: %s", sl_last_error());
    SLT_OK(sl_params_set(&pv, "dt", 0.25));
    SLT_OK(sl_params_complete(&pv));
    SLT_OK(sl_params_set(&pv, "every", 7));
    SLT_OK(sl_params_set(&pv, "on", 0));
    SLT_OK(sl_params_set(&pv, "r", 0.0)); /* inclusive bounds */
    SLT_OK(sl_params_set(&pv, "r", 1e300));
    cr_assert_eq(sl_params_get(&pv, "dt"), 0.25);
    cr_assert_eq(sl_params_get(&pv, "every"), 7);
    cr_assert_eq(sl_params_get(&pv, "on"), 0);
    cr_assert_eq(sl_params_get(&pv, "r"), 1e300);
    cr_assert(pv.given[0] && pv.given[1] && pv.given[2] && pv.given[3]);
    cr_assert_eq(sl_params_find(schema, NS, "every"), &schema[1]);
    cr_assert_null(sl_params_find(schema, NS, "Every"));
}

Test(params, errors_name_key_value_and_expectation)
{
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, schema, NS));
    expect_error(&pv, "dt", -1.0, (const char *[]){"'dt'", "-1", "expected a finite number in",
                                                    "1e-06", "10"}, 5);
    expect_error(&pv, "dt", 11.0, (const char *[]){"'dt'", "11", "expected"}, 3);
    expect_error(&pv, "dt", NAN, (const char *[]){"'dt'", "nan", "finite"}, 3);
    expect_error(&pv, "dt", INFINITY, (const char *[]){"'dt'", "inf", "finite"}, 3);
    expect_error(&pv, "every", 2.5, (const char *[]){"'every'", "2.5", "an integer in [1, 1000]"}, 3);
    expect_error(&pv, "every", 0, (const char *[]){"'every'", "= 0", "an integer"}, 3);
    expect_error(&pv, "on", 0.5, (const char *[]){"'on'", "0.5", "a boolean"}, 3);
    expect_error(&pv, "on", 2, (const char *[]){"'on'", "2", "a boolean"}, 3);
    expect_error(&pv, "radius", 1, (const char *[]){"unknown key 'radius'"}, 1);
    /* values read as written, not as their 17-digit expansion */
    expect_error(&pv, "every", 0.1, (const char *[]){"'every' = 0.1: expected"}, 1);
    cr_assert(!strstr(sl_last_error(), "0.1000000"), "%s", sl_last_error());
}

Test(params, expectation_text)
{
    char buf[128];
    sl_param_expectation(&schema[1], buf, sizeof buf);
    cr_assert_str_eq(buf, "an integer in [1, 1000]");
    sl_param_expectation(&schema[2], buf, sizeof buf);
    cr_assert_str_eq(buf, "a boolean");
    sl_param_expectation(&schema[3], buf, sizeof buf);
    cr_assert(strstr(buf, "a finite number in [0, 1e+300]"), "%s", buf);
}

Test(params, schema_too_large)
{
    sl_param big[SL_PARAMS_MAX + 1];
    memset(big, 0, sizeof big);
    sl_param_values pv;
    cr_assert_neq(sl_params_init(&pv, big, SL_PARAMS_MAX + 1), SL_OK);
    char want[64];
    snprintf(want, sizeof want, "%d parameters", SL_PARAMS_MAX + 1);
    cr_assert(strstr(sl_last_error(), want), "%s", sl_last_error());
    SLT_OK(sl_params_init(&pv, big, SL_PARAMS_MAX));
}

/* Every real plugin's schema is usable: defaults lie within bounds (or are
 * NaN with a def_doc saying what the plugin computes) and every key has a
 * doc line. */
Test(params, plugin_schemas_are_consistent)
{
    slt_plugins p;
    slt_load(&p);
    size_t checked = 0;
    for (size_t i = 0; i < sl_registry_count(p.reg); i++) {
        const sl_registry_item *it = sl_registry_at(p.reg, i);
        const sl_param *ps = NULL;
        size_t n = 0;
        if (it->kind == SL_KIND_PROPAGATOR)
            ps = ((const sl_propagator *)it->table)->params, n = ((const sl_propagator *)it->table)->n_params;
        else if (it->kind == SL_KIND_FORCE)
            ps = ((const sl_force *)it->table)->params, n = ((const sl_force *)it->table)->n_params;
        else if (it->kind == SL_KIND_MONITOR)
            ps = ((const sl_monitor *)it->table)->params, n = ((const sl_monitor *)it->table)->n_params;
        cr_assert(n <= SL_PARAMS_MAX);
        for (size_t k = 0; k < n; k++) {
            const sl_param *q = &ps[k];
            cr_assert(q->min <= q->max, "%s.%s bounds", it->name, q->name);
            cr_assert_not_null(q->doc, "%s.%s has no doc line", it->name, q->name);
            /* NaN with def_doc: a default the plugin computes (params.h) */
            if (isnan(q->def))
                cr_assert(q->required || q->def_doc, "%s.%s: NaN default without def_doc",
                          it->name, q->name);
            else if (!q->required)
                cr_assert(q->def >= q->min && q->def <= q->max, "%s.%s default %g outside [%g, %g]",
                          it->name, q->name, q->def, q->min, q->max);
            checked++;
        }
    }
    cr_assert(checked >= 10, "only %zu parameters found", checked);
    slt_unload(&p);
}

/* The monitor plugins' own validation: 'log' needs every or dt. */
Test(params, log_monitor_needs_a_period)
{
    slt_plugins p;
    slt_load(&p);
    const sl_monitor *m = sl_registry_find(p.reg, SL_KIND_MONITOR, "log");
    cr_assert_not_null(m);
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, m->params, m->n_params));
    sl_monitor_config mc;
    sl_monitor_config_default(&mc);
    cr_assert_eq(m->configure(&pv, &mc), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "'every'") && strstr(sl_last_error(), "'dt'"), "%s",
              sl_last_error());
    const sl_monitor *en = sl_registry_find(p.reg, SL_KIND_MONITOR, "energy");
    SLT_OK(sl_params_init(&pv, en->params, en->n_params));
    cr_assert_eq(sl_params_complete(&pv), SL_ERR_ARG, "energy's 'max' is required");
    cr_assert(strstr(sl_last_error(), "'max'"), "%s", sl_last_error());
    slt_unload(&p);
}

/* sl_integrate refuses bad run settings before doing any work. */
Test(params, integrate_refuses_bad_config)
{
    slt_plugins p;
    slt_load(&p);
    sl_ensemble *e;
    SLT_OK(sl_ensemble_create(2, 3, &e));
    sl_backend be;
    SLT_OK(sl_backend_open("cpu", &be));
    sl_run_result res;
    sl_run_config c;
    slt_config(&p, &c, 0.01, NAN);
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "t_end"), "%s", sl_last_error());

    slt_config(&p, &c, 0.01, 1.0);
    c.pp[0] = 0.0;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "dt"), "%s", sl_last_error());

    slt_config(&p, &c, 0.01, 1.0);
    c.max_steps = -1;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "max_steps"), "%s", sl_last_error());

    slt_config(&p, &c, 0.01, 1.0);
    c.mon.check_every = 0;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_ERR_ARG);

    slt_config(&p, &c, 0.01, 1.0);
    c.force = NULL;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_ERR_ARG);
    cr_assert(strstr(sl_last_error(), "force"), "%s", sl_last_error());

    /* a force the integrator was not built for */
    sl_force other = *p.newton;
    other.name = "gr";
    slt_config(&p, &c, 0.01, 1.0);
    c.force = &other;
    cr_assert_eq(sl_integrate(&be, e, &c, &res), SL_ERR_UNSUPPORTED);
    cr_assert(strstr(sl_last_error(), "'hermite'") && strstr(sl_last_error(), "'gr'"), "%s",
              sl_last_error());
    for (int s = 0; s < 2; s++)
        cr_assert_eq(e->steps[s], 0);
    sl_ensemble_destroy(e);
    slt_unload(&p);
}

/* ---- word keys (SL_PARAM_WORD) ------------------------------------------- */

static const char *const prec_words[] = {"double", "mixed", NULL};
static const sl_param word_schema[] = {
    {"precision", SL_PARAM_WORD, 0, 0, 0, 0, "how", prec_words, NULL},
    {"epoch", SL_PARAM_NUMBER, NAN, -1e300, 1e300, 0, "when", NULL, "the earliest time"},
};

Test(params, word_keys_take_words_and_store_the_index)
{
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, word_schema, 2));
    cr_assert_eq(sl_params_get(&pv, "precision"), 0);
    SLT_OK(sl_params_set_word(&pv, "precision", "mixed"));
    cr_assert_eq(sl_params_get(&pv, "precision"), 1);
    cr_assert(pv.given[0]);
    cr_assert_str_eq(sl_param_word(&word_schema[0], pv.v[0]), "mixed");
    SLT_OK(sl_params_set(&pv, "precision", 0)); /* C passes the index */
    cr_assert_str_eq(sl_param_word(&word_schema[0], pv.v[0]), "double");
    cr_assert_eq(sl_param_word_count(&word_schema[0]), 2);
    cr_assert_eq(sl_param_word_count(&word_schema[1]), 0);
    cr_assert_null(sl_param_word(&word_schema[0], 2));
    cr_assert_null(sl_param_word(&word_schema[0], 0.5));
}

Test(params, word_errors_list_the_words)
{
    sl_param_values pv;
    SLT_OK(sl_params_init(&pv, word_schema, 2));
    const char *want = "key 'precision' = \"single\": expected one of \"double\", \"mixed\" "
                       "(or 0..1)";
    cr_assert_eq(sl_params_set_word(&pv, "precision", "single"), SL_ERR_ARG);
    cr_assert_str_eq(sl_last_error(), want);
    cr_assert_eq(sl_params_set_word(&pv, "precision", "Double"), SL_ERR_ARG, "case matters");
    expect_error(&pv, "precision", 2, (const char *[]){"'precision' = 2",
                 "expected one of \"double\", \"mixed\""}, 2);
    expect_error(&pv, "precision", 0.5, (const char *[]){"'precision' = 0.5"}, 1);
    expect_error(&pv, "precision", -1, (const char *[]){"'precision' = -1"}, 1);
    expect_error(&pv, "precision", NAN, (const char *[]){"'precision' = nan"}, 1);
    cr_assert_eq(pv.v[0], 0, "nothing stored");
    char buf[256];
    sl_param_expectation(&word_schema[0], buf, sizeof buf);
    cr_assert_str_eq(buf, "one of \"double\", \"mixed\" (or 0..1)");
}

/* The registry's check of a schema (sl_params_check_schema). */
static void expect_schema_refused(const sl_param *s, size_t n, const char *phrase)
{
    sl_clear_error();
    cr_assert_eq(sl_params_check_schema(s, n), SL_ERR_ARG, "accepted: expected \"%s\"", phrase);
    cr_assert(strstr(sl_last_error(), phrase), "\"%s\" not in: %s", phrase, sl_last_error());
}

Test(params, schema_check)
{
    SLT_OK(sl_params_check_schema(schema, NS));
    SLT_OK(sl_params_check_schema(word_schema, 2)); /* NaN default with def_doc */
    SLT_OK(sl_params_check_schema(NULL, 0));
    static const char *const none[] = {NULL};
    static const char *const twice[] = {"a", "b", "a", NULL};
    static const char *const empty[] = {"a", "", NULL};
    const sl_param no_words[] = {{"w", SL_PARAM_WORD, 0, 0, 0, 0, "", none, NULL}};
    const sl_param null_words[] = {{"w", SL_PARAM_WORD, 0, 0, 0, 0, "", NULL, NULL}};
    const sl_param rep_words[] = {{"w", SL_PARAM_WORD, 0, 0, 0, 0, "", twice, NULL}};
    const sl_param empty_word[] = {{"w", SL_PARAM_WORD, 0, 0, 0, 0, "", empty, NULL}};
    const sl_param bad_index[] = {{"w", SL_PARAM_WORD, 2, 0, 0, 0, "", prec_words, NULL}};
    const sl_param out[] = {{"x", SL_PARAM_NUMBER, 5, 0, 1, 0, "", NULL, NULL}};
    const sl_param bad_int[] = {{"n", SL_PARAM_INTEGER, 0.5, 0, 1, 0, "", NULL, NULL}};
    const sl_param dup[] = {{"x", SL_PARAM_NUMBER, 0, 0, 1, 0, "", NULL, NULL},
                            {"x", SL_PARAM_BOOL, 0, 0, 1, 0, "", NULL, NULL}};
    const sl_param unnamed[] = {{NULL, SL_PARAM_NUMBER, 0, 0, 1, 0, "", NULL, NULL}};
    const sl_param inverted[] = {{"x", SL_PARAM_NUMBER, 0, 1, 0, 0, "", NULL, NULL}};
    const sl_param bad_type[] = {{"x", (sl_param_type)9, 0, 0, 1, 0, "", NULL, NULL}};
    expect_schema_refused(no_words, 1, "key 'w' is a word but lists no words");
    expect_schema_refused(null_words, 1, "key 'w' is a word but lists no words");
    expect_schema_refused(rep_words, 1, "key 'w': word \"a\" is listed twice");
    expect_schema_refused(empty_word, 1, "key 'w': word 2 is empty");
    expect_schema_refused(bad_index, 1,
                          "key 'w': default 2 is not the index of one of its 2 words");
    expect_schema_refused(out, 1, "key 'x': default 5 outside [0, 1]");
    expect_schema_refused(bad_int, 1, "key 'n': integer with default 0.5");
    expect_schema_refused(dup, 2, "key 'x' is declared twice");
    expect_schema_refused(unnamed, 1, "parameter 1 has no name");
    expect_schema_refused(inverted, 1, "key 'x': min 1 > max 0");
    expect_schema_refused(bad_type, 1, "key 'x' has unknown type 9");
    char most[64];
    snprintf(most, sizeof most, "at most %d are supported", SL_PARAMS_MAX);
    expect_schema_refused(schema, SL_PARAMS_MAX + 1, most);
    expect_schema_refused(NULL, 2, "n_params is 2 but params is NULL");
}
