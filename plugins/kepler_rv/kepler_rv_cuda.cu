/* kepler_rv on CUDA: 4 threads per model (32 in small batches); the observations are
 * staged in shared memory tile by tile (cooperative loads), one instrument
 * at a time; each model's first thread writes one ln L and one chi² back.
 *
 * Host side: models go in chunks through two streams, each with its own
 * pinned staging buffers, so that copying chunk c+1 into pinned memory on
 * the host (with all cores: one core's memcpy was slower than PCIe)
 * overlaps the transfers and kernel of chunk c. The kernels are
 * specialised (by macro, not templates) for 1..8 planets, where the planet
 * loop unrolls and the orbits stay in registers; more planets use a
 * runtime-count kernel. */
#include <stdlib.h>
#include <string.h>

#include "krv_cuda.h"
#include "starling/backend.h"
#include "starling/copy.h"
#include "starling/nomem.h"

/* ---- kernels ----------------------------------------------------------------- */


static __device__ __forceinline__ void krv_body_d(const krv_args &a, int n_pl, int solver,
                                                  int tpm)
{
    KRV_MODEL_INDEX;
    double chi2, ll = krv_model_d(a, n_pl, solver, tpm, m, lane, m < a.n, &chi2);
    if (m < a.n && lane == 0) {
        a.ll[m] = ll;
        if (a.chi2) /* NULL: the device entry's callers want ln L only */
            a.chi2[m] = chi2;
    }
}

static __device__ __forceinline__ void krv_body_f(const krv_args &a, int n_pl, int solver,
                                                  int tpm)
{
    KRV_MODEL_INDEX;
    double chi2, ll = krv_model_f(a, n_pl, solver, tpm, m, lane, m < a.n, &chi2);
    if (m < a.n && lane == 0) {
        a.ll[m] = ll;
        if (a.chi2)
            a.chi2[m] = chi2;
    }
}

/* Kernels per (lanes a model, precision, solver, n_pl = 1..8 where the
 * build unrolls it (krv_cuda.h), or any): the
 * name is krv_<d|f><m|d>_<N>_<lanes>. */
#define KRV_KERNEL(P, SV, SOLVER, N, NPL, TPM)                                             \
    __global__ void __launch_bounds__(KRV_BLOCK) krv_##P##SV##_##N##_##TPM(krv_args a)     \
    {                                                                                      \
        if (a.count)                                                                       \
            a.n = *a.count;                                                                \
        krv_body_##P(a, NPL, SOLVER, TPM);                                                 \
    }
#define KRV_KERNELS_T(N, NPL, TPM)                                                         \
    KRV_KERNEL(d, m, SL_KRV_MARKLEY, N, NPL, TPM)                                          \
    KRV_KERNEL(d, d, SL_KRV_DANBY, N, NPL, TPM)                                            \
    KRV_KERNEL(f, m, SL_KRV_MARKLEY, N, NPL, TPM)                                          \
    KRV_KERNEL(f, d, SL_KRV_DANBY, N, NPL, TPM)
/* KRV_TPM and KRV_TPM_SMALL, spelled out for the token pasting */
#define KRV_KERNELS(N, NPL) KRV_KERNELS_T(N, NPL, 4) KRV_KERNELS_T(N, NPL, 32)
#if SL_CUDA_N_2
KRV_KERNELS(1, 1)
#endif
#if SL_CUDA_N_3
KRV_KERNELS(2, 2)
#endif
#if SL_CUDA_N_4
KRV_KERNELS(3, 3)
#endif
#if SL_CUDA_N_5
KRV_KERNELS(4, 4)
#endif
#if SL_CUDA_N_6
KRV_KERNELS(5, 5)
#endif
#if SL_CUDA_N_7
KRV_KERNELS(6, 6)
#endif
#if SL_CUDA_N_8
KRV_KERNELS(7, 7)
#endif
#if SL_CUDA_N_9
KRV_KERNELS(8, 8)
#endif
KRV_KERNELS(n, a.n_pl)

