/* Shared by the fuzz targets: the input as a file, since every reader
 * takes a path. One file per process, made once and rewritten for each
 * input (in $TMPDIR, else /dev/shm, else /tmp), removed at exit. */
#ifndef SLF_FUZZ_UTIL_H
#define SLF_FUZZ_UTIL_H

#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A bug in a harness or a broken invariant of a reader: abort, so that
 * libFuzzer (and the replay test) report it with the input. */
#define SLF_CHECK(cond, ...)                                                                     \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "fuzz check failed at %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                 \
            abort();                                                                             \
        }                                                                                        \
    } while (0)

static char slf_dir[256], slf_path[300];

static inline void slf_cleanup(void)
{
    if (slf_path[0])
        unlink(slf_path);
    if (slf_dir[0])
        rmdir(slf_dir);
}

/* A private folder for this process (also for files a target writes). */
static inline const char *slf_tmpdir(void)
{
    if (slf_dir[0])
        return slf_dir;
    const char *env = getenv("TMPDIR");
    struct stat sb;
    const char *base = env && *env ? env : stat("/dev/shm", &sb) == 0 ? "/dev/shm" : "/tmp";
    snprintf(slf_dir, sizeof slf_dir, "%s/sl_fuzz_XXXXXX", base);
    SLF_CHECK(mkdtemp(slf_dir), "cannot create a folder in %s", base);
    atexit(slf_cleanup);
    return slf_dir;
}

/* Writes the input to the process's file, named `name` inside the folder
 * (the first call fixes the name), and returns its path. */
static inline const char *slf_write_input(const uint8_t *data, size_t size, const char *name)
{
    if (!slf_path[0])
        snprintf(slf_path, sizeof slf_path, "%s/%s", slf_tmpdir(), name);
    int fd = open(slf_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    SLF_CHECK(fd >= 0, "cannot open %s", slf_path);
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        SLF_CHECK(n > 0, "cannot write %s", slf_path);
        done += (size_t)n;
    }
    close(fd);
    return slf_path;
}

#endif
