/* The CUDA side of the core: device selection, memory, checked launches. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "starling/backend.h"
#include "starling/launch.h"
#include "starling/nomem.h"
#include "cuda_try.h"

extern "C" int sl_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" sl_status sl_cuda_open(int device, sl_backend *out)
{
    int n = sl_cuda_device_count();
    if (n < 1)
        return sl_fail(SL_ERR_NODEVICE, "no CUDA device is usable (device %d asked for)",
                       device);
    if (device >= n)
        return sl_fail(SL_ERR_NODEVICE, "device %d asked for, but only %d device%s present",
                       device, n, n == 1 ? "" : "s");
    SL_CUDA_TRY(cudaSetDevice(device), "selecting the CUDA device");
    cudaDeviceProp p;
    SL_CUDA_TRY(cudaGetDeviceProperties(&p, device), "reading device properties");
    memset(out, 0, sizeof *out);
    out->kind = SL_BACKEND_CUDA;
    out->device = device;
    out->sm_count = p.multiProcessorCount;
    out->mem_bytes = p.totalGlobalMem;
    snprintf(out->description, sizeof out->description, "cuda:%d (%s, sm_%d%d, %d SMs, %.1f GiB)",
             device, p.name, p.major, p.minor, p.multiProcessorCount,
             (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return SL_OK;
}

extern "C" sl_status sl_dev_alloc(void **ptr, size_t bytes, const char *what)
{
    *ptr = NULL;
    if (bytes == 0)
        return SL_OK;
    cudaError_t err = cudaMalloc(ptr, bytes);
    if (err == cudaSuccess)
        return SL_OK;
    *ptr = NULL;
    if (err != cudaErrorMemoryAllocation)
        return sl_fail(SL_ERR_CUDA, "%s: allocating %zu bytes on the GPU: %s", what, bytes,
                       cudaGetErrorString(err));
    cudaGetLastError(); /* not sticky, but clear it for the next check */
    size_t free_b = 0, total_b = 0;
    double avail = cudaMemGetInfo(&free_b, &total_b) == cudaSuccess ? (double)free_b : -1.0;
    return sl_fail_nomem_gpu((double)bytes, avail, "%s", what);
}

extern "C" void sl_dev_free(void *ptr)
{
    if (ptr)
        cudaFree(ptr);
}

extern "C" sl_status sl_dev_upload(void *dst, const void *src, size_t bytes, const char *what)
{
    if (bytes)
        SL_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), what);
    return SL_OK;
}

extern "C" sl_status sl_dev_download(void *dst, const void *src, size_t bytes, const char *what)
{
    if (bytes)
        SL_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), what);
    return SL_OK;
}

extern "C" sl_status sl_dev_copy(void *dst, const void *src, size_t bytes, const char *what)
{
    if (bytes)
        SL_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), what);
    return SL_OK;
}

extern "C" sl_status sl_dev_zero(void *ptr, size_t bytes, const char *what)
{
    if (bytes)
        SL_CUDA_TRY(cudaMemset(ptr, 0, bytes), what);
    return SL_OK;
}

extern "C" sl_status sl_dev_sync(const char *what)
{
    SL_CUDA_TRY(cudaDeviceSynchronize(), what);
    return SL_OK;
}

extern "C" sl_status sl_cuda_sm_count(const char *name, int *sms)
{
    int dev = 0;
    *sms = 1;
    SL_CUDA_TRY(cudaGetDevice(&dev), name);
    SL_CUDA_TRY(cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev), name);
    return SL_OK;
}

/* One thread per system. Blocks of 128 threads keep the register-heavy
 * kernels resident; small ensembles use smaller blocks so that they still
 * spread over every multiprocessor. */
extern "C" sl_status sl_cuda_launch_systems(const void *kernel, const char *name,
                                            const sl_run_args *a)
{
    int dev = 0, sms = 1;
    SL_CUDA_TRY(cudaGetDevice(&dev), name);
    SL_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), name);
    cudaFuncAttributes fa;
    SL_CUDA_TRY(cudaFuncGetAttributes(&fa, kernel), name);
    int block = 128;
    while (block > 32 && a->n_sys < (int64_t)block * sms * 2)
        block /= 2;
    if (block > fa.maxThreadsPerBlock)
        block = fa.maxThreadsPerBlock;
    int64_t grid = (a->n_sys + block - 1) / block;
    if (grid > 0x7fffffff)
        return sl_fail(SL_ERR_ARG, "%s: %lld systems exceed one launch", name, (long long)a->n_sys);
    sl_run_args copy = *a;
    void *args[] = {&copy};
    SL_CUDA_TRY(cudaLaunchKernel(kernel, dim3((unsigned)grid), dim3((unsigned)block), args, 0, 0),
                name);
    SL_CUDA_TRY(cudaGetLastError(), name);
    SL_CUDA_TRY(cudaDeviceSynchronize(), name);
    return SL_OK;
}

/* A grouped kernel (internal/group.h): `group` consecutive threads of one
 * warp per system, and each system's block of shared memory. Blocks shrink
 * for small ensembles as above, and stay whole warps. */
extern "C" sl_status sl_cuda_launch_groups(const void *kernel, const char *name,
                                           const sl_run_args *a, int group,
                                           size_t shared_per_system)
{
    if (group < 1 || group > 32 || (group & (group - 1)))
        return sl_fail(SL_ERR_ARG, "%s: %d threads per system (expected a power of 2 up to 32)",
                       name, group);
    int dev = 0, sms = 1;
    SL_CUDA_TRY(cudaGetDevice(&dev), name);
    SL_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), name);
    cudaFuncAttributes fa;
    SL_CUDA_TRY(cudaFuncGetAttributes(&fa, kernel), name);
    const int64_t threads = a->n_sys * group;
    int block = 128;
    while (block > 32 && threads < (int64_t)block * sms * 2)
        block /= 2;
    if (block > fa.maxThreadsPerBlock)
        block = fa.maxThreadsPerBlock / 32 * 32;
    if (block < 32)
        return sl_fail(SL_ERR_ARG, "%s: the kernel allows %d threads per block", name,
                       fa.maxThreadsPerBlock);
    const size_t shared = (size_t)(block / group) * shared_per_system;
    if (shared > 48 * 1024)
        SL_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)shared),
                    name);
    int64_t grid = (threads + block - 1) / block;
    if (grid > 0x7fffffff)
        return sl_fail(SL_ERR_ARG, "%s: %lld systems exceed one launch", name, (long long)a->n_sys);
    sl_run_args copy = *a;
    void *args[] = {&copy};
    SL_CUDA_TRY(cudaLaunchKernel(kernel, dim3((unsigned)grid), dim3((unsigned)block), args,
                                 shared, 0),
                name);
    SL_CUDA_TRY(cudaGetLastError(), name);
    SL_CUDA_TRY(cudaDeviceSynchronize(), name);
    return SL_OK;
}
