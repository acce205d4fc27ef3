/* How outputs reach their paths (starling/output.h): through the C API on
 * links, FIFOs, folders, protected files and the overwrite rule, and
 * through the executable on the rules' Lua face, the checks made before
 * any work, and a signal during a write. Only FIFOs, links and files in a
 * fresh temporary folder are written: never a device node. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "starling/cancel.h"
#include "starling/output.h"
#include "slt_files.h"

#define STARLING SL_BUILD_DIR "/bin/starling"

static char dir[256];

static void setup(void) { slt_tmpdir(dir, sizeof dir, "/tmp/sl_test_outputs"); }
static void teardown(void)
{
    sl_cancel_reset();
    sl_out_set_overwrite(0);
    slt_rmtree(dir);
}

TestSuite(outputs, .init = setup, .fini = teardown, .timeout = 120);

static void at(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

static void put(const char *name, const char *text, mode_t mode)
{
    char p[512];
    at(p, sizeof p, name);
    slt_write_text(dir, name, text);
    cr_assert_eq(chmod(p, mode), 0);
}

static char *get(const char *name)
{
    char p[512];
    at(p, sizeof p, name);
    return slt_slurp(p);
}

/* The folder's entries other than those named in keep (a NULL-ended
 * list): what a write left behind that it should not have. */
static int strays(const char *const *keep, char *buf, size_t cap)
{
    DIR *d = opendir(dir);
    int n = 0;
    size_t used = 0;
    buf[0] = '\0';
    struct dirent *de;
    while (d && (de = readdir(d))) {
        int ok = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
        for (const char *const *k = keep; !ok && *k; k++)
            ok = !strcmp(de->d_name, *k);
        if (!ok) {
            n++;
            used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s ", de->d_name);
        }
    }
    if (d)
        closedir(d);
    return n;
}

#define KEEP(...) ((const char *const[]){__VA_ARGS__, NULL})

static void expect_no_strays(const char *const *keep)
{
    char names[1024];
    cr_expect_eq(strays(keep, names, sizeof names), 0, "left in the folder: %s", names);
}

static sl_status write_via(const char *path, unsigned flags, const char *text)
{
    sl_out o;
    sl_status st = sl_out_open(&o, path, flags);
    if (st)
        return st;
    fputs(text, o.f);
    return sl_out_commit(&o);
}

/* ---- the C API --------------------------------------------------------------- */

/* A link is written through: the link stays a link, its target gets the
 * new text and keeps its mode. */
Test(outputs, link_written_through)
{
    char link[512], target[512];
    put("target.csv", "old\n", 0640);
    at(link, sizeof link, "link.csv");
    at(target, sizeof target, "target.csv");
    cr_assert_eq(symlink("target.csv", link), 0);
    cr_assert_eq(write_via(link, SL_OUT_OVERWRITE, "new\n"), SL_OK, "%s", sl_last_error());
    struct stat sb;
    cr_assert_eq(lstat(link, &sb), 0);
    cr_expect(S_ISLNK(sb.st_mode), "the link became a plain file");
    char *t = get("target.csv");
    cr_expect_str_eq(t, "new\n");
    free(t);
    cr_assert_eq(stat(target, &sb), 0);
    cr_expect_eq(sb.st_mode & 07777, 0640, "mode %o", sb.st_mode & 07777);
    expect_no_strays(KEEP("target.csv", "link.csv"));
}

/* A link whose target does not exist yet makes that target. */
Test(outputs, dangling_link_makes_its_target)
{
    char link[512];
    at(link, sizeof link, "link.csv");
    cr_assert_eq(symlink("made.csv", link), 0);
    cr_assert_eq(write_via(link, 0, "x\n"), SL_OK, "%s", sl_last_error());
    struct stat sb;
    cr_expect(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode));
    char *t = get("made.csv");
    cr_expect(t && !strcmp(t, "x\n"));
    free(t);
}

