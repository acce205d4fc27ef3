/* What a plugin shared object exports: one symbol, sl_plugin_entry,
 * returning a description of the tables it provides. */
#ifndef STARLING_PLUGIN_H
#define STARLING_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include "starling/status.h"

SL_EXTERN_C_BEGIN

/* Bumped whenever any interface table or sl_run_args changes layout. */
#define SL_ABI_VERSION 5u /* 2: sl_run_args start time/steps; sl_likelihood chi2 and model
                              * entries. 3: sl_likelihood last_kernel_s. 4: kernel sets
                              * (SL_KIND_KERNELS), sl_periodogram read_with, sl_ls_options
                              * fast_accuracy. 5: the kernel contract (launch.h): masses to
                              * point/apply, velocities to acc, fp strided and per system
                              * (sl_run_args fp_sys, n_fp), sl_force acc with v, n_packed in
                              * sl_propagator and sl_force;
                              * sl_monitor prepare/check/release/codes (user monitors) */
#define SL_PLUGIN_ENTRY_SYMBOL "sl_plugin_entry"

typedef enum sl_kind {
    SL_KIND_PROPAGATOR = 1,
    SL_KIND_FORCE,
    SL_KIND_MONITOR,
    SL_KIND_LIKELIHOOD,
    SL_KIND_PERIODOGRAM, /* appended: values above keep their numbers */
    SL_KIND_KERNELS      /* an sl_kernel_set: kernels of one (integrator, force) pair */
} sl_kind;

typedef struct sl_plugin_table {
    sl_kind kind;
    const char *name;
    const void *table; /* sl_propagator, sl_force, sl_monitor, sl_likelihood, sl_periodogram
                          or sl_kernel_set */
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
