/* kepler_rv's device code, shared by its plain kernels (kepler_rv_cuda.cu)
 * and the DE-MCMC half-generations fused into them (kepler_rv_fused.cu):
 * the kernels' arguments and one model's ln L over its lanes. */
#ifndef SL_KRV_CUDA_H
#define SL_KRV_CUDA_H

#include <cuda_runtime.h>

#include "kepler_rv.h"
#include "starling/cuda_nbodies.h"
#include "starling/hd.h" /* SL_CAT */

/* The planet counts with kernels of their own, the loop over planets
 * unrolled: n_pl planets and the star are n_pl + 1 bodies, so those whose
 * n_pl + 1 is in the build's SL_CUDA_NBODIES (CMake; all of 1..8 by
 * default, 2, 4, 7 and 8 in CI). The other counts run on the kernel for
 * any n_pl, whose model code is the same with n_pl read at run time:
 * KRV_PL_<n> names the kernel that n planets run on. */
#define KRV_PL_1 KRV_PL_(SL_CUDA_N_2, 1)
#define KRV_PL_2 KRV_PL_(SL_CUDA_N_3, 2)
#define KRV_PL_3 KRV_PL_(SL_CUDA_N_4, 3)
#define KRV_PL_4 KRV_PL_(SL_CUDA_N_5, 4)
#define KRV_PL_5 KRV_PL_(SL_CUDA_N_6, 5)
#define KRV_PL_6 KRV_PL_(SL_CUDA_N_7, 6)
#define KRV_PL_7 KRV_PL_(SL_CUDA_N_8, 7)
#define KRV_PL_8 KRV_PL_(SL_CUDA_N_9, 8)
#define KRV_PL_(HAS, N) KRV_PL__(HAS, N)
#define KRV_PL__(HAS, N) KRV_HAS_##HAS(N)
#define KRV_HAS_0(N) n
#define KRV_HAS_1(N) N
/* KRV_KERNEL_NAME(krv_dm_, 3, _4): the kernel that 3 planets run on */
#define KRV_KERNEL_NAME(stem, NPL, tail) SL_CAT(SL_CAT(stem, KRV_PL_##NPL), tail)
/* A table row of kernels by n_pl, [0] the kernel for any n_pl: stem S
 * (krv_dm_) and lane-count tail T (_4) */
#define KRV_PL_TABLE(S, T)                                                                 \
    {SL_CAT(SL_CAT(S, n), T), KRV_KERNEL_NAME(S, 1, T), KRV_KERNEL_NAME(S, 2, T),        \
     KRV_KERNEL_NAME(S, 3, T),  KRV_KERNEL_NAME(S, 4, T), KRV_KERNEL_NAME(S, 5, T),        \
     KRV_KERNEL_NAME(S, 6, T),  KRV_KERNEL_NAME(S, 7, T), KRV_KERNEL_NAME(S, 8, T)}

#define KRV_TRY(call, what)                                                                \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess)                                                           \
            return sl_fail(SL_ERR_CUDA, "kepler_rv: %s: %s (%s)", (what),                  \
                           cudaGetErrorString(err_), #call);                               \
    } while (0)

/* Device memory through the core, whose message says how much was needed
 * and how much the device had free. */
#define KRV_ALLOC(ptr, bytes, what)                                                        \
    do {                                                                                   \
        sl_status st_ = sl_dev_alloc((void **)&(ptr), (bytes), "kepler_rv: " what);       \
        if (st_ != SL_OK)                                                                  \
            return st_;                                                                    \
    } while (0)

/* KRV_TPM threads share a model's observations: one thread per model
 * left the H100 a quarter full at the seed's 122,880 models (2,048
 * resident threads on each of 132 SMs), so its throughput was latency-
 * bound; 4 per model fill it. A sampler's half-generation is far smaller
 * (2,048 models: 64 blocks of 4 lanes a model on 132 SMs), so batches too
 * small to fill the device at 4 lanes take KRV_TPM_SMALL, a warp a model. */
enum { KRV_BLOCK = 128, KRV_TPM = 4, KRV_TPM_SMALL = 32, KRV_TILE = 512, KRV_CHUNK = 1 << 16,
       KRV_NSTREAM = 2 };
/* Batches below this many models take KRV_TPM_SMALL lanes: 16,384 models at
 * 4 lanes are half of the H100's resident threads. A constant rather than
 * a fraction of the device's size, so that a batch's lane count, and with it
 * the order in which a model's observations are summed, is the same on
 * every GPU. */
#define KRV_SMALL_BATCH 16384
/* Danby's iteration (with the seed's start) is faster than Markley's
 * solver in these kernels on the H100. */
#ifndef SL_KRV_DEFAULT_GPU_SOLVER
#define SL_KRV_DEFAULT_GPU_SOLVER SL_KRV_DANBY
#endif

typedef struct krv_args {
    const double *params; /* n x n_par */
    int64_t n;
    const int *count; /* NULL, or n in device memory (the device entry) */
    int n_par, n_pl, basis, n_inst, trend;
    double epoch;
    const double *dt, *v, *var;
    const float *vf, *varf;
    int inst_start[SL_RV_MAX_INST + 1];
    double *ll, *chi2;
} krv_args;

/* Models of this thread's block and its lane among the model's tpm. */
#define KRV_MODEL_INDEX                                                                    \
    const int64_t m = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / tpm;              \
    const int lane = (int)(threadIdx.x % tpm)

