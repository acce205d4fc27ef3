/* What a plugin shows to front ends besides its interface tables: a Lua
 * face (functions it adds to the `starling` Lua module) and command-line
 * subcommands of the `starling` executable. Front ends find them in the
 * registry (SL_KIND_LUA_FACE, SL_KIND_COMMAND) and loop over them, so a
 * front end names no plugin. Core does not depend on Lua: lua_State is only
 * declared here, and the helpers a Lua face uses are the front end's
 * library, <starling/lua_face.h>. */
#ifndef STARLING_FACE_H
#define STARLING_FACE_H

#include <stdio.h>
#include "starling/plugin.h"

SL_EXTERN_C_BEGIN

struct lua_State;
struct sl_registry;

/* SL_KIND_LUA_FACE: open is called once per Lua state, with the module
 * table `starling.core` on top of the stack; it adds its functions there
 * (lua_setfield(L, -2, "name")) and leaves the stack as it found it. It
 * returns 0; an error is raised (lua_error), as any Lua C function does. */
typedef struct sl_lua_face {
    SL_TABLE_HEAD;
    int (*open)(struct lua_State *L);
    /* Lua code run after open, or NULL: a chunk that gets the module table
     * `starling` (the pure-Lua library's) as its argument, for the parts of
     * a face better written in Lua. `chunk_name` names it in tracebacks. */
    const char *chunk;
    const char *chunk_name;
} sl_lua_face;

/* Exit statuses of the `starling` executable, which commands return. */
enum { SL_EXIT_OK = 0, SL_EXIT_ERROR = 1, SL_EXIT_USAGE = 2, SL_EXIT_PARTIAL = 3 };

/* What the executable gives a command: its plugins, where the command's
 * results (out) and messages (err) go, and how to honour an interrupt. */
typedef struct sl_command_env {
    const struct sl_registry *registry;
    FILE *out, *err;
    /* Nonzero once the user asked to stop (SIGINT/SIGTERM). */
    int (*stopped)(void);
    /* After stopping: says on err "starling: interrupted (<where>)..." and
     * returns the exit status (128 + the signal). */
    int (*interrupted)(const char *where);
} sl_command_env;

/* SL_KIND_COMMAND: `starling NAME ARGS...` runs main(env, argc, argv) with
 * the ARGS; `starling help NAME` and `starling NAME --help` print usage
 * (the executable handles --help before main). `synopsis` is its lines in
 * the summary `starling help` prints (each line ends with '\n'). */
typedef struct sl_command {
    SL_TABLE_HEAD;
    const char *synopsis;
    const char *usage;
    int (*main)(const sl_command_env *env, int argc, char **argv);
} sl_command;

SL_EXTERN_C_END

#endif
