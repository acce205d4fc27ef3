/* The Lua face of issue 4, tested from outside (as tests/test_lua.c): the
 * built executable runs small scripts using starling.lombscargle with
 * objects = {...} and FITS columns = {...}, starling.plot_png, and bad
 * inputs, whose messages must name the user's line and carry the
 * "lombscargle: " context once. */
#define _GNU_SOURCE
#include "sl_test.h"
#include "slt_files.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define STARLING SL_BUILD_DIR "/bin/starling"

static char work[256];

static void make_dir(void) { slt_tmpdir(work, sizeof work, "/tmp/sl_test_lua_ls"); }

static void remove_dir(void) { slt_rmtree(work); }

TestSuite(lua_ls, .init = make_dir, .fini = remove_dir, .timeout = 120);

/* Runs a script from stdin; returns the exit status, stdout+stderr in out. */
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

Test(lua_ls, objects_batch_and_flags)
{
    char out[4096];
    int st = run_script(
        "local s = require 'starling'\n"
        "local t, y = {}, {}\n"
        "for i = 1, 200 do t[i] = i * 0.37; y[i] = math.sin(2 * math.pi * t[i] / 3.1) end\n"
        "local r = s.lombscargle{objects = {{t = t, y = y, id = 'a'}, {t = {1, 2}, y = {1, 2}}},\n"
        "                        grid = 'explicit', f_min = 0.05, f_max = 1.2, n_f = 5000}\n"
        "print(r.n, r[1].id, r[1].flag, r[2].id, r[2].flag)\n"
        "print(string.format('period %.3f', r[1].best_period))\n"
        "print('times', r.prep_s >= 0 and r.prep_s <= r.wall_s, r.kernel_s <= r.wall_s)\n",
        out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "2\ta\tok\t2\tfewer than 3 points"), "%s", out);
    cr_assert(strstr(out, "period 3.100"), "%s", out);
    cr_assert(strstr(out, "times\ttrue\ttrue"), "%s", out);
}

/* fast_accuracy from Lua: a looser bound gives a lower order and still the
 * period; a value outside the schema's range is refused naming the key. */
Test(lua_ls, fast_accuracy_key)
{
    char out[4096];
    int st = run_script(
        "local s = require 'starling'\n"
        "local t, y = {}, {}\n"
        "for i = 1, 300 do t[i] = 50000 + i * 0.91; y[i] = math.sin(2 * math.pi * t[i] / 3.1) end\n"
        "local r = s.lombscargle{t = t, y = y, engine = 'fast', fast_accuracy = 1e-6,\n"
        "                        grid = 'explicit', f_min = 0.05, f_max = 0.5, n_f = 4096}\n"
        "print(r.engine, r.n_fast, string.format('period %.3f', r[1].best_period))\n"
        "s.lombscargle{t = t, y = y, fast_accuracy = 1}\n",
        out, sizeof out);
    cr_assert_neq(st, 0, "%s", out);
    cr_assert(strstr(out, "fast/fp64/cpu\t1\tperiod 3.100"), "%s", out);
    cr_assert(strstr(out, "fast_accuracy") && strstr(out, "s.lua:7"), "%s", out);
}

/* `starling ls --fast-accuracy=X`: the same key from the command line,
 * checked against the schema before any file is read. */
Test(lua_ls, cli_fast_accuracy)
{
    char cmd[1200], out[4096];
    const char *cases[3] = {"--engine=fast --fast-accuracy=1e-6", "--fast-accuracy=abc",
                            "--fast-accuracy=1"};
    for (int c = 0; c < 3; c++) {
        snprintf(cmd, sizeof cmd, "'%s' ls %s '%s/ls_single.csv' 2>&1", STARLING, cases[c],
                 SL_TEST_DATA_DIR);
        FILE *p = popen(cmd, "r");
        cr_assert(p);
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        int st = pclose(p);
        st = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (c == 0) {
            cr_assert_eq(st, 0, "%s", out);
            cr_assert(strstr(out, "2.69116"), "%s", out);
        } else {
            cr_assert_eq(st, 2, "%s: %s", cases[c], out);
            cr_assert(strstr(out, c == 1 ? "--fast-accuracy: 'abc' is not a number"
                                         : "'fast_accuracy' = 1: expected"),
                      "%s", out);
        }
    }
}