typedef void (*krv_kernel)(krv_args);
#define KRV_TABLE(P, SV, T) KRV_PL_TABLE(krv_##P##SV##_, _##T)
/* [small][mixed][solver][n_pl, 0 = any] */
static const krv_kernel krv_kernels[2][2][2][9] = {
    {{KRV_TABLE(d, m, 4), KRV_TABLE(d, d, 4)}, {KRV_TABLE(f, m, 4), KRV_TABLE(f, d, 4)}},
    {{KRV_TABLE(d, m, 32), KRV_TABLE(d, d, 32)}, {KRV_TABLE(f, m, 32), KRV_TABLE(f, d, 32)}},
};
static_assert(KRV_TPM == 4 && KRV_TPM_SMALL == 32, "the kernel table spells the lane counts");

/* ---- host side -------------------------------------------------------------- */

typedef struct krv_dev {
    double *dt, *v, *var;
    float *vf, *varf;
    double *params[KRV_NSTREAM], *out[KRV_NSTREAM];  /* device, per stream */
    double *hparams[KRV_NSTREAM], *hout[KRV_NSTREAM]; /* pinned host, per stream */
    cudaStream_t stream[KRV_NSTREAM];
    cudaEvent_t k0[KRV_NSTREAM], k1[KRV_NSTREAM]; /* around each stream's last kernel */
    size_t n_par;
    int device;
} krv_dev;

extern "C" void sl_krv_cuda_release(sl_krv_ctx *c)
{
    krv_dev *d = (krv_dev *)c->cuda;
    if (!d)
        return;
    cudaFree(d->dt), cudaFree(d->v), cudaFree(d->var), cudaFree(d->vf), cudaFree(d->varf);
    for (int s = 0; s < KRV_NSTREAM; s++) {
        cudaFree(d->params[s]), cudaFree(d->out[s]);
        cudaFreeHost(d->hparams[s]), cudaFreeHost(d->hout[s]);
        if (d->stream[s])
            cudaStreamDestroy(d->stream[s]);
        if (d->k0[s])
            cudaEventDestroy(d->k0[s]);
        if (d->k1[s])
            cudaEventDestroy(d->k1[s]);
    }
    free(d);
    c->cuda = NULL;
}

static sl_status upload_obs(krv_dev *d, const sl_krv_ctx *c)
{
    size_t n = c->n_obs;
    KRV_ALLOC(d->dt, n * sizeof(double), "allocating observations");
    KRV_ALLOC(d->v, n * sizeof(double), "allocating observations");
    KRV_ALLOC(d->var, n * sizeof(double), "allocating observations");
    KRV_ALLOC(d->vf, n * sizeof(float), "allocating observations");
    KRV_ALLOC(d->varf, n * sizeof(float), "allocating observations");
    KRV_TRY(cudaMemcpy(d->dt, c->dt, n * sizeof(double), cudaMemcpyHostToDevice), "uploading");
    KRV_TRY(cudaMemcpy(d->v, c->v, n * sizeof(double), cudaMemcpyHostToDevice), "uploading");
    KRV_TRY(cudaMemcpy(d->var, c->var, n * sizeof(double), cudaMemcpyHostToDevice), "uploading");
    KRV_TRY(cudaMemcpy(d->vf, c->vf, n * sizeof(float), cudaMemcpyHostToDevice), "uploading");
    KRV_TRY(cudaMemcpy(d->varf, c->varf, n * sizeof(float), cudaMemcpyHostToDevice), "uploading");
    return SL_OK;
}

static sl_status alloc_streams(krv_dev *d, size_t n_par)
{
    d->n_par = n_par;
    for (int s = 0; s < KRV_NSTREAM; s++) {
        KRV_TRY(cudaStreamCreateWithFlags(&d->stream[s], cudaStreamNonBlocking), "stream");
        KRV_TRY(cudaEventCreate(&d->k0[s]), "creating an event");
        KRV_TRY(cudaEventCreate(&d->k1[s]), "creating an event");
        KRV_ALLOC(d->params[s], KRV_CHUNK * n_par * sizeof(double),
                  "allocating the parameter buffer");
        KRV_ALLOC(d->out[s], 2 * KRV_CHUNK * sizeof(double), "allocating the output buffer");
        KRV_TRY(cudaMallocHost((void **)&d->hparams[s], KRV_CHUNK * n_par * sizeof(double)),
                "allocating pinned host memory");
        KRV_TRY(cudaMallocHost((void **)&d->hout[s], 2 * KRV_CHUNK * sizeof(double)),
                "allocating pinned host memory");
    }
    return SL_OK;
}

