/* The conformance checks of likelihoods: batches equal their single
 * evaluations, the same input gives the same output, bad input is
 * refused, and the CPU agrees with CUDA. */
#define _GNU_SOURCE
#include "conformance_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "starling/rng.h"
#include "starling/table.h"

/* ---- likelihoods ------------------------------------------------------------------ */

enum { LK_BATCH = 37 }; /* not a multiple of any lane or block width */
enum { RV_OBS = 60 };
/* CPU against CUDA, as tests/test_gpu_kepler_rv.c measured them: double
 * 1e-9 relative; the mixed mode (an option 'precision' = 1) 1e-5. */
static const double LK_TOL_DOUBLE = 1e-9, LK_TOL_MIXED = 1e-5;

/* A small RV data set (two instruments, one planet of P = 7.3 d) in a new
 * folder under $TMPDIR; the caller removes both. */
static sl_status write_rv_fixture(uint64_t seed, char *dir, size_t dcap, char *file, size_t fcap)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, dcap, "%s/sl_check_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return sl_fail(SL_ERR_IO, "check: cannot create a folder %s for test data", dir);
    snprintf(file, fcap, "%s/rv.txt", dir);
    FILE *f = fopen(file, "w");
    if (!f) {
        rmdir(dir);
        return sl_fail(SL_ERR_IO, "check: cannot write %s", file);
    }
    sl_rng g;
    sl_rng_init(&g, seed, 3);
    fprintf(f, "time vel errvel tel\n");
    for (int i = 0; i < RV_OBS; i++) {
        double t = 200.0 * i / RV_OBS + 2.0 * sl_rng_uniform(&g);
        double v = 5.0 * sin(2.0 * M_PI * t / 7.3) + (i % 2 ? 3.0 : -2.0) +
                   (sl_rng_uniform(&g) - 0.5);
        fprintf(f, "%.10f %.10f %.6f %s\n", t, v, 1.0 + 0.5 * sl_rng_uniform(&g),
                i % 2 ? "b" : "a");
    }
    if (fclose(f) != 0) {
        unlink(file);
        rmdir(dir);
        return sl_fail(SL_ERR_IO, "check: cannot write %s", file);
    }
    return SL_OK;
}

/* The plugin's own example data set (sl_likelihood.example_data) in a new
 * folder under $TMPDIR; the caller removes both. */
static sl_status write_example(const sl_likelihood *l, uint64_t seed, char *dir, size_t dcap,
                               char *file, size_t fcap)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, dcap, "%s/sl_check_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return sl_fail(SL_ERR_IO, "check: cannot create a folder %s for test data", dir);
    snprintf(file, fcap, "%s/example.txt", dir);
    sl_status st = l->example_data(file, seed);
    if (st) {
        unlink(file);
        rmdir(dir);
    }
    return st;
}

/* A prepared likelihood and where its data came from. */
typedef struct lk_setup {
    void *ctx;
    int needs_data;
    char source[160];
    char file[4200]; /* the data file ("" when none) */
    char dir[4096];  /* the generated file's folder, removed by lk_done ("" otherwise) */
} lk_setup;

static void lk_done(lk_setup *s)
{
    if (s->dir[0]) {
        unlink(s->file);
        rmdir(s->dir);
        s->dir[0] = '\0';
    }
}

static sl_status lk_prepare_file(const sl_likelihood *l, const sl_param_values *opt,
                                 const char *path, void **ctx)
{
    sl_data d = sl_data_file(path);
    return l->prepare(opt, &d, ctx);
}

/* Data: the user's file, none if the plugin needs none, else the RV
 * fixture (kept until lk_done). 0 with a SKIP or FAIL added when nothing
 * could be prepared. */
