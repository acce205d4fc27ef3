/* The Lua configuration checker: starling.integrate{..., dry_run = true}
 * (and starling.ensemble{...} for its ensemble, and for some inputs
 * starling.likelihood with :eval) on configurations decoded
 * from the fuzz bytes by fuzz_lua_config.lua, in one Lua state with the
 * starling module, as the starling executable sets it up. A bad config
 * must raise a starling message; none may crash, leak or leave a file
 * behind (log paths are forced into the scratch folder, checked empty
 * after every input). */
#include <dirent.h>
#include <dlfcn.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "binding.h"
#include "fuzz_util.h"

static lua_State *L;
static int decode_ref;

static void close_state(void)
{
    /* every __gc runs, so what they fail to free shows as a leak at exit */
    lua_close(L);
    L = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    /* libgomp (which the lombscargle plugin loads through fftw3_omp) keeps
     * a few bytes for the life of the process; lua_close unloads the
     * plugins, and without OpenMP in this build (scripts/fuzz.sh) libgomp
     * would go with them, turning that memory into a leak report. Keep it
     * loaded, as libstarling does when built with OpenMP. */
    dlopen("libgomp.so.1", RTLD_NOW | RTLD_NODELETE);
    const char *dir = slf_tmpdir();
    L = luaL_newstate();
    SLF_CHECK(L, "no Lua state");
    luaL_openlibs(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_starling_core);
    lua_setfield(L, -2, "starling.core");
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    lua_pushliteral(L, SLF_LUA_DIR "/?.lua;" SLF_LUA_DIR "/?/init.lua");
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
    int st = luaL_loadfile(L, SLF_SOURCE_DIR "/fuzz_lua_config.lua");
    if (st == LUA_OK) {
        lua_pushstring(L, dir);
        lua_pushliteral(L, SLF_SOURCE_DIR);
        st = lua_pcall(L, 2, 1, 0);
    }
    SLF_CHECK(st == LUA_OK && lua_isfunction(L, -1), "loading the decoder: %s",
              lua_tostring(L, -1));
    decode_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    atexit(close_state);
    return 0;
}

/* A dry run creates its log's temporary file and removes it at once. */
static void check_nothing_left(const char *dir)
{
    DIR *d = opendir(dir);
    SLF_CHECK(d, "cannot list %s", dir);
    struct dirent *de;
    while ((de = readdir(d)))
        SLF_CHECK(!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."), "%s/%s was left behind",
                  dir, de->d_name);
    closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned long runs;
    lua_rawgeti(L, LUA_REGISTRYINDEX, decode_ref);
    lua_pushlstring(L, (const char *)data, size);
    int st = lua_pcall(L, 1, 2, 0);
    SLF_CHECK(st == LUA_OK, "the decoder failed: %s", lua_tostring(L, -1));
    if (getenv("SLF_VERBOSE"))
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
    SLF_CHECK(lua_isnil(L, -2), "%s\n%s", lua_tostring(L, -2), lua_tostring(L, -1));
    lua_settop(L, 0);
    check_nothing_left(slf_tmpdir());
    if (++runs % 256 == 0)
        lua_gc(L, LUA_GCCOLLECT);
    return 0;
}