/* Device state on first use, on the current device. */
static sl_status ensure_dev(sl_krv_ctx *c, krv_dev **out)
{
    if (c->cuda) {
        *out = (krv_dev *)c->cuda;
        return SL_OK;
    }
    krv_dev *d = (krv_dev *)calloc(1, sizeof *d);
    if (!d)
        return sl_fail_nomem(sizeof *d, "kepler_rv: device state");
    c->cuda = d;
    KRV_TRY(cudaGetDevice(&d->device), "selecting the device");
    sl_status st = upload_obs(d, c);
    if (st == SL_OK)
        st = alloc_streams(d, c->n_par);
    if (st != SL_OK) {
        sl_krv_cuda_release(c);
        return st;
    }
    *out = d;
    return SL_OK;
}

static void fill_args(krv_args *a, const sl_krv_ctx *c, const krv_dev *d)
{
    memset(a, 0, sizeof *a);
    a->n_par = (int)c->n_par, a->n_pl = c->n_pl, a->basis = c->basis;
    a->n_inst = c->n_inst, a->trend = c->trend, a->epoch = c->epoch;
    a->dt = d->dt, a->v = d->v, a->var = d->var, a->vf = d->vf, a->varf = d->varf;
    for (int i = 0; i <= c->n_inst; i++)
        a->inst_start[i] = (int)c->inst_start[i];
}

sl_status sl__krv_cuda_args(sl_krv_ctx *c, krv_args *a)
{
    if (c->n_obs > 0x7fffffff)
        return sl_fail(SL_ERR_UNSUPPORTED, "kepler_rv: %zu observations exceed the CUDA "
                       "kernel's int indices", c->n_obs);
    krv_dev *d;
    sl_status st = ensure_dev(c, &d);
    if (st == SL_OK)
        fill_args(a, c, d);
    return st;
}

/* Copies the results of the chunk that last used stream s to the caller
 * and adds its kernel's time to *kernel_s. */
static sl_status drain(krv_dev *d, int s, size_t first, size_t cnt, double *ll, double *chi2,
                       double *kernel_s)
{
    float ms = 0;
    KRV_TRY(cudaStreamSynchronize(d->stream[s]), "running the kepler_rv kernel");
    KRV_TRY(cudaEventElapsedTime(&ms, d->k0[s], d->k1[s]), "timing the kernel");
    *kernel_s += 1e-3 * (double)ms;
    memcpy(ll + first, d->hout[s], cnt * sizeof(double));
    if (chi2)
        memcpy(chi2 + first, d->hout[s] + KRV_CHUNK, cnt * sizeof(double));
    return SL_OK;
}

/* SL_KRV_SOLVER=danby|markley picks the kernels' Kepler solver (for
 * benchmarks; the default is the faster one on the H100). */
int sl__krv_cuda_solver(void)
{
    const char *v = getenv("SL_KRV_SOLVER");
    if (v && !strcmp(v, "markley"))
        return SL_KRV_MARKLEY;
    if (v && !strcmp(v, "danby"))
        return SL_KRV_DANBY;
    return SL_KRV_DEFAULT_GPU_SOLVER;
}

/* The kernel for a batch of n models (at most n, for the device entry)
 * and its lanes a model. */
static krv_kernel krv_pick(const sl_krv_ctx *c, size_t n, int *tpm)
{
    int small = n < KRV_SMALL_BATCH;
    *tpm = krv_tpm_for(n);
    return krv_kernels[small][c->mixed ? 1 : 0][sl__krv_cuda_solver()][c->n_pl <= 8 ? c->n_pl : 0];
}

