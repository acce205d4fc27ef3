/* nbody_rv and ttv on CUDA: one model a thread, each thread running its
 * model's whole integration (nbody_like.inc, the CPU's code compiled for
 * the device), or with threads_per_model = 2 a pair of threads a model,
 * one running forward from the epoch and one backward; the data sit in device memory, read by every thread. The
 * reasons for ln L = -inf are counted on the device (one atomic add a
 * model) and read back when asked (sl_nbody_cuda_counts).
 *
 * A model is milliseconds of work, so the host path is plain: copy the
 * parameters up, one launch, copy the results back. */
#include <stdlib.h>
#include <string.h>

#include "nbody_rv.h"
#include "starling/forces/newton.h"
#include "starling/backend.h"
#include "starling/cuda_nbodies.h"
#include "starling/nomem.h"
#include "mvs.h"

/* mvs kernels for 1 to SL_NBODY_MAX_PL planets, each planet count where
 * the build's SL_CUDA_NBODIES (CMake; every count by default) lists its
 * bodies, planets + 1: a kernel is a whole integration inlined, and each
 * costs a minute or more of ptxas. The other counts and hermite are
 * refused on CUDA with the way out named (sl_nbody_cuda_can says which). */
#define SL_F newton
#define SL_N_LAST 7
#define SL_P mvs
#include "nbody_instances.inc"
#undef SL_P
#undef SL_N_LAST
#undef SL_F

#define NB_TRY(call, what)                                                                 \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess)                                                           \
            return sl_fail(SL_ERR_CUDA, "%s: %s: %s (%s)", c->name, (what),                \
                           cudaGetErrorString(err_), #call);                               \
    } while (0)

enum { NB_BLOCK = 64 };

typedef struct nb_args {
    sl_nbody_view d; /* device pointers */
    const double *params;
    int64_t n;
    const int *count;
    double *ll, *chi2;
    unsigned long long *counts;
    int pair; /* 1: two threads a model */
} nb_args;

/* A thread a model (pair 0), or a pair of threads a model (pair 1): the
 * even thread runs forward from the epoch, the odd one backward, and the
 * even one adds the two sums (a shuffle) and finishes. pair is the same
 * for the whole launch, and every thread of a warp reaches the shuffle,
 * those past the last model with empty sums. */
#define NB_KERNEL(P, N)                                                                    \
    __global__ void __launch_bounds__(NB_BLOCK) nb_##P##_##N(nb_args a)                    \
    {                                                                                      \
        const int64_t n = a.count ? (int64_t)*a.count : a.n;                                \
        const int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                  \
        const int64_t i = a.pair ? g >> 1 : g;                                             \
        const int part = a.pair ? SL_NBODY_FORWARD + (int)(g & 1) : SL_NBODY_BOTH;         \
        double x2 = 0.0, lw = 0.0;                                                         \
        int why = SL_NBODY_OK;                                                             \
        if (i < n)                                                                         \
            why = sl_nbody_terms_##P##_newton_##N(&a.d, a.params + i * a.d.n_par, part,     \
                                                   &x2, &lw);                              \
        if (a.pair) {                                                                      \
            const double x2b = __shfl_xor_sync(0xffffffffu, x2, 1);                        \
            const double lwb = __shfl_xor_sync(0xffffffffu, lw, 1);                        \
            const int whyb = __shfl_xor_sync(0xffffffffu, why, 1);                         \
            if (part == SL_NBODY_BACKWARD)                                                 \
                return;                                                                    \
            x2 += x2b, lw += lwb;                                                          \
            if (why == SL_NBODY_OK)                                                        \
                why = whyb;                                                                \
        }                                                                                  \
        if (i >= n)                                                                        \
            return;                                                                        \
        double ll, chi2;                                                                   \
        why = sl_nbody_finish(why, x2, lw, &ll, &chi2);                                    \
        atomicAdd(&a.counts[why], 1ull);                                                   \
        a.ll[i] = ll;                                                                      \
        if (a.chi2)                                                                        \
            a.chi2[i] = chi2;                                                              \
    }
/* NB_WHEN(N): nb_mvs_N where the build lists N bodies; NB_MVS(N): that
 * kernel, or NULL */
