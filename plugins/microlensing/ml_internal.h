/* Inside the microlensing plugin: what ml_plugin.c and the CUDA side share. */
#ifndef STARLING_ML_INTERNAL_H
#define STARLING_ML_INTERNAL_H

#include "microlensing.h"

SL_EXTERN_C_BEGIN

/* The checked batch on the CUDA backend (ml_cuda.cu, or ml_nocuda.c in a
 * build without CUDA, which says so). */
sl_status sl_ml_cuda_magnification(const sl_backend *be, const sl_ml_batch *b, double *A);
/* Point sources behind 1 to 4 lenses on CUDA (checked by the caller): one
 * thread a source; n_images may be NULL. */
sl_status sl_ml_cuda_multi_mag0(const sl_backend *be, const sl_ml_lenses *L, int64_t n,
                                const double *y1, const double *y2, double *A, int *n_images);

/* The lens-plane grid a map shoots: cells of side h from (lx0, ly0),
 * ncx x ncy of them, cell c at column c % ncx, row c / ncx. */
typedef struct ml_map_grid {
    double lx0, ly0, h;
    int64_t ncx, ncy, rays_per_cell;
} ml_map_grid;

/* A grid's active cells: n of them, listed in host memory (CPU) or device
 * memory (CUDA, on_device); edge when one is on the grid's edge. */
typedef struct ml_active {
    int64_t n;
    int edge, on_device;
    int64_t *cells;
} ml_active;

/* Maps (ml_map.c). */
sl_status sl_ml_map_run(const sl_backend *be, const sl_ml_map_spec *m, sl_ml_map *out);
void sl_ml_map_free(sl_ml_map *m);
/* The map as a FITS image with its parameters in the header (ml_fits.c). */
sl_status sl_ml_map_write_fits(const sl_ml_map *m, const sl_ml_map_spec *spec, const char *path,
                               unsigned flags);
/* CUDA (ml_cuda.cu, or ml_nocuda.c): the active cells found on the device
 * and kept there; the rays of those cells into count (nx * ny), the
 * kernel's seconds; the list freed. */
sl_status sl_ml_cuda_active(const sl_backend *be, const sl_ml_map_spec *m, const ml_map_grid *g,
                            ml_active *out);
sl_status sl_ml_cuda_shoot(const sl_backend *be, const sl_ml_map_spec *m, const ml_map_grid *g,
                           const ml_active *a, uint32_t *count, double *seconds);
void sl_ml_cuda_active_free(ml_active *a);

/* Light curves from a map (ml_tracks.c); on CUDA (ml_cuda.cu, ml_nocuda.c)
 * one block per model and epoch. */
sl_status sl_ml_track_check(const sl_ml_map *m, const sl_ml_tracks *tr, const double *A);
sl_status sl_ml_lightcurves(const sl_backend *be, const sl_ml_map *m, const sl_ml_tracks *tr,
                            double *A);
sl_status sl_ml_cuda_tracks(const sl_backend *be, const sl_ml_map *m, const sl_ml_tracks *tr,
                            double *A);

SL_EXTERN_C_END

#endif
