/* The plugin's command `starling ls`: the best period of each light curve
 * of text or FITS files, folders or stdin, as text or CSV. The executable
 * runs it (its registry's commands) and gives it the streams it prints on. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lombscargle.h"
#include "ls_faces.h"

static const char ls_usage[] =
    "usage: starling ls [OPTIONS] FILE|FOLDER|- ...\n"
    "\n"
    "The best Lomb-Scargle period of each light curve (astropy's defaults: generalised\n"
    "periodogram, autofrequency). Text files have columns t, y[, dy] (a header's names\n"
    "choose them); FITS tables too; a folder: one curve per file, each read on its own;\n"
    "- reads one text file from stdin.\n"
    "  --batch              files hold many objects: columns id, t, y[, dy]\n"
    "  --csv                comma-separated output, one header line: object, best_period,\n"
    "                       best_frequency, power, [fap,] status (\"ok\" or why the object\n"
    "                       was flagged; its numbers are then nan)\n"
    "  --fap                add the false-alarm probability of the best peak\n"
    "  --backend=auto|cpu|cuda\n"
    "  --engine=auto|direct|fast\n"
    "  --fast-accuracy=X    the fast engine's bound (default 1e-10)\n"
    "  --fp32               single precision\n"
    "  --standard           the standard (not generalised) periodogram\n"
    "  --max-size=SIZE      the most read of one file (default 1G; K, M, G, T: powers\n"
    "                       of 1024): an input that never ends is an error, not a full\n"
    "                       memory\n"
    "Files that fail are named on stderr; the others' results are still printed.\n"
    "Exit status: 0 ok, 2 usage, 3 some objects flagged or some files failed,\n"
    "130/143 interrupted.\n";

/* What `starling ls` could not do, for its closing summary. */
typedef struct ls_tally {
    long long objects, flagged, by_flag[SL_LS_FLAG_NUMERIC + 1];
    int files, failed_files;
} ls_tally;

/* "2 of 1000 objects flagged (fewer than 3 points: 1, constant values: 1);
 * 1 of 3 files failed (see above)" on stderr; returns the exit status. */
static int ls_summary(FILE *err, const ls_tally *t)
{
    if (!t->flagged && !t->failed_files)
        return SL_EXIT_OK;
    fprintf(err, "starling: ls: ");
    if (t->flagged) {
        fprintf(err, "%lld of %lld object%s flagged (", t->flagged, t->objects,
                t->objects == 1 ? "" : "s");
        const char *sep = "";
        for (int f = 1; f <= SL_LS_FLAG_NUMERIC; f++)
            if (t->by_flag[f]) {
                fprintf(err, "%s%s: %lld", sep, sl_ls_flag_name((sl_ls_flag)f), t->by_flag[f]);
                sep = ", ";
            }
        fprintf(err, ")%s", t->failed_files ? "; " : "");
    }
    if (t->failed_files)
        fprintf(err, "%d of %d file%s failed (see above)", t->failed_files, t->files,
                t->files == 1 ? "" : "s");
    fprintf(err, "; the other results are on stdout\n");
    return SL_EXIT_PARTIAL;
}

/* A numeric option of the plugin's schema from text: the whole text must be
 * a number, in the key's range (checked by the schema, which names both). */
static sl_status ls_number_option(const sl_periodogram *ls, const char *key, const char *text,
                                  double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end)
        return sl_fail(SL_ERR_ARG, "'%s' is not a number", text);
    sl_param_values pv;
    sl_status st = sl_params_init(&pv, ls->params, ls->n_params);
    if (!st)
        st = sl_params_set(&pv, key, v);
    if (!st)
        *out = v;
    return st;
}

/* "--max-size=SIZE": bytes, or a number with K, M, G or T (powers of 1024,
 * "KiB"/"KB" too); 0 when the text is not a positive size. */
static int64_t ls_size_option(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || !(v > 0))
        return 0;
    static const char units[] = "KMGT";
    const char *u = *end ? strchr(units, *end & ~0x20) : NULL;
    if (u && *end) {
        for (int k = 0; k <= u - units; k++)
            v *= 1024.0;
        end++;
        if (*end == 'i' && end[1] == 'B')
            end += 2;
        else if (*end == 'B')
            end++;
    }
    return *end || v < 1 || v > 9e18 ? 0 : (int64_t)v;
}

/* %.*g, but NaN as "nan" whatever its sign bit (printf writes "-nan"). */
static const char *fmt_g(char *buf, size_t cap, int prec, double v)
{
    if (isnan(v))
        snprintf(buf, cap, "nan");
    else
        snprintf(buf, cap, "%.*g", prec, v);
    return buf;
}

