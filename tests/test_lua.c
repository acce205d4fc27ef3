/* The starling executable and its Lua API, tested from outside: each test
 * writes a small script into a fresh folder, runs the built executable on
 * it, and checks the exit status, the messages and the files left behind.
 *
 * Bad-input scripts put the offending call on line 3 and a print after it,
 * so a test sees that the error names the user's line, that the script
 * stopped there, and (the folder holds nothing but the script afterwards)
 * that no output file, not even a temporary one, was created. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "starling/version.h"
#include "slt_files.h"

#define STARLING SL_BUILD_DIR "/bin/starling"

typedef struct run_out {
    int status; /* exit status, or -1 when it did not exit normally */
    char *out, *err;
} run_out;

static char base[256], work[300];

static void make_dirs(void)
{
    slt_tmpdir(base, sizeof base, "/tmp/sl_test_lua");
    snprintf(work, sizeof work, "%s/w", base);
    cr_assert(mkdir(work, 0755) == 0);
}

static void remove_dirs(void) { slt_rmtree(base); }

TestSuite(lua, .init = make_dirs, .fini = remove_dirs, .timeout = 120);

static char *slurp(const char *path) { return slt_slurp(path); }

static void write_text(const char *name, const char *text) { slt_write_text(work, name, text); }

static int exists(const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", work, name);
    return access(path, F_OK) == 0;
}

/* Every name in the work folder, hidden ones included, for messages. */
static int list_work(char *buf, size_t cap)
{
    DIR *d = opendir(work);
    int n = 0;
    size_t used = 0;
    buf[0] = '\0';
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        n++;
        used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s ", de->d_name);
    }
    if (d)
        closedir(d);
    return n;
}

/* Runs `ENV starling ARGS` in the work folder, stdin from `input` (or empty). */
static run_out run_env(const char *env, const char *args, const char *input)
{
    char cmd[2048], out_path[400], err_path[400], in_path[400];
    snprintf(out_path, sizeof out_path, "%s/stdout", base);
    snprintf(err_path, sizeof err_path, "%s/stderr", base);
    snprintf(in_path, sizeof in_path, "%s/stdin", base);
    FILE *f = fopen(in_path, "w");
    cr_assert(f);
    fputs(input ? input : "", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' %s <'%s' >'%s' 2>'%s'", work, env, STARLING,
             args, in_path, out_path, err_path);
    int st = system(cmd);
    run_out o = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(out_path), slurp(err_path)};
    cr_assert(o.out && o.err, "no output captured for: %s", cmd);
    return o;
}

static run_out run(const char *args, const char *input)
{
    return run_env("", args, input);
}

static void free_out(run_out *o)
{
    free(o->out);
    free(o->err);
}

static void expect_all(const char *text, const char *const *needles, const char *what)
{
    for (; *needles; needles++)
        cr_expect(strstr(text, *needles), "%s lacks \"%s\":\n%s", what, *needles, text);
}

/* The bad call goes on line 3; "out.csv" is the file it must not create. */
static void expect_bad(const char *line3, const char *const *needles)
{
    char script[2048];
    snprintf(script, sizeof script,
             "local starling = require \"starling\"\n"
             "local E = starling.ensemble{ n = 4, planets = 2, seed = 1 }\n"
             "%s\n"
             "print(\"not reached\")\n",
             line3);
    write_text("bad.lua", script);
    run_out o = run("run bad.lua", NULL);
    cr_expect_eq(o.status, 1, "exit status %d for: %s\nstderr: %s", o.status, line3, o.err);
    cr_expect(strncmp(o.err, "starling: bad.lua:3: ", 21) == 0,
              "stderr should start with 'starling: bad.lua:3: ':\n%s", o.err);
    cr_expect(!strstr(o.out, "not reached"), "the script went on after the error");
    expect_all(o.err, needles, "stderr");
    char names[1024];
    int n = list_work(names, sizeof names);
    cr_expect_eq(n, 1, "files left besides bad.lua: %s", names);
    cr_expect(!exists("out.csv"));
    free_out(&o);
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- integrate: bad keys and values -------------------------------------- */

Test(lua, integrate_out_of_range)
{
    expect_bad("starling.integrate{ ensemble = E, dt = -1, t_end = 10, log = \"out.csv\" }",
               NEEDLES("integrate: key 'dt' = -1: expected a finite number in [1e-300, 1e+300]"));
}

Test(lua, integrate_nan)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0/0, t_end = 10, log = \"out.csv\" }",
               NEEDLES("key 'dt' = nan", "expected a finite number"));
}

