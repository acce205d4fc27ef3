/* The C half of the Lua module: "starling.core", preloaded by the starling
 * executable and wrapped by the pure-Lua library in lua/starling/. binding.c
 * opens it from its parts (binding_util.h). */
#ifndef STARLING_LUA_BINDING_H
#define STARLING_LUA_BINDING_H

#include "binding_util.h"

int luaopen_starling_core(lua_State *L);

#endif
