/* Numbers in the CSV files the front end writes: %.17g, which reads back
 * as the same double, but NaN as "nan" whatever its sign bit (printf writes
 * "-nan" for the NaN of 0/0 on x86, a spelling that says nothing more and
 * that some readers refuse). */
#ifndef STARLING_LUA_NUM_TEXT_H
#define STARLING_LUA_NUM_TEXT_H

#include <math.h>
#include <stdio.h>

/* `before` (e.g. ",") then v. */
static inline void sl_put_num(FILE *f, const char *before, double v)
{
    if (isnan(v))
        fprintf(f, "%snan", before);
    else
        fprintf(f, "%s%.17g", before, v);
}

#endif
