/* The starling executable: a Lua 5.4 host with the starling module
 * preloaded. The only part of starling that prints. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "binding.h"
#include "check_ref.h"
#include "csv.h"
#include "scaffold.h"
#include "starling/conformance.h"
#include "starling/face.h"
#include "starling/registry.h"

/* The summary, before the plugins' commands (put_usage prints it). */
static const char *const usage_head =
    "usage: starling run FILE.lua [ARGS...]   run a script (ARGS in the global 'arg')\n"
    "       starling run --overwrite FILE.lua  the same, its outputs may replace existing files\n"
    "       starling FILE.lua [ARGS...]       the same\n"
    "       starling run -                    run a script read from stdin\n"
    "       starling plugins                  list plugins and their parameters\n";
/* after the plugins' commands */
static const char *const usage_tail =
    "       starling check-plugin [OPTIONS] FILE.so\n"
    "                                         run the plugin interface's contract on a plugin\n"
    "           (--data=FILE: likelihood data; --cpu-only: no CUDA comparisons;\n"
    "            --require-gpu: no usable GPU is a failure; --seed=N)\n"
    "       starling check CONFIG.lua --reference FINAL.csv [--pos-tol=X] [--vel-tol=X]\n"
    "                                         run CONFIG.lua and compare the ensemble it\n"
    "           returns with FINAL.csv (E:write_csv's format), per system relative to its\n"
    "           scale; tolerances default 1e-8; exit 1 when a system differs more\n"
    "       starling new KIND NAME [DIR]      write a small working plugin to start from\n"
    "           (KIND: integrator, force, likelihood or monitor; DIR defaults to NAME)\n"
    "       starling --version                version, CUDA support and devices\n"
    "       starling help [COMMAND]           this text, or one command's in full\n"
    "       starling COMMAND --help           the same\n"
    "       starling                          interactive prompt (reads stdin)\n"
    "\n"
    "Scripts use: local starling = require \"starling\"\n"
    "Environment: STARLING_PLUGIN_PATH (extra plugin folders, ':'-separated),\n"
    "             STARLING_TRACEBACK=1 (add a Lua traceback to error messages),\n"
    "             CI (set: no progress line by default)\n"
    "Exit status: 0 ok, 1 error, 2 usage, 3 ls: some objects failed or flagged,\n"
    "             130/143 interrupted by SIGINT/SIGTERM (outputs in progress removed)\n";

/* ---- each command's own text: `starling help CMD`, `starling CMD --help` ---- */

static const char run_usage[] =
    "usage: starling run FILE.lua [ARGS...]\n"
    "       starling FILE.lua [ARGS...]\n"
    "       starling run - [ARGS...]\n"
    "\n"
    "Runs a Lua script with the starling module (local starling = require \"starling\").\n"
    "ARGS are in the global table 'arg' (arg[0] is FILE.lua) and in '...'. With -, the\n"
    "script is read from stdin. Progress of long runs is shown on a terminal.\n"
    "Exit status: 0 ok, 1 the script failed (the error names file and line),\n"
    "130/143 interrupted by SIGINT/SIGTERM (outputs in progress removed).\n";

static const char check_usage[] =
    "usage: starling check CONFIG.lua --reference FINAL.csv [--pos-tol=X] [--vel-tol=X]\n"
    "\n"
    "Runs CONFIG.lua and compares the ensemble it returns (return E, or integrate's\n"
    "result) with FINAL.csv (E:write_csv's format), per system relative to its scale.\n"
    "  --reference FILE   the reference final state (read before the script runs)\n"
    "  --pos-tol=X        largest relative position difference (default 1e-8)\n"
    "  --vel-tol=X        largest relative velocity difference (default 1e-8)\n"
    "Exit status: 0 every system within the tolerances, 1 a system differs or an error,\n"
    "2 usage.\n";

static const char plugins_usage[] =
    "usage: starling plugins\n"
    "\n"
    "Lists the plugins found (integrators, forces, monitors, likelihoods,\n"
    "periodograms, lens models) with their parameters: name, type, default, range.\n"
    "Plugins are looked for beside the executable and in STARLING_PLUGIN_PATH\n"
    "(':'-separated folders).\n";

static const char new_usage[] =
    "usage: starling new KIND NAME [DIR]\n"
    "\n"
    "Writes a small working plugin to start from into DIR (default NAME): sources,\n"
    "a CMakeLists.txt and a test. KIND: integrator, force, likelihood or monitor.\n"
    "NAME must not be taken by an installed plugin; DIR must not exist or be empty.\n";

static const char check_plugin_usage[] =
    "usage: starling check-plugin [OPTIONS] FILE.so\n"
    "\n"
    "Runs the plugin interface's contract on every table of one plugin file.\n"
    "  --data=FILE      likelihood data to check with\n"
    "  --cpu-only       no CUDA comparisons\n"
    "  --require-gpu    no usable GPU is a failure\n"
    "  --seed=N         the checks' random seed\n"
    "Exit status: 0 every check passed, 1 a check failed, 2 usage.\n";

static const char version_usage[] =
    "usage: starling --version\n"
    "\n"
    "Prints starling's version, whether CUDA is built in, the GPUs found and Lua's\n"
    "version.\n";

static const char help_usage[] =
    "usage: starling help [COMMAND]\n"
    "       starling COMMAND --help\n"
    "\n"
    "Without COMMAND: the summary of every command. COMMAND: run, check, %splugins,\n"
    "new, check-plugin, version.\n";

/* ---- the plugins' commands (SL_KIND_COMMAND) ------------------------------------ */

/* The registry the commands come from, loaded at the first need (a script
 * named FILE.lua needs none) and kept until main returns. NULL when it
 * cannot be loaded: then there are no plugin commands. */
