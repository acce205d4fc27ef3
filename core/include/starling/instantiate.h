/* Build-time instantiation: the generic loops of an integrator P with a
 * force F, stamped for every body count of an X-macro list NBODIES with N a
 * literal, each checked at compile time against the limits of launch.h
 * (SL_CHECK_PROP, SL_CHECK_NBODY), plus a runtime-N fallback. Plugins use
 * <starling/kernels.inc>, which includes this header: in a C unit it
 * includes the lane loop (internal/lanes.inc) once per N beside
 * SL_KERNELS_SET or SL_INTEGRATOR_TABLE below; in a CUDA unit it expands
 * SL_KERNELS_INSTANTIATE or SL_INTEGRATOR_INSTANTIATE, the kernels and
 * their launchers.
 *   SL_KERNELS_SET(P, F, NBODIES)   (C) the runtime-N loop and the kernel
 *       set sl_kset_<P>_<F>, which a plugin lists as
 *       {SL_KIND_KERNELS, "P/F", &sl_kset_<P>_<F>}; starling_add_integrator
 *       and starling_add_force (StarlingPlugin.cmake) generate these units
 *       for every plugin, starling's own included.
 *   SL_INTEGRATOR_TABLE(P, FORCES, NBODIES)   (C) the runtime-N loops and
 *       the table sl_kernels_<P> of a propagator that carries its kernels
 *       in its own table (.kernels).
 * Lists are X-macros of the form LIST(X, ...) -> X(__VA_ARGS__, item) ... */
#ifndef STARLING_INSTANTIATE_H
#define STARLING_INSTANTIATE_H

#include "starling/internal/group.h"
#include "starling/internal/lanes.h"
#include "starling/internal/loop.h"
#include "starling/launch.h"
#include "starling/plugin.h"
#include "starling/version.h"
#include "starling/cuda_nbodies.h"

/* SL_CUDA_HAS_N(N): 1 when N is in the build's SL_CUDA_NBODIES (cuda_nbodies.h,
 * from CMake), the body counts that get unrolled CUDA kernels. The others
 * run on CUDA through the runtime-N kernel: the same code, slower, and a
 * build that stamps fewer kernels compiles in a fraction of the time. The
 * CPU loops are unrolled for every N of NBODIES whatever the list. */
#define SL_CUDA_HAS_N(N) SL__NCAT(SL_CUDA_N_, N)
/* Own copies of SL_CAT and SL_WHEN: the N lists expand inside SL_WHEN's
 * expansion, where the preprocessor would not expand SL_WHEN again. */
#define SL__NCAT_(a, b) a##b
#define SL__NCAT(a, b) SL__NCAT_(a, b)
#define SL__NWHEN_1(M, ...) M(__VA_ARGS__)
#define SL__NWHEN_0(M, ...)
#define SL__NWHEN(COND, M, ...) SL__NCAT(SL__NWHEN_, COND)(M, __VA_ARGS__)

#if defined(__CUDACC__)

SL_EXTERN_C_BEGIN
/* Launches a loop kernel over a->n_sys systems, one thread each, and waits;
 * checks the launch and the execution. Defined in core (backend_cuda.cu). */
sl_status sl_cuda_launch_systems(const void *kernel, const char *name, const sl_run_args *a);
/* The same for a grouped kernel (internal/group.h): `group` threads per
 * system, shared_per_system bytes of shared memory each. */
sl_status sl_cuda_launch_groups(const void *kernel, const char *name, const sl_run_args *a,
                                int group, size_t shared_per_system);
/* The current device's multiprocessors (for a launcher choosing a kernel). */
sl_status sl_cuda_sm_count(const char *name, int *sms);
SL_EXTERN_C_END

