/* demcmc_dev.h on CUDA: a generation of DE-MCMC on the device. One thread
 * per chain proposes (demcmc_move.h, the host sampler's code), a scan
 * packs the proposals inside the priors, the target evaluates them on the
 * same stream, one thread per packed proposal decides. This file is
 * compiled without FMA contraction (core/CMakeLists.txt), so its
 * arithmetic is the host's but for the libm functions (log, sin, cos of
 * the normals and the accept test), which differ from glibc's in the last
 * bits at most. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_try.h"
#include "demcmc_dev.h"
#include "starling/nomem.h"

#define DM_BLOCK 256
#define DM_SCAN 1024 /* a scan block: 1024 flags, and up to 1024 blocks (2^20 chains) */
#define DM_EVENTS 64 /* steps whose likelihood timing may be pending */

struct sl__dm_dev {
    sl_dm_move m;            /* m.pr: device priors */
    int64_t N, zcap, zn;
    int64_t kcap, k0, kn;    /* kept slots held: room, the first, how many */
    double *kx, *klp, *kll;
    int D;
    cudaStream_t stream;
    cudaEvent_t t0[DM_EVENTS], t1[DM_EVENTS]; /* about each step's target */
    int pending[DM_EVENTS];
    int64_t steps;
    double target_s;
    double *x, *lp, *ll, *prop, *plp, *jac, *rows, *out, *z;
    sl_prior *pr;
    int64_t *accepted, *row_of;
    int *flag, *pos, *bsum;
    unsigned long long *count; /* [0] outside, [1] nan, [2] evaluated */
};

/* ---- kernels -------------------------------------------------------------------- */

__global__ void dm_propose(sl_dm_move m, int64_t g, int64_t lo, int64_t n, const double *x,
                           const double *src, int64_t on, double *prop,
                           double *plp, double *jac, int *flag, unsigned long long *count)
{
    int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    int64_t ch = lo + t;
    double *y = prop + t * m.D;
    double j = sl_dm_propose(&m, ch, g, x + ch * m.D, src, on, y);
    double p = isnan(j) ? -INFINITY : sl_dm_log_prior(&m, y);
    jac[t] = j, plp[t] = p;
    flag[t] = p > -INFINITY;
    if (p == -INFINITY && !isnan(j))
        atomicAdd(&count[0], 1ull);
}

/* Exclusive scan of flag within blocks of DM_SCAN; bsum gets each block's total. */
__global__ void dm_scan_blocks(const int *flag, int64_t n, int *pos, int *bsum)
{
    __shared__ int s[DM_SCAN];
    int64_t i = blockIdx.x * (int64_t)DM_SCAN + threadIdx.x;
    int f = i < n ? flag[i] : 0;
    s[threadIdx.x] = f;
    __syncthreads();
    for (int off = 1; off < DM_SCAN; off <<= 1) { /* Hillis-Steele, inclusive */
        int v = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
        __syncthreads();
        s[threadIdx.x] += v;
        __syncthreads();
    }
    if (i < n)
        pos[i] = s[threadIdx.x] - f;
    if (threadIdx.x == DM_SCAN - 1)
        bsum[blockIdx.x] = s[DM_SCAN - 1];
}

/* The blocks' offsets (exclusive), in one block; bsum[nb] gets the total. */
__global__ void dm_scan_sums(int *bsum, int nb)
{
    __shared__ int s[DM_SCAN];
    int f = (int)threadIdx.x < nb ? bsum[threadIdx.x] : 0;
    s[threadIdx.x] = f;
    __syncthreads();
    for (int off = 1; off < DM_SCAN; off <<= 1) {
        int v = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
        __syncthreads();
        s[threadIdx.x] += v;
        __syncthreads();
    }
    if ((int)threadIdx.x < nb)
        bsum[threadIdx.x] = s[threadIdx.x] - f;
    if (threadIdx.x == DM_SCAN - 1)
        bsum[nb] = s[DM_SCAN - 1];
}

