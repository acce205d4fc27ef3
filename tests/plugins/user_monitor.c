/* User monitors (monitor.h: check) for the suites, one case per build,
 * chosen by a compile definition:
 *
 *   SLT_UM_GOOD      'slt_watch': stops a system whose index is a multiple of
 *                    `every` once its time reaches `t` (code "late"), and any
 *                    system with a body farther from body 0 than `r_far`
 *                    ("far") or nearer than `r_near` ("near"); prepare
 *                    refuses r_near >= r_far, naming both keys; and
 *                    'slt_parity': stops odd systems once their time
 *                    reaches `t` (code "odd"), without prepare or release
 *   SLT_UM_BAD_CODE  'slt_badcode': returns 7 (it names 2 codes) for odd
 *                    systems past t = 0.5
 *   SLT_UM_UNSTABLE  'slt_unstable': the answer depends on how often it was
 *                    called (a counter), so the same input gives different
 *                    answers
 *   SLT_UM_NO_CODES  'slt_nocodes': a check without codes (refused on load)
 */
#include <math.h>
#include <stdlib.h>

#include "starling/monitor.h"
#include "starling/plugin.h"

#ifndef SLT_NAME
#define SLT_NAME "slt_user_monitor"
#endif

#if defined(SLT_UM_GOOD)
#define UM_NAME "slt_watch"

static const sl_param params[] = {
    {"t", SL_PARAM_NUMBER, 1e300, 0, 1e300, 0, "stop at this time (code late)"},
    {"every", SL_PARAM_INTEGER, 1, 1, 1e9, 0, "only systems whose index is a multiple of this"},
    {"r_far", SL_PARAM_NUMBER, 0, 0, 1e300, 0, "stop beyond this distance from body 0 (0: off)"},
    {"r_near", SL_PARAM_NUMBER, 0, 0, 1e300, 0, "stop within this distance of body 0 (0: off)"},
};

typedef struct watch {
    double t, r_far, r_near;
    int64_t every;
} watch;

static sl_status prepare(const sl_param_values *pv, void **ctx)
{
    double far = sl_params_get(pv, "r_far"), near = sl_params_get(pv, "r_near");
    if (far > 0 && near > 0 && !(near < far))
        return sl_fail(SL_ERR_ARG, "r_near = %g must be below r_far = %g", near, far);
    watch *w = malloc(sizeof *w);
    if (!w)
        return sl_fail(SL_ERR_NOMEM, "slt_watch: context");
    *w = (watch){sl_params_get(pv, "t"), far, near, (int64_t)sl_params_get(pv, "every")};
    *ctx = w;
    return SL_OK;
}

static int check(const void *ctx, const sl_monitor_system *sys)
{
    const watch *w = ctx;
    if (sys->index % w->every == 0 && sys->time >= w->t)
        return 1;
    for (int b = 1; b < sys->n_body; b++) {
        double dx = sys->x[3 * b] - sys->x[0], dy = sys->x[3 * b + 1] - sys->x[1],
               dz = sys->x[3 * b + 2] - sys->x[2];
        double r2 = dx * dx + dy * dy + dz * dz;
        if (w->r_far > 0 && r2 > w->r_far * w->r_far)
            return 2;
        if (w->r_near > 0 && r2 < w->r_near * w->r_near)
            return 3;
    }
    return 0;
}

static void release(void *ctx) { free(ctx); }

static const char *const codes[] = {"late", "far", "near", NULL};

static const sl_monitor table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_MONITOR,
    .name = UM_NAME,
    .description = "test user monitor: stops at a time, beyond or within a distance",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .prepare = prepare,
    .check = check,
    .release = release,
    .codes = codes,
};

/* No parameters, no prepare, no release: the context is NULL. */
static int parity_check(const void *ctx, const sl_monitor_system *sys)
{
    (void)ctx;
    return sys->index % 2 == 1 && sys->time >= 0.3;
}

static const char *const parity_codes[] = {"odd", NULL};

static const sl_monitor parity = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_MONITOR,
    .name = "slt_parity",
    .description = "test user monitor: stops odd systems from t = 0.3 on",
    .check = parity_check,
    .codes = parity_codes,
};
#define UM_MORE {SL_KIND_MONITOR, "slt_parity", &parity},

#elif defined(SLT_UM_BAD_CODE)
#define UM_NAME "slt_badcode"

static int check(const void *ctx, const sl_monitor_system *sys)
{
    (void)ctx;
    return sys->index % 2 == 1 && sys->time > 0.5 ? 7 : 0;
}

static const char *const codes[] = {"one", "two", NULL};

static const sl_monitor table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_MONITOR,
    .name = UM_NAME,
    .description = "test user monitor that returns a code it does not name",
    .check = check,
    .codes = codes,
};

#elif defined(SLT_UM_UNSTABLE)
#define UM_NAME "slt_unstable"

static int calls;

static int check(const void *ctx, const sl_monitor_system *sys)
{
    (void)ctx, (void)sys;
    /* 5 does not divide the conformance suite's 96 systems, so a second
     * pass over them gets other answers */
    return __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) % 5 == 0;
}

static const char *const codes[] = {"sometimes", NULL};

static const sl_monitor table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_MONITOR,
    .name = UM_NAME,
    .description = "test user monitor whose answer depends on the number of calls",
    .check = check,
    .codes = codes,
};

#elif defined(SLT_UM_NO_CODES)
#define UM_NAME "slt_nocodes"

static int check(const void *ctx, const sl_monitor_system *sys)
{
    (void)ctx, (void)sys;
    return 0;
}

static const sl_monitor table = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_MONITOR,
    .name = UM_NAME,
    .description = "test user monitor without codes",
    .check = check,
};

#else
#error "define one SLT_UM_* case"
#endif

#ifndef UM_MORE
#define UM_MORE
#endif
static const sl_plugin_table tables[] = {{SL_KIND_MONITOR, UM_NAME, &table}, UM_MORE};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = SLT_NAME,
    .version = "0.0",
    .description = "user monitor test plugin",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
