/* The microlensing plugin on CUDA: one thread per (model, epoch), the
 * physics of ml_model.h compiled for the device. Parameters and epochs go
 * up once, magnifications come back once. */
#include <cuda_runtime.h>
#include <string.h>

#include "ml_internal.h"
#include "ml_map.h"
#include "ml_model.h"
#include "ml_multi.h"
#include "ml_track.h"
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

__global__ void ml_multi_kernel(sl_ml_lenses L, int64_t n, const double *y, double *A, int *im)
{
    int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    int m;
    A[k] = sl_ml_multi_mag0(&L, y[k], y[n + k], &m);
    if (im)
        im[k] = m;
}

extern "C" sl_status sl_ml_cuda_multi_mag0(const sl_backend *be, const sl_ml_lenses *L,
                                           int64_t n, const double *y1, const double *y2,
                                           double *A, int *n_images)
{
    ML_TRY(cudaSetDevice(be->device), "selecting the CUDA device");
    if (n == 0)
        return SL_OK;
    const size_t nb = (size_t)n * sizeof(double);
    double *dy = NULL, *dA = NULL;
    int *dim = NULL;
    sl_status st;
    if (!(st = sl_dev_alloc((void **)&dy, 2 * nb, "microlensing: multi_mag0: sources")) &&
        !(st = sl_dev_alloc((void **)&dA, nb, "microlensing: multi_mag0: magnifications")) &&
        !(st = n_images ? sl_dev_alloc((void **)&dim, (size_t)n * sizeof(int),
                                       "microlensing: multi_mag0: images")
                        : SL_OK) &&
        !(st = sl_dev_upload(dy, y1, nb, "microlensing: multi_mag0: sources")) &&
        !(st = sl_dev_upload(dy + n, y2, nb, "microlensing: multi_mag0: sources"))) {
        ml_multi_kernel<<<(unsigned)((n + ML_BLOCK - 1) / ML_BLOCK), ML_BLOCK>>>(*L, n, dy, dA,
                                                                                 dim);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess)
            st = sl_fail(SL_ERR_CUDA, "microlensing: multi_mag0: the kernel: %s",
                         cudaGetErrorString(e));
        if (!st)
            st = sl_dev_download(A, dA, nb, "microlensing: multi_mag0: magnifications");
        if (!st && n_images)
            st = sl_dev_download(n_images, dim, (size_t)n * sizeof(int),
                                 "microlensing: multi_mag0: images");
    }
    sl_dev_free(dy), sl_dev_free(dA), sl_dev_free(dim);
    return st;
}

/* Maps. Active cells: every cell tested in a grid-stride loop; a warp
 * appends its active cells with one atomic (their order in the list varies
 * from run to run, the map does not: a ray is keyed by its cell, not by
 * its place in the list). Pass 0 counts, pass 1 fills. */
__global__ void ml_active_kernel(sl_ml_map_spec m, ml_map_grid g, int fill,
                                 unsigned long long *n, int *edge, int64_t *list)
{
    const int64_t cells = g.ncx * g.ncy;
    const int lane = threadIdx.x & 31;
    for (int64_t c0 = (int64_t)blockIdx.x * blockDim.x; c0 < cells;
         c0 += (int64_t)gridDim.x * blockDim.x) {
        int64_t c = c0 + threadIdx.x, cy = c / g.ncx, cx = c - cy * g.ncx;
        int on = c < cells && sl_ml_cell_active(&m, g.lx0, g.ly0, g.h, cx, cy);
        unsigned mask = __ballot_sync(0xffffffffu, on);
        if (!mask)
            continue;
        unsigned long long base = 0;
        if (lane == 0)
            base = atomicAdd(n, (unsigned long long)__popc(mask));
        base = __shfl_sync(0xffffffffu, base, 0);
        if (on) {
            if (fill)
                list[base + __popc(mask & ((1u << lane) - 1u))] = c;
            if (cx == 0 || cy == 0 || cx == g.ncx - 1 || cy == g.ncy - 1)
                atomicOr(edge, 1);
        }
    }
}

/* One thread per active cell, its rays in turn (ml_map.h): a warp's cells
 * are neighbours, so their rays land near each other. */
__global__ void ml_shoot_kernel(sl_ml_map_spec m, ml_map_grid g, const int64_t *cells,
                                int64_t n_active, double inv_dx, double inv_dy, uint32_t *count)
{
    for (int64_t a = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; a < n_active;
         a += (int64_t)gridDim.x * blockDim.x)
        sl_ml_shoot_cell(&m, g.lx0, g.ly0, g.h, g.ncx, g.rays_per_cell, cells[a], inv_dx,
                         inv_dy, count);
}

