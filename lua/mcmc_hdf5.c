/* mcmc_hdf5.h's writer. HDF5's own error printing is turned off: a
 * failure becomes an sl_status naming the file and what was written. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "mcmc_hdf5.h"
#include "starling/nomem.h"
#include "starling/version.h"

typedef struct h5w {
    hid_t file;
    const char *path;
    const char *what;  /* the dataset or attribute being written, for messages */
    int failed;
} h5w;

static void dataset(h5w *w, const char *name, hid_t type, int rank, const hsize_t *dims,
                    const void *data)
{
    if (w->failed)
        return;
    w->what = name;
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t set = space < 0 ? -1 : H5Dcreate2(w->file, name, type, space, H5P_DEFAULT,
                                            H5P_DEFAULT, H5P_DEFAULT);
    int ok = set >= 0 && (dims[0] == 0 || H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                                  data) >= 0);
    if (set >= 0)
        ok &= H5Dclose(set) >= 0;
    if (space >= 0)
        H5Sclose(space);
    w->failed = !ok;
}

static hid_t string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
}

static void strings(h5w *w, const char *name, const char *const *s, hsize_t n)
{
    hid_t t = string_type();
    dataset(w, name, t, 1, &n, s);
    H5Tclose(t);
}

static void attr(h5w *w, const char *name, hid_t type, const void *value)
{
    if (w->failed)
        return;
    w->what = name;
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(w->file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    int ok = a >= 0 && H5Awrite(a, type, value) >= 0;
    if (a >= 0)
        ok &= H5Aclose(a) >= 0;
    H5Sclose(space);
    w->failed = !ok;
}

static void attr_f(h5w *w, const char *name, double v) { attr(w, name, H5T_NATIVE_DOUBLE, &v); }

static void attr_i(h5w *w, const char *name, int64_t v) { attr(w, name, H5T_NATIVE_INT64, &v); }

static void attr_s(h5w *w, const char *name, const char *v)
{
    hid_t t = string_type();
    attr(w, name, t, &v);
    H5Tclose(t);
}

static void attributes(h5w *w, const sl_mcmc_h5 *h)
{
    const sl_demcmc_config *c = h->c;
    const sl_demcmc_result *r = h->r;
    attr_s(w, "software", "starling " SL_VERSION " demcmc");
    attr_s(w, "target", h->target);
    attr_s(w, "generations_on", h->on_device ? "device" : "host");
    attr_s(w, "fused", r->fused ? "yes" : "no");
    uint64_t seed = c->seed;
    attr(w, "seed", H5T_NATIVE_UINT64, &seed);
    attr_i(w, "chains", c->chains);
    attr_i(w, "generations", r->generations);
    attr_i(w, "generations_asked", c->generations);
    attr_i(w, "first", h->first);
    attr_i(w, "burn", c->burn);
    attr_i(w, "thin", c->thin);
    attr_f(w, "gamma", c->gamma);
    attr_i(w, "gamma1_every", c->gamma1_every);
    attr_f(w, "noise", c->noise);
    attr_i(w, "outliers", c->outliers);
    attr_i(w, "archive", c->archive);
    attr_i(w, "archive_every", c->archive_every);
    attr_f(w, "snooker", c->snooker);
    attr_f(w, "stop_rhat", c->stop_rhat);
    attr_f(w, "stop_ess", c->stop_ess);
    attr_i(w, "converged", r->converged);
    attr_f(w, "rhat", r->rhat);
    attr_f(w, "ess", r->ess);
    attr_i(w, "evaluations", r->evaluations);
    attr_i(w, "outside", r->outside);
    attr_i(w, "nan", r->nan);
    attr_f(w, "wall_s", r->wall_s);
    attr_f(w, "likelihood_s", r->target_s);
}

static sl_status write_all(h5w *w, const sl_mcmc_h5 *h)
{
    const sl_demcmc_result *r = h->r;
    const sl_demcmc_config *c = h->c;
    hsize_t K = (hsize_t)r->kept, N = (hsize_t)r->chains, D = (hsize_t)h->n;
    hsize_t d3[3] = {K, N, D}, d2[2] = {K, N}, dl[2] = {N, D};
    int64_t *gen = malloc((K ? K : 1) * sizeof *gen);
    if (!gen)
        return sl_fail_nomem((double)K * sizeof *gen, "%s: generation numbers", w->path);
    for (hsize_t k = 0; k < K; k++)
        gen[k] = h->first + c->burn + (int64_t)k * c->thin + 1;
    dataset(w, "samples", H5T_NATIVE_DOUBLE, 3, d3, r->samples);
    dataset(w, "log_posterior", H5T_NATIVE_DOUBLE, 2, d2, r->logpost);
    dataset(w, "log_likelihood", H5T_NATIVE_DOUBLE, 2, d2, r->loglike);
    dataset(w, "generation", H5T_NATIVE_INT64, 1, &K, gen);
    free(gen);
    strings(w, "params", h->names, D);
    strings(w, "priors", h->priors, D);
    dataset(w, "last", H5T_NATIVE_DOUBLE, 2, dl, r->last);
    dataset(w, "accepted", H5T_NATIVE_INT64, 1, &N, r->accepted);
    if (r->archive) {
        hsize_t da[2] = {(hsize_t)r->archive_rows, D};
        dataset(w, "archive", H5T_NATIVE_DOUBLE, 2, da, r->archive);
    }
    attributes(w, h);
    if (w->failed)
        return sl_fail(SL_ERR_IO, "%s: HDF5 could not write '%s'", w->path, w->what);
    return SL_OK;
}

sl_status sl_mcmc_write_hdf5(const char *path, unsigned flags, const sl_mcmc_h5 *h)
{
    sl_out af;
    sl_status st = sl_out_open(&af, path, flags | SL_OUT_BY_NAME);
    if (st)
        return st;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* no printing from the library */
    h5w w = {H5Fcreate(af.tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), path, "the file", 0};
    if (w.file < 0) {
        sl_out_abort(&af);
        return sl_fail(SL_ERR_IO, "%s: HDF5 cannot create the file", path);
    }
    st = write_all(&w, h);
    if (H5Fclose(w.file) < 0 && !st)
        st = sl_fail(SL_ERR_IO, "%s: HDF5 could not finish the file", path);
    if (st) {
        sl_out_abort(&af);
        return st;
    }
    return sl_out_commit(&af);
}
