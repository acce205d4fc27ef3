/* What a plugin shared object exports: one symbol, sl_plugin_entry,
 * returning a description of the tables it provides; and the head every
 * table starts with. */
#ifndef STARLING_PLUGIN_H
#define STARLING_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include "starling/params.h"
#include "starling/status.h"

SL_EXTERN_C_BEGIN

/* Bumped whenever any interface table or sl_run_args changes layout, so
 * that the registry refuses a plugin built against another layout instead
 * of calling into it. What each version changed is in CHANGELOG.md. */
#define SL_ABI_VERSION 14u
#define SL_PLUGIN_ENTRY_SYMBOL "sl_plugin_entry"

typedef enum sl_kind {
    SL_KIND_PROPAGATOR = 1,
    SL_KIND_FORCE,
    SL_KIND_MONITOR,
    SL_KIND_LIKELIHOOD,
    SL_KIND_PERIODOGRAM, /* appended: values above keep their numbers */
    SL_KIND_KERNELS,     /* an sl_kernel_set: kernels of one (integrator, force) pair */
    SL_KIND_LENS,        /* a table whose layout its plugin defines: microlensing's sl_lens */
    SL_KIND_LUA_FACE,    /* an sl_lua_face (face.h): functions for the Lua module */
    SL_KIND_COMMAND,     /* an sl_command (face.h): a subcommand of the executable */
    SL_KIND_CHECKS       /* an sl_check_set (check_set.h): checks of a plugin-defined layout */
} sl_kind;

/* The head of every table (sl_propagator, sl_force, sl_monitor,
 * sl_likelihood, sl_kernel_set, and plugin-defined tables such as
 * lombscargle's sl_periodogram): what the registry checks, what
 * `starling plugins` lists and what front ends validate a configuration
 * against, without knowing the kind. A table starts with SL_TABLE_HEAD, so
 * plugins initialise `.abi = SL_ABI_VERSION, .kind = SL_KIND_FORCE, .name =
 * "newton", ...` and read `t->name` as before, while generic code reads
 * `sl_head(table)->name`. */
typedef struct sl_table_head {
    uint32_t abi;            /* SL_ABI_VERSION */
    sl_kind kind;            /* must equal the kind its sl_plugin_table lists */
    const char *name;        /* must equal the name its sl_plugin_table lists */
    const char *description; /* one line, shown by `starling plugins` */
    const sl_param *params;  /* the configuration keys it accepts (NULL when none) */
    size_t n_params;         /* at most SL_PARAMS_MAX */
} sl_table_head;

/* The first member of every table: the head by name (t->head) and its
 * fields directly (t->name), one storage. */
#define SL_TABLE_HEAD                                                                     \
    union {                                                                               \
        sl_table_head head;                                                               \
        struct {                                                                          \
            uint32_t abi;                                                                 \
            sl_kind kind;                                                                 \
            const char *name;                                                             \
            const char *description;                                                      \
            const sl_param *params;                                                       \
            size_t n_params;                                                              \
        };                                                                                \
    }

/* The head of any table (every table starts with SL_TABLE_HEAD). */
static inline const sl_table_head *sl_head(const void *table)
{
    return (const sl_table_head *)table;
}

typedef struct sl_plugin_table {
    sl_kind kind;
    const char *name;
    const void *table; /* sl_propagator, sl_force, sl_monitor, sl_likelihood, sl_kernel_set,
                          sl_lua_face, sl_command, sl_check_set, or a table whose layout
                          its plugin defines (SL_KIND_PERIODOGRAM: lombscargle's
                          sl_periodogram; SL_KIND_LENS: microlensing's sl_lens); every one
                          starts with SL_TABLE_HEAD */
} sl_plugin_table;

typedef struct sl_plugin {
    uint32_t abi;
    const char *name;
    const char *version;
    const char *description;
    const sl_plugin_table *tables;
    size_t n_tables;
} sl_plugin;

typedef const sl_plugin *(*sl_plugin_entry_fn)(void);

const char *sl_kind_name(sl_kind k);

SL_EXTERN_C_END

/* Plugins write: SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) */
#define SL_PLUGIN_EXPORT __attribute__((visibility("default")))

#endif