static sl_registry *cli_reg;

static const sl_registry *command_registry(void)
{
    if (!cli_reg && (sl_registry_create(&cli_reg) || sl_registry_load_default(cli_reg))) {
        sl_registry_destroy(cli_reg);
        cli_reg = NULL;
    }
    return cli_reg;
}

/* The i-th plugin command, in the registry's order; NULL past the last. */
static const sl_command *plugin_command_at(size_t i)
{
    const sl_registry *r = command_registry();
    for (size_t k = 0, n = 0; r && k < sl_registry_count(r); k++) {
        const sl_registry_item *it = sl_registry_at(r, k);
        if (it->kind == SL_KIND_COMMAND && n++ == i)
            return it->table;
    }
    return NULL;
}

static const sl_command *plugin_command(const char *name)
{
    const sl_command *c;
    for (size_t i = 0; (c = plugin_command_at(i)); i++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

/* The summary: the executable's commands and the plugins' synopses. */
static void put_usage(FILE *f)
{
    const sl_command *c;
    fputs(usage_head, f);
    for (size_t i = 0; (c = plugin_command_at(i)); i++)
        fputs(c->synopsis, f);
    fputs(usage_tail, f);
}

/* "ls, " for each plugin command, for the lists of command names. */
static void plugin_command_names(char *buf, size_t cap)
{
    const sl_command *c;
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; (c = plugin_command_at(i)) && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s, ", c->name);
}

/* A command's own text, or NULL for a name that is no command. */
static const char *command_usage(const char *cmd)
{
    static const struct {
        const char *name, *text;
    } cmds[] = {{"run", run_usage},       {"check", check_usage},
                {"plugins", plugins_usage},
                {"new", new_usage},       {"check-plugin", check_plugin_usage},
                {"version", version_usage}, {"--version", version_usage}};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmd, cmds[i].name))
            return cmds[i].text;
    const sl_command *c = plugin_command(cmd);
    return c ? c->usage : NULL;
}

/* `starling help help`: its text names the plugins' commands too. */
static void put_help_usage(FILE *f)
{
    char names[512];
    plugin_command_names(names, sizeof names);
    fprintf(f, help_usage, names);
}

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

/* `starling help [CMD]`: the summary, or one command's text. */
static int help_command(int argc, char **argv)
{
    if (argc == 0) {
        put_usage(stdout);
        return 0;
    }
    int is_help_cmd = !strcmp(argv[0], "help");
    const char *text = is_help_cmd ? help_usage : command_usage(argv[0]);
    if (!text || argc > 1) {
        char names[512];
        plugin_command_names(names, sizeof names);
        fprintf(stderr, "starling: help: %s '%s'; the commands: run, check, %splugins, new, "
                "check-plugin, version\n", text ? "one command only, not" : "no command",
                text ? argv[1] : argv[0], names);
        return 2;
    }
    if (is_help_cmd)
        put_help_usage(stdout);
    else
        fputs(text, stdout);
    return 0;
}

/* Exit statuses (SL_EXIT_*, starling/face.h; docs/GUIDE.md lists them for
 * users); 128 + the signal number after an interrupt. */

/* ---- signals -------------------------------------------------------------------- */

/* SIGINT/SIGTERM: the first one asks the library to stop (sl_cancel_request:
 * runs abandon their launch loop and remove their temporary files) and
 * stops Lua code at its next instruction through a hook, as lua.c does;
 * SA_RESETHAND makes a second one kill at once. */
static volatile sig_atomic_t caught_signal;
static lua_State *volatile hooked_state;

static const char *signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/* 130 for SIGINT, 143 for SIGTERM: what a shell reports for a process the
 * signal killed. */
static int interrupted_status(void) { return 128 + caught_signal; }

/* The error the hook raises; report_interrupt needs no more than the signal. */
static const char stop_message[] = "stopped by a signal";

/* A count hook runs only inside Lua functions, never in a C function such
 * as the message handler, where raising would lose the message. */
static void stop_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    lua_pushstring(L, stop_message);
    lua_error(L);
}

