/* The photometric likelihood on CUDA: one block per model; its threads
 * share the model's observations band by band, each band's three sums are
 * reduced in shared memory in a fixed tree (so a model's value does not
 * depend on timing or on its place in the batch), and the first thread
 * adds the band's chi^2 (ml_phot.h, the same arithmetic as the CPU loop).
 * The observations go up once per context; parameters and results per
 * call (eval) or not at all (the device entry a DE-MCMC sampler uses). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ml_like.h"
#include "ml_phot.h"
#include "starling/backend.h"
#include "starling/nomem.h"

#define PH_TRY(call, what)                                                                 \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess)                                                           \
            return sl_fail(SL_ERR_CUDA, "microlensing: likelihood: %s: %s (%s)", (what),   \
                           cudaGetErrorString(err_), #call);                               \
    } while (0)

enum { PH_BLOCK = 128 };

typedef struct ph_args {
    int model;
    int pset;               /* the parametrisation's bits (ml_phot.h) */
    int n_par, n_band;
    double ld;
    sl_ml_fsbl fs; /* fsbl: its maps in device memory */
    int64_t band_start[SL_ML_MAX_BAND + 1];
    double S[SL_ML_MAX_BAND], sff[SL_ML_MAX_BAND];
    double fmean[SL_ML_MAX_BAND], fb_fixed[SL_ML_MAX_BAND]; /* fb_fixed NaN: the blend is free */
    double ld_band[SL_ML_MAX_BAND]; /* fspl: each band's limb darkening */
    const double *t, *w, *fc;
    int px;                 /* annual parallax: offsets dn, de per observation */
    const double *dn, *de;
    int om;                 /* the lens's orbit kind (ml_orbit.h), about t0_kep */
    double t0_kep;
    int xi;                 /* xallarap (ml_xallarap.h), about t0_xi */
    double t0_xi;
    double fs_win[2];       /* fspl: the finite source's window */
    const double *params;
    int64_t n;
    const int *count;
    double *ll, *chi2;
} ph_args;

typedef struct ph_dev {
    int device;
    double *t, *w, *fc, *dn, *de;
    double *params, *ll, *chi2; /* eval's buffers, for cap models */
    double *map[SL_ML_FSBL_MAPS]; /* fsbl's maps */
    size_t cap;
    cudaEvent_t k0, k1;
} ph_dev;

/* fsbl: the epochs whose source lies on a map, one after another, each
 * read by the whole block (thousands of grid points a source: one thread
 * alone would hold its warp and the block back), reduced in a fixed tree;
 * thread 0 adds each to its band's sums. */
__device__ void ph_fsbl_maps(const ph_args *a, const double *row, const sl_ml_phot_fx *fx,
                             int64_t k0, int64_t k1, double (*red)[PH_BLOCK], sl_ml_phot_sums *s)
{
    const int tid = threadIdx.x;
    const double rho = row[4];
    for (int64_t k = k0; k < k1; k++) {
        double y1, y2;
        sl_ml_phot_source(row, fx, a->t[k], fx->pi ? a->dn[k] : 0.0, fx->pi ? a->de[k] : 0.0,
                          &y1, &y2);
        int m = sl_ml_fsbl_map_of(&a->fs, y1, y2, rho); /* the same in every thread */
        if (m < 0)
            continue;
        const sl_ml_grid2 *g = &a->fs.map[m];
        int n = sl_ml_fsbl_steps(g, rho), side = 2 * n + 1;
        double step = rho / n, sw = 0.0, swa = 0.0;
        for (int idx = tid; idx < side * side; idx += PH_BLOCK) {
            int j = idx / side - n, i = idx % side - n;
            double w = sl_ml_track_weight(i, j, n, a->fs.l1, 0.0);
            if (w == 0.0)
                continue;
            swa += w * sl_ml_bilinear(g, y1 + i * step, y2 + j * step);
            sw += w;
        }
        red[0][tid] = sw, red[1][tid] = swa;
        __syncthreads();
        for (int h = PH_BLOCK / 2; h > 0; h >>= 1) {
            if (tid < h)
                red[0][tid] += red[0][tid + h], red[1][tid] += red[1][tid + h];
            __syncthreads();
        }
        if (tid == 0)
            sl_ml_phot_add(s, red[1][0] / red[0][0], a->w[k], a->fc[k]);
        __syncthreads(); /* red is read above before the next epoch writes it */
    }
}

