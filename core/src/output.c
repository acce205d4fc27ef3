/* Output files (output.h): link resolution, the kind of destination, the
 * overwrite rule, temporary files renamed into place, streams. */
#define _GNU_SOURCE
#include "starling/output.h"
#include "starling/cancel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- files this process wrote ------------------------------------------- */

/* By device and inode, so that another name for the same file counts too
 * and a file replaced by someone else since does not. */
typedef struct made_file {
    dev_t dev;
    ino_t ino;
} made_file;

static pthread_mutex_t made_lock = PTHREAD_MUTEX_INITIALIZER;
static made_file *made;
static size_t n_made, cap_made;
static int overwrite_default;

void sl_out_set_overwrite(int on) { overwrite_default = on != 0; }

static int made_has(dev_t dev, ino_t ino)
{
    int found = 0;
    pthread_mutex_lock(&made_lock);
    for (size_t i = 0; i < n_made && !found; i++)
        found = made[i].dev == dev && made[i].ino == ino;
    pthread_mutex_unlock(&made_lock);
    return found;
}

/* Best effort: a file not recorded is only protected more than it needs. */
static void made_add(const char *dest)
{
    struct stat sb;
    if (stat(dest, &sb) != 0 || made_has(sb.st_dev, sb.st_ino))
        return;
    pthread_mutex_lock(&made_lock);
    if (n_made == cap_made) {
        size_t cap = cap_made ? 2 * cap_made : 16;
        made_file *m = realloc(made, cap * sizeof *m);
        if (m)
            made = m, cap_made = cap;
    }
    if (n_made < cap_made)
        made[n_made++] = (made_file){sb.st_dev, sb.st_ino};
    pthread_mutex_unlock(&made_lock);
}

int sl_out_made_here(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && made_has(sb.st_dev, sb.st_ino);
}

/* ---- resolving the path -------------------------------------------------- */

/* The descriptor a path names ("-", /dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), or -1. Such a path is written through a copy of the
 * descriptor: opening it anew would start at its beginning and truncate a
 * redirected file. */
static int named_fd(const char *path)
{
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
        return STDOUT_FILENO;
    if (!strcmp(path, "/dev/stderr"))
        return STDERR_FILENO;
    const char *n = !strncmp(path, "/dev/fd/", 8)         ? path + 8
                    : !strncmp(path, "/proc/self/fd/", 14) ? path + 14
                                                           : NULL;
    if (!n || *n < '0' || *n > '9')
        return -1;
    char *end;
    long fd = strtol(n, &end, 10);
    return *end || fd > INT_MAX ? -1 : (int)fd;
}

/* The folder part of path with its slash ("" for a bare name). */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* The file path's links lead to (the path itself when it is no link),
 * whether or not that file exists yet. */
static sl_status resolve(const char *path, char **dest)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat sb;
        if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode)) {
            *dest = cur;
            return SL_OK;
        }
        char target[PATH_MAX];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0 || hops == 40) {
            int err = n < 0 ? errno : ELOOP;
            free(cur);
            return sl_fail(SL_ERR_IO, "'%s': cannot follow its link: %s", path, strerror(err));
        }
        target[n] = '\0';
        size_t d = target[0] == '/' ? 0 : dir_len(cur);
        char *next = malloc(d + (size_t)n + 1);
        if (next)
            sprintf(next, "%.*s%s", (int)d, cur, target);
        free(cur);
        cur = next;
    }
    return sl_fail(SL_ERR_NOMEM, "'%s': out of memory resolving the path", path);
}

/* ---- the rules ------------------------------------------------------------ */

static sl_status check_folder(const char *path, const char *dest)
{
    size_t d = dir_len(dest);
    char *dir = d ? strndup(dest, d) : strdup(".");
    if (!dir)
        return sl_fail(SL_ERR_NOMEM, "'%s': out of memory", path);
    struct stat sb;
    sl_status st = SL_OK;
    const char *via = strcmp(path, dest) ? " (where its link leads)" : "";
    if (stat(dir, &sb) != 0)
        st = sl_fail(SL_ERR_IO, "cannot write '%s': the folder '%s'%s: %s", path, dir, via,
                     strerror(errno));
    else if (!S_ISDIR(sb.st_mode))
        st = sl_fail(SL_ERR_IO, "cannot write '%s': '%s'%s is not a folder", path, dir, via);
    else if (access(dir, W_OK | X_OK) != 0)
        st = sl_fail(SL_ERR_IO, "cannot write '%s': cannot create files in the folder '%s'%s: "
                     "%s", path, dir, via, strerror(errno));
    free(dir);
    return st;
}

