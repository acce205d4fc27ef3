/* The first SIGINT or SIGTERM at a random moment of a long run: the
 * sampler (a Lua likelihood and a built-in one, with a checkpoint), a
 * large write, a CPU magnification map and `starling ls` of an endless
 * stream. Each case checks the exit status (130 or 143), that starling
 * ended within a second of the signal, that no temporary file is left,
 * that an earlier output is intact and, for the sampler, that the
 * checkpoint left behind resumes. The moments come from a seeded
 * generator, printed with each failure, so a failure can be replayed
 * (SLT_SIGNAL_SEED). Only FIFOs and files in a fresh temporary folder are
 * written. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slt_files.h"

#define STARLING SL_BUILD_DIR "/bin/starling"

static char dir[256];

static void setup(void) { slt_tmpdir(dir, sizeof dir, "/tmp/sl_test_signals"); }
static void teardown(void) { slt_rmtree(dir); }

TestSuite(signals, .init = setup, .fini = teardown, .timeout = 300);

static unsigned long long rng_state;

/* Seconds in [lo, hi) from a seeded 64-bit LCG (reproducible moments). */
static double moment(double lo, double hi)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * (double)(rng_state >> 11) * 0x1.0p-53;
}

static void seed_moments(const char *name)
{
    const char *s = getenv("SLT_SIGNAL_SEED");
    unsigned long long seed = s ? strtoull(s, NULL, 10) : (unsigned long long)time(NULL);
    cr_log_info("%s: SLT_SIGNAL_SEED=%llu replays these moments", name, seed);
    rng_state = seed;
    for (const char *c = name; *c; c++)
        rng_state = rng_state * 31 + (unsigned char)*c;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Hidden entries (temporary files start with '.') in the folder. */
static int hidden_files(char *buf, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    size_t used = 0;
    buf[0] = '\0';
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            n++;
            used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s ", de->d_name);
        }
    if (d)
        closedir(d);
    return n;
}

static void put(const char *name, const char *text) { slt_write_text(dir, name, text); }

static char *get(const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return slt_slurp(p);
}

/* Starts `starling ARGS...` in the folder, its stderr into err.txt and
 * its stdout into out.txt. */
static pid_t start(const char *const *argv)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        int e = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int o = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(e, STDERR_FILENO);
        dup2(o, STDOUT_FILENO);
        execv(STARLING, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Waits for `word` in err.txt (the script saying it has started its long
 * part), up to 60 s. */
static void wait_for(const char *word)
{
    for (int i = 0; i < 1200; i++) {
        char *t = get("err.txt");
        int ok = t && strstr(t, word);
        free(t);
        if (ok)
            return;
        usleep(50000);
    }
    cr_assert_fail("the script never wrote '%s'", word);
}

/* Sends sig after `delay` s and returns the seconds starling took to exit;
 * *code gets its exit status (-1 if it did not exit normally). One that
 * has not exited 10 s after the signal is killed, so that a failure does
 * not leave it running. */
static double interrupt(pid_t pid, int sig, double delay, int *code)
{
    usleep((useconds_t)(delay * 1e6));
    double t0 = now_s();
    kill(pid, sig);
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (now_s() - t0 > 10.0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        usleep(10000);
    }
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return now_s() - t0;
}

static void expect_clean_stop(int sig, int code, double took, double delay)
{
    char *err = get("err.txt");
    cr_expect_eq(code, 128 + sig, "exit %d after a signal %d at +%.2f s; stderr:\n%s", code, sig,
                 delay, err ? err : "");
    cr_expect(took < 1.0, "ended %.2f s after the signal (sent at +%.2f s)", took, delay);
    char names[512];
    cr_expect_eq(hidden_files(names, sizeof names), 0, "temporary files left: %s", names);
    free(err);
}

static int pick_signal(void) { return moment(0, 1) < 0.5 ? SIGINT : SIGTERM; }

/* ---- the sampler -------------------------------------------------------------- */

static const char *const lua_sampler =
    "local starling = require \"starling\"\n"
    "local resume = arg[1]\n"
    "local r = starling.demcmc{ likelihood = function(p) return -0.5 * (p[1]^2 + p[2]^2) end,\n"
    "  priors = {a = {\"uniform\", -5, 5}, b = {\"uniform\", -5, 5}}, params = {\"a\", \"b\"},\n"
    "  chains = 16, generations = resume and 20 or 10000000, seed = 11, resume = resume,\n"
    "  burn = resume and 0 or 9999000,\n"
    "  checkpoint = {path = \"run.ckpt\", every = 200},\n"
    "  progress = function(g) if g == 1 then io.stderr:write(\"sampling\\n\") end end }\n"
    "r:save(\"post.csv\", {overwrite = true})\n";

static const char *const builtin_sampler =
    "local starling = require \"starling\"\n"
    "local resume = arg[1]\n"
    "local data = starling.rv.read(\"" SL_SOURCE_DIR "/examples/data/hd164922.csv\",\n"
    "  { columns = { time = \"time\", rv = \"mnvel\", err = \"errvel\", inst = \"tel\" } })\n"
    "local L = starling.likelihood(\"kepler_rv\", { data = data, planets = 1, backend = \"cpu\" })\n"
    "local T = 2 * math.pi\n"
    "io.stderr:write(\"sampling\\n\")\n"
    "local r = starling.demcmc{ likelihood = L, backend = \"cpu\",\n"
    "  priors = { P1 = {\"uniform\", 1000, 1400}, K1 = {\"uniform\", 0, 20},\n"
    "    e1 = {\"uniform\", 0, 0.9}, w1 = {\"uniform\", 0, T, periodic = true},\n"
    "    M01 = {\"uniform\", 0, T, periodic = true}, gamma_k = {\"uniform\", -20, 20},\n"
    "    gamma_j = {\"uniform\", -20, 20}, gamma_a = {\"uniform\", -20, 20},\n"
    "    jit_k = {\"uniform\", 0, 10}, jit_j = {\"uniform\", 0, 10}, jit_a = {\"uniform\", 0, 10} },\n"
    "  chains = 64, generations = resume and 20 or 1000000, seed = 5, resume = resume,\n"
    "  burn = resume and 0 or 999000,\n"
    "  checkpoint = {path = \"run.ckpt\", every = 100} }\n"
    "r:save(\"post.csv\", {overwrite = true})\n";

/* Interrupts the sampler at a random moment, then resumes its checkpoint
 * (when one was written before the signal) for 20 generations. */
static void sampler_case(const char *name, const char *script)
{
    seed_moments(name);
    put("s.lua", script);
    put("post.csv", "earlier\n");
    const char *argv[] = {STARLING, "run", "s.lua", NULL};
    pid_t pid = start(argv);
    wait_for("sampling");
    int sig = pick_signal(), code;
    double delay = moment(0.0, 2.5), took = interrupt(pid, sig, delay, &code);
    expect_clean_stop(sig, code, took, delay);
    char *post = get("post.csv");
    cr_expect(post && !strcmp(post, "earlier\n"), "post.csv was changed by an interrupted run");
    free(post);
    char *ck = get("run.ckpt");
    if (ck) {
        const char *rv[] = {STARLING, "run", "s.lua", "run.ckpt", NULL};
        pid = start(rv);
        int status;
        waitpid(pid, &status, 0);
        char *err = get("err.txt");
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "resuming the checkpoint left at +%.2f s failed:\n%s", delay, err ? err : "");
        free(err);
    }
    free(ck);
}