static int ml_blocks(int64_t work, int threads)
{
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int64_t b = (work + threads - 1) / threads, cap = (int64_t)sms * 64;
    return (int)(b < 1 ? 1 : b < cap ? b : cap);
}

static sl_status ml_active_passes(const sl_ml_map_spec *m, const ml_map_grid *g,
                                  unsigned long long *dn, int *dedge, ml_active *out)
{
    const int threads = 256;
    int blocks = ml_blocks(g->ncx * g->ncy, threads);
    unsigned long long n = 0;
    int edge = 0;
    sl_status st;
    if ((st = sl_dev_zero(dn, sizeof *dn, "microlensing: map: counter")) ||
        (st = sl_dev_zero(dedge, sizeof *dedge, "microlensing: map: edge flag")))
        return st;
    ml_active_kernel<<<blocks, threads>>>(*m, *g, 0, dn, dedge, NULL);
    ML_TRY(cudaGetLastError(), "launching the active-cell kernel");
    if ((st = sl_dev_download(&n, dn, sizeof n, "microlensing: map: active cells")) ||
        (st = sl_dev_download(&edge, dedge, sizeof edge, "microlensing: map: edge flag")))
        return st;
    out->n = (int64_t)n;
    out->edge = edge;
    out->on_device = 1;
    if ((st = sl_dev_alloc((void **)&out->cells, (size_t)(n > 0 ? n : 1) * sizeof(int64_t),
                           "microlensing: map: active cells")))
        return st;
    if ((st = sl_dev_zero(dn, sizeof *dn, "microlensing: map: counter")))
        return st;
    ml_active_kernel<<<blocks, threads>>>(*m, *g, 1, dn, dedge, out->cells);
    ML_TRY(cudaGetLastError(), "launching the active-cell kernel");
    ML_TRY(cudaDeviceSynchronize(), "running the active-cell kernel");
    return SL_OK;
}

extern "C" sl_status sl_ml_cuda_active(const sl_backend *be, const sl_ml_map_spec *m,
                                       const ml_map_grid *g, ml_active *out)
{
    ML_TRY(cudaSetDevice(be->device), "selecting the CUDA device");
    memset(out, 0, sizeof *out);
    unsigned long long *dn = NULL;
    int *dedge = NULL;
    sl_status st;
    if (!(st = sl_dev_alloc((void **)&dn, sizeof *dn, "microlensing: map: counter")) &&
        !(st = sl_dev_alloc((void **)&dedge, sizeof *dedge, "microlensing: map: edge flag")))
        st = ml_active_passes(m, g, dn, dedge, out);
    sl_dev_free(dn);
    sl_dev_free(dedge);
    if (st)
        sl_ml_cuda_active_free(out);
    return st;
}

extern "C" void sl_ml_cuda_active_free(ml_active *a)
{
    if (a->on_device)
        sl_dev_free(a->cells);
    a->cells = NULL;
}

