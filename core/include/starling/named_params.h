/* Named parameters: a plugin declares its parameters once, as a list, and
 * the schema (params.h), a plain C struct of the values its kernels read,
 * and the packing into pp (integrators) or fp (forces) come from that list.
 * Kernels then read p->dt or p.inv_c2, never pp[k] or fp[S * k], so `grep
 * dt` leads from a Lua key to every line that uses it.
 *
 * The list is a macro of three row macros, one row per parameter:
 *
 *   #define SL_PARAMS_gr(ARG, KEY, VAL)                                      \
 *       KEY(c, SL_PARAM_NUMBER, 10065.32, 1e-150, 1e150, 0,                   \
 *           "speed of light in the units of the state", NULL, NULL)           \
 *       VAL(inv_c2, "1/c^2, the term's factor")
 *
 *   ARG(name, type, def, min, max, required, doc, words, def_doc)
 *       a key of the schema (the fields of sl_param, in order) that the
 *       kernels read as it was given: also a field of the struct;
 *   KEY(...the same...)
 *       a key the kernels do not read as given: only the pack reads it, to
 *       derive values (c, from which 1/c^2);
 *   VAL(name, doc)
 *       a value the kernels read that the pack derives from keys: a field
 *       of the struct that the plugin's pack fills.
 *
 * The struct's fields are the ARG and VAL rows in list order, all doubles,
 * packed in that order from pp[0] or fp[0]; the schema's keys are the ARG
 * and KEY rows in list order. An integrator's first field is its step
 * (`dt`, pp[SL_PP_DT]: the loops read it there); SL_PARAMS_PROPAGATOR checks
 * that at compile time.
 *
 * In the plugin's header, where the kernels see it:
 *   SL_PARAMS_STRUCT(T, LIST)      typedef struct T { double <field>; ... } T;
 *                                  T_of(pp), the struct a contiguous vector
 *                                  is (an integrator's pp: p->dt), and
 *                                  T_load(fp, S), the fields of a strided one
 *                                  (a force's fp, lane stride S: p.inv_c2)
 *   SL_PARAMS_PROPAGATOR(T, LIST)  the same, checking that dt comes first
 *   SL_PARAMS_COUNT(LIST)          the fields: the table's n_packed
 * In its .c file, for the host:
 *   SL_PARAMS_TABLE(T, LIST)       static const sl_param T_schema[] and
 *                                  T *T_fill(pv, out): zeroes the packed
 *                                  vector out (SL_PARAMS_PACKED_ROOM doubles),
 *                                  copies every ARG key into its field and
 *                                  returns the struct, for the pack to
 *                                  derive its VAL fields
 *   SL_PARAMS_PACK(T, LIST)        T_pack, the whole pack of a list without
 *                                  VAL rows
 *   SL_PARAMS_N_KEYS(LIST)         the schema's keys: the table's n_params
 * A list with no rows declares nothing (newton: no parameters). */
#ifndef STARLING_NAMED_PARAMS_H
#define STARLING_NAMED_PARAMS_H

#include <stddef.h>
#include "starling/hd.h"
#include "starling/params.h"

/* Doubles of a packed vector: pp (SL_PROP_PARAMS_MAX) and fp
 * (SL_FORCE_PARAMS_MAX) alike; propagator.h and force.h check theirs. */
#define SL_PARAMS_PACKED_ROOM 8

#define SL__NP_SKIP(...)
#define SL__NP_FIELD(name, ...) double name;
#define SL__NP_ONE(name, ...) +1
#define SL__NP_LOAD(name, ...) r.name = v[S * k++];
#define SL__NP_ROW(name, type, def, min, max, required, doc, words, def_doc)                \
    {#name, type, def, min, max, required, doc, words, def_doc},
#define SL__NP_COPY(name, ...) p->name = sl_params_get(pv, #name);

#define SL_PARAMS_COUNT(LIST) (0 LIST(SL__NP_ONE, SL__NP_SKIP, SL__NP_ONE))
#define SL_PARAMS_N_KEYS(LIST) (0 LIST(SL__NP_ONE, SL__NP_ONE, SL__NP_SKIP))

/* The struct and its strided loader. The loader's reads fold to the same
 * loads as fp[S * k] once inlined: k is a constant at every field. */
#define SL_PARAMS_STRUCT(T, LIST)                                                          \
    typedef struct T {                                                                     \
        LIST(SL__NP_FIELD, SL__NP_SKIP, SL__NP_FIELD)                                      \
    } T;                                                                                   \
    SL_STATIC_ASSERT(sizeof(T) == SL_PARAMS_COUNT(LIST) * sizeof(double),                  \
                     #T ": every field a double, no padding");                             \
    SL_STATIC_ASSERT(SL_PARAMS_COUNT(LIST) <= SL_PARAMS_PACKED_ROOM,                       \
                     #T ": more fields than a packed vector holds");                       \
    SL_HD SL_INLINE T T##_load(const double *v, int S)                                     \
    {                                                                                      \
        T r;                                                                               \
        int k = 0;                                                                         \
        LIST(SL__NP_LOAD, SL__NP_SKIP, SL__NP_LOAD)                                        \
        (void)k;                                                                           \
        return r;                                                                          \
    }                                                                                      \
    SL_HD SL_INLINE const T *T##_of(const double *pp) { return (const T *)pp; }

/* An integrator's struct: pp[SL_PP_DT], the step the loops take, is dt. */
#define SL_PARAMS_PROPAGATOR(T, LIST)                                                      \
    SL_PARAMS_STRUCT(T, LIST)                                                              \
    SL_STATIC_ASSERT(offsetof(T, dt) == 0, #T ": an integrator's first field is dt");      \
    SL_STATIC_ASSERT(SL_PARAMS_COUNT(LIST) < SL_PARAMS_PACKED_ROOM,                        \
                     #T ": pp's last double is the core's (SL_PP_SMOOTH)");

/* The schema, the fill and the plain pack, for the plugin's table. */
#define SL_PARAMS_TABLE(T, LIST)                                                           \
    static const sl_param T##_schema[] = {LIST(SL__NP_ROW, SL__NP_ROW, SL__NP_SKIP)};      \
    static T *T##_fill(const sl_param_values *pv, double *out)                             \
    {                                                                                      \
        for (int i = 0; i < SL_PARAMS_PACKED_ROOM; i++)                                    \
            out[i] = 0.0;                                                                  \
        T *p = (T *)out;                                                                   \
        LIST(SL__NP_COPY, SL__NP_SKIP, SL__NP_SKIP)                                        \
        return p;                                                                          \
    }

/* The pack of a list without VAL rows: every field is a key as given. */
#define SL_PARAMS_PACK(T, LIST)                                                            \
    SL_STATIC_ASSERT(SL_PARAMS_COUNT(LIST) == 0 LIST(SL__NP_ONE, SL__NP_SKIP, SL__NP_SKIP), \
                     #T "_pack copies keys: a list with VAL rows derives them in a pack "  \
                     "of its own, from " #T "_fill");                                      \
    static sl_status T##_pack(const sl_param_values *pv, double *out)                      \
    {                                                                                      \
        (void)T##_fill(pv, out);                                                           \
        return SL_OK;                                                                      \
    }

#endif
