/* The plugin's Lua face: starling.ttv.read(path[, {columns = {...}}]),
 * the ttv likelihood's own transit-time reader, so that a script sees
 * exactly what the likelihood reads: {path =, n =, planet = {...}, t =
 * {...}, err = {...}, columns = {"planet", "t", "err"}, reader =
 * "starling.ttv.read"}, marked as data (starling.likelihood takes it). */
#include <string.h>

#include "nbody_rv.h"
#include "starling/lua_face.h"

static void push_list(lua_State *L, const double *x, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, x[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

typedef struct tr_guard {
    sl_nbody_transits d;
} tr_guard;

static int tr_guard_gc(lua_State *L)
{
    tr_guard *g = lua_touserdata(L, 1);
    sl_nbody_free_transits(&g->d);
    return 0;
}

static int l_ttv_read(lua_State *L)
{
    const char *path = sl_lua_check_str(L, 1, "ttv.read", "path");
    sl_data data = sl_data_file(path);
    if (!lua_isnoneornil(L, 2)) {
        if (lua_type(L, 2) != LUA_TTABLE) {
            char got[96];
            sl_lua_describe(L, 2, got, sizeof got);
            sl_lua_error(L, "ttv.read: options = %s: expected a table {columns = {...}}", got);
        }
        static const char *const extra[] = {"columns", NULL};
        sl_lua_check_keys(L, 2, "ttv.read", extra, NULL, 0, 0);
        sl_lua_data_picks(L, 2, "ttv.read", &data);
    }
    tr_guard *g = lua_newuserdatauv(L, sizeof *g, 0);
    memset(g, 0, sizeof *g);
    lua_newtable(L);
    lua_pushcfunction(L, tr_guard_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    sl_lua_check(L, sl_nbody_read_transits(&data, SL_NBODY_MAX_PL, &g->d), "ttv.read");
    const sl_nbody_transits *d = &g->d;
    lua_createtable(L, 0, 5);
    lua_pushstring(L, path);
    lua_setfield(L, -2, "path");
    lua_pushinteger(L, (lua_Integer)d->n);
    lua_setfield(L, -2, "n");
    lua_createtable(L, (int)d->n, 0);
    for (size_t i = 0; i < d->n; i++) {
        lua_pushinteger(L, d->planet[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "planet");
    push_list(L, d->t, d->n);
    lua_setfield(L, -2, "t");
    push_list(L, d->err, d->n);
    lua_setfield(L, -2, "err");
    static const char *const cols[] = {"planet", "t", "err"};
    lua_createtable(L, 3, 0);
    for (int k = 0; k < 3; k++) {
        lua_pushstring(L, cols[k]);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "columns");
    lua_pushstring(L, "starling.ttv.read");
    lua_setfield(L, -2, "reader");
    luaL_setmetatable(L, SL_LUA_DATA_OBJECT);
    return 1;
}

static int open_face(lua_State *L)
{
    luaL_newmetatable(L, SL_LUA_DATA_OBJECT);
    lua_pop(L, 1);
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