/* A FIFO is streamed to: its reader gets the bytes, and it stays a FIFO. */
static void fifo_case(unsigned flags)
{
    char fifo[512], got[512];
    at(fifo, sizeof fifo, "pipe");
    at(got, sizeof got, "got");
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "cat '%s' > '%s'", fifo, got);
        _exit(system(cmd) == 0 ? 0 : 1);
    }
    sl_out o;
    cr_assert_eq(sl_out_open(&o, fifo, flags), SL_OK, "%s", sl_last_error());
    cr_expect(o.stream);
    if (flags & SL_OUT_BY_NAME) { /* a writer that opens the file by name */
        FILE *f = fopen(o.tmp, "w");
        cr_assert(f);
        fputs("streamed\n", f);
        fclose(f);
    } else
        fputs("streamed\n", o.f);
    cr_assert_eq(sl_out_commit(&o), SL_OK, "%s", sl_last_error());
    int status;
    waitpid(pid, &status, 0);
    char *t = get("got");
    cr_expect(t && !strcmp(t, "streamed\n"), "the reader got '%s'", t ? t : "(nothing)");
    free(t);
    struct stat sb;
    cr_expect(lstat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode), "the FIFO was replaced");
}

Test(outputs, fifo_streamed) { fifo_case(0); }
Test(outputs, fifo_streamed_by_name) { fifo_case(SL_OUT_BY_NAME); }

/* "-" is standard output. */
Test(outputs, dash_is_stdout)
{
    char out[512];
    at(out, sizeof out, "stdout.txt");
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(saved >= 0 && fd >= 0);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    sl_status st = write_via("-", 0, "to stdout\n");
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    cr_assert_eq(st, SL_OK, "%s", sl_last_error());
    char *t = get("stdout.txt");
    cr_expect(t && !strcmp(t, "to stdout\n"));
    free(t);
}

/* A folder, a missing folder and a read-only file are refused before
 * anything is created, with messages naming the user's path. */
Test(outputs, refused_before_anything)
{
    char sub[512], p[600];
    at(sub, sizeof sub, "sub");
    cr_assert_eq(mkdir(sub, 0755), 0);
    cr_expect_eq(sl_out_check(sub, SL_OUT_OVERWRITE), SL_ERR_IO);
    cr_expect(strstr(sl_last_error(), "it is a folder"), "%s", sl_last_error());
    snprintf(p, sizeof p, "%s/none/x.csv", dir);
    cr_expect_eq(sl_out_check(p, 0), SL_ERR_IO);
    cr_expect(strstr(sl_last_error(), "No such file or directory") &&
              strstr(sl_last_error(), "/none/x.csv"), "%s", sl_last_error());
    put("ro.csv", "keep\n", 0444);
    at(p, sizeof p, "ro.csv");
    cr_expect_eq(write_via(p, SL_OUT_OVERWRITE, "lost\n"), SL_ERR_IO);
    cr_expect(strstr(sl_last_error(), "read-only (mode 0444)"), "%s", sl_last_error());
    char *t = get("ro.csv");
    cr_expect_str_eq(t, "keep\n");
    free(t);
    expect_no_strays(KEEP("sub", "ro.csv"));
}

/* A private file stays private when replaced. */
Test(outputs, mode_kept)
{
    char p[512];
    put("private.csv", "old\n", 0600);
    at(p, sizeof p, "private.csv");
    cr_assert_eq(write_via(p, SL_OUT_OVERWRITE, "new\n"), SL_OK, "%s", sl_last_error());
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_expect_eq(sb.st_mode & 07777, 0600, "mode %o", sb.st_mode & 07777);
}

/* An existing file this process did not write needs SL_OUT_OVERWRITE (or
 * the process default); one it wrote does not. */