static int lk_prepare(sl_check_report *r, const sl_likelihood *l, const sl_param_values *opt,
                      const sl_check_options *o, lk_setup *s)
{
    memset(s, 0, sizeof *s);
    s->needs_data = 1;
    if (o && o->data_path) {
        snprintf(s->source, sizeof s->source, "%s", o->data_path);
        snprintf(s->file, sizeof s->file, "%s", o->data_path);
        if (lk_prepare_file(l, opt, o->data_path, &s->ctx) == SL_OK)
            return 1;
        sl_check_add(r, SL_CHECK_FAIL, "prepare", "%s", sl_last_error());
        return 0;
    }
    if (l->prepare(opt, NULL, &s->ctx) == SL_OK) {
        s->needs_data = 0;
        snprintf(s->source, sizeof s->source, "no data");
        return 1;
    }
    if (l->example_data) {
        if (write_example(l, sl_check_seed(o), s->dir, sizeof s->dir, s->file, sizeof s->file)) {
            s->dir[0] = s->file[0] = '\0';
            sl_check_add(r, SL_CHECK_FAIL, "prepare", "example_data: %s", sl_last_error());
            return 0;
        }
        sl_status st = lk_prepare_file(l, opt, s->file, &s->ctx);
        snprintf(s->source, sizeof s->source, "the plugin's example_data");
        if (st == SL_OK)
            return 1;
        sl_check_add(r, SL_CHECK_FAIL, "prepare", "refused its own example_data: %s",
                     sl_last_error());
        lk_done(s);
        return 0;
    }
    if (write_rv_fixture(sl_check_seed(o), s->dir, sizeof s->dir, s->file, sizeof s->file)) {
        s->dir[0] = s->file[0] = '\0';
        sl_check_add(r, SL_CHECK_SKIP, "prepare", "%s", sl_last_error());
        return 0;
    }
    sl_status st = lk_prepare_file(l, opt, s->file, &s->ctx);
    snprintf(s->source, sizeof s->source, "a generated RV file (%d rows: time vel errvel tel)",
             RV_OBS);
    if (st == SL_OK)
        return 1;
    sl_check_add(r, SL_CHECK_SKIP, "prepare", "refused %s: \"%s\"; give the plugin's kind of "
                 "data file to run the data checks", s->source, sl_last_error());
    lk_done(s);
    return 0;
}

static void lk_missing_file(sl_check_report *r, const sl_likelihood *l,
                            const sl_param_values *opt, int needs_data)
{
    static const char *const missing = "/nonexistent/sl_check/no_such_file.txt";
    void *ctx = NULL;
    if (!needs_data) {
        sl_check_add(r, SL_CHECK_SKIP, "prepare/missing_file", "the plugin reads no data");
        return;
    }
    sl_clear_error();
    if (lk_prepare_file(l, opt, missing, &ctx) == SL_OK) {
        l->release(ctx);
        sl_check_add(r, SL_CHECK_FAIL, "prepare/missing_file", "a missing file was accepted");
        return;
    }
    int named = strstr(sl_last_error(), missing) != NULL;
    sl_check_add(r, named ? SL_CHECK_PASS : SL_CHECK_FAIL, "prepare/missing_file",
                 named ? "refused, naming the file" : "refused without naming the file: \"%s\"",
                 sl_last_error());
}

/* ---- the data file's columns, in memory ------------------------------------------- */

/* Every column of a file with a header, as named columns: numbers where
 * every value is one (parsed as the reader parses them), else text. */
typedef struct file_columns {
    sl_table tab;
    sl_data_column cols[SL_TABLE_MAX_COLS];
    double *num[SL_TABLE_MAX_COLS];
    const char **text[SL_TABLE_MAX_COLS];
    sl_data data;
} file_columns;

static void file_columns_free(file_columns *fc)
{
    for (int c = 0; c < SL_TABLE_MAX_COLS; c++)
        free(fc->num[c]), free(fc->text[c]);
    sl_table_free(&fc->tab);
}

