/* The structure of a FITS file, checked with plain stdio before cfitsio
 * reads it: cfitsio trusts headers, and on some malformed cards (cfitsio
 * 4.2.0: an unquoted TTYPEn value of 70 characters) it overflows a buffer
 * and aborts the process. */
#ifndef SL_LS_FITS_CARDS_H
#define SL_LS_FITS_CARDS_H

#include "starling/status.h"

/* Checks every header of every HDU against the card rules of the FITS
 * Standard (4.0, sections 3-4): the file is whole 2880-byte blocks; a header
 * is 80-byte cards of printable ASCII ending with END; keywords are
 * [A-Z0-9_-], left-justified; a value follows "= " in columns 9-10; the
 * mandatory keywords come first, in order, with integer values in range;
 * TTYPEn and TFORMn values are quoted strings. Data units are skipped by the
 * size those keywords give (as cfitsio computes it) and must lie inside the
 * file. Blocks after the last HDU that do not start with XTENSION (the
 * standard's special records) are not read, as cfitsio does not read them.
 * Errors (SL_ERR_IO) name the file, the HDU, the card and its byte offset,
 * the text (non-printable bytes as \xNN) and what was expected. */
sl_status sl_fits_check(const char *path);

#endif
