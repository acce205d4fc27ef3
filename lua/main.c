/* The starling executable: a Lua 5.4 host with the starling module
 * preloaded. The only part of starling that prints. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "binding.h"
#include "csv.h"

static const char *const usage_text =
    "usage: starling run FILE.lua [ARGS...]   run a script (ARGS in the global 'arg')\n"
    "       starling FILE.lua [ARGS...]       the same\n"
    "       starling run -                    run a script read from stdin\n"
    "       starling plugins                  list plugins and their parameters\n"
    "       starling ls [OPTIONS] FILE...     best Lomb-Scargle period of each light curve\n"
    "           (t, y[, dy] columns; --batch: id, t, y[, dy]; a folder: one curve per file;\n"
    "            FITS tables too; --backend=auto|cpu|cuda, --engine=auto|direct|fast,\n"
    "            --fp32, --standard, --fap)\n"
    "       starling --version                version, CUDA support and devices\n"
    "       starling --help                   this text\n"
    "       starling                          interactive prompt (reads stdin)\n"
    "\n"
    "Scripts use: local starling = require \"starling\"\n"
    "Environment: STARLING_PLUGIN_PATH (extra plugin folders, ':'-separated),\n"
    "             STARLING_TRACEBACK=1 (add a Lua traceback to error messages)\n";

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

/* starling.integrate{progress = true}: a line on stderr, only for runs
 * that take a while, redrawn in place on a terminal. */
static int progress_printer(lua_State *L)
{
    static double last_shown = -1.0, last_elapsed = 0.0;
    double fraction = luaL_checknumber(L, 1), elapsed = luaL_checknumber(L, 3);
    lua_Integer launches = luaL_checkinteger(L, 2);
    int tty = isatty(2), done = fraction >= 1.0;
    if (elapsed < last_elapsed) /* a new run after one that failed */
        last_shown = -1.0;
    last_elapsed = elapsed;
    double every = tty ? 0.25 : 10.0;
    int show = elapsed >= 2.0 && (last_shown < 0 || elapsed - last_shown >= every);
    if (done && last_shown >= 0)
        show = 1;
    if (show) {
        fprintf(stderr, "%sstarling: integrating %3.0f%% (%lld launches, %.1f s)%s",
                tty ? "\r" : "", 100.0 * fraction, (long long)launches, elapsed,
                tty && !done ? "" : "\n");
        fflush(stderr);
        last_shown = elapsed;
    }
    if (done)
        last_shown = -1.0, last_elapsed = 0.0;
    return 0;
}