static void on_signal(int sig)
{
    caught_signal = sig;
    sl_cancel_request(sig);
    if (hooked_state) /* lua_sethook is safe in a signal handler */
        lua_sethook(hooked_state, stop_hook, LUA_MASKCOUNT, 1);
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* no SA_RESTART: a prompt waiting for input stops too */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* The closing line after an interrupt; msg (may be NULL) says where. */
static void report_interrupt(const char *msg)
{
    static int reported;
    if (reported++)
        return;
    if (msg && !strcmp(msg, stop_message))
        msg = NULL;
    fflush(stdout);
    fprintf(stderr, "starling: interrupted by %s%s%s; unfinished output files were removed\n",
            signal_name(caught_signal), msg ? ": " : "", msg ? msg : "");
}

/* ---- Lua state ------------------------------------------------------------------ */

/* The library folder relative to the executable, so build trees and
 * installs both work wherever they are moved. */
static void set_package_path(lua_State *L)
{
    char exe[PATH_MAX], dir[PATH_MAX + 64], real[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(dir, sizeof dir, "%s/../share/starling/lua", exe);
    const char *lib = realpath(dir, real) ? real : dir;
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", lib, lib, lua_tostring(L, -1));
    lua_setfield(L, -3, "path");
    lua_pop(L, 2);
}

/* "42 s", "3.2 min", "3.2 h", "2.1 days" */
static void fmt_duration(char *buf, size_t cap, double s)
{
    if (s < 90)
        snprintf(buf, cap, "%.0f s", s);
    else if (s < 5400)
        snprintf(buf, cap, "%.1f min", s / 60);
    else if (s < 172800)
        snprintf(buf, cap, "%.1f h", s / 3600);
    else
        snprintf(buf, cap, "%.3g days", s / 86400);
}

/* Runs longer than this at the measured rate get a warning. */
static const double long_run_s = 3600.0;
/* ... measured over at least this long, so that start-up costs (the first
 * launch, a GPU's warm-up) do not count as the rate. */
static const double calibration_s = 1.0;

/* The printer behind integrate's progress (upvalue 1: show the progress
 * line or not). Called with (fraction, launches, elapsed_s) after each
 * launch. The progress line appears for runs that take over 2 s and is
 * redrawn in place on a terminal; whether or not it is shown, a run that
 * would take over an hour at the measured rate gets one warning. */
static int progress_printer(lua_State *L)
{
    static double last_shown = -1.0, last_elapsed = 0.0;
    static int warned;
    double fraction = luaL_checknumber(L, 1), elapsed = luaL_checknumber(L, 3);
    lua_Integer launches = luaL_checkinteger(L, 2);
    int show_line = lua_toboolean(L, lua_upvalueindex(1));
    int tty = isatty(2), done = fraction >= 1.0;
    if (elapsed < last_elapsed) /* a new run after one that failed */
        last_shown = -1.0, warned = 0;
    last_elapsed = elapsed;
    double total = fraction > 0 ? elapsed / fraction : 0.0, left = total - elapsed;
    char eta[64] = "", took[32];
    if (!warned && !done && elapsed >= calibration_s && total > long_run_s) {
        fmt_duration(took, sizeof took, total);
        double rate = (double)launches / elapsed, to_go = (double)launches / fraction - launches;
        fprintf(stderr, "%sstarling: warning: this run will take about %s at the measured rate "
                "(%.3g launches/s, about %.3g launches to go); Ctrl-C abandons it\n",
                tty && last_shown >= 0 ? "\n" : "", took, rate, to_go);
        fflush(stderr);
        warned = 1;
    }
    double every = tty ? 0.25 : 10.0;
    int show = show_line && elapsed >= 2.0 && (last_shown < 0 || elapsed - last_shown >= every);
    if (done && last_shown >= 0)
        show = 1;
    if (show) {
        if (!done && fraction > 0) {
            fmt_duration(took, sizeof took, left);
            snprintf(eta, sizeof eta, ", about %s left", took);
        }
        fprintf(stderr, "%sstarling: integrating %3.0f%% (%lld launches, %.1f s%s)%s%s",
                tty ? "\r" : "", 100.0 * fraction, (long long)launches, elapsed, eta,
                tty ? "\033[K" : "", tty && !done ? "" : "\n");
        fflush(stderr);
        last_shown = elapsed;
    }
    if (done)
        last_shown = -1.0, last_elapsed = 0.0, warned = 0;
    return 0;
}

/* core.progress_printer(show): the printer, with or without the line. */
static int make_progress_printer(lua_State *L)
{
    lua_settop(L, 1);
    lua_pushboolean(L, lua_toboolean(L, 1));
    lua_pushcclosure(L, progress_printer, 1);
    return 1;
}

/* Progress is on by default where someone watches it: stderr is a terminal
 * and CI is unset (or empty). */
static int progress_by_default(void)
{
    const char *ci = getenv("CI");
    return isatty(2) && !(ci && *ci);
}

/* print and tostring as Lua's, but a NaN as "nan": Lua formats numbers
 * with printf, which writes "-nan" for a NaN whose sign bit is set (0/0 on
 * x86), a spelling that says nothing more. */
static const char *to_text(lua_State *L, int i, size_t *len)
{
    if (lua_type(L, i) == LUA_TNUMBER && !lua_isinteger(L, i) && isnan(lua_tonumber(L, i))) {
        lua_pushliteral(L, "nan");
        return lua_tolstring(L, -1, len);
    }
    return luaL_tolstring(L, i, len);
}

static int tostring_nan(lua_State *L)
{
    luaL_checkany(L, 1);
    to_text(L, 1, NULL);
    return 1;
}

static int print_nan(lua_State *L)
{
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        size_t len;
        const char *s = to_text(L, i, &len);
        if (i > 1)
            lua_writestring("\t", 1);
        lua_writestring(s, len);
        lua_pop(L, 1);
    }
    lua_writeline();
    return 0;
}

/* Preloads starling.core and gives it the progress printer. */
static int open_starling(lua_State *L)
{
    luaL_openlibs(L);
    lua_pushcfunction(L, print_nan);
    lua_setglobal(L, "print");
    lua_pushcfunction(L, tostring_nan);
    lua_setglobal(L, "tostring");
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_starling_core);
    lua_setfield(L, -2, "starling.core");
    lua_pop(L, 1);
    set_package_path(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "starling.core");
    lua_call(L, 1, 1);
    lua_pushcfunction(L, make_progress_printer);
    lua_setfield(L, -2, "progress_printer");
    lua_pushboolean(L, progress_by_default());
    lua_setfield(L, -2, "progress_default");
    lua_pop(L, 1);
    return 0;
}

/* Error objects become text; a traceback is added on request. */
static int message_handler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    const char *tb = getenv("STARLING_TRACEBACK");
    if (tb && *tb && strcmp(tb, "0") != 0)
        luaL_traceback(L, L, msg, 1);
    else
        lua_pushstring(L, msg);
    return 1;
}

