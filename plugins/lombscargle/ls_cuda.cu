/* CUDA backend of the Lomb-Scargle direct sum.
 *
 * Work is a list of tiles, each LS_R * LS_TPB consecutive frequencies of
 * one object, LS_R frequencies per thread (1..8, ls_pick_r) and one block
 * per tile. So a batch is
 * spread over objects and frequencies at once: a batch with one huge object
 * and many tiny ones still fills the GPU, and a single long light curve is
 * simply many tiles of one object. A block stages its object's points
 * (relative time, weight, weight times centred value) through shared memory
 * in chunks, every thread sums over the chunk for its frequencies (one
 * sincospi per point for LS_R frequencies), and the block writes its powers (full output) and
 * its best (power, index). A second small kernel reduces each object's
 * tiles to the object's best, so best-only runs copy back n_obj numbers.
 *
 * FP32: phases are formed and reduced to [-0.5, 0.5] cycles in FP64 (one
 * multiply and one rint per point), trigonometry and sums are FP32, the
 * power formula per frequency is FP64. */
#include <cuda_runtime.h>
#include <cufft.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_internal.h"
#include "starling/backend.h"
#include "starling/copy.h"
#include "starling/nomem.h"

#define LS_TPB 256   /* threads (frequencies) per tile */
#define LS_CHUNK 512 /* points staged in shared memory at a time */

#define LS_TRY(call, what)                                                                 \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            st = sl_fail(SL_ERR_CUDA, "lombscargle: %s: %s (%s)", (what),                  \
                         cudaGetErrorString(e_), #call);                                   \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

/* Device memory through the core, whose message says how much was needed
 * and how much the device had free. */
#define LS_ALLOC(ptr, bytes, what)                                                         \
    do {                                                                                   \
        if ((st = sl_dev_alloc((void **)&(ptr), (bytes), "lombscargle: " what)) != SL_OK) \
            goto done;                                                                     \
    } while (0)

/* Block-wide best (power, index): warp shuffles, then one warp over the
 * warps' results. Only thread 0's return value is meaningful. */