/* 1: read; 0: the file cannot be seen as named columns (why says why). */
static int file_columns_read(const char *path, file_columns *fc, char *why, size_t cap)
{
    memset(fc, 0, sizeof *fc);
    static const sl_table_col probe = {"\x01", NULL, SL_COL_TEXT, 0, -1, 0};
    sl_table_spec spec = {.what = "data", .cols = &probe, .n_cols = 1};
    if (sl_table_read(path, &spec, &fc->tab) != SL_OK) {
        snprintf(why, cap, "%s", sl_last_error());
        return 0;
    }
    int n = fc->tab.n_fields, has_header = fc->tab.has_header;
    char *names[SL_TABLE_MAX_COLS];
    for (int i = 0; has_header && i < n && i < SL_TABLE_MAX_COLS; i++)
        names[i] = strdup(fc->tab.header[i]);
    sl_table_free(&fc->tab);
    if (!has_header || n > SL_TABLE_MAX_COLS) {
        snprintf(why, cap, "%s", has_header ? "more columns than the reader takes"
                                            : "the file has no header naming its columns");
        for (int i = 0; has_header && i < n && i < SL_TABLE_MAX_COLS; i++)
            free(names[i]);
        return 0;
    }
    sl_table_col want[SL_TABLE_MAX_COLS];
    const char *alias[SL_TABLE_MAX_COLS][2];
    for (int i = 0; i < n; i++) {
        alias[i][0] = names[i], alias[i][1] = NULL;
        want[i] = (sl_table_col){names[i], alias[i], SL_COL_TEXT, 1, i, 0};
    }
    spec = (sl_table_spec){.what = "data", .cols = want, .n_cols = n};
    sl_status st = sl_table_read(path, &spec, &fc->tab);
    for (int i = 0; i < n; i++)
        free(names[i]);
    if (st) {
        snprintf(why, cap, "%s", sl_last_error());
        return 0;
    }
    size_t rows = (size_t)fc->tab.n_rows;
    for (int c = 0; c < n; c++) {
        const sl_table_column *col = &fc->tab.col[c];
        double *v = malloc(rows * sizeof *v);
        int numeric = v != NULL;
        for (size_t i = 0; numeric && i < rows; i++)
            numeric = sl_table_parse_number(col->levels[col->code[i]], &v[i]);
        if (numeric) {
            fc->num[c] = v;
        } else {
            free(v);
            if (!(fc->text[c] = malloc(rows * sizeof *fc->text[c]))) {
                snprintf(why, cap, "out of memory");
                return 0;
            }
            for (size_t i = 0; i < rows; i++)
                fc->text[c][i] = col->levels[col->code[i]];
        }
        fc->cols[c] = (sl_data_column){fc->tab.header[c], fc->num[c],
                                       (const char *const *)fc->text[c]};
    }
    fc->data = (sl_data){.n_rows = rows, .cols = fc->cols, .n_cols = (size_t)n,
                         .source = "check-plugin's columns"};
    return 1;
}

/* The data file's columns handed over in memory must give the same
 * parameters and, bit for bit, the same log-likelihoods as the file. */
