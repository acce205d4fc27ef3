/* demcmc_dev.h on CUDA: a generation of DE-MCMC on the device. One thread
 * per chain proposes (demcmc_move.h, the host sampler's code) and packs its
 * proposal if it is inside the priors, the target evaluates the packed rows
 * on the same stream, one thread per row decides: three kernels a step. This file is
 * compiled without FMA contraction (core/CMakeLists.txt), so its
 * arithmetic is the host's but for the libm functions (log, sin, cos of
 * the normals and the accept test), which differ from glibc's in the last
 * bits at most. */
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_try.h"
#include "demcmc_dev.h"
#include "starling/demcmc_fused.h"
#include "starling/nomem.h"

/* Small blocks: a half-generation of 2,048 chains is then 32 blocks on 32
 * SMs rather than 8 on 8, and each thread's work is latency-bound. */
#define DM_BLOCK 64
#define DM_EVENTS 64 /* measured steps whose likelihood timing may be pending */

/* A batch of kept generations: on the device, in pinned memory, and the
 * copy into the result that the copy stream's host function makes. */
typedef struct dm_batch {
    double *kx, *klp, *kll;  /* device: kcap x N x D, kcap x N, kcap x N */
    double *hx, *hlp, *hll;  /* pinned host, the same */
    double *samples, *logpost, *loglike; /* the result's arrays, at the batch's first slot */
    size_t n, N, D;
    cudaEvent_t filled, done;
    int busy;
} dm_batch;

struct sl__dm_dev {
    sl_dm_move m;            /* m.pr: device priors */
    int64_t N, zcap, zn;
    int64_t kcap, k0, kn;    /* kept slots held in batch kb: room, the first, how many */
    int kb;
    dm_batch kept[2];        /* one fills while the other is copied out */
    cudaStream_t cstream;    /* the copies out */
    int D;
    cudaStream_t stream;
    cudaEvent_t t0[DM_EVENTS], t1[DM_EVENTS]; /* about a measured step's target */
    int pending[DM_EVENTS];
    int64_t steps, time_every, timed; /* steps run; every time_every-th is measured */
    double target_s;                  /* of the measured steps */
    double *x, *lp, *ll, *prop, *plp, *jac, *rows, *out, *z;
    sl_prior *pr;
    int64_t *accepted, *row_of;
    int *packed; /* [2]: the rows counters of even and odd steps */
    unsigned long long *count; /* [0] outside, [1] nan, [2] evaluated */
    unsigned long long *cc;    /* N x 3: the same per chain, from fused halves */
    void *arena, *pinned;      /* every device buffer above; the kept batches' host copies */
    sl__dm_dev_half half;      /* or NULL */
    void *half_ud;
};

/* ---- kernels -------------------------------------------------------------------- */

/* Packs proposal y of thread t (y inside the priors when `in`) into rows
 * by a warp-aggregated atomic on *packed, so in an order that depends on
 * timing. That is harmless: a row's likelihood does not depend on its
 * place in the batch (likelihood.h), row_of maps rows back to chains, and
 * each chain decides on its own. Every lane of the warp must arrive. */
static __device__ __forceinline__ void dm_pack(int in, int64_t t, int D, const double *y,
                                               double *__restrict__ rows,
                                               int64_t *__restrict__ row_of, int *packed)
{
    unsigned ballot = __ballot_sync(0xffffffffu, in);
    if (!in)
        return;
    int lane = (int)(threadIdx.x & 31), first = __ffs(ballot) - 1, base = 0;
    if (lane == first)
        base = atomicAdd(packed, __popc(ballot));
    base = __shfl_sync(ballot, base, first);
    int64_t k = base + __popc(ballot & ((1u << lane) - 1u));
    for (int q = 0; q < D; q++)
        rows[k * D + q] = y[q];
    row_of[k] = t;
}

/* Chain lo + t's proposal into y; *in when it is inside the priors. */
static __device__ __forceinline__ void dm_propose_one(const sl_dm_move &m, int64_t g,
                                                      int64_t lo, int64_t t, const double *x,
                                                      const double *src, int64_t on,
                                                      double *y, double *plp, double *jac,
                                                      int *in, unsigned long long *count)
{
    double j = sl_dm_propose(&m, lo + t, g, x + (lo + t) * m.D, src, on, y);
    double p = isnan(j) ? -INFINITY : sl_dm_log_prior(&m, y);
    jac[t] = j, plp[t] = p;
    *in = p > -INFINITY;
    if (!*in && !isnan(j))
        atomicAdd(&count[0], 1ull);
}

