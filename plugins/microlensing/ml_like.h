/* The photometric likelihood's prepared state, shared by ml_like.c (the
 * table, data and CPU loop) and ml_like_cuda.cu (the kernel). */
#ifndef STARLING_ML_LIKE_H
#define STARLING_ML_LIKE_H

#include <stddef.h>
#include <stdint.h>
#include "microlensing.h"
#include "ml_ephemeris.h"
#include "ml_fsbl.h"
#include "ml_parallax.h"
#include "ml_phot.h"
#include "starling/backend.h"
#include "starling/status.h"

SL_EXTERN_C_BEGIN

#define SL_ML_MAX_BAND 16
#define SL_ML_BAND_NAME 32

typedef struct sl_ml_phot_ctx {
    int model;           /* sl_ml_model, or SL_ML_PHOT_FSBL, _BINSRC, _FSBL_DYN (ml_phot.h) */
    double fs_win[2];    /* fspl: the finite source's window (-inf, inf: everywhere) */
    int pset;            /* SL_ML_PAR_T_EFF | SL_ML_PAR_T_STAR (ml_phot.h) or 0 */
    double ld;           /* fspl's and fsbl's linear limb darkening */
    double zero_point;   /* mag = zero_point - 2.5 log10 F */
    int mag;             /* 1: the data were magnitudes */
    size_t n;            /* observations, grouped by band, by time in each */
    int n_band;
    int64_t band_start[SL_ML_MAX_BAND + 1];
    char band_name[SL_ML_MAX_BAND][SL_ML_BAND_NAME];
    double *t, *w, *fc;  /* epoch, 1/sigma_F^2, F - <F>_w */
    double S[SL_ML_MAX_BAND], sff[SL_ML_MAX_BAND], fmean[SL_ML_MAX_BAND];
    /* per passband (data set "passbands"): the blend flux held fixed (NaN:
     * fitted), and the errors' rescaling (new error = sqrt((k e)^2 + m^2)
     * in the data's units) applied when the data were read */
    double fb_fixed[SL_ML_MAX_BAND];
    /* per passband the source's linear limb darkening (fspl, fsbl with the
     * dynamic engine): the option ld unless the passbands table gives one */
    double ld_band[SL_ML_MAX_BAND];
    int n_par;
    const char *names[SL_ML_PHOT_NPAR_MAX];
    double lo[SL_ML_PHOT_NPAR_MAX], hi[SL_ML_PHOT_NPAR_MAX];
    /* annual parallax: pi_E,N and pi_E,E follow the model's parameters, and
     * each observation has its offsets dn, de (ml_parallax.h) */
    int px;
    double time_offset; /* added to the data's times for the ephemeris */
    sl_ml_parallax par;
    double *dn, *de;
    /* satellite parallax: the observers' ephemerides (data "ephemeris") and
     * per passband the track it is seen from, -1 for the Earth; the
     * satellite's offsets are in dn, de already */
    sl_ml_ephemeris eph;
    int eph_of[SL_ML_MAX_BAND];
    /* the lens's orbital motion (SL_ML_ORBIT_*, ml_orbit.h): its parameters
     * after parallax's */
    int om;
    double t0_kep; /* NaN: each model's t0 */
    /* xallarap (ml_xallarap.h): on or off, its parameters after the lens
     * orbit's, about t0_xi */
    int xi;
    double t0_xi; /* NaN: each model's t0 (the one choice the options give) */
    /* fsbl: the maps' specs (fixed at prepare), the maps once made (on the
     * backend of the first evaluation) and the reader's view of them */
    int n_maps, maps_made;
    sl_ml_map_spec map_spec[SL_ML_FSBL_MAPS];
    sl_ml_map map[SL_ML_FSBL_MAPS];
    sl_ml_fsbl fs;
    double map_s;        /* the maps' shooting time (kernel time on CUDA) */
    void *cuda;          /* ml_like_cuda.cu's buffers (NULL until the first CUDA eval) */
    double kernel_s;
    /* fsbl with s and q free (SL_ML_PHOT_FSBL_DYN): the engine's tolerance */
    double tol;
} sl_ml_phot_ctx;

/* fsbl: makes the maps on be once (ml_like.c). */
sl_status sl_ml_phot_maps(sl_ml_phot_ctx *c, const sl_backend *be);

/* CUDA (ml_like_cuda.cu; ml_nocuda.c says it is missing). */
sl_status sl_ml_phot_cuda_eval(sl_ml_phot_ctx *c, const sl_backend *be, const double *params,
                               size_t n, double *loglik, double *chi2);
sl_status sl_ml_phot_cuda_eval_device(sl_ml_phot_ctx *c, const double *params, size_t n,
                                      const int *count, double *out, void *stream);
void sl_ml_phot_cuda_release(sl_ml_phot_ctx *c);

SL_EXTERN_C_END

#endif