Test(signals, sampler_lua_likelihood) { sampler_case("sampler_lua", lua_sampler); }
Test(signals, sampler_builtin_likelihood) { sampler_case("sampler_builtin", builtin_sampler); }

/* ---- a large write --------------------------------------------------------------- */

Test(signals, large_write)
{
    seed_moments("large_write");
    put("big.csv", "earlier\n");
    put("w.lua", "local starling = require \"starling\"\n"
                 "local E = starling.ensemble{ n = 400000, planets = 3, seed = 1 }\n"
                 "io.stderr:write(\"writing\\n\")\n"
                 "for i = 1, 100 do E:write_csv(\"big.csv\", {overwrite = true}) end\n");
    const char *argv[] = {STARLING, "run", "w.lua", NULL};
    pid_t pid = start(argv);
    wait_for("writing");
    int sig = pick_signal(), code;
    double delay = moment(0.0, 4.0), took = interrupt(pid, sig, delay, &code);
    expect_clean_stop(sig, code, took, delay);
    char *t = get("big.csv");
    size_t n = t ? strlen(t) : 0;
    cr_expect(t && (!strcmp(t, "earlier\n") || (strstr(t, "sys,body,m,x") && t[n - 1] == '\n')),
              "big.csv is neither the earlier file nor a whole one");
    free(t);
}

/* ---- a CPU map --------------------------------------------------------------------- */

Test(signals, cpu_map)
{
    seed_moments("cpu_map");
    put("m.lua", "local starling = require \"starling\"\n"
                 "io.stderr:write(\"mapping\\n\")\n"
                 "starling.microlensing.map{ s = 1, q = 1, box = {-1.5, 1.5, -1.5, 1.5},\n"
                 "  pixels = 4096, rays = 400, backend = \"cpu\", fits = \"map.fits\" }\n");
    const char *argv[] = {STARLING, "run", "m.lua", NULL};
    pid_t pid = start(argv);
    wait_for("mapping");
    int sig = pick_signal(), code;
    double delay = moment(0.0, 3.0), took = interrupt(pid, sig, delay, &code);
    expect_clean_stop(sig, code, took, delay);
    char *t = get("map.fits");
    cr_expect(!t, "map.fits was written by an interrupted run");
    free(t);
}

/* ---- ls of an endless stream ---------------------------------------------------------- */

Test(signals, ls_of_a_stream)
{
    seed_moments("ls_stream");
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/lc.csv", dir);
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    pid_t feeder = fork();
    if (feeder == 0) { /* endless rows until the reader goes */
        signal(SIGPIPE, SIG_DFL);
        FILE *f = fopen(fifo, "w");
        if (!f)
            _exit(1);
        fputs("t,y\n", f);
        for (long i = 0;; i++)
            fprintf(f, "%ld,%g\n", i, (double)(i % 17));
    }
    const char *argv[] = {STARLING, "ls", "lc.csv", NULL};
    pid_t pid = start(argv);
    int sig = pick_signal(), code;
    double delay = moment(0.3, 2.0), took = interrupt(pid, sig, delay, &code);
    kill(feeder, SIGKILL);
    waitpid(feeder, NULL, 0);
    char *err = get("err.txt");
    /* the size limit may stop it first: then an error, not a signal */
    if (!(code == 1 && err && strstr(err, "limit")))
        expect_clean_stop(sig, code, took, delay);
    free(err);
}
