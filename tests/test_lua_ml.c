/* The Lua face of the microlensing plugin, tested from outside (as
 * tests/test_lua_ls.c): the built executable runs small scripts using
 * starling.microlensing.pspl / fspl / binary / binary_mag0, and bad inputs,
 * whose messages must name the user's line, the function and the key once. */
#define _GNU_SOURCE
#include "sl_test.h"
#include "slt_files.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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
        "print(string.format('mag0 %.12f %d', a, n))\n"
        "local A, N = ml.multi_mag0{lenses = {{x = -0.5, y = 0, m = 0.5}, {x = 0.5, y = 0, m = 0.5}},\n"
        "                          y1 = {0, 3}, y2 = {0, 0}}\n"
        "print(string.format('multi %.12f %d %d %d', A[1], N[1], N[2], #A))\n"
        "local F, E = ml.binary_mag{s = 1, q = 1e-3, rho = 1e-3, y1 = {-0.0094, 3}, y2 = {-0.005, 0}}\n"
        "print(string.format('dynamic %.3f %.5f %d %s', F[1], F[2], #F, E[1] < 5e-4))\n",
        out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "pspl 2.182820625327"), "%s", out); /* 2.25 / (0.5 sqrt 4.25) */
    cr_assert(strstr(out, "fspl 20.024984394501 2"), "%s", out); /* sqrt(4.01)/0.1 */
    cr_assert(strstr(out, "binary\t2\t3\ttrue\ttrue"), "%s", out);
    /* equal masses, s = 1, source at the centre: five images, A = 13/3 */
    cr_assert(strstr(out, "mag0 4.333333333333 5"), "%s", out);
    /* the same binary as two of multi_mag0's lenses; far out, three images */
    cr_assert(strstr(out, "multi 4.333333333333 5 3 2"), "%s", out);
    /* the dynamic engine at tol 1e-3: the fold of fsbl_dynamic.csv (VBMicrolensing
     * 50.592), and far out, where the source is its own point: (u^2 + 2) / (u
     * sqrt(u^2 + 4)) at u = 3 is 1.01690 */
    cr_assert(strstr(out, "dynamic 50.5") && strstr(out, " 1.0169") &&
                  strstr(out, " 2 true"), "%s", out);
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
        {"ml.multi_mag0{lenses = {{x = 0, y = 0, m = 1}}, y1 = {1, 2}, y2 = {1}}",
         "s.lua:2: microlensing.multi_mag0: y1 has 2 values and y2 1: expected the same"},
        {"ml.multi_mag0{lenses = {{x = 0, y = 0, m = 0.2}, {x = 1, y = 0, m = 0.2}, {x = 2, y = 0, "
         "m = 0.2}, {x = 3, y = 0, m = 0.2}, {x = 4, y = 0, m = 0.2}}, y1 = 0, y2 = 0}",
         "s.lua:2: microlensing.multi_mag0: 5 lenses: expected 1 to 4"},
        {"ml.binary_mag{s = 1, q = 1e-3, rho = 0, y1 = 0, y2 = 0}",
         "s.lua:2: microlensing.binary_mag: rho = 0: expected a finite number > 0"},
        {"ml.binary_mag{s = 1, q = 1e-3, rho = 1e-3, tol = 0, y1 = 0, y2 = 0}",
         "s.lua:2: microlensing.binary_mag: tol = 0: expected a finite number > 0"},
        {"ml.binary_mag{s = 1, q = 1e-3, rho = 1e-3, y1 = {0, 0/0}, y2 = {0, 0}}",
         "s.lua:2: microlensing.binary_mag: source 2 at ("},
        {"ml.binary_mag{s = 1, q = 1e-3, rho = 1e-3, y1 = 0, y2 = 0, backend = 'cuda'}",
         "s.lua:2: microlensing.binary_mag: key 'backend' = \"cuda\": the dynamic engine runs on "
         "the CPU only"},
        {"ml.binary_mag{s = 1, q = 1e-3, rho = 1e-3, a1 = 1, y1 = 0, y2 = 0}",
         "s.lua:2: microlensing.binary_mag: a1 = 1: expected 0 <= a1 < 1"},
        {"ml.gridsearch{data = 'x.csv', rho = {min = 0.01, max = 0.001}}",
         "s.lua:2: microlensing.gridsearch: key 'rho' = {min = 0.01, max = 0.001}: expected"},
        {"ml.gridsearch{data = 'x.csv', pixel = 1e-4}",
         "s.lua:2: microlensing.gridsearch: key 'pixel' = 0.0001: only a finite-source search"},
        {"ml.gridsearch{data = 'x.csv', rho = {min = 1e-3, max = 0.01}, start = {t0 = 1, "
         "u0 = 0.1, tE = -2, alpha = 0}}",
         "s.lua:2: microlensing.gridsearch: key 'start': tE = -2: expected a number > 0"},
        {"ml.gridsearch{data = 'x.csv', ra = 10}",
         "s.lua:2: microlensing.gridsearch: key 'ra' = 10: only a search with parallax = "
         "\"annual\" takes it"},
        {"ml.gridsearch{data = 'x.csv', parallax = 'annual', ra = 1, dec = 1, rho = {min = 1e-3, "
         "max = 0.01}}",
         "s.lua:2: microlensing.gridsearch: key 'parallax': the finite-source search"},
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
        "local C = ml.lightcurve(m, {t0 = 0, u0 = 0.1, tE = 10, alpha = 90, rho = 2e-3, t = 0})\n"
        "print('alias', C == A[2])\n"
        "m:lightcurve{t0 = 0, u0 = 0.1, tE = 10, alpha = 90, rho = -1, t = 0}\n",
        out, sizeof out);
    cr_assert_eq(st, 1, "%s", out);
    /* A = 10.03 at the track's middle (VBMicrolensing BinaryMag2) */
    cr_assert(strstr(out, "one\t3\ttrue\ttrue\ttrue"), "%s", out);
    cr_assert(strstr(out, "two\t2\tnumber\ttrue"), "%s", out);
    cr_assert(strstr(out, "alias\ttrue"), "%s", out);
    cr_assert(strstr(out, "s.lua:12: microlensing.lightcurves: model 1: rho = -1: expected a "
                          "number > 0"), "%s", out);
}