__device__ static void ls_block_best(double p, long long k, double *bp, long long *bk)
{
    __shared__ double sp[LS_TPB / 32];
    __shared__ long long sk[LS_TPB / 32];
    for (int off = 16; off > 0; off >>= 1) {
        double op = __shfl_down_sync(0xffffffffu, p, off);
        long long ok = __shfl_down_sync(0xffffffffu, k, off);
        if (ok >= 0 && sl_ls_better(op, ok, p, k))
            p = op, k = ok;
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        sp[warp] = p, sk[warp] = k;
    __syncthreads();
    if (warp == 0) {
        p = lane < LS_TPB / 32 ? sp[lane] : (double)NAN;
        k = lane < LS_TPB / 32 ? sk[lane] : -1;
        for (int off = 16; off > 0; off >>= 1) {
            double op = __shfl_down_sync(0xffffffffu, p, off);
            long long ok = __shfl_down_sync(0xffffffffu, k, off);
            if (ok >= 0 && sl_ls_better(op, ok, p, k))
                p = op, k = ok;
        }
        if (lane == 0)
            *bp = p, *bk = k;
    }
}

/* One kernel per precision, stamped from one body: REAL is the type of the
 * weights, trigonometry and sums; SINCOS2PI the matching sincos of 2 pi r.
 *
 * A tile is LS_R * LS_TPB frequencies: thread x takes k0 + x + r LS_TPB for
 * r = 0 .. LS_R-1, so each store is coalesced. Per point, the thread does
 * one sincos at its first frequency and then LS_R-1 complex rotations by
 * the phase step LS_TPB df t_j, whose cos/sin the block computes once per
 * point while staging it (as the CPU loop does, ls_cpu.c): the trigonometry,
 * which dominated, is spread over LS_R frequencies. The rotation adds about
 * one rounding per step: ~1e-15 after 7 steps in FP64, ~5e-7 in FP32. */
#define LS_KERNEL(NAME, REAL, SINCOS2PI, LS_R)                                                 \
    __global__ void __launch_bounds__(LS_TPB)                                              \
    NAME(const sl_ls_obj *__restrict__ obj, const int *__restrict__ tile_obj,              \
         const long long *__restrict__ tile_k0, const double *__restrict__ t,              \
         const REAL *__restrict__ w, const REAL *__restrict__ wy, int generalised,         \
         int norm, int full, double *__restrict__ pow64, float *__restrict__ pow32,        \
         double *__restrict__ tile_p, long long *__restrict__ tile_k)                      \
    {                                                                                      \
        __shared__ double s_t[LS_CHUNK];                                                   \
        __shared__ REAL s_w[LS_CHUNK], s_wy[LS_CHUNK], s_cd[LS_CHUNK], s_sd[LS_CHUNK];     \
        const sl_ls_obj o = obj[tile_obj[blockIdx.x]];                                     \
        const long long k = tile_k0[blockIdx.x] + threadIdx.x;                             \
        const double f = o.f0 + (double)k * o.df, step = (double)LS_TPB * o.df;           \
        REAL C[LS_R], S[LS_R], YC[LS_R], YS[LS_R], CC[LS_R], SS[LS_R], CS[LS_R];           \
        _Pragma("unroll") for (int r = 0; r < LS_R; r++)                                   \
            C[r] = S[r] = YC[r] = YS[r] = CC[r] = SS[r] = CS[r] = 0;                       \
        for (long long j0 = 0; j0 < o.n; j0 += LS_CHUNK) {                                 \
            int nj = o.n - j0 < LS_CHUNK ? (int)(o.n - j0) : LS_CHUNK;                     \
            __syncthreads();                                                               \
            for (int i = threadIdx.x; i < nj; i += LS_TPB) {                               \
                double ti = t[o.first + j0 + i];                                           \
                REAL sd, cd;                                                               \
                SINCOS2PI((REAL)sl_ls_cycles(step, ti), &sd, &cd);                         \
                s_t[i] = ti;                                                               \
                s_w[i] = w[o.first + j0 + i];                                              \
                s_wy[i] = wy[o.first + j0 + i];                                            \
                s_cd[i] = cd;                                                              \
                s_sd[i] = sd;                                                              \
            }                                                                              \
            __syncthreads();                                                               \
            for (int i = 0; i < nj; i++) {                                                 \
                REAL s, c;                                                                 \
                SINCOS2PI((REAL)sl_ls_cycles(f, s_t[i]), &s, &c);                          \
                const REAL wi = s_w[i], wyi = s_wy[i], cd = s_cd[i], sd = s_sd[i];         \
                _Pragma("unroll") for (int r = 0; r < LS_R; r++) {                         \
                    REAL wc = wi * c, ws = wi * s;                                         \
                    C[r] += wc;                                                            \
                    S[r] += ws;                                                            \
                    YC[r] += wyi * c;                                                      \
                    YS[r] += wyi * s;                                                      \
                    CC[r] += wc * c;                                                       \
                    SS[r] += ws * s;                                                       \
                    CS[r] += wc * s;                                                       \
                    if (r + 1 < LS_R) {                                                    \
                        REAL cn = c * cd - s * sd;                                         \
                        s = s * cd + c * sd;                                               \
                        c = cn;                                                            \
                    }                                                                      \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
        double bp = (double)NAN;                                                           \
        long long bk = -1;                                                                 \
        _Pragma("unroll") for (int r = 0; r < LS_R; r++) {                                 \
            const long long kr = k + (long long)r * LS_TPB;                                \
            if (kr >= o.n_f)                                                               \
                break;                                                                     \
            sl_ls_sums m = {C[r], S[r], YC[r], YS[r], CC[r], SS[r], CS[r]};                \
            double p = sl_ls_power(&m, &o, generalised, norm);                             \
            if (full) {                                                                    \
                if (pow32)                                                                 \
                    pow32[o.out + kr] = (float)p;                                          \
                else                                                                       \
                    pow64[o.out + kr] = p;                                                 \
            }                                                                              \
            if (sl_ls_better(p, kr, bp, bk))                                               \
                bp = p, bk = kr;                                                           \
        }                                                                                  \
        ls_block_best(bp, bk, &tile_p[blockIdx.x], &tile_k[blockIdx.x]);                   \
    }

__device__ static void ls_sincos2pi_d(double r, double *s, double *c) { sincospi(2.0 * r, s, c); }
__device__ static void ls_sincos2pi_f(float r, float *s, float *c) { sincospif(2.0f * r, s, c); }

LS_KERNEL(ls_sums_fp64_r1, double, ls_sincos2pi_d, 1)
LS_KERNEL(ls_sums_fp64_r2, double, ls_sincos2pi_d, 2)
LS_KERNEL(ls_sums_fp64_r4, double, ls_sincos2pi_d, 4)
LS_KERNEL(ls_sums_fp64_r8, double, ls_sincos2pi_d, 8)
LS_KERNEL(ls_sums_fp32_r1, float, ls_sincos2pi_f, 1)
LS_KERNEL(ls_sums_fp32_r2, float, ls_sincos2pi_f, 2)
LS_KERNEL(ls_sums_fp32_r4, float, ls_sincos2pi_f, 4)
LS_KERNEL(ls_sums_fp32_r8, float, ls_sincos2pi_f, 8)

typedef void (*ls_sums_fp64_fn)(const sl_ls_obj *, const int *, const long long *,
                                const double *, const double *, const double *, int, int, int,
                                double *, float *, double *, long long *);
typedef void (*ls_sums_fp32_fn)(const sl_ls_obj *, const int *, const long long *,
                                const double *, const float *, const float *, int, int, int,
                                double *, float *, double *, long long *);
static const ls_sums_fp64_fn ls_fp64[4] = {ls_sums_fp64_r1, ls_sums_fp64_r2, ls_sums_fp64_r4,
                                           ls_sums_fp64_r8};
static const ls_sums_fp32_fn ls_fp32[4] = {ls_sums_fp32_r1, ls_sums_fp32_r2, ls_sums_fp32_r4,
                                           ls_sums_fp32_r8};

/* Each object's best over its tiles (contiguous, in frequency order). */
__global__ void ls_best_per_object(int n_obj, const long long *__restrict__ first_tile,
                                   const double *__restrict__ tile_p,
                                   const long long *__restrict__ tile_k,
                                   double *__restrict__ best_p, long long *__restrict__ best_k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_obj)
        return;
    double bp = (double)NAN;
    long long bk = -1;
    for (long long q = first_tile[i]; q < first_tile[i + 1]; q++)
        if (tile_k[q] >= 0 && sl_ls_better(tile_p[q], tile_k[q], bp, bk))
            bp = tile_p[q], bk = tile_k[q];
    best_p[i] = bp;
    best_k[i] = bk;
}

/* Full periodograms to pageable host memory, as in the seed: three
 * streams each copying 8 MiB chunks into its own pinned buffer, and while
 * the other streams' copies run, the host moves a finished chunk on into
 * the result with all cores (sl_copy_parallel). A plain cudaMemcpy to
 * pageable memory goes through the driver's own small staging buffer on
 * one core. The pinned buffers are made once and kept for the process
 * (pinning costs milliseconds per call otherwise); a lock keeps them to
 * one caller at a time. */
#define LS_NSTREAM 3
#define LS_STAGE ((size_t)8 << 20)

static pthread_mutex_t ls_stage_lock = PTHREAD_MUTEX_INITIALIZER;
static void *ls_pin[LS_NSTREAM];
static cudaStream_t ls_stream[LS_NSTREAM];

static sl_status staged_setup(void)
{
    sl_status st = SL_OK;
    for (int b = 0; b < LS_NSTREAM; b++) {
        if (!ls_stream[b])
            LS_TRY(cudaStreamCreateWithFlags(&ls_stream[b], cudaStreamNonBlocking),
                   "creating a copy stream");
        if (!ls_pin[b])
            LS_TRY(cudaHostAlloc(&ls_pin[b], LS_STAGE, cudaHostAllocDefault),
                   "allocating 8 MiB of pinned staging memory");
    }
done:
    return st;
}

static sl_status staged_download(void *dst, const void *src, size_t bytes)
{
    sl_status st = SL_OK;
    size_t at[LS_NSTREAM], len[LS_NSTREAM];
    int busy[LS_NSTREAM] = {0};
    pthread_mutex_lock(&ls_stage_lock);
    if ((st = staged_setup()))
        goto done;
    for (size_t off = 0, c = 0; off < bytes; off += LS_STAGE, c++) {
        int b = (int)(c % LS_NSTREAM);
        if (busy[b]) {
            LS_TRY(cudaStreamSynchronize(ls_stream[b]), "copying periodograms (staged)");
            sl_copy_parallel((char *)dst + at[b], ls_pin[b], len[b]);
        }
        at[b] = off;
        len[b] = bytes - off < LS_STAGE ? bytes - off : LS_STAGE;
        busy[b] = 1;
        LS_TRY(cudaMemcpyAsync(ls_pin[b], (const char *)src + off, len[b],
                               cudaMemcpyDeviceToHost, ls_stream[b]),
               "queueing a periodogram chunk");
    }
    for (int b = 0; b < LS_NSTREAM; b++)
        if (busy[b]) {
            LS_TRY(cudaStreamSynchronize(ls_stream[b]), "copying periodograms (staged)");
            sl_copy_parallel((char *)dst + at[b], ls_pin[b], len[b]);
        }
done:
    pthread_mutex_unlock(&ls_stage_lock);
    return st;
}

extern "C" void sl_ls_cuda_free(void *device_ptr) { cudaFree(device_ptr); }

/* ---- the fast engine on the GPU: Press & Rybicki with cuFFT -------------------
 *
 * The same method as ls_fast.c (see there): each point is spread onto the
 * sl_ls_fast_order nearest cells of a regular grid (atomic adds, one thread per
 * point), one inverse FFT per trigonometric sum, then the shared power
 * formula per frequency. cuFFT is loaded with dlopen when first needed:
 * linking it would make every CUDA build carry its ~290 MB library, while
 * a machine with a CUDA toolkit has it already (SL_CUFFT_LIB names another
 * file). */
typedef cufftResult (*ls_plan1d_fn)(cufftHandle *, int, cufftType, int);
typedef cufftResult (*ls_execz2z_fn)(cufftHandle, cufftDoubleComplex *, cufftDoubleComplex *,
                                     int);
typedef cufftResult (*ls_destroy_fn)(cufftHandle);
static ls_plan1d_fn ls_cufft_plan1d;
static ls_execz2z_fn ls_cufft_exec;
static ls_destroy_fn ls_cufft_destroy;
static pthread_once_t ls_cufft_once = PTHREAD_ONCE_INIT;

static void ls_cufft_load(void)
{
    const char *env = getenv("SL_CUFFT_LIB");
    const char *names[] = {env, "libcufft.so.12", "libcufft.so.13", "libcufft.so",
                           "/usr/local/cuda/lib64/libcufft.so.12",
                           "/usr/local/cuda/lib64/libcufft.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!names[i])
            continue;
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h)
            continue;
        ls_cufft_plan1d = (ls_plan1d_fn)dlsym(h, "cufftPlan1d");
        ls_cufft_exec = (ls_execz2z_fn)dlsym(h, "cufftExecZ2Z");
        ls_cufft_destroy = (ls_destroy_fn)dlsym(h, "cufftDestroy");
        if (ls_cufft_plan1d && ls_cufft_exec && ls_cufft_destroy)
            return;
        ls_cufft_plan1d = NULL;
    }
}

__global__ void ls_extirpolate(const double *__restrict__ t, const double *__restrict__ h,
                               long long n, double f0, double df, long long nfft, int m,
                               double2 *__restrict__ g)
{
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    double s, c, r = df * t[j];
    sl_ls_sincos2pi(sl_ls_cycles(f0, t[j]), &s, &c);
    double x = (double)nfft * (r - floor(r));
    long long lo = (long long)floor(x) - m / 2 + 1;
    for (int l = 0; l < m; l++) {
        double num = 1.0, den = 1.0;
        for (int q = 0; q < m; q++)
            if (q != l) {
                num *= x - (double)(lo + q);
                den *= (double)(l - q);
            }
        long long at = ((lo + l) % nfft + nfft) % nfft;
        double wgt = h[j] * num / den;
        atomicAdd(&g[at].x, wgt * c);
        atomicAdd(&g[at].y, wgt * s);
    }
}

__global__ void __launch_bounds__(LS_TPB)
ls_fast_power(const double2 *__restrict__ T1, const double2 *__restrict__ TY,
              const double2 *__restrict__ T2, double W, sl_ls_obj o, int generalised, int norm,
              int full, double *__restrict__ pow64, float *__restrict__ pow32,
              double *__restrict__ tile_p, long long *__restrict__ tile_k)
{
    const long long k = (long long)blockIdx.x * LS_TPB + threadIdx.x;
    const int active = k < o.n_f;
    double p = (double)NAN;
    if (active) {
        sl_ls_sums m;
        m.C = generalised ? T1[k].x : 0.0;
        m.S = generalised ? T1[k].y : 0.0;
        m.YC = TY[k].x, m.YS = TY[k].y;
        m.CC = 0.5 * (W + T2[k].x), m.SS = 0.5 * (W - T2[k].x), m.CS = 0.5 * T2[k].y;
        p = sl_ls_power(&m, &o, generalised, norm);
        if (full) {
            if (pow32)
                pow32[o.out + k] = (float)p;
            else
                pow64[o.out + k] = p;
        }
    }
    ls_block_best(p, active ? k : -1, &tile_p[blockIdx.x], &tile_k[blockIdx.x]);
}

/* One fast object: three sums through the FFT, powers into the batch's
 * device output, its best into j->best_p/best_k. */
static sl_status cuda_fast_object(sl_ls_job *j, int64_t i, double *d_p64, float *d_p32)
{
    sl_status st = SL_OK;
    const sl_ls_obj *o = &j->obj[i];
    long long nfft = (long long)sl_ls_fast_size(o->n_f, j->fast_oversampling);
    const int order = sl_ls_fast_order(j, o); /* the CPU engine's choice, same grid */
    long long n = o->n, n_tiles = (o->n_f + LS_TPB - 1) / LS_TPB;
    double *d_t = NULL, *d_w = NULL, *d_wy = NULL, *d_tp = NULL, *h_tp = NULL;
    long long *d_tk = NULL, *h_tk = NULL;
    double2 *d_g = NULL, *d_T = NULL;
    cufftHandle plan = 0;
    int have_plan = 0;
    double W = 0.0;
    if (nfft > 0x7fffffffLL)
        return sl_fail(SL_ERR_ARG, "lombscargle: fast engine: FFT of %lld points exceeds cuFFT's "
                       "int plans (lower n_f or fast_oversampling)", nfft);
    pthread_once(&ls_cufft_once, ls_cufft_load);
    if (!ls_cufft_plan1d)
        return sl_fail(SL_ERR_NODEVICE, "lombscargle: engine \"fast\" on the GPU needs cuFFT "
                       "(libcufft.so.12 not found; set SL_CUFFT_LIB to its path)");
    for (long long q = 0; q < n; q++)
        W += j->w[o->first + q];
    h_tp = (double *)malloc((size_t)n_tiles * sizeof *h_tp);
    h_tk = (long long *)malloc((size_t)n_tiles * sizeof *h_tk);
    if (!h_tp || !h_tk) {
        st = sl_fail_nomem((double)n_tiles * (sizeof *h_tp + sizeof *h_tk),
                           "lombscargle: fast engine: maxima of %lld tiles", n_tiles);
        goto done;
    }
    LS_ALLOC(d_t, (size_t)n * sizeof(double), "fast engine: times");
    LS_ALLOC(d_w, (size_t)n * sizeof(double), "fast engine: weights");
    LS_ALLOC(d_wy, (size_t)n * sizeof(double), "fast engine: values");
    LS_ALLOC(d_g, (size_t)nfft * sizeof(double2), "fast engine: FFT grid");
    LS_ALLOC(d_T, (size_t)o->n_f * 3 * sizeof(double2), "fast engine: sums");
    LS_ALLOC(d_tp, (size_t)n_tiles * sizeof(double), "fast engine: maxima");
    LS_ALLOC(d_tk, (size_t)n_tiles * sizeof(long long), "fast engine: maxima");
    LS_TRY(cudaMemcpy(d_t, j->t + o->first, (size_t)n * sizeof(double), cudaMemcpyHostToDevice),
           "fast engine: uploading times");
    LS_TRY(cudaMemcpy(d_w, j->w + o->first, (size_t)n * sizeof(double), cudaMemcpyHostToDevice),
           "fast engine: uploading weights");
    LS_TRY(cudaMemcpy(d_wy, j->wy + o->first, (size_t)n * sizeof(double), cudaMemcpyHostToDevice),
           "fast engine: uploading values");
    if (ls_cufft_plan1d(&plan, (int)nfft, CUFFT_Z2Z, 1) != CUFFT_SUCCESS) {
        st = sl_fail(SL_ERR_CUDA, "lombscargle: fast engine: cuFFT plan of %lld points", nfft);
        goto done;
    }
    have_plan = 1;
    for (int sum = 0; sum < 3; sum++) { /* 0: w y at f, 1: w at 2f, 2: w at f */
        if (sum == 2 && !j->generalised)
            break;
        int ff = sum == 1 ? 2 : 1;
        LS_TRY(cudaMemset(d_g, 0, (size_t)nfft * sizeof(double2)), "fast engine: clearing");
        ls_extirpolate<<<(unsigned)((n + 255) / 256), 256>>>(
            d_t, sum == 0 ? d_wy : d_w, n, ff * o->f0, ff * o->df, nfft, order, d_g);
        LS_TRY(cudaGetLastError(), "fast engine: launching the extirpolation");
        if (ls_cufft_exec(plan, (cufftDoubleComplex *)d_g, (cufftDoubleComplex *)d_g,
                          CUFFT_INVERSE) != CUFFT_SUCCESS) {
            st = sl_fail(SL_ERR_CUDA, "lombscargle: fast engine: cuFFT of %lld points", nfft);
            goto done;
        }
        double2 *dst = d_T + (sum == 0 ? 1 : sum == 1 ? 2 : 0) * o->n_f;
        LS_TRY(cudaMemcpy(dst, d_g, (size_t)o->n_f * sizeof(double2), cudaMemcpyDeviceToDevice),
               "fast engine: keeping a sum");
    }
    ls_fast_power<<<(unsigned)n_tiles, LS_TPB>>>(d_T, d_T + o->n_f, d_T + 2 * o->n_f, W, *o,
                                                 j->generalised, j->norm, j->full, d_p64, d_p32,
                                                 d_tp, d_tk);
    LS_TRY(cudaGetLastError(), "fast engine: launching the power kernel");
    LS_TRY(cudaMemcpy(h_tp, d_tp, (size_t)n_tiles * sizeof(double), cudaMemcpyDeviceToHost),
           "fast engine: downloading maxima");
    LS_TRY(cudaMemcpy(h_tk, d_tk, (size_t)n_tiles * sizeof(long long), cudaMemcpyDeviceToHost),
           "fast engine: downloading maxima");
    j->best_p[i] = NAN, j->best_k[i] = -1;
    for (long long q = 0; q < n_tiles; q++)
        if (h_tk[q] >= 0 && sl_ls_better(h_tp[q], h_tk[q], j->best_p[i], j->best_k[i]))
            j->best_p[i] = h_tp[q], j->best_k[i] = h_tk[q];
done:
    if (have_plan)
        ls_cufft_destroy(plan);
    cudaFree(d_t), cudaFree(d_w), cudaFree(d_wy), cudaFree(d_g), cudaFree(d_T);
    cudaFree(d_tp), cudaFree(d_tk);
    free(h_tp), free(h_tk);
    return st;
}

/* ---- the direct sums' host side ---------------------------------------------
 *
 * Everything a call sends (objects, tile list, points) is packed into one
 * pinned buffer and goes up in one copy; the best (power, index) per object
 * comes back in another. Device and pinned buffers are kept between calls
 * and only grow (cudaMalloc, cudaFree and pinning each cost a sizeable
 * fraction of a small batch's time); above LS_KEEP_MAX they are released
 * after the call instead, so one huge run does not hold memory for the
 * process's life. One caller at a time (ls_ws_lock). */
#define LS_KEEP_MAX ((size_t)1 << 30)

typedef struct ls_ws {
    void *dev, *pin;
    size_t dev_cap, pin_cap;
} ls_ws;

static pthread_mutex_t ls_ws_lock = PTHREAD_MUTEX_INITIALIZER;
static ls_ws ls_work;

static sl_status ws_reserve(ls_ws *w, size_t dev_bytes, size_t pin_bytes)
{
    sl_status st = SL_OK;
    if (dev_bytes > w->dev_cap) {
        cudaFree(w->dev);
        w->dev = NULL, w->dev_cap = 0;
        LS_ALLOC(w->dev, dev_bytes, "allocating the device work space");
        w->dev_cap = dev_bytes;
    }
    if (pin_bytes > w->pin_cap) {
        cudaFreeHost(w->pin);
        w->pin = NULL, w->pin_cap = 0;
        LS_TRY(cudaHostAlloc(&w->pin, pin_bytes, cudaHostAllocDefault),
               "allocating pinned staging memory");
        w->pin_cap = pin_bytes;
    }
done:
    return st;
}

static void ws_trim(ls_ws *w)
{
    if (w->dev_cap > LS_KEEP_MAX)
        cudaFree(w->dev), w->dev = NULL, w->dev_cap = 0;
    if (w->pin_cap > LS_KEEP_MAX)
        cudaFreeHost(w->pin), w->pin = NULL, w->pin_cap = 0;
}

/* Byte offsets of the packed arrays; the upload is [0, up), the download
 * [down, end). */
typedef struct ls_layout {
    size_t obj, tobj, tk0, first, t, w, wy, up, tp, tk, bp, bk, down, end;
} ls_layout;

static size_t ls_align(size_t x) { return (x + 255) & ~(size_t)255; }

static ls_layout ls_plan(long long n_obj, long long n_tiles, long long n_pts, size_t rsz)
{
    ls_layout L;
    size_t at = 0;
#define LS_PUT(field, bytes) (L.field = at, at = ls_align(at + (size_t)(bytes)))
    LS_PUT(obj, n_obj * sizeof(sl_ls_obj));
    LS_PUT(tobj, n_tiles * sizeof(int));
    LS_PUT(tk0, n_tiles * sizeof(long long));
    LS_PUT(first, (n_obj + 1) * sizeof(long long));
    LS_PUT(t, n_pts * sizeof(double));
    LS_PUT(w, n_pts * rsz);
    LS_PUT(wy, n_pts * rsz);
    L.up = at;
    LS_PUT(tp, n_tiles * sizeof(double));
    LS_PUT(tk, n_tiles * sizeof(long long));
    L.down = at;
    LS_PUT(bp, n_obj * sizeof(double));
    LS_PUT(bk, n_obj * sizeof(long long));
#undef LS_PUT
    L.end = at;
    return L;
}

/* Objects, tiles and points into the staging buffer (pinned). */
static void ls_pack(const sl_ls_job *j, const ls_layout *L, long long tile, char *h)
{
    const size_t rsz = j->fp32 ? sizeof(float) : sizeof(double);
    int *tobj = (int *)(h + L->tobj);
    long long *tk0 = (long long *)(h + L->tk0), *first = (long long *)(h + L->first), q = 0;
    memcpy(h + L->obj, j->obj, (size_t)j->n_obj * sizeof(sl_ls_obj));
    for (long long i = 0; i < j->n_obj; i++) {
        first[i] = q;
        for (long long k = 0; !j->obj[i].fast && k < j->obj[i].n_f; k += tile, q++)
            tobj[q] = (int)i, tk0[q] = k;
    }
    first[j->n_obj] = q;
    sl_copy_parallel(h + L->t, j->t, (size_t)j->n_pts * sizeof(double));
    sl_copy_parallel(h + L->w, j->fp32 ? (const void *)j->wf : (const void *)j->w,
                        (size_t)j->n_pts * rsz);
    sl_copy_parallel(h + L->wy, j->fp32 ? (const void *)j->wyf : (const void *)j->wy,
                        (size_t)j->n_pts * rsz);
}

/* The full periodograms: on the device for the caller, or down to it. */
static sl_status ls_full_out(sl_ls_job *j, double *d_p64, float *d_p32)
{
    sl_status st = SL_OK;
    size_t rsz = j->fp32 ? sizeof(float) : sizeof(double);
    void *host = j->fp32 ? (void *)j->power32 : (void *)j->power64;
    const void *dev = j->fp32 ? (const void *)d_p32 : (const void *)d_p64;
    size_t bytes = (size_t)j->n_power * rsz;
    if (j->transfer == SL_LS_TRANSFER_PLAIN)
        LS_TRY(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), "downloading periodograms");
    else
        st = staged_download(host, dev, bytes);
done:
    return st;
}

static long long ls_count_tiles(const sl_ls_job *j, long long tile)
{
    long long n = 0;
    for (long long i = 0; i < j->n_obj; i++)
        if (!j->obj[i].fast) /* the fast engine's objects run afterwards (cuFFT) */
            n += (j->obj[i].n_f + tile - 1) / tile;
    return n;
}

/* Frequencies per thread, as log2: the most (fewest sincos) that still
 * gives two blocks per SM; a short grid (one object, 10^4 frequencies)
 * would otherwise run on a few SMs. SL_LS_FREQ_PER_THREAD = 1, 2, 4 or 8
 * forces it (the GPU tests run every variant). */
static int ls_pick_r(const sl_ls_job *j)
{
    const char *force = getenv("SL_LS_FREQ_PER_THREAD");
    if (force && (!strcmp(force, "1") || !strcmp(force, "2") || !strcmp(force, "4") ||
                  !strcmp(force, "8")))
        return force[0] == '1' ? 0 : force[0] == '2' ? 1 : force[0] == '4' ? 2 : 3;
    static int n_sm;
    if (!n_sm) {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&n_sm, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
            n_sm = 132;
    }
    int lr = 3;
    while (lr > 0 && ls_count_tiles(j, (long long)LS_TPB << lr) < 2LL * n_sm)
        lr--;
    return lr;
}

static sl_status ls_run_locked(sl_ls_job *j, ls_ws *ws)
{
    sl_status st = SL_OK;
    const long long n_obj = j->n_obj;
    const int lr = ls_pick_r(j);
    const long long tile = (long long)LS_TPB << lr;
    long long n_tiles = ls_count_tiles(j, tile);
    size_t rsz = j->fp32 ? sizeof(float) : sizeof(double);
    ls_layout L = ls_plan(n_obj, n_tiles, j->n_pts, rsz);
    double *d_p64 = NULL;
    float *d_p32 = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float ms = 0;
    double t0;
    char *dv, *hp;

    if (n_tiles > 0x7fffffffLL)
        return sl_fail(SL_ERR_ARG, "lombscargle: %lld frequency tiles exceed one CUDA launch",
                       n_tiles);
    if ((st = ws_reserve(ws, L.end, L.end)))
        return st;
    dv = (char *)ws->dev, hp = (char *)ws->pin;
    LS_TRY(cudaEventCreate(&e0), "creating an event");
    LS_TRY(cudaEventCreate(&e1), "creating an event");
    if (j->full) {
        size_t n = (size_t)(j->n_power ? j->n_power : 1);
        if (j->fp32)
            LS_ALLOC(d_p32, n * sizeof(float), "periodograms");
        else
            LS_ALLOC(d_p64, n * sizeof(double), "periodograms");
    }
    t0 = sl_ls_now();
    ls_pack(j, &L, tile, hp);
    LS_TRY(cudaMemcpy(dv, hp, L.up, cudaMemcpyHostToDevice), "uploading the light curves");
    j->transfer_s = sl_ls_now() - t0;
    LS_TRY(cudaEventRecord(e0), "recording an event");
    if (n_tiles > 0) {
#define LS_ARGS(REAL)                                                                      \
    (const sl_ls_obj *)(dv + L.obj), (const int *)(dv + L.tobj),                           \
        (const long long *)(dv + L.tk0), (const double *)(dv + L.t),                       \
        (const REAL *)(dv + L.w), (const REAL *)(dv + L.wy), j->generalised, j->norm,      \
        j->full, d_p64, d_p32, (double *)(dv + L.tp), (long long *)(dv + L.tk)
        if (j->fp32)
            ls_fp32[lr]<<<(unsigned)n_tiles, LS_TPB>>>(LS_ARGS(float));
        else
            ls_fp64[lr]<<<(unsigned)n_tiles, LS_TPB>>>(LS_ARGS(double));
#undef LS_ARGS
        LS_TRY(cudaGetLastError(), "launching the periodogram kernel");
    }
    ls_best_per_object<<<(unsigned)((n_obj + 127) / 128), 128>>>(
        (int)n_obj, (const long long *)(dv + L.first), (const double *)(dv + L.tp),
        (const long long *)(dv + L.tk), (double *)(dv + L.bp), (long long *)(dv + L.bk));
    LS_TRY(cudaGetLastError(), "launching the best-frequency kernel");
    LS_TRY(cudaEventRecord(e1), "recording an event");
    LS_TRY(cudaEventSynchronize(e1), "running the periodogram kernels");
    t0 = sl_ls_now();
    LS_TRY(cudaMemcpy(hp + L.down, dv + L.down, L.end - L.down, cudaMemcpyDeviceToHost),
           "downloading best powers");
    j->transfer_s += sl_ls_now() - t0;
    LS_TRY(cudaEventElapsedTime(&ms, e0, e1), "timing");
    j->kernel_s = 1e-3 * (double)ms;
    memcpy(j->best_p, hp + L.bp, (size_t)n_obj * sizeof(double));
    for (long long i = 0; i < n_obj; i++)
        j->best_k[i] = ((const long long *)(hp + L.bk))[i];
    {
        int any = 0;
        for (long long i = 0; i < n_obj; i++)
            any |= j->obj[i].fast && !j->obj[i].flag;
        if (any) {
            LS_TRY(cudaEventRecord(e0), "recording an event");
            for (long long i = 0; i < n_obj; i++)
                if (j->obj[i].fast && !j->obj[i].flag &&
                    (st = cuda_fast_object(j, i, d_p64, d_p32)))
                    goto done;
            LS_TRY(cudaEventRecord(e1), "recording an event");
            LS_TRY(cudaEventSynchronize(e1), "running the fast engine");
            LS_TRY(cudaEventElapsedTime(&ms, e0, e1), "timing");
            j->kernel_s += 1e-3 * (double)ms;
        }
    }
    if (j->full && j->transfer == SL_LS_TRANSFER_DEVICE) {
        /* the caller keeps them (result.device_power) */
        j->device_power = j->fp32 ? (void *)d_p32 : (void *)d_p64;
        d_p32 = NULL, d_p64 = NULL;
    } else if (j->full && j->n_power > 0) {
        t0 = sl_ls_now();
        if ((st = ls_full_out(j, d_p64, d_p32)))
            goto done;
        j->transfer_s += sl_ls_now() - t0;
    }
done:
    cudaFree(d_p64), cudaFree(d_p32);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    return st;
}

extern "C" sl_status sl_ls_cuda_run(sl_ls_job *j)
{
    pthread_mutex_lock(&ls_ws_lock);
    sl_status st = ls_run_locked(j, &ls_work);
    ws_trim(&ls_work);
    pthread_mutex_unlock(&ls_ws_lock);
    return st;
}
