/* Deliberately broken (and one good) plugins for the registry suite. One
 * source, one case per build: the case is chosen by a compile definition
 *
 *   SLT_CASE_GOOD        a valid plugin with monitor 'slt_good'
 *   SLT_CASE_ABI_PLUGIN  sl_plugin.abi is wrong
 *   SLT_CASE_ABI_TABLE   one table's abi is wrong
 *   SLT_CASE_NO_ENTRY    no sl_plugin_entry symbol
 *   SLT_CASE_NULL_ENTRY  sl_plugin_entry returns NULL
 *   SLT_CASE_DUP         a valid plugin providing force 'newton' (built twice)
 *   SLT_CASE_NAME_MISMATCH  the table is listed under another name
 *   SLT_CASE_TWICE       the same monitor declared twice in one plugin
 *   SLT_CASE_NO_TABLES   n_tables = 0
 *   SLT_CASE_PACKED      a force that packs more doubles than fp holds
 *   SLT_CASE_KIND_MISMATCH  a monitor whose head says it is a force
 *   SLT_CASE_BAD_DEFAULT    a key whose default lies outside its bounds
 *   SLT_CASE_DUP_PARAM      two keys of one name
 *   SLT_CASE_LIK_NO_CAPS    a likelihood that declares no backend
 *   SLT_CASE_STACK_NAME     a force named like a stack (a__b) that is none
 *   SLT_CASE_LIST_CAP       a force claiming core's caps of a run's list
 *   SLT_CASE_FACE_EMPTY     a Lua face with neither open nor a chunk
 *   SLT_CASE_CMD_NAME       a command named like an option ("-x")
 *   SLT_CASE_CMD_NO_MAIN    a command without main
 */
#include "starling/face.h"
#include "starling/force.h"
#include "starling/force_term.h"
#include "starling/likelihood.h"
#include "starling/monitor.h"
#include "starling/plugin.h"

#ifndef SLT_NAME
#define SLT_NAME "slt_case"
#endif

static sl_status cfg(const sl_param_values *pv, sl_monitor_config *mc)
{
    (void)pv;
    mc->eject_r = 42.0;
    return SL_OK;
}

static const sl_monitor good_monitor __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_MONITOR,
    .name = "slt_good",
    .description = "test monitor",
    .params = 0,
    .n_params = 0,
    .configure = cfg,
};

static const sl_monitor bad_abi_monitor __attribute__((unused)) = {
    .abi = SL_ABI_VERSION + 7u,
    .kind = SL_KIND_MONITOR,
    .name = "slt_old",
    .description = "test monitor built against another ABI",
    .configure = cfg,
};

/* Tables whose heads the registry must refuse. */
static const sl_param out_of_bounds[] = {
    {"r", SL_PARAM_NUMBER, 5.0, 0.0, 1.0, 0, "default 5 outside [0, 1]", NULL, NULL},
};
static const sl_param twice_named[] = {
    {"r", SL_PARAM_NUMBER, 0.5, 0.0, 1.0, 0, "first", NULL, NULL},
    {"r", SL_PARAM_INTEGER, 1.0, 0.0, 9.0, 0, "second, same name", NULL, NULL},
};

static const sl_monitor kind_monitor __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE, /* listed as a monitor below */
    .name = "slt_kind",
    .description = "a monitor whose head says force",
    .configure = cfg,
};

static const sl_monitor default_monitor __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_MONITOR,
    .name = "slt_default",
    .description = "a monitor with a default outside its bounds",
    .params = out_of_bounds,
    .n_params = 1,
    .configure = cfg,
};

static const sl_monitor dup_param_monitor __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_MONITOR,
    .name = "slt_dup_param",
    .description = "a monitor declaring key 'r' twice",
    .params = twice_named,
    .n_params = 2,
    .configure = cfg,
};

static const sl_likelihood no_caps_likelihood __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LIKELIHOOD,
    .name = "slt_no_caps",
    .description = "a likelihood without backends",
    .precisions = SL_PRECISION_DOUBLE,
};

static double pot(int n, const double *x, const double *m, const double *fp)
{
    (void)n, (void)x, (void)m, (void)fp;
    return 0.0;
}

static const sl_force dup_force __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "newton",
    .description = "a second force named newton",
    .potential = pot,
};

static const sl_force packed_force __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "slt_packed",
    .description = "a force that packs more doubles than fp holds",
    .potential = pot,
    .n_packed = SL_FORCE_PARAMS_MAX + 1,
};

static int cmd_main(const sl_command_env *env, int argc, char **argv)
{
    (void)env, (void)argc, (void)argv;
    return SL_EXIT_OK;
}