/* The proposals inside the priors, packed in chain order (as the host packs them). */
__global__ void dm_pack(const int *flag, const int *pos, const int *bsum, int64_t n, int D,
                        const double *prop, double *rows, int64_t *row_of)
{
    int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (t >= n || !flag[t])
        return;
    int64_t k = pos[t] + bsum[t / DM_SCAN];
    for (int q = 0; q < D; q++)
        rows[k * D + q] = prop[t * D + q];
    row_of[k] = t;
}

__global__ void dm_decide(sl_dm_move m, int64_t g, int64_t lo, const int *count_rows,
                          const int64_t *row_of, const double *out, const double *prop,
                          const double *plp, const double *jac, double *x, double *lp,
                          double *ll, int64_t *accepted, unsigned long long *count)
{
    int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, rows = *count_rows;
    if (k == 0)
        atomicAdd(&count[2], (unsigned long long)rows);
    if (k >= rows)
        return;
    int64_t i = row_of[k], ch = lo + i;
    double v = out[k];
    if (isnan(v)) {
        atomicAdd(&count[1], 1ull);
        return;
    }
    if (!sl_dm_accept(&m, ch, g, plp[i] + v + jac[i], lp[ch] + ll[ch]))
        return;
    for (int q = 0; q < m.D; q++)
        x[ch * m.D + q] = prop[i * m.D + q];
    lp[ch] = plp[i];
    ll[ch] = v;
    accepted[ch]++;
}

/* ---- host side ------------------------------------------------------------------ */

#define DM_ALLOC(p, bytes) SL_CUDA_TRY(cudaMalloc((void **)&(p), (bytes) ? (bytes) : 1), \
                                       "demcmc: allocating device memory")

static sl_status dm_alloc(sl__dm_dev *d)
{
    size_t N = (size_t)d->N, D = (size_t)d->D, nb = (N + DM_SCAN - 1) / DM_SCAN + 1;
    DM_ALLOC(d->x, N * D * sizeof(double));
    DM_ALLOC(d->lp, N * sizeof(double));
    DM_ALLOC(d->ll, N * sizeof(double));
    DM_ALLOC(d->prop, N * D * sizeof(double));
    DM_ALLOC(d->plp, N * sizeof(double));
    DM_ALLOC(d->jac, N * sizeof(double));
    DM_ALLOC(d->rows, N * D * sizeof(double));
    DM_ALLOC(d->out, N * sizeof(double));
    DM_ALLOC(d->z, (size_t)d->zcap * D * sizeof(double));
    DM_ALLOC(d->pr, D * sizeof(sl_prior));
    DM_ALLOC(d->accepted, N * sizeof(int64_t));
    DM_ALLOC(d->row_of, N * sizeof(int64_t));
    DM_ALLOC(d->flag, N * sizeof(int));
    DM_ALLOC(d->pos, N * sizeof(int));
    DM_ALLOC(d->bsum, nb * sizeof(int));
    DM_ALLOC(d->count, 3 * sizeof(unsigned long long));
    DM_ALLOC(d->kx, (size_t)d->kcap * N * D * sizeof(double));
    DM_ALLOC(d->klp, (size_t)d->kcap * N * sizeof(double));
    DM_ALLOC(d->kll, (size_t)d->kcap * N * sizeof(double));
    SL_CUDA_TRY(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking),
                "demcmc: creating a stream");
    for (int e = 0; e < DM_EVENTS; e++) {
        SL_CUDA_TRY(cudaEventCreate(&d->t0[e]), "demcmc: creating an event");
        SL_CUDA_TRY(cudaEventCreate(&d->t1[e]), "demcmc: creating an event");
    }
    return SL_OK;
}

