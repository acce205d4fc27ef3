/* sl_plot_png_ready (plot_guard.h): PLplot's list of the devices it can
 * load, asked before plsdev, whose failure would exit. */
#include "plot_guard.h"

#include <plplot.h>
#include <stdlib.h>
#include <string.h>

sl_status sl_plot_png_ready(const char *path)
{
    enum { N = 128 };
    const char *menu[N], *dev[N];
    const char **pm = menu, **pd = dev;
    int n = N;
    plgDevs(&pm, &pd, &n);
    for (int i = 0; i < n; i++)
        if (dev[i] && !strcmp(dev[i], "pngcairo"))
            return SL_OK;
    const char *dir = getenv("PLPLOT_DRV_DIR");
    return sl_fail(SL_ERR_IO, "cannot write %s: PLplot cannot load its pngcairo driver (%d "
                   "devices found%s%s); install PLplot's cairo driver (Debian: "
                   "plplot-driver-cairo) or point PLPLOT_DRV_DIR at it", path,
                   n, dir ? ", PLPLOT_DRV_DIR = " : "", dir ? dir : "");
}