/* The photometric likelihood from Lua: prepared on the reference event,
 * the truth's chi^2 against MulensModel's (phot_chi2.csv's first binary
 * row, 641.8179 for 639 points), a band's fitted flux curve, and a bad key
 * named once. */
Test(lua_ml, likelihood)
{
    char out[4096], script[2048];
    snprintf(script, sizeof script,
             "local ml = require('starling').microlensing\n"
             "local L = ml.likelihood{data = '%s/microlensing/phot_event.csv', model = 'binary',\n"
             "                        backend = 'cpu'}\n"
             "local names = {}\n"
             "for _, p in ipairs(L:params()) do names[#names + 1] = p.name end\n"
             "print('params ' .. table.concat(names, ' '))\n"
             "local truth = {7000, 0.05, 25, 1.2, 3e-3, 30}\n"
             "local ll, chi2 = L:eval(truth)\n"
             "print(string.format('chi2 %%.4f ll %%.4f', chi2, ll))\n"
             "local A = L:model({7000, 7040}, truth)\n"
             "local F = L:model({7000, 7040}, truth, 2)\n"
             "print(string.format('fsV %%.5f', (F[1] - F[2]) / (A[1] - A[2])))\n",
             SL_TEST_DATA_DIR);
    int st = run_script(script, out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "params t0 u0 tE s q alpha"), "%s", out);
    cr_assert(strstr(out, "chi2 641.8179 ll -320.9089"), "%s", out);
    cr_assert(strstr(out, "fsV 3.80410"), "%s", out); /* MulensModel: 3.8041024 */
    snprintf(script, sizeof script,
             "local ml = require('starling').microlensing\n"
             "local L = ml.likelihood{data = '%s/microlensing/phot_event.csv', model = 'triple'}\n",
             SL_TEST_DATA_DIR);
    st = run_script(script, out, sizeof out);
    cr_assert_neq(st, 0, "%s", out);
    cr_assert(strstr(out, "s.lua:2"), "%s", out);
    cr_assert(strstr(out, "triple"), "%s", out);
    cr_assert(strstr(out, "pspl"), "%s", out);
}

