/* @NAME@: the rule, apart from the plugin table so that test_@NAME@.c can
 * call it directly. A planet (any body but body 0) nearer to the star (body
 * 0) than r_min stops its system with "too_close", one farther than r_max
 * with "too_far"; the first planet out of bounds decides. */
#ifndef @NAME_UPPER@_H
#define @NAME_UPPER@_H

#include <starling/monitor.h>

/* The codes check returns, 1-based into @NAME@'s codes list. */
enum { @NAME_UPPER@_GO_ON = 0, @NAME_UPPER@_TOO_CLOSE = 1, @NAME_UPPER@_TOO_FAR = 2 };

/* What prepare makes from the parameters; check only reads it. */
typedef struct @NAME@_bounds {
    double r_min, r_max;
} @NAME@_bounds;

static inline int @NAME@_rule(const @NAME@_bounds *b, const sl_monitor_system *sys)
{
    const double *x = sys->x; /* body k at x[3k], x[3k+1], x[3k+2] */
    for (int k = 1; k < sys->n_body; k++) {
        double dx = x[3 * k] - x[0], dy = x[3 * k + 1] - x[1], dz = x[3 * k + 2] - x[2];
        double r2 = dx * dx + dy * dy + dz * dz; /* squared: no sqrt per body */
        if (r2 < b->r_min * b->r_min)
            return @NAME_UPPER@_TOO_CLOSE;
        if (r2 > b->r_max * b->r_max)
            return @NAME_UPPER@_TOO_FAR;
    }
    return @NAME_UPPER@_GO_ON;
}

#endif
