/* Runs a fuzz target's entry point once on every file named, or in a
 * folder named, on the command line: the corpus as a regression test in
 * builds without libFuzzer (gcc, SL_SANITIZE). Fails when nothing was run,
 * so an empty or misplaced corpus cannot pass. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return 0;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *b = realloc(buf, cap);
            SLF_CHECK(b, "out of memory reading %s", path);
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    fprintf(stderr, "running %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 1;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* In name order, so that a failure is reproducible by position too. */
static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return 0;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char **nn = realloc(names, (n + 1) * sizeof *names);
        SLF_CHECK(nn, "out of memory listing %s", dir);
        names = nn;
        names[n] = malloc(strlen(dir) + strlen(de->d_name) + 2);
        SLF_CHECK(names[n], "out of memory listing %s", dir);
        sprintf(names[n], "%s/%s", dir, de->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    int done = 0;
    for (size_t i = 0; i < n; i++) {
        done += run_file(names[i]);
        free(names[i]);
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    int done = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
            done += run_dir(argv[i]);
        else
            done += run_file(argv[i]);
    }
    if (done == 0) {
        fprintf(stderr, "no inputs run: give files or folders of a corpus\n");
        return 1;
    }
    fprintf(stderr, "%d inputs run\n", done);
    return 0;
}
