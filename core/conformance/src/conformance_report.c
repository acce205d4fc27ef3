/* What every kind's checks share: the report, the seed, relative
 * differences, the CUDA backend to compare against, and the schema checks.
 * The kinds' checks (conformance.c, conformance_orbit.c,
 * conformance_data.c) build on these and these on none of them. */
#define _GNU_SOURCE
#include "conformance_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- reports ----------------------------------------------------------------- */

const char *sl_check_result_name(sl_check_result r)
{
    switch (r) {
    case SL_CHECK_PASS: return "PASS";
    case SL_CHECK_FAIL: return "FAIL";
    case SL_CHECK_SKIP: return "SKIP";
    }
    return "????";
}

void sl_check_begin(sl_check_report *r, sl_kind kind, const char *table)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    snprintf(r->table, sizeof r->table, "%s", table ? table : "(unnamed)");
}

void sl_check_add(sl_check_report *r, sl_check_result res, const char *name, const char *fmt, ...)
{
    r->n_pass += res == SL_CHECK_PASS;
    r->n_fail += res == SL_CHECK_FAIL;
    r->n_skip += res == SL_CHECK_SKIP;
    if (r->n >= SL_CHECKS_MAX) {
        r->n_dropped++;
        return;
    }
    sl_check *c = &r->checks[r->n++];
    c->result = res;
    snprintf(c->name, sizeof c->name, "%s", name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof c->detail, fmt, ap);
    va_end(ap);
}

void sl_check_options_default(sl_check_options *o)
{
    memset(o, 0, sizeof *o);
    o->cuda = SL_CHECK_CUDA_AUTO;
    o->seed = SL_CHECK_DEFAULT_SEED;
}

uint64_t sl_check_seed(const sl_check_options *o)
{
    return o && o->seed ? o->seed : SL_CHECK_DEFAULT_SEED;
}

double sl_check_rel(double a, double b, double floor)
{
    if (memcmp(&a, &b, sizeof a) == 0)
        return 0.0;
    if (!isfinite(a) || !isfinite(b))
        return a == b ? 0.0 : INFINITY;
    double s = fmax(fmax(fabs(a), fabs(b)), floor);
    return fabs(a - b) / s;
}

int sl_check_names_key(const char *key)
{
    char quoted[SL_CHECK_NAME_MAX + 4];
    snprintf(quoted, sizeof quoted, "'%s'", key);
    return strstr(sl_last_error(), quoted) != NULL;
}

int sl_check_cuda_backend(const sl_check_options *o, sl_backend *be, sl_check_result *res,
                          char *why, size_t cap)
{
    sl_check_cuda mode = o ? o->cuda : SL_CHECK_CUDA_AUTO;
    if (mode == SL_CHECK_CUDA_OFF) {
        *res = SL_CHECK_SKIP;
        snprintf(why, cap, "CUDA comparisons turned off");
        return 0;
    }
    if (!sl_cuda_built() || sl_cuda_device_count() < 1) {
        *res = mode == SL_CHECK_CUDA_REQUIRE ? SL_CHECK_FAIL : SL_CHECK_SKIP;
        snprintf(why, cap, "no usable CUDA device (starling built with CUDA: %s)",
                 sl_cuda_built() ? "yes" : "no");
        return 0;
    }
    if (sl_backend_open("cuda", be) != SL_OK) {
        *res = SL_CHECK_FAIL;
        snprintf(why, cap, "opening the CUDA backend: %s", sl_last_error());
        return 0;
    }
    return 1;
}

/* ---- parameter schemas -------------------------------------------------------- */

/* Values a key must refuse: NaN, one below its minimum, one above its
 * maximum (where those are representable), 2 for a boolean, -1 and the
 * word count for a word's index. */
static size_t bad_values(const sl_param *p, double *v)
{
    size_t n = 0;
    v[n++] = NAN;
    if (p->type == SL_PARAM_BOOL) {
        v[n++] = 2.0;
        return n;
    }
    if (p->type == SL_PARAM_WORD) {
        v[n++] = -1.0;
        v[n++] = (double)sl_param_word_count(p);
        return n;
    }
    if (p->min > -1e300)
        v[n++] = p->min - (fabs(p->min) + 1.0);
    if (p->max < 1e300)
        v[n++] = p->max + (fabs(p->max) + 1.0);
    return n;
}

static void check_refusals(sl_check_report *r, const char *name, const sl_param *s, size_t n)
{
    size_t tried = 0;
    for (size_t i = 0; i < n; i++) {
        double bad[3];
        size_t nb = bad_values(&s[i], bad);
        for (size_t k = 0; k < nb; k++, tried++) {
            sl_param_values pv;
            if (sl_params_init(&pv, s, n) != SL_OK) {
                sl_check_add(r, SL_CHECK_FAIL, name, "%s", sl_last_error());
                return;
            }
            sl_clear_error();
            char got[32];
            sl_fmt_num(got, sizeof got, bad[k]);
            if (sl_params_set(&pv, s[i].name, bad[k]) == SL_OK) {
                sl_check_add(r, SL_CHECK_FAIL, name, "key '%s' accepted %s", s[i].name, got);
                return;
            }
            if (!sl_check_names_key(s[i].name)) {
                sl_check_add(r, SL_CHECK_FAIL, name, "key '%s' = %s refused without naming the "
                             "key: \"%s\"", s[i].name, got, sl_last_error());
                return;
            }
        }
    }
    if (tried == 0)
        sl_check_add(r, SL_CHECK_SKIP, name, "no keys");
    else
        sl_check_add(r, SL_CHECK_PASS, name, "%zu bad values (NaN, out of range) over %zu keys "
                     "refused, each message names its key", tried, n);
}

void sl_check_schema(sl_check_report *r, const char *what, const sl_param *s, size_t n)
{
    char name[SL_CHECK_NAME_MAX];
    snprintf(name, sizeof name, "%s/schema", what);
    /* the registry's own rule, so a loaded plugin passes it by construction
     * and a table checked directly (sl_check_force, ...) is held to it */
    if (sl_params_check_schema(s, n) != SL_OK) {
        sl_check_add(r, SL_CHECK_FAIL, name, "%s", sl_last_error());
        return;
    }
    sl_check_add(r, SL_CHECK_PASS, name, "%zu keys: unique names, min <= max, defaults in range",
                 n);
    snprintf(name, sizeof name, "%s/refuse_bad", what);
    check_refusals(r, name, s, n);
}

double sl_check_valid_value(const sl_param *p)
{
    if (p->type == SL_PARAM_BOOL)
        return 1.0;
    if (p->type == SL_PARAM_WORD)
        return 0.0;
    if (p->required && p->def != 0.0 && p->def >= p->min && p->def <= p->max)
        return p->def;
    double v = 1.0 < p->min ? p->min : 1.0 > p->max ? p->max : 1.0;
    if (p->type == SL_PARAM_INTEGER && v != floor(v))
        v = ceil(v) <= p->max ? ceil(v) : floor(v);
    return v;
}

sl_status sl_check_valid_values(const sl_param *s, size_t n, sl_param_values *pv)
{
    sl_status st = sl_params_init(pv, s, n);
    for (size_t i = 0; i < n && !st; i++)
        if (s[i].required)
            st = sl_params_set(pv, s[i].name, sl_check_valid_value(&s[i]));
    return st ? st : sl_params_complete(pv);
}
