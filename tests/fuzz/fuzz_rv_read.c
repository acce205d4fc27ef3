/* sl_rv_read (plugins/kepler_rv/rv_data.h, also starling.rv.read): any
 * bytes give either an error with a message or data that keeps the
 * reader's promises (finite values, errors > 0, instruments in range); a
 * failed read leaves nothing allocated. */
#include <math.h>

#include "fuzz_util.h"
#include "rv_data.h"
#include "starling/status.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

static void check_data(const sl_rv_data *d)
{
    SLF_CHECK(d->n > 0 && d->t && d->v && d->err && d->inst, "n = %zu", d->n);
    SLF_CHECK(d->n_inst >= 1 && d->n_inst <= SL_RV_MAX_INST, "n_inst = %d", d->n_inst);
    for (int i = 0; i < d->n_inst; i++)
        SLF_CHECK(memchr(d->inst_names[i], '\0', SL_RV_NAME_MAX) && d->inst_names[i][0],
                  "instrument %d has no name", i);
    for (size_t i = 0; i < d->n; i++) {
        SLF_CHECK(isfinite(d->t[i]) && isfinite(d->v[i]), "row %zu: t %g v %g", i, d->t[i],
                  d->v[i]);
        SLF_CHECK(d->err[i] > 0 && isfinite(d->err[i]), "row %zu: err %g", i, d->err[i]);
        SLF_CHECK(d->inst[i] >= 0 && d->inst[i] < d->n_inst, "row %zu: inst %d", i, d->inst[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = slf_write_input(data, size, "rv.txt");
    sl_rv_data d;
    if (sl_rv_read(path, &d) == SL_OK)
        check_data(&d);
    else
        SLF_CHECK(sl_last_error()[0], "an error without a message");
    sl_rv_free(&d);
    return 0;
}
