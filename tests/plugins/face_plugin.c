/* A plugin that is nothing but faces, for tests/test_lua.c: the front end
 * must find a Lua face and a command it has never heard of through the
 * registry alone.
 *   starling.core.slt_greet(name)  "hello, NAME" (C, over <starling/lua_face.h>)
 *   starling.slt_greet_twice(name) the same twice (the face's Lua chunk)
 *   starling slt_greet NAME         prints "hello, NAME"; exit 2 without a name */
#include <stdio.h>

#include "starling/face.h"
#include "starling/lua_face.h"

static int l_greet(lua_State *L)
{
    const char *who = sl_lua_check_str(L, 1, "slt_greet", "name");
    lua_pushfstring(L, "hello, %s", who);
    return 1;
}

static int open_face(lua_State *L)
{
    lua_pushcfunction(L, l_greet);
    lua_setfield(L, -2, "slt_greet");
    return 0;
}

static int greet_main(const sl_command_env *env, int argc, char **argv)
{
    if (argc != 1) {
        fprintf(env->err, "starling: slt_greet: expected one name\n");
        return SL_EXIT_USAGE;
    }
    fprintf(env->out, "hello, %s\n", argv[0]);
    return env->registry ? SL_EXIT_OK : SL_EXIT_ERROR;
}

static const sl_lua_face face = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LUA_FACE,
    .name = "slt_greet",
    .description = "starling.core.slt_greet(name)",
    .open = open_face,
    .chunk = "local core, M = ...\n"
             "function M.slt_greet_twice(name)\n"
             "  return core.slt_greet(name) .. ' ' .. core.slt_greet(name)\n"
             "end\n",
    .chunk_name = "slt_greet.lua",
};

static const sl_command command = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_COMMAND,
    .name = "slt_greet",
    .description = "greets",
    .synopsis = "       starling slt_greet NAME           greets NAME\n",
    .usage = "usage: starling slt_greet NAME\n",
    .main = greet_main,
};

static const sl_plugin_table tables[] = {
    {SL_KIND_LUA_FACE, "slt_greet", &face},
    {SL_KIND_COMMAND, "slt_greet", &command},
};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = "slt_greet",
    .version = "0.0",
    .description = "faces only",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