extern "C" sl_status sl__dm_dev_open(sl__dm_dev **out, const sl_dm_move *m, int64_t N,
                                     int64_t zcap, int64_t keep)
{
    *out = NULL;
    if (N > (int64_t)DM_SCAN * (DM_SCAN - 1))
        return sl_fail(SL_ERR_UNSUPPORTED, "demcmc: %lld chains on the device: at most %d",
                       (long long)N, DM_SCAN * (DM_SCAN - 1));
    sl__dm_dev *d = (sl__dm_dev *)calloc(1, sizeof *d);
    if (!d)
        return sl_fail_nomem(sizeof *d, "demcmc: the device sampler");
    d->m = *m, d->N = N, d->zcap = zcap, d->D = m->D, d->kcap = keep > 0 ? keep : 1;
    sl_status st = dm_alloc(d);
    if (!st) {
        cudaError_t e = cudaMemcpy(d->pr, m->pr, (size_t)m->D * sizeof(sl_prior),
                                   cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemset(d->count, 0, 3 * sizeof(unsigned long long));
        if (e == cudaSuccess)
            e = cudaMemset(d->accepted, 0, (size_t)N * sizeof(int64_t));
        if (e != cudaSuccess)
            st = sl_fail(SL_ERR_CUDA, "demcmc: uploading the priors: %s", cudaGetErrorString(e));
    }
    d->m.pr = d->pr;
    if (st) {
        sl__dm_dev_close(d);
        return st;
    }
    *out = d;
    return SL_OK;
}

extern "C" void sl__dm_dev_close(sl__dm_dev *d)
{
    if (!d)
        return;
    if (d->stream)
        cudaStreamDestroy(d->stream);
    for (int e = 0; e < DM_EVENTS; e++) {
        if (d->t0[e])
            cudaEventDestroy(d->t0[e]);
        if (d->t1[e])
            cudaEventDestroy(d->t1[e]);
    }
    cudaFree(d->x), cudaFree(d->lp), cudaFree(d->ll), cudaFree(d->prop), cudaFree(d->plp);
    cudaFree(d->jac), cudaFree(d->rows), cudaFree(d->out), cudaFree(d->z);
    cudaFree(d->pr), cudaFree(d->accepted), cudaFree(d->row_of), cudaFree(d->flag);
    cudaFree(d->pos), cudaFree(d->bsum), cudaFree(d->count);
    cudaFree(d->kx), cudaFree(d->klp), cudaFree(d->kll);
    free(d);
}

static sl_status dm_copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                         cudaStream_t s)
{
    if (!dst || !src || !bytes)
        return SL_OK;
    SL_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, s), "demcmc: copying the chains");
    return SL_OK;
}

extern "C" sl_status sl__dm_dev_put(sl__dm_dev *d, const double *x, const double *lp,
                                    const double *ll, const int64_t *accepted)
{
    size_t N = (size_t)d->N;
    cudaMemcpyKind h2d = cudaMemcpyHostToDevice;
    sl_status st = dm_copy(d->x, x, N * d->D * sizeof(double), h2d, d->stream);
    if (!st)
        st = dm_copy(d->lp, lp, N * sizeof(double), h2d, d->stream);
    if (!st)
        st = dm_copy(d->ll, ll, N * sizeof(double), h2d, d->stream);
    if (!st)
        st = dm_copy(d->accepted, accepted, N * sizeof(int64_t), h2d, d->stream);
    if (!st)
        SL_CUDA_TRY(cudaStreamSynchronize(d->stream), "demcmc: uploading the chains");
    return st;
}

extern "C" sl_status sl__dm_dev_get(sl__dm_dev *d, double *x, double *lp, double *ll,
                                    int64_t *accepted)
{
    size_t N = (size_t)d->N;
    cudaMemcpyKind d2h = cudaMemcpyDeviceToHost;
    sl_status st = dm_copy(x, d->x, N * d->D * sizeof(double), d2h, d->stream);
    if (!st)
        st = dm_copy(lp, d->lp, N * sizeof(double), d2h, d->stream);
    if (!st)
        st = dm_copy(ll, d->ll, N * sizeof(double), d2h, d->stream);
    if (!st)
        st = dm_copy(accepted, d->accepted, N * sizeof(int64_t), d2h, d->stream);
    if (!st)
        SL_CUDA_TRY(cudaStreamSynchronize(d->stream), "demcmc: downloading the chains");
    return st;
}

