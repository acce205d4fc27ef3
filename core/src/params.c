#include "starling/params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shortest of %.15g..%.17g that reads back as the same double, so that
 * messages say 0.1 and 1e+300 rather than 0.10000000000000001. */
void sl_fmt_num(char *buf, size_t cap, double v)
{
    if (isnan(v)) { /* the sign of a NaN says nothing to a reader */
        snprintf(buf, cap, "nan");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (!isfinite(v) || strtod(buf, NULL) == v)
            return;
    }
}

sl_status sl_params_init(sl_param_values *pv, const sl_param *schema, size_t n)
{
    if (n > SL_PARAMS_MAX)
        return sl_fail(SL_ERR_INTERNAL, "schema has %zu parameters; at most %d are supported",
                       n, SL_PARAMS_MAX);
    memset(pv, 0, sizeof *pv);
    pv->schema = schema;
    pv->n = n;
    for (size_t i = 0; i < n; i++)
        pv->v[i] = schema[i].def;
    return SL_OK;
}

/* A word key: words listed, none empty or repeated, a default among them. */
static sl_status word_problem(const sl_param *p)
{
    size_t n = sl_param_word_count(p);
    if (n == 0)
        return sl_fail(SL_ERR_ARG, "key '%s' is a word but lists no words", p->name);
    for (size_t i = 0; i < n; i++) {
        if (!*p->words[i])
            return sl_fail(SL_ERR_ARG, "key '%s': word %zu is empty", p->name, i + 1);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(p->words[k], p->words[i]))
                return sl_fail(SL_ERR_ARG, "key '%s': word \"%s\" is listed twice", p->name,
                               p->words[i]);
    }
    if (p->required || isnan(p->def) || sl_param_word(p, p->def))
        return SL_OK;
    char d[32];
    sl_fmt_num(d, sizeof d, p->def);
    return sl_fail(SL_ERR_ARG, "key '%s': default %s is not the index of one of its %zu words",
                   p->name, d, n);
}

/* The first thing wrong with key i, or SL_OK. */
static sl_status key_problem(const sl_param *s, size_t i)
{
    const sl_param *p = &s[i];
    char d[32], lo[32], hi[32];
    if (!p->name || !*p->name)
        return sl_fail(SL_ERR_ARG, "parameter %zu has no name", i + 1);
    for (size_t k = 0; k < i; k++)
        if (s[k].name && strcmp(s[k].name, p->name) == 0)
            return sl_fail(SL_ERR_ARG, "key '%s' is declared twice", p->name);
    if (p->type != SL_PARAM_NUMBER && p->type != SL_PARAM_INTEGER && p->type != SL_PARAM_BOOL &&
        p->type != SL_PARAM_WORD)
        return sl_fail(SL_ERR_ARG, "key '%s' has unknown type %d", p->name, (int)p->type);
    if (p->type == SL_PARAM_WORD)
        return word_problem(p);
    sl_fmt_num(d, sizeof d, p->def);
    sl_fmt_num(lo, sizeof lo, p->min);
    sl_fmt_num(hi, sizeof hi, p->max);
    if (!(p->min <= p->max))
        return sl_fail(SL_ERR_ARG, "key '%s': min %s > max %s", p->name, lo, hi);
    if (p->required || isnan(p->def)) /* NaN: "automatic", decided by the plugin */
        return SL_OK;
    if (!(p->def >= p->min && p->def <= p->max))
        return sl_fail(SL_ERR_ARG, "key '%s': default %s outside [%s, %s]", p->name, d, lo, hi);
    if (p->type == SL_PARAM_INTEGER && p->def != floor(p->def))
        return sl_fail(SL_ERR_ARG, "key '%s': integer with default %s", p->name, d);
    if (p->type == SL_PARAM_BOOL && p->def != 0.0 && p->def != 1.0)
        return sl_fail(SL_ERR_ARG, "key '%s': boolean with default %s", p->name, d);
    return SL_OK;
}