static int pcall_report(lua_State *L, int nargs, int nres)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, message_handler);
    lua_insert(L, base);
    int st = lua_pcall(L, nargs, nres, base);
    lua_remove(L, base);
    if (st != LUA_OK) {
        fflush(stdout);
        if (caught_signal)
            report_interrupt(lua_tostring(L, -1));
        else
            fprintf(stderr, "starling: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return st;
}

static lua_State *new_state(void)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "starling: cannot create a Lua state (out of memory)\n");
        return NULL;
    }
    lua_pushcfunction(L, open_starling);
    if (pcall_report(L, 0, 0) != LUA_OK) {
        lua_close(L);
        return NULL;
    }
    hooked_state = L;
    if (caught_signal) /* it came while the state was being set up */
        lua_sethook(L, stop_hook, LUA_MASKCOUNT, 1);
    return L;
}

/* Closing runs the __gc of every output file still open (removing its
 * temporary file) before the exit status is chosen. */
static int close_state(lua_State *L, int failed)
{
    hooked_state = NULL;
    lua_sethook(L, NULL, 0, 0); /* a pending stop would skip the finalizers */
    lua_close(L);
    if (caught_signal) {
        report_interrupt(NULL); /* when no error did: it came after the last check */
        return interrupted_status();
    }
    return failed ? SL_EXIT_ERROR : SL_EXIT_OK;
}

/* ---- commands ----------------------------------------------------------------- */

static int run_script(const char *path, int argc, char **argv, const char *exe)
{
    lua_State *L = new_state();
    if (!L)
        return 1;
    lua_createtable(L, argc, 2); /* arg, as the lua interpreter sets it */
    lua_pushstring(L, exe);
    lua_rawseti(L, -2, -1);
    lua_pushstring(L, path);
    lua_rawseti(L, -2, 0);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");
    int st = luaL_loadfile(L, strcmp(path, "-") == 0 ? NULL : path);
    if (st != LUA_OK) {
        fprintf(stderr, "starling: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 1;
    }
    for (int i = 0; i < argc; i++)
        lua_pushstring(L, argv[i]);
    st = pcall_report(L, argc, 0);
    fflush(stdout);
    return close_state(L, st != LUA_OK);
}

/* ---- check CONFIG --reference FINAL.csv ------------------------------------------ */

/* [-1] = the value at the top, or its field `ensemble` when it is a table or
 * userdata that has one (integrate's result): protected, since indexing
 * may raise. */
static int field_ensemble(lua_State *L)
{
    lua_getfield(L, 1, "ensemble");
    return 1;
}

static sl_ensemble *returned_ensemble(lua_State *L)
{
    sl_ensemble *e = sl_lua_to_ensemble(L, -1);
    if (e || (lua_type(L, -1) != LUA_TTABLE && lua_type(L, -1) != LUA_TUSERDATA))
        return e;
    lua_pushcfunction(L, field_ensemble);
    lua_pushvalue(L, -2);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pop(L, 1);
        return NULL;
    }
    e = sl_lua_to_ensemble(L, -1);
    lua_pop(L, 1); /* the result keeps the ensemble alive */
    return e;
}

/* A tolerance option "--NAME=X": 1 parsed, 0 not this option, -1 bad value. */
static int tol_option(const char *a, const char *name, double *v)
{
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || a[n] != '=')
        return 0;
    char *end;
    double x = strtod(a + n + 1, &end);
    if (end == a + n + 1 || *end || !(x > 0) || !(x < INFINITY)) {
        fprintf(stderr, "starling: check: %s '%s': expected a positive number\n", name, a + n + 1);
        return -1;
    }
    *v = x;
    return 1;
}

static int check_args(int argc, char **argv, const char **config, const char **ref,
                      double *pos_tol, double *vel_tol)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int t = tol_option(a, "--pos-tol", pos_tol);
        if (t == 0)
            t = tol_option(a, "--vel-tol", vel_tol);
        if (t < 0)
            return SL_EXIT_USAGE;
        if (t > 0)
            continue;
        if (!strcmp(a, "--reference") && i + 1 < argc)
            *ref = argv[++i];
        else if (!strncmp(a, "--reference=", 12))
            *ref = a + 12;
        else if (a[0] != '-' && !*config)
            *config = a;
        else {
            fprintf(stderr, "starling: check: unexpected argument '%s'\n", a);
            put_usage(stderr);
            return SL_EXIT_USAGE;
        }
    }
    if (!*config || !*ref) {
        fprintf(stderr, "starling: check: expected CONFIG.lua and --reference FINAL.csv\n");
        put_usage(stderr);
        return SL_EXIT_USAGE;
    }
    return SL_EXIT_OK;
}

/* Prints the verdict; returns the number of systems beyond a tolerance. */
static int64_t print_comparison(const sl_ensemble *e, const sl_ref_sys *d, const char *ref,
                                double pos_tol, double vel_tol)
{
    int64_t over = 0, wp = 0, wv = 0;
    for (int64_t s = 0; s < e->n_sys; s++) {
        wp = d[s].pos > d[wp].pos ? s : wp;
        wv = d[s].vel > d[wv].vel ? s : wv;
        if (!(d[s].pos <= pos_tol && d[s].vel <= vel_tol)) {
            if (over < 10)
                printf("  system %lld differs: positions %.3g (body %d), velocities %.3g (body %d)\n",
                       (long long)s + 1, d[s].pos, d[s].pos_body + 1, d[s].vel, d[s].vel_body + 1);
            over++;
        }
    }
    printf("check: %lld systems of %d bodies against %s: worst position difference %.3g "
           "(system %lld, body %d), velocity %.3g (system %lld, body %d), relative to each "
           "system's scale; tolerances %.3g, %.3g: %s",
           (long long)e->n_sys, e->n_body, ref, d[wp].pos, (long long)wp + 1, d[wp].pos_body + 1,
           d[wv].vel, (long long)wv + 1, d[wv].vel_body + 1, pos_tol, vel_tol,
           over ? "FAIL" : "pass");
    if (over)
        printf(" (%lld system%s beyond)", (long long)over, over == 1 ? "" : "s");
    printf("\n");
    return over;
}

