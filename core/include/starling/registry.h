/* The plugin registry: loads every plugin shared object on the plugin path
 * and looks interface tables up by kind and name.
 *
 * Plugin path, in order: $STARLING_PLUGIN_PATH (colon-separated), the
 * folder starling/plugins beside libstarling.so, and ../lib/starling/plugins
 * relative to the running executable. All are relative to where things are
 * at run time, so build trees and installs are relocatable. */
#ifndef STARLING_REGISTRY_H
#define STARLING_REGISTRY_H

#include <stddef.h>
#include "starling/force.h"
#include "starling/likelihood.h"
#include "starling/monitor.h"
#include "starling/plugin.h"
#include "starling/propagator.h"

SL_EXTERN_C_BEGIN

typedef struct sl_registry sl_registry;

sl_status sl_registry_create(sl_registry **out);
void sl_registry_destroy(sl_registry *r);

/* Scans the default plugin path. A plugin that cannot be loaded does not
 * fail the scan: it is recorded as a problem (see below) and skipped. */
sl_status sl_registry_load_default(sl_registry *r);
sl_status sl_registry_load_dir(sl_registry *r, const char *dir);
/* Loads one file; the error names the file and what is wrong with it. */
sl_status sl_registry_load_file(sl_registry *r, const char *path);

size_t sl_registry_problem_count(const sl_registry *r);
const char *sl_registry_problem(const sl_registry *r, size_t i);

typedef struct sl_registry_item {
    sl_kind kind;
    const char *name;
    const void *table;
    const sl_plugin *plugin;
    const char *path;
} sl_registry_item;

size_t sl_registry_count(const sl_registry *r);
const sl_registry_item *sl_registry_at(const sl_registry *r, size_t i);

/* NULL when absent. */
const void *sl_registry_find(const sl_registry *r, sl_kind kind, const char *name);

/* As sl_registry_find, but an absence is an error whose message lists the
 * names that are available for that kind. */
sl_status sl_registry_get(const sl_registry *r, sl_kind kind, const char *name,
                          const void **table);

/* The kernel for (integrator, force, n_body) from any loaded plugin: the
 * integrator's own table or any kernel set, an N-specialised kernel before
 * a runtime-N fallback. An absence is an error that says which forces the
 * integrator has kernels for and how to get the missing ones; a kernel
 * compiled with another PERSIST or ADAPTIVE than the table states is an
 * error naming the plugin that carries it and both values
 * (sl_kernel_traits_check). r may be NULL: prop's own kernels only. */
sl_status sl_registry_kernel(const sl_registry *r, const sl_propagator *prop,
                             const char *force, int n_body, const sl_kernel_entry **out);

/* Calls fn for every kernel an integrator can run, from every source;
 * `path` is the plugin file that carries it. */
void sl_registry_each_kernel(const sl_registry *r, const char *integrator,
                             void (*fn)(void *ud, const sl_kernel_entry *k, const char *path),
                             void *ud);

SL_EXTERN_C_END

#endif