Test(lua, integrate_inf)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.01, t_end = math.huge, log = \"out.csv\" }",
               NEEDLES("key 't_end' = inf", "expected a finite number in [0, 1e+300]"));
}

Test(lua, integrate_wrong_type)
{
    expect_bad("starling.integrate{ ensemble = E, dt = \"fast\", t_end = 10, log = \"out.csv\" }",
               NEEDLES("key 'dt' = \"fast\" (a string): expected a finite number"));
}

Test(lua, integrate_unknown_key)
{
    expect_bad("starling.integrate{ ensemble = E, dtt = 0.01, t_end = 10, log = \"out.csv\" }",
               NEEDLES("integrate: unknown key 'dtt' (= 0.01)", "known keys:", "dt", "t_end"));
}

Test(lua, integrate_missing_required)
{
    expect_bad("starling.integrate{ ensemble = E, t_end = 10, log = \"out.csv\" }",
               NEEDLES("integrator 'hermite': key 'dt' is required"));
}

Test(lua, integrate_not_integer)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, max_steps = 2.5, "
               "log = \"out.csv\" }",
               NEEDLES("key 'max_steps' = 2.5: expected an integer"));
}

Test(lua, integrate_unknown_integrator)
{
    expect_bad("starling.integrate{ ensemble = E, integrator = \"leapfrog\", dt = 0.1, t_end = 1, "
               "log = \"out.csv\" }",
               NEEDLES("key 'integrator' = \"leapfrog\"", "unknown integrator 'leapfrog'",
                       "available: hermite"));
}

Test(lua, integrate_unknown_force)
{
    expect_bad("starling.integrate{ ensemble = E, force = \"mond\", dt = 0.1, t_end = 1, "
               "log = \"out.csv\" }",
               NEEDLES("key 'force' = \"mond\"", "unknown force 'mond'", "newton"));
}

Test(lua, integrate_integrator_table_params)
{
    expect_bad("starling.integrate{ ensemble = E, integrator = {\"hermite\", dt = 0}, t_end = 1, "
               "log = \"out.csv\" }",
               NEEDLES("integrator 'hermite': key 'dt' = 0: expected"));
}

Test(lua, integrate_unknown_monitor)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, monitors = {\"ejekt\"}, "
               "log = \"out.csv\" }",
               NEEDLES("monitors[1] = \"ejekt\"", "unknown monitor 'ejekt'", "eject"));
}

Test(lua, integrate_monitor_param_range)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, "
               "monitors = {\"close_encounter\", {\"eject\", r = -5}}, log = \"out.csv\" }",
               NEEDLES("monitors[2] ('eject'): key 'r' = -5: expected a finite number"));
}

Test(lua, integrate_monitor_unknown_key)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, "
               "monitors = {{\"eject\", radius = 5}}, log = \"out.csv\" }",
               NEEDLES("monitors[1] ('eject'): unknown key 'radius' (= 5)", "known keys: r"));
}

Test(lua, integrate_monitor_required_key)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, monitors = {{\"energy\"}}, "
               "log = \"out.csv\" }",
               NEEDLES("monitors[1] ('energy'): key 'max' is required"));
}

Test(lua, integrate_monitors_not_a_list)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, "
               "monitors = {eject = {r = 5}}, log = \"out.csv\" }",
               NEEDLES("key 'monitors'", "[\"eject\"]", "expected a list"));
}

Test(lua, integrate_bad_backend)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, backend = \"gpu\", "
               "log = \"out.csv\" }",
               NEEDLES("key 'backend' = \"gpu\": expected \"auto\", \"cpu\", \"cuda\" or "
                       "\"cuda:N\""));
}

