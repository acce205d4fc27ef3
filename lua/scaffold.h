/* `starling new KIND NAME [DIR]`: writes a small working plugin from the
 * templates installed in share/starling/scaffolds/KIND. */
#ifndef STARLING_LUA_SCAFFOLD_H
#define STARLING_LUA_SCAFFOLD_H

#include <stddef.h>
#include "starling/status.h"

/* The scaffolds folder beside the executable (../share/starling/scaffolds),
 * as the Lua library is found, so build trees and installs both work. */
sl_status sl_scaffold_dir(char *buf, size_t cap);

/* Writes template folder `templates`/`kind` into `dir` (which must not
 * exist, or be empty), with @NAME@ and @NAME_UPPER@ in file names and text
 * replaced by `name`. The files appear at once: they are written into a
 * temporary sibling folder that is then renamed. `n_files` gets how many
 * were written. */
sl_status sl_scaffold_write(const char *templates, const char *kind, const char *name,
                            const char *dir, size_t *n_files);

#endif