static void lk_memory(sl_check_report *r, const sl_likelihood *l, const sl_param_values *opt,
                      const lk_setup *s, const double *p, size_t np, const double *from_file)
{
    const char *name = "data/memory_vs_file";
    char why[SL_CHECK_DETAIL_MAX / 2];
    file_columns fc;
    if (!s->needs_data || !s->file[0]) {
        sl_check_add(r, SL_CHECK_SKIP, name, "the plugin reads no data");
        return;
    }
    if (!file_columns_read(s->file, &fc, why, sizeof why)) {
        sl_check_add(r, SL_CHECK_SKIP, name, "%s: %s", s->file, why);
        file_columns_free(&fc);
        return;
    }
    void *ctx = NULL;
    size_t n2;
    const char *const *names, *const *names2;
    const double *lo, *hi;
    double out[LK_BATCH];
    sl_backend cpu;
    sl_status st = l->prepare(opt, &fc.data, &ctx);
    if (st) {
        sl_check_add(r, SL_CHECK_FAIL, name, "the file's %zu columns in memory refused: %s",
                     fc.data.n_cols, sl_last_error());
        file_columns_free(&fc);
        return;
    }
    size_t n1;
    int same = l->free_params(s->ctx, &n1, &names, &lo, &hi) == SL_OK &&
               l->free_params(ctx, &n2, &names2, &lo, &hi) == SL_OK && n1 == n2 && n2 == np;
    for (size_t i = 0; same && i < np; i++)
        same = !strcmp(names[i], names2[i]);
    if (!same)
        sl_check_add(r, SL_CHECK_FAIL, name, "in memory, the parameters differ from the file's "
                     "(%zu vs %zu, or their names)", n2, np);
    else if (sl_backend_open("cpu", &cpu) || l->eval_batch(ctx, &cpu, p, LK_BATCH, out))
        sl_check_add(r, SL_CHECK_FAIL, name, "eval from memory: %s", sl_last_error());
    else if (memcmp(out, from_file, sizeof out)) {
        size_t k = 0;
        while (!memcmp(&out[k], &from_file[k], sizeof out[k]))
            k++;
        sl_check_add(r, SL_CHECK_FAIL, name, "vector %zu: %.17g from the file, %.17g from the "
                     "same columns in memory", k + 1, from_file[k], out[k]);
    } else
        sl_check_add(r, SL_CHECK_PASS, name, "the file's %lld rows as %zu named columns in "
                     "memory: the same %zu parameters, %d log-likelihoods bit for bit",
                     (long long)fc.data.n_rows, fc.data.n_cols, np, LK_BATCH);
    l->release(ctx);
    file_columns_free(&fc);
}

static int lk_params(sl_check_report *r, const sl_likelihood *l, void *ctx, size_t *n,
                     const double **lo, const double **hi)
{
    const char *const *names;
    if (!l->free_params || l->free_params(ctx, n, &names, lo, hi) != SL_OK) {
        sl_check_add(r, SL_CHECK_FAIL, "params", "%s",
                     l->free_params ? sl_last_error() : "the table has no free_params entry");
        return 0;
    }
    if (*n == 0 || !names || !*lo || !*hi) {
        sl_check_add(r, SL_CHECK_FAIL, "params", "%zu parameters, names or bounds missing", *n);
        return 0;
    }
    for (size_t i = 0; i < *n; i++) {
        int dup = 0;
        for (size_t k = 0; k < i && names[i]; k++)
            dup |= names[k] && !strcmp(names[k], names[i]);
        if (!names[i] || !*names[i] || dup || !((*lo)[i] < (*hi)[i])) {
            sl_check_add(r, SL_CHECK_FAIL, "params", "parameter %zu ('%s'): bounds [%g, %g]%s; "
                         "expected a unique name and lo < hi", i + 1,
                         names[i] ? names[i] : "(null)", (*lo)[i], (*hi)[i],
                         dup ? ", name repeated" : "");
            return 0;
        }
    }
    sl_check_add(r, SL_CHECK_PASS, "params", "%zu parameters, names unique, lo < hi", *n);
    return 1;
}

/* n random vectors inside the bounds; an unbounded side is replaced by
 * 10 from the other bound (or by [-10, 10]). */
static void lk_random(uint64_t seed, size_t np, const double *lo, const double *hi, size_t n,
                      double *p)
{
    sl_rng g;
    sl_rng_init(&g, seed, 5);
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < np; i++) {
            double a = lo[i], b = hi[i];
            if (!isfinite(a) && !isfinite(b))
                a = -10, b = 10;
            else if (!isfinite(a))
                a = b - 10;
            else if (!isfinite(b))
                b = a + 10;
            p[k * np + i] = a + (b - a) * sl_rng_uniform(&g);
        }
}

static size_t count_finite(const double *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += isfinite(v[i]) != 0;
    return k;
}