/* L:minimize{}: batched Nelder-Mead from two PSPL starts on either side
 * of the peak reaches the same chi^2 (u0 and -u0 are the same point lens),
 * and a binary fit with s and q held (step 0) moves t0, u0, tE, alpha only. */
Test(lua_ml, minimize)
{
    char out[4096], script[2048];
    snprintf(script, sizeof script,
             "local ml = require('starling').microlensing\n"
             "local f = '%s/microlensing/phot_event.csv'\n"
             "local L = ml.likelihood{data = f, model = 'pspl', backend = 'cpu'}\n"
             "local r = L:minimize{start = {{6990, 0.3, 10}, {7010, 0.1, 40}}, step = {2, 0.05, 5},\n"
             "                     tol = 1e-8}\n"
             "print(string.format('pspl %%.4f %%.4f %%.5f %%.5f', r.chi2[1], r.chi2[2],\n"
             "                    math.abs(r.x[1][2]), math.abs(r.x[2][2])))\n"
             "local B = ml.likelihood{data = f, model = 'binary', backend = 'cpu'}\n"
             "local b = B:minimize{start = {7000.2, 0.055, 24, 1.2, 3e-3, 31},\n"
             "                     step = {0.1, 0.005, 1, 0, 0, 1}}\n"
             "print(string.format('binary %%.1f s %%g q %%g', b.chi2[1], b.x[1][4], b.x[1][5]))\n"
             "print(pcall(function() return B:minimize{start = {1, 2}, step = {1, 1}} end))\n",
             SL_TEST_DATA_DIR);
    int st = run_script(script, out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "pspl 7992.0166 7992.0166 0.04927 0.04927"), "%s", out);
    cr_assert(strstr(out, "binary 637.3 s 1.2 q 0.003"), "%s", out); /* truth: 641.8 */
    cr_assert(strstr(out, "false") && strstr(out, "expected a list of 6 numbers"), "%s", out);
}

/* The grid search on the reference event (truth s = 1.2, q = 3e-3, alpha =
 * 30 deg, u0 = 0.05; chi^2 641.8 on its 639 points) with a one-cell grid at
 * the truth's (s, q) and 8 alpha slices: the polished best is the truth or
 * its mirror image (u0, alpha) -> (-u0, -alpha), which a binary lens on the
 * x axis cannot tell apart; the CSV has the cell and the configuration,
 * the PNG exists. Measured: chi2 636.10 at s = 1.197, q = 2.85e-3. */
