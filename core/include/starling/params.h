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
    SL_PARAM_BOOL,       /* 0 or 1 */
    SL_PARAM_WORD        /* one of `words`; the value stored is its index 0, 1, ... */
} sl_param_type;

typedef struct sl_param {
    const char *name;
    sl_param_type type;
    double def;       /* default value, used when the key is absent (a word's index; NaN:
                         decided by the plugin, see def_doc). For a required key: 0, or
                         a typical value inside [min, max] that `starling plugins` shows
                         as an example and check-plugin runs with */
    double min, max;  /* inclusive bounds (ignored for words) */
    int required;     /* 1: no default, the key must be given */
    const char *doc;  /* one line, shown by `starling plugins` */
    /* Last, so that positional initialisers of the fields above stay valid: */
    const char *const *words; /* SL_PARAM_WORD: the choices, NULL-terminated */
    const char *def_doc;      /* a default the plugin computes, in words ("the earliest
                                 observation"): shown instead of the number */
} sl_param;

enum { SL_PARAMS_MAX = 24 }; /* room for the DE-MCMC sampler's options */

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

/* Sets a word key by its word; the message for anything else lists the
 * words. (sl_params_set takes a word key's index.) */
sl_status sl_params_set_word(sl_param_values *pv, const char *name, const char *word);

/* The number of words of a SL_PARAM_WORD key (0 for other types). */
size_t sl_param_word_count(const sl_param *p);

/* The word a value stands for (NULL when it is no index of p's words). */
const char *sl_param_word(const sl_param *p, double v);

/* Checks that every required key was given. */
sl_status sl_params_complete(const sl_param_values *pv);

/* Checks a schema as the registry does when a plugin loads: at most
 * SL_PARAMS_MAX keys, each named, names unique, a known type, min <= max,
 * and a default inside [min, max] (integral for integers, 0 or 1 for
 * booleans; NaN means "decided by the plugin" and is allowed); a word key
 * has at least one word, no empty or repeated word, and its default is the
 * index of one. The message names the key and the problem. */
sl_status sl_params_check_schema(const sl_param *schema, size_t n);

const sl_param *sl_params_find(const sl_param *schema, size_t n, const char *name);
double sl_params_get(const sl_param_values *pv, const char *name);

/* Describes what a parameter accepts, e.g. "a finite number in [0, 1e+300]",
 * or for a word key `one of "double", "mixed" (or 0..1)`. */
void sl_param_expectation(const sl_param *p, char *buf, size_t cap);

/* Shortest decimal form of v that reads back as the same double ("nan" for
 * any NaN), for messages and files. */
void sl_fmt_num(char *buf, size_t cap, double v);

SL_EXTERN_C_END

#endif
