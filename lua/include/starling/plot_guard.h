/* PLplot ends the process (plexit: "*** PLPLOT ERROR, IMMEDIATE EXIT ***")
 * on errors it cannot carry on from, e.g. an output file it cannot open or
 * a device it cannot load, and prints its messages straight to stderr.
 * Every PNG this front end writes through PLplot is drawn through
 * sl_plot_run, so that such a failure is an error naming the file, which a
 * script can catch with pcall, not an exit that loses unsaved results.
 *
 * While it draws, PLplot's exit handler (plsexit) jumps back into
 * sl_plot_run, its abort handler (plsabort) records the message of an
 * operation it refused, and its stderr text is captured, not printed: the
 * messages go into the returned error instead. The picture is written as
 * starling/output.h says (a temporary file renamed into place, a link
 * written through, a stream copied into). One plot at a time (PLplot's
 * handlers are global). */
#ifndef STARLING_PLOT_GUARD_H
#define STARLING_PLOT_GUARD_H

#include "starling/status.h"

SL_EXTERN_C_BEGIN

/* SL_OK when path may be written (sl_out_check with flags, output.h's
 * SL_OUT_*) and PLplot can load its pngcairo driver; else SL_ERR_IO naming
 * path and the reason. Asked before any work, so a bad path costs no
 * computation. */
sl_status sl_plot_png_ready(const char *path, unsigned flags);

/* sl_plot_png_ready, then draw(ctx) on a new pngcairo stream of w x h
 * pixels (white page), then the picture renamed into place. draw may be
 * left at any point by PLplot's fatal error (a longjmp): it must own
 * nothing that the caller does not free. Errors name path and what PLplot
 * said; a refused operation (plabort) fails the picture too. */
sl_status sl_plot_run(const char *path, unsigned flags, int w, int h, void (*draw)(void *ctx),
                      void *ctx);

SL_EXTERN_C_END

#endif