/* `starling check CONFIG --reference FINAL.csv`: the reference is read (and
 * refused) before the script runs, so a bad file costs no integration. */
static int check_command(int argc, char **argv, const char *exe)
{
    const char *config = NULL, *ref = NULL;
    double pos_tol = 1e-8, vel_tol = 1e-8;
    int st = check_args(argc, argv, &config, &ref, &pos_tol, &vel_tol);
    if (st)
        return st;
    sl_ensemble *re;
    int has_seed;
    uint64_t seed;
    if (sl_csv_read_ensemble(ref, &re, &has_seed, &seed)) {
        fprintf(stderr, "starling: check: %s\n", sl_last_error());
        return SL_EXIT_ERROR;
    }
    lua_State *L = new_state();
    if (!L) {
        sl_ensemble_destroy(re);
        return SL_EXIT_ERROR;
    }
    lua_createtable(L, 0, 2);
    lua_pushstring(L, exe);
    lua_rawseti(L, -2, -1);
    lua_pushstring(L, config);
    lua_rawseti(L, -2, 0);
    lua_setglobal(L, "arg");
    int failed = 1;
    if (luaL_loadfile(L, config) != LUA_OK) {
        fprintf(stderr, "starling: %s\n", lua_tostring(L, -1));
    } else if (pcall_report(L, 0, 1) == LUA_OK) {
        sl_ensemble *e = returned_ensemble(L);
        sl_ref_sys *d = e ? malloc((size_t)(e->n_sys > 0 ? e->n_sys : 1) * sizeof *d) : NULL;
        if (!e)
            fprintf(stderr, "starling: check: %s returned %s: expected the ensemble it "
                    "integrated (return E) or integrate's result (return r)\n", config,
                    luaL_typename(L, -1));
        else if (!d)
            fprintf(stderr, "starling: check: out of memory\n");
        else if (sl_ref_compare(e, re, ref, d))
            fprintf(stderr, "starling: %s\n", sl_last_error());
        else
            failed = print_comparison(e, d, ref, pos_tol, vel_tol) > 0;
        free(d);
    }
    fflush(stdout);
    sl_ensemble_destroy(re);
    return close_state(L, failed);
}

static int print_version(void)
{
    int devices = sl_cuda_device_count();
    printf("starling %s\n", SL_VERSION);
    if (SL_CORE_HAS_CUDA)
        printf("CUDA: built in (architectures %s); %d device%s found\n", SL_CUDA_ARCHS, devices,
               devices == 1 ? "" : "s");
    else
        printf("CUDA: not built in (configure with -DSL_CUDA=ON); 0 devices\n");
    printf("%s\n", LUA_RELEASE);
    return 0;
}

/* name, type, default (a word key's word; a computed default in words),
 * what it accepts, doc. */
static void print_param(const sl_param *p)
{
    static const char *const type_name[] = {"number", "integer", "boolean", "word"};
    char def[160], range[256], lo[32], hi[32];
    if (p->def_doc)
        snprintf(def, sizeof def, "default: %s", p->def_doc);
    else if (p->required && p->def != 0.0 && p->def >= p->min && p->def <= p->max) {
        sl_fmt_num(lo, sizeof lo, p->def);
        snprintf(def, sizeof def, "required (e.g. %s)", lo);
    } else if (p->required)
        snprintf(def, sizeof def, "required");
    else if (p->type == SL_PARAM_BOOL)
        snprintf(def, sizeof def, "default %s", p->def != 0 ? "true" : "false");
    else if (p->type == SL_PARAM_WORD)
        snprintf(def, sizeof def, "default \"%s\"", sl_param_word(p, p->def));
    else {
        sl_fmt_num(lo, sizeof lo, p->def);
        snprintf(def, sizeof def, "default %s", lo);
    }
    sl_fmt_num(lo, sizeof lo, p->min);
    sl_fmt_num(hi, sizeof hi, p->max);
    if (p->type == SL_PARAM_BOOL)
        snprintf(range, sizeof range, "true/false");
    else if (p->type == SL_PARAM_WORD) {
        size_t used = 0;
        range[0] = '\0';
        for (size_t i = 0; i < sl_param_word_count(p) && used < sizeof range; i++)
            used += (size_t)snprintf(range + used, sizeof range - used, "%s\"%s\"",
                                     i ? " | " : "", p->words[i]);
    } else
        snprintf(range, sizeof range, "[%s, %s]", lo, hi);
    printf("      %-14s %-8s %-16s %-22s %s\n", p->name,
           p->type <= SL_PARAM_WORD ? type_name[p->type] : "?", def, range, p->doc ? p->doc : "");
}

/* The kernels of one integrator, grouped by force and plugin file: the
 * unrolled body counts as a bit set (bit 0: the runtime-N fallback). */
typedef struct kernel_group {
    const char *force, *path;
    uint64_t n_mask;
    int cuda;
} kernel_group;

typedef struct kernel_groups {
    kernel_group g[32];
    int n;
} kernel_groups;

static void group_kernel(void *ud, const sl_kernel_entry *k, const char *path)
{
    kernel_groups *gs = ud;
    int i = 0;
    while (i < gs->n && (strcmp(gs->g[i].force, k->force) || strcmp(gs->g[i].path, path)))
        i++;
    if (i == gs->n) {
        if (gs->n == 32)
            return;
        gs->g[gs->n++] = (kernel_group){k->force, path, 0, 0};
    }
    gs->g[i].n_mask |= 1ull << (k->n_body < 64 ? k->n_body : 0);
    gs->g[i].cuda |= k->cuda != NULL;
}