static const sl_lua_face empty_face __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LUA_FACE,
    .name = "slt_face",
    .description = "a Lua face that adds nothing",
};

static const sl_command option_command __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_COMMAND,
    .name = "-x",
    .description = "a command named like an option",
    .synopsis = "       starling -x\n",
    .usage = "usage: starling -x\n",
    .main = cmd_main,
};

static const sl_command mainless_command __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_COMMAND,
    .name = "slt_cmd",
    .description = "a command without main",
    .synopsis = "       starling slt_cmd\n",
    .usage = "usage: starling slt_cmd\n",
};

static const sl_force stack_named_force __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "slt__stack",
    .description = "a force named like a stack, without a stack's caps",
    .potential = pot,
};

static const sl_force list_cap_force __attribute__((unused)) = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = "slt_list",
    .description = "a force with the caps of core's table for a run's list",
    .potential = pot,
    .caps = SL_FORCE_CAP_LIST,
};

#if defined(SLT_CASE_GOOD)
static const sl_plugin_table tables[] = {{SL_KIND_MONITOR, "slt_good", &good_monitor}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_ABI_PLUGIN)
static const sl_plugin_table tables[] = {{SL_KIND_MONITOR, "slt_good", &good_monitor}};
#define SLT_ABI (SL_ABI_VERSION + 1u)
#elif defined(SLT_CASE_ABI_TABLE)
static const sl_plugin_table tables[] = {{SL_KIND_MONITOR, "slt_good", &good_monitor},
                                         {SL_KIND_MONITOR, "slt_old", &bad_abi_monitor}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_DUP)
static const sl_plugin_table tables[] = {{SL_KIND_FORCE, "newton", &dup_force}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_NAME_MISMATCH)
static const sl_plugin_table tables[] = {{SL_KIND_MONITOR, "slt_other", &good_monitor}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_PACKED)
static const sl_plugin_table tables[] = {{SL_KIND_FORCE, "slt_packed", &packed_force}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_TWICE)
static const sl_plugin_table tables[] = {{SL_KIND_MONITOR, "slt_good", &good_monitor},
                                         {SL_KIND_MONITOR, "slt_good", &good_monitor}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_KIND_MISMATCH)
static const sl_plugin_table tables[] = {{SL_KIND_MONITOR, "slt_kind", &kind_monitor}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_BAD_DEFAULT)
static const sl_plugin_table tables[] = {{SL_KIND_MONITOR, "slt_default", &default_monitor}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_LIK_NO_CAPS)
static const sl_plugin_table tables[] = {
    {SL_KIND_LIKELIHOOD, "slt_no_caps", &no_caps_likelihood}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_FACE_EMPTY)
static const sl_plugin_table tables[] = {{SL_KIND_LUA_FACE, "slt_face", &empty_face}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_CMD_NAME)
static const sl_plugin_table tables[] = {{SL_KIND_COMMAND, "-x", &option_command}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_CMD_NO_MAIN)
static const sl_plugin_table tables[] = {{SL_KIND_COMMAND, "slt_cmd", &mainless_command}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_STACK_NAME)
static const sl_plugin_table tables[] = {{SL_KIND_FORCE, "slt__stack", &stack_named_force}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_LIST_CAP)
static const sl_plugin_table tables[] = {{SL_KIND_FORCE, "slt_list", &list_cap_force}};
#define SLT_ABI SL_ABI_VERSION
#elif defined(SLT_CASE_DUP_PARAM)
static const sl_plugin_table tables[] = {{SL_KIND_MONITOR, "slt_dup_param", &dup_param_monitor}};
#define SLT_ABI SL_ABI_VERSION
#else
static const sl_plugin_table tables[] = {{SL_KIND_MONITOR, "slt_good", &good_monitor}};
#define SLT_ABI SL_ABI_VERSION
#endif

#if defined(SLT_CASE_NO_TABLES)
#define SLT_NTABLES 0
#else
#define SLT_NTABLES (sizeof tables / sizeof tables[0])
#endif

static const sl_plugin plugin __attribute__((unused)) = {
    .abi = SLT_ABI,
    .name = SLT_NAME,
    .version = "0.0",
    .description = "registry test plugin",
    .tables = tables,
    .n_tables = SLT_NTABLES,
};

#if defined(SLT_CASE_NO_ENTRY)
/* Exported, but under another name. */
SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry_v0(void) { return &plugin; }
#elif defined(SLT_CASE_NULL_ENTRY)
SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return 0; }
#else
SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
#endif
