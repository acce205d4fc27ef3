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
#define SL_RESTRICT restrict
#if defined(SL_NO_FORCE_INLINE) && SL_NO_FORCE_INLINE
/* A build with SL_FORCE_INLINE=OFF (scripts/sanitize.sh): the compiler
 * chooses what to inline and unroll. The results keep their bits (no
 * contraction, -ffp-contract=off: inlining and unrolling reorder no
 * arithmetic); forced inlining and unrolling, with the sanitizers' checks
 * on every access, make functions that take GCC minutes each
 * (nbody_eval_mvs.c under ASan at -O1: 280 s forced, 8 s not). */
#define SL_INLINE static inline
#define SL_UNROLL
#else
#define SL_INLINE static inline __attribute__((always_inline))
/* Trip counts are literals once the per-N specialisation is inlined; the
 * pragma asks GCC to unroll those loops completely. */
#define SL_UNROLL _Pragma("GCC unroll 64")
#endif
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

/* The same for sqrt, 1 / b and a / b (SL_SQRT, SL_RCP, SL_DIV): CUDA's own
 * fast paths, instruction for instruction (the starting approximations'
 * low words included), so correctly rounded and the bits of sqrt, 1.0 / b
 * and a / b, without the test and branch to the slow path that each call
 * carries. They hold where operands and results are normal and away from
 * the ends of the exponent range (|a|, |b|, |a / b| within about 2^-960 ..
 * 2^1000; x > 0 normal for sqrt, which gives NaN at 0): the Kepler drift's
 * distances, times and anomalies (kepler_drift.h). test_gpu_hdmath checks
 * the bits against CUDA's operators. */
static __device__ __forceinline__ double sl_sqrt_device(double x)
{
    double t;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(t) : "d"(x));
    const int xh = __double2hiint(x);
    const double y0 = __hiloint2double(__double2hiint(t), xh + (int)0xfcb00000u);
    const double e = fma(x, -__dmul_rn(y0, y0), 1.0);
    const double y = fma(fma(e, 0.375, 0.5), __dmul_rn(y0, e), y0);
    const double s = __dmul_rn(x, y);
    const double h = __hiloint2double(__double2hiint(y) - 0x00100000, __double2loint(y));
    return fma(fma(s, -s, x), h, s);
}

static __device__ __forceinline__ double sl_rcp_device(double b)
{
    double t;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(t) : "d"(b));
    const int bh = __double2hiint(b);
    const double y0 = __hiloint2double(__double2hiint(t), bh + 0x300402);
    double e = fma(-b, y0, 1.0);
    e = fma(e, e, e);
    const double y1 = fma(y0, e, y0);
    return fma(y1, fma(-b, y1, 1.0), y1);
}

static __device__ __forceinline__ double sl_div_device(double a, double b)
{
    double t;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(t) : "d"(b));
    const double y0 = __hiloint2double(__double2hiint(t), 1);
    double e = fma(-b, y0, 1.0);
    e = fma(e, e, e);
    const double y1 = fma(y0, e, y0);
    const double y2 = fma(y1, fma(-b, y1, 1.0), y1);
    const double q = __dmul_rn(a, y2);
    return fma(y2, fma(-b, q, a), q);
}
#define SL_SQRT(x) sl_sqrt_device(x)
#define SL_RCP(b) sl_rcp_device(b)
#define SL_DIV(a, b) sl_div_device((a), (b))
#else
#define SL_SQRT(x) sqrt(x)
#define SL_RCP(b) (1.0 / (b))
#define SL_DIV(a, b) ((a) / (b))
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