/* "    kernels: newton N = 2..16, any N up to 64 (CPU, CUDA)" per force. */
static void print_kernels(const sl_registry *r, const char *integrator)
{
    kernel_groups gs = {.n = 0};
    sl_registry_each_kernel(r, integrator, group_kernel, &gs);
    for (int i = 0; i < gs.n; i++) {
        const kernel_group *g = &gs.g[i];
        printf("    kernels: %s N =", g->force);
        const char *sep = " ";
        for (int n = 1; n < 64; n++) {
            if (!(g->n_mask >> n & 1) || (n > 1 && g->n_mask >> (n - 1) & 1))
                continue;
            int last = n;
            while (last + 1 < 64 && g->n_mask >> (last + 1) & 1)
                last++;
            printf(last > n ? "%s%d..%d" : "%s%d", sep, n, last);
            sep = ", ";
        }
        if (g->n_mask & 1)
            printf("%sany N up to %d (generic, slower)", sep, SL_NBODY_MAX);
        const char *slash = strrchr(g->path, '/');
        printf(" (CPU%s) from %s\n", g->cuda ? ", CUDA" : "", slash ? slash + 1 : g->path);
    }
}

/* "    runs on: CPU, CUDA; precisions: double, mixed" */
static void print_caps(const sl_likelihood *l)
{
    printf("    runs on: %s%s%s; precisions:", l->backends & SL_BACKEND_CAN_CPU ? "CPU" : "",
           l->backends == (SL_BACKEND_CAN_CPU | SL_BACKEND_CAN_CUDA) ? ", " : "",
           l->backends & SL_BACKEND_CAN_CUDA ? "CUDA" : "");
    const char *sep = " ";
    for (uint32_t b = SL_PRECISION_DOUBLE; b <= SL_PRECISION_SINGLE; b <<= 1)
        if (l->precisions & b) {
            printf("%s%s", sep, sl_precision_name(b));
            sep = ", ";
        }
    printf("\n");
}

/* "    steps: adaptive (per system); order 4; takes from the force: jerks". */
static void print_stepping(const sl_registry *r, const sl_propagator *p)
{
    const sl_kernel_entry *k = p->n_kernels ? &p->kernels[0] : NULL;
    if (!k)
        for (size_t i = 0; i < sl_registry_count(r) && !k; i++) {
            const sl_registry_item *it = sl_registry_at(r, i);
            const sl_kernel_set *ks = it->table;
            if (it->kind == SL_KIND_KERNELS && ks->n_kernels && !strcmp(ks->integrator, p->name))
                k = &ks->kernels[0];
        }
    const char *takes = !k ? "unknown (no kernels)"
                        : k->traits.jerk ? "accelerations and jerks (acc_jerk)"
                        : k->traits.perturb ? "its perturbation part (acc_perturb)"
                                            : "accelerations (acc)";
    printf("    steps: %s; order %d; takes from the force: %s\n",
           p->adaptive ? "adaptive (each system its own)" : "fixed (dt)", p->order, takes);
}

/* "    provides: acc, acc_jerk, acc_perturb". */
static void print_provides(const sl_force *f)
{
    printf("    provides: acc%s%s\n", f->caps & SL_FORCE_CAP_JERK ? ", acc_jerk" : "",
           f->caps & SL_FORCE_CAP_PERTURB ? ", acc_perturb" : "");
}

static void print_kind(const sl_registry *r, sl_kind kind, const char *title)
{
    int any = 0;
    for (size_t i = 0; i < sl_registry_count(r); i++) {
        const sl_registry_item *it = sl_registry_at(r, i);
        if (it->kind != kind)
            continue;
        if (!any++)
            printf("%s:\n", title);
        const sl_table_head *h = sl_head(it->table);
        const sl_param *params = h->params;
        size_t np = params ? h->n_params : 0;
        printf("  %s: %s\n", it->name, h->description ? h->description : "");
        printf("    source: %s (plugin %s %s)\n", it->path, it->plugin->name,
               it->plugin->version ? it->plugin->version : "");
        if (np == 0)
            printf("    parameters: none\n");
        else
            printf("    parameters:\n");
        for (size_t k = 0; k < np; k++)
            print_param(&params[k]);
        if (kind == SL_KIND_PROPAGATOR) {
            print_stepping(r, it->table);
            print_kernels(r, it->name);
        }
        if (kind == SL_KIND_FORCE)
            print_provides(it->table);
        const sl_monitor *m = it->table;
        if (kind == SL_KIND_MONITOR && m->check) {
            printf("    stops (checked between launches) with:");
            for (int k = 0; m->codes[k]; k++)
                printf("%s %s", k ? "," : "", m->codes[k]);
            printf("\n");
        }
        if (kind == SL_KIND_LIKELIHOOD)
            print_caps(it->table);
    }
    if (any)
        printf("\n");
}

static int list_plugins(void)
{
    sl_registry *r;
    if (sl_registry_create(&r) != SL_OK || sl_registry_load_default(r) != SL_OK) {
        fprintf(stderr, "starling: loading plugins: %s\n", sl_last_error());
        sl_registry_destroy(r);
        return 1;
    }
    print_kind(r, SL_KIND_PROPAGATOR, "integrators");
    print_kind(r, SL_KIND_FORCE, "forces");
    print_kind(r, SL_KIND_MONITOR, "monitors");
    print_kind(r, SL_KIND_LIKELIHOOD, "likelihoods");
    print_kind(r, SL_KIND_PERIODOGRAM, "periodograms");
    print_kind(r, SL_KIND_LENS, "lens models");
    if (sl_registry_count(r) == 0)
        printf("no plugins found (is the plugin path right? see STARLING_PLUGIN_PATH)\n");
    fflush(stdout);
    for (size_t i = 0; i < sl_registry_problem_count(r); i++)
        fprintf(stderr, "starling: warning: %s\n", sl_registry_problem(r, i));
    sl_registry_destroy(r);
    return 0;
}

