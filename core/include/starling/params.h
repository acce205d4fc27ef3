/* Parameter schemas: every plugin declares the keys it accepts, so the Lua
 * binding (and any other front end) can validate configuration generically
 * before any work starts. */
#ifndef STARLING_PARAMS_H
#define STARLING_PARAMS_H

#include <stddef.h>
#include "starling/status.h"

SL_EXTERN_C_BEGIN

typedef enum sl_param_type {
    SL_PARAM_NUMBER = 0, /* finite double within [min, max] */
    SL_PARAM_INTEGER,    /* integral double within [min, max] */
    SL_PARAM_BOOL        /* 0 or 1 */
} sl_param_type;

typedef struct sl_param {
    const char *name;
    sl_param_type type;
    double def;       /* default value, used when the key is absent */
    double min, max;  /* inclusive bounds */
    int required;     /* 1: no default, the key must be given */
    const char *doc;  /* one line, shown by `starling plugins` */
} sl_param;

enum { SL_PARAMS_MAX = 16 };

/* Values for one schema, in schema order. */
typedef struct sl_param_values {
    const sl_param *schema;
    size_t n;
    double v[SL_PARAMS_MAX];
    unsigned char given[SL_PARAMS_MAX];
} sl_param_values;

/* Fills defaults for every key of the schema. Fails if the schema is larger
 * than SL_PARAMS_MAX. */
sl_status sl_params_init(sl_param_values *pv, const sl_param *schema, size_t n);

/* Sets one key after checking its type and range; the error message names
 * the key, the value and what was expected. */
sl_status sl_params_set(sl_param_values *pv, const char *name, double value);

/* Checks that every required key was given. */
sl_status sl_params_complete(const sl_param_values *pv);

/* Checks a schema as the registry does when a plugin loads: at most
 * SL_PARAMS_MAX keys, each named, names unique, a known type, min <= max,
 * and a default inside [min, max] (integral for integers, 0 or 1 for
 * booleans; NaN means "decided by the plugin" and is allowed). The message
 * names the key and the problem. */
sl_status sl_params_check_schema(const sl_param *schema, size_t n);

const sl_param *sl_params_find(const sl_param *schema, size_t n, const char *name);
double sl_params_get(const sl_param_values *pv, const char *name);

/* Describes what a parameter accepts, e.g. "a number in [0, 1e+300]". */
void sl_param_expectation(const sl_param *p, char *buf, size_t cap);

/* Shortest decimal form of v that reads back as the same double ("nan" for
 * any NaN), for messages and files. */
void sl_fmt_num(char *buf, size_t cap, double v);

SL_EXTERN_C_END

#endif
