/* The Lua face of the microlensing plugin, tested from outside (as
 * tests/test_lua_ls.c): the built executable runs small scripts using
 * starling.microlensing.pspl / fspl / binary / binary_mag0, and bad inputs,
 * whose messages must name the user's line, the function and the key once. */
#define _GNU_SOURCE
#include "sl_test.h"
#include "slt_files.h"

#include <sys/wait.h>
#include <unistd.h>

#define STARLING SL_BUILD_DIR "/bin/starling"

static char work[256];

static void make_dir(void) { slt_tmpdir(work, sizeof work, "/tmp/sl_test_lua_ml"); }

static void remove_dir(void) { slt_rmtree(work); }

TestSuite(lua_ml, .init = make_dir, .fini = remove_dir, .timeout = 120);

/* Runs a script; returns the exit status, stdout+stderr in out. */
static int run_script(const char *script, char *out, size_t cap)
{
    char path[400], cmd[1200];
    snprintf(path, sizeof path, "%s/s.lua", work);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(script, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' s.lua 2>&1", work, STARLING);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(lua_ml, models_and_shapes)
{
    char out[4096];
    int st = run_script(
        "local ml = require('starling').microlensing\n"
        "-- PSPL at t0 with u0 = 0.5: (u^2 + 2)/(u sqrt(u^2 + 4))\n"
        "print(string.format('pspl %.12f', ml.pspl{t0 = 3, u0 = 0.5, tE = 20, t = 3}))\n"
        "local c = ml.fspl{t0 = 0, u0 = 0, tE = 10, rho = 0.1, t = {0, 100}, backend = 'cpu'}\n"
        "print(string.format('fspl %.12f %d', c[1], #c))\n"
        "local m = ml.binary{models = {{t0 = 0, u0 = 0.1, tE = 20, s = 1.1, q = 1e-3, alpha = 30},\n"
        "                              {t0 = 0, u0 = 0.1, tE = 20, s = 1.1, q = 1e-3, alpha = 30}},\n"
        "                    t = {-10, 0, 10}}\n"
        "print('binary', #m, #m[1], m[1][2] == m[2][2], m[1][2] > 1)\n"
        "local a, n = ml.binary_mag0{s = 1, q = 1, y1 = 0, y2 = 0}\n"
        "print(string.format('mag0 %.12f %d', a, n))\n",
        out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "pspl 2.182820625327"), "%s", out); /* 2.25 / (0.5 sqrt 4.25) */
    cr_assert(strstr(out, "fspl 20.024984394501 2"), "%s", out); /* sqrt(4.01)/0.1 */
    cr_assert(strstr(out, "binary\t2\t3\ttrue\ttrue"), "%s", out);
    /* equal masses, s = 1, source at the centre: five images, A = 13/3 */
    cr_assert(strstr(out, "mag0 4.333333333333 5"), "%s", out);
}

Test(lua_ml, errors_name_line_key_once)
{
    static const struct {
        const char *call, *want;
    } cases[] = {
        {"ml.binary{t0 = 0, u0 = 0.1, tE = 20, s = 1, q = 0, alpha = 0, t = {0}}",
         "s.lua:2: microlensing.binary: model 1 (binary): q = 0: expected a number > 0"},
        {"ml.fspl{t0 = 0, u0 = 0.1, tE = 20, rho = -1, t = {0}}",
         "s.lua:2: microlensing.fspl: model 1 (fspl): rho = -1: expected a number > 0"},
        {"ml.pspl{t0 = 0, u0 = 0.1, tE = 20, t = {0, 0/0}}",
         "s.lua:2: microlensing.pspl: epoch 2: t = "},
        {"ml.pspl{t0 = 0, u0 = 0.1, t = {0}}", "s.lua:2: microlensing.pspl: key 'tE' missing"},
        {"ml.pspl{t0 = 0, u0 = 0.1, tE = 3, rho = 1, t = {0}}",
         "s.lua:2: microlensing.pspl: unknown key 'rho'"},
        {"ml.pspl{t0 = 0, u0 = 0.1, tE = 3, t = {}}", "s.lua:2: microlensing.pspl: key 't' is empty"},
        {"ml.binary{models = {{t0 = 0, u0 = 0.1, tE = 3, s = -1, q = 1, alpha = 0}}, t = {0}}",
         "s.lua:2: microlensing.binary: model 1 (binary): s = -1"},
        {"ml.pspl{t0 = 0, u0 = 0.1, tE = 3, t = {1}, backend = 'gpu'}",
         "s.lua:2: microlensing.pspl: key 'backend' = "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char script[1024], out[4096];
        snprintf(script, sizeof script,
                 "local ml = require('starling').microlensing\n%s\nprint('not reached')\n",
                 cases[i].call);
        int st = run_script(script, out, sizeof out);
        cr_assert_eq(st, 1, "%s\n%s", cases[i].call, out);
        cr_assert(strstr(out, cases[i].want), "%s\nwant: %s\ngot: %s", cases[i].call,
                  cases[i].want, out);
        cr_assert_null(strstr(out, "microlensing: microlensing"), "%s", out);
        cr_assert_null(strstr(out, "not reached"), "%s", out);
    }
}

Test(lua_ml, caustics)
{
    char out[4096];
    int st = run_script(
        "local ml = require('starling').microlensing\n"
        "local c = ml.caustics{s = 0.5, q = 1}\n"
        "local w = ml.caustics{s = 1, q = 1, points = 100, resolution = 1e-3}\n"
        "print('close', c.n, #c, #c[1].x == #c[1].crit_x, #c[1].x >= 72)\n"
        "print(string.format('resonant %d y_max %.4f', w.n, w.box.y_max))\n"
        "local t = ml.caustics{lenses = {{x = -0.4, y = 0, m = 0.6}, {x = 0.5, y = 0.1, m = 0.3},\n"
        "                                {x = 0.1, y = 0.6, m = 0.1}}}\n"
        "print('triple', t.n >= 1, t.crit_box.x_min < t.crit_box.x_max)\n"
        "print(pcall(ml.caustics, {lenses = {{x = 0, y = 0, m = 0.5}, {x = 0, y = 0, m = 0.5}}}))\n",
        out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "close\t3\t3\ttrue\ttrue"), "%s", out);
    cr_assert(strstr(out, "resonant 1 y_max 0.6548"), "%s", out); /* VBMicrolensing: 0.6548 */
    cr_assert(strstr(out, "triple\ttrue\ttrue"), "%s", out);
    cr_assert(strstr(out, "s.lua:9: microlensing.caustics: lenses 1 and 2 are both at "
                          "(0, 0)"),
              "%s", out);
}
