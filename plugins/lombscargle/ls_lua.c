/* The plugin's Lua face: starling.lombscargle, periodograms from Lua.
 *
 *   starling.lombscargle{ file = "lc.csv" | batch = "objects.csv" |
 *                         t = {...}, y = {...}, dy = {...} |
 *                         objects = {{t =, y =, dy =, id =}, ...},
 *                         columns = {t =, y =, dy =, id =, hdu =} (header names),
 *                         engine = "auto", transfer = "staged",
 *                         method = "generalised", normalization = "standard",
 *                         precision = "fp64", grid = "auto", backend = "auto",
 *                         f_min =, f_max =, n_f =, samples_per_peak =, ...,
 *                         top_k =, full =, fap = }
 *
 * returns { backend =, engine =, kernel_s =, wall_s =, prep_s =, n =, [i] = object }
 * with object = { id =, flag =, best_frequency =, best_period =,
 * best_power =, fap =, f0 =, df =, n_f =, peaks = {{frequency =, power =,
 * fap =}, ...}, power = {...} (full only) }. Every key and value is checked
 * before any work starts; a bad object in a batch gets flag ~= "ok". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lombscargle.h"
#include "ls_faces.h"
#include "starling/lua_face.h"

static const char *const ls_extra[] = {"file", "batch", "t", "y", "dy", "method",
                                       "normalization", "normalisation", "precision", "grid",
                                       "engine", "backend", "objects", "columns", "transfer",
                                       NULL};

/* The plugin's messages already start with "lombscargle: ": add the
 * context only to those that do not. */
static void ls_check(lua_State *L, sl_status st)
{
    if (st == SL_OK)
        return;
    const char *m = sl_last_error();
    if (!strncmp(m, "lombscargle: ", 13))
        sl_lua_error(L, "%s", m);
    sl_lua_error(L, "lombscargle: %s", m);
}

static const sl_periodogram *ls_table(lua_State *L)
{
    const void *t;
    sl_lua_check(L, sl_registry_get(sl_lua_registry(L), SL_KIND_PERIODOGRAM, "lombscargle", &t),
                 "lombscargle");
    return t;
}

/* A Lua list of numbers into a new C array (owned by a userdata on the
 * stack, so a later error frees it). */
