/* The plugin's faces: starling.lombscargle for Lua scripts (ls_lua.c) and
 * the `starling ls` command (ls_command.c), listed in its tables beside the
 * periodogram itself, with the checks of its layout. */
#ifndef STARLING_LS_FACES_H
#define STARLING_LS_FACES_H

#include "lombscargle.h"
#include "starling/conformance.h"
#include "starling/face.h"

SL_EXTERN_C_BEGIN

/* The periodogram (ls_plugin.c), which the faces call. */
extern const sl_periodogram sl_ls_table;
/* Its layout's checks (ls_check.c), for `starling check-plugin`. */
extern const sl_check_set sl_ls_check_table;

extern const sl_lua_face sl_ls_lua_face;
extern const sl_command sl_ls_command;

SL_EXTERN_C_END

#endif