Test(lua_ml, gridsearch, .timeout = 600)
{
    char out[4096], script[2048];
    snprintf(script, sizeof script,
             "local ml = require('starling').microlensing\n"
             "local r = ml.gridsearch{data = '%s/microlensing/phot_event.csv', s = {1.2},\n"
             "  q = {3e-3}, alpha = 8, progress = false, csv = 'grid.csv', png = 'grid.png',\n"
             "  backend = 'cpu'}\n"
             "local b = r.best\n"
             "print(string.format('best chi2 %%.1f s %%.3f q %%.2e alpha %%.1f u0 %%.4f', b.chi2,\n"
             "  b.s, b.q, b.alpha, b.u0))\n"
             "print(#r.cells, r.cells[1].s, r.cells[1].q)\n",
             SL_TEST_DATA_DIR);
    int st = run_script(script, out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_log_info("%s", out);
    double chi2, s, q, alpha, u0;
    const char *b = strstr(out, "best chi2");
    cr_assert_not_null(b, "%s", out);
    cr_assert_eq(sscanf(b, "best chi2 %lf s %lf q %lf alpha %lf u0 %lf", &chi2, &s, &q, &alpha,
                        &u0), 5, "%s", out);
    cr_assert_lt(chi2, 641.8, "%s", out);
    cr_assert_lt(fabs(s - 1.2), 0.02, "%s", out);
    cr_assert_lt(fabs(log10(q / 3e-3)), 0.1, "%s", out);
    double mirror = u0 < 0 ? 360.0 - alpha : alpha; /* (-u0, -alpha) is the same light curve */
    cr_assert_lt(fabs(mirror - 30.0), 2.0, "%s", out);
    cr_assert_lt(fabs(fabs(u0) - 0.05), 0.003, "%s", out);
    cr_assert(strstr(out, "1\t1.2\t0.003"), "%s", out);
    char path[400], line[512];
    snprintf(path, sizeof path, "%s/grid.csv", work);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "no %s", path);
    int rows = 0, header = 0, config = 0;
    while (fgets(line, sizeof line, f)) {
        config |= strstr(line, "8 alpha slices") != NULL;
        header |= !strcmp(line, "s,q,chi2,t0,u0,tE,alpha\n");
        rows += line[0] == '1';
    }
    fclose(f);
    cr_assert(config && header && rows == 1, "config %d header %d rows %d", config, header, rows);
    snprintf(path, sizeof path, "%s/grid.png", work);
    cr_assert_eq(access(path, R_OK), 0, "no %s", path);
}

/* The grid search hands `passbands` to every likelihood it makes: its best
 * chi^2 is the one a likelihood with the same options gives at the best
 * parameters, not the one without them. */