Test(lua, integrate_bad_backend_device)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, backend = \"cuda:x\", "
               "log = \"out.csv\" }",
               NEEDLES("key 'backend' = \"cuda:x\": expected"));
}

Test(lua, integrate_not_an_ensemble)
{
    expect_bad("starling.integrate{ ensemble = {}, dt = 0.1, t_end = 1, log = \"out.csv\" }",
               NEEDLES("key 'ensemble' = a table: expected an ensemble"));
}

Test(lua, integrate_bad_progress)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, progress = 3, "
               "log = \"out.csv\" }",
               NEEDLES("key 'progress' = 3: expected true, false or function"));
}

Test(lua, integrate_log_monitor_without_file)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, "
               "monitors = {{\"log\", every = 10}} }",
               NEEDLES("monitor 'log' needs the key 'log'"));
}

Test(lua, integrate_log_in_missing_folder)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 1, log = \"no/such/out.csv\" }",
               NEEDLES("key 'log' = \"no/such/out.csv\"", "cannot create"));
}

/* A progress function's error surfaces as itself, and the log is removed. */
Test(lua, integrate_progress_error_removes_log)
{
    expect_bad("starling.integrate{ ensemble = E, dt = 0.1, t_end = 100, steps_per_launch = 10, "
               "log = \"out.csv\", progress = function() error(\"stop here\") end }",
               NEEDLES("bad.lua:3: stop here"));
}

Test(lua, write_csv_into_missing_folder)
{
    expect_bad("E:write_csv(\"no/such/out.csv\")",
               NEEDLES("write_csv: cannot create 'no/such/out.csv': No such file or directory"));
}

/* ---- ensembles ------------------------------------------------------------- */

Test(lua, ensemble_bad_mass)
{
    expect_bad("local E2 = starling.ensemble{ n = 10, planet_mass = -1e-3 }; E2:write_csv(\"out.csv\")",
               NEEDLES("ensemble: key 'planet_mass' = -0.001: expected a finite number in [0, 1]"));
}

Test(lua, ensemble_zero_planets)
{
    expect_bad("local E2 = starling.ensemble{ n = 10, planets = 0 }; E2:write_csv(\"out.csv\")",
               NEEDLES("ensemble: key 'planets' = 0: expected an integer in [1, 63]"));
}

Test(lua, ensemble_zero_systems)
{
    expect_bad("local E2 = starling.ensemble{ n = 0 }; E2:write_csv(\"out.csv\")",
               NEEDLES("ensemble: key 'n' = 0: expected an integer in [1, 1000000000]"));
}

Test(lua, ensemble_fractional_n)
{
    expect_bad("local E2 = starling.ensemble{ n = 2.5 }; E2:write_csv(\"out.csv\")",
               NEEDLES("ensemble: key 'n' = 2.5: expected an integer"));
}

Test(lua, ensemble_nan_spacing)
{
    expect_bad("local E2 = starling.ensemble{ n = 10, spacing = 0/0 }; E2:write_csv(\"out.csv\")",
               NEEDLES("ensemble: key 'spacing' = nan: expected a finite number"));
}

Test(lua, ensemble_spacing_function_value)
{
    expect_bad("local E2 = starling.ensemble{ n = 10, spacing = function(i) return i == 7 and -1 "
               "or 0.3 end }; E2:write_csv(\"out.csv\")",
               NEEDLES("ensemble: spacing(7): key 'spacing' = -1: expected"));
}

Test(lua, ensemble_spacing_range_incomplete)
{
    expect_bad("local E2 = starling.ensemble{ n = 10, spacing = {min = 0.1} }; "
               "E2:write_csv(\"out.csv\")",
               NEEDLES("key 'spacing': key 'max' is required"));
}

Test(lua, ensemble_unknown_key)
{
    expect_bad("local E2 = starling.ensemble{ n = 10, planetz = 3 }; E2:write_csv(\"out.csv\")",
               NEEDLES("ensemble: unknown key 'planetz' (= 3)", "planets"));
}

