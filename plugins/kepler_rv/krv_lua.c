/* The plugin's Lua face: starling.rv.read(path[, {columns = {...}}]), the
 * plugin's own reader (rv_data.c), so that a script sees exactly what the
 * likelihood reads. The data object is a plain table (easy to plot from)
 * with the metatable SL_LUA_DATA_OBJECT that marks it, so that
 * starling.likelihood takes it as data: {path =, n =, t =, v =, err =,
 * instrument = {name per point}, instruments = {names}, columns = {the
 * fields handed over}, reader = "starling.rv.read"}. Options:
 * {columns = {time = "BJD", rv = "vel", err = "e_vel", inst = "tel"}}. */
#include <string.h>

#include "krv_faces.h"
#include "rv_data.h"
#include "starling/lua_face.h"

static void push_list(lua_State *L, const double *x, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, x[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

typedef struct rv_guard {
    sl_rv_data d;
} rv_guard;

static int rv_guard_gc(lua_State *L)
{
    rv_guard *g = lua_touserdata(L, 1);
    sl_rv_free(&g->d);
    memset(g, 0, sizeof *g);
    return 0;
}

static int l_rv_read(lua_State *L)
{
    const char *path = sl_lua_check_str(L, 1, "rv.read", "path");
    sl_data data = sl_data_file(path);
    if (!lua_isnoneornil(L, 2)) {
        if (lua_type(L, 2) != LUA_TTABLE) {
            char got[96];
            sl_lua_describe(L, 2, got, sizeof got);
            sl_lua_error(L, "rv.read: options = %s: expected a table {columns = {...}}", got);
        }
        static const char *const extra[] = {"columns", NULL};
        sl_lua_check_keys(L, 2, "rv.read", extra, NULL, 0, 0);
        sl_lua_data_picks(L, 2, "rv.read", &data);
    }
    rv_guard *g = lua_newuserdatauv(L, sizeof *g, 0);
    memset(g, 0, sizeof *g);
    lua_newtable(L);
    lua_pushcfunction(L, rv_guard_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    sl_lua_check(L, sl_rv_read_data(&data, &g->d), "rv.read");
    const sl_rv_data *d = &g->d;
    lua_createtable(L, 0, 8);
    lua_pushstring(L, path);
    lua_setfield(L, -2, "path");
    lua_pushinteger(L, (lua_Integer)d->n);
    lua_setfield(L, -2, "n");
    push_list(L, d->t, d->n);
    lua_setfield(L, -2, "t");
    push_list(L, d->v, d->n);
    lua_setfield(L, -2, "v");
    push_list(L, d->err, d->n);
    lua_setfield(L, -2, "err");
    lua_createtable(L, (int)d->n, 0);
    for (size_t i = 0; i < d->n; i++) {
        lua_pushstring(L, d->inst_names[d->inst[i]]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "instrument");
    lua_createtable(L, d->n_inst, 0);
    for (int i = 0; i < d->n_inst; i++) {
        lua_pushstring(L, d->inst_names[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "instruments");
    /* what starling.likelihood hands over when given this object */
    static const char *const cols[] = {"t", "v", "err", "instrument"};
    lua_createtable(L, 4, 0);
    for (int k = 0; k < 4; k++) {
        lua_pushstring(L, cols[k]);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "columns");
    lua_pushstring(L, "starling.rv.read");
    lua_setfield(L, -2, "reader");
    luaL_setmetatable(L, SL_LUA_DATA_OBJECT);
    return 1;
}

static int open_face(lua_State *L)
{
    luaL_newmetatable(L, SL_LUA_DATA_OBJECT);
    lua_pop(L, 1);
    lua_pushcfunction(L, l_rv_read);
    lua_setfield(L, -2, "rv_read");
    return 0;
}

const sl_lua_face sl_krv_lua_face = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LUA_FACE,
    .name = "kepler_rv",
    .description = "starling.rv.read(path): RV data as the likelihood reads it",
    .open = open_face,
    .chunk = "local core, M = ...\n"
             "--- Radial-velocity data: starling.rv.read(path[, {columns = {time = \"BJD\",\n"
             "--- rv = \"vel\", err = \"e_vel\", inst = \"tel\"}}]) gives {path, n, t, v, err,\n"
             "--- instrument = {name per point}, instruments = {names}}; a bad line is an\n"
             "--- error naming file:line.\n"
             "M.rv = { read = function(path, opts) return core.rv_read(path, opts) end }\n",
    .chunk_name = "kepler_rv.lua",
};