sl_status sl_params_check_schema(const sl_param *schema, size_t n)
{
    if (n > SL_PARAMS_MAX)
        return sl_fail(SL_ERR_ARG, "%zu keys; at most %d are supported", n, SL_PARAMS_MAX);
    if (n > 0 && !schema)
        return sl_fail(SL_ERR_ARG, "n_params is %zu but params is NULL", n);
    for (size_t i = 0; i < n; i++) {
        sl_status st = key_problem(schema, i);
        if (st)
            return st;
    }
    return SL_OK;
}

const sl_param *sl_params_find(const sl_param *schema, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(schema[i].name, name) == 0)
            return &schema[i];
    return NULL;
}

size_t sl_param_word_count(const sl_param *p)
{
    size_t n = 0;
    while (p->type == SL_PARAM_WORD && p->words && p->words[n])
        n++;
    return n;
}

const char *sl_param_word(const sl_param *p, double v)
{
    size_t n = sl_param_word_count(p);
    return v >= 0 && v < (double)n && v == floor(v) ? p->words[(size_t)v] : NULL;
}

/* "\"double\", \"mixed\"" */
static void list_words(const sl_param *p, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sl_param_word_count(p) && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s\"%s\"", i ? ", " : "", p->words[i]);
}

void sl_param_expectation(const sl_param *p, char *buf, size_t cap)
{
    switch (p->type) {
    case SL_PARAM_BOOL:
        snprintf(buf, cap, "a boolean");
        break;
    case SL_PARAM_WORD: {
        char words[512];
        list_words(p, words, sizeof words);
        snprintf(buf, cap, "one of %s (or 0..%zu)", words, sl_param_word_count(p) - 1);
        break;
    }
    case SL_PARAM_INTEGER:
    default: {
        char lo[32], hi[32];
        sl_fmt_num(lo, sizeof lo, p->min);
        sl_fmt_num(hi, sizeof hi, p->max);
        snprintf(buf, cap, "%s in [%s, %s]",
                 p->type == SL_PARAM_INTEGER ? "an integer" : "a finite number", lo, hi);
    }
    }
}

sl_status sl_params_set(sl_param_values *pv, const char *name, double value)
{
    const sl_param *p = sl_params_find(pv->schema, pv->n, name);
    if (!p)
        return sl_fail(SL_ERR_ARG, "unknown key '%s'", name);
    int ok = isfinite(value) && value >= p->min && value <= p->max;
    if (p->type == SL_PARAM_INTEGER && ok)
        ok = value == floor(value);
    if (p->type == SL_PARAM_BOOL)
        ok = value == 0.0 || value == 1.0;
    if (p->type == SL_PARAM_WORD)
        ok = sl_param_word(p, value) != NULL;
    if (!ok) {
        char want[640], got[32];
        sl_param_expectation(p, want, sizeof want);
        sl_fmt_num(got, sizeof got, value);
        return sl_fail(SL_ERR_ARG, "key '%s' = %s: expected %s", name, got, want);
    }
    size_t i = (size_t)(p - pv->schema);
    pv->v[i] = value;
    pv->given[i] = 1;
    return SL_OK;
}

sl_status sl_params_set_word(sl_param_values *pv, const char *name, const char *word)
{
    const sl_param *p = sl_params_find(pv->schema, pv->n, name);
    if (!p)
        return sl_fail(SL_ERR_ARG, "unknown key '%s'", name);
    char want[640];
    sl_param_expectation(p, want, sizeof want);
    for (size_t i = 0; word && i < sl_param_word_count(p); i++)
        if (!strcmp(word, p->words[i]))
            return sl_params_set(pv, name, (double)i);
    return sl_fail(SL_ERR_ARG, "key '%s' = \"%.40s\": expected %s", name, word ? word : "(null)",
                   want);
}

sl_status sl_params_complete(const sl_param_values *pv)
{
    for (size_t i = 0; i < pv->n; i++)
        if (pv->schema[i].required && !pv->given[i])
            return sl_fail(SL_ERR_ARG, "key '%s' is required (%s)", pv->schema[i].name,
                           pv->schema[i].doc ? pv->schema[i].doc : "no default");
    return SL_OK;
}

double sl_params_get(const sl_param_values *pv, const char *name)
{
    const sl_param *p = sl_params_find(pv->schema, pv->n, name);
    return p ? pv->v[p - pv->schema] : NAN;
}
