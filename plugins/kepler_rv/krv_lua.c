/* The plugin's Lua face: starling.rv.read(path[, {columns = {...}}]), the
 * plugin's own reader (rv_data.c), so that a script sees exactly what the
 * likelihood reads. The data object is a plain table (easy to plot from)
 * with the metatable SL_LUA_DATA_OBJECT that marks it, so that
 * starling.likelihood takes it as data: {path =, n =, t =, v =, err =,
 * instrument = {name per point}, instruments = {names}, columns = {the
 * fields handed over}, reader = "starling.rv.read"}. Options:
 * {columns = {time = "BJD", rv = "vel", err = "e_vel", inst = "tel"}}. */
#include "krv_faces.h"
#include "rv_data.h"
#include "starling/lua_face.h"

static void release_rv(void *p)
{
    sl_rv_free(p);
}

static int l_rv_read(lua_State *L)
{
    sl_data data = sl_lua_reader_args(L, "rv.read");
    sl_rv_data *d = sl_lua_reader_guard(L, sizeof *d, release_rv);
    sl_lua_check(L, sl_rv_read_data(&data, d), "rv.read");
    sl_lua_data_object_new(L, data.path, d->n, 5);
    sl_lua_push_numbers(L, d->t, d->n);
    lua_setfield(L, -2, "t");
    sl_lua_push_numbers(L, d->v, d->n);
    lua_setfield(L, -2, "v");
    sl_lua_push_numbers(L, d->err, d->n);
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
    static const char *const cols[] = {"t", "v", "err", "instrument", NULL};
    sl_lua_data_object_seal(L, cols, "starling.rv.read");
    return 1;
}

static int open_face(lua_State *L)
{
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