Test(lua, ensemble_body_table)
{
    expect_bad("local E2 = starling.ensemble{ systems = { { {m = 1}, {m = 1e-3, x = {1, 0/0, 0}} } "
               "} }; E2:write_csv(\"out.csv\")",
               NEEDLES("ensemble: systems[1][2]: key 'x'[2] = nan: expected a finite number"));
}

Test(lua, ensemble_ragged_systems)
{
    expect_bad("local E2 = starling.ensemble{ systems = { { {m = 1}, {m = 1e-3} }, { {m = 1} } } }",
               NEEDLES("systems[2] has 1 bodies, but systems[1] has 2"));
}

Test(lua, method_bad_index)
{
    expect_bad("print(E:body(5, 1))", NEEDLES("body: system 5: expected an integer in [1, 4]"));
}

/* ---- CSV ensembles ------------------------------------------------------------ */

static void expect_bad_csv(const char *csv, const char *const *needles)
{
    write_text("in.csv", csv);
    write_text("bad.lua", "local starling = require \"starling\"\n\n"
                          "local E = starling.read_ensemble(\"in.csv\")\n"
                          "print(\"not reached\")\n");
    run_out o = run("run bad.lua", NULL);
    cr_expect_eq(o.status, 1);
    cr_expect(strncmp(o.err, "starling: bad.lua:3: read_ensemble: ", 36) == 0, "%s", o.err);
    cr_expect(!strstr(o.out, "not reached"));
    expect_all(o.err, needles, "stderr");
    free_out(&o);
}

#define CSV_HEAD "sys,body,m,x,y,z,vx,vy,vz\n"

Test(lua, csv_bad_number)
{
    expect_bad_csv("# comment\n" CSV_HEAD "1,1,1,0,0,0,0,0,0\n1,2,0.001,1,0,0,0,abc,0\n",
                   NEEDLES("in.csv:4: column 8 (vy) = \"abc\": expected a finite number"));
}

Test(lua, csv_negative_mass)
{
    expect_bad_csv(CSV_HEAD "1,1,1,0,0,0,0,0,0\n1,2,-1,1,0,0,0,1,0\n",
                   NEEDLES("in.csv:3: column 3 (m) = -1: expected a number >= 0"));
}

Test(lua, csv_bad_header)
{
    expect_bad_csv("sys,body,m,x,y,z\n1,1,1,0,0,0\n",
                   NEEDLES("in.csv:1: the header (\"sys\", \"body\", \"m\", \"x\", \"y\", \"z\") "
                           "names no vx column: expected a column named vx"));
}

Test(lua, csv_short_row)
{
    expect_bad_csv(CSV_HEAD "1,1,1,0,0,0,0,0\n", NEEDLES("in.csv:2: 8 fields, but the header (line 1) has 9"));
}

Test(lua, csv_out_of_order)
{
    expect_bad_csv(CSV_HEAD "1,1,1,0,0,0,0,0,0\n1,3,1,1,0,0,0,1,0\n",
                   NEEDLES("in.csv:3: sys 1, body 3 out of order"));
}

Test(lua, csv_ragged)
{
    expect_bad_csv(CSV_HEAD "1,1,1,0,0,0,0,0,0\n1,2,1e-3,1,0,0,0,1,0\n2,1,1,0,0,0,0,0,0\n",
                   NEEDLES("in.csv:4: system 2 has 1 bodies, but system 1 has 2"));
}

Test(lua, csv_no_rows)
{
    expect_bad_csv(CSV_HEAD, NEEDLES("in.csv: no data lines (expected an ensemble (one row per body): sys, body, m, "
                   "x, y, z, vx, vy, vz)"));
}

/* ---- commands --------------------------------------------------------------------- */

Test(lua, version)
{
    run_out o = run("--version", NULL);
    cr_expect_eq(o.status, 0);
    expect_all(o.out, NEEDLES("starling " SL_VERSION "\n", "CUDA: ", "Lua 5.4"), "stdout");
    cr_expect(strstr(o.out, SL_CORE_HAS_CUDA ? "built in" : "not built in"), "%s", o.out);
    free_out(&o);
}

