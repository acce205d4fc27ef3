/* The plugin's faces: starling.rv.read for Lua scripts (krv_lua.c), listed
 * in its tables beside the likelihood. */
#ifndef STARLING_KRV_FACES_H
#define STARLING_KRV_FACES_H

#include "starling/face.h"

SL_EXTERN_C_BEGIN

extern const sl_lua_face sl_krv_lua_face;

SL_EXTERN_C_END

#endif
