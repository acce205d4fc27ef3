/* The plugin's Lua face: starling.ttv.read(path[, {columns = {...}}]),
 * the ttv likelihood's own transit-time reader, so that a script sees
 * exactly what the likelihood reads: {path =, n =, planet = {...}, t =
 * {...}, err = {...}, columns = {"planet", "t", "err"}, reader =
 * "starling.ttv.read"}, marked as data (starling.likelihood takes it). */
#include "nbody_rv.h"
#include "starling/lua_face.h"

static void release_transits(void *p)
{
    sl_nbody_free_transits(p);
}

static int l_ttv_read(lua_State *L)
{
    sl_data data = sl_lua_reader_args(L, "ttv.read");
    sl_nbody_transits *d = sl_lua_reader_guard(L, sizeof *d, release_transits);
    sl_lua_check(L, sl_nbody_read_transits(&data, SL_NBODY_MAX_PL, d), "ttv.read");
    sl_lua_data_object_new(L, data.path, d->n, 3);
    lua_createtable(L, (int)d->n, 0);
    for (size_t i = 0; i < d->n; i++) {
        lua_pushinteger(L, d->planet[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "planet");
    sl_lua_push_numbers(L, d->t, d->n);
    lua_setfield(L, -2, "t");
    sl_lua_push_numbers(L, d->err, d->n);
    lua_setfield(L, -2, "err");
    static const char *const cols[] = {"planet", "t", "err", NULL};
    sl_lua_data_object_seal(L, cols, "starling.ttv.read");
    return 1;
}

static int open_face(lua_State *L)
{
    lua_pushcfunction(L, l_ttv_read);
    lua_setfield(L, -2, "ttv_read");
    return 0;
}

const sl_lua_face sl_nbody_lua_face = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LUA_FACE,
    .name = "nbody_rv",
    .description = "starling.ttv.read(path): transit times as the ttv likelihood reads them",
    .open = open_face,
    .chunk = "local core, M = ...\n"
             "--- Transit times: starling.ttv.read(path[, {columns = {planet = \"pl\",\n"
             "--- time = \"tmid\", error = \"sig\"}}]) gives {path, n, planet, t, err}\n"
             "--- (days); a bad line is an error naming file:line.\n"
             "M.ttv = { read = function(path, opts) return core.ttv_read(path, opts) end }\n",
    .chunk_name = "nbody_rv.lua",
};
