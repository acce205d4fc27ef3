/* The PLplot guard (plot_guard.h): checks before plotting, PLplot's exit
 * and abort handlers, and its stderr text captured into the messages. */
#define _GNU_SOURCE
#include "starling/plot_guard.h"

#include <errno.h>
#include <limits.h>
#include <plplot.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "starling/output.h"

/* The state of the one plot in progress: static, so that it keeps its
 * values across the longjmp out of PLplot. */
static struct {
    jmp_buf jump;
    int saved_err;  /* the real stderr while PLplot's is captured; -1: none */
    FILE *capture;  /* what PLplot printed */
    sl_out out;     /* the picture's file (output.h); PLplot writes out.tmp */
    char fatal[512];   /* plexit's message */
    char refused[512]; /* the first plabort message */
} G = {.saved_err = -1};

/* PLplot's list of the devices it can load, asked before plsdev. */
static sl_status driver_ready(const char *path)
{
    enum { N = 128 };
    const char *menu[N], *dev[N];
    const char **pm = menu, **pd = dev;
    int n = N;
    plgDevs(&pm, &pd, &n);
    for (int i = 0; i < n; i++)
        if (dev[i] && !strcmp(dev[i], "pngcairo"))
            return SL_OK;
    const char *dir = getenv("PLPLOT_DRV_DIR");
    return sl_fail(SL_ERR_IO, "cannot write %s: PLplot cannot load its pngcairo driver (%d "
                   "devices found%s%s); install PLplot's cairo driver (Debian: "
                   "plplot-driver-cairo) or point PLPLOT_DRV_DIR at it", path,
                   n, dir ? ", PLPLOT_DRV_DIR = " : "", dir ? dir : "");
}

sl_status sl_plot_png_ready(const char *path, unsigned flags)
{
    sl_status st = sl_out_check(path, flags);
    return st ? st : driver_ready(path);
}

/* plexit calls this, then prints and exits if it returns: it never does. */
static int on_exit_request(PLCHAR_VECTOR msg)
{
    snprintf(G.fatal, sizeof G.fatal, "%s", msg && *msg ? msg : "stopped");
    longjmp(G.jump, 1);
}

static void on_abort(PLCHAR_VECTOR msg)
{
    if (!G.refused[0])
        snprintf(G.refused, sizeof G.refused, "%s", msg && *msg ? msg : "an operation failed");
}

static void capture_start(void)
{
    fflush(stderr);
    G.saved_err = -1;
    G.capture = tmpfile();
    if (!G.capture)
        return;
    G.saved_err = dup(2);
    if (G.saved_err < 0 || dup2(fileno(G.capture), 2) < 0) {
        if (G.saved_err >= 0)
            close(G.saved_err);
        G.saved_err = -1;
    }
}

/* Restores stderr; buf gets PLplot's lines, its banners and repeats left
 * out, joined by "; " (empty when it printed nothing). */
static void capture_stop(char *buf, size_t cap)
{
    buf[0] = '\0';
    fflush(stderr);
    if (G.saved_err >= 0) {
        dup2(G.saved_err, 2);
        close(G.saved_err);
        G.saved_err = -1;
    }
    if (!G.capture)
        return;
    rewind(G.capture);
    char line[512], last[512] = "";
    size_t used = 0;
    while (fgets(line, sizeof line, G.capture)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || !strncmp(line, "*** PLPLOT", 10) || !strcmp(line, last))
            continue;
        snprintf(last, sizeof last, "%s", line);
        if (used + 1 < cap)
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? "; " : "", line);
    }
    fclose(G.capture);
    G.capture = NULL;
}

static sl_status plot_failed(const char *path);

static void handlers(int on)
{
    plsexit(on ? on_exit_request : NULL);
    plsabort(on ? on_abort : NULL);
}

static sl_status plot_begin(const char *path, unsigned flags, int w, int h)
{
    sl_status st = sl_plot_png_ready(path, flags);
    if (!st)
        st = sl_out_open(&G.out, path, flags | SL_OUT_BY_NAME);
    if (st)
        return st;
    G.fatal[0] = G.refused[0] = '\0';
    capture_start();
    handlers(1);
    if (setjmp(G.jump))
        return plot_failed(path);
    PLINT strm;
    plmkstrm(&strm); /* a stream of its own: PLplot keeps state per stream */
    plsdev("pngcairo");
    plsfnam(G.out.tmp);
    plspage(0, 0, w, h, 0, 0);
    plscolbg(255, 255, 255);
    plinit();
    return SL_OK;
}

/* Ends the stream (its handlers off first: an error while ending it must
 * not jump into a frame that is gone) and restores stderr. */
static void finish(char *said, size_t cap)
{
    handlers(0);
    plend1();
    capture_stop(said, cap);
}

/* The temporary picture goes (sl_out_abort removes that file, never
 * anything else). */
static sl_status plot_failed(const char *path)
{
    char said[600];
    finish(said, sizeof said);
    sl_out_abort(&G.out);
    return sl_fail(SL_ERR_IO, "cannot write '%s': PLplot: %s%s%s%s", path, G.fatal,
                   said[0] ? " (it said: " : "", said, said[0] ? ")" : "");
}

static sl_status plot_end(const char *path)
{
    char said[600];
    if (setjmp(G.jump)) { /* plend1 itself failed */
        handlers(0);
        capture_stop(said, sizeof said);
        sl_out_abort(&G.out);
        return sl_fail(SL_ERR_IO, "cannot write '%s': PLplot: %s", path, G.fatal);
    }
    plend1();
    handlers(0);
    capture_stop(said, sizeof said);
    if (G.refused[0]) {
        sl_out_abort(&G.out);
        return sl_fail(SL_ERR_IO, "cannot write '%s': PLplot refused an operation: %s%s%s%s",
                       path, G.refused, said[0] ? " (it said: " : "", said, said[0] ? ")" : "");
    }
    return sl_out_commit(&G.out);
}

sl_status sl_plot_run(const char *path, unsigned flags, int w, int h, void (*draw)(void *ctx),
                      void *ctx)
{
    sl_status st = plot_begin(path, flags, w, h);
    if (st)
        return st;
    if (setjmp(G.jump))
        return plot_failed(path);
    draw(ctx);
    return plot_end(path);
}