Test(outputs, overwrite_rule)
{
    char p[512];
    put("earlier.csv", "earlier run\n", 0644);
    at(p, sizeof p, "earlier.csv");
    cr_expect_eq(write_via(p, 0, "lost\n"), SL_ERR_IO);
    cr_expect(strstr(sl_last_error(), "exists and this run did not write it: pass overwrite = "
                                      "true"), "%s", sl_last_error());
    char *t = get("earlier.csv");
    cr_expect_str_eq(t, "earlier run\n");
    free(t);
    cr_expect(!sl_out_made_here(p));
    cr_assert_eq(write_via(p, SL_OUT_OVERWRITE, "one\n"), SL_OK, "%s", sl_last_error());
    cr_expect(sl_out_made_here(p));
    cr_assert_eq(write_via(p, 0, "two\n"), SL_OK, "this run's own file: %s", sl_last_error());
    at(p, sizeof p, "other.csv");
    put("other.csv", "x\n", 0644);
    sl_out_set_overwrite(1);
    cr_expect_eq(write_via(p, 0, "y\n"), SL_OK, "%s", sl_last_error());
}

/* A cancellation pending at commit leaves the old file and no temporary. */
Test(outputs, cancelled_write_keeps_the_old_file)
{
    char p[512];
    put("keep.csv", "old\n", 0644);
    at(p, sizeof p, "keep.csv");
    sl_out o;
    cr_assert_eq(sl_out_open(&o, p, SL_OUT_OVERWRITE), SL_OK, "%s", sl_last_error());
    fputs("half", o.f);
    sl_cancel_request(SIGINT);
    cr_expect_eq(sl_out_poll(&o), SL_ERR_CANCELLED);
    cr_expect_eq(sl_out_commit(&o), SL_ERR_CANCELLED);
    sl_cancel_reset();
    char *t = get("keep.csv");
    cr_expect_str_eq(t, "old\n");
    free(t);
    expect_no_strays(KEEP("keep.csv"));
}

/* ---- through the executable ----------------------------------------------------- */

typedef struct run_out {
    int status;
    char *out, *err;
} run_out;

static run_out run(const char *args)
{
    char cmd[2048], out[512], err[512];
    at(out, sizeof out, ".stdout");
    at(err, sizeof err, ".stderr");
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s </dev/null >'%s' 2>'%s'", dir, STARLING, args,
             out, err);
    int st = system(cmd);
    run_out o = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slt_slurp(out), slt_slurp(err)};
    cr_assert(o.out && o.err);
    unlink(out);
    unlink(err);
    return o;
}

static void free_out(run_out *o)
{
    free(o->out);
    free(o->err);
}

#define ENS "local starling = require \"starling\"\n" \
            "local E = starling.ensemble{ n = 4, planets = 2, seed = 1 }\n"

/* An earlier run's file: an error naming it and the two ways to allow it;
 * overwrite = true and --overwrite each allow it. */
Test(outputs, script_overwrite_rule)
{
    put("out.csv", "earlier\n", 0644);
    put("a.lua", ENS "E:write_csv(\"out.csv\")\n", 0644);
    run_out o = run("run a.lua");
    cr_expect_eq(o.status, 1, "%s", o.err);
    cr_expect(strstr(o.err, "a.lua:3: write_csv: 'out.csv' exists and this run did not write "
                            "it: pass overwrite = true to replace it (on the command line: "
                            "starling run --overwrite)"), "%s", o.err);
    char *t = get("out.csv");
    cr_expect_str_eq(t, "earlier\n");
    free(t);
    free_out(&o);
    o = run("run --overwrite a.lua");
    cr_expect_eq(o.status, 0, "%s", o.err);
    free_out(&o);
    put("b.lua", ENS "E:write_csv(\"out.csv\", {overwrite = true})\n"
                     "E:write_csv(\"out.csv\")\n", 0644); /* then this run's own file */
    o = run("run b.lua");
    cr_expect_eq(o.status, 0, "%s", o.err);
    t = get("out.csv");
    cr_expect(t && strstr(t, "sys,body,m,x"), "%s", t ? t : "");
    free(t);
    free_out(&o);
}