/* Proposals of up to DM_LOCAL parameters are made in registers and local
 * memory, which the compiler knows no global store can touch: made in
 * global memory, each parameter's reads of the pair and the prior waited
 * for the store before it (25 us a half-generation of 2,048 chains on the
 * H100, ncu). */
#define DM_LOCAL 32

/* One thread a chain proposes and packs its proposal if it is inside the
 * priors: one kernel instead of a propose, a scan and a pack. */
__global__ void dm_propose(sl_dm_move m, int64_t g, int64_t lo, int64_t n,
                           const double *__restrict__ x, const double *__restrict__ src,
                           int64_t on, double *__restrict__ prop, double *__restrict__ plp,
                           double *__restrict__ jac, double *__restrict__ rows,
                           int64_t *__restrict__ row_of, int *packed,
                           unsigned long long *count)
{
    int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    int in = 0;
    if (m.D <= DM_LOCAL) {
        double y[DM_LOCAL];
        if (t < n)
            dm_propose_one(m, g, lo, t, x, src, on, y, plp, jac, &in, count);
        dm_pack(in, t, m.D, y, rows, row_of, packed);
    } else {
        double *y = prop + t * m.D;
        if (t < n)
            dm_propose_one(m, g, lo, t, x, src, on, y, plp, jac, &in, count);
        dm_pack(in, t, m.D, y, rows, row_of, packed);
    }
}

/* One thread a row decides its chain. *next_packed is the next step's
 * row counter: zeroed here, where nothing reads it (the step before
 * used it and has decided; the step after has not begun). */
__global__ void dm_decide(sl_dm_move m, int64_t g, int64_t lo, const int *count_rows,
                          int *next_packed, const int64_t *__restrict__ row_of,
                          const double *__restrict__ out, const double *__restrict__ rows,
                          const double *__restrict__ plp, const double *__restrict__ jac,
                          double *__restrict__ x, double *__restrict__ lp,
                          double *__restrict__ ll, int64_t *__restrict__ accepted,
                          unsigned long long *count)
{
    int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, nrows = *count_rows;
    if (k == 0) {
        atomicAdd(&count[2], (unsigned long long)nrows);
        *next_packed = 0;
    }
    if (k >= nrows)
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
        x[ch * m.D + q] = rows[k * m.D + q];
    lp[ch] = plp[i];
    ll[ch] = v;
    accepted[ch]++;
}

/* ---- host side ------------------------------------------------------------------ */

/* The device buffers are carved from one allocation and the pinned ones
 * from another: a run used to make 21 cudaMalloc, 6 cudaMallocHost and as
 * many frees, and the frees synchronise the device; the fixed cost of a
 * run is part of issue 11's time outside the likelihood. */
#define DM_ALIGN 256

/* Carves `bytes` (at least one) from an arena at *off into *p; with base
 * NULL it only counts. */
static void dm_carve(char *base, size_t *off, size_t bytes, void **p)
{
    *p = base ? base + *off : NULL;
    *off += (bytes ? bytes : 1) + DM_ALIGN - 1;
    *off -= *off % DM_ALIGN;
}

#define DM_CARVE(base, off, p, bytes) dm_carve(base, off, bytes, (void **)&(p))

/* The device arena's buffers at base (NULL: only its size, in *off). */
static void dm_layout_device(sl__dm_dev *d, char *base, size_t *off)
{
    size_t N = (size_t)d->N, D = (size_t)d->D, kc = (size_t)d->kcap;
    DM_CARVE(base, off, d->x, N * D * sizeof(double));
    DM_CARVE(base, off, d->lp, N * sizeof(double));
    DM_CARVE(base, off, d->ll, N * sizeof(double));
    DM_CARVE(base, off, d->prop, N * D * sizeof(double));
    DM_CARVE(base, off, d->plp, N * sizeof(double));
    DM_CARVE(base, off, d->jac, N * sizeof(double));
    DM_CARVE(base, off, d->rows, N * D * sizeof(double));
    DM_CARVE(base, off, d->out, N * sizeof(double));
    DM_CARVE(base, off, d->z, (size_t)d->zcap * D * sizeof(double));
    DM_CARVE(base, off, d->pr, D * sizeof(sl_prior));
    DM_CARVE(base, off, d->accepted, N * sizeof(int64_t));
    DM_CARVE(base, off, d->row_of, N * sizeof(int64_t));
    DM_CARVE(base, off, d->packed, 2 * sizeof(int));
    DM_CARVE(base, off, d->count, 3 * sizeof(unsigned long long));
    DM_CARVE(base, off, d->cc, 3 * N * sizeof(unsigned long long));
    for (int b = 0; b < 2; b++) {
        dm_batch *k = &d->kept[b];
        DM_CARVE(base, off, k->kx, kc * N * D * sizeof(double));
        DM_CARVE(base, off, k->klp, kc * N * sizeof(double));
        DM_CARVE(base, off, k->kll, kc * N * sizeof(double));
    }
}

