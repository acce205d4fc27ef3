/* Build-time instantiation: the kernel tables that name the loops of an
 * integrator P with a force F, stamped for every body count of an X-macro
 * list NBODIES with N a literal, each checked at compile time against the
 * limits of launch.h (SL_CHECK_PROP, SL_CHECK_NBODY), plus a runtime-N
 * fallback; and what CUDA's launchers call. Plugins use
 * <starling/kernels.inc>, which includes this header and, per N, the loops
 * themselves: in C the lane loop (internal/lanes.inc) and the runtime-N
 * loop (loop.inc) beside one of the tables below, in CUDA the kernels and
 * their launchers (internal/kernel.inc).
 *   SL_KERNELS_SET(P, F, NBODIES)   (C) the kernel set sl_kset_<P>_<F>,
 *       which a plugin lists as {SL_KIND_KERNELS, "P/F", &sl_kset_<P>_<F>};
 *       starling_add_integrator and starling_add_force (StarlingPlugin.cmake)
 *       generate these units for every plugin, starling's own included.
 *   SL_INTEGRATOR_TABLE(P, FORCES, NBODIES)   (C) the table sl_kernels_<P>
 *       of a propagator that carries its kernels in its own table
 *       (.kernels).
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

#else /* C: the kernel tables; the loops they name are lanes.inc's and
         loop.inc's */

/* A pair that cannot run (SL_CAN_RUN: the stages need a jerk or a
 * perturbation part the force lacks) gets no entries. */
#define SL__CHECK_PAIR(P, F)                                                               \
    SL_CHECK_PROP(P)                                                                       \
    SL_CHECK_FORCE(F)

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
#define SL__DECL_FORCE_ON(P, NBODIES, F)                                                   \
    NBODIES(SL__DECL_N, P, F)                                                              \
    sl_status sl_run_##P##_##F##_any_cpu(const sl_run_args *a);                            \
    SL__CUDA_DECL(P, F, any)
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

/* The table sl_kernels_<P> of a propagator that carries its own kernels,
 * with every force of FORCES; the loops it names are lanes.inc's and
 * loop.inc's (kernels.inc with SL_KERNELS_OWN_TABLE includes all three). */
#define SL_INTEGRATOR_TABLE(P, FORCES, NBODIES)                                            \
    FORCES(SL__CHECK_PAIR, P)                                                              \
    FORCES(SL__DECL_FORCE, P, NBODIES)                                                     \
    static const sl_kernel_entry sl_kernels_##P[] = {FORCES(SL__ENTRY_FORCE, P, NBODIES)};

/* The kernel set of integrator P with force F, sl_kset_<P>_<F>, which the
 * plugin carrying the pair lists in its tables as
 * {SL_KIND_KERNELS, "P/F", &sl_kset_<P>_<F>}; its loops come from
 * internal/lanes.inc (each N) and loop.inc (the runtime-N fallback). */
#define SL__KSET_1(P, F, NBODIES)                                                          \
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
 * parallel: SL_KERNELS_SET and the runtime-N loop (loop.inc, SL_N 0) in one,
 * the set's entries naming the loops of every N in NBODIES, and in each the
 * lane loops of a part of NBODIES (lanes.inc, included per N). kernels.inc
 * is all of it in one unit. */
#define SL_KERNELS_SET(P, F, NBODIES)                                                      \
    SL_CHECK_PROP(P)                                                                       \
    SL_CHECK_FORCE(F)                                                                      \
    SL_CAT(SL__KSET_, SL_CAN_RUN(P, F))(P, F, NBODIES)

#endif

#endif
