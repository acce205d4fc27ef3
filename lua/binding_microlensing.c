/* starling.core.microlensing: lens-model magnifications from Lua.
 *
 *   starling.microlensing.magnification{ model = "pspl" | "fspl" | "binary",
 *       t0 =, u0 =, tE =, [rho =, a1 = 0 (fspl)], [s =, q =, alpha = (binary, degrees)],
 *       | models = {{t0 =, u0 =, ...}, ...},
 *       t = {...} | t = number, backend = "auto" }
 *
 * returns the magnifications at t: a list (or a number when t is one), or,
 * with models, one such list per model. Every key and value is checked
 * before any work starts (the plugin checks the physics: q > 0, rho > 0...);
 * messages name the model and the key. The pure-Lua library wraps this as
 * starling.microlensing.pspl / fspl / binary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "binding.h"
#include "starling/plugins/microlensing/microlensing.h"

/* The plugin's messages start with "microlensing: ": the Lua context
 * (microlensing.binary) replaces that prefix rather than stacking on it. */
static void ml_check(lua_State *L, sl_status st, const char *ctx)
{
    if (st == SL_OK)
        return;
    const char *m = sl_last_error();
    if (!strncmp(m, "microlensing: ", 14))
        m += 14;
    /* "caustics: ..." under microlensing.caustics: once is enough */
    const char *fn = strchr(ctx, '.');
    size_t k = fn ? strlen(fn + 1) : 0;
    if (k && !strncmp(m, fn + 1, k) && !strncmp(m + k, ": ", 2))
        m += k + 2;
    sl_lua_error(L, "%s: %s", ctx, m);
}

static const sl_lens *ml_table(lua_State *L)
{
    const void *t;
    sl_lua_check(L, sl_registry_get(sl_lua_registry(L), SL_KIND_LENS, "microlensing", &t),
                 "microlensing");
    return t;
}

static sl_ml_model ml_model_kind(lua_State *L, int cfg)
{
    lua_getfield(L, cfg, "model");
    const char *m = sl_lua_check_str(L, -1, "microlensing", "model");
    sl_ml_model kind = !strcmp(m, "pspl")     ? SL_ML_PSPL
                       : !strcmp(m, "fspl")   ? SL_ML_FSPL
                       : !strcmp(m, "binary") ? SL_ML_BINARY_PS
                                              : (sl_ml_model)-1;
    if ((int)kind < 0)
        sl_lua_error(L, "microlensing: key 'model' = \"%s\": expected \"pspl\", \"fspl\" or "
                        "\"binary\"", m);
    lua_pop(L, 1);
    return kind;
}

/* The keys a model table may hold: its parameters (microlensing.h order). */
static void ml_keys(sl_ml_model m, const char **keys, int with_top)
{
    int k = 0;
    for (int i = 0; i < sl_ml_npar(m); i++)
        keys[k++] = sl_ml_param_name(m, i);
    if (with_top) {
        keys[k++] = "model";
        keys[k++] = "models";
        keys[k++] = "t";
        keys[k++] = "backend";
    }
    keys[k] = NULL;
}

/* Model row from the table at idx; ctx names it in messages. */
static void ml_row(lua_State *L, int idx, sl_ml_model m, const char *ctx, double *row)
{
    const char *keys[SL_ML_NPAR_MAX + 5];
    ml_keys(m, keys, 0);
    for (int i = 0; i < sl_ml_npar(m); i++) {
        lua_getfield(L, idx, keys[i]);
        if (lua_isnil(L, -1) && m == SL_ML_FSPL && !strcmp(keys[i], "a1")) {
            row[i] = 0.0; /* a uniform source unless a limb-darkening law is given */
        } else if (lua_isnil(L, -1)) {
            sl_lua_error(L, "%s: key '%s' missing: expected a number", ctx, keys[i]);
        } else if (!lua_isnumber(L, -1) || lua_type(L, -1) == LUA_TSTRING) {
            char v[96];
            sl_lua_describe(L, -1, v, sizeof v);
            sl_lua_error(L, "%s: key '%s' = %s: expected a number", ctx, keys[i], v);
        } else {
            row[i] = lua_tonumber(L, -1);
        }
        lua_pop(L, 1);
    }
}

