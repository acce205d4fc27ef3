/* sl_csv_read_ensemble (lua/csv.h, also starling.read_ensemble). A
 * successful read is written back with sl_csv_write_ensemble and read
 * again: the two ensembles must be equal bit for bit, so a misread that
 * the writer cannot reproduce (or a write that does not read back) shows
 * up as a failure, not only crashes. */
#include "csv.h"
#include "fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

static void write_back(const sl_ensemble *e, char *path, size_t cap)
{
    snprintf(path, cap, "%s/again.csv", slf_tmpdir());
    FILE *f = fopen(path, "w");
    SLF_CHECK(f, "cannot write %s", path);
    sl_csv_write_ensemble(f, e);
    SLF_CHECK(fclose(f) == 0, "cannot write %s", path);
}

static void check_same(const sl_ensemble *a, const sl_ensemble *b)
{
    SLF_CHECK(a->n_sys == b->n_sys && a->n_body == b->n_body, "%lldx%d read back as %lldx%d",
              (long long)a->n_sys, a->n_body, (long long)b->n_sys, b->n_body);
    for (int64_t s = 0; s < a->n_sys; s++)
        for (int k = 0; k < a->n_body; k++) {
            double ma, xa[3], va[3], mb, xb[3], vb[3];
            sl_ensemble_get_body(a, s, k, &ma, xa, va);
            sl_ensemble_get_body(b, s, k, &mb, xb, vb);
            SLF_CHECK(!memcmp(&ma, &mb, sizeof ma) && !memcmp(xa, xb, sizeof xa) &&
                          !memcmp(va, vb, sizeof va),
                      "system %lld body %d differs after a round trip (m %.17g vs %.17g)",
                      (long long)s + 1, k + 1, ma, mb);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = slf_write_input(data, size, "ensemble.csv");
    sl_ensemble *e = NULL, *again = NULL;
    int has_seed = 0;
    uint64_t seed = 0;
    if (sl_csv_read_ensemble(path, &e, &has_seed, &seed) != SL_OK) {
        SLF_CHECK(!e, "a failed read returned an ensemble");
        SLF_CHECK(sl_last_error()[0], "an error without a message");
        return 0;
    }
    SLF_CHECK(e && e->n_sys >= 1 && e->n_body >= 1, "an empty ensemble");
    char path2[400];
    write_back(e, path2, sizeof path2);
    SLF_CHECK(sl_csv_read_ensemble(path2, &again, &has_seed, &seed) == SL_OK,
              "the written ensemble does not read back: %s", sl_last_error());
    check_same(e, again);
    unlink(path2);
    sl_ensemble_destroy(e);
    sl_ensemble_destroy(again);
    return 0;
}
