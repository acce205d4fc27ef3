/* mcmc_hdf5.h's writer. HDF5's own error printing is turned off: a
 * failure becomes an sl_status naming the file and what was written. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- draws appended as they are kept -------------------------------------------- */

/* An extendible dataset [0, dims[1..]] of chunks of about 1 MiB. */
static hid_t growing(hid_t file, const char *name, hid_t type, int rank, const hsize_t *dims)
{
    hsize_t cur[3], max[3], chunk[3];
    size_t row = H5Tget_size(type);
    for (int i = 0; i < rank; i++) {
        cur[i] = i ? dims[i] : 0;
        max[i] = i ? dims[i] : H5S_UNLIMITED;
        chunk[i] = dims[i];
        row *= i ? dims[i] : 1;
    }
    chunk[0] = row >= 1048576 ? 1 : 1048576 / row;
    hid_t space = H5Screate_simple(rank, cur, max), plist = H5Pcreate(H5P_DATASET_CREATE);
    hid_t set = -1;
    if (space >= 0 && plist >= 0 && H5Pset_chunk(plist, rank, chunk) >= 0)
        set = H5Dcreate2(file, name, type, space, H5P_DEFAULT, plist, H5P_DEFAULT);
    if (plist >= 0)
        H5Pclose(plist);
    if (space >= 0)
        H5Sclose(space);
    return set;
}

static void draws_shut(sl_mcmc_draws *w)
{
    hid_t *sets[] = {&w->samples, &w->logpost, &w->loglike, &w->gen};
    for (int i = 0; i < 4; i++)
        if (*sets[i] >= 0)
            H5Dclose(*sets[i]), *sets[i] = -1;
    if (w->file >= 0)
        H5Fclose(w->file), w->file = -1;
}