Test(lua, help)
{
    run_out o = run("--help", NULL);
    cr_expect_eq(o.status, 0);
    expect_all(o.out, NEEDLES("usage: starling run FILE.lua", "starling plugins"), "stdout");
    free_out(&o);
}

Test(lua, unknown_command)
{
    run_out o = run("frobnicate", NULL);
    cr_expect_eq(o.status, 2);
    cr_expect(strstr(o.err, "unknown command 'frobnicate'"), "%s", o.err);
    free_out(&o);
}

Test(lua, plugins)
{
    run_out o = run("plugins", NULL);
    cr_expect_eq(o.status, 0);
    expect_all(o.out,
               NEEDLES("integrators:\n", "  hermite: ", "forces:\n", "  newton: ", "monitors:\n",
                       "  log: ", "  eject: ", "  close_encounter: ", "hermite.so",
                       "dt", "required", "[1e-300, 1e+300]", "every", "default 0"),
               "stdout");
    free_out(&o);
}

/* A file on the plugin path that is not a plugin is reported, not fatal. */
Test(lua, plugins_reports_problems)
{
    char dir[400], env[500];
    snprintf(dir, sizeof dir, "%s/plugins", base);
    cr_assert(mkdir(dir, 0755) == 0);
    snprintf(env, sizeof env, "%s/broken.so", dir);
    FILE *f = fopen(env, "w");
    cr_assert(f);
    fputs("not a shared object\n", f);
    fclose(f);
    snprintf(env, sizeof env, "STARLING_PLUGIN_PATH='%s'", dir);
    run_out o = run_env(env, "plugins", NULL);
    cr_expect_eq(o.status, 0);
    cr_expect(strstr(o.out, "  hermite: "), "%s", o.out);
    cr_expect(strstr(o.err, "starling: warning: plugin "), "%s", o.err);
    cr_expect(strstr(o.err, "broken.so: cannot be loaded"), "%s", o.err);
    free_out(&o);
}

Test(lua, plugins_from_lua)
{
    write_text("p.lua",
               "local s = require \"starling\"\n"
               "local seen = {}\n"
               "for _, p in ipairs(s.plugins()) do seen[p.kind .. ':' .. p.name] = p end\n"
               "local h = assert(seen['integrator:hermite'])\n"
               "assert(h.params[1].name == 'dt' and h.params[1].required)\n"
               "assert(seen['force:newton'] and seen['monitor:log'])\n"
               "assert(seen['monitor:eject'].params[1].default == 100)\n"
               "assert(s.backends()[1] == 'cpu')\n"
               "print('version', s.version)\n");
    run_out o = run("p.lua", NULL); /* also the `starling FILE.lua` shorthand */
    cr_expect_eq(o.status, 0, "%s", o.err);
    cr_expect(strstr(o.out, "version\t" SL_VERSION), "%s", o.out);
    free_out(&o);
}

Test(lua, script_args_and_errors)
{
    write_text("args.lua", "print(arg[0], arg[1], select('#', ...), ...)\n"
                           "if arg[2] == 'fail' then local t = nil; return t.x end\n");
    run_out o = run("run args.lua one two", NULL);
    cr_expect_eq(o.status, 0, "%s", o.err);
    cr_expect(strstr(o.out, "args.lua\tone\t2\tone\ttwo"), "%s", o.out);
    free_out(&o);
    o = run("run args.lua one fail", NULL);
    cr_expect_eq(o.status, 1);
    cr_expect(strstr(o.err, "starling: args.lua:2: attempt to index"), "%s", o.err);
    free_out(&o);
}

Test(lua, script_from_stdin)
{
    run_out o = run("run - x", "print('from stdin', arg[1], require('starling').version)\n");
    cr_expect_eq(o.status, 0, "%s", o.err);
    cr_expect(strstr(o.out, "from stdin\tx\t" SL_VERSION), "%s", o.out);
    free_out(&o);
}

