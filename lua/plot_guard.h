/* PLplot ends the process (plexit) when the device it is asked for cannot
 * be loaded, e.g. on a machine without its driver files. Every PNG this
 * front end writes through PLplot asks here first, so that a missing
 * driver is an error naming the file, not an exit. */
#ifndef STARLING_LUA_PLOT_GUARD_H
#define STARLING_LUA_PLOT_GUARD_H

#include "starling/status.h"

/* SL_OK when PLplot can load its pngcairo driver; else SL_ERR_IO with a
 * message naming path and PLplot's driver folder. */
sl_status sl_plot_png_ready(const char *path);

#endif
