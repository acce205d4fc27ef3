/* `starling new`: copies a template folder with the plugin's name filled in.
 * Templates are plain files (text with @NAME@ / @NAME_UPPER@ markers); the
 * copy is made in a temporary folder next to the target and renamed into
 * place, so an interrupted or failed scaffold leaves nothing behind. */
#define _GNU_SOURCE
#include "scaffold.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "starling/nomem.h"

enum { SCAFFOLD_NAME_MAX = 40, SCAFFOLD_FILE_MAX = 1 << 20 };

sl_status sl_scaffold_dir(char *buf, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return sl_fail(SL_ERR_IO, "cannot find the starling executable (/proc/self/exe): %s",
                       strerror(errno));
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/../share/starling/scaffolds", exe);
    if (!realpath(dir, buf) || strlen(buf) >= cap)
        return sl_fail(SL_ERR_IO, "no scaffold templates at %s (is starling installed whole?)",
                       dir);
    return SL_OK;
}

/* A plugin name is a C identifier: kernels and tables are named after it. */
static sl_status check_name(const char *name)
{
    size_t n = strlen(name);
    int ok = n > 0 && n <= SCAFFOLD_NAME_MAX && (islower((unsigned char)name[0]) || name[0] == '_');
    for (size_t i = 1; ok && i < n; i++)
        ok = islower((unsigned char)name[i]) || isdigit((unsigned char)name[i]) || name[i] == '_';
    if (!ok)
        return sl_fail(SL_ERR_ARG, "plugin name '%s': expected a C identifier in lower case "
                       "(a-z, 0-9, _; at most %d characters), e.g. 'leapfrog2'", name,
                       SCAFFOLD_NAME_MAX);
    return SL_OK;
}

/* `text` with every @NAME@ and @NAME_UPPER@ replaced; caller frees. */
static char *fill(const char *text, size_t len, const char *name, size_t *out_len)
{
    char upper[SCAFFOLD_NAME_MAX + 1];
    size_t nl = strlen(name);
    for (size_t i = 0; i <= nl; i++)
        upper[i] = (char)toupper((unsigned char)name[i]);
    size_t cap = len + 1, used = 0;
    for (const char *p = text; (p = memmem(p, len - (size_t)(p - text), "@NAME", 5)); p++)
        cap += nl;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (size_t i = 0; i < len;) {
        if (!strncmp(text + i, "@NAME@", 6) && i + 6 <= len) {
            memcpy(out + used, name, nl), used += nl, i += 6;
        } else if (i + 12 <= len && !strncmp(text + i, "@NAME_UPPER@", 12)) {
            memcpy(out + used, upper, nl), used += nl, i += 12;
        } else {
            out[used++] = text[i++];
        }
    }
    out[used] = '\0';
    *out_len = used;
    return out;
}

/* dir/name into buf (PATH_MAX), refusing what does not fit. */
static sl_status join(char *buf, const char *dir, const char *name)
{
    int n = snprintf(buf, PATH_MAX, "%s/%s", dir, name);
    if (n < 0 || n >= PATH_MAX)
        return sl_fail(SL_ERR_ARG, "path too long: %s/%s", dir, name);
    return SL_OK;
}

static sl_status read_all(const char *path, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return sl_fail(SL_ERR_IO, "%s: %s", path, strerror(errno));
    char *buf = malloc(SCAFFOLD_FILE_MAX);
    if (!buf) {
        fclose(f);
        return sl_fail_nomem(SCAFFOLD_FILE_MAX, "a scaffold template");
    }
    size_t n = fread(buf, 1, SCAFFOLD_FILE_MAX, f);
    int bad = ferror(f) || !feof(f);
    fclose(f);
    if (bad) {
        free(buf);
        return sl_fail(SL_ERR_IO, "%s: unreadable or larger than %d bytes", path,
                       SCAFFOLD_FILE_MAX);
    }
    *text = buf;
    *len = n;
    return SL_OK;
}

static sl_status copy_file(const char *src, const char *dst, const char *name)
{
    char *text, *out;
    size_t len, out_len;
    sl_status st = read_all(src, &text, &len);
    if (st)
        return st;
    out = fill(text, len, name, &out_len);
    free(text);
    if (!out)
        return sl_fail_nomem((double)len, "a scaffold file");
    FILE *f = fopen(dst, "wb");
    if (!f) {
        free(out);
        return sl_fail(SL_ERR_IO, "%s: %s", dst, strerror(errno));
    }
    size_t wrote = fwrite(out, 1, out_len, f);
    free(out);
    if (fclose(f) != 0 || wrote != out_len)
        return sl_fail(SL_ERR_IO, "%s: write failed: %s", dst, strerror(errno));
    return SL_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of `src` (no subfolders: templates are flat), filled
 * into `dst`. */
static sl_status copy_tree(const char *src, const char *dst, const char *name, size_t *n_files)
{
    DIR *d = opendir(src);
    if (!d)
        return sl_fail(SL_ERR_IO, "%s: %s", src, strerror(errno));
    char *names[64];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 64)
        if (de->d_name[0] != '.' && (names[n] = strdup(de->d_name)))
            n++;
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    sl_status st = SL_OK;
    for (size_t i = 0; i < n && !st; i++) {
        char from[PATH_MAX], to[PATH_MAX], *fname;
        size_t flen;
        if ((st = join(from, src, names[i])))
            break;
        if (!(fname = fill(names[i], strlen(names[i]), name, &flen))) {
            st = sl_fail_nomem(256, "a scaffold file name");
            break;
        }
        st = join(to, dst, fname);
        free(fname);
        if (!st)
            st = copy_file(from, to, name);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    *n_files = n;
    return st;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        char p[PATH_MAX];
        while ((de = readdir(d)))
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && !join(p, dir, de->d_name))
                unlink(p);
        closedir(d);
    }
    rmdir(dir);
}

