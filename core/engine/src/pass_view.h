/* Where a pass of sl_integrate keeps its systems while it runs: device
 * pointers on CUDA, the ensemble's own arrays on the CPU (the layout of
 * sl_ensemble either way). */
#ifndef SL_PASS_VIEW_H
#define SL_PASS_VIEW_H

#include <stdint.h>

typedef struct sl__pass_view {
    double *state, *time, *stop_time;
    int32_t *status, *reason, *detail;
    int64_t n_sys;
    int n_body;
} sl__pass_view;

#endif