Test(lua_ml, gridsearch_passbands, .timeout = 300)
{
    char out[4096], script[2048];
    snprintf(script, sizeof script,
             "local ml = require('starling').microlensing\n"
             "local data = '%s/microlensing/phot_event.csv'\n"
             "local pb = {band = {'V'}, err_scale = {2}}\n"
             "local r = ml.gridsearch{data = data, s = {1.2}, q = {3e-3}, alpha = 2, polish = 1,\n"
             "  progress = false, backend = 'cpu', passbands = pb}\n"
             "local b = r.best\n"
             "local x = {b.t0, b.u0, b.tE, b.s, b.q, b.alpha}\n"
             "local _, with = ml.likelihood{data = data, model = 'binary', passbands = pb}:eval(x)\n"
             "local _, without = ml.likelihood{data = data, model = 'binary'}:eval(x)\n"
             "print(string.format('grid %%.9g with %%.9g without %%.9g', b.chi2, with, without))\n",
             SL_TEST_DATA_DIR);
    int st = run_script(script, out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    double g, w, wo;
    const char *b = strstr(out, "grid ");
    cr_assert(b && sscanf(b, "grid %lf with %lf without %lf", &g, &w, &wo) == 3, "%s", out);
    cr_log_info("%s", b);
    cr_assert_lt(fabs(g - w), 1e-6 * w, "%s", out);
    cr_assert_gt(wo - w, 1.0, "%s", out);
}

/* Annual parallax in the grid search's polish: a 60-day binary event seen
 * from the Earth (made here from the likelihood's own model at pi_E =
 * (0.3, -0.2), noise-free, errors 0.01 mag) is found again, pi_E to 0.005
 * and chi^2 near 0, where the same search without parallax stops at chi^2
 * in the thousands; the polish's starts include the mirror image (-u0,
 * -alpha), which the ecliptic degeneracy makes a near-equal minimum
 * (measured without it: chi^2 2.7 at u0 = -0.100, pi_E_N = -0.22). */
Test(lua_ml, gridsearch_parallax, .timeout = 300)
{
    char out[4096];
    int st = run_script(
        "local ml = require('starling').microlensing\n"
        "local t = {}\n"
        "for i = 0, 399 do t[#t + 1] = 7850 + 0.75 * i end\n"
        "local f = io.open('flat.csv', 'w') f:write('time,mag,err\\n')\n"
        "for _, x in ipairs(t) do f:write(string.format('%.6f,20,0.01\\n', x)) end f:close()\n"
        "local px = {parallax = 'annual', ra = 269.76, dec = -28.99, time_offset = 2450000,\n"
        "            t0_par = 8000}\n"
        "local c = {data = 'flat.csv', model = 'binary'}\n"
        "for k, v in pairs(px) do c[k] = v end\n"
        "local A = ml.likelihood(c):model(t, {8000, 0.1, 60, 1.2, 3e-3, 30, 0.3, -0.2})\n"
        "f = io.open('px.csv', 'w') f:write('time,mag,err\\n')\n"
        "for i, x in ipairs(t) do\n"
        "  f:write(string.format('%.6f,%.9f,0.01\\n', x, 22 - 2.5 * math.log(A[i] + 0.1, 10)))\n"
        "end f:close()\n"
        "local g = {data = 'px.csv', s = {1.2}, q = {3e-3}, alpha = 2, polish = 1,\n"
        "           progress = false, backend = 'cpu', csv = 'g.csv'}\n"
        "for k, v in pairs(px) do g[k] = v end\n"
        "local b = ml.gridsearch(g).best\n"
        "local b0 = ml.gridsearch{data = 'px.csv', s = {1.2}, q = {3e-3}, alpha = 2, polish = 1,\n"
        "                         progress = false, backend = 'cpu'}.best\n"
        "print(string.format('with %.6g %.6f %.6f %.6f without %.6g', b.chi2, b.pi_E_N,\n"
        "                    b.pi_E_E, b.u0, b0.chi2))\n"
        "print(io.open('g.csv'):read('a'):match('# annual parallax[^\\n]*'))\n",
        out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    double chi2, pn, pe, u0, chi2_0;
    const char *b = strstr(out, "with ");
    cr_assert(b && sscanf(b, "with %lf %lf %lf %lf without %lf", &chi2, &pn, &pe, &u0, &chi2_0) ==
                       5, "%s", out);
    cr_log_info("%s", b);
    cr_expect_lt(chi2, 0.01, "%s", out);
    cr_expect(fabs(pn - 0.3) < 0.005 && fabs(pe + 0.2) < 0.005, "%s", out);
    cr_expect_gt(u0, 0.0, "%s", out);
    cr_expect_gt(chi2_0, 1000.0, "%s", out);
    cr_expect(strstr(out, "# annual parallax in the polish: ra 269.7599999"), "%s", out);
}

/* The photometric likelihood is an ordinary likelihood to the DE-MCMC
 * sampler: a PSPL posterior on the reference event's data, whose
 * median lies at the chi^2 minimum L:minimize finds (t0 7000.174, |u0|
 * 0.04927, tE 26.08), within a few posterior widths. */
Test(lua_ml, demcmc_on_photometry, .timeout = 300)
{
    char out[4096], script[2048];
    snprintf(script, sizeof script,
             "local starling = require('starling')\n"
             "local L = starling.microlensing.likelihood{\n"
             "  data = '%s/microlensing/phot_event.csv', model = 'pspl', backend = 'cpu'}\n"
             "local r = starling.demcmc{likelihood = L, chains = 32, generations = 1500, seed = 4,\n"
             "  progress = false, priors = {t0 = {'uniform', 6995, 7005}, u0 = {'uniform', 0.001, 1},\n"
             "  tE = {'uniform', 1, 100}}}\n"
             "local s = r:summary()\n"
             "print(string.format('t0 %%.4f %%.4f u0 %%.5f %%.5f tE %%.3f %%.3f', s.t0.median, s.t0.sd,\n"
             "  s.u0.median, s.u0.sd, s.tE.median, s.tE.sd))\n",
             SL_TEST_DATA_DIR);
    int st = run_script(script, out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_log_info("%s", out);
    double m[3], sd[3];
    const char *b = strstr(out, "t0 ");
    cr_assert_not_null(b, "%s", out);
    cr_assert_eq(sscanf(b, "t0 %lf %lf u0 %lf %lf tE %lf %lf", &m[0], &sd[0], &m[1], &sd[1], &m[2],
                        &sd[2]), 6, "%s", out);
    const double best[3] = {7000.1744, 0.049265, 26.0796};
    for (int k = 0; k < 3; k++) {
        cr_assert_gt(sd[k], 0.0, "%s", out);
        cr_assert_lt(fabs(m[k] - best[k]), 4.0 * sd[k] + 1e-9, "parameter %d: %s", k, out);
    }
}

/* PLplot exits the process when its PNG driver cannot be loaded; the map's
 * picture asks first, so a machine without the driver gets an error that
 * names the file, and the script's earlier output stands. */
Test(lua_ml, png_without_plplot_driver)
{
    char path[400], cmd[1200], out[4096];
    snprintf(path, sizeof path, "%s/s.lua", work);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("local ml = require('starling').microlensing\n"
          "print('before')\n"
          "local r = ml.map{s = 1, q = 0.1, box = {-0.2, 0.2, -0.2, 0.2}, pixels = 32, rays = 4,\n"
          "                 png = 'm.png'}\n",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd '%s' && PLPLOT_DRV_DIR=/nonexistent '%s' s.lua 2>&1", work,
             STARLING);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 0, "%s", out);
    cr_assert(strstr(out, "before"), "%s", out);
    cr_assert(strstr(out, "s.lua:3") && strstr(out, "cannot write m.png") &&
              strstr(out, "pngcairo"), "%s", out);
    snprintf(path, sizeof path, "%s/m.png", work);
    cr_assert_neq(access(path, F_OK), 0, "a PNG was written");
}

/* The grid's axes are sorted whatever order the lists come in (the table
 * and the picture run one way; a descending list once gave the picture
 * xmin > xmax, which PLplot refused), and a grid of one row still draws. */
Test(lua_ml, gridsearch_axes_sorted)
{
    char out[4096], script[2048];
    snprintf(script, sizeof script,
             "local ml = require('starling').microlensing\n"
             "local r = ml.gridsearch{data = '%s/microlensing/phot_event.csv', s = {1.2, 0.8},\n"
             "  q = {3e-3}, alpha = 1, iterations = 20, polish = 1, progress = false,\n"
             "  png = 'axes.png', backend = 'cpu'}\n"
             "print('cells', #r.cells, r.cells[1].s, r.cells[2].s)\n",
             SL_TEST_DATA_DIR);
    int st = run_script(script, out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "cells\t2\t0.8\t1.2"), "%s", out);
    cr_assert_null(strstr(out, "PLPLOT"), "%s", out);
    char path[400];
    snprintf(path, sizeof path, "%s/axes.png", work);
    cr_assert_eq(access(path, R_OK), 0, "no %s", path);
}

/* The finite-source grid search (model fsbl, a map per cell) on
 * fsbl_event.csv (BinaryMag2's rho = 0.02 source across the caustic of
 * s = 1.1, q = 0.01): two cells, the truth's and q = 0.003; the truth's
 * cell wins, with rho, u0 and alpha recovered and chi^2 near the truth's
 * 124.1 (141 points); the CSV has the rho column and the configuration.
 * Measured (CPU): chi^2 118.80 against 528.50 for q = 0.003; rho 0.02000,
 * u0 0.05043, alpha 60.26. */
Test(lua_ml, gridsearch_finite_source, .timeout = 600)
{
    char out[4096], script[2048];
    snprintf(script, sizeof script,
             "local ml = require('starling').microlensing\n"
             "local r = ml.gridsearch{data = '%s/microlensing/fsbl_event.csv', s = {1.1},\n"
             "  q = {0.003, 0.01}, alpha = 4, rho = {min = 0.01, max = 0.04}, pixel = 2e-3,\n"
             "  rays = 100, progress = false, csv = 'fs.csv', backend = 'cpu', polish = 1}\n"
             "local b = r.best\n"
             "print(string.format('best chi2 %%.2f q %%.4f rho %%.5f u0 %%.5f alpha %%.2f', b.chi2,\n"
             "  b.q, b.rho, b.u0, b.alpha))\n"
             "print(string.format('cell chi2 %%.2f %%.2f', r.cells[1].chi2, r.cells[2].chi2))\n",
             SL_TEST_DATA_DIR);
    int st = run_script(script, out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_log_info("%s", out);
    double chi2, q, rho, u0, alpha, c1, c2;
    const char *b = strstr(out, "best chi2");
    cr_assert_not_null(b, "%s", out);
    cr_assert_eq(sscanf(b, "best chi2 %lf q %lf rho %lf u0 %lf alpha %lf", &chi2, &q, &rho, &u0,
                        &alpha), 5, "%s", out);
    const char *c = strstr(out, "cell chi2");
    cr_assert_not_null(c, "%s", out);
    cr_assert_eq(sscanf(c, "cell chi2 %lf %lf", &c1, &c2), 2, "%s", out);
    cr_assert_eq(q, 0.01, "%s", out);
    cr_assert_lt(c2, c1 - 100.0, "the truth's cell must win clearly: %s", out);
    cr_assert_lt(chi2, 124.12 + 10.0, "%s", out);
    cr_assert_lt(fabs(rho / 0.02 - 1.0), 0.05, "%s", out);
    double mirror = u0 < 0 ? 360.0 - alpha : alpha;
    cr_assert_lt(fabs(mirror - 60.0), 2.0, "%s", out);
    cr_assert_lt(fabs(fabs(u0) - 0.05), 0.005, "%s", out);
    char path[400], line[512];
    snprintf(path, sizeof path, "%s/fs.csv", work);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "no %s", path);
    int header = 0, config = 0;
    while (fgets(line, sizeof line, f)) {
        config |= strstr(line, "finite source (model fsbl") != NULL;
        header |= !strcmp(line, "s,q,chi2,t0,u0,tE,alpha,rho\n");
    }
    fclose(f);
    cr_assert(config && header, "config %d header %d", config, header);
}

/* ---- interrupts ------------------------------------------------------------------- */

static double slt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Starts `starling run s.lua` (script written first) in a folder of its
 * own, stdout and stderr to files beside that folder. */
static pid_t spawn_script(const char *dir, const char *script)
{
    char path[400];
    snprintf(path, sizeof path, "%s/s.lua", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(script, f);
    fclose(f);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        char out[400], err[400];
        snprintf(out, sizeof out, "%s/stdout", work);
        snprintf(err, sizeof err, "%s/stderr", work);
        if (chdir(dir) || !freopen(out, "w", stdout) || !freopen(err, "w", stderr))
            _exit(120);
        execl(STARLING, "starling", "run", "s.lua", (char *)NULL);
        _exit(121);
    }
    return pid;
}

/* Waits until the script has written `mark` to stderr (its signal handlers
 * are in place by then), at most limit_s. */
static void wait_for_mark(pid_t pid, const char *mark, double limit_s)
{
    char path[400], buf[4096];
    snprintf(path, sizeof path, "%s/stderr", work);
    for (double t0 = slt_now(); slt_now() - t0 < limit_s; usleep(10000)) {
        int st;
        cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "starling ended before '%s'", mark);
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        buf[n] = 0;
        if (strstr(buf, mark))
            return;
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    cr_assert_fail("the script never wrote '%s'", mark);
}

/* Sends SIGINT `after_s` after the mark; returns the seconds until the exit
 * (the child killed, and the test failed, after limit_s) and the status. */
static double interrupt_after(pid_t pid, double after_s, double limit_s, int *status)
{
    usleep((useconds_t)(after_s * 1e6));
    cr_assert_eq(waitpid(pid, status, WNOHANG), 0, "starling ended before the signal");
    kill(pid, SIGINT);
    double t0 = slt_now();
    while (slt_now() - t0 < limit_s) {
        if (waitpid(pid, status, WNOHANG) == pid)
            return slt_now() - t0;
        usleep(5000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    cr_assert_fail("starling did not exit within %.1f s of SIGINT", limit_s);
    return limit_s;
}

/* The names in dir but s.lua, space-separated, into names; their count. */
static int leftovers(const char *dir, char *names, size_t cap)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    names[0] = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, "s.lua"))
            continue;
        n++;
        strncat(names, de->d_name, cap - strlen(names) - 2);
        strcat(names, " ");
    }
    closedir(d);
    return n;
}