static void lk_batch_vs_single(sl_check_report *r, const sl_likelihood *l, void *ctx,
                               const double *p, size_t np, const double *batch)
{
    const sl_backend *be = NULL;
    sl_backend cpu;
    if (sl_backend_open("cpu", &cpu) == SL_OK)
        be = &cpu;
    for (size_t k = 0; k < LK_BATCH; k++) {
        double one, ll2, c2;
        if (l->eval_batch(ctx, be, p + k * np, 1, &one)) {
            sl_check_add(r, SL_CHECK_FAIL, "batch_vs_single", "vector %zu alone: %s", k + 1,
                         sl_last_error());
            return;
        }
        if (memcmp(&one, &batch[k], sizeof one)) {
            sl_check_add(r, SL_CHECK_FAIL, "batch_vs_single", "vector %zu: %.17g in a batch of "
                         "%d, %.17g alone", k + 1, batch[k], LK_BATCH, one);
            return;
        }
        if (l->eval_batch_chi2 && (l->eval_batch_chi2(ctx, be, p + k * np, 1, &ll2, &c2) ||
                                   memcmp(&ll2, &one, sizeof one))) {
            sl_check_add(r, SL_CHECK_FAIL, "batch_vs_single", "vector %zu: eval_batch_chi2's "
                         "log-likelihood %.17g differs from eval_batch's %.17g", k + 1, ll2, one);
            return;
        }
    }
    size_t fin = count_finite(batch, LK_BATCH);
    sl_check_add(r, fin ? SL_CHECK_PASS : SL_CHECK_SKIP, "batch_vs_single",
                 fin ? "%d random in-bounds vectors: batch = single bit for bit (%zu finite)%s"
                     : "%d random in-bounds vectors, none with a finite value (%zu): nothing to "
                       "compare%s", LK_BATCH, fin,
                 l->eval_batch_chi2 ? "; eval_batch_chi2 agrees" : "");
}

/* CPU against CUDA for one prepared context. */
static void lk_cuda(sl_check_report *r, const sl_likelihood *l, void *ctx, const double *p,
                    const double *cpu_out, const sl_check_options *o, const char *name,
                    double tol)
{
    sl_backend gpu;
    sl_check_result why_res;
    char why[160];
    if (!(l->backends & SL_BACKEND_CAN_CUDA)) {
        sl_check_add(r, SL_CHECK_SKIP, name, "the plugin runs on the CPU only (its table "
                     "declares no CUDA)");
        return;
    }
    if (!sl_check_cuda_backend(o, &gpu, &why_res, why, sizeof why)) {
        sl_check_add(r, why_res, name, "%s", why);
        return;
    }
    double out[LK_BATCH];
    sl_status st = l->eval_batch(ctx, &gpu, p, LK_BATCH, out);
    if (st) { /* declared, so an SL_ERR_UNSUPPORTED is a failure too */
        sl_check_add(r, SL_CHECK_FAIL, name, "CUDA eval: %s", sl_last_error());
        return;
    }
    double worst = 0;
    for (size_t k = 0; k < LK_BATCH; k++)
        worst = fmax(worst, sl_check_rel(out[k], cpu_out[k], 1e-300));
    sl_check_add(r, worst <= tol ? SL_CHECK_PASS : SL_CHECK_FAIL, name,
                 "%d vectors: max relative difference CPU vs CUDA %.3g (bound %g)", LK_BATCH,
                 worst, tol);
}

/* The mixed-precision context, when the plugin declares mixed precision
 * (chosen by its word option 'precision'); NULL otherwise. */
static void *lk_mixed(const sl_likelihood *l, const sl_check_options *o)
{
    sl_param_values pv;
    if (!(l->precisions & SL_PRECISION_MIXED) ||
        sl_check_valid_values(l->params, l->n_params, &pv) ||
        sl_params_set_word(&pv, "precision", "mixed"))
        return NULL;
    sl_check_report scratch;
    lk_setup s;
    void *ctx = lk_prepare(&scratch, l, &pv, o, &s) ? s.ctx : NULL;
    lk_done(&s);
    return ctx;
}

/* ---- thread safety ------------------------------------------------------------------ */

enum { LK_THREAD_REPEATS = 4 };

