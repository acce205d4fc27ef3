/* What every plugin's data reader (starling.rv.read, starling.ttv.read)
 * does the same way: take (path[, {columns = {...}}]), hold what it read in
 * a userdata that frees it when collected (so that an error frees it too),
 * and hand back a plain table of columns marked SL_LUA_DATA_OBJECT, which
 * starling.likelihood takes as data. */
#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "starling/lua_face.h"

#define GUARD_MT "starling.reader_guard"

/* The release function sits before the reader's struct, which keeps the
 * alignment of any type. */
typedef struct guard_head {
    void (*release)(void *);
} guard_head;
#define GUARD_BODY                                                                          \
    ((sizeof(guard_head) + alignof(max_align_t) - 1) / alignof(max_align_t) *             \
     alignof(max_align_t))

static int guard_gc(lua_State *L)
{
    unsigned char *p = luaL_checkudata(L, 1, GUARD_MT);
    guard_head *h = (guard_head *)p;
    if (h->release) {
        h->release(p + GUARD_BODY);
        h->release = NULL;
    }
    return 0;
}

sl_data sl_lua_reader_args(lua_State *L, const char *fn)
{
    const char *path = sl_lua_check_str(L, 1, fn, "path");
    sl_data data = sl_data_file(path);
    if (lua_isnoneornil(L, 2))
        return data;
    if (lua_type(L, 2) != LUA_TTABLE) {
        char got[96];
        sl_lua_describe(L, 2, got, sizeof got);
        sl_lua_error(L, "%s: options = %s: expected a table {columns = {...}}", fn, got);
    }
    static const char *const extra[] = {"columns", NULL};
    sl_lua_check_keys(L, 2, fn, extra, NULL, 0, 0);
    sl_lua_data_picks(L, 2, fn, &data);
    return data;
}

void *sl_lua_reader_guard(lua_State *L, size_t size, void (*release)(void *))
{
    unsigned char *p = lua_newuserdatauv(L, GUARD_BODY + size, 0);
    memset(p, 0, GUARD_BODY + size);
    ((guard_head *)p)->release = release;
    if (luaL_newmetatable(L, GUARD_MT)) {
        lua_pushcfunction(L, guard_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return p + GUARD_BODY;
}

void sl_lua_push_numbers(lua_State *L, const double *x, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, x[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

void sl_lua_data_object_new(lua_State *L, const char *path, size_t n, int n_fields)
{
    lua_createtable(L, 0, n_fields + 4);
    lua_pushstring(L, path);
    lua_setfield(L, -2, "path");
    lua_pushinteger(L, (lua_Integer)n);
    lua_setfield(L, -2, "n");
}

void sl_lua_data_object_seal(lua_State *L, const char *const *columns, const char *reader)
{
    int n = 0;
    while (columns[n])
        n++;
    lua_createtable(L, n, 0);
    for (int k = 0; k < n; k++) {
        lua_pushstring(L, columns[k]);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "columns");
    lua_pushstring(L, reader);
    lua_setfield(L, -2, "reader");
    luaL_newmetatable(L, SL_LUA_DATA_OBJECT);
    lua_setmetatable(L, -2);
}