static sl_status draws_create(sl_mcmc_draws *w, const char *const *names)
{
    hsize_t N = (hsize_t)w->chains, D = (hsize_t)w->n;
    hsize_t d3[3] = {0, N, D}, d2[2] = {0, N}, d1[1] = {0};
    w->file = H5Fcreate(w->path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (w->file < 0)
        return sl_fail(SL_ERR_IO, "%s: HDF5 cannot create the file", w->path);
    w->samples = growing(w->file, "samples", H5T_NATIVE_DOUBLE, 3, d3);
    w->logpost = growing(w->file, "log_posterior", H5T_NATIVE_DOUBLE, 2, d2);
    w->loglike = growing(w->file, "log_likelihood", H5T_NATIVE_DOUBLE, 2, d2);
    w->gen = growing(w->file, "generation", H5T_NATIVE_INT64, 1, d1);
    h5w h = {w->file, w->path, "the datasets", w->samples < 0 || w->logpost < 0 ||
                                               w->loglike < 0 || w->gen < 0};
    strings(&h, "params", names, D);
    attr_s(&h, "software", "starling " SL_VERSION " demcmc draws");
    if (h.failed)
        return sl_fail(SL_ERR_IO, "%s: HDF5 could not write '%s'", w->path, h.what);
    return H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0
               ? sl_fail(SL_ERR_IO, "%s: HDF5 could not flush the file", w->path) : SL_OK;
}

/* The first axis of every dataset set to rows. */
static int draws_extent(sl_mcmc_draws *w, hsize_t rows)
{
    hsize_t d3[3] = {rows, (hsize_t)w->chains, (hsize_t)w->n}, d2[2] = {rows, (hsize_t)w->chains};
    return H5Dset_extent(w->samples, d3) >= 0 && H5Dset_extent(w->logpost, d2) >= 0 &&
           H5Dset_extent(w->loglike, d2) >= 0 && H5Dset_extent(w->gen, d3) >= 0;
}

/* An existing file's datasets, checked against this run, cut after `through`. */
static sl_status draws_reopen(sl_mcmc_draws *w, int64_t through)
{
    w->file = H5Fopen(w->path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (w->file < 0)
        return sl_fail(SL_ERR_IO, "%s: HDF5 cannot open the draws to append to", w->path);
    w->samples = H5Dopen2(w->file, "samples", H5P_DEFAULT);
    w->logpost = H5Dopen2(w->file, "log_posterior", H5P_DEFAULT);
    w->loglike = H5Dopen2(w->file, "log_likelihood", H5P_DEFAULT);
    w->gen = H5Dopen2(w->file, "generation", H5P_DEFAULT);
    hsize_t dims[3] = {0, 0, 0};
    hid_t space = w->samples >= 0 ? H5Dget_space(w->samples) : -1;
    int rank = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
    if (space >= 0)
        H5Sclose(space);
    if (w->logpost < 0 || w->loglike < 0 || w->gen < 0 || rank != 3)
        return sl_fail(SL_ERR_IO, "%s: not a starling draws file (samples, log_posterior, "
                       "log_likelihood, generation)", w->path);
    if (dims[1] != (hsize_t)w->chains || dims[2] != (hsize_t)w->n)
        return sl_fail(SL_ERR_ARG, "%s: draws of %llu chains x %llu parameters; this run has "
                       "%lld x %d", w->path, (unsigned long long)dims[1],
                       (unsigned long long)dims[2], (long long)w->chains, w->n);
    int64_t *g = malloc((dims[0] ? dims[0] : 1) * sizeof *g);
    if (!g)
        return sl_fail_nomem((double)dims[0] * sizeof *g, "%s: generation numbers", w->path);
    int ok = dims[0] == 0 ||
             H5Dread(w->gen, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, g) >= 0;
    hsize_t keep = 0;
    while (ok && keep < dims[0] && g[keep] <= through)
        keep++;
    free(g);
    if (!ok || !draws_extent(w, keep))
        return sl_fail(SL_ERR_IO, "%s: HDF5 could not read or cut the generations", w->path);
    w->rows = (int64_t)keep;
    return SL_OK;
}

sl_status sl_mcmc_draws_open(sl_mcmc_draws *w, const char *path, int64_t chains, int n,
                             const char *const *names, int64_t through)
{
    *w = (sl_mcmc_draws){-1, -1, -1, -1, -1, path, 0, chains, n};
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* no printing from the library */
    sl_status st = through >= 0 && access(path, F_OK) == 0 ? draws_reopen(w, through)
                                                           : draws_create(w, names);
    if (st)
        draws_shut(w);
    return st;
}

/* rows more rows of one dataset, of `row` elements each, from data. */
static int append_rows(hid_t set, hid_t type, int64_t at, int64_t rows, const hsize_t *row,
                       int rank, const void *data)
{
    hsize_t start[3] = {(hsize_t)at, 0, 0}, count[3] = {(hsize_t)rows, row[1], row[2]};
    hid_t file_space = H5Dget_space(set);
    hid_t mem = H5Screate_simple(rank, count, NULL);
    int ok = file_space >= 0 && mem >= 0 &&
             H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
             H5Dwrite(set, type, mem, file_space, H5P_DEFAULT, data) >= 0;
    if (mem >= 0)
        H5Sclose(mem);
    if (file_space >= 0)
        H5Sclose(file_space);
    return ok;
}

sl_status sl_mcmc_draws_append(sl_mcmc_draws *w, const double *samples, const double *logpost,
                               const double *loglike, const int64_t *gen, int64_t rows)
{
    if (rows <= 0)
        return SL_OK;
    hsize_t row[3] = {1, (hsize_t)w->chains, (hsize_t)w->n};
    int ok = draws_extent(w, (hsize_t)(w->rows + rows)) &&
             append_rows(w->samples, H5T_NATIVE_DOUBLE, w->rows, rows, row, 3, samples) &&
             append_rows(w->logpost, H5T_NATIVE_DOUBLE, w->rows, rows, row, 2, logpost) &&
             append_rows(w->loglike, H5T_NATIVE_DOUBLE, w->rows, rows, row, 2, loglike) &&
             append_rows(w->gen, H5T_NATIVE_INT64, w->rows, rows, row, 1, gen) &&
             H5Fflush(w->file, H5F_SCOPE_GLOBAL) >= 0;
    if (!ok)
        return sl_fail(SL_ERR_IO, "%s: HDF5 could not append %lld kept generations", w->path,
                       (long long)rows);
    w->rows += rows;
    return SL_OK;
}

sl_status sl_mcmc_draws_close(sl_mcmc_draws *w)
{
    int ok = w->file < 0 || H5Fflush(w->file, H5F_SCOPE_GLOBAL) >= 0;
    draws_shut(w);
    return ok ? SL_OK : sl_fail(SL_ERR_IO, "%s: HDF5 could not finish the draws", w->path);
}
