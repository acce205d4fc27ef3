/* Built without CUDA: the cuda backend of this plugin says so. */
#include "ml_internal.h"
#include "ml_like.h"

sl_status sl_ml_cuda_magnification(const sl_backend *be, const sl_ml_batch *b, double *A)
{
    (void)be;
    (void)b;
    (void)A;
    return sl_fail(SL_ERR_NODEVICE, "microlensing: this plugin was built without CUDA");
}

sl_status sl_ml_cuda_multi_mag0(const sl_backend *be, const sl_ml_lenses *L, int64_t n,
                                const double *y1, const double *y2, double *A, int *n_images)
{
    (void)be, (void)L, (void)n, (void)y1, (void)y2, (void)A, (void)n_images;
    return sl_fail(SL_ERR_NODEVICE, "microlensing: this plugin was built without CUDA");
}

sl_status sl_ml_cuda_active(const sl_backend *be, const sl_ml_map_spec *m, const ml_map_grid *g,
                            ml_active *out)
{
    (void)be;
    (void)m;
    (void)g;
    (void)out;
    return sl_fail(SL_ERR_NODEVICE, "microlensing: this plugin was built without CUDA");
}

sl_status sl_ml_cuda_shoot(const sl_backend *be, const sl_ml_map_spec *m, const ml_map_grid *g,
                           const ml_active *a, uint32_t *count, double *seconds)
{
    (void)be;
    (void)m;
    (void)g;
    (void)a;
    (void)count;
    (void)seconds;
    return sl_fail(SL_ERR_NODEVICE, "microlensing: this plugin was built without CUDA");
}

void sl_ml_cuda_active_free(ml_active *a) { (void)a; }

sl_status sl_ml_cuda_tracks(const sl_backend *be, const sl_ml_map *m, const sl_ml_tracks *tr,
                            double *A)
{
    (void)be;
    (void)m;
    (void)tr;
    (void)A;
    return sl_fail(SL_ERR_NODEVICE, "microlensing: this plugin was built without CUDA");
}

sl_status sl_ml_phot_cuda_eval(sl_ml_phot_ctx *c, const sl_backend *be, const double *params,
                               size_t n, double *loglik, double *chi2)
{
    (void)c, (void)be, (void)params, (void)n, (void)loglik, (void)chi2;
    return sl_fail(SL_ERR_NODEVICE, "microlensing: this plugin was built without CUDA");
}

sl_status sl_ml_phot_cuda_eval_device(sl_ml_phot_ctx *c, const double *params, size_t n,
                                      const int *count, double *out, void *stream)
{
    (void)c, (void)params, (void)n, (void)count, (void)out, (void)stream;
    return sl_fail(SL_ERR_NODEVICE, "microlensing: this plugin was built without CUDA");
}

void sl_ml_phot_cuda_release(sl_ml_phot_ctx *c) { (void)c; }