Test(lua, repl_piped)
{
    run_out o = run("", "print(1+1)\n1 + 2\nx = 0\nfor i = 1, 3 do\n  x = x + i\nend\nx\n");
    cr_expect_eq(o.status, 0, "%s", o.err);
    cr_expect(!strcmp(o.out, "2\n3\n6\n"), "stdout: '%s'", o.out);
    free_out(&o);
    o = run("", "error('boom')\nprint(starling.version)\n");
    cr_expect_eq(o.status, 1);
    cr_expect(strstr(o.err, "starling: stdin:1: boom"), "%s", o.err);
    cr_expect(strstr(o.out, SL_VERSION), "the prompt should go on after an error: %s", o.out);
    free_out(&o);
}

/* ---- runs and outputs ------------------------------------------------------------- */

static const char *const small_run =
    "local starling = require \"starling\"\n"
    "local E = starling.ensemble{ n = 40, planets = 2, spacing = {min = 0.05, max = 0.6}, "
    "seed = 7 }\n"
    "local r = starling.integrate{ ensemble = E, integrator = \"hermite\", force = \"newton\",\n"
    "  dt = 0.01, t_end = 20, backend = \"cpu\", log = \"log.csv\",\n"
    "  monitors = { {\"close_encounter\", hill = 1}, {\"eject\", r = 50}, {\"log\", every = 500} } }\n"
    "assert(r.ensemble == E and r.seed == 7 and r.log == 'log.csv')\n"
    "assert(r.n_active + r.n_stopped + r.n_failed == 40 and r:survivors() == r.n_active)\n"
    "assert(r.n_stopped > 0 and r.n_active > 0, 'expected some of each')\n"
    "for i = 1, 40 do\n"
    "  if r:status(i) == 'active' then\n"
    "    assert(r:stop_time(i) == nil and r:reason(i) == nil and r:time(i) == 20)\n"
    "    assert(r:energy_error(i) < 1e-6, r:energy_error(i))\n"
    "  else\n"
    "    assert(r:reason(i) == 'close_encounter' and r:stop_time(i) < 20)\n"
    "    local a, b = r:detail(i); assert(a == 2 and b == 3)\n"
    "  end\n"
    "  assert(E:time(i) == r:time(i))\n"
    "end\n"
    "r:write_csv(\"result.csv\")\n"
    "print(r.backend)\n"
    "print('active', r.n_active)\n";

Test(lua, small_run_writes_csv_with_header)
{
    write_text("run.lua", small_run);
    run_out o = run("run run.lua", NULL);
    cr_assert_eq(o.status, 0, "%s", o.err);
    cr_expect(strstr(o.out, "cpu ("), "%s", o.out);
    char path[400];
    snprintf(path, sizeof path, "%s/result.csv", work);
    char *csv = slurp(path);
    cr_assert(csv, "result.csv missing");
    cr_expect(strncmp(csv, "# starling " SL_VERSION "\n# seed = 7\n# config: integrate{", 44) == 0,
              "%s", csv);
    expect_all(csv,
               NEEDLES("backend=\"cpu\"", "dt=0.01", "t_end=20",
                       "ensemble=ensemble{n=40, planets=2, seed=7, spacing={max=0.6, min=0.05}}",
                       "{\"close_encounter\", hill=1}",
                       "\nsys,status,reason,detail,stop_time,time,steps,energy_error,"
                       "angmom_error,spacing\n",
                       ",stopped,close_encounter,2-3,", "\n40,active,none,,,20,2000,"),
               "result.csv");
    free(csv);
    snprintf(path, sizeof path, "%s/log.csv", work);
    char *log = slurp(path);
    cr_assert(log, "log.csv missing");
    expect_all(log,
               NEEDLES("# starling " SL_VERSION "\n# seed = 7\n# config: integrate{",
                       "\nsys,time,step,event,body,x,y,z,vx,vy,vz\n", "\n1,0,0,initial,1,",
                       "\n1,0,0,initial,3,", ",stop,3,", ",500,periodic,2,",
                       "\n40,20,2000,final,3,"),
               "log.csv");
    free(log);
    char names[1024];
    cr_expect_eq(list_work(names, sizeof names), 3, "expected run.lua, result.csv, log.csv: %s",
                 names);
    free_out(&o);
}