extern "C" sl_status sl__dm_dev_archive_put(sl__dm_dev *d, const double *z, int64_t rows)
{
    if (rows > d->zcap)
        return sl_fail(SL_ERR_ARG, "demcmc: an archive of %lld rows, room for %lld",
                       (long long)rows, (long long)d->zcap);
    sl_status st = dm_copy(d->z, z, (size_t)rows * d->D * sizeof(double),
                           cudaMemcpyHostToDevice, d->stream);
    if (!st)
        SL_CUDA_TRY(cudaStreamSynchronize(d->stream), "demcmc: uploading the archive");
    d->zn = rows;
    return st;
}

extern "C" sl_status sl__dm_dev_archive_add(sl__dm_dev *d)
{
    if (d->zn + d->N > d->zcap)
        return sl_fail(SL_ERR_ARG, "demcmc: the archive is full (%lld rows)", (long long)d->zcap);
    size_t bytes = (size_t)d->N * d->D * sizeof(double);
    SL_CUDA_TRY(cudaMemcpyAsync(d->z + d->zn * d->D, d->x, bytes, cudaMemcpyDeviceToDevice,
                                d->stream), "demcmc: archiving the chains");
    d->zn += d->N;
    return SL_OK;
}

extern "C" sl_status sl__dm_dev_archive_get(sl__dm_dev *d, double *z)
{
    sl_status st = dm_copy(z, d->z, (size_t)d->zn * d->D * sizeof(double),
                           cudaMemcpyDeviceToHost, d->stream);
    if (!st)
        SL_CUDA_TRY(cudaStreamSynchronize(d->stream), "demcmc: downloading the archive");
    return st;
}

static unsigned dm_grid(int64_t n) { return (unsigned)((n + DM_BLOCK - 1) / DM_BLOCK); }

/* Event pair e's likelihood time, once it has run. */
static sl_status dm_harvest(sl__dm_dev *d, int e)
{
    if (!d->pending[e])
        return SL_OK;
    float ms = 0.0f;
    SL_CUDA_TRY(cudaEventSynchronize(d->t1[e]), "demcmc: timing the likelihood");
    SL_CUDA_TRY(cudaEventElapsedTime(&ms, d->t0[e], d->t1[e]), "demcmc: timing the likelihood");
    d->target_s += 1e-3 * (double)ms;
    d->pending[e] = 0;
    return SL_OK;
}

extern "C" sl_status sl__dm_dev_step(sl__dm_dev *d, int64_t g, int64_t lo, int64_t olo,
                                     int64_t n, int archive, sl__dm_dev_target target,
                                     void *ud)
{
    cudaStream_t s = d->stream;
    const int D = d->D;
    const double *src = archive ? d->z : d->x + olo * D;
    int64_t on = archive ? d->zn : n;
    dm_propose<<<dm_grid(n), DM_BLOCK, 0, s>>>(d->m, g, lo, n, d->x, src, on, d->prop,
                                               d->plp, d->jac, d->flag, d->count);
    SL_CUDA_TRY(cudaGetLastError(), "demcmc: launching the proposal kernel");
    int nb = (int)((n + DM_SCAN - 1) / DM_SCAN);
    dm_scan_blocks<<<nb, DM_SCAN, 0, s>>>(d->flag, n, d->pos, d->bsum);
    SL_CUDA_TRY(cudaGetLastError(), "demcmc: launching the scan kernel");
    dm_scan_sums<<<1, DM_SCAN, 0, s>>>(d->bsum, nb);
    SL_CUDA_TRY(cudaGetLastError(), "demcmc: launching the scan kernel");
    dm_pack<<<dm_grid(n), DM_BLOCK, 0, s>>>(d->flag, d->pos, d->bsum, n, D, d->prop, d->rows,
                                            d->row_of);
    SL_CUDA_TRY(cudaGetLastError(), "demcmc: launching the packing kernel");
    const int *rows = d->bsum + nb; /* the packed count, on the device */
    int e = (int)(d->steps++ % DM_EVENTS);
    sl_status st = dm_harvest(d, e);
    if (st)
        return st;
    SL_CUDA_TRY(cudaEventRecord(d->t0[e], s), "demcmc: recording an event");
    st = target(ud, d->rows, n, rows, d->out, (void *)s);
    if (st)
        return sl_fail_context(st, "demcmc: the likelihood on the device");
    SL_CUDA_TRY(cudaEventRecord(d->t1[e], s), "demcmc: recording an event");
    d->pending[e] = 1;
    dm_decide<<<dm_grid(n), DM_BLOCK, 0, s>>>(d->m, g, lo, rows, d->row_of, d->out, d->prop,
                                              d->plp, d->jac, d->x, d->lp, d->ll, d->accepted,
                                              d->count);
    SL_CUDA_TRY(cudaGetLastError(), "demcmc: launching the decision kernel");
    return SL_OK;
}