/* A CSV field: quoted (with "" for a quote) when it holds a comma, a quote
 * or a line break. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    putc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            putc('"', out);
        putc(*s, out);
    }
    putc('"', out);
}

/* How `starling ls` reads and prints. */
typedef struct ls_run {
    const sl_command_env *env;
    const sl_periodogram *ls;
    sl_backend be;
    sl_ls_options o;
    sl_ls_columns cols; /* max_bytes only */
    int batch, csv;
    ls_tally tally;
} ls_run;

static void ls_header(const ls_run *x)
{
    FILE *out = x->env->out;
    if (x->csv)
        fprintf(out, "object,best_period,best_frequency,power%s,status\n", x->o.fap ? ",fap" : "");
    else
        fprintf(out, "# %s\n%-32s %-18s %-18s %-12s%s\n", x->be.description, "object",
                "best_period", "best_frequency", "power", x->o.fap ? " fap" : "");
}

/* One object's line: text columns, or CSV (status "ok" or the flag's name,
 * the numbers nan when flagged). */
static void ls_line(const ls_run *x, const char *name, const sl_ls_result *res, int64_t k)
{
    char p[40], f[40], w[40], a[40];
    int flagged = res->flag[k] != SL_LS_OK;
    double nan = NAN, bf = flagged ? nan : res->best_f[k];
    fmt_g(p, sizeof p, 10, flagged ? nan : 1.0 / bf);
    fmt_g(f, sizeof f, 10, bf);
    fmt_g(w, sizeof w, 6, flagged ? nan : res->best_p[k]);
    fmt_g(a, sizeof a, 3, flagged || !x->o.fap ? nan : res->best_fap[k]);
    if (x->csv) {
        csv_field(x->env->out, name);
        fprintf(x->env->out, ",%s,%s,%s%s%s,", p, f, w, x->o.fap ? "," : "", x->o.fap ? a : "");
        csv_field(x->env->out, flagged ? sl_ls_flag_name(res->flag[k]) : "ok");
        putc('\n', x->env->out);
    } else if (flagged)
        fprintf(x->env->out, "%-32s flagged: %s\n", name, sl_ls_flag_name(res->flag[k]));
    else if (x->o.fap)
        fprintf(x->env->out, "%-32s %-18s %-18s %-12s %s\n", name, p, f, w, a);
    else
        fprintf(x->env->out, "%-32s %-18s %-18s %s\n", name, p, f, w);
}

/* One light-curve file (or stdin, "-"): its objects' lines, or its error
 * on stderr; `name` names a lone object (NULL: the path). */
static void ls_file(ls_run *x, const char *path, int with_id, const char *name)
{
    sl_ls_set *set = NULL;
    sl_ls_result res;
    const sl_periodogram *ls = x->ls;
    x->tally.files++;
    if (ls->read_with(path, &x->cols, with_id, &set) ||
        ls->compute(&x->be, &set->data, &x->o, &res)) {
        ls->set_free(set);
        if (x->env->stopped())
            return;
        fflush(x->env->out);
        fprintf(x->env->err, "starling: ls: %s\n", sl_last_error());
        x->tally.failed_files++;
        return;
    }
    x->tally.objects += res.n_obj;
    for (int64_t k = 0; k < res.n_obj; k++) {
        const char *obj = with_id || set->data.n_obj > 1 ? set->id[k]
                          : name ? name : strcmp(path, "-") ? path : "stdin";
        if (res.flag[k] && (int)res.flag[k] <= SL_LS_FLAG_NUMERIC)
            x->tally.by_flag[res.flag[k]]++;
        x->tally.flagged += res.flag[k] != SL_LS_OK;
        ls_line(x, obj, &res, k);
    }
    fflush(x->env->out);
    ls->result_free(&res);
    ls->set_free(set);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder: every entry not starting with '.' is one light curve, read on
 * its own, so that one bad file costs only its own line; objects are named
 * by their file names. */
static void ls_folder(ls_run *x, const char *dir)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (!grown)
            break;
        names = grown;
        if (!(names[n] = strdup(de->d_name)))
            break;
        n++;
    }
    if (!d || n == 0) {
        fflush(x->env->out);
        fprintf(x->env->err, "starling: ls: %s: %s\n", dir,
                d ? "the folder holds no light-curve files" : strerror(errno));
        x->tally.files++, x->tally.failed_files++;
    }
    if (d)
        closedir(d);
    qsort(names, n, sizeof *names, cmp_name);
    for (size_t i = 0; i < n && !x->env->stopped(); i++) {
        char path[PATH_MAX];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            fflush(x->env->out);
            fprintf(x->env->err, "starling: ls: %s: a folder inside a folder (folders are not "
                    "read recursively)\n", path);
            x->tally.files++, x->tally.failed_files++;
        } else
            ls_file(x, path, 0, names[i]);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* One option of `starling ls`: 1 taken, 0 not an option, -1 bad (said). */