__global__ void __launch_bounds__(PH_BLOCK) ph_kernel(ph_args a)
{
    __shared__ double red[3][PH_BLOCK];
    const int64_t n = a.count ? (int64_t)*a.count : a.n;
    const int64_t m = blockIdx.x;
    if (m >= n)
        return;
    const int tid = threadIdx.x;
    double p[SL_ML_PHOT_NPAR_MAX], row[SL_ML_PHOT_ROW];
    for (int k = 0; k < a.n_par; k++)
        p[k] = a.params[m * a.n_par + k];
    const sl_ml_phot_fx fx = sl_ml_phot_fx_of(a.model, a.px, a.om, a.t0_kep, a.xi, a.t0_xi,
                                                a.fs_win, p);
    const double *pi = fx.pi;
    if (!sl_ml_phot_row(a.model, sl_ml_phot_n_fx(a.px, a.om, a.xi), a.pset, p, a.ld, &a.fs, row) ||
        !sl_ml_phot_fx_ok(&fx)) {
        /* the same for every thread */
        if (tid == 0) {
            a.ll[m] = -INFINITY;
            if (a.chi2)
                a.chi2[m] = INFINITY;
        }
        return;
    }
    double chi2 = 0.0;
    const int fsbl = a.model == SL_ML_PHOT_FSBL;
    for (int b = 0; b < a.n_band; b++) {
        if (a.model == SL_ML_FSPL)
            row[4] = a.ld_band[b];
        sl_ml_phot_sums s = {0.0, 0.0, 0.0};
        for (int64_t k = a.band_start[b] + tid; k < a.band_start[b + 1]; k += PH_BLOCK) {
            const double dn = pi ? a.dn[k] : 0.0, de = pi ? a.de[k] : 0.0;
            if (fsbl) {
                double y1, y2;
                sl_ml_phot_source(row, &fx, a.t[k], dn, de, &y1, &y2);
                if (sl_ml_fsbl_map_of(&a.fs, y1, y2, row[4]) < 0)
                    sl_ml_phot_add(&s, sl_ml_fsbl_outside(&a.fs, y1, y2, row[4]), a.w[k],
                                   a.fc[k]);
                continue; /* a source on a map: below, by the whole block */
            }
            sl_ml_phot_add(&s, sl_ml_phot_mag_fx(a.model, &a.fs, row, &fx, a.t[k], dn, de),
                           a.w[k], a.fc[k]);
        }
        if (fsbl)
            ph_fsbl_maps(&a, row, &fx, a.band_start[b], a.band_start[b + 1], red, &s);
        red[0][tid] = s.sa, red[1][tid] = s.saa, red[2][tid] = s.saf;
        __syncthreads();
        for (int h = PH_BLOCK / 2; h > 0; h >>= 1) {
            if (tid < h)
                for (int q = 0; q < 3; q++)
                    red[q][tid] += red[q][tid + h];
            __syncthreads();
        }
        if (tid == 0) {
            sl_ml_phot_sums tot = {red[0][0], red[1][0], red[2][0]};
            chi2 += sl_ml_phot_fit_band(a.S[b], a.sff[b], a.fmean[b], a.fb_fixed[b], &tot, NULL,
                                        NULL);
        }
        __syncthreads(); /* red is reused by the next band */
    }
    if (tid == 0) {
        if (!isfinite(chi2))
            chi2 = INFINITY;
        a.ll[m] = -0.5 * chi2;
        if (a.chi2)
            a.chi2[m] = chi2;
    }
}

extern "C" void sl_ml_phot_cuda_release(sl_ml_phot_ctx *c)
{
    ph_dev *d = (ph_dev *)c->cuda;
    if (!d)
        return;
    int prev = 0;
    cudaGetDevice(&prev);
    cudaSetDevice(d->device);
    sl_dev_free(d->t), sl_dev_free(d->w), sl_dev_free(d->fc);
    sl_dev_free(d->dn), sl_dev_free(d->de);
    sl_dev_free(d->params), sl_dev_free(d->ll), sl_dev_free(d->chi2);
    for (int k = 0; k < SL_ML_FSBL_MAPS; k++)
        sl_dev_free(d->map[k]);
    if (d->k0)
        cudaEventDestroy(d->k0);
    if (d->k1)
        cudaEventDestroy(d->k1);
    cudaSetDevice(prev);
    free(d);
    c->cuda = NULL;
}

