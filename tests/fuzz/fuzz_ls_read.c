/* The light-curve reader sl_ls_read, reached as users reach it: through
 * the lombscargle plugin's periodogram table (read, set_free), loaded from
 * the build tree. Each input is read as one curve and as a batch (with an
 * id column); a FITS input (starting "SIMPLE  =") takes the cfitsio path.
 * A successful read must give a well-formed set; a failed one a message. */
#include "fuzz_util.h"
#include "starling/plugins/lombscargle/lombscargle.h"
#include "starling/registry.h"

static const sl_periodogram *ls;

/* The registry stays loaded for the life of the process (a static root, so
 * not a leak): unloading plugins between inputs would only cost time. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static sl_registry *reg;
    SLF_CHECK(sl_registry_create(&reg) == SL_OK && sl_registry_load_default(reg) == SL_OK,
              "%s", sl_last_error());
    ls = sl_registry_find(reg, SL_KIND_PERIODOGRAM, "lombscargle");
    SLF_CHECK(ls && ls->read && ls->set_free, "no lombscargle plugin next to libstarling");
    return 0;
}

static void check_set(const sl_ls_set *s, int with_id)
{
    const sl_ls_data *d = &s->data;
    SLF_CHECK(with_id ? d->n_obj >= 0 : d->n_obj == 1, "n_obj = %lld", (long long)d->n_obj);
    SLF_CHECK(d->offset && d->offset[0] == 0, "offset[0]");
    for (int64_t o = 0; o < d->n_obj; o++) {
        SLF_CHECK(d->offset[o + 1] >= d->offset[o], "offset %lld decreases", (long long)o);
        SLF_CHECK(s->id && s->id[o], "object %lld has no id", (long long)o);
    }
    int64_t n = d->offset[d->n_obj];
    SLF_CHECK(n == 0 || (d->t && d->y), "%lld rows without arrays", (long long)n);
    volatile double sum = 0; /* touches every value, for ASan */
    for (int64_t i = 0; i < n; i++)
        sum += d->t[i] + d->y[i] + (d->dy ? d->dy[i] : 0.0);
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = slf_write_input(data, size, "curve.txt");
    for (int with_id = 0; with_id <= 1; with_id++) {
        sl_ls_set *s = NULL;
        if (ls->read(path, with_id, &s) == SL_OK) {
            SLF_CHECK(s, "read succeeded without a set");
            check_set(s, with_id);
        } else {
            SLF_CHECK(!s, "a failed read returned a set");
            SLF_CHECK(sl_last_error()[0], "an error without a message");
        }
        ls->set_free(s);
    }
    return 0;
}
