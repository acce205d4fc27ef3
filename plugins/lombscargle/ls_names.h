/* Column names of light curves, for the text (ls_io.c) and FITS (ls_fits.c)
 * readers alike: case-insensitive, and within a list an earlier name wins
 * when a file has several (PDCSAP_FLUX before SAP_FLUX). */
#ifndef STARLING_LS_NAMES_H
#define STARLING_LS_NAMES_H

extern const char *const sl_ls_t_names[];
extern const char *const sl_ls_y_names[];
extern const char *const sl_ls_dy_names[];
extern const char *const sl_ls_id_names[];

#endif