Test(lua, csv_round_trip)
{
    write_text("rt.lua",
               "local starling = require \"starling\"\n"
               "local E = starling.ensemble{ n = 50, planets = 3, perturb = 0.1, seed = 11 }\n"
               "E:write_csv(\"ens.csv\")\n"
               "local F = starling.read_ensemble(\"ens.csv\")\n"
               "assert(F:size() == 50 and F:bodies() == 4 and F:_meta().seed == 11)\n"
               "for i = 1, 50 do for b = 1, 4 do\n"
               "  local p, q = E:body(i, b), F:body(i, b)\n"
               "  assert(p.m == q.m, 'm')\n"
               "  for c = 1, 3 do assert(p.x[c] == q.x[c] and p.v[c] == q.v[c], i .. ' ' .. b) end\n"
               "end end\n"
               "F:write_csv(\"ens2.csv\")\n"
               "local G = E:clone(); G:set_attr('k', 3, 2.5)\n"
               "assert(G:attr('k', 3) == 2.5 and G:_meta().seed == 11)\n"
               "print('round trip ok')\n");
    run_out o = run("run rt.lua", NULL);
    cr_expect_eq(o.status, 0, "%s", o.err);
    cr_expect(strstr(o.out, "round trip ok"), "%s", o.out);
    char p1[400], p2[400];
    snprintf(p1, sizeof p1, "%s/ens.csv", work);
    snprintf(p2, sizeof p2, "%s/ens2.csv", work);
    char *a = slurp(p1), *b = slurp(p2);
    cr_assert(a && b);
    /* same bodies, byte for byte, below the differing config lines */
    const char *da = strstr(a, CSV_HEAD), *db = strstr(b, CSV_HEAD);
    cr_assert(da && db);
    cr_expect(!strcmp(da, db), "the re-written ensemble differs");
    cr_expect(strstr(b, "# config: read_ensemble(\"ens.csv\")\n"), "%s", b);
    free(a), free(b);
    free_out(&o);
}

Test(lua, explicit_systems_and_ejection)
{
    write_text("ej.lua",
               "local starling = require \"starling\"\n"
               "local sys = {\n"
               "  { {m = 1}, {m = 1e-3, x = {1, 0, 0}, v = {0, 1, 0}} },\n"
               "  { {m = 1}, {m = 1e-3, x = {4, 0, 0}, v = {0, 2, 0}} },\n"
               "}\n"
               "local E = starling.ensemble{ systems = sys }\n"
               "local r = starling.integrate{ ensemble = E, dt = 0.01, t_end = 10,\n"
               "  monitors = { {\"eject\", r = 5} } }\n"
               "assert(r:status(1) == 'active' and r:status(2) == 'stopped')\n"
               "assert(r:reason(2) == 'ejection' and r:detail(2) == 2, tostring(r:reason(2)))\n"
               "assert(r:stop_time(2) > 0 and r:stop_time(2) < 10)\n"
               "assert(r.kernel == 'hermite/newton/2', r.kernel)\n"
               "print('ejection ok')\n");
    run_out o = run("run ej.lua", NULL);
    cr_expect_eq(o.status, 0, "%s", o.err);
    cr_expect(strstr(o.out, "ejection ok"), "%s", o.out);
    free_out(&o);
}

Test(lua, quickstart_tiny)
{
    run_out o = run("run '" SL_SOURCE_DIR "/examples/quickstart.lua' qs.csv 120 10", NULL);
    cr_assert_eq(o.status, 0, "%s", o.err);
    expect_all(o.out,
               NEEDLES("backend: ", "survivors: ", "stop times (inner orbits):",
                       "survival by Delta / R_H", "<- 2 sqrt(3)",
                       "worst relative energy error", "results (one row per system): qs.csv"),
               "stdout");
    cr_expect(exists("qs.csv"), "quickstart did not write its results");
    free_out(&o);
}