/* The process's umask (reading it means setting it: set it back at once). */
static mode_t current_umask(void)
{
    mode_t m = umask(022);
    umask(m);
    return m;
}

/* Whether `dir` is an empty folder (1), absent (0), or neither (an error). */
static sl_status target_state(const char *dir, int *empty)
{
    struct stat sb;
    *empty = 0;
    if (stat(dir, &sb) != 0)
        return errno == ENOENT ? SL_OK : sl_fail(SL_ERR_IO, "%s: %s", dir, strerror(errno));
    DIR *d = S_ISDIR(sb.st_mode) ? opendir(dir) : NULL;
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    if (d)
        closedir(d);
    if (!d || n)
        return sl_fail(SL_ERR_ARG, "%s already exists and is not an empty folder: nothing "
                       "was written (choose another DIR)", dir);
    *empty = 1;
    return SL_OK;
}

/* Moves every file of `from` into the existing folder `to` (same file
 * system: they are siblings), then removes `from`. */
static sl_status move_files(const char *from, const char *to)
{
    DIR *d = opendir(from);
    if (!d)
        return sl_fail(SL_ERR_IO, "%s: %s", from, strerror(errno));
    sl_status st = SL_OK;
    struct dirent *de;
    while (!st && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char a[PATH_MAX], b[PATH_MAX];
        if ((st = join(a, from, de->d_name)) || (st = join(b, to, de->d_name)))
            break;
        if (rename(a, b) != 0)
            st = sl_fail(SL_ERR_IO, "cannot move %s to %s: %s", a, b, strerror(errno));
    }
    closedir(d);
    if (!st)
        rmdir(from);
    return st;
}

/* The kinds there are templates for, "force, integrator, ... or monitor":
 * the folders of `templates`, so the message lists what can be written. */
static void list_kinds(const char *templates, char *buf, size_t cap)
{
    char *names[32];
    size_t n = 0, used = 0;
    DIR *d = opendir(templates);
    struct dirent *de;
    while (d && (de = readdir(d)) && n < 32) {
        char p[PATH_MAX];
        struct stat sb;
        if (de->d_name[0] != '.' && !join(p, templates, de->d_name) && !stat(p, &sb) &&
            S_ISDIR(sb.st_mode) && (names[n] = strdup(de->d_name)))
            n++;
    }
    if (d)
        closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    snprintf(buf, cap, "%s", n ? "" : "(no templates installed)");
    for (size_t i = 0; i < n; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        if (used < cap)
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", sep, names[i]);
        free(names[i]);
    }
}

sl_status sl_scaffold_write(const char *templates, const char *kind, const char *name,
                            const char *dir, size_t *n_files)
{
    sl_status st = check_name(name);
    if (st)
        return st;
    char src[PATH_MAX];
    if ((st = join(src, templates, kind)))
        return st;
    struct stat sb;
    if (stat(src, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        char kinds[256];
        list_kinds(templates, kinds, sizeof kinds);
        return sl_fail(SL_ERR_ARG, "no scaffold for '%s' (templates in %s): expected %s", kind,
                       templates, kinds);
    }
    int empty;
    if ((st = target_state(dir, &empty)))
        return st;
    /* The files are written beside the target (or inside it, when it is an
     * existing empty folder) and appear by rename. */
    char tmp[PATH_MAX];
    int n = snprintf(tmp, sizeof tmp, empty ? "%s/.starling-new.XXXXXX" : "%s.starling-new.XXXXXX",
                     dir);
    if (n < 0 || n >= (int)sizeof tmp)
        return sl_fail(SL_ERR_ARG, "path too long: %s", dir);
    if (!mkdtemp(tmp))
        return sl_fail(SL_ERR_IO, "cannot create a folder at %s: %s", tmp, strerror(errno));
    /* mkdtemp's folder is private (0700); the one that appears as DIR has
     * the permissions mkdir would give it */
    if (!empty && chmod(tmp, 0777 & ~current_umask()) != 0) {
        st = sl_fail(SL_ERR_IO, "cannot set the permissions of %s: %s", tmp, strerror(errno));
        rmdir(tmp);
        return st;
    }
    st = copy_tree(src, tmp, name, n_files);
    if (!st && !empty && rename(tmp, dir) != 0)
        st = sl_fail(SL_ERR_IO, "cannot rename %s to %s: %s", tmp, dir, strerror(errno));
    if (!st && empty)
        st = move_files(tmp, dir);
    if (st)
        remove_tree(tmp);
    return st;
}