/* `starling check-plugin`: the conformance suite (starling/conformance.h)
 * on every table of one plugin file; exit 0 only when nothing failed. */
static void print_report(const sl_check_report *r)
{
    printf("%s '%s':\n", sl_kind_name(r->kind), r->table);
    for (size_t i = 0; i < r->n; i++)
        printf("  %s  %-28s %s\n", sl_check_result_name(r->checks[i].result), r->checks[i].name,
               r->checks[i].detail);
    if (r->n_dropped)
        printf("  (%zu more checks not shown)\n", r->n_dropped);
}

/* One option of check-plugin; 0 when it is not one. */
static int check_option(const char *arg, sl_check_options *o)
{
    char *end;
    if (!strncmp(arg, "--data=", 7) && arg[7])
        o->data_path = arg + 7;
    else if (!strcmp(arg, "--cpu-only"))
        o->cuda = SL_CHECK_CUDA_OFF;
    else if (!strcmp(arg, "--require-gpu"))
        o->cuda = SL_CHECK_CUDA_REQUIRE;
    else if (!strncmp(arg, "--seed=", 7)) {
        o->seed = strtoull(arg + 7, &end, 10);
        return end > arg + 7 && !*end;
    } else
        return 0;
    return 1;
}

static int check_plugin_command(int argc, char **argv)
{
    sl_check_options o;
    sl_check_options_default(&o);
    const char *file = NULL;
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-' ? check_option(argv[i], &o) : !file && (file = argv[i]))
            continue;
        fprintf(stderr, "starling: check-plugin: %s '%s'\n",
                argv[i][0] == '-' ? "unknown option or bad value" : "one file only, not", argv[i]);
        put_usage(stderr);
        return 2;
    }
    if (!file) {
        fprintf(stderr, "starling: check-plugin: expected a plugin file (.so)\n");
        put_usage(stderr);
        return 2;
    }
    sl_check_plugin_result res;
    sl_status st = sl_check_plugin(file, &o, &res);
    if (res.n_reports)
        printf("check-plugin: %s (plugin %s %s)\n", res.path, res.plugin, res.version);
    size_t pass = 0, fail = 0, skip = 0;
    for (size_t i = 0; i < res.n_reports; i++) {
        print_report(&res.reports[i]);
        pass += res.reports[i].n_pass, fail += res.reports[i].n_fail, skip += res.reports[i].n_skip;
    }
    if (res.n_reports)
        printf("%zu passed, %zu failed, %zu skipped\n", pass, fail, skip);
    fflush(stdout);
    for (size_t i = 0; i < res.n_problems; i++)
        fprintf(stderr, "starling: warning: %s\n", res.problems[i]);
    if (st)
        fprintf(stderr, "starling: check-plugin: %s\n", sl_last_error());
    sl_check_plugin_result_free(&res);
    return st || fail ? 1 : 0;
}

/* ---- the prompt ---------------------------------------------------------------- */

/* Loads a line as an expression first, so that "1 + 1" prints 2. */
static int load_input(lua_State *L, const char *code)
{
    lua_pushfstring(L, "return %s;", code);
    int st = luaL_loadbuffer(L, lua_tostring(L, -1), lua_rawlen(L, -1), "=stdin");
    lua_remove(L, -2);
    if (st == LUA_OK)
        return st;
    lua_pop(L, 1);
    return luaL_loadbuffer(L, code, strlen(code), "=stdin");
}

static int incomplete(lua_State *L, int st)
{
    size_t len;
    const char *msg = lua_tolstring(L, -1, &len);
    return st == LUA_ERRSYNTAX && len >= 5 && strcmp(msg + len - 5, "<eof>") == 0;
}

static int run_input(lua_State *L)
{
    int base = lua_gettop(L);
    if (pcall_report(L, 0, LUA_MULTRET) != LUA_OK)
        return 1;
    int n = lua_gettop(L) - base + 1;
    if (n > 0) {
        lua_getglobal(L, "print");
        lua_insert(L, base);
        return pcall_report(L, n, 0) != LUA_OK;
    }
    return 0;
}

static int repl(void)
{
    lua_State *L = new_state();
    if (!L)
        return 1;
    int tty = isatty(0), failures = 0;
    lua_getglobal(L, "require");
    lua_pushliteral(L, "starling");
    if (pcall_report(L, 1, 1) != LUA_OK) {
        lua_close(L);
        return 1;
    }
    lua_setglobal(L, "starling");
    if (tty)
        printf("starling %s (%s); 'starling' is loaded; Ctrl-D exits\n", SL_VERSION, LUA_RELEASE);
    char *line = NULL, *code = NULL;
    size_t cap = 0, code_len = 0;
    for (;;) {
        if (tty) {
            fputs(code_len ? ">> " : "> ", stdout);
            fflush(stdout);
        }
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0 || caught_signal)
            break;
        char *grown = realloc(code, code_len + (size_t)n + 1);
        if (!grown)
            break;
        code = grown;
        memcpy(code + code_len, line, (size_t)n + 1);
        code_len += (size_t)n;
        int st = load_input(L, code);
        if (incomplete(L, st)) {
            lua_pop(L, 1);
            continue; /* a statement spanning lines */
        }
        if (st != LUA_OK) {
            fprintf(stderr, "starling: %s\n", lua_tostring(L, -1));
            lua_pop(L, 1);
            failures++;
        } else
            failures += run_input(L);
        fflush(stdout);
        code_len = 0;
        if (caught_signal)
            break;
    }
    if (code_len && !caught_signal) {
        fprintf(stderr, "starling: stdin: incomplete statement at end of input\n");
        failures++;
    }
    if (tty)
        printf("\n");
    free(line);
    free(code);
    /* piped input is a script: report failure like one; an interrupt at
     * the prompt was reported by no call, so close_state reports it */
    return close_state(L, !tty && failures > 0);
}