static double *check_list(lua_State *L, int tidx, const char *key, int64_t *n)
{
    lua_getfield(L, tidx, key);
    if (lua_type(L, -1) != LUA_TTABLE) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, "lombscargle: key '%s' = %s: expected a list of numbers", key, got);
    }
    int64_t len = (int64_t)lua_rawlen(L, -1);
    double *v = lua_newuserdatauv(L, (size_t)(len ? len : 1) * sizeof *v, 0);
    for (int64_t i = 0; i < len; i++) {
        int tt = lua_rawgeti(L, -2, (lua_Integer)i + 1);
        if (tt != LUA_TNUMBER) {
            char got[96];
            sl_lua_describe(L, -1, got, sizeof got);
            sl_lua_error(L, "lombscargle: %s[%lld] = %s: expected a number", key,
                         (long long)i + 1, got);
        }
        v[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_remove(L, -2); /* the list; the userdata stays */
    *n = len;
    return v;
}

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void push_object(lua_State *L, const sl_ls_result *r, int64_t i, const char *id)
{
    lua_createtable(L, 0, 12);
    lua_pushstring(L, id);
    lua_setfield(L, -2, "id");
    lua_pushstring(L, r->flag[i] ? sl_ls_flag_name(r->flag[i]) : "ok");
    lua_setfield(L, -2, "flag");
    if (r->flag_at[i] >= 0) {
        lua_pushinteger(L, r->flag_at[i] + 1);
        lua_setfield(L, -2, "flag_point");
    }
    set_num(L, "best_frequency", r->best_f[i]);
    set_num(L, "best_period", 1.0 / r->best_f[i]);
    set_num(L, "best_power", r->best_p[i]);
    set_num(L, "fap", r->best_fap[i]);
    set_num(L, "f0", r->f0[i]);
    set_num(L, "df", r->df[i]);
    lua_pushinteger(L, r->n_f[i]);
    lua_setfield(L, -2, "n_f");
    if (r->top_k > 0) {
        lua_createtable(L, r->top_k, 0);
        for (int q = 0; q < r->top_k; q++) {
            int64_t at = i * r->top_k + q;
            if (isnan(r->peak_f[at]))
                break;
            lua_createtable(L, 0, 3);
            set_num(L, "frequency", r->peak_f[at]);
            set_num(L, "power", r->peak_p[at]);
            set_num(L, "fap", r->peak_fap[at]);
            lua_rawseti(L, -2, q + 1);
        }
        lua_setfield(L, -2, "peaks");
    }
    if (r->power64 || r->power32) {
        int64_t a = r->power_offset[i], n = r->power_offset[i + 1] - a;
        lua_createtable(L, (int)n, 0);
        for (int64_t k = 0; k < n; k++) {
            lua_pushnumber(L, r->power64 ? r->power64[a + k] : (double)r->power32[a + k]);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        lua_setfield(L, -2, "power");
    }
}

typedef struct ls_guard {
    const sl_periodogram *ls;
    sl_ls_set *set;
    sl_ls_result res;
    int have_res;
} ls_guard;

static int guard_gc(lua_State *L)
{
    ls_guard *g = lua_touserdata(L, 1);
    if (g->set)
        g->ls->set_free(g->set);
    if (g->have_res)
        g->ls->result_free(&g->res);
    memset(g, 0, sizeof *g);
    return 0;
}

/* objects = {{t =, y =, dy =, id =}, ...}: packed into arrays owned by
 * userdata left on the stack (freed by Lua on any error). */
static sl_ls_data pack_objects(lua_State *L, int oidx, const char *const **ids_out)
{
    if (!lua_istable(L, oidx))
        sl_lua_error(L, "lombscargle: key 'objects': expected a list of {t =, y =, dy =} tables");
    int64_t n_obj = (int64_t)lua_rawlen(L, oidx), total = 0;
    if (n_obj < 1)
        sl_lua_error(L, "lombscargle: key 'objects' is empty: expected at least one light curve");
    int64_t *off = lua_newuserdatauv(L, (size_t)(n_obj + 1) * sizeof *off, 0);
    const char **ids = lua_newuserdatauv(L, (size_t)n_obj * sizeof *ids, 0);
    int has_dy = -1;
    off[0] = 0;
    for (int64_t i = 0; i < n_obj; i++) { /* first pass: lengths and keys */
        if (lua_rawgeti(L, oidx, (lua_Integer)i + 1) != LUA_TTABLE)
            sl_lua_error(L, "lombscargle: objects[%lld]: expected a table {t =, y =, dy =}",
                         (long long)i + 1);
        lua_getfield(L, -1, "t");
        lua_getfield(L, -2, "y");
        lua_getfield(L, -3, "dy");
        if (!lua_istable(L, -3) || !lua_istable(L, -2))
            sl_lua_error(L, "lombscargle: objects[%lld]: expected lists t and y",
                         (long long)i + 1);
        int dy = lua_istable(L, -1);
        if (has_dy >= 0 && dy != has_dy)
            sl_lua_error(L, "lombscargle: objects[%lld]: dy given for some objects only",
                         (long long)i + 1);
        has_dy = dy;
        int64_t n = (int64_t)lua_rawlen(L, -3);
        if ((int64_t)lua_rawlen(L, -2) != n || (dy && (int64_t)lua_rawlen(L, -1) != n))
            sl_lua_error(L, "lombscargle: objects[%lld]: t, y%s of different lengths",
                         (long long)i + 1, dy ? " and dy" : "");
        off[i + 1] = off[i] + n;
        lua_pop(L, 3);
        lua_getfield(L, -1, "id");
        ids[i] = lua_isstring(L, -1) ? lua_tostring(L, -1) : NULL; /* kept alive by objects */
        lua_pop(L, 2);
    }
    total = off[n_obj];
    double *v = lua_newuserdatauv(L, (size_t)(total ? total : 1) * 3 * sizeof *v, 0);
    double *t = v, *y = v + total, *dyv = v + 2 * total;
    static const char *const keys[3] = {"t", "y", "dy"};
    for (int64_t i = 0; i < n_obj; i++) {
        lua_rawgeti(L, oidx, (lua_Integer)i + 1);
        for (int c = 0; c < 2 + has_dy; c++) {
            double *dst = (c == 0 ? t : c == 1 ? y : dyv) + off[i];
            lua_getfield(L, -1, keys[c]);
            for (int64_t k = 0; k < off[i + 1] - off[i]; k++) {
                if (lua_rawgeti(L, -1, (lua_Integer)k + 1) != LUA_TNUMBER)
                    sl_lua_error(L, "lombscargle: objects[%lld].%s[%lld]: expected a number",
                                 (long long)i + 1, keys[c], (long long)k + 1);
                dst[k] = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    /* objects without an id are named by their position */
    for (int64_t i = 0; i < n_obj; i++)
        if (!ids[i])
            ids[i] = lua_pushfstring(L, "%d", (int)(i + 1)); /* stays on the stack */
    *ids_out = ids;
    return (sl_ls_data){n_obj, off, t, y, has_dy ? dyv : NULL, NULL, NULL};
}

/* A file: columns = {...} names the columns a text header or FITS table
 * has, where the accepted names (docs/GUIDE.md) do not find them. */
static sl_status read_input(lua_State *L, const sl_periodogram *ls, const char *path, int batch,
                            sl_ls_set **out)
{
    lua_getfield(L, 1, "columns");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return ls->read(path, batch, out);
    }
    if (!lua_istable(L, -1))
        sl_lua_error(L, "lombscargle: key 'columns': expected a table {t =, y =, dy =, id =, "
                     "hdu =}");
    sl_ls_columns c = {0};
    const char **slot[4] = {&c.t, &c.y, &c.dy, &c.id};
    static const char *const names[4] = {"t", "y", "dy", "id"};
    for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        if (strcmp(k, "t") && strcmp(k, "y") && strcmp(k, "dy") && strcmp(k, "id") &&
            strcmp(k, "hdu")) {
            char got[96];
            sl_lua_describe(L, -2, got, sizeof got);
            sl_lua_error(L, "lombscargle: columns: unknown key %s: expected t, y, dy, id or hdu",
                         got);
        }
    }
    for (int k = 0; k < 4; k++) {
        lua_getfield(L, -1, names[k]);
        if (!lua_isnil(L, -1))
            *slot[k] = sl_lua_check_str(L, -1, "lombscargle", names[k]);
        lua_pop(L, 1); /* the string stays alive in the columns table */
    }
    lua_getfield(L, -1, "hdu");
    if (!lua_isnil(L, -1)) {
        if (!lua_isinteger(L, -1))
            sl_lua_error(L, "lombscargle: columns.hdu: expected an integer");
        c.hdu = (int)lua_tointeger(L, -1);
    }
    lua_pop(L, 2);
    return ls->read_with(path, &c, batch, out);
}

/* transfer = "device": a handle that owns the periodograms on the GPU. */
typedef struct ls_device {
    const sl_periodogram *ls;
    sl_ls_result res; /* only device_power set */
} ls_device;

static int device_gc(lua_State *L)
{
    ls_device *h = lua_touserdata(L, 1);
    if (h->ls)
        h->ls->result_free(&h->res);
    h->ls = NULL;
    return 0;
}

static void push_device(lua_State *L, const sl_periodogram *ls, sl_ls_result *r)
{
    ls_device *h = lua_newuserdatauv(L, sizeof *h, 0);
    memset(h, 0, sizeof *h);
    h->ls = ls;
    h->res.device_power = r->device_power;
    r->device_power = NULL;
    if (luaL_newmetatable(L, "starling.ls_device")) {
        lua_pushcfunction(L, device_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushliteral(L, "starling.ls_device");
        lua_setfield(L, -2, "__name");
    }
    lua_setmetatable(L, -2);
}

static int l_lombscargle(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    const sl_periodogram *ls = ls_table(L);
    sl_param_values pv;
    sl_lua_check(L, sl_params_init(&pv, ls->params, ls->n_params), "lombscargle");
    sl_param_values *pvs[1] = {&pv};
    sl_lua_check_keys(L, 1, "lombscargle", ls_extra, pvs, 1, 0);
    sl_ls_options o;
    sl_ls_options_default(&o);
    ls_check(L, ls->configure(&pv, &o));
    static const char *const choices[] = {"method", "normalization", "normalisation",
                                          "precision", "grid", "engine", "transfer", NULL};
    for (const char *const *k = choices; *k; k++) {
        lua_getfield(L, 1, *k);
        if (!lua_isnil(L, -1))
            ls_check(L, ls->set_choice(&o, *k, sl_lua_check_str(L, -1, "lombscargle", *k)));
        lua_pop(L, 1);
    }
    if (o.grid == SL_LS_GRID_EXPLICIT && !pv.given[2])
        sl_lua_error(L, "lombscargle: grid \"explicit\" needs f_min, f_max and n_f");
    if (o.grid != SL_LS_GRID_AUTO && (!pv.given[0] || !pv.given[1]))
        sl_lua_error(L, "lombscargle: grid \"%s\" needs f_min and f_max",
                     o.grid == SL_LS_GRID_EXPLICIT ? "explicit" : "baseline");
    sl_backend be;
    sl_lua_open_backend(L, 1, "lombscargle", SL_BACKEND_CAN_CPU | SL_BACKEND_CAN_CUDA, NULL, &be);

    ls_guard *g = lua_newuserdatauv(L, sizeof *g, 0);
    memset(g, 0, sizeof *g);
    g->ls = ls;
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, guard_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    int gidx = lua_gettop(L);

    sl_ls_data d;
    int64_t off[2];
    const char *const *ids = NULL;
    int has_file = 0;
    for (int b = 0; b < 2; b++) {
        const char *key = b ? "batch" : "file";
        lua_getfield(L, 1, key);
        if (!lua_isnil(L, -1)) {
            if (has_file)
                sl_lua_error(L, "lombscargle: give one of file, batch or t/y, not several");
            const char *path = sl_lua_check_str(L, -1, "lombscargle", key);
            ls_check(L, read_input(L, ls, path, b, &g->set));
            has_file = 1;
        }
        lua_pop(L, 1);
    }
    if (has_file) {
        d = g->set->data;
        lua_getfield(L, 1, "t");
        if (!lua_isnil(L, -1))
            sl_lua_error(L, "lombscargle: give one of file, batch or t/y, not several");
        lua_pop(L, 1);
    } else if (lua_getfield(L, 1, "objects") != LUA_TNIL) {
        lua_getfield(L, 1, "t");
        if (!lua_isnil(L, -1))
            sl_lua_error(L, "lombscargle: give one of file, batch, objects or t/y, not several");
        lua_pop(L, 1);
        d = pack_objects(L, lua_gettop(L), &ids);
    } else {
        lua_pop(L, 1);
        int64_t nt, ny, ndy = -1;
        double *t = check_list(L, 1, "t", &nt);
        double *y = check_list(L, 1, "y", &ny);
        double *dy = NULL;
        lua_getfield(L, 1, "dy");
        int has_dy = !lua_isnil(L, -1);
        lua_pop(L, 1);
        if (has_dy)
            dy = check_list(L, 1, "dy", &ndy);
        if (ny != nt || (has_dy && ndy != nt))
            sl_lua_error(L, "lombscargle: t has %lld values, y %lld%s: expected equal lengths",
                         (long long)nt, (long long)ny, has_dy ? " and dy another count" : "");
        off[0] = 0, off[1] = nt;
        d = (sl_ls_data){1, off, t, y, dy, NULL, NULL};
    }
    ls_check(L, ls->compute(&be, &d, &o, &g->res));
    g->have_res = 1;
    lua_createtable(L, (int)d.n_obj, 6);
    lua_pushstring(L, be.description);
    lua_setfield(L, -2, "backend");
    lua_pushstring(L, g->res.engine);
    lua_setfield(L, -2, "engine");
    set_num(L, "kernel_s", g->res.kernel_s);
    set_num(L, "wall_s", g->res.wall_s);
    set_num(L, "prep_s", g->res.prep_s);
    lua_pushinteger(L, d.n_obj);
    lua_setfield(L, -2, "n");
    lua_pushinteger(L, g->res.n_fast);
    lua_setfield(L, -2, "n_fast");
    if (g->res.device_power) {
        push_device(L, ls, &g->res);
        lua_setfield(L, -2, "device");
    }
    for (int64_t i = 0; i < d.n_obj; i++) {
        push_object(L, &g->res, i, g->set ? g->set->id[i] : ids ? ids[i] : "t");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    (void)gidx;
    return 1;
}

static int open_face(lua_State *L)
{
    lua_pushcfunction(L, l_lombscargle);
    lua_setfield(L, -2, "lombscargle");
    return 0;
}

const sl_lua_face sl_ls_lua_face = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LUA_FACE,
    .name = "lombscargle",
    .description = "starling.lombscargle{...}: periodograms from Lua",
    .open = open_face,
    .chunk = "local core, M = ...\n"
             "--- Lomb-Scargle periodogram(s): {file = | batch = | t =, y =, dy =, ...};\n"
             "--- returns {backend, engine, kernel_s, wall_s, n, [i] = {id, flag,\n"
             "--- best_frequency, best_period, best_power, fap, peaks, power, ...}}.\n"
             "function M.lombscargle(cfg)\n"
             "  return core.lombscargle(cfg)\n"
             "end\n",
    .chunk_name = "lombscargle.lua",
};