/* One thread's work: its own context, its own vectors, its expected values. */
typedef struct lk_thread {
    const sl_likelihood *l;
    void *ctx;
    const double *p, *want;
    int differs;         /* 1 + the first vector that differed, or 0 */
    double got;
    sl_status st;
    char err[SL_CHECK_DETAIL_MAX / 2];
} lk_thread;

static void *lk_thread_run(void *arg)
{
    lk_thread *t = arg;
    sl_backend cpu;
    double out[LK_BATCH];
    t->st = sl_backend_open("cpu", &cpu);
    for (int rep = 0; rep < LK_THREAD_REPEATS && !t->st && !t->differs; rep++) {
        t->st = t->l->eval_batch(t->ctx, &cpu, t->p, LK_BATCH, out);
        for (size_t k = 0; !t->st && !t->differs && k < LK_BATCH; k++)
            if (memcmp(&out[k], &t->want[k], sizeof out[k]))
                t->differs = (int)k + 1, t->got = out[k];
    }
    if (t->st) /* the message is this thread's */
        snprintf(t->err, sizeof t->err, "%s", sl_last_error());
    return NULL;
}

/* The contract of likelihood.h: two contexts evaluated at the same time
 * from two threads, each on its own vectors (the second in reverse order),
 * give the values of one thread alone. */
static void lk_threads(sl_check_report *r, const sl_likelihood *l, const sl_param_values *opt,
                       const lk_setup *s, const double *p, size_t np, const double *alone)
{
    const char *name = "threads/distinct_contexts";
    void *other = NULL;
    sl_status st = s->needs_data ? lk_prepare_file(l, opt, s->file, &other)
                                 : l->prepare(opt, NULL, &other);
    double *rp = malloc(LK_BATCH * np * sizeof *rp), ralone[LK_BATCH];
    if (st || !rp) {
        sl_check_add(r, SL_CHECK_FAIL, name, "a second context: %s",
                     st ? sl_last_error() : "out of memory");
        if (!st)
            l->release(other);
        free(rp);
        return;
    }
    for (size_t k = 0; k < LK_BATCH; k++) {
        memcpy(rp + k * np, p + (LK_BATCH - 1 - k) * np, np * sizeof *rp);
        ralone[k] = alone[LK_BATCH - 1 - k];
    }
    lk_thread t[2] = {{.l = l, .ctx = s->ctx, .p = p, .want = alone},
                      {.l = l, .ctx = other, .p = rp, .want = ralone}};
    pthread_t th[2];
    int started = 0;
    for (; started < 2; started++)
        if (pthread_create(&th[started], NULL, lk_thread_run, &t[started]))
            break;
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (started < 2)
        sl_check_add(r, SL_CHECK_SKIP, name, "could not start a second thread");
    for (int i = 0; started == 2 && i < 2; i++)
        if (t[i].st || t[i].differs) {
            if (t[i].st)
                sl_check_add(r, SL_CHECK_FAIL, name, "thread %d: %s", i + 1, t[i].err);
            else
                sl_check_add(r, SL_CHECK_FAIL, name, "thread %d, vector %d: %.17g alone, %.17g "
                             "while another context was evaluated", i + 1, t[i].differs,
                             t[i].want[t[i].differs - 1], t[i].got);
            started = 0;
        }
    if (started == 2)
        sl_check_add(r, SL_CHECK_PASS, name, "2 contexts evaluated at once from 2 threads "
                     "(%d batches of %d each): the values of one thread alone, bit for bit",
                     LK_THREAD_REPEATS, LK_BATCH);
    l->release(other);
    free(rp);
}