#define NB_WHEN(N) SL_CAT(NB_WHEN_, SL_CAT(SL_CUDA_N_, N))(N)
#define NB_WHEN_1(N) NB_KERNEL(mvs, N)
#define NB_WHEN_0(N)
#define NB_MVS(N) SL_CAT(NB_MVS_, SL_CAT(SL_CUDA_N_, N))(N)
#define NB_MVS_1(N) nb_mvs_##N
#define NB_MVS_0(N) NULL
NB_WHEN(2)
NB_WHEN(3)
NB_WHEN(4)
NB_WHEN(5)
NB_WHEN(6)
NB_WHEN(7)

typedef void (*nb_kernel)(nb_args);
static const nb_kernel nb_kernels[2][SL_NBODY_MAX_PL + 1] = {
    {NULL, NB_MVS(2), NB_MVS(3), NB_MVS(4), NB_MVS(5), NB_MVS(6), NB_MVS(7)},
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};

extern "C" int sl_nbody_cuda_can(int integrator, int n_pl)
{
    return n_pl >= 1 && n_pl <= SL_NBODY_MAX_PL && nb_kernels[integrator][n_pl] != NULL;
}

/* The context's device copy of the data, and buffers for the host path. */
typedef struct nb_dev {
    int device;
    sl_nbody_view d;
    double *data; /* every array of the view, one allocation */
    int *inst;
    unsigned long long *counts;
    double *params, *out; /* the host path's: cap models */
    size_t cap;
    cudaEvent_t k0, k1;
} nb_dev;

static sl_status upload(sl_nbody_ctx *c, nb_dev *g)
{
    const sl_nbody_view *h = &c->view;
    const size_t n_rv = (size_t)h->n_rv, n_tr = (size_t)h->n_tr;
    const size_t nd = 3 * n_rv + 2 * n_tr;
    g->d = *h;
    sl_status st;
    if ((st = sl_dev_alloc((void **)&g->data, (nd ? nd : 1) * sizeof(double), c->name)) ||
        (st = sl_dev_alloc((void **)&g->inst, (n_rv ? n_rv : 1) * sizeof(int), c->name)) ||
        (st = sl_dev_alloc((void **)&g->counts, SL_NBODY_N_REASONS * sizeof(unsigned long long),
                           c->name)))
        return st;
    NB_TRY(cudaMemset(g->counts, 0, SL_NBODY_N_REASONS * sizeof(unsigned long long)),
           "device counters");
    double *p = g->data;
    const double *src[5] = {c->t_rv, c->v_rv, c->var_rv, c->t_tr, c->ivar_tr};
    const size_t len[5] = {n_rv, n_rv, n_rv, n_tr, n_tr};
    const double **dst[5] = {&g->d.t_rv, &g->d.v_rv, &g->d.var_rv, &g->d.t_tr, &g->d.ivar_tr};
    for (int k = 0; k < 5; k++) {
        *dst[k] = len[k] ? p : NULL;
        if (len[k])
            NB_TRY(cudaMemcpy(p, src[k], len[k] * sizeof(double), cudaMemcpyHostToDevice),
                   "uploading the data");
        p += len[k];
    }
    g->d.inst_rv = n_rv ? g->inst : NULL;
    if (n_rv)
        NB_TRY(cudaMemcpy(g->inst, c->inst_rv, n_rv * sizeof(int), cudaMemcpyHostToDevice),
               "uploading the data");
    NB_TRY(cudaEventCreate(&g->k0), "creating an event");
    NB_TRY(cudaEventCreate(&g->k1), "creating an event");
    return SL_OK;
}

/* The device state, made on first use on the current device. */
static sl_status ensure_dev(sl_nbody_ctx *c, nb_dev **out)
{
    if (c->cuda) {
        *out = (nb_dev *)c->cuda;
        return SL_OK;
    }
    nb_dev *g = (nb_dev *)calloc(1, sizeof *g);
    if (!g)
        return sl_fail_nomem(sizeof *g, "%s: device state", c->name);
    c->cuda = g;
    NB_TRY(cudaGetDevice(&g->device), "selecting the device");
    sl_status st = upload(c, g);
    if (st == SL_OK)
        *out = g;
    return st;
}

static sl_status ensure_cap(sl_nbody_ctx *c, nb_dev *g, size_t n)
{
    if (n <= g->cap)
        return SL_OK;
    sl_dev_free(g->params), sl_dev_free(g->out);
    g->params = g->out = NULL, g->cap = 0;
    sl_status st = sl_dev_alloc((void **)&g->params, n * c->n_par * sizeof(double), c->name);
    if (st == SL_OK)
        st = sl_dev_alloc((void **)&g->out, 2 * n * sizeof(double), c->name);
    if (st == SL_OK)
        g->cap = n;
    return st;
}

