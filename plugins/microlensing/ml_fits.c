/* A magnification map as a FITS image (cfitsio): the magnifications as
 * 64-bit floats, a linear world coordinate system in Einstein radii, and
 * every parameter that made the map in the header, so that the file alone
 * says how to make it again. Written as starling/output.h says (a
 * temporary file renamed into place, or a stream): a failure leaves no
 * half-written file and what was at PATH untouched. */
#include <fitsio.h>
#include <stdio.h>
#include <string.h>

#include "ml_internal.h"
#include "starling/output.h"

#define ML_FITS_TRY(call, what)                                                            \
    do {                                                                                   \
        if ((call), status) {                                                              \
            char msg_[FLEN_STATUS];                                                        \
            fits_get_errstatus(status, msg_);                                              \
            int ignore_ = 0;                                                               \
            fits_close_file(f, &ignore_);                                                  \
            sl_out_abort(&o);                                                              \
            return sl_fail(SL_ERR_IO, "microlensing: map: %s: %s: %s", path, (what), msg_);\
        }                                                                                  \
    } while (0)

sl_status sl_ml_map_write_fits(const sl_ml_map *m, const sl_ml_map_spec *spec, const char *path,
                               unsigned flags)
{
    if (!m || !m->A || !spec || !path || !*path)
        return sl_fail(SL_ERR_ARG, "microlensing: map: write_fits: no map or no path");
    sl_out o;
    sl_status st = sl_out_open(&o, path, flags | SL_OUT_BY_NAME);
    if (st)
        return sl_fail_context(st, "microlensing: map");
    char bang[4200];
    if (snprintf(bang, sizeof bang, "!%s", o.tmp) >= (int)sizeof bang) {
        sl_out_abort(&o);
        return sl_fail(SL_ERR_ARG, "microlensing: map: %s: path too long", path);
    } /* cfitsio's "!": the temporary file exists (empty) and is replaced */
    fitsfile *f = NULL;
    int status = 0;
    long naxes[2] = {m->nx, m->ny};
    fits_create_file(&f, bang, &status);
    if (status) {
        char msg[FLEN_STATUS];
        fits_get_errstatus(status, msg);
        sl_out_abort(&o);
        return sl_fail(SL_ERR_IO, "microlensing: map: cannot create %s: %s", path, msg);
    }
    ML_FITS_TRY(fits_create_img(f, DOUBLE_IMG, 2, naxes, &status), "creating the image");
    double dx = (m->x1 - m->x0) / m->nx, dy = (m->y1 - m->y0) / m->ny;
    double crval1 = m->x0 + 0.5 * dx, crval2 = m->y0 + 0.5 * dy, one = 1.0;
    ML_FITS_TRY(fits_write_key(f, TSTRING, "BUNIT", "", "magnification (rays over unlensed rays)",
                               &status), "BUNIT");
    ML_FITS_TRY(fits_write_key(f, TSTRING, "CTYPE1", "Y1", "source plane x, Einstein radii",
                               &status), "CTYPE1");
    ML_FITS_TRY(fits_write_key(f, TSTRING, "CTYPE2", "Y2", "source plane y, Einstein radii",
                               &status), "CTYPE2");
    ML_FITS_TRY(fits_write_key_dbl(f, "CRPIX1", one, -17, "", &status), "CRPIX1");
    ML_FITS_TRY(fits_write_key_dbl(f, "CRPIX2", one, -17, "", &status), "CRPIX2");
    ML_FITS_TRY(fits_write_key_dbl(f, "CRVAL1", crval1, -17, "first pixel's centre", &status),
                "CRVAL1");
    ML_FITS_TRY(fits_write_key_dbl(f, "CRVAL2", crval2, -17, "first pixel's centre", &status),
                "CRVAL2");
    ML_FITS_TRY(fits_write_key_dbl(f, "CDELT1", dx, -17, "pixel width", &status), "CDELT1");
    ML_FITS_TRY(fits_write_key_dbl(f, "CDELT2", dy, -17, "pixel height", &status), "CDELT2");
    int n = spec->lenses.n;
    ML_FITS_TRY(fits_write_key(f, TINT, "NLENS", &n, "point lenses (masses sum to 1)", &status),
                "NLENS");
    for (int i = 0; i < n; i++) {
        char k[32]; /* "LENS%dX" for any int, without -Wformat-truncation */
        snprintf(k, sizeof k, "LENS%dX", i + 1);
        ML_FITS_TRY(fits_write_key_dbl(f, k, spec->lenses.x[i], -17, "lens x", &status), k);
        snprintf(k, sizeof k, "LENS%dY", i + 1);
        ML_FITS_TRY(fits_write_key_dbl(f, k, spec->lenses.y[i], -17, "lens y", &status), k);
        snprintf(k, sizeof k, "LENS%dM", i + 1);
        ML_FITS_TRY(fits_write_key_dbl(f, k, spec->lenses.m[i], -17, "mass fraction",
                                   &status), k);
    }
    double rpp = spec->rays_per_pixel;
    long long seed = (long long)spec->seed, rays = (long long)m->rays, cells = m->cells,
              active = m->active, rpc = m->rays_per_cell;
    ML_FITS_TRY(fits_write_key_dbl(f, "RAYSPIX", rpp, -17, "rays per pixel's area", &status),
                "RAYSPIX");
    ML_FITS_TRY(fits_write_key(f, TLONGLONG, "SEED", &seed, "Philox key of the rays", &status),
                "SEED");
    ML_FITS_TRY(fits_write_key(f, TLONGLONG, "RAYS", &rays, "rays shot", &status), "RAYS");
    ML_FITS_TRY(fits_write_key(f, TLONGLONG, "RAYSCELL", &rpc, "rays per lens-plane cell",
                               &status), "RAYSCELL");
    ML_FITS_TRY(fits_write_key(f, TLONGLONG, "NCELLS", &cells, "lens-plane cells", &status),
                "NCELLS");
    ML_FITS_TRY(fits_write_key(f, TLONGLONG, "NACTIVE", &active, "cells shot", &status),
                "NACTIVE");
    ML_FITS_TRY(fits_write_key_dbl(f, "CELL", m->cell, -17, "cell side", &status), "CELL");
    static const char *const lb[4] = {"LPXMIN", "LPXMAX", "LPYMIN", "LPYMAX"};
    for (int i = 0; i < 4; i++)
        ML_FITS_TRY(fits_write_key_dbl(f, lb[i], m->lens_box[i], -17, "lens-plane region shot",
                                       &status), lb[i]);
    ML_FITS_TRY(fits_write_key(f, TSTRING, "CREATOR", "starling microlensing", "", &status),
                "CREATOR");
    ML_FITS_TRY(fits_write_img(f, TDOUBLE, 1, (LONGLONG)m->nx * m->ny, m->A, &status),
                "writing the pixels");
    ML_FITS_TRY(fits_close_file(f, &status), "closing");
    st = sl_out_commit(&o);
    return st ? sl_fail_context(st, "microlensing: map") : SL_OK;
}