/* The pinned arena's: the two kept batches' host copies. */
static void dm_layout_pinned(sl__dm_dev *d, char *base, size_t *off)
{
    size_t N = (size_t)d->N, D = (size_t)d->D, kc = (size_t)d->kcap;
    for (int b = 0; b < 2; b++) {
        dm_batch *k = &d->kept[b];
        DM_CARVE(base, off, k->hx, kc * N * D * sizeof(double));
        DM_CARVE(base, off, k->hlp, kc * N * sizeof(double));
        DM_CARVE(base, off, k->hll, kc * N * sizeof(double));
    }
}

static sl_status dm_alloc(sl__dm_dev *d)
{
    size_t dev = 0, pin = 0;
    dm_layout_device(d, NULL, &dev);
    dm_layout_pinned(d, NULL, &pin);
    SL_CUDA_TRY(cudaMalloc(&d->arena, dev), "demcmc: allocating the device's buffers");
    SL_CUDA_TRY(cudaMallocHost(&d->pinned, pin),
                "demcmc: allocating pinned memory for kept generations");
    dev = pin = 0;
    dm_layout_device(d, (char *)d->arena, &dev);
    dm_layout_pinned(d, (char *)d->pinned, &pin);
    for (int b = 0; b < 2; b++) {
        dm_batch *k = &d->kept[b];
        SL_CUDA_TRY(cudaEventCreateWithFlags(&k->filled, cudaEventDisableTiming),
                    "demcmc: creating an event");
        SL_CUDA_TRY(cudaEventCreateWithFlags(&k->done, cudaEventDisableTiming),
                    "demcmc: creating an event");
    }
    SL_CUDA_TRY(cudaStreamCreateWithFlags(&d->cstream, cudaStreamNonBlocking),
                "demcmc: creating a stream");
    SL_CUDA_TRY(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking),
                "demcmc: creating a stream");
    for (int e = 0; e < DM_EVENTS; e++) {
        SL_CUDA_TRY(cudaEventCreate(&d->t0[e]), "demcmc: creating an event");
        SL_CUDA_TRY(cudaEventCreate(&d->t1[e]), "demcmc: creating an event");
    }
    return SL_OK;
}

