/* Scratch folders and small files for the suites that run the starling
 * executable on scripts (test_lua*.c). */
#ifndef SLT_FILES_H
#define SLT_FILES_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* A fresh folder named from prefix (e.g. "/tmp/sl_test_lua"). */
static inline void slt_tmpdir(char *buf, size_t cap, const char *prefix)
{
    snprintf(buf, cap, "%s_XXXXXX", prefix);
    cr_assert(mkdtemp(buf), "mkdtemp failed for %s", buf);
}

static inline void slt_rmtree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (dir[0] && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* The whole file, NUL-terminated, or NULL when it cannot be read. */
static inline char *slt_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static inline void slt_write_text(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

#endif
