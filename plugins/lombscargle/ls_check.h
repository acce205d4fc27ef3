/* The conformance checks of lombscargle's table. Core checks a periodogram
 * table's head only (its layout is this plugin's, lombscargle.h); these
 * checks know the layout, and front ends pass them to the suite as an
 * sl_check_extra (`starling check-plugin` does):
 *
 *   configure        the defaults are accepted
 *   repeat           5 light curves of 30..90 points, full output: the
 *                    same batch twice gives the same bits
 *   batch_vs_single  each curve alone gives the bits it got in the batch
 *   refuse_bad       an unknown choice, f_min > f_max and a 2-point curve
 *                    are refused with messages
 *   cuda             CPU and CUDA powers agree to 1e-9 relative (FP64) */
#ifndef STARLING_LS_CHECK_H
#define STARLING_LS_CHECK_H

#include "starling/conformance.h"

SL_EXTERN_C_BEGIN

sl_status sl_ls_check(const void *table, const sl_check_options *o, sl_check_report *r);

/* {SL_KIND_PERIODOGRAM, "lombscargle", sl_ls_check} */
extern const sl_check_extra sl_ls_check_extra;

SL_EXTERN_C_END

#endif