/* The log is checked when the configuration is read: a folder fails a dry
 * run, and an earlier file fails a real one before its first step. */
Test(outputs, log_checked_before_the_run)
{
    char sub[512];
    at(sub, sizeof sub, "logs");
    cr_assert_eq(mkdir(sub, 0755), 0);
    put("d.lua", ENS "starling.integrate{ ensemble = E, dt = 0.01, t_end = 1, log = \"logs\", "
                     "dry_run = true }\n", 0644);
    run_out o = run("run d.lua");
    cr_expect_eq(o.status, 1);
    cr_expect(strstr(o.err, "key 'log' = \"logs\": cannot write 'logs': it is a folder"), "%s",
              o.err);
    free_out(&o);
    put("old.csv", "earlier\n", 0644);
    put("e.lua", ENS "starling.integrate{ ensemble = E, dt = 0.01, t_end = 1e6, "
                     "log = \"old.csv\", progress = function() print(\"stepped\") end }\n",
        0644);
    o = run("run e.lua");
    cr_expect_eq(o.status, 1);
    cr_expect(strstr(o.err, "'old.csv' exists and this run did not write it"), "%s", o.err);
    cr_expect(!strstr(o.out, "stepped"), "the run started before the check");
    free_out(&o);
}

/* save writes the format its name says, or refuses. */
Test(outputs, save_format_follows_the_name)
{
    put("s.lua", "local starling = require \"starling\"\n"
                 "local r = starling.demcmc{ likelihood = function(p) return 0 end,\n"
                 "  priors = {a = {\"uniform\", 0, 1}}, params = {\"a\"}, chains = 8,\n"
                 "  generations = 20, seed = 3 }\n"
                 "r:save(\"post.fits\")\n", 0644);
    run_out o = run("run s.lua");
    cr_expect_eq(o.status, 1);
    cr_expect(strstr(o.err, "save: 'post.fits': the name ends in '.fits'"), "%s", o.err);
    free_out(&o);
    expect_no_strays(KEEP("s.lua"));
}

/* A checkpoint from an earlier run of the same configuration is not
 * replaced: the message says how to resume it; resuming it goes on
 * writing it; another configuration's is refused as another run's. */
Test(outputs, checkpoint_not_destroyed)
{
    const char *cfg = "local starling = require \"starling\"\n"
                      "local seed = tonumber(arg[1])\n"
                      "local r = starling.demcmc{ likelihood = function(p) return -p[1]^2 end,\n"
                      "  priors = {a = {\"uniform\", -5, 5}}, params = {\"a\"}, chains = 8,\n"
                      "  generations = 40, seed = seed, resume = arg[2],\n"
                      "  checkpoint = {path = \"run.ckpt\", every = 10} }\n"
                      "print(\"ran\")\n";
    put("c.lua", cfg, 0644);
    run_out o = run("run c.lua 5");
    cr_assert_eq(o.status, 0, "%s", o.err);
    free_out(&o);
    char *first = get("run.ckpt");
    o = run("run c.lua 5");
    cr_expect_eq(o.status, 1);
    cr_expect(strstr(o.err, "it holds an earlier run of this configuration (40 generations): "
                            "resume it with resume = \"run.ckpt\""), "%s", o.err);
    free_out(&o);
    o = run("run c.lua 6");
    cr_expect_eq(o.status, 1);
    cr_expect(strstr(o.err, "it holds another run's checkpoint (seed 5, 8 chains"), "%s", o.err);
    free_out(&o);
    char *now = get("run.ckpt");
    cr_expect(first && now && !strcmp(first, now), "a refused run changed the checkpoint");
    free(now);
    o = run("run c.lua 5 run.ckpt");
    cr_expect_eq(o.status, 0, "%s", o.err);
    now = get("run.ckpt");
    cr_expect(now && strstr(now, "# generations = 80"), "%s", now ? now : "");
    free(now);
    free(first);
    free_out(&o);
}

