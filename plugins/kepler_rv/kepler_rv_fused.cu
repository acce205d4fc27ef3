/* kepler_rv's DE-MCMC half-generations (likelihood.h demcmc_half_device):
 * the plain kernels' model code (krv_cuda.h) between the sampler's
 * proposal and decision (starling/demcmc_fused.h), one launch a
 * half-generation. A chain's group of lanes is the model's: the lane
 * count is chosen by the half's size exactly as the device entry chooses
 * it for a batch of that size, so ln L of every proposal is the device
 * entry's, bit for bit, and a fused run's chains are the unfused run's. */
#include "krv_cuda.h"
#include "starling/demcmc_fused.h"

#define KRV_FUSED(P, SV, SOLVER, N, NPL, TPM)                                              \
    __global__ void __launch_bounds__(KRV_BLOCK)                                           \
        krv_half_##P##SV##_##N##_##TPM(krv_args a, sl_dm_half h)                           \
    {                                                                                      \
        const int64_t t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / TPM;          \
        const int lane = (int)(threadIdx.x % TPM);                                         \
        sl_dm_pending p = {0.0, 0.0, 0.0, 0.0, 0.0};                                       \
        double chi2;                                                                       \
        int in = sl_dm_group_propose(&h, t, lane, TPM, &p);                                \
        a.params = h.rows, a.n = h.n;                                                      \
        double ll = krv_model_##P(a, NPL, SOLVER, TPM, t, lane, in, &chi2);                \
        sl_dm_group_decide(&h, t, lane, TPM, in, &p, ll);                                  \
    }
#define KRV_FUSED_T(N, NPL, TPM)                                                           \
    KRV_FUSED(d, m, SL_KRV_MARKLEY, N, NPL, TPM)                                           \
    KRV_FUSED(d, d, SL_KRV_DANBY, N, NPL, TPM)                                             \
    KRV_FUSED(f, m, SL_KRV_MARKLEY, N, NPL, TPM)                                           \
    KRV_FUSED(f, d, SL_KRV_DANBY, N, NPL, TPM)
#define KRV_FUSED_N(N, NPL) KRV_FUSED_T(N, NPL, 4) KRV_FUSED_T(N, NPL, 32)
#if SL_CUDA_N_2
KRV_FUSED_N(1, 1)
#endif
#if SL_CUDA_N_3
KRV_FUSED_N(2, 2)
#endif
#if SL_CUDA_N_4
KRV_FUSED_N(3, 3)
#endif
#if SL_CUDA_N_5
KRV_FUSED_N(4, 4)
#endif
#if SL_CUDA_N_6
KRV_FUSED_N(5, 5)
#endif
#if SL_CUDA_N_7
KRV_FUSED_N(6, 6)
#endif
#if SL_CUDA_N_8
KRV_FUSED_N(7, 7)
#endif
#if SL_CUDA_N_9
KRV_FUSED_N(8, 8)
#endif
KRV_FUSED_N(n, a.n_pl)

typedef void (*krv_half_kernel)(krv_args, sl_dm_half);
#define KRV_HALF_TABLE(P, SV, T) KRV_PL_TABLE(krv_half_##P##SV##_, _##T)
/* [small][mixed][solver][n_pl, 0 = any], as the plain kernels' table */
static const krv_half_kernel krv_half_kernels[2][2][2][9] = {
    {{KRV_HALF_TABLE(d, m, 4), KRV_HALF_TABLE(d, d, 4)},
     {KRV_HALF_TABLE(f, m, 4), KRV_HALF_TABLE(f, d, 4)}},
    {{KRV_HALF_TABLE(d, m, 32), KRV_HALF_TABLE(d, d, 32)},
     {KRV_HALF_TABLE(f, m, 32), KRV_HALF_TABLE(f, d, 32)}},
};

extern "C" sl_status sl_krv_cuda_demcmc_half(sl_krv_ctx *c, const sl_dm_half *h, void *stream)
{
    if (h->m.D != (int)c->n_par)
        return sl_fail(SL_ERR_ARG, "kepler_rv: a sampler of %d parameters, the model has %zu",
                       h->m.D, c->n_par);
    if (h->n > 0x7fffffff)
        return sl_fail(SL_ERR_UNSUPPORTED, "kepler_rv: %lld chains in a half exceed the CUDA "
                       "kernel's int indices", (long long)h->n);
    krv_args a;
    sl_status st = sl__krv_cuda_args(c, &a);
    if (st != SL_OK || h->n == 0)
        return st;
    size_t n = (size_t)h->n;
    int tpm = krv_tpm_for(n), small = tpm == KRV_TPM_SMALL;
    krv_half_kernel k =
        krv_half_kernels[small][c->mixed ? 1 : 0][sl__krv_cuda_solver()][c->n_pl <= 8 ? c->n_pl : 0];
    unsigned grid = (unsigned)((n * tpm + KRV_BLOCK - 1) / KRV_BLOCK);
    k<<<grid, KRV_BLOCK, 0, (cudaStream_t)stream>>>(a, *h);
    KRV_TRY(cudaGetLastError(), "launching the kepler_rv half-generation kernel");
    c->kernel_s = 0.0;
    return SL_OK;
}