/* ---- starling new ------------------------------------------------------------------ */

/* A name that an installed plugin already uses would be refused when both
 * load: say so now, naming the file. */
static int name_taken(const char *name)
{
    sl_registry *r;
    if (sl_registry_create(&r) != SL_OK)
        return 0;
    int taken = 0;
    if (sl_registry_load_default(r) == SL_OK)
        for (size_t i = 0; i < sl_registry_count(r) && !taken; i++) {
            const sl_registry_item *it = sl_registry_at(r, i);
            if (!strcmp(it->name, name) || !strcmp(it->plugin->name, name)) {
                fprintf(stderr, "starling: new: the name '%s' is taken by the %s in %s; pick "
                        "another\n", name, sl_kind_name(it->kind), it->path);
                taken = 1;
            }
        }
    sl_registry_destroy(r);
    return taken;
}

static int new_command(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "starling: new: expected KIND NAME [DIR]\n");
        put_usage(stderr);
        return 2;
    }
    const char *kind = argv[0], *name = argv[1], *dir = argc > 2 ? argv[2] : argv[1];
    char templates[PATH_MAX];
    size_t n = 0;
    if (name_taken(name))
        return 1;
    if (sl_scaffold_dir(templates, sizeof templates) ||
        sl_scaffold_write(templates, kind, name, dir, &n)) {
        fprintf(stderr, "starling: new: %s\n", sl_last_error());
        return 1;
    }
    printf("wrote %zu files for the %s '%s' into %s/; build and test it with:\n"
           "  cmake -S %s -B %s/build && cmake --build %s/build && ctest --test-dir %s/build\n",
           n, kind, name, dir, dir, dir, dir, dir);
    return 0;
}

/* ---- main ------------------------------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* --overwrite before the command or, after run or check, before the
 * script: every output may replace an existing file (starling/output.h).
 * Later arguments are the script's own. */
static int take_overwrite(int argc, char **argv)
{
    for (int i = 1; i < argc && i <= 2; i++) {
        if (strcmp(argv[i], "--overwrite"))
            continue;
        if (i == 2 && strcmp(argv[1], "run") && strcmp(argv[1], "check"))
            break;
        sl_out_set_overwrite(1);
        memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof *argv); /* with argv[argc] */
        argc--, i--;
    }
    return argc;
}

/* libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, as it is loaded
 * (before main). Left unset, a thread that waits at the end of a parallel
 * loop spins up to 300,000 times before sleeping; on cores another process
 * also uses, the threads spin while the one they wait for is descheduled,
 * and a 2-thread DE-MCMC run took 48 x its 1-thread time (bench/omp_wait.sh).
 * Unless the user set either, starling runs itself again, once, with
 * OMP_WAIT_POLICY=passive: waiting threads sleep at once (on cores of its
 * own that costs a wake-up per loop). When the exec fails it goes on as it
 * is. */
static void omp_passive_reexec(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT"))
        return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) == 0)
        execv("/proc/self/exe", argv);
}

/* What `starling` gives a plugin's command (starling/face.h). */
static int command_stopped(void) { return caught_signal != 0; }

static int command_interrupted(const char *where)
{
    report_interrupt(where);
    return interrupted_status();
}

static int run_plugin_command(const sl_command *c, int argc, char **argv)
{
    const sl_command_env env = {.registry = command_registry(), .out = stdout, .err = stderr,
                                .stopped = command_stopped,
                                .interrupted = command_interrupted};
    int rc = c->main(&env, argc, argv);
    fflush(stdout);
    return rc;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    sl_registry_destroy(cli_reg);
    return rc;
}

static int dispatch(int argc, char **argv)
{
    omp_passive_reexec(argv);
    argc = take_overwrite(argc, argv);
    if (argc < 2) {
        catch_signals();
        return repl();
    }
    const char *cmd = argv[1];
    if (is_help(cmd) || !strcmp(cmd, "help"))
        return help_command(argc - 2, argv + 2);
    if (argc > 2 && is_help(argv[2]) && command_usage(cmd)) {
        fputs(command_usage(cmd), stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-v") || !strcmp(cmd, "version"))
        return print_version();
    if (!strcmp(cmd, "plugins"))
        return list_plugins();
    if (!strcmp(cmd, "new"))
        return new_command(argc - 2, argv + 2);
    /* the commands that run long enough to interrupt */
    catch_signals();
    if (!strcmp(cmd, "check-plugin"))
        return check_plugin_command(argc - 2, argv + 2);
    if (!strcmp(cmd, "check"))
        return check_command(argc - 2, argv + 2, argv[0]);
    if (!strcmp(cmd, "run")) {
        if (argc < 3) {
            fprintf(stderr, "starling: run: expected a script file\n");
            put_usage(stderr);
            return 2;
        }
        return run_script(argv[2], argc - 3, argv + 3, argv[0]);
    }
    if (ends_with(cmd, ".lua"))
        return run_script(cmd, argc - 2, argv + 2, argv[0]);
    const sl_command *c = plugin_command(cmd);
    if (c)
        return run_plugin_command(c, argc - 2, argv + 2);
    if (access(cmd, R_OK) == 0)
        return run_script(cmd, argc - 2, argv + 2, argv[0]);
    fprintf(stderr, "starling: unknown command '%s'\n", cmd);
    put_usage(stderr);
    return 2;
}
