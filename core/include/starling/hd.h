/* Host+device portability macros: physics is written once as SL_HD C and
 * compiled by the C compiler (CPU backend) and by nvcc (CUDA kernels). */
#ifndef STARLING_HD_H
#define STARLING_HD_H

#if defined(__CUDACC__)
#define SL_HD __host__ __device__
#define SL_INLINE static __forceinline__
#define SL_RESTRICT __restrict__
#define SL_UNROLL _Pragma("unroll")
#define SL_NOUNROLL _Pragma("unroll 1")
#if defined(__CUDA_ARCH__)
#define SL_RSQRT(x) sl_rsqrt_device(x)
#else
#define SL_RSQRT(x) (1.0 / sqrt(x))
#endif
#else
#define SL_HD
#define SL_INLINE static inline __attribute__((always_inline))
#define SL_RESTRICT restrict
/* Trip counts are literals once the per-N specialisation is inlined; the
 * pragma asks GCC to unroll those loops completely. */
#define SL_UNROLL _Pragma("GCC unroll 64")
/* Loops that run rarely and whose copies would only cost compile time. */
#define SL_NOUNROLL _Pragma("GCC unroll 1")
#define SL_RSQRT(x) (1.0 / sqrt(x))
#endif

/* A product that is never fused with the add after it (FMA contraction),
 * for device code that must give the host's bits: nvcc contracts a * b + c
 * by default, the host compiler (ISO C11) does not. The samplers' moves
 * (demcmc_move.h) and the priors use it, so that a generation fused into
 * a plugin's kernel draws what the host sampler draws. */
#if defined(__CUDA_ARCH__)
#define SL_DMUL(a, b) __dmul_rn((a), (b))
#else
#define SL_DMUL(a, b) ((a) * (b))
#endif

/* 1 / sqrt(x) on the device for x > 0 normal: CUDA's rsqrt without its
 * branch to the special cases (0, infinities, subnormals, negatives), whose
 * reconvergence barrier kept the compiler from overlapping one body pair's
 * arithmetic with the next. The same instructions as rsqrt's fast path, so
 * the same bits for every normal x; for x = 0 it gives NaN where rsqrt
 * gives infinity (two bodies at one point: the pull is 0 * inf = NaN
 * either way), and the monitors' non-finite check stops the system. */
#if defined(__CUDA_ARCH__)
static __device__ __forceinline__ double sl_rsqrt_device(double x)
{
    double y;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    const double e = fma(-x, y * y, 1.0);
    return fma(fma(e, 0.375, 0.5), y * e, y);
}
#endif

#ifdef __cplusplus
#define SL_EXTERN_C_BEGIN extern "C" {
#define SL_EXTERN_C_END }
#else
#define SL_EXTERN_C_BEGIN
#define SL_EXTERN_C_END
#endif

/* A compile-time check, in C and under nvcc (C++) alike. */
#if defined(__cplusplus)
#define SL_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define SL_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#define SL_CAT_(a, b) a##b
#define SL_CAT(a, b) SL_CAT_(a, b)
#define SL_STR_(a) #a
#define SL_STR(a) SL_STR_(a)

/* SL_OPT_FLAG(X): 1 when X is a macro defined as 1, else 0 (X undefined or
 * 0), as a literal for SL_CAT. For optional constants of the kernel
 * contract (SL_PROP_<P>_BODYWISE, SL_FORCE_<F>_AT): a plugin written before
 * a constant existed compiles unchanged and is taken not to have it.
 * SL__PROBE(p) is 1 when p expands to "~, 1" (a probe), else 0. */
#define SL__PROBE_ARG2(a, b, ...) b
#define SL__PROBE_(...) SL__PROBE_ARG2(__VA_ARGS__)
#define SL__PROBE(p) SL__PROBE_(p, 0, ~)
#define SL__PROBE_FLAG_1 ~, 1
#define SL__PROBE_CAT_(a, b) a##b
#define SL__PROBE_CAT(a, b) SL__PROBE_CAT_(a, b)
#define SL_OPT_FLAG(X) SL__PROBE(SL__PROBE_CAT(SL__PROBE_FLAG_, X))

#endif