static void lk_data_checks(sl_check_report *r, const sl_likelihood *l,
                           const sl_param_values *opt, const lk_setup *s,
                           const sl_check_options *o)
{
    void *ctx = s->ctx;
    size_t np;
    const double *lo, *hi;
    if (!lk_params(r, l, ctx, &np, &lo, &hi))
        return;
    double *p = malloc(LK_BATCH * np * sizeof *p), out[2][LK_BATCH];
    sl_backend cpu;
    if (!p || sl_backend_open("cpu", &cpu)) {
        free(p);
        sl_check_add(r, SL_CHECK_FAIL, "eval", "setup: %s", p ? sl_last_error() : "no memory");
        return;
    }
    lk_random(sl_check_seed(o), np, lo, hi, LK_BATCH, p);
    if (l->eval_batch(ctx, &cpu, p, LK_BATCH, out[0]) ||
        l->eval_batch(ctx, &cpu, p, LK_BATCH, out[1])) {
        sl_check_add(r, SL_CHECK_FAIL, "eval", "a batch of %d in-bounds vectors: %s", LK_BATCH,
                     sl_last_error());
        free(p);
        return;
    }
    int same = !memcmp(out[0], out[1], sizeof out[0]);
    sl_check_add(r, same ? SL_CHECK_PASS : SL_CHECK_FAIL, "repeat",
                 same ? "the same batch twice: bit-identical"
                      : "the same batch twice gave different values");
    lk_batch_vs_single(r, l, ctx, p, np, out[0]);
    lk_memory(r, l, opt, s, p, np, out[0]);
    lk_threads(r, l, opt, s, p, np, out[0]);
    lk_cuda(r, l, ctx, p, out[0], o, "cuda", LK_TOL_DOUBLE);
    void *mixed = lk_mixed(l, o);
    if (mixed) {
        double mo[LK_BATCH];
        if (l->eval_batch(mixed, &cpu, p, LK_BATCH, mo) == SL_OK)
            lk_cuda(r, l, mixed, p, mo, o, "cuda/mixed", LK_TOL_MIXED);
        else
            sl_check_add(r, SL_CHECK_FAIL, "cuda/mixed", "CPU mixed eval: %s", sl_last_error());
        l->release(mixed);
    }
    free(p);
}

sl_status sl_check_likelihood(const sl_likelihood *l, const sl_check_options *o,
                              sl_check_report *r)
{
    sl_check_begin(r, SL_KIND_LIKELIHOOD, l ? l->name : NULL);
    if (!l)
        return sl_fail(SL_ERR_ARG, "check likelihood: no table");
    sl_check_schema(r, "params", l->params, l->n_params);
    if (sl_likelihood_check_caps(l) != SL_OK) {
        sl_check_add(r, SL_CHECK_FAIL, "capabilities", "%s", sl_last_error());
        return SL_OK;
    }
    sl_check_add(r, SL_CHECK_PASS, "capabilities", "backends %s%s%s, precisions declared%s",
                 l->backends & SL_BACKEND_CAN_CPU ? "CPU" : "",
                 l->backends == (SL_BACKEND_CAN_CPU | SL_BACKEND_CAN_CUDA) ? " and " : "",
                 l->backends & SL_BACKEND_CAN_CUDA ? "CUDA" : "",
                 (l->precisions & (l->precisions - 1)) ? ", chosen by option 'precision'" : "");
    if (!l->prepare || !l->eval_batch || !l->release || !l->free_params) {
        sl_check_add(r, SL_CHECK_FAIL, "entries", "prepare, eval_batch, release and free_params "
                     "are required");
        return SL_OK;
    }
    if (!(l->backends & SL_BACKEND_CAN_CPU)) {
        sl_check_add(r, SL_CHECK_SKIP, "data", "the plugin runs on CUDA only; the data checks "
                     "run on the CPU");
        return SL_OK;
    }
    sl_param_values opt;
    if (sl_check_valid_values(l->params, l->n_params, &opt)) {
        sl_check_add(r, SL_CHECK_FAIL, "options", "defaults: %s", sl_last_error());
        return SL_OK;
    }
    lk_setup s;
    if (!lk_prepare(r, l, &opt, o, &s))
        return SL_OK;
    sl_check_add(r, SL_CHECK_PASS, "prepare", "default options, %s", s.source);
    lk_missing_file(r, l, &opt, s.needs_data);
    lk_data_checks(r, l, &opt, &s, o);
    l->release(s.ctx);
    lk_done(&s);
    return SL_OK;
}