static int ls_option(ls_run *x, const char *a, const char **backend)
{
    const sl_periodogram *ls = x->ls;
    if (!strcmp(a, "--batch")) x->batch = 1;
    else if (!strcmp(a, "--csv")) x->csv = 1;
    else if (!strcmp(a, "--fp32")) x->o.precision = SL_LS_FP32;
    else if (!strcmp(a, "--standard")) x->o.method = SL_LS_STANDARD;
    else if (!strcmp(a, "--fap")) x->o.fap = 1;
    else if (!strncmp(a, "--backend=", 10)) *backend = a + 10;
    else if (!strncmp(a, "--engine=", 9)) {
        if (ls->set_choice(&x->o, "engine", a + 9)) {
            fprintf(x->env->err, "starling: ls: %s\n", sl_last_error());
            return -1;
        }
    } else if (!strncmp(a, "--fast-accuracy=", 16)) {
        if (ls_number_option(ls, "fast_accuracy", a + 16, &x->o.fast_accuracy)) {
            fprintf(x->env->err, "starling: ls: --fast-accuracy: %s\n", sl_last_error());
            return -1;
        }
    } else if (!strncmp(a, "--max-size=", 11)) {
        if (!(x->cols.max_bytes = ls_size_option(a + 11))) {
            fprintf(x->env->err, "starling: ls: --max-size '%s': expected a size in bytes, e.g. "
                    "4G, 512M or 1000000\n", a + 11);
            return -1;
        }
    } else if (a[0] == '-' && a[1]) {
        fprintf(x->env->err, "starling: ls: unknown option '%s'\n%s", a, ls_usage);
        return -1;
    } else
        return 0;
    return 1;
}

/* `starling ls`: the best period of each light curve, with astropy's
 * defaults (generalised periodogram, autofrequency 5/5). */
static int ls_main(const sl_command_env *env, int argc, char **argv)
{
    ls_run x = {.env = env, .ls = &sl_ls_table};
    sl_ls_options_default(&x.o);
    x.cols.max_bytes = SL_LS_MAX_BYTES;
    const char *backend = "auto";
    int files = 0, stdin_files = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(ls_usage, env->out);
            return SL_EXIT_OK;
        }
        int k = ls_option(&x, argv[i], &backend);
        if (k < 0)
            return SL_EXIT_USAGE;
        files += k == 0;
        stdin_files += k == 0 && !strcmp(argv[i], "-");
    }
    const char *why = files == 0 ? "expected light-curve files (or - for stdin)"
                      : stdin_files > 1 ? "stdin (-) can be read once only" : NULL;
    if (why || sl_backend_open(backend, &x.be)) {
        fprintf(env->err, "starling: ls: %s\n%s", why ? why : sl_last_error(),
                why ? ls_usage : "");
        return SL_EXIT_USAGE;
    }
    ls_header(&x);
    for (int i = 0; i < argc && !env->stopped(); i++) {
        struct stat sb;
        if (argv[i][0] == '-' && argv[i][1])
            continue;
        if (strcmp(argv[i], "-") && stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
            ls_folder(&x, argv[i]);
        else
            ls_file(&x, argv[i], x.batch, NULL);
    }
    fflush(env->out);
    if (env->stopped()) {
        char where[96];
        snprintf(where, sizeof where, "ls: stopped in file %d of %d", x.tally.files, files);
        return env->interrupted(where);
    }
    return ls_summary(env->err, &x.tally);
}

const sl_command sl_ls_command = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_COMMAND,
    .name = "ls",
    .description = "starling ls FILE...: the best Lomb-Scargle period of each light curve",
    .synopsis =
        "       starling ls [OPTIONS] FILE...     best Lomb-Scargle period of each light curve\n"
        "           (t, y[, dy] columns; --batch: id, t, y[, dy]; a folder: one curve per file;\n"
        "            -: stdin; FITS tables too; --csv, --backend=auto|cpu|cuda,\n"
        "            --engine=auto|direct|fast, --fp32, --standard, --fap,\n"
        "            --fast-accuracy=X, --max-size=SIZE; see starling help ls)\n",
    .usage = ls_usage,
    .main = ls_main,
};