/* Key 't': a number (*scalar set) or a non-empty list of numbers. */
static double *ml_times(lua_State *L, int cfg, const char *ctx, int64_t *n, int *scalar)
{
    lua_getfield(L, cfg, "t");
    *scalar = lua_type(L, -1) == LUA_TNUMBER;
    if (*scalar) {
        double *t = lua_newuserdatauv(L, sizeof(double), 0);
        *t = lua_tonumber(L, -2);
        lua_remove(L, -2);
        *n = 1;
        return t;
    }
    if (!lua_istable(L, -1))
        sl_lua_error(L, "%s: key 't' missing or not a list: expected a number or a list of "
                        "times (days)", ctx);
    *n = (int64_t)luaL_len(L, -1);
    if (*n < 1)
        sl_lua_error(L, "%s: key 't' is empty: expected at least one time", ctx);
    double *t = lua_newuserdatauv(L, (size_t)*n * sizeof(double), 0);
    for (int64_t j = 0; j < *n; j++) {
        lua_geti(L, -2, (lua_Integer)j + 1);
        if (lua_type(L, -1) != LUA_TNUMBER) {
            char v[96];
            sl_lua_describe(L, -1, v, sizeof v);
            sl_lua_error(L, "%s: t[%lld] = %s: expected a number", ctx, (long long)j + 1, v);
        }
        t[j] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_remove(L, -2);
    return t;
}

static void ml_push_curve(lua_State *L, const double *A, int64_t n, int scalar)
{
    if (scalar) {
        lua_pushnumber(L, A[0]);
        return;
    }
    lua_createtable(L, (int)n, 0);
    for (int64_t j = 0; j < n; j++) {
        lua_pushnumber(L, A[j]);
        lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
}

static int l_ml_magnification(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    const sl_lens *lens = ml_table(L);
    sl_ml_model m = ml_model_kind(L, 1);
    char ctx[64];
    snprintf(ctx, sizeof ctx, "microlensing.%s", sl_ml_model_name(m));
    const char *keys[SL_ML_NPAR_MAX + 5];
    ml_keys(m, keys, 1);
    sl_lua_check_keys(L, 1, ctx, (const char *const *)keys, NULL, 0, 0);
    lua_getfield(L, 1, "models");
    int many = !lua_isnil(L, -1);
    int64_t n_models = 1;
    if (many) {
        if (!lua_istable(L, -1) || luaL_len(L, -1) < 1)
            sl_lua_error(L, "%s: key 'models': expected a non-empty list of model tables", ctx);
        n_models = (int64_t)luaL_len(L, -1);
        for (int i = 0; i < sl_ml_npar(m); i++) {
            lua_getfield(L, 1, keys[i]);
            if (!lua_isnil(L, -1))
                sl_lua_error(L, "%s: key '%s' given with 'models': give each model's "
                                "parameters in its own table", ctx, keys[i]);
            lua_pop(L, 1);
        }
    }
    int np = sl_ml_npar(m);
    double *par = lua_newuserdatauv(L, (size_t)n_models * np * sizeof(double), 0);
    int pidx = lua_gettop(L);
    for (int64_t i = 0; i < n_models; i++) {
        if (!many) {
            ml_row(L, 1, m, ctx, par);
            break;
        }
        char mctx[96];
        snprintf(mctx, sizeof mctx, "%s: models[%lld]", ctx, (long long)i + 1);
        lua_geti(L, pidx - 1, (lua_Integer)i + 1);
        if (!lua_istable(L, -1))
            sl_lua_error(L, "%s: expected a table of parameters", mctx);
        sl_lua_check_keys(L, -1, mctx, (const char *const *)keys, NULL, 0, 0);
        ml_row(L, lua_gettop(L), m, mctx, par + i * np);
        lua_pop(L, 1);
    }
    int64_t n_t;
    int scalar;
    double *t = ml_times(L, 1, ctx, &n_t, &scalar);
    sl_backend be;
    sl_lua_open_backend(L, 1, ctx, SL_BACKEND_CAN_CPU | SL_BACKEND_CAN_CUDA, "microlensing", &be);
    double *A = lua_newuserdatauv(L, (size_t)(n_models * n_t) * sizeof(double), 0);
    sl_ml_batch b = {.model = m, .n_models = n_models, .params = par, .n_t = n_t, .t = t};
    ml_check(L, lens->magnification(&be, &b, A), ctx);
    if (!many) {
        ml_push_curve(L, A, n_t, scalar);
        return 1;
    }
    lua_createtable(L, (int)n_models, 0);
    for (int64_t i = 0; i < n_models; i++) {
        ml_push_curve(L, A + i * n_t, n_t, scalar);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* starling.microlensing.binary_mag0{s =, q =, y1 =, y2 =}: the point-source
 * magnification with the source at (y1, y2) in the centre-of-mass frame,
 * and the number of images. */
static int l_ml_binary_mag0(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    const sl_lens *lens = ml_table(L);
    static const char *const keys[] = {"s", "q", "y1", "y2", NULL};
    sl_lua_check_keys(L, 1, "microlensing.binary_mag0", keys, NULL, 0, 0);
    double v[4];
    for (int i = 0; i < 4; i++) {
        lua_getfield(L, 1, keys[i]);
        if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1)) ||
            (i < 2 && !(lua_tonumber(L, -1) > 0.0))) {
            char d[96];
            sl_lua_describe(L, -1, d, sizeof d);
            sl_lua_error(L, "microlensing.binary_mag0: key '%s' = %s: expected %s", keys[i], d,
                         i < 2 ? "a number > 0" : "a finite number");
        }
        v[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    int n;
    lua_pushnumber(L, lens->binary_mag0(v[0], v[1], v[2], v[3], &n));
    lua_pushinteger(L, n);
    return 2;
}

/* Key `key` of the table at idx as a finite number (def when absent and
 * def is not NaN). */
static double ml_num(lua_State *L, int idx, const char *ctx, const char *key, double def)
{
    lua_getfield(L, idx, key);
    double v = def;
    if (!lua_isnil(L, -1) || isnan(def)) {
        if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1))) {
            char d[96];
            sl_lua_describe(L, -1, d, sizeof d);
            sl_lua_error(L, "%s: key '%s' = %s: expected a number", ctx, key, d);
        }
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

static void ml_push_list(lua_State *L, const double *v, int64_t n)
{
    lua_createtable(L, (int)n, 0);
    for (int64_t j = 0; j < n; j++) {
        lua_pushnumber(L, v[j]);
        lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
}

static void ml_push_box(lua_State *L, const double *box)
{
    static const char *const k[] = {"x_min", "x_max", "y_min", "y_max"};
    lua_createtable(L, 0, 4);
    for (int i = 0; i < 4; i++) {
        lua_pushnumber(L, box[i]);
        lua_setfield(L, -2, k[i]);
    }
}

/* A caustic set owned by a userdata, so that an error raised while the
 * result is built (out of memory in Lua) still frees it. */
typedef struct ml_lua_caustics {
    const sl_lens *lens;
    sl_ml_caustic_set c;
    int live;
} ml_lua_caustics;

static int ml_caustics_gc(lua_State *L)
{
    ml_lua_caustics *u = lua_touserdata(L, 1);
    if (u->live)
        u->lens->caustics_free(&u->c);
    u->live = 0;
    return 0;
}

/* starling.microlensing.caustics{s =, q = | lenses = {{x =, y =, m =}, ...},
 * points = 72, resolution = 1e-3}: {n =, box =, crit_box =, [i] = {x =, y =
 * (the caustic), crit_x =, crit_y = (the critical curve), box =}}. */
static int l_ml_caustics(lua_State *L)
{
    const char *ctx = "microlensing.caustics";
    luaL_checktype(L, 1, LUA_TTABLE);
    const sl_lens *lens = ml_table(L);
    static const char *const keys[] = {"s", "q", "lenses", "points", "resolution", NULL};
    sl_lua_check_keys(L, 1, ctx, keys, NULL, 0, 0);
    sl_ml_lenses ls;
    memset(&ls, 0, sizeof ls);
    lua_getfield(L, 1, "lenses");
    if (lua_isnil(L, -1)) {
        double s = ml_num(L, 1, ctx, "s", NAN), q = ml_num(L, 1, ctx, "q", NAN);
        if (!(s > 0.0) || !(q > 0.0))
            sl_lua_error(L, "%s: s = %g, q = %g: expected numbers > 0", ctx, s, q);
        lens->binary_lenses(s, q, &ls);
    } else {
        if (!lua_istable(L, -1) || luaL_len(L, -1) < 1 || luaL_len(L, -1) > SL_ML_LENS_MAX)
            sl_lua_error(L, "%s: key 'lenses': expected a list of 1 to %d tables {x =, y =, m =}",
                         ctx, SL_ML_LENS_MAX);
        ls.n = (int)luaL_len(L, -1);
        for (int i = 0; i < ls.n; i++) {
            char lctx[96];
            snprintf(lctx, sizeof lctx, "%s: lenses[%d]", ctx, i + 1);
            lua_geti(L, -1, i + 1);
            if (!lua_istable(L, -1))
                sl_lua_error(L, "%s: expected a table {x =, y =, m =}", lctx);
            ls.x[i] = ml_num(L, -1, lctx, "x", NAN);
            ls.y[i] = ml_num(L, -1, lctx, "y", NAN);
            ls.m[i] = ml_num(L, -1, lctx, "m", NAN);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    double pts = ml_num(L, 1, ctx, "points", 72.0), res = ml_num(L, 1, ctx, "resolution", 1e-3);
    if (pts != floor(pts) || pts < 8 || pts > 1e6)
        sl_lua_error(L, "%s: key 'points' = %g: expected an integer from 8 to 1000000", ctx, pts);
    ml_lua_caustics *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->lens = lens;
    u->live = 0;
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, ml_caustics_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    ml_check(L, lens->caustics(&ls, (int)pts, res, &u->c), ctx);
    u->live = 1;
    lua_createtable(L, u->c.n_curves, 3);
    for (int k = 0; k < u->c.n_curves; k++) {
        const sl_ml_curve *cv = &u->c.curve[k];
        lua_createtable(L, 0, 5);
        ml_push_list(L, cv->cx, cv->n);
        lua_setfield(L, -2, "x");
        ml_push_list(L, cv->cy, cv->n);
        lua_setfield(L, -2, "y");
        ml_push_list(L, cv->x, cv->n);
        lua_setfield(L, -2, "crit_x");
        ml_push_list(L, cv->y, cv->n);
        lua_setfield(L, -2, "crit_y");
        ml_push_box(L, cv->box);
        lua_setfield(L, -2, "box");
        lua_rawseti(L, -2, k + 1);
    }
    lua_pushinteger(L, u->c.n_curves);
    lua_setfield(L, -2, "n");
    ml_push_box(L, u->c.box);
    lua_setfield(L, -2, "box");
    ml_push_box(L, u->c.crit_box);
    lua_setfield(L, -2, "crit_box");
    return 1;
}

void sl_lua_open_microlensing(lua_State *L)
{
    static const luaL_Reg fns[] = {{"magnification", l_ml_magnification},
                                   {"binary_mag0", l_ml_binary_mag0},
                                   {"caustics", l_ml_caustics},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "microlensing");
}