extern "C" sl_status sl__dm_dev_open(sl__dm_dev **out, const sl_dm_move *m, int64_t N,
                                     int64_t zcap, int64_t keep, int64_t time_every)
{
    *out = NULL;
    if (N > INT_MAX) /* the rows counter */
        return sl_fail(SL_ERR_UNSUPPORTED, "demcmc: %lld chains on the device: at most %d",
                       (long long)N, INT_MAX);
    sl__dm_dev *d = (sl__dm_dev *)calloc(1, sizeof *d);
    if (!d)
        return sl_fail_nomem(sizeof *d, "demcmc: the device sampler");
    d->m = *m, d->N = N, d->zcap = zcap, d->D = m->D, d->kcap = keep > 0 ? keep : 1;
    d->time_every = time_every > 0 ? time_every : 1;
    sl_status st = dm_alloc(d);
    if (!st) {
        cudaError_t e = cudaMemcpy(d->pr, m->pr, (size_t)m->D * sizeof(sl_prior),
                                   cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemset(d->count, 0, 3 * sizeof(unsigned long long));
        if (e == cudaSuccess)
            e = cudaMemset(d->cc, 0, 3 * (size_t)N * sizeof(unsigned long long));
        if (e == cudaSuccess)
            e = cudaMemset(d->packed, 0, 2 * sizeof(int));
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
    if (d->cstream) /* a copy out may still be running into the result */
        cudaStreamSynchronize(d->cstream), cudaStreamDestroy(d->cstream);
    if (d->stream)
        cudaStreamDestroy(d->stream);
    for (int b = 0; b < 2; b++) {
        dm_batch *k = &d->kept[b];
        if (k->filled)
            cudaEventDestroy(k->filled);
        if (k->done)
            cudaEventDestroy(k->done);
    }
    for (int e = 0; e < DM_EVENTS; e++) {
        if (d->t0[e])
            cudaEventDestroy(d->t0[e]);
        if (d->t1[e])
            cudaEventDestroy(d->t1[e]);
    }
    if (d->pinned)
        cudaFreeHost(d->pinned);
    if (d->arena)
        cudaFree(d->arena);
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

/* Before a step's target: its event pair when the step is one to measure
 * (*e >= 0, the start recorded), else *e = -1. Events cost the stream
 * a few microseconds each, so only every time_every-th step has them: the
 * last of each time_every, so that a first launch (loading the module)
 * is measured only when every step is. */
static sl_status dm_time_begin(sl__dm_dev *d, cudaStream_t s, int *e)
{
    *e = -1;
    if (d->steps++ % d->time_every != d->time_every - 1)
        return SL_OK;
    int k = (int)(d->timed++ % DM_EVENTS);
    sl_status st = dm_harvest(d, k);
    if (st)
        return st;
    SL_CUDA_TRY(cudaEventRecord(d->t0[k], s), "demcmc: recording an event");
    *e = k;
    return SL_OK;
}

static sl_status dm_time_end(sl__dm_dev *d, cudaStream_t s, int e)
{
    if (e < 0)
        return SL_OK;
    SL_CUDA_TRY(cudaEventRecord(d->t1[e], s), "demcmc: recording an event");
    d->pending[e] = 1;
    return SL_OK;
}

extern "C" void sl__dm_dev_set_half(sl__dm_dev *d, sl__dm_dev_half half, void *ud)
{
    d->half = half, d->half_ud = ud;
}

/* The step as one call of the plugin's fused kernel (demcmc_fused.h). */
static sl_status dm_step_fused(sl__dm_dev *d, int64_t g, int64_t lo, int64_t n,
                               const double *src, int64_t on)
{
    sl_dm_half h;
    h.m = d->m, h.g = g, h.lo = lo, h.n = n, h.src = src, h.on = on;
    h.x = d->x, h.lp = d->lp, h.ll = d->ll, h.accepted = d->accepted;
    h.rows = d->rows, h.counts = d->cc;
    int e;
    sl_status st = dm_time_begin(d, d->stream, &e);
    if (st)
        return st;
    st = d->half(d->half_ud, &h, (void *)d->stream);
    if (st)
        return sl_fail_context(st, "demcmc: the likelihood's fused half-generation");
    return dm_time_end(d, d->stream, e);
}

extern "C" sl_status sl__dm_dev_step(sl__dm_dev *d, int64_t g, int64_t lo, int64_t olo,
                                     int64_t n, int archive, sl__dm_dev_target target,
                                     void *ud)
{
    cudaStream_t s = d->stream;
    const int D = d->D;
    const double *src = archive ? d->z : d->x + olo * D;
    int64_t on = archive ? d->zn : n;
    if (d->half)
        return dm_step_fused(d, g, lo, n, src, on);
    int *rows = d->packed + (d->steps & 1), *next = d->packed + ((d->steps + 1) & 1);
    dm_propose<<<dm_grid(n), DM_BLOCK, 0, s>>>(d->m, g, lo, n, d->x, src, on, d->prop,
                                               d->plp, d->jac, d->rows, d->row_of, rows,
                                               d->count);
    SL_CUDA_TRY(cudaGetLastError(), "demcmc: launching the proposal kernel");
    int e;
    sl_status st = dm_time_begin(d, s, &e);
    if (st)
        return st;
    st = target(ud, d->rows, n, rows, d->out, (void *)s);
    if (st)
        return sl_fail_context(st, "demcmc: the likelihood on the device");
    if ((st = dm_time_end(d, s, e)))
        return st;
    dm_decide<<<dm_grid(n), DM_BLOCK, 0, s>>>(d->m, g, lo, rows, next, d->row_of, d->out,
                                              d->rows, d->plp, d->jac, d->x, d->lp, d->ll,
                                              d->accepted, d->count);
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
    if (d->half) { /* the fused halves count per chain */
        size_t N = (size_t)d->N;
        unsigned long long *cc = (unsigned long long *)malloc(3 * N * sizeof *cc);
        if (!cc)
            return sl_fail_nomem(3 * N * sizeof *cc, "demcmc: reading the counts");
        cudaError_t err = cudaMemcpy(cc, d->cc, 3 * N * sizeof *cc, cudaMemcpyDeviceToHost);
        for (size_t i = 0; err == cudaSuccess && i < 3 * N; i++)
            c[i % 3] += cc[i];
        free(cc);
        SL_CUDA_TRY(err, "demcmc: reading the counts");
    }
    *outside = (int64_t)c[0], *nan = (int64_t)c[1], *evaluated = (int64_t)c[2];
    *target_s = d->timed ? d->target_s * (double)d->steps / (double)d->timed : 0.0;
    return SL_OK;
}

extern "C" int sl__dm_dev_keep_full(const sl__dm_dev *d) { return d->kn == d->kcap; }

extern "C" sl_status sl__dm_dev_keep(sl__dm_dev *d, int64_t slot)
{
    if (d->kn == d->kcap || (d->kn > 0 && slot != d->k0 + d->kn))
        return sl_fail(SL_ERR_ARG, "demcmc: kept generation %lld: the device holds %lld from "
                       "%lld of %lld", (long long)slot, (long long)d->kn, (long long)d->k0,
                       (long long)d->kcap);
    dm_batch *k = &d->kept[d->kb];
    size_t N = (size_t)d->N, D = (size_t)d->D, j = (size_t)d->kn;
    cudaMemcpyKind d2d = cudaMemcpyDeviceToDevice;
    SL_CUDA_TRY(cudaMemcpyAsync(k->kx + j * N * D, d->x, N * D * sizeof(double), d2d, d->stream),
                "demcmc: keeping a generation");
    SL_CUDA_TRY(cudaMemcpyAsync(k->klp + j * N, d->lp, N * sizeof(double), d2d, d->stream),
                "demcmc: keeping a generation");
    SL_CUDA_TRY(cudaMemcpyAsync(k->kll + j * N, d->ll, N * sizeof(double), d2d, d->stream),
                "demcmc: keeping a generation");
    if (d->kn++ == 0)
        d->k0 = slot;
    return SL_OK;
}

/* On a driver thread once a batch is in pinned memory: into the result,
 * the log posterior as the host keeps it (log prior + log-likelihood). */
static void CUDART_CB dm_unpack(void *arg)
{
    dm_batch *k = (dm_batch *)arg;
    sl__dm_unpack(k->samples, k->logpost, k->loglike, k->hx, k->hlp, k->hll, k->n * k->N, k->D);
}

/* Batch b's copy out, if one is under way, finished. */
static sl_status dm_batch_wait(sl__dm_dev *d, int b)
{
    dm_batch *k = &d->kept[b];
    if (!k->busy)
        return SL_OK;
    SL_CUDA_TRY(cudaEventSynchronize(k->done), "demcmc: downloading kept generations");
    k->busy = 0;
    return SL_OK;
}

extern "C" sl_status sl__dm_dev_flush_async(sl__dm_dev *d, double *samples, double *logpost,
                                            double *loglike)
{
    if (d->kn == 0)
        return SL_OK;
    dm_batch *k = &d->kept[d->kb];
    size_t N = (size_t)d->N, D = (size_t)d->D, n = (size_t)d->kn, at = (size_t)d->k0;
    k->samples = samples + at * N * D, k->logpost = logpost + at * N;
    k->loglike = loglike + at * N, k->n = n, k->N = N, k->D = D;
    cudaMemcpyKind d2h = cudaMemcpyDeviceToHost;
    cudaStream_t c = d->cstream;
    SL_CUDA_TRY(cudaEventRecord(k->filled, d->stream), "demcmc: downloading kept generations");
    SL_CUDA_TRY(cudaStreamWaitEvent(c, k->filled, 0), "demcmc: downloading kept generations");
    SL_CUDA_TRY(cudaMemcpyAsync(k->hx, k->kx, n * N * D * sizeof(double), d2h, c),
                "demcmc: downloading kept generations");
    SL_CUDA_TRY(cudaMemcpyAsync(k->hlp, k->klp, n * N * sizeof(double), d2h, c),
                "demcmc: downloading kept generations");
    SL_CUDA_TRY(cudaMemcpyAsync(k->hll, k->kll, n * N * sizeof(double), d2h, c),
                "demcmc: downloading kept generations");
    SL_CUDA_TRY(cudaLaunchHostFunc(c, dm_unpack, k), "demcmc: downloading kept generations");
    SL_CUDA_TRY(cudaEventRecord(k->done, c), "demcmc: downloading kept generations");
    k->busy = 1;
    d->kb ^= 1, d->kn = 0; /* the other batch fills next, once its own copy is out */
    return dm_batch_wait(d, d->kb);
}

extern "C" sl_status sl__dm_dev_flush(sl__dm_dev *d, double *samples, double *logpost,
                                      double *loglike)
{
    sl_status st = sl__dm_dev_flush_async(d, samples, logpost, loglike);
    for (int b = 0; !st && b < 2; b++)
        st = dm_batch_wait(d, b);
    return st;
}