/* One interrupted script: SIGINT a second after its mark; it must end with
 * 130 within 1.5 s of the signal and leave no file (finished, partial or
 * temporary) in its folder. */
static void expect_prompt_interrupt(const char *script, const char *mark, const char *what)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/run", work);
    cr_assert(mkdir(dir, 0700) == 0);
    pid_t pid = spawn_script(dir, script);
    wait_for_mark(pid, mark, 30);
    int st = 0;
    double took = interrupt_after(pid, 1.0, 10.0, &st);
    char path[400];
    snprintf(path, sizeof path, "%s/stderr", work);
    FILE *f = fopen(path, "r");
    char err[4096] = {0};
    if (f) {
        size_t n = fread(err, 1, sizeof err - 1, f);
        err[n] = 0;
        fclose(f);
    }
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 130, "%s: status %d\n%s", what,
              WIFEXITED(st) ? WEXITSTATUS(st) : -1, err);
    cr_expect(strstr(err, "starling: interrupted by SIGINT"), "%s: %s", what, err);
    cr_expect_leq(took, 1.5, "%s: %.2f s from SIGINT to the exit\n%s", what, took, err);
    char names[2048];
    cr_expect_eq(leftovers(dir, names, sizeof names), 0, "%s left behind: %s", what, names);
}