static sl_status launch(sl_nbody_ctx *c, nb_dev *g, const double *params, size_t n,
                        const int *count, double *ll, double *chi2, cudaStream_t s)
{
    nb_args a;
    a.d = g->d, a.params = params, a.n = (int64_t)n, a.count = count, a.ll = ll, a.chi2 = chi2;
    a.counts = g->counts;
    a.pair = c->threads_per_model == 2;
    const size_t threads = n << a.pair;
    const unsigned grid = (unsigned)((threads + NB_BLOCK - 1) / NB_BLOCK);
    nb_kernels[c->integrator][c->view.n_pl]<<<grid, NB_BLOCK, 0, s>>>(a);
    NB_TRY(cudaGetLastError(), "launching the N-body kernel");
    return SL_OK;
}

extern "C" sl_status sl_nbody_cuda_eval(sl_nbody_ctx *c, const double *params, size_t n,
                                        double *ll, double *chi2)
{
    if (n > 0x7fffffff)
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: %zu models in one batch: at most 2^31 - 1",
                       c->name, n);
    nb_dev *g;
    sl_status st = ensure_dev(c, &g);
    if (st == SL_OK)
        st = ensure_cap(c, g, n);
    if (st != SL_OK)
        return st;
    NB_TRY(cudaMemcpy(g->params, params, n * c->n_par * sizeof(double), cudaMemcpyHostToDevice),
           "uploading parameters");
    NB_TRY(cudaEventRecord(g->k0, 0), "recording an event");
    if ((st = launch(c, g, g->params, n, NULL, g->out, g->out + n, 0)) != SL_OK)
        return st;
    NB_TRY(cudaEventRecord(g->k1, 0), "recording an event");
    NB_TRY(cudaMemcpy(ll, g->out, n * sizeof(double), cudaMemcpyDeviceToHost),
           "running the N-body kernel");
    if (chi2)
        NB_TRY(cudaMemcpy(chi2, g->out + n, n * sizeof(double), cudaMemcpyDeviceToHost),
               "downloading results");
    float ms = 0.0f;
    NB_TRY(cudaEventElapsedTime(&ms, g->k0, g->k1), "timing the kernel");
    c->kernel_s = 1e-3 * (double)ms;
    return SL_OK;
}

/* The device entry (likelihood.h eval_batch_device): the same kernel on
 * the caller's buffers and stream. */
extern "C" sl_status sl_nbody_cuda_eval_device(sl_nbody_ctx *c, const double *params, size_t n,
                                               const int *count, double *ll, void *stream)
{
    if (n > 0x7fffffff)
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: %zu models in one batch: at most 2^31 - 1",
                       c->name, n);
    nb_dev *g;
    sl_status st = ensure_dev(c, &g);
    if (st != SL_OK || n == 0)
        return st;
    c->kernel_s = 0.0; /* not timed: the caller's stream runs on */
    return launch(c, g, params, n, count, ll, NULL, (cudaStream_t)stream);
}

extern "C" sl_status sl_nbody_cuda_counts(sl_nbody_ctx *c, uint64_t *counts)
{
    memset(counts, 0, SL_NBODY_N_REASONS * sizeof *counts);
    nb_dev *g = (nb_dev *)c->cuda;
    if (!g)
        return SL_OK;
    unsigned long long h[SL_NBODY_N_REASONS];
    NB_TRY(cudaMemcpy(h, g->counts, sizeof h, cudaMemcpyDeviceToHost), "reading the counters");
    for (int r = 0; r < SL_NBODY_N_REASONS; r++)
        counts[r] = (uint64_t)h[r];
    return SL_OK;
}

extern "C" void sl_nbody_cuda_release(sl_nbody_ctx *c)
{
    nb_dev *g = (nb_dev *)c->cuda;
    if (!g)
        return;
    int prev = -1;
    cudaGetDevice(&prev);
    cudaSetDevice(g->device);
    sl_dev_free(g->data), sl_dev_free(g->inst), sl_dev_free(g->counts);
    sl_dev_free(g->params), sl_dev_free(g->out);
    if (g->k0)
        cudaEventDestroy(g->k0);
    if (g->k1)
        cudaEventDestroy(g->k1);
    if (prev >= 0)
        cudaSetDevice(prev);
    free(g);
    c->cuda = NULL;
}