static sl_status upload(ph_dev *d, const sl_ml_phot_ctx *c)
{
    size_t bytes = c->n * sizeof(double);
    sl_status st;
    if ((st = sl_dev_alloc((void **)&d->t, bytes, "microlensing: likelihood: epochs")) ||
        (st = sl_dev_alloc((void **)&d->w, bytes, "microlensing: likelihood: weights")) ||
        (st = sl_dev_alloc((void **)&d->fc, bytes, "microlensing: likelihood: fluxes")) ||
        (st = sl_dev_upload(d->t, c->t, bytes, "microlensing: likelihood: epochs")) ||
        (st = sl_dev_upload(d->w, c->w, bytes, "microlensing: likelihood: weights")) ||
        (st = sl_dev_upload(d->fc, c->fc, bytes, "microlensing: likelihood: fluxes")))
        return st;
    if (c->px &&
        ((st = sl_dev_alloc((void **)&d->dn, bytes, "microlensing: likelihood: parallax")) ||
         (st = sl_dev_alloc((void **)&d->de, bytes, "microlensing: likelihood: parallax")) ||
         (st = sl_dev_upload(d->dn, c->dn, bytes, "microlensing: likelihood: parallax")) ||
         (st = sl_dev_upload(d->de, c->de, bytes, "microlensing: likelihood: parallax"))))
        return st;
    for (int k = 0; k < c->fs.n_maps; k++) {
        const sl_ml_grid2 *g = &c->fs.map[k];
        size_t mb = (size_t)g->nx * (size_t)g->ny * sizeof(double);
        if ((st = sl_dev_alloc((void **)&d->map[k], mb, "microlensing: likelihood: fsbl map")) ||
            (st = sl_dev_upload(d->map[k], g->A, mb, "microlensing: likelihood: fsbl map")))
            return st;
    }
    PH_TRY(cudaEventCreate(&d->k0), "creating an event");
    PH_TRY(cudaEventCreate(&d->k1), "creating an event");
    return SL_OK;
}

/* The context's device state on the current device, made on first use. */
static sl_status ensure_dev(sl_ml_phot_ctx *c, ph_dev **out)
{
    int dev = 0;
    PH_TRY(cudaGetDevice(&dev), "finding the current device");
    if (c->cuda && ((ph_dev *)c->cuda)->device != dev)
        sl_ml_phot_cuda_release(c); /* another device: its copy is of no use here */
    if (!c->cuda) {
        ph_dev *d = (ph_dev *)calloc(1, sizeof *d);
        if (!d)
            return sl_fail_nomem(sizeof *d, "microlensing: likelihood: device state");
        d->device = dev;
        c->cuda = d;
        sl_status st = upload(d, c);
        if (st) {
            sl_ml_phot_cuda_release(c);
            return st;
        }
    }
    *out = (ph_dev *)c->cuda;
    return SL_OK;
}

static void fill_args(ph_args *a, const sl_ml_phot_ctx *c, const ph_dev *d)
{
    memset(a, 0, sizeof *a);
    a->model = c->model, a->n_par = c->n_par, a->n_band = c->n_band, a->ld = c->ld;
    a->fs = c->fs;
    for (int k = 0; k < c->fs.n_maps; k++)
        a->fs.map[k].A = d->map[k];
    for (int b = 0; b <= c->n_band; b++)
        a->band_start[b] = c->band_start[b];
    for (int b = 0; b < c->n_band; b++) {
        a->S[b] = c->S[b], a->sff[b] = c->sff[b];
        a->fmean[b] = c->fmean[b], a->fb_fixed[b] = c->fb_fixed[b];
        a->ld_band[b] = c->ld_band[b];
    }
    a->t = d->t, a->w = d->w, a->fc = d->fc;
    a->px = c->px, a->dn = d->dn, a->de = d->de;
    a->om = c->om, a->t0_kep = c->t0_kep;
    a->xi = c->xi, a->t0_xi = c->t0_xi;
    a->pset = c->pset;
    a->fs_win[0] = c->fs_win[0], a->fs_win[1] = c->fs_win[1];
}

