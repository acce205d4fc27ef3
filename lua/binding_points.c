/* starling.points_png{...}: data points with error bars and model lines in
 * one PNG (lua/mcmc_plot.c, PLplot), e.g. radial velocities and posterior
 * models:
 *
 *   starling.points_png{ path = "rv.png", x = {...}, y = {...}, err = {...},
 *                        group = {1, 1, 2, ...} (colours, e.g. instruments),
 *                        grid = {...}, lines = {{...}, {...}} (each on grid),
 *                        last_bold = true, title =, xlabel =, ylabel =,
 *                        width = 1000, height = 600 }
 *
 * Every list is checked (numbers, lengths) before anything is drawn. */
#include <math.h>
#include <string.h>

#include "binding_util.h"
#include "mcmc_plot.h"

#define FN "points_png"

/* The list at key `key` of table t as doubles in a userdata left on the
 * stack; n: its length (checked against *n when *n >= 0). NULL if absent
 * and not required. */
static double *num_list(lua_State *L, int t, const char *key, int64_t *n, int required)
{
    if (lua_getfield(L, t, key) == LUA_TNIL) {
        if (required)
            sl_lua_error(L, FN ": key '%s' is required: a list of numbers", key);
        lua_pop(L, 1);
        return NULL;
    }
    if (!lua_istable(L, -1))
        sl_lua_error(L, FN ": key '%s': expected a list of numbers", key);
    int64_t len = (int64_t)lua_rawlen(L, -1);
    if (*n >= 0 && len != *n)
        sl_lua_error(L, FN ": key '%s' has %lld values: expected %lld, as x", key,
                     (long long)len, (long long)*n);
    *n = len;
    double *v = lua_newuserdatauv(L, (size_t)(len > 0 ? len : 1) * sizeof *v, 0);
    for (int64_t i = 0; i < len; i++) {
        lua_rawgeti(L, -2, (lua_Integer)i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER || isnan(lua_tonumber(L, -1)))
            sl_lua_error(L, FN ": %s[%lld]: expected a number", key, (long long)i + 1);
        v[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_remove(L, -2); /* the list; the userdata stays */
    return v;
}

static const char *opt_str(lua_State *L, int t, const char *key)
{
    if (lua_getfield(L, t, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    return sl_lua_check_str(L, lua_gettop(L), FN, key); /* stays on the stack */
}

static int opt_int(lua_State *L, int t, const char *key, int def)
{
    int v = def;
    if (lua_getfield(L, t, key) != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 100 || lua_tointeger(L, -1) > 10000)
            sl_lua_error(L, FN ": %s: expected a whole number of pixels in [100, 10000]", key);
        v = (int)lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

static int l_points_png(lua_State *L)
{
    if (!lua_istable(L, 1))
        sl_lua_error(L, FN ": expected a table {path =, x =, y =, ...}");
    lua_settop(L, 1);
    static const char *const keys[] = {"path", "x", "y", "err", "group", "grid", "lines",
                                       "last_bold", "title", "xlabel", "ylabel", "width",
                                       "height", "overwrite", NULL};
    sl_lua_check_keys(L, 1, FN, keys, NULL, 0, 0);
    lua_getfield(L, 1, "path");
    const char *path = sl_lua_check_str(L, -1, FN, "path");
    unsigned flags = sl_lua_out_flags(L, 1, FN);
    sl_plot_points_spec p;
    memset(&p, 0, sizeof p);
    p.n = -1;
    p.x = num_list(L, 1, "x", &p.n, 1);
    p.y = num_list(L, 1, "y", &p.n, 1);
    p.err = num_list(L, 1, "err", &p.n, 0);
    int64_t ng = p.n;
    double *g = num_list(L, 1, "group", &ng, 0);
    if (g) {
        int *gi = lua_newuserdatauv(L, (size_t)(p.n > 0 ? p.n : 1) * sizeof *gi, 0);
        for (int64_t i = 0; i < p.n; i++) {
            if (!(g[i] >= 1 && g[i] == floor(g[i])))
                sl_lua_error(L, FN ": group[%lld] = %g: expected a whole number >= 1",
                             (long long)i + 1, g[i]);
            gi[i] = (int)g[i] - 1;
        }
        p.group = gi;
    }
    p.n_grid = -1;
    p.grid = num_list(L, 1, "grid", &p.n_grid, 0);
    if (!p.grid)
        p.n_grid = 0;
    if (lua_getfield(L, 1, "lines") != LUA_TNIL) {
        if (!p.grid || !lua_istable(L, -1))
            sl_lua_error(L, FN ": lines: expected a list of lists, each on grid (give grid)");
        int lt = lua_gettop(L);
        p.n_lines = (int64_t)lua_rawlen(L, lt);
        double *all = lua_newuserdatauv(L, (size_t)(p.n_lines * p.n_grid + 1) * sizeof *all, 0);
        for (int64_t l = 0; l < p.n_lines; l++) {
            lua_rawgeti(L, lt, (lua_Integer)l + 1);
            int li = lua_gettop(L);
            if (!lua_istable(L, li) || (int64_t)lua_rawlen(L, li) != p.n_grid)
                sl_lua_error(L, FN ": lines[%lld]: expected %lld numbers, as grid",
                             (long long)l + 1, (long long)p.n_grid);
            for (int64_t k = 0; k < p.n_grid; k++) {
                lua_rawgeti(L, li, (lua_Integer)k + 1);
                all[l * p.n_grid + k] = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        p.lines = all;
    }
    lua_getfield(L, 1, "last_bold");
    p.last_bold = lua_toboolean(L, -1);
    p.title = opt_str(L, 1, "title");
    p.xlabel = opt_str(L, 1, "xlabel");
    p.ylabel = opt_str(L, 1, "ylabel");
    p.width = opt_int(L, 1, "width", 1000);
    p.height = opt_int(L, 1, "height", 600);
    if (p.n < 1)
        sl_lua_error(L, FN ": x is empty: expected at least one point");
    sl_lua_check(L, sl_plot_points(path, flags, &p), FN);
    return 0;
}

void sl_lua_open_points(lua_State *L)
{
    lua_pushcfunction(L, l_points_png);
    lua_setfield(L, -2, "points_png");
}
