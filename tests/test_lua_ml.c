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

/* A map from Lua: its statistics, the FITS file and the PNG (their magic
 * bytes), and a box given wrong named at the user's line. */
Test(lua_ml, map_fits_png)
{
    char out[4096], script[2048];
    snprintf(script, sizeof script,
             "local ml = require('starling').microlensing\n"
             "local m = ml.map{s = 1.1, q = 0.01, box = {-0.3, 0.3, -0.3, 0.3}, pixels = 64,\n"
             "                 rays = 20, seed = 3, backend = 'cpu', fits = '%s/m.fits',\n"
             "                 png = '%s/m.png', values = true}\n"
             "print('map', m.nx, m.ny, #m.values, #m.values[1], m.rays > 0, m.active <= m.cells)\n"
             "print(pcall(ml.map, {s = 1, q = 1, box = {0, 1, 0}}))\n",
             work, work);
    int st = run_script(script, out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "map\t64\t64\t64\t64\ttrue\ttrue"), "%s", out);
    cr_assert(strstr(out, "s.lua:6: microlensing.map: key 'box': expected {x0, x1, y0, y1}"),
              "%s", out);
    static const struct {
        const char *name, *magic;
        size_t n;
    } files[] = {{"m.fits", "SIMPLE  =", 9}, {"m.png", "\x89PNG", 4}};
    for (int k = 0; k < 2; k++) {
        char path[400], head[16] = {0};
        snprintf(path, sizeof path, "%s/%s", work, files[k].name);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s was not written", path);
        cr_assert_eq(fread(head, 1, files[k].n, f), files[k].n);
        fclose(f);
        cr_assert_eq(memcmp(head, files[k].magic, files[k].n), 0, "%s: not a %s file", path,
                     files[k].name);
    }
}

/* Light curves read from a map kept by its result: one model, several,
 * NaN outside the map, and a bad rho named. */
Test(lua_ml, map_lightcurve)
{
    char out[4096];
    int st = run_script(
        "local ml = require('starling').microlensing\n"
        "local m = ml.map{s = 1.1, q = 0.01, box = {0.08, 0.12, -0.08, 0.08}, nx = 50, ny = 200,\n"
        "                 rays = 20, backend = 'cpu'}\n"
        "local A = m:lightcurve{t0 = 0, u0 = 0.1, tE = 10, alpha = 90, rho = 2e-3, t = {-1, 0, 1}}\n"
        "print('one', #A, A[1] ~= A[1], A[2] > 9 and A[2] < 11, A[3] ~= A[3])\n"
        "local B = m:lightcurve{models = {{t0 = 0, u0 = 0.1, tE = 10, alpha = 90, rho = 2e-3},\n"
        "                                 {t0 = 0, u0 = 0.1, tE = 10, alpha = 90, rho = 4e-3}},\n"
        "                       t = 0, ld1 = 0.5}\n"
        "print('two', #B, type(B[1]), B[1] ~= B[2])\n"
        "m:lightcurve{t0 = 0, u0 = 0.1, tE = 10, alpha = 90, rho = -1, t = 0}\n",
        out, sizeof out);
    cr_assert_eq(st, 1, "%s", out);
    /* A = 10.03 at the track's middle (VBMicrolensing BinaryMag2) */
    cr_assert(strstr(out, "one\t3\ttrue\ttrue\ttrue"), "%s", out);
    cr_assert(strstr(out, "two\t2\tnumber\ttrue"), "%s", out);
    cr_assert(strstr(out, "s.lua:10: microlensing.lightcurves: model 1: rho = -1: expected a "
                          "number > 0"), "%s", out);
}