Test(lua_ls, errors_name_line_once)
{
    char out[4096];
    int st = run_script("local s = require 'starling'\n"
                        "print('start')\n"
                        "s.lombscargle{t = {1, 2, 3}, y = {1, 2, 3}, grid = 'explicit', f_min = 2, "
                        "f_max = 1, n_f = 3}\n"
                        "print('not reached')\n",
                        out, sizeof out);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "s.lua:3: lombscargle: f_min = 2 >= f_max = 1"), "%s", out);
    cr_assert_null(strstr(out, "lombscargle: lombscargle:"), "%s", out);
    cr_assert_null(strstr(out, "not reached"), "%s", out);
}

Test(lua_ls, fits_columns_and_missing_file)
{
    char out[4096];
    int st = run_script("local s = require 'starling'\n"
                        "print('start')\n"
                        "s.lombscargle{file = 'missing.fits', columns = {t = 'BTJD'}}\n",
                        out, sizeof out);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "s.lua:3: lombscargle: missing.fits: cannot be read"), "%s", out);
    st = run_script("local s = require 'starling'\n"
                    "print('start')\n"
                    "s.lombscargle{file = 'x.fits', columns = {t = 3}}\n",
                    out, sizeof out);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "s.lua:3: lombscargle: t = 3"), "%s", out);
}

/* a PNG of the right size comes out; bad plot input is refused */
Test(lua_ls, plot_png)
{
    char out[4096];
    int st = run_script(
        "local s = require 'starling'\n"
        "local t, y = {}, {}\n"
        "for i = 1, 100 do t[i] = i * 0.7 + 0.1 * math.sin(i); y[i] = math.cos(t[i]) end\n"
        "local r = s.lombscargle{t = t, y = y, full = true}\n"
        "s.plot_png{path = 'p.png', object = r[1], mark = r[1].best_frequency, width = 640,\n"
        "           height = 360, title = 'test'}\n"
        "print('ok')\n",
        out, sizeof out);
    cr_assert_eq(st, 0, "%s", out);
    char path[400];
    snprintf(path, sizeof path, "%s/p.png", work);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "no PNG written");
    unsigned char h[24];
    cr_assert_eq(fread(h, 1, 24, f), 24);
    fclose(f);
    cr_assert(!memcmp(h, "\x89PNG\r\n\x1a\n", 8), "not a PNG");
    unsigned w = (unsigned)h[16] << 24 | (unsigned)h[17] << 16 | (unsigned)h[18] << 8 | h[19];
    unsigned hh = (unsigned)h[20] << 24 | (unsigned)h[21] << 16 | (unsigned)h[22] << 8 | h[23];
    cr_assert_eq(w, 640);
    cr_assert_eq(hh, 360);
    st = run_script("local s = require 'starling'\n"
                    "print('start')\n"
                    "s.plot_png{path = 'q.png', x = {1, 2}, y = {1}}\n",
                    out, sizeof out);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "s.lua:3: plot_png: give object"), "%s", out);
    st = run_script("local s = require 'starling'\n"
                    "print('start')\n"
                    "s.plot_png{path = 'q.png', x = {1, 2}, y = {1, 2}, colour = 'red'}\n",
                    out, sizeof out);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "unknown key 'colour'"), "%s", out);
}

/* A PNG that cannot be written says so once, with the reason, and leaves
 * nothing behind (it used to print "starling:" twice and no cause). */
Test(lua_ls, plot_png_write_error_says_why)
{
    char out[4096];
    int st = run_script("local s = require 'starling'\n"
                        "print('start')\n"
                        "s.plot_png{path = 'nodir/q.png', x = {1, 2}, y = {1, 2}}\n",
                        out, sizeof out);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "starling: s.lua:3: plot_png: cannot write 'nodir/q.png': the "
                          "folder 'nodir/': No such file or directory"), "%s", out);
    const char *first = strstr(out, "starling:");
    cr_assert(first && !strstr(first + 1, "starling:"), "'starling:' more than once:\n%s", out);
    /* a folder where the file should be: refused before drawing, nothing made */
    char dir[400];
    snprintf(dir, sizeof dir, "%s/taken.png", work);
    cr_assert_eq(mkdir(dir, 0755), 0);
    st = run_script("local s = require 'starling'\n"
                    "print('start')\n"
                    "s.plot_png{path = 'taken.png', x = {1, 2}, y = {1, 2}}\n",
                    out, sizeof out);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "s.lua:3: plot_png: cannot write 'taken.png': it is a folder"), "%s",
              out);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -v '^s.lua$\\|^taken.png$' | grep -q .", work);
    cr_assert_neq(system(cmd), 0, "files left behind in %s", work);
}
