/* Helpers for the microlensing suites: the plugin's table from the
 * registry and the reference CSV files of tests/reference/microlensing_ref.py
 * ('#' comment lines, one header row, then numbers). */
#ifndef SL_ML_TEST_H
#define SL_ML_TEST_H

#include "sl_test.h"
#include "starling/plugins/microlensing/microlensing.h"

typedef struct slt_ml {
    sl_registry *reg;
    const sl_lens *lens;
} slt_ml;

static SLT_UNUSED void slt_ml_load(slt_ml *p)
{
    SLT_OK(sl_registry_create(&p->reg));
    SLT_OK(sl_registry_load_default(p->reg));
    const void *t;
    SLT_OK(sl_registry_get(p->reg, SL_KIND_LENS, "microlensing", &t));
    p->lens = t;
}

static SLT_UNUSED void slt_ml_unload(slt_ml *p) { sl_registry_destroy(p->reg); }

/* tests/data/microlensing/NAME: ncol columns (text ones as NaN) into a malloc'd
 * row-major table; returns the number of rows (at least one, or the test
 * fails: a reference file that reads as empty must not pass vacuously). */
static SLT_UNUSED int64_t slt_ml_csv(const char *name, int ncol, double **out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/microlensing/%s", SL_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char line[8192];
    int header = 0;
    int64_t n = 0, cap = 256;
    double *v = malloc((size_t)cap * (size_t)ncol * sizeof *v);
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (!header) {
            header = 1;
            continue;
        }
        if (n == cap) {
            cap *= 2;
            v = realloc(v, (size_t)cap * (size_t)ncol * sizeof *v);
        }
        char *p = line;
        for (int c = 0; c < ncol; c++) {
            char *end;
            v[n * ncol + c] = strtod(p, &end);
            if (end == p) { /* a text column (a model's name): NaN, skipped */
                v[n * ncol + c] = NAN;
                end = strchr(p, ',');
                cr_assert(end || c == ncol - 1, "%s: data row %lld column %d", path,
                          (long long)n + 1, c + 1);
                if (!end)
                    end = p + strlen(p);
            }
            p = end + (*end == ',');
        }
        n++;
    }
    fclose(f);
    cr_assert_gt(n, 0, "%s has no rows", path);
    *out = v;
    return n;
}

static SLT_UNUSED double slt_rel(double a, double b) { return fabs(a - b) / fabs(b); }

#endif