extern "C" sl_status sl__dm_dev_counts(sl__dm_dev *d, int64_t *outside, int64_t *nan,
                                       int64_t *evaluated, double *target_s)
{
    unsigned long long c[3];
    SL_CUDA_TRY(cudaMemcpyAsync(c, d->count, sizeof c, cudaMemcpyDeviceToHost, d->stream),
                "demcmc: reading the counts");
    SL_CUDA_TRY(cudaStreamSynchronize(d->stream), "demcmc: reading the counts");
    for (int e = 0; e < DM_EVENTS; e++) {
        sl_status st = dm_harvest(d, e);
        if (st)
            return st;
    }
    *outside = (int64_t)c[0], *nan = (int64_t)c[1], *evaluated = (int64_t)c[2];
    *target_s = d->target_s;
    return SL_OK;
}

extern "C" int sl__dm_dev_keep_full(const sl__dm_dev *d) { return d->kn == d->kcap; }

extern "C" sl_status sl__dm_dev_keep(sl__dm_dev *d, int64_t slot)
{
    if (d->kn == d->kcap || (d->kn > 0 && slot != d->k0 + d->kn))
        return sl_fail(SL_ERR_ARG, "demcmc: kept generation %lld: the device holds %lld from "
                       "%lld of %lld", (long long)slot, (long long)d->kn, (long long)d->k0,
                       (long long)d->kcap);
    size_t N = (size_t)d->N, D = (size_t)d->D, j = (size_t)d->kn;
    cudaMemcpyKind d2d = cudaMemcpyDeviceToDevice;
    SL_CUDA_TRY(cudaMemcpyAsync(d->kx + j * N * D, d->x, N * D * sizeof(double), d2d, d->stream),
                "demcmc: keeping a generation");
    SL_CUDA_TRY(cudaMemcpyAsync(d->klp + j * N, d->lp, N * sizeof(double), d2d, d->stream),
                "demcmc: keeping a generation");
    SL_CUDA_TRY(cudaMemcpyAsync(d->kll + j * N, d->ll, N * sizeof(double), d2d, d->stream),
                "demcmc: keeping a generation");
    if (d->kn++ == 0)
        d->k0 = slot;
    return SL_OK;
}

extern "C" sl_status sl__dm_dev_flush(sl__dm_dev *d, double *samples, double *logpost,
                                      double *loglike)
{
    if (d->kn == 0)
        return SL_OK;
    size_t N = (size_t)d->N, D = (size_t)d->D, n = (size_t)d->kn, at = (size_t)d->k0;
    cudaMemcpyKind d2h = cudaMemcpyDeviceToHost;
    SL_CUDA_TRY(cudaMemcpyAsync(samples + at * N * D, d->kx, n * N * D * sizeof(double), d2h,
                                d->stream), "demcmc: downloading kept generations");
    SL_CUDA_TRY(cudaMemcpyAsync(logpost + at * N, d->klp, n * N * sizeof(double), d2h,
                                d->stream), "demcmc: downloading kept generations");
    SL_CUDA_TRY(cudaMemcpyAsync(loglike + at * N, d->kll, n * N * sizeof(double), d2h,
                                d->stream), "demcmc: downloading kept generations");
    SL_CUDA_TRY(cudaStreamSynchronize(d->stream), "demcmc: downloading kept generations");
    for (size_t j = at * N; j < (at + n) * N; j++)
        logpost[j] += loglike[j]; /* log prior + log-likelihood, as the host keeps it */
    d->kn = 0;
    return SL_OK;
}