static sl_status ml_shoot_on(const sl_ml_map_spec *m, const ml_map_grid *g, const ml_active *a,
                             uint32_t *count, double *seconds, uint32_t *dcount)
{
    size_t npix = (size_t)m->nx * (size_t)m->ny;
    sl_status st = sl_dev_zero(dcount, npix * sizeof *dcount, "microlensing: map: counts");
    if (st)
        return st;
    cudaEvent_t e0, e1;
    ML_TRY(cudaEventCreate(&e0), "creating an event");
    ML_TRY(cudaEventCreate(&e1), "creating an event");
    ML_TRY(cudaEventRecord(e0), "recording an event");
    const int threads = 128;
    ml_shoot_kernel<<<(unsigned)((a->n + threads - 1) / threads > 0 ? (a->n + threads - 1) / threads : 1),
                      threads>>>(*m, *g, a->cells, a->n, m->nx / (m->x1 - m->x0),
                                 m->ny / (m->y1 - m->y0), dcount);
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

extern "C" sl_status sl_ml_cuda_shoot(const sl_backend *be, const sl_ml_map_spec *m,
                                      const ml_map_grid *g, const ml_active *a, uint32_t *count,
                                      double *seconds)
{
    ML_TRY(cudaSetDevice(be->device), "selecting the CUDA device");
    uint32_t *dcount = NULL;
    size_t npix = (size_t)m->nx * (size_t)m->ny;
    sl_status st = sl_dev_alloc((void **)&dcount, npix * sizeof *dcount, "microlensing: map: counts");
    if (!st)
        st = ml_shoot_on(m, g, a, count, seconds, dcount);
    sl_dev_free(dcount);
    return st;
}

/* Light curves from a map: one block per (model, epoch), its threads over
 * the source's grid points, the sums reduced in shared memory. */
enum { ML_TRACK_THREADS = 128 };

__global__ void ml_track_kernel(sl_ml_grid2 g, const double *params, int64_t n_t,
                                const double *t, double ld1, double ld2, double *A)
{
    __shared__ double s_w[ML_TRACK_THREADS], s_wa[ML_TRACK_THREADS];
    int64_t k = blockIdx.x, i = k / n_t, j = k - i * n_t;
    const double *p = params + i * SL_ML_TRACK_NPAR;
    double cx, cy;
    sl_ml_trajectory(t[j], p[0], p[1], p[2], p[3], &cx, &cy);
    int steps = sl_ml_track_steps(&g, p[4]), side = 2 * steps + 1;
    double step = p[4] / steps, sw = 0.0, swa = 0.0;
    for (int q = threadIdx.x; q < side * side; q += blockDim.x) {
        int di = q % side - steps, dj = q / side - steps;
        double w = sl_ml_track_weight(di, dj, steps, ld1, ld2);
        if (w == 0.0)
            continue;
        swa += w * sl_ml_bilinear(&g, cx + di * step, cy + dj * step);
        sw += w;
    }
    s_w[threadIdx.x] = sw;
    s_wa[threadIdx.x] = swa;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) {
            s_w[threadIdx.x] += s_w[threadIdx.x + h];
            s_wa[threadIdx.x] += s_wa[threadIdx.x + h];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        A[k] = s_wa[0] / s_w[0];
}

static sl_status ml_tracks_on(const sl_ml_map *m, const sl_ml_tracks *tr, double *A, double *dmap,
                              double *dpar, double *dt, double *dA)
{
    size_t npix = (size_t)m->nx * m->ny, n = (size_t)(tr->n_models * tr->n_t);
    sl_status st;
    if ((st = sl_dev_upload(dmap, m->A, npix * sizeof *dmap, "microlensing: lightcurves: map")) ||
        (st = sl_dev_upload(dpar, tr->params,
                            (size_t)tr->n_models * SL_ML_TRACK_NPAR * sizeof *dpar,
                            "microlensing: lightcurves: models")) ||
        (st = sl_dev_upload(dt, tr->t, (size_t)tr->n_t * sizeof *dt,
                            "microlensing: lightcurves: epochs")))
        return st;
    sl_ml_grid2 g = {dmap, m->nx, m->ny, m->x0, m->y0, (m->x1 - m->x0) / m->nx,
                     (m->y1 - m->y0) / m->ny};
    ml_track_kernel<<<(unsigned)n, ML_TRACK_THREADS>>>(g, dpar, tr->n_t, dt, tr->ld1, tr->ld2, dA);
    ML_TRY(cudaGetLastError(), "launching the light-curve kernel");
    ML_TRY(cudaDeviceSynchronize(), "running the light-curve kernel");
    return sl_dev_download(A, dA, n * sizeof *A, "microlensing: lightcurves: magnifications");
}

extern "C" sl_status sl_ml_cuda_tracks(const sl_backend *be, const sl_ml_map *m,
                                       const sl_ml_tracks *tr, double *A)
{
    ML_TRY(cudaSetDevice(be->device), "selecting the CUDA device");
    if ((double)tr->n_models * tr->n_t > 2147483647.0)
        return sl_fail(SL_ERR_ARG, "microlensing: lightcurves: %lld model-epochs in one call: "
                       "at most 2^31 - 1 on CUDA", (long long)(tr->n_models * tr->n_t));
    size_t npix = (size_t)m->nx * m->ny, n = (size_t)(tr->n_models * tr->n_t);
    double *dmap = NULL, *dpar = NULL, *dt = NULL, *dA = NULL;
    sl_status st;
    if (!(st = sl_dev_alloc((void **)&dmap, npix * sizeof *dmap, "microlensing: lightcurves: map")) &&
        !(st = sl_dev_alloc((void **)&dpar, (size_t)tr->n_models * SL_ML_TRACK_NPAR * sizeof *dpar,
                            "microlensing: lightcurves: models")) &&
        !(st = sl_dev_alloc((void **)&dt, (size_t)tr->n_t * sizeof *dt,
                            "microlensing: lightcurves: epochs")) &&
        !(st = sl_dev_alloc((void **)&dA, n * sizeof *dA, "microlensing: lightcurves: output")))
        st = ml_tracks_on(m, tr, A, dmap, dpar, dt, dA);
    sl_dev_free(dmap);
    sl_dev_free(dpar);
    sl_dev_free(dt);
    sl_dev_free(dA);
    return st;
}
