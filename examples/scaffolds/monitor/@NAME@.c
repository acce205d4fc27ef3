/* @NAME@: a user monitor. starling calls prepare once per run with the
 * validated parameters, check on every active system after every launch
 * (from several threads at once, all reading one context), and release
 * after the run. See <starling/monitor.h> for the whole contract. */
#include <stdlib.h>
#include <starling/monitor.h>
#include <starling/plugin.h>
#include "@NAME@.h"

static const sl_param params[] = {
    {"r_min", SL_PARAM_NUMBER, 0.0, 0.0, 1e300, 0,
     "stop a system when a planet comes nearer to body 1 (the star) than this (0: never)"},
    {"r_max", SL_PARAM_NUMBER, 100.0, 1e-300, 1e300, 0,
     "stop a system when a planet goes farther from body 1 (the star) than this"},
};

/* The schema checks each key alone; prepare checks them together and says
 * which keys are at fault. */
static sl_status prepare(const sl_param_values *pv, void **ctx)
{
    double r_min = sl_params_get(pv, "r_min"), r_max = sl_params_get(pv, "r_max");
    if (!(r_min < r_max))
        return sl_fail(SL_ERR_ARG, "r_min = %g must be below r_max = %g", r_min, r_max);
    @NAME@_bounds *b = malloc(sizeof *b);
    if (!b)
        return sl_fail(SL_ERR_NOMEM, "@NAME@: out of memory");
    b->r_min = r_min;
    b->r_max = r_max;
    *ctx = b;
    return SL_OK;
}

static int check(const void *ctx, const sl_monitor_system *sys)
{
    return @NAME@_rule(ctx, sys);
}

static void release(void *ctx) { free(ctx); }

/* codes[k - 1] names code k; r:reason(i) reads "monitor @NAME@: too_far". */
static const char *const codes[] = {"too_close", "too_far", NULL};

static const sl_monitor @NAME@ = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_MONITOR,
    .name = "@NAME@",
    .description = "stop a system when a planet's distance from the star leaves [r_min, r_max]",
    .params = params,
    .n_params = sizeof params / sizeof params[0],
    .prepare = prepare,
    .check = check,
    .release = release,
    .codes = codes,
};

static const sl_plugin_table tables[] = {
    {SL_KIND_MONITOR, "@NAME@", &@NAME@},
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "@NAME@",
    .version = "0.1",
    .description = "@NAME@: a monitor that stops systems whose planets leave [r_min, r_max]",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
