/* Data for plugins from Lua (starling/data.h): a file name, columns by
 * name ({t = {...}, rv = {...}, err = {...}, inst = {...}}), or a data
 * object from a plugin's reader (starling.rv.read, starling.ttv.read), plus the user's choice of columns
 * (columns = {rv = "vel2", ...}). The plugin matches the columns by its
 * own names; here only the Lua values are checked, each error naming the
 * key and element. Arrays live in one userdata left on the stack, and
 * strings in the user's tables, which are on the stack too: both stay
 * alive until the caller returns, and Lua frees them after any error. */
#include <string.h>

#include "starling/lua_face.h"

#define DATA_WANT "a file name or columns by name, e.g. {t = {...}, rv = {...}, err = {...}}"

/* The list at idx as column `name`: its length, after checking that it is
 * a non-empty list of numbers or of strings (*text says which). */
static size_t column_shape(lua_State *L, int idx, const char *ctx, const char *name, int *text)
{
    size_t len = lua_type(L, idx) == LUA_TTABLE ? lua_rawlen(L, idx) : 0;
    if (len == 0) {
        char got[96];
        sl_lua_describe(L, idx, got, sizeof got);
        sl_lua_error(L, "%s: data.%s = %s: expected a list of numbers or of names", ctx, name,
                     lua_type(L, idx) == LUA_TTABLE ? "an empty list" : got);
    }
    *text = lua_rawgeti(L, idx, 1) == LUA_TSTRING;
    lua_pop(L, 1);
    return len;
}

static void fill_column(lua_State *L, int idx, const char *ctx, sl_data_column *c, size_t n,
                        void *store)
{
    for (size_t i = 0; i < n; i++) {
        int t = lua_rawgeti(L, idx, (lua_Integer)i + 1);
        if (c->text ? t != LUA_TSTRING : t != LUA_TNUMBER) {
            char got[96];
            sl_lua_describe(L, -1, got, sizeof got);
            sl_lua_error(L, "%s: data.%s[%zu] = %s: expected %s, as data.%s[1]", ctx, c->name,
                         i + 1, got, c->text ? "a name" : "a number", c->name);
        }
        if (c->text)
            ((const char **)store)[i] = lua_tostring(L, -1); /* alive in the user's table */
        else
            ((double *)store)[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
}

/* Every entry of the table at tidx as a column named by its key. */
static void read_columns(lua_State *L, int tidx, const char *ctx, sl_data *d)
{
    tidx = lua_absindex(L, tidx);
    size_t n_cols = 0, n_rows = 0;
    for (lua_pushnil(L); lua_next(L, tidx); lua_pop(L, 1)) { /* names and shapes */
        if (lua_type(L, -2) != LUA_TSTRING) {
            char k[96], v[96];
            sl_lua_describe(L, -2, k, sizeof k);
            sl_lua_describe(L, -1, v, sizeof v);
            sl_lua_error(L, "%s: key 'data': entry [%s] = %s: expected " DATA_WANT, ctx, k, v);
        }
        int text;
        size_t len = column_shape(L, -1, ctx, lua_tostring(L, -2), &text);
        if (n_cols++ && len != n_rows)
            sl_lua_error(L, "%s: data.%s has %zu values, another column %zu: expected columns "
                            "of one length", ctx, lua_tostring(L, -2), len, n_rows);
        n_rows = len;
    }
    if (n_cols == 0)
        sl_lua_error(L, "%s: key 'data' = an empty table: expected " DATA_WANT, ctx);
    /* one block for the column list and every value */
    size_t cell = sizeof(double) > sizeof(char *) ? sizeof(double) : sizeof(char *);
    sl_data_column *cols = lua_newuserdatauv(L, n_cols * (sizeof *cols + n_rows * cell), 0);
    char *store = (char *)(cols + n_cols);
    size_t c = 0;
    for (lua_pushnil(L); lua_next(L, tidx); lua_pop(L, 1), c++) {
        int text;
        column_shape(L, -1, ctx, lua_tostring(L, -2), &text);
        void *values = store + c * n_rows * cell;
        cols[c] = (sl_data_column){lua_tostring(L, -2), text ? NULL : (const double *)values,
                                   text ? (const char *const *)values : NULL};
        fill_column(L, lua_gettop(L), ctx, &cols[c], n_rows, values);
    }
    d->cols = cols; /* the block stays on the stack */
    d->n_cols = n_cols;
    d->n_rows = n_rows;
}

void sl_lua_data_picks(lua_State *L, int cfg, const char *ctx, sl_data *d)
{
    cfg = lua_absindex(L, cfg);
    int t = lua_getfield(L, cfg, "columns");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (t != LUA_TTABLE) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, "%s: key 'columns' = %s: expected a table {rv = \"vel2\", ...} naming "
                        "the column to take for each of the plugin's", ctx, got);
    }
    int tab = lua_gettop(L);
    size_t n = 0;
    for (lua_pushnil(L); lua_next(L, tab); lua_pop(L, 1)) {
        char k[96], v[96];
        sl_lua_describe(L, -2, k, sizeof k);
        sl_lua_describe(L, -1, v, sizeof v);
        if (lua_type(L, -2) != LUA_TSTRING)
            sl_lua_error(L, "%s: columns: entry [%s] = %s: expected name = \"column\" pairs", ctx,
                         k, v);
        if (lua_type(L, -1) != LUA_TSTRING)
            sl_lua_error(L, "%s: columns.%s = %s: expected a column name (a string)", ctx,
                         lua_tostring(L, -2), v);
        n++;
    }
    sl_data_pick *p = lua_newuserdatauv(L, (n ? n : 1) * sizeof *p, 0);
    size_t i = 0;
    for (lua_pushnil(L); lua_next(L, tab); lua_pop(L, 1))
        p[i++] = (sl_data_pick){lua_tostring(L, -2), lua_tostring(L, -1)}; /* alive in cfg */
    lua_remove(L, tab); /* the picks' userdata stays */
    d->picks = p;
    d->n_picks = n;
}

