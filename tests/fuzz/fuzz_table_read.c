/* The core's tabular reader (starling/table.h), from memory: any bytes
 * give an error with a message, or a table that keeps the reader's
 * promises (rows on increasing lines, finite values where asked, text codes
 * in range and distinct names); a failed read leaves nothing allocated. */
#include <math.h>

#include "fuzz_util.h"
#include "starling/table.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

static const char *const t_al[] = {"time", "t", "mjd", NULL};
static const char *const y_al[] = {"flux", "mag", "vel", "y", NULL};
static const char *const e_al[] = {"err", "dy", "errvel", NULL};
static const char *const id_al[] = {"id", "tel", NULL};
static const sl_table_col cols[4] = {
    {"time", t_al, SL_COL_NUMBER, 1, 0, 1},
    {"value", y_al, SL_COL_NUMBER, 1, 1, 0},
    {"error", e_al, SL_COL_NUMBER, 0, 2, 0},
    {"id", id_al, SL_COL_TEXT, 0, 3, 0},
};

static void check_table(const sl_table *t)
{
    SLF_CHECK(t->n_rows > 0 && t->line, "n_rows = %lld", (long long)t->n_rows);
    for (int64_t i = 0; i < t->n_rows; i++)
        SLF_CHECK(t->line[i] >= 1 && (i == 0 || t->line[i] > t->line[i - 1]),
                  "row %lld on line %lld", (long long)i, (long long)t->line[i]);
    SLF_CHECK(t->col[0].present && t->col[1].present, "a required column is missing");
    for (int c = 0; c < 4; c++) {
        const sl_table_column *k = &t->col[c];
        if (!k->present)
            continue;
        SLF_CHECK(k->src >= 1 && k->src <= t->n_fields, "column %d at %d of %d", c, k->src,
                  t->n_fields);
        for (int64_t i = 0; cols[c].type == SL_COL_NUMBER && i < t->n_rows; i++)
            SLF_CHECK(!cols[c].finite || isfinite(k->num[i]), "column %d row %lld: %g", c,
                      (long long)i, k->num[i]);
        for (int64_t i = 0; cols[c].type == SL_COL_TEXT && i < t->n_rows; i++)
            SLF_CHECK(k->code[i] >= 0 && k->code[i] < k->n_levels, "code %d of %d", k->code[i],
                      k->n_levels);
        for (int32_t a = 0; a < k->n_levels && a < 64; a++)
            for (int32_t b = a + 1; b < k->n_levels && b < 64; b++)
                SLF_CHECK(strcmp(k->levels[a], k->levels[b]), "name \"%s\" interned twice",
                          k->levels[a]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sl_table_spec spec = {.what = "fuzz rows", .cols = cols, .n_cols = 4, .can_name = 1};
    FILE *f = fmemopen(size ? (void *)data : (void *)"", size, "r");
    if (!f)
        return 0;
    sl_table t;
    if (sl_table_read_stream(f, "in.txt", &spec, &t) == SL_OK)
        check_table(&t);
    else
        SLF_CHECK(sl_last_error()[0] && t.n_rows == 0, "an error without a message or with rows");
    fclose(f);
    sl_table_free(&t);
    return 0;
}