/* Preloads starling.core and gives it the progress printer. */
static int open_starling(lua_State *L)
{
    luaL_openlibs(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_starling_core);
    lua_setfield(L, -2, "starling.core");
    lua_pop(L, 1);
    set_package_path(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "starling.core");
    lua_call(L, 1, 1);
    lua_pushcfunction(L, progress_printer);
    lua_setfield(L, -2, "progress_printer");
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
    return L;
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
    lua_close(L);
    return st == LUA_OK ? 0 : 1;
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

static void print_param(const sl_param *p)
{
    static const char *const type_name[] = {"number", "integer", "boolean"};
    char def[48], range[128], lo[32], hi[32];
    if (p->required)
        snprintf(def, sizeof def, "required");
    else if (p->type == SL_PARAM_BOOL)
        snprintf(def, sizeof def, "default %s", p->def != 0 ? "true" : "false");
    else {
        sl_fmt_num(lo, sizeof lo, p->def);
        snprintf(def, sizeof def, "default %s", lo);
    }
    sl_fmt_num(lo, sizeof lo, p->min);
    sl_fmt_num(hi, sizeof hi, p->max);
    if (p->type == SL_PARAM_BOOL)
        snprintf(range, sizeof range, "true/false");
    else
        snprintf(range, sizeof range, "[%s, %s]", lo, hi);
    printf("      %-14s %-8s %-16s %-22s %s\n", p->name,
           p->type <= SL_PARAM_BOOL ? type_name[p->type] : "?", def, range, p->doc ? p->doc : "");
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
        const char *desc;
        const sl_param *params;
        size_t np;
        sl_lua_item_info(it, &desc, &params, &np);
        printf("  %s: %s\n", it->name, desc ? desc : "");
        printf("    source: %s (plugin %s %s)\n", it->path, it->plugin->name,
               it->plugin->version ? it->plugin->version : "");
        if (np == 0)
            printf("    parameters: none\n");
        else
            printf("    parameters:\n");
        for (size_t k = 0; k < np; k++)
            print_param(&params[k]);
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
    if (sl_registry_count(r) == 0)
        printf("no plugins found (is the plugin path right? see STARLING_PLUGIN_PATH)\n");
    fflush(stdout);
    for (size_t i = 0; i < sl_registry_problem_count(r); i++)
        fprintf(stderr, "starling: warning: %s\n", sl_registry_problem(r, i));
    sl_registry_destroy(r);
    return 0;
}

/* `starling ls`: the best period of each light curve, with astropy's
 * defaults (generalised periodogram, autofrequency 5/5). */
static int ls_command(int argc, char **argv)
{
    sl_registry *r = NULL;
    const void *t;
    if (sl_registry_create(&r) || sl_registry_load_default(r) ||
        sl_registry_get(r, SL_KIND_PERIODOGRAM, "lombscargle", &t)) {
        fprintf(stderr, "starling: ls: %s\n", sl_last_error());
        sl_registry_destroy(r);
        return 1;
    }
    const sl_periodogram *ls = t;
    sl_ls_options o;
    sl_ls_options_default(&o);
    const char *backend = "auto";
    int batch = 0, files = 0, failed = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--batch")) batch = 1;
        else if (!strcmp(argv[i], "--fp32")) o.precision = SL_LS_FP32;
        else if (!strcmp(argv[i], "--standard")) o.method = SL_LS_STANDARD;
        else if (!strcmp(argv[i], "--fap")) o.fap = 1;
        else if (!strncmp(argv[i], "--backend=", 10)) backend = argv[i] + 10;
        else if (!strncmp(argv[i], "--engine=", 9)) {
            if (ls->set_choice(&o, "engine", argv[i] + 9)) {
                fprintf(stderr, "starling: ls: %s\n", sl_last_error());
                sl_registry_destroy(r);
                return 2;
            }
        }
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "starling: ls: unknown option '%s'\n%s", argv[i], usage_text);
            sl_registry_destroy(r);
            return 2;
        } else files++;
    }
    sl_backend be;
    if (files == 0 || sl_backend_open(backend, &be)) {
        fprintf(stderr, "starling: ls: %s\n", files ? sl_last_error() : "expected light-curve files");
        sl_registry_destroy(r);
        return 2;
    }
    printf("# %s\n%-32s %-18s %-18s %-12s%s\n", be.description, "object", "best_period",
           "best_frequency", "power", o.fap ? " fap" : "");
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1])
            continue;
        sl_ls_set *set = NULL;
        sl_ls_result res;
        if (ls->read(argv[i], batch, &set) || ls->compute(&be, &set->data, &o, &res)) {
            fflush(stdout);
            fprintf(stderr, "starling: ls: %s\n", sl_last_error());
            ls->set_free(set);
            failed = 1;
            continue;
        }
        for (int64_t k = 0; k < res.n_obj; k++) {
            const char *name = batch || set->data.n_obj > 1 ? set->id[k] : argv[i];
            if (res.flag[k])
                printf("%-32s flagged: %s\n", name, sl_ls_flag_name(res.flag[k]));
            else if (o.fap)
                printf("%-32s %-18.10g %-18.10g %-12.6g %.3g\n", name, 1.0 / res.best_f[k],
                       res.best_f[k], res.best_p[k], res.best_fap[k]);
            else
                printf("%-32s %-18.10g %-18.10g %.6g\n", name, 1.0 / res.best_f[k], res.best_f[k],
                       res.best_p[k]);
        }
        ls->result_free(&res);
        ls->set_free(set);
    }
    fflush(stdout);
    sl_registry_destroy(r);
    return failed;
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
        if (n < 0)
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
    }
    if (code_len) {
        fprintf(stderr, "starling: stdin: incomplete statement at end of input\n");
        failures++;
    }
    if (tty)
        printf("\n");
    free(line);
    free(code);
    lua_close(L);
    /* piped input is a script: report failure like one */
    return tty || failures == 0 ? 0 : 1;
}

/* ---- main ------------------------------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return repl();
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-v") || !strcmp(cmd, "version"))
        return print_version();
    if (!strcmp(cmd, "plugins"))
        return list_plugins();
    if (!strcmp(cmd, "ls"))
        return ls_command(argc - 2, argv + 2);
    if (!strcmp(cmd, "run")) {
        if (argc < 3) {
            fprintf(stderr, "starling: run: expected a script file\n%s", usage_text);
            return 2;
        }
        return run_script(argv[2], argc - 3, argv + 3, argv[0]);
    }
    if (ends_with(cmd, ".lua") || access(cmd, R_OK) == 0)
        return run_script(cmd, argc - 2, argv + 2, argv[0]);
    fprintf(stderr, "starling: unknown command '%s'\n%s", cmd, usage_text);
    return 2;
}
