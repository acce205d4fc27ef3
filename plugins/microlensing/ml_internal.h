/* Inside the microlensing plugin: what ml_plugin.c and the CUDA side share. */
#ifndef STARLING_ML_INTERNAL_H
#define STARLING_ML_INTERNAL_H

#include "microlensing.h"

SL_EXTERN_C_BEGIN

/* The checked batch on the CUDA backend (ml_cuda.cu, or ml_nocuda.c in a
 * build without CUDA, which says so). */
sl_status sl_ml_cuda_magnification(const sl_backend *be, const sl_ml_batch *b, double *A);

/* The lens-plane grid a map shoots: cells of side h from (lx0, ly0),
 * ncx x ncy of them, cell c at column c % ncx, row c / ncx. */
typedef struct ml_map_grid {
    double lx0, ly0, h;
    int64_t ncx, ncy, rays_per_cell;
} ml_map_grid;

/* Maps (ml_map.c); the CUDA shooting (ml_cuda.cu, or ml_nocuda.c): the
 * active cells' rays into count (nx * ny, zeroed), the kernel's seconds. */
sl_status sl_ml_map_run(const sl_backend *be, const sl_ml_map_spec *m, sl_ml_map *out);
void sl_ml_map_free(sl_ml_map *m);
/* The map as a FITS image with its parameters in the header (ml_fits.c). */
sl_status sl_ml_map_write_fits(const sl_ml_map *m, const sl_ml_map_spec *spec, const char *path);
sl_status sl_ml_cuda_map(const sl_backend *be, const sl_ml_map_spec *m, const ml_map_grid *g,
                         const int64_t *cells, int64_t n_active, uint32_t *count,
                         double *seconds);

SL_EXTERN_C_END

#endif