static sl_status grow(ph_dev *d, size_t n, int n_par)
{
    if (n <= d->cap)
        return SL_OK;
    sl_dev_free(d->params), sl_dev_free(d->ll), sl_dev_free(d->chi2);
    d->params = d->ll = d->chi2 = NULL;
    d->cap = 0;
    sl_status st;
    if ((st = sl_dev_alloc((void **)&d->params, n * n_par * sizeof(double),
                           "microlensing: likelihood: parameters")) ||
        (st = sl_dev_alloc((void **)&d->ll, n * sizeof(double), "microlensing: likelihood: "
                           "results")) ||
        (st = sl_dev_alloc((void **)&d->chi2, n * sizeof(double), "microlensing: likelihood: "
                           "results")))
        return st;
    d->cap = n;
    return SL_OK;
}

extern "C" sl_status sl_ml_phot_cuda_eval(sl_ml_phot_ctx *c, const sl_backend *be,
                                          const double *params, size_t n, double *loglik,
                                          double *chi2)
{
    if (n > 0x7fffffffu)
        return sl_fail(SL_ERR_UNSUPPORTED, "microlensing: likelihood: %zu models in one batch: "
                       "at most 2^31 - 1", n);
    PH_TRY(cudaSetDevice(be->device), "selecting the CUDA device");
    ph_dev *d;
    sl_status st;
    if ((st = ensure_dev(c, &d)) || (st = grow(d, n, c->n_par)) ||
        (st = sl_dev_upload(d->params, params, n * c->n_par * sizeof(double),
                            "microlensing: likelihood: parameters")))
        return st;
    ph_args a;
    fill_args(&a, c, d);
    a.params = d->params, a.n = (int64_t)n, a.ll = d->ll, a.chi2 = d->chi2;
    PH_TRY(cudaEventRecord(d->k0), "timing the kernel");
    ph_kernel<<<(unsigned)n, PH_BLOCK>>>(a);
    PH_TRY(cudaGetLastError(), "launching the likelihood kernel");
    PH_TRY(cudaEventRecord(d->k1), "timing the kernel");
    PH_TRY(cudaEventSynchronize(d->k1), "running the likelihood kernel");
    float ms = 0.0f;
    PH_TRY(cudaEventElapsedTime(&ms, d->k0, d->k1), "timing the kernel");
    c->kernel_s = 1e-3 * (double)ms;
    if ((st = sl_dev_download(loglik, d->ll, n * sizeof(double),
                              "microlensing: likelihood: results")))
        return st;
    if (chi2)
        return sl_dev_download(chi2, d->chi2, n * sizeof(double),
                               "microlensing: likelihood: results");
    return SL_OK;
}

extern "C" sl_status sl_ml_phot_cuda_eval_device(sl_ml_phot_ctx *c, const double *params,
                                                 size_t n, const int *count, double *out,
                                                 void *stream)
{
    if (n > 0x7fffffffu)
        return sl_fail(SL_ERR_UNSUPPORTED, "microlensing: likelihood: %zu models in one batch: "
                       "at most 2^31 - 1", n);
    sl_status st = SL_OK;
    if (c->model == SL_ML_PHOT_FSBL && !c->maps_made) { /* made here, on this device */
        int dev = 0;
        PH_TRY(cudaGetDevice(&dev), "finding the current device");
        char spec[32];
        snprintf(spec, sizeof spec, "cuda:%d", dev);
        sl_backend be;
        if ((st = sl_backend_open(spec, &be)) || (st = sl_ml_phot_maps(c, &be)))
            return st;
    }
    ph_dev *d;
    st = ensure_dev(c, &d);
    if (st || n == 0)
        return st;
    ph_args a;
    fill_args(&a, c, d);
    a.params = params, a.n = (int64_t)n, a.count = count, a.ll = out, a.chi2 = NULL;
    ph_kernel<<<(unsigned)n, PH_BLOCK, 0, (cudaStream_t)stream>>>(a);
    PH_TRY(cudaGetLastError(), "launching the likelihood kernel");
    c->kernel_s = 0.0; /* not timed: the caller's stream runs on */
    return SL_OK;
}
