/* Keys in a Lua state's registry shared by the executable's module and the
 * helpers of face.c. */
#ifndef STARLING_LUA_FACE_KEYS_H
#define STARLING_LUA_FACE_KEYS_H

#define SL_REGISTRY_KEY "starling.registry"
#define SL_LIBSOURCE_KEY "starling.libsource"

#endif