#define SL__INST_KERNEL(P, F, SUFFIX, NDECL, NVAL)                                         \
    SL_LOOP_DEFINE(P, F, SUFFIX, NDECL, NVAL)                                              \
    __global__ void sl_kernel_##P##_##F##_##SUFFIX(const sl_run_args a)                    \
    {                                                                                      \
        int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                        \
        if (s < a.n_sys)                                                                   \
            sl_loop_##P##_##F##_##SUFFIX(&a, s);                                           \
    }                                                                                      \
    extern "C" sl_status sl_run_##P##_##F##_##SUFFIX##_cuda(const sl_run_args *a)          \
    {                                                                                      \
        return sl_cuda_launch_systems((const void *)sl_kernel_##P##_##F##_##SUFFIX,        \
                                      #P "/" #F "/" #SUFFIX, a);                           \
    }
/* Kernel KERNEL running the grouped loop LOOP, G threads a system, STRIDE
 * doubles of shared memory each. */
#define SL__GROUP_GLOBAL_AS(KERNEL, LOOP, STRIDE, G)                                       \
    __global__ void __launch_bounds__(128, SL_GROUP_MIN_BLOCKS(G)) KERNEL(const sl_run_args a) \
    {                                                                                      \
        extern __shared__ double sl__group_shared[];                                       \
        int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                        \
        int64_t s = t / (G);                                                               \
        if (s < a.n_sys)                                                                   \
            LOOP(&a, s, (int)(t % (G)),                                                    \
                 sl__group_shared + (threadIdx.x / (G)) * (STRIDE));                       \
    }
/* The kernel of a grouped loop sl_gloop_<P>_<F>_<N>, G threads a system. */
#define SL__GROUP_GLOBAL(P, F, N, G, STRIDE)                                               \
    SL__GROUP_GLOBAL_AS(sl_kernel_##P##_##F##_##N, sl_gloop_##P##_##F##_##N, STRIDE, G)
/* N's kernel when G = SL_GROUP_THREADS(N) threads run one system
 * (internal/group.h); same names as the thread-per-system kernel's. */
#define SL__INST_GROUP_KERNEL(P, F, N)                                                     \
    SL_GROUP_LOOP_DEFINE(P, F, N, SL_GROUP_THREADS(N))                                     \
    SL__GROUP_GLOBAL(P, F, N, SL_GROUP_THREADS(N),                                         \
                     SL_GROUP_LOOP_STRIDE(P, F, N, SL_GROUP_THREADS(N)))                   \
    extern "C" sl_status sl_run_##P##_##F##_##N##_cuda(const sl_run_args *a)               \
    {                                                                                      \
        return sl_cuda_launch_groups((const void *)sl_kernel_##P##_##F##_##N,              \
                                     #P "/" #F "/" #N, a, SL_GROUP_THREADS(N),             \
                                     SL_GROUP_LOOP_STRIDE(P, F, N, SL_GROUP_THREADS(N)) *  \
                                         sizeof(double));                                  \
    }
/* An integrator's own narrow grouped loop (SL_PROP_<P>_GROUP_NARROW_<N>:
 * 0 none, else its width), its kernel and its launch. */
#define SL__INST_NARROW_0(P, F, N)
#define SL__INST_NARROW_2(P, F, N) SL__INST_NARROW(P, F, N, 2)
#define SL__INST_NARROW_4(P, F, N) SL__INST_NARROW(P, F, N, 4)
#define SL__INST_NARROW_8(P, F, N) SL__INST_NARROW(P, F, N, 8)
#define SL__INST_NARROW(P, F, N, G)                                                        \
    SL_PROP_##P##_GROUP_DEFINE(P, F, N, G, sl_gloop_##P##_##F##_##N##_narrow)              \
    SL__GROUP_GLOBAL_AS(sl_kernel_##P##_##F##_##N##_narrow, sl_gloop_##P##_##F##_##N##_narrow, \
                        SL_GROUP_STRIDE(N, G), G)
#define SL__LAUNCH_NARROW_0(P, F, N)
#define SL__LAUNCH_NARROW_2(P, F, N) SL__LAUNCH_NARROW(P, F, N, 2)
#define SL__LAUNCH_NARROW_4(P, F, N) SL__LAUNCH_NARROW(P, F, N, 4)
#define SL__LAUNCH_NARROW_8(P, F, N) SL__LAUNCH_NARROW(P, F, N, 8)
#define SL__LAUNCH_NARROW(P, F, N, G)                                                      \
    if (g == (G))                                                                          \
        return sl_cuda_launch_groups((const void *)sl_kernel_##P##_##F##_##N##_narrow,     \
                                     #P "/" #F "/" #N, a, (G),                             \
                                     SL_GROUP_STRIDE(N, G) * sizeof(double));
/* An integrator's own grouped loop (group.h, SL_PROP_<P>_GROUP_LOOP) and
 * the thread-per-system kernel beside it (and its narrow loop's, where it
 * has one): the launcher picks per run. */
#define SL__INST_OWN_GROUP_KERNEL(P, F, N)                                                 \
    SL_LOOP_DEFINE(P, F, N, N, N)                                                          \
    __global__ void sl_kernel_##P##_##F##_##N##_thread(const sl_run_args a)                \
    {                                                                                      \
        int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                        \
        if (s < a.n_sys)                                                                   \
            sl_loop_##P##_##F##_##N(&a, s);                                                \
    }                                                                                      \
    SL_PROP_##P##_GROUP_DEFINE(P, F, N, SL_PROP_##P##_GROUP_THREADS_##N,                   \
                               sl_gloop_##P##_##F##_##N)                                   \
    SL__GROUP_GLOBAL(P, F, N, SL_PROP_##P##_GROUP_THREADS_##N,                             \
                     SL_GROUP_STRIDE(N, SL_PROP_##P##_GROUP_THREADS_##N))                  \
    SL__NCAT(SL__INST_NARROW_, SL_PROP_##P##_GROUP_NARROW_##N)(P, F, N)                    \
    extern "C" sl_status sl_run_##P##_##F##_##N##_cuda(const sl_run_args *a)               \
    {                                                                                      \
        int sms;                                                                           \
        sl_status st = sl_cuda_sm_count(#P "/" #F "/" #N, &sms);                           \
        if (st != SL_OK)                                                                   \
            return st;                                                                     \
        const int g = sl_prop_##P##_group_threads(a->pp, a->n_sys, sms,                    \
                                                  SL_PROP_##P##_GROUP_THREADS_##N,         \
                                                  SL_PROP_##P##_GROUP_NARROW_##N);         \
        if (g == 0)                                                                        \
            return sl_cuda_launch_systems((const void *)sl_kernel_##P##_##F##_##N##_thread, \
                                          #P "/" #F "/" #N, a);                            \
        SL__NCAT(SL__LAUNCH_NARROW_, SL_PROP_##P##_GROUP_NARROW_##N)(P, F, N)              \
        return sl_cuda_launch_groups((const void *)sl_kernel_##P##_##F##_##N,              \
                                     #P "/" #F "/" #N, a, SL_PROP_##P##_GROUP_THREADS_##N, \
                                     SL_GROUP_STRIDE(N, SL_PROP_##P##_GROUP_THREADS_##N) * \
                                         sizeof(double));                                  \
    }
#define SL__INST_THREAD_KERNEL(P, F, N) SL__INST_KERNEL(P, F, N, N, N)
#define SL__INST_N_STD(P, F, N)                                                            \
    SL_GROUP_PICK2(SL_GROUP_USE(P, F, N), SL__INST_GROUP_KERNEL, SL__INST_THREAD_KERNEL, P, F, N)
#define SL__INST_N_ON(P, F, N)                                                             \
    SL_GROUP_PICK(SL_GROUP_OWN(P, F, N), SL__INST_OWN_GROUP_KERNEL, SL__INST_N_STD, P, F, N)
#define SL__INST_N(P, F, N)                                                                \
    SL_CHECK_NBODY(P, F, N) SL__NWHEN(SL_CUDA_HAS_N(N), SL__INST_N_ON, P, F, N)
#define SL__INST_FORCE_ON(P, NBODIES, F)                                                   \
    NBODIES(SL__INST_N, P, F)                                                              \
    SL__INST_KERNEL(P, F, any, SL_NBODY_MAX, a->n_body)
#define SL__INST_FORCE(P, NBODIES, F)                                                      \
    SL_CHECK_PROP(P)                                                                       \
    SL_CHECK_FORCE(F)                                                                      \
    SL_WHEN(SL_CAN_RUN(P, F), SL__INST_FORCE_ON, P, NBODIES, F)
#define SL_INTEGRATOR_INSTANTIATE(P, FORCES, NBODIES) FORCES(SL__INST_FORCE, P, NBODIES)
#define SL_KERNELS_INSTANTIATE(P, F, NBODIES) SL__INST_FORCE(P, NBODIES, F)

#else /* C: the runtime-N loop and the kernel table (the lane loops of each
         N are functions of internal/lanes.inc, included per N) */

/* A pair that cannot run (SL_CAN_RUN: the stages need a jerk or a
 * perturbation part the force lacks) gets no loops and no entries. */
#define SL__INST_ANY_ON(P, F)                                                              \
    SL_LOOP_DEFINE(P, F, any, SL_NBODY_MAX, a->n_body)                                     \
    SL_CPU_DEFINE(P, F, any)
#define SL__INST_ANY(P, F)                                                                 \
    SL_CHECK_PROP(P)                                                                       \
    SL_CHECK_FORCE(F)                                                                      \
    SL_WHEN(SL_CAN_RUN(P, F), SL__INST_ANY_ON, P, F)

#if SL_HAVE_CUDA
#define SL__CUDA_DECL(P, F, SUFFIX) sl_status sl_run_##P##_##F##_##SUFFIX##_cuda(const sl_run_args *a);
#define SL__CUDA_REF(P, F, SUFFIX) sl_run_##P##_##F##_##SUFFIX##_cuda
#else
#define SL__CUDA_DECL(P, F, SUFFIX)
#define SL__CUDA_REF(P, F, SUFFIX) NULL
#endif
/* N's CUDA launcher: its unrolled kernel, or the runtime-N one when N is
 * not in SL_CUDA_NBODIES. */
#define SL__CUDA_REF_N_1(P, F, N) SL__CUDA_REF(P, F, N)
#define SL__CUDA_REF_N_0(P, F, N) SL__CUDA_REF(P, F, any)
#define SL__CUDA_REF_N(P, F, N) SL__NCAT(SL__CUDA_REF_N_, SL_CUDA_HAS_N(N))(P, F, N)
#define SL__DECL_N(P, F, N)                                                                \
    sl_status sl_run_##P##_##F##_##N##_cpu(const sl_run_args *a);                          \
    SL__NWHEN(SL_CUDA_HAS_N(N), SL__CUDA_DECL, P, F, N)
#define SL__DECL_FORCE_ON(P, NBODIES, F) NBODIES(SL__DECL_N, P, F) SL__CUDA_DECL(P, F, any)
#define SL__DECL_FORCE(P, NBODIES, F)                                                      \
    SL_WHEN(SL_CAN_RUN(P, F), SL__DECL_FORCE_ON, P, NBODIES, F)
/* What the loops of P were compiled with, for the registry to check
 * against P's table (sl_kernel_traits). */
#define SL__TRAITS(P)                                                                      \
    {SL_PROP_##P##_PERSIST, SL_PROP_##P##_NSTAGES, SL_PROP_##P##_JERK, SL_PROP_##P##_ADAPTIVE, \
     SL_PROP_##P##_PERTURB}
#define SL__ENTRY_N(P, F, N)                                                               \
    {#F, N, sl_run_##P##_##F##_##N##_cpu, SL__CUDA_REF_N(P, F, N), SL__TRAITS(P)},
#define SL__ENTRY_FORCE_ON(P, NBODIES, F)                                                  \
    NBODIES(SL__ENTRY_N, P, F)                                                             \
    {#F, 0, sl_run_##P##_##F##_any_cpu, SL__CUDA_REF(P, F, any), SL__TRAITS(P)},
#define SL__ENTRY_FORCE(P, NBODIES, F)                                                     \
    SL_WHEN(SL_CAN_RUN(P, F), SL__ENTRY_FORCE_ON, P, NBODIES, F)

/* The runtime-N loops of P with every force of FORCES and the table
 * sl_kernels_<P> of a propagator that carries its own kernels; the lane
 * loops the table names come from lanes.inc (kernels.inc with
 * SL_KERNELS_OWN_TABLE includes both). */
#define SL_INTEGRATOR_TABLE(P, FORCES, NBODIES)                                            \
    FORCES(SL__INST_ANY, P)                                                                \
    FORCES(SL__DECL_FORCE, P, NBODIES)                                                     \
    static const sl_kernel_entry sl_kernels_##P[] = {FORCES(SL__ENTRY_FORCE, P, NBODIES)};

/* The kernel set of integrator P with force F (its lane loops come from
 * internal/lanes.inc): the runtime-N fallback and sl_kset_<P>_<F>, which the
 * plugin carrying the pair lists in its tables as
 * {SL_KIND_KERNELS, "P/F", &sl_kset_<P>_<F>}. */
#define SL__KSET_1(P, F, NBODIES)                                                          \
    SL__INST_ANY_ON(P, F)                                                                  \
    SL__DECL_FORCE_ON(P, NBODIES, F)                                                       \
    static const sl_kernel_entry sl_kernels_##P##_##F[] = {SL__ENTRY_FORCE_ON(P, NBODIES, F)}; \
    const sl_kernel_set sl_kset_##P##_##F = {                                              \
        .abi = SL_ABI_VERSION, .kind = SL_KIND_KERNELS, .name = #P "/" #F,                 \
        .description = "kernels of integrator " #P " for force " #F, .integrator = #P,     \
        .force = #F, .kernels = sl_kernels_##P##_##F,                                      \
        .n_kernels = sizeof sl_kernels_##P##_##F / sizeof sl_kernels_##P##_##F[0]};
/* A pair that cannot run: an empty set, so that the plugin's table list
 * (generated without knowing the flags) still links, and the registry can
 * say why the pair has no kernels. */
#define SL__KSET_0(P, F, NBODIES)                                                          \
    const sl_kernel_set sl_kset_##P##_##F = {                                              \
        .abi = SL_ABI_VERSION, .kind = SL_KIND_KERNELS, .name = #P "/" #F,                 \
        .description = "none: integrator " #P " needs what force " #F " does not provide", \
        .integrator = #P, .force = #F, .kernels = NULL, .n_kernels = 0};
/* A pair's kernels may be spread over translation units that compile in
 * parallel: SL_KERNELS_SET in one (the runtime-N fallback and the set, whose
 * entries name the loops of every N in NBODIES), and in each the lane loops
 * of a part of NBODIES (lanes.inc, included per N). kernels.inc is both in
 * one unit. */
#define SL_KERNELS_SET(P, F, NBODIES)                                                      \
    SL_CHECK_PROP(P)                                                                       \
    SL_CHECK_FORCE(F)                                                                      \
    SL_CAT(SL__KSET_, SL_CAN_RUN(P, F))(P, F, NBODIES)

#endif

#endif
