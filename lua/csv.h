/* Files the Lua layer writes and reads. Plain C, no Lua: errors go through
 * sl_fail like the rest of the library, and nothing here prints. */
#ifndef STARLING_LUA_CSV_H
#define STARLING_LUA_CSV_H

#include <stdint.h>
#include <stdio.h>
#include "starling/ensemble.h"
#include "starling/output.h"
#include "starling/params.h" /* sl_fmt_num */


/* "# <line>" per entry; newlines inside a line are flattened to spaces so
 * that a header line can never turn into a data row. */
void sl_csv_comment_lines(FILE *f, const char *const *lines, size_t n);

#define SL_ENSEMBLE_CSV_HEADER "sys,body,m,x,y,z,vx,vy,vz"

void sl_csv_write_ensemble(FILE *f, const sl_ensemble *e);

/* Reads the format sl_csv_write_ensemble writes: the header above, one row
 * per body, systems and bodies 1-based and in order, '#' comments and blank
 * lines ignored. A comment "# seed = N" sets *seed and *has_seed. Errors
 * name the file, the line, the column and the value. */
sl_status sl_csv_read_ensemble(const char *path, sl_ensemble **out, int *has_seed,
                               uint64_t *seed);

#endif