static __device__ __forceinline__ int krv_load(const krv_args &a, sl_krv_orbit *o,
                                               double *gamma, double *jit2, double *dvdt,
                                               double *curv, int64_t m, int n_pl)
{
    return sl_krv_unpack(a.params + m * a.n_par, n_pl, a.basis, a.n_inst, a.trend, a.epoch, o,
                         gamma, jit2, dvdt, curv);
}

/* The tpm lanes of one model (adjacent in a warp) each sum every tpm-th
 * observation; their partial sums are added here, in a fixed order, so
 * results do not depend on timing (but do, in the last bits, on the lane
 * count, and so on whether the batch is small). Every thread of the warp
 * must arrive. */
static __device__ __forceinline__ double krv_lanes_sum(double x, int tpm)
{
#pragma unroll
    for (int off = 1; off < tpm; off <<= 1)
        x += __shfl_xor_sync(0xffffffffu, x, off);
    return x;
}

/* ln L of model m (row m of a.params) when `ok`, else -inf, on every lane of
 * its tpm, and its chi^2 (INFINITY when not ok). Every thread of the block
 * must arrive (the observations are staged for the block). */
static __device__ __forceinline__ double krv_model_d(const krv_args &a, int n_pl, int solver,
                                                     int tpm, int64_t m, int lane, int ok,
                                                     double *chi2_out)
{
    __shared__ double s_dt[KRV_TILE], s_v[KRV_TILE], s_var[KRV_TILE];
    sl_krv_orbit o[SL_KRV_MAX_PL];
    double gamma[SL_RV_MAX_INST], jit2[SL_RV_MAX_INST];
    sl_krv_extra x;
    ok = ok && krv_load(a, o, gamma, jit2, &x.dvdt, &x.curv, m, n_pl);
    sl_krv_sums s = {0.0, 0.0};
    for (int i = 0; i < a.n_inst; i++) {
        x.gamma = gamma[i], x.jit2 = jit2[i];
        for (int k0 = a.inst_start[i]; k0 < a.inst_start[i + 1]; k0 += KRV_TILE) {
            int nk = min(KRV_TILE, a.inst_start[i + 1] - k0);
            __syncthreads(); /* the previous tile is no longer read */
            for (int k = threadIdx.x; k < nk; k += blockDim.x) {
                s_dt[k] = a.dt[k0 + k], s_v[k] = a.v[k0 + k], s_var[k] = a.var[k0 + k];
            }
            __syncthreads();
            if (ok)
                for (int k = lane; k < nk; k += tpm)
                    sl_krv_obs_ds(n_pl, o, &x, s_dt[k], s_v[k], s_var[k], &s, solver);
        }
    }
    double chi2 = krv_lanes_sum(s.chi2, tpm), lnw = krv_lanes_sum(s.lnw, tpm);
    *chi2_out = ok ? chi2 : INFINITY;
    return ok ? -0.5 * (chi2 + lnw) : -INFINITY;
}

/* Mixed: each lane keeps the seed's float Kahan sums; the lanes' sums
 * (value minus compensation) are added in double. */
static __device__ __forceinline__ double krv_model_f(const krv_args &a, int n_pl, int solver,
                                                     int tpm, int64_t m, int lane, int ok,
                                                     double *chi2_out)
{
    __shared__ double s_dt[KRV_TILE];
    __shared__ float s_v[KRV_TILE], s_var[KRV_TILE];
    sl_krv_orbit o[SL_KRV_MAX_PL];
    sl_krv_orbitf of[SL_KRV_MAX_PL];
    double gamma[SL_RV_MAX_INST], jit2[SL_RV_MAX_INST];
    sl_krv_extra x;
    ok = ok && krv_load(a, o, gamma, jit2, &x.dvdt, &x.curv, m, n_pl);
    for (int j = 0; j < n_pl; j++)
        sl_krv_orbit_to_f(&o[j], &of[j]);
    sl_krv_sumsf s = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < a.n_inst; i++) {
        x.gamma = gamma[i], x.jit2 = jit2[i];
        for (int k0 = a.inst_start[i]; k0 < a.inst_start[i + 1]; k0 += KRV_TILE) {
            int nk = min(KRV_TILE, a.inst_start[i + 1] - k0);
            __syncthreads();
            for (int k = threadIdx.x; k < nk; k += blockDim.x) {
                s_dt[k] = a.dt[k0 + k], s_v[k] = a.vf[k0 + k], s_var[k] = a.varf[k0 + k];
            }
            __syncthreads();
            if (ok)
                for (int k = lane; k < nk; k += tpm)
                    sl_krv_obs_fs(n_pl, of, &x, s_dt[k], s_v[k], s_var[k], &s, solver);
        }
    }
    double chi2 = krv_lanes_sum((double)s.chi2 - (double)s.c_chi2, tpm);
    double lnw = krv_lanes_sum((double)s.lnw - (double)s.c_lnw, tpm);
    *chi2_out = ok ? chi2 : INFINITY;
    return ok ? -0.5 * (chi2 + lnw) : -INFINITY;
}


/* The lanes a model for a batch of (at most) n models. */
static inline int krv_tpm_for(size_t n) { return n < KRV_SMALL_BATCH ? KRV_TPM_SMALL : KRV_TPM; }

/* The device state of c on first use (on the current device) and the
 * kernels' arguments for its data (params, n, count, ll, chi2 unset). */
sl_status sl__krv_cuda_args(sl_krv_ctx *c, krv_args *a);
/* The Kepler solver the kernels use (SL_KRV_SOLVER, or the default). */
int sl__krv_cuda_solver(void);

#endif