extern "C" sl_status sl_krv_cuda_eval(sl_krv_ctx *c, const double *params, size_t n,
                                      double *ll, double *chi2)
{
    if (c->n_obs > 0x7fffffff)
        return sl_fail(SL_ERR_UNSUPPORTED, "kepler_rv: %zu observations exceed the CUDA "
                       "kernel's int indices", c->n_obs);
    krv_dev *d;
    sl_status st = ensure_dev(c, &d);
    if (st != SL_OK)
        return st;
    krv_args a;
    fill_args(&a, c, d);
    size_t pend_first[KRV_NSTREAM] = {0}, pend_cnt[KRV_NSTREAM] = {0};
    double kernel_s = 0.0;
    for (size_t first = 0, ci = 0; first < n; first += KRV_CHUNK, ci++) {
        int s = (int)(ci % KRV_NSTREAM);
        size_t cnt = n - first < KRV_CHUNK ? n - first : KRV_CHUNK;
        if (pend_cnt[s] &&
            (st = drain(d, s, pend_first[s], pend_cnt[s], ll, chi2, &kernel_s)) != SL_OK)
            return st;
        size_t bytes = cnt * c->n_par * sizeof(double);
        sl_copy_parallel(d->hparams[s], params + first * c->n_par, bytes);
        KRV_TRY(cudaMemcpyAsync(d->params[s], d->hparams[s], bytes, cudaMemcpyHostToDevice,
                                d->stream[s]), "uploading parameters");
        a.params = d->params[s], a.n = (int64_t)cnt;
        a.ll = d->out[s], a.chi2 = d->out[s] + KRV_CHUNK;
        int tpm;
        krv_kernel k = krv_pick(c, cnt, &tpm);
        unsigned grid = (unsigned)((cnt * tpm + KRV_BLOCK - 1) / KRV_BLOCK);
        KRV_TRY(cudaEventRecord(d->k0[s], d->stream[s]), "recording an event");
        k<<<grid, KRV_BLOCK, 0, d->stream[s]>>>(a);
        KRV_TRY(cudaGetLastError(), "launching the kepler_rv kernel");
        KRV_TRY(cudaEventRecord(d->k1[s], d->stream[s]), "recording an event");
        KRV_TRY(cudaMemcpyAsync(d->hout[s], d->out[s], cnt * sizeof(double),
                                cudaMemcpyDeviceToHost, d->stream[s]), "downloading results");
        if (chi2)
            KRV_TRY(cudaMemcpyAsync(d->hout[s] + KRV_CHUNK, d->out[s] + KRV_CHUNK,
                                    cnt * sizeof(double), cudaMemcpyDeviceToHost, d->stream[s]),
                    "downloading results");
        pend_first[s] = first, pend_cnt[s] = cnt;
    }
    for (int s = 0; s < KRV_NSTREAM; s++)
        if (pend_cnt[s] &&
            (st = drain(d, s, pend_first[s], pend_cnt[s], ll, chi2, &kernel_s)) != SL_OK)
            return st;
    c->kernel_s = kernel_s;
    return SL_OK;
}

/* The device entry (likelihood.h eval_batch_device): the same kernels on
 * the caller's device buffers and stream, nothing staged or copied. */
extern "C" sl_status sl_krv_cuda_eval_device(sl_krv_ctx *c, const double *params, size_t n,
                                             const int *count, double *ll, void *stream)
{
    if (c->n_obs > 0x7fffffff || n > 0x7fffffff)
        return sl_fail(SL_ERR_UNSUPPORTED, "kepler_rv: %zu observations, %zu models exceed the "
                       "CUDA kernel's int indices", c->n_obs, n);
    krv_dev *d;
    sl_status st = ensure_dev(c, &d);
    if (st != SL_OK)
        return st;
    if (n == 0)
        return SL_OK;
    krv_args a;
    fill_args(&a, c, d);
    int tpm;
    krv_kernel k = krv_pick(c, n, &tpm);
    a.params = params, a.n = (int64_t)n, a.ll = ll, a.chi2 = NULL, a.count = count;
    unsigned grid = (unsigned)((n * tpm + KRV_BLOCK - 1) / KRV_BLOCK);
    k<<<grid, KRV_BLOCK, 0, (cudaStream_t)stream>>>(a);
    KRV_TRY(cudaGetLastError(), "launching the kepler_rv kernel");
    c->kernel_s = 0.0; /* not timed: the caller's stream runs on */
    return SL_OK;
}