/* A regular file at dest: writable by the user, and either the overwrite
 * rule allows it or this process wrote it. */
static sl_status check_existing(const char *path, const struct stat *sb, const char *dest,
                                unsigned flags)
{
    if (!(sb->st_mode & 0222))
        return sl_fail(SL_ERR_IO, "'%s' is read-only (mode %04o): starling does not replace "
                       "write-protected files; make it writable (chmod u+w) or choose another "
                       "name", path, (unsigned)(sb->st_mode & 07777));
    if (access(dest, W_OK) != 0)
        return sl_fail(SL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    if ((flags & SL_OUT_OVERWRITE) || overwrite_default || made_has(sb->st_dev, sb->st_ino))
        return SL_OK;
    return sl_fail(SL_ERR_IO, "'%s' exists and this run did not write it: pass overwrite = "
                   "true to replace it (on the command line: starling run --overwrite)", path);
}

static const char *kind_name(mode_t m)
{
    return S_ISDIR(m) ? "a folder" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
                                                                               : "not a file";
}

/* Classifies dest (0: regular or new, 1: stream) after every check. */
static sl_status classify(const char *path, const char *dest, unsigned flags, int *stream,
                          struct stat *sb, int *exists)
{
    *stream = 0;
    *exists = stat(dest, sb) == 0;
    if (!*exists) {
        if (errno != ENOENT)
            return sl_fail(SL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
        return check_folder(path, dest);
    }
    if (S_ISFIFO(sb->st_mode) || S_ISCHR(sb->st_mode)) {
        *stream = 1;
        if (access(dest, W_OK) != 0)
            return sl_fail(SL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
        return SL_OK;
    }
    if (!S_ISREG(sb->st_mode))
        return sl_fail(SL_ERR_IO, "cannot write '%s': it is %s; expected a file name (or a "
                       "FIFO, a character device or - for standard output)", path,
                       kind_name(sb->st_mode));
    sl_status st = check_existing(path, sb, dest, flags);
    return st ? st : check_folder(path, dest);
}

sl_status sl_out_check(const char *path, unsigned flags)
{
    if (!path || !*path)
        return sl_fail(SL_ERR_ARG, "an output path is empty: expected a file name");
    int fd = named_fd(path);
    if (fd >= 0)
        return fcntl(fd, F_GETFL) == -1 || (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY
                   ? sl_fail(SL_ERR_IO, "cannot write '%s': descriptor %d is not open for "
                             "writing", path, fd)
                   : SL_OK;
    char *dest;
    sl_status st = resolve(path, &dest);
    if (st)
        return st;
    int stream, exists;
    struct stat sb;
    st = classify(path, dest, flags, &stream, &sb, &exists);
    free(dest);
    return st;
}

/* ---- writing ---------------------------------------------------------------- */

/* A temporary file beside dest (same file system, so rename is atomic),
 * or in TMPDIR for a stream written by name; mode and owner as given. */
static sl_status make_tmp(sl_out *o, int in_tmpdir, mode_t mode, const struct stat *old)
{
    const char *base = o->dest + dir_len(o->dest);
    const char *tdir = getenv("TMPDIR");
    if (!tdir || !*tdir)
        tdir = "/tmp";
    size_t cap = strlen(o->dest) + strlen(tdir) + 32;
    o->tmp = malloc(cap);
    if (!o->tmp)
        return sl_fail(SL_ERR_NOMEM, "'%s': out of memory", o->path);
    if (in_tmpdir)
        snprintf(o->tmp, cap, "%s/starling-out.XXXXXX", tdir);
    else
        snprintf(o->tmp, cap, "%.*s.%s.XXXXXX", (int)dir_len(o->dest), o->dest, base);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int err = errno;
        free(o->tmp);
        o->tmp = NULL;
        return sl_fail(SL_ERR_IO, "cannot create a temporary file for '%s': %s", o->path,
                       strerror(err));
    }
    fchmod(fd, mode);
    if (old && geteuid() == 0 && fchown(fd, old->st_uid, old->st_gid) != 0) {
        /* the file keeps root as its owner: still written, still readable */
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        return sl_fail(SL_ERR_IO, "cannot open a temporary file for '%s'", o->path);
    }
    return SL_OK;
}

static sl_status open_stream(sl_out *o)
{
    if (o->fd == STDOUT_FILENO || o->fd == STDERR_FILENO) /* what was printed comes first */
        fflush(o->fd == STDOUT_FILENO ? stdout : stderr);
    int fd = o->fd >= 0 ? dup(o->fd) : open(o->dest, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return sl_fail(SL_ERR_IO, "cannot open '%s' for writing: %s", o->path, strerror(err));
    }
    return SL_OK;
}

sl_status sl_out_open(sl_out *o, const char *path, unsigned flags)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    sl_status st = sl_out_check(path, flags);
    if (st)
        return st;
    o->path = strdup(path);
    o->fd = named_fd(path);
    st = o->path ? SL_OK : sl_fail(SL_ERR_NOMEM, "'%s': out of memory", path);
    if (!st)
        st = o->fd >= 0 ? ((o->dest = strdup(path)) ? SL_OK : SL_ERR_NOMEM)
                        : resolve(path, &o->dest);
    struct stat sb;
    int exists = 0;
    if (!st && o->fd < 0) {
        exists = stat(o->dest, &sb) == 0;
        o->stream = exists && !S_ISREG(sb.st_mode);
    }
    o->stream |= o->fd >= 0;
    if (!st && o->stream && !(flags & SL_OUT_BY_NAME))
        st = open_stream(o);
    else if (!st) {
        mode_t mask = umask(0);
        umask(mask);
        mode_t mode = exists && !o->stream ? (sb.st_mode & 07777) : (0666 & ~mask);
        st = make_tmp(o, o->stream, mode, exists && !o->stream ? &sb : NULL);
    }
    if (!st && (flags & SL_OUT_BY_NAME)) {
        fclose(o->f); /* the writer opens tmp by its name */
        o->f = NULL;
    }
    if (st)
        sl_out_abort(o);
    return st;
}

static void out_free(sl_out *o)
{
    free(o->path);
    free(o->dest);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

void sl_out_abort(sl_out *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    out_free(o);
}

sl_status sl_out_poll(const sl_out *o)
{
    if (!sl_cancelled())
        return SL_OK;
    return sl_fail(SL_ERR_CANCELLED, "writing '%s': cancelled; an earlier file there is left as "
                   "it was", o->path ? o->path : "?");
}

/* Copies the temporary file's bytes into the stream. */
static sl_status copy_to_stream(sl_out *o)
{
    FILE *in = fopen(o->tmp, "rb");
    sl_status st = in ? open_stream(o) : sl_fail(SL_ERR_IO, "cannot read back '%s': %s",
                                                   o->tmp, strerror(errno));
    char buf[1 << 16];
    size_t n;
    while (!st && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if ((st = sl_out_poll(o)) == SL_OK && fwrite(buf, 1, n, o->f) != n)
            st = sl_fail(SL_ERR_IO, "writing '%s' failed: %s", o->path, strerror(errno));
    if (in)
        fclose(in);
    return st;
}

/* Closes f, having flushed it to disk when it is a file. */
static sl_status close_file(sl_out *o)
{
    if (!o->f)
        return SL_OK;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    if (!bad && o->tmp && !o->stream)
        bad = fsync(fileno(o->f)) != 0 && errno != EINVAL;
    int err = errno;
    bad |= fclose(o->f) != 0;
    if (bad && !err)
        err = errno;
    o->f = NULL;
    return bad ? sl_fail(SL_ERR_IO, "writing '%s' failed: %s", o->path, strerror(err)) : SL_OK;
}

sl_status sl_out_commit(sl_out *o)
{
    sl_status st = sl_out_poll(o);
    if (!st)
        st = close_file(o);
    if (!st && o->stream && o->tmp) {
        st = copy_to_stream(o);
        if (!st)
            st = close_file(o);
    } else if (!st && o->tmp && rename(o->tmp, o->dest) != 0)
        st = sl_fail(SL_ERR_IO, "cannot put the finished file in place as '%s': %s", o->path,
                     strerror(errno));
    else if (!st && o->tmp) {
        free(o->tmp);
        o->tmp = NULL;
        made_add(o->dest);
    }
    sl_out_abort(o);
    return st;
}