/* SIGINT during a large write: the run ends within a second, exit 130,
 * the earlier file is intact and no temporary file is left. */
Test(outputs, signal_during_a_write, .timeout = 300)
{
    put("big.csv", "earlier\n", 0644);
    put("w.lua", "local starling = require \"starling\"\n"
                 "local E = starling.ensemble{ n = 400000, planets = 3, seed = 1 }\n"
                 "io.stderr:write(\"writing\\n\")\n"
                 "for i = 1, 50 do E:write_csv(\"big.csv\", {overwrite = true}) end\n", 0644);
    char cmd[1200], err[512];
    at(err, sizeof err, "err.txt");
    pid_t pid = fork();
    if (pid == 0) {
        cr_assert(chdir(dir) == 0);
        int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, STDERR_FILENO);
        execl(STARLING, STARLING, "run", "w.lua", (char *)NULL);
        _exit(127);
    }
    (void)cmd;
    /* until the script says it is writing, then into the write */
    for (int i = 0; i < 600; i++) {
        char *t = slt_slurp(err);
        int ready = t && strstr(t, "writing");
        free(t);
        if (ready)
            break;
        usleep(50000);
    }
    usleep(1500000);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    kill(pid, SIGINT);
    int status;
    waitpid(pid, &status, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d", status);
    cr_expect(s < 1.0, "ended %.2f s after the signal", s);
    char *t = get("big.csv");
    cr_expect(t && (!strcmp(t, "earlier\n") || strstr(t, "sys,body,m,x")), "big.csv damaged");
    size_t n = t ? strlen(t) : 0;
    cr_expect(n < 100 || t[n - 1] == '\n', "big.csv ends mid-row");
    free(t);
    expect_no_strays(KEEP("big.csv", "w.lua", "err.txt"));
}

/* Outputs in a missing folder stop each long call before its work: a
 * checkpoint before the first generation, a map's FITS file before a ray
 * is shot, a grid search's table before its data are read. */
Test(outputs, missing_folders_before_the_work)
{
    static const char *const lines[][2] = {
        {"starling.demcmc{ likelihood = function(p) print(\"sampled\") return 0 end, "
         "priors = {a = {\"uniform\", 0, 1}}, params = {\"a\"}, chains = 8, generations = 10, "
         "checkpoint = {path = \"nodir/run.ckpt\", every = 5} }",
         "demcmc: key 'checkpoint': path = \"nodir/run.ckpt\": cannot write 'nodir/run.ckpt': "
         "the folder 'nodir/': No such file or directory"},
        {"starling.microlensing.map{ s = 1, q = 1, box = {-1, 1, -1, 1}, pixels = 64, "
         "backend = \"cpu\", fits = \"nodir/m.fits\" }",
         "microlensing.map: key 'fits': cannot write 'nodir/m.fits': the folder 'nodir/': No "
         "such file or directory"},
        {"starling.microlensing.gridsearch{ data = \"absent.csv\", csv = \"nodir/g.csv\" }",
         "microlensing.gridsearch: key 'csv': cannot write 'nodir/g.csv': the folder 'nodir/': "
         "No such file or directory"},
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        char script[1024];
        snprintf(script, sizeof script, "local starling = require \"starling\"\n%s\n", lines[i][0]);
        put("m.lua", script, 0644);
        run_out o = run("run m.lua");
        cr_expect_eq(o.status, 1, "%s", lines[i][0]);
        cr_expect(strstr(o.err, lines[i][1]), "expected \"%s\" in:\n%s", lines[i][1], o.err);
        cr_expect(!strstr(o.out, "sampled"), "the sampler ran before the check");
        free_out(&o);
    }
    expect_no_strays(KEEP("m.lua"));
}