/* A CPU map of 4096^2 pixels and 400 rays per pixel (minutes on a few
 * cores, most of it finding the active cells of a lens plane of 3e8 cells,
 * then shooting): the first SIGINT ends it within a second, with no FITS or
 * PNG, whole or partial, left behind. */
Test(lua_ml, map_interrupt_within_a_second, .timeout = 60)
{
    expect_prompt_interrupt(
        "local ml = require('starling').microlensing\n"
        "io.stderr:write('mapping\\n')\n"
        "ml.map{s = 1.1, q = 0.01, box = {-0.35, 0.35, -0.35, 0.35}, pixels = 4096, rays = 400,\n"
        "       seed = 1, backend = 'cpu', fits = 'm.fits', png = 'm.png'}\n"
        "print('finished')\n",
        "mapping", "a 4096^2 CPU map");
}

/* The grid search polls the request in every batch of fits (the simplex
 * checks it after each batch of likelihood calls): SIGINT ends a CPU grid
 * search within a second, and its table and picture are not written. */
Test(lua_ml, gridsearch_interrupt_within_a_second, .timeout = 60)
{
    char script[2048];
    snprintf(script, sizeof script,
             "local ml = require('starling').microlensing\n"
             "io.stderr:write('searching\\n')\n"
             "ml.gridsearch{data = '%s/microlensing/phot_event.csv', s = {from = 0.3, to = 3, n = 40},\n"
             "  q = {from = 1e-5, to = 1, n = 20}, alpha = 16, progress = false, csv = 'g.csv',\n"
             "  png = 'g.png', backend = 'cpu'}\n"
             "print('finished')\n",
             SL_TEST_DATA_DIR);
    expect_prompt_interrupt(script, "searching", "a CPU grid search");
}