int sl_lua_data(lua_State *L, int cfg, const char *ctx, const char *object_mt, sl_data *d)
{
    if (!sl_lua_data_key(L, cfg, "data", ctx, object_mt, d))
        return 0;
    sl_lua_data_picks(L, cfg, ctx, d);
    return 1;
}

int sl_lua_data_key(lua_State *L, int cfg, const char *key, const char *ctx,
                    const char *object_mt, sl_data *d)
{
    cfg = lua_absindex(L, cfg);
    memset(d, 0, sizeof *d);
    int t = lua_getfield(L, cfg, key);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    int object = 0;
    if (t == LUA_TTABLE && object_mt && lua_getmetatable(L, -1)) {
        luaL_getmetatable(L, object_mt);
        object = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
    }
    if (t == LUA_TSTRING && *lua_tostring(L, -1))
        d->path = lua_tostring(L, -1); /* alive in cfg */
    else if (object) {
        /* A reader's object (starling.rv.read, starling.ttv.read): the
         * columns it lists in `columns`, in memory (as read, so they need
         * not be read again), said to come from its `reader`. An object
         * without the list hands over an RV reader's columns. */
        static const char *const rv_keys[] = {"t", "v", "err", "instrument"};
        int obj = lua_gettop(L);
        lua_getfield(L, obj, "reader");
        lua_getfield(L, obj, "path");
        lua_pushfstring(L, "%s(\"%s\")",
                        lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "starling.rv.read",
                        lua_tostring(L, -1));
        d->source = lua_tostring(L, -1); /* alive on the stack */
        lua_createtable(L, 0, 4);
        int cols = lua_gettop(L);
        if (lua_getfield(L, obj, "columns") == LUA_TTABLE) {
            for (lua_Integer k = 1; lua_rawgeti(L, -1, k) == LUA_TSTRING; k++) {
                lua_getfield(L, obj, lua_tostring(L, -1));
                lua_setfield(L, cols, lua_tostring(L, -2));
                lua_pop(L, 1);
            }
            lua_pop(L, 2);
        } else {
            lua_pop(L, 1);
            for (int k = 0; k < 4; k++) {
                lua_getfield(L, obj, rv_keys[k]);
                lua_setfield(L, cols, rv_keys[k]);
            }
        }
        read_columns(L, cols, ctx, d);
    } else if (t == LUA_TTABLE)
        read_columns(L, -1, ctx, d);
    else {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, "%s: key '%s' = %s: expected " DATA_WANT, ctx, key, got);
    }
    return 1;
}
