/* The microlensing plugin on CUDA: one thread per (model, epoch), the
 * physics of ml_model.h compiled for the device. Parameters and epochs go
 * up once, magnifications come back once. */
#include <cuda_runtime.h>

#include "ml_internal.h"
#include "ml_map.h"
#include "ml_model.h"
#include "starling/backend.h"

#define ML_TRY(call, what)                                                                 \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess)                                                           \
            return sl_fail(SL_ERR_CUDA, "microlensing: %s: %s (%s)", (what),               \
                           cudaGetErrorString(err_), #call);                               \
    } while (0)

enum { ML_BLOCK = 128 };

__global__ void ml_kernel(sl_ml_model model, int npar, int64_t n_models, const double *params,
                          int64_t n_t, const double *t, double *A)
{
    int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n_models * n_t)
        return;
    int64_t i = k / n_t, j = k - i * n_t;
    double p[SL_ML_NPAR_MAX];
    for (int c = 0; c < npar; c++)
        p[c] = params[i * npar + c];
    A[k] = sl_ml_eval(model, p, t[j]);
}

static sl_status ml_run(const sl_ml_batch *b, double *dp, double *dt, double *dA, double *A)
{
    int npar = sl_ml_npar(b->model);
    size_t np = (size_t)b->n_models * npar * sizeof(double);
    size_t nt = (size_t)b->n_t * sizeof(double);
    size_t na = (size_t)b->n_models * (size_t)b->n_t * sizeof(double);
    sl_status st;
    if ((st = sl_dev_upload(dp, b->params, np, "microlensing: parameters")) ||
        (st = sl_dev_upload(dt, b->t, nt, "microlensing: epochs")))
        return st;
    int64_t n = b->n_models * b->n_t;
    ml_kernel<<<(unsigned)((n + ML_BLOCK - 1) / ML_BLOCK), ML_BLOCK>>>(b->model, npar,
                                                                       b->n_models, dp, b->n_t,
                                                                       dt, dA);
    ML_TRY(cudaGetLastError(), "launching the magnification kernel");
    ML_TRY(cudaDeviceSynchronize(), "running the magnification kernel");
    return sl_dev_download(A, dA, na, "microlensing: magnifications");
}

extern "C" sl_status sl_ml_cuda_magnification(const sl_backend *be, const sl_ml_batch *b,
                                              double *A)
{
    ML_TRY(cudaSetDevice(be->device), "selecting the CUDA device");
    int npar = sl_ml_npar(b->model);
    double *dp = NULL, *dt = NULL, *dA = NULL;
    sl_status st;
    if (!(st = sl_dev_alloc((void **)&dp, (size_t)b->n_models * npar * sizeof(double),
                            "microlensing: parameters")) &&
        !(st = sl_dev_alloc((void **)&dt, (size_t)b->n_t * sizeof(double),
                            "microlensing: epochs")) &&
        !(st = sl_dev_alloc((void **)&dA, (size_t)b->n_models * (size_t)b->n_t * sizeof(double),
                            "microlensing: magnifications")))
        st = ml_run(b, dp, dt, dA, A);
    sl_dev_free(dp);
    sl_dev_free(dt);
    sl_dev_free(dA);
    return st;
}

/* Maps: one thread per ray, rays of one cell adjacent (a warp shares a
 * cell, so its rays land near each other and their atomics on few lines). */
__global__ void ml_map_kernel(sl_ml_map_spec m, ml_map_grid g, const int64_t *cells,
                              int64_t n_rays, double inv_dx, double inv_dy, uint32_t *count)
{
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < n_rays;
         r += (int64_t)gridDim.x * blockDim.x) {
        int64_t a = r / g.rays_per_cell, k = r - a * g.rays_per_cell;
        int64_t c = cells[a], cy = c / g.ncx, cx = c - cy * g.ncx;
        double x, y;
        sl_ml_ray(m.seed, c, k, g.lx0, g.ly0, g.h, cx, cy, &x, &y);
        int64_t p = sl_ml_ray_pixel(&m, inv_dx, inv_dy, x, y);
        if (p >= 0)
            atomicAdd(&count[p], 1u);
    }
}

static sl_status ml_map_on(const sl_ml_map_spec *m, const ml_map_grid *g, const int64_t *cells,
                           int64_t n_active, uint32_t *count, double *seconds, int64_t *dcells,
                           uint32_t *dcount)
{
    size_t npix = (size_t)m->nx * (size_t)m->ny;
    sl_status st;
    if ((st = sl_dev_upload(dcells, cells, (size_t)n_active * sizeof *cells,
                            "microlensing: map: active cells")) ||
        (st = sl_dev_zero(dcount, npix * sizeof *dcount, "microlensing: map: counts")))
        return st;
    int64_t n_rays = n_active * g->rays_per_cell;
    int sms = 0;
    ML_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "counting SMs");
    int64_t blocks = (n_rays + 255) / 256, cap = (int64_t)sms * 64;
    cudaEvent_t e0, e1;
    ML_TRY(cudaEventCreate(&e0), "creating an event");
    ML_TRY(cudaEventCreate(&e1), "creating an event");
    ML_TRY(cudaEventRecord(e0), "recording an event");
    ml_map_kernel<<<(unsigned)(blocks < cap ? blocks : cap), 256>>>(
        *m, *g, dcells, n_rays, m->nx / (m->x1 - m->x0), m->ny / (m->y1 - m->y0), dcount);
    ML_TRY(cudaGetLastError(), "launching the map kernel");
    ML_TRY(cudaEventRecord(e1), "recording an event");
    ML_TRY(cudaEventSynchronize(e1), "running the map kernel");
    float ms = 0.0f;
    ML_TRY(cudaEventElapsedTime(&ms, e0, e1), "timing the map kernel");
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    *seconds = 1e-3 * ms;
    return sl_dev_download(count, dcount, npix * sizeof *dcount, "microlensing: map: counts");
}

extern "C" sl_status sl_ml_cuda_map(const sl_backend *be, const sl_ml_map_spec *m,
                                    const ml_map_grid *g, const int64_t *cells, int64_t n_active,
                                    uint32_t *count, double *seconds)
{
    ML_TRY(cudaSetDevice(be->device), "selecting the CUDA device");
    int64_t *dcells = NULL;
    uint32_t *dcount = NULL;
    size_t npix = (size_t)m->nx * (size_t)m->ny;
    sl_status st;
    if (!(st = sl_dev_alloc((void **)&dcells, (size_t)(n_active > 0 ? n_active : 1) *
                            sizeof *dcells, "microlensing: map: active cells")) &&
        !(st = sl_dev_alloc((void **)&dcount, npix * sizeof *dcount, "microlensing: map: counts")))
        st = ml_map_on(m, g, cells, n_active, count, seconds, dcells, dcount);
    sl_dev_free(dcells);
    sl_dev_free(dcount);
    return st;
}
