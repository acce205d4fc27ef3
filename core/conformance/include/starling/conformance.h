/* The conformance suite: the interface contract of every table kind, run
 * on any plugin (`starling check-plugin FILE.so`, and the CI suite over
 * every in-tree plugin).
 *
 * One function per kind fills a report of named checks, each PASS, FAIL
 * or SKIP with a one-line detail (what was measured against which bound,
 * or why it did not run). The functions return an error status only when
 * the suite itself cannot run (out of memory, no temporary folder); a
 * plugin that breaks its contract gives SL_OK and failed checks.
 *
 * What is checked, per kind:
 *   every kind   the parameter schema is well formed (names unique, min <=
 *                max, defaults inside the range or NaN for "automatic");
 *                each numeric key refuses NaN and values outside its range
 *                with a message naming the key
 *   integrator   the kernel table is well formed; per force it has kernels
 *                for (forces from the registry): the stated order on an
 *                eccentric two-body Kepler orbit, the same result twice and
 *                across steps per launch, unrolled-N against runtime-N, CPU
 *                against CUDA; 'dt' refuses 0, negatives and NaN
 *   force        acceleration = -grad(potential) / m by central differences
 *                on a random 4-body configuration; the same result twice;
 *                the order of every integrator in the registry built for it
 *                (its kernels' acc/acc_jerk are reachable only that way)
 *   monitor      configure accepts a valid configuration; a user monitor
 *                (check): its codes are well named, prepare accepts the
 *                defaults, check answers 0 or a named code on 96 varied
 *                systems, the same twice and from parallel threads; release
 *   likelihood   prepare (data: options->data_path, else the plugin's
 *                example_data, else a small generated RV file) and refuses
 *                a missing file; parameter names and
 *                bounds; a batch equals its single evaluations bit for bit;
 *                the same input twice; the data file's columns handed over
 *                in memory give the same parameters and values bit for bit;
 *                CPU against CUDA
 *   periodogram  the schema only: a periodogram table's layout is its
 *                plugin's, so its checks come with the front end that knows
 *                the layout (sl_check_options.extra; `starling check-plugin`
 *                passes lombscargle's) */
#ifndef STARLING_CONFORMANCE_H
#define STARLING_CONFORMANCE_H

#include <stddef.h>
#include <stdint.h>
#include "starling/backend.h"
#include "starling/check_set.h"
#include "starling/force.h"
#include "starling/likelihood.h"
#include "starling/monitor.h"
#include "starling/plugin.h"
#include "starling/propagator.h"
#include "starling/registry.h"

SL_EXTERN_C_BEGIN

typedef enum sl_check_result { SL_CHECK_PASS = 0, SL_CHECK_FAIL, SL_CHECK_SKIP } sl_check_result;

enum { SL_CHECK_NAME_MAX = 64, SL_CHECK_DETAIL_MAX = 256, SL_CHECKS_MAX = 96 };

typedef struct sl_check {
    char name[SL_CHECK_NAME_MAX];     /* e.g. "order/newton" */
    sl_check_result result;
    char detail[SL_CHECK_DETAIL_MAX]; /* measured vs bound, or why skipped */
} sl_check;

/* The checks run on one table. Checks past SL_CHECKS_MAX are dropped and
 * counted in n_dropped (a dropped failure still counts in n_fail). */
typedef struct sl_check_report {
    sl_kind kind;
    char table[SL_CHECK_NAME_MAX];
    size_t n;
    sl_check checks[SL_CHECKS_MAX];
    size_t n_pass, n_fail, n_skip, n_dropped;
} sl_check_report;

/* When to compare against CUDA. */
typedef enum sl_check_cuda {
    SL_CHECK_CUDA_AUTO = 0, /* when the plugin has CUDA code and a device is usable, else skip */
    SL_CHECK_CUDA_OFF,      /* never (skip with a message) */
    SL_CHECK_CUDA_REQUIRE   /* as AUTO, but no usable device is a failure */
} sl_check_cuda;

typedef struct sl_check_options {
    const sl_registry *reg; /* forces and integrators to compose with (NULL: none) */
    const char *data_path;  /* likelihood data (NULL: the plugin's example_data, else a
                               generated RV file) */
    sl_check_cuda cuda;
    uint64_t seed;          /* of every random configuration (0: a fixed default) */
    const sl_check_extra *extra; /* more checks per kind and table (may be NULL) */
    size_t n_extra;
} sl_check_options;

void sl_check_options_default(sl_check_options *o);

sl_status sl_check_propagator(const sl_propagator *p, const sl_check_options *o,
                              sl_check_report *r);
sl_status sl_check_force(const sl_force *f, const sl_check_options *o, sl_check_report *r);
sl_status sl_check_monitor(const sl_monitor *m, const sl_check_options *o, sl_check_report *r);
sl_status sl_check_likelihood(const sl_likelihood *l, const sl_check_options *o,
                              sl_check_report *r);
/* A kernel set (SL_KIND_KERNELS): its integrator's order with its force,
 * through the pooled kernels (needs both loaded in o->reg). */
sl_status sl_check_kernel_set(const sl_kernel_set *k, const sl_check_options *o,
                              sl_check_report *r);
/* Dispatches on kind, then runs the matching o->extra checks. */
sl_status sl_check_table(sl_kind kind, const void *table, const sl_check_options *o,
                         sl_check_report *r);

/* The whole command: loads the plugin file (refusals such as another ABI
 * or no entry symbol are returned as SL_ERR_PLUGIN with the registry's
 * message), then the default plugin path for the forces and integrators
 * to compose with (o->reg is ignored), and checks every table the file
 * exports, in its order. */
typedef struct sl_check_plugin_result {
    char plugin[SL_CHECK_NAME_MAX];  /* the plugin's name and version */
    char version[SL_CHECK_NAME_MAX];
    char path[4096];
    size_t n_reports;
    sl_check_report *reports;        /* one per table */
    size_t n_problems;               /* other plugins on the path that did not load */
    char **problems;
} sl_check_plugin_result;

sl_status sl_check_plugin(const char *path, const sl_check_options *o,
                          sl_check_plugin_result *out);
void sl_check_plugin_result_free(sl_check_plugin_result *res);
/* Failed checks over all reports. */
size_t sl_check_plugin_failures(const sl_check_plugin_result *res);

const char *sl_check_result_name(sl_check_result r); /* "PASS", "FAIL", "SKIP" */

/* ---- for extra checks (sl_check_extra) ---- */

/* Appends a check with a printf-style detail. */
void sl_check_add(sl_check_report *r, sl_check_result res, const char *name, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));

/* Values for every key of a schema: defaults, and a valid value for
 * required keys. */
sl_status sl_check_valid_values(const sl_param *s, size_t n, sl_param_values *pv);

/* Whether the library's last message names `key` (as 'key'). */
int sl_check_names_key(const char *key);

/* The CUDA backend for a comparison, or why there is none: returns 1 and
 * fills be when comparisons should run; else 0 with *res and why set. */
int sl_check_cuda_backend(const sl_check_options *o, sl_backend *be, sl_check_result *res,
                          char *why, size_t cap);

/* Relative difference |a - b| / max(|a|, |b|, floor); 0 when bit-identical
 * non-finite values, +inf when only one is finite. */
double sl_check_rel(double a, double b, double floor);

/* The seed of every random configuration (o->seed, or the fixed default). */
uint64_t sl_check_seed(const sl_check_options *o);

SL_EXTERN_C_END

#endif
