/* The plugin's Lua face: starling.core.microlensing, lens-model
 * magnifications from Lua, and the Lua part of starling.microlensing
 * (ml_face.lua, embedded as sl_ml_lua_chunk).
 *
 *   starling.microlensing.magnification{ model = "pspl" | "fspl" | "binary",
 *       t0 =, u0 =, tE =, [rho =, a1 = 0 (fspl)], [s =, q =, alpha = (binary, degrees)],
 *       | models = {{t0 =, u0 =, ...}, ...},
 *       t = {...} | t = number, backend = "auto" }
 *
 * returns the magnifications at t: a list (or a number when t is one), or,
 * with models, one such list per model. Every key and value is checked
 * before any work starts (the plugin checks the physics: q > 0, rho > 0...);
 * messages name the model and the key. ml_face.lua wraps this as
 * starling.microlensing.pspl / fspl / binary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "microlensing.h"
#include "ml_faces.h"
#include "ml_plot.h"
#include "starling/lua_face.h"
#include "starling/output.h"
#include "starling/plot_guard.h"

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

/* The lenses of the table at cfg: s =, q = (a binary) or lenses = {{x =,
 * y =, m =}, ...}. */
static void ml_lenses_arg(lua_State *L, int cfg, const char *ctx, const sl_lens *lens,
                          sl_ml_lenses *ls)
{
    memset(ls, 0, sizeof *ls);
    lua_getfield(L, cfg, "lenses");
    if (lua_isnil(L, -1)) {
        double s = ml_num(L, cfg, ctx, "s", NAN), q = ml_num(L, cfg, ctx, "q", NAN);
        if (!(s > 0.0) || !(q > 0.0))
            sl_lua_error(L, "%s: s = %g, q = %g: expected numbers > 0", ctx, s, q);
        lens->binary_lenses(s, q, ls);
    } else {
        if (!lua_istable(L, -1) || luaL_len(L, -1) < 1 || luaL_len(L, -1) > SL_ML_LENS_MAX)
            sl_lua_error(L, "%s: key 'lenses': expected a list of 1 to %d tables {x =, y =, m =}",
                         ctx, SL_ML_LENS_MAX);
        ls->n = (int)luaL_len(L, -1);
        for (int i = 0; i < ls->n; i++) {
            char lctx[96];
            snprintf(lctx, sizeof lctx, "%s: lenses[%d]", ctx, i + 1);
            lua_geti(L, -1, i + 1);
            if (!lua_istable(L, -1))
                sl_lua_error(L, "%s: expected a table {x =, y =, m =}", lctx);
            ls->x[i] = ml_num(L, -1, lctx, "x", NAN);
            ls->y[i] = ml_num(L, -1, lctx, "y", NAN);
            ls->m[i] = ml_num(L, -1, lctx, "m", NAN);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* Key `key` of the table at idx: a finite number or a list of them, into
 * a new array of *n values (freed by the caller). */
static double *ml_numbers(lua_State *L, int idx, const char *ctx, const char *key, int64_t *n,
                          int *scalar)
{
    lua_getfield(L, idx, key);
    *scalar = lua_type(L, -1) == LUA_TNUMBER;
    if (!*scalar && !lua_istable(L, -1)) {
        char d[96];
        sl_lua_describe(L, -1, d, sizeof d);
        sl_lua_error(L, "%s: key '%s' = %s: expected a number or a list of numbers", ctx, key, d);
    }
    *n = *scalar ? 1 : (int64_t)luaL_len(L, -1);
    double *v = malloc((size_t)(*n ? *n : 1) * sizeof *v);
    if (!v)
        sl_lua_error(L, "%s: key '%s': out of memory for %lld values", ctx, key, (long long)*n);
    for (int64_t k = 0; k < *n; k++) {
        if (!*scalar)
            lua_geti(L, -1, (lua_Integer)k + 1);
        if (lua_type(L, -1) != LUA_TNUMBER) {
            free(v);
            sl_lua_error(L, "%s: key '%s'[%lld]: expected a number", ctx, key, (long long)k + 1);
        }
        v[k] = lua_tonumber(L, -1);
        if (!*scalar)
            lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return v;
}

/* starling.microlensing.multi_mag0{lenses = {{x =, y =, m =}, ...} | s =, q =,
 * y1 =, y2 =, backend = "auto"}: the point-source magnification of 1 to 4 point lenses at
 * one source (numbers) or many (lists of the same length), and the number
 * of images (a number or a list). */
static int l_ml_multi_mag0(lua_State *L)
{
    const char *ctx = "microlensing.multi_mag0";
    luaL_checktype(L, 1, LUA_TTABLE);
    const sl_lens *lens = ml_table(L);
    static const char *const keys[] = {"lenses", "s", "q", "y1", "y2", "backend", NULL};
    sl_lua_check_keys(L, 1, ctx, keys, NULL, 0, 0);
    sl_backend be;
    sl_lua_open_backend(L, 1, ctx, SL_BACKEND_CAN_CPU | SL_BACKEND_CAN_CUDA, "microlensing", &be);
    sl_ml_lenses ls;
    ml_lenses_arg(L, 1, ctx, lens, &ls);
    int64_t n1, n2;
    int s1, s2;
    double *y1 = ml_numbers(L, 1, ctx, "y1", &n1, &s1);
    double *y2 = ml_numbers(L, 1, ctx, "y2", &n2, &s2);
    double *A = malloc((size_t)(n1 ? n1 : 1) * sizeof *A);
    int *im = malloc((size_t)(n1 ? n1 : 1) * sizeof *im);
    sl_status st = SL_OK;
    if (n1 != n2 || s1 != s2)
        st = sl_fail(SL_ERR_ARG, "y1 has %lld values and y2 %lld: expected the same",
                     (long long)n1, (long long)n2);
    else if (!A || !im)
        st = sl_fail(SL_ERR_NOMEM, "out of memory for %lld sources", (long long)n1);
    else
        st = lens->multi_mag0(&be, &ls, n1, y1, y2, A, im);
    free(y1), free(y2);
    if (st) {
        free(A), free(im);
        ml_check(L, st, ctx);
    }
    if (s1) {
        lua_pushnumber(L, A[0]);
        lua_pushinteger(L, im[0]);
    } else {
        ml_push_list(L, A, n1);
        lua_createtable(L, (int)n1, 0);
        for (int64_t k = 0; k < n1; k++) {
            lua_pushinteger(L, im[k]);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
    }
    free(A), free(im);
    return 2;
}

/* starling.microlensing.binary_mag{s =, q =, rho =, y1 =, y2 =, a1 = 0,
 * tol = 1e-3, partition = true, backend = "auto"}: the finite source's
 * magnification behind the binary (s, q), near the caustics by the dynamic
 * engine (ml_dynamic.h; everywhere with partition = false), at one source
 * (numbers) or many (lists), and the error bound each met (the same
 * shape). The CPU's threads only: "auto" is the CPU, "cuda" an error. */
static int l_ml_binary_mag(lua_State *L)
{
    const char *ctx = "microlensing.binary_mag";
    luaL_checktype(L, 1, LUA_TTABLE);
    const sl_lens *lens = ml_table(L);
    static const char *const keys[] = {"s", "q", "rho", "y1", "y2", "a1", "tol", "partition",
                                       "backend", NULL};
    sl_lua_check_keys(L, 1, ctx, keys, NULL, 0, 0);
    sl_backend be;
    sl_lua_open_backend(L, 1, ctx, SL_BACKEND_CAN_CPU, "the dynamic engine", &be);
    const double s = ml_num(L, 1, ctx, "s", NAN), q = ml_num(L, 1, ctx, "q", NAN);
    const double rho = ml_num(L, 1, ctx, "rho", NAN), a1 = ml_num(L, 1, ctx, "a1", 0.0);
    const double tol = ml_num(L, 1, ctx, "tol", 1e-3);
    lua_getfield(L, 1, "partition");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1)) {
        char d[96];
        sl_lua_describe(L, -1, d, sizeof d);
        sl_lua_error(L, "%s: key 'partition' = %s: expected true or false", ctx, d);
    }
    const unsigned flags = lua_isnil(L, -1) || lua_toboolean(L, -1) ? 0u : SL_ML_FS_ENGINE_ONLY;
    lua_pop(L, 1);
    int64_t n1, n2;
    int s1, s2;
    double *y1 = ml_numbers(L, 1, ctx, "y1", &n1, &s1);
    double *y2 = ml_numbers(L, 1, ctx, "y2", &n2, &s2);
    double *A = malloc((size_t)(n1 ? n1 : 1) * sizeof *A);
    double *e = malloc((size_t)(n1 ? n1 : 1) * sizeof *e);
    sl_status st = SL_OK;
    if (n1 != n2 || s1 != s2)
        st = sl_fail(SL_ERR_ARG, "y1 has %lld values and y2 %lld: expected the same",
                     (long long)n1, (long long)n2);
    else if (!A || !e)
        st = sl_fail(SL_ERR_NOMEM, "out of memory for %lld sources", (long long)n1);
    else
        st = lens->binary_mag(&be, s, q, rho, a1, tol, flags, n1, y1, y2, A, e);
    free(y1), free(y2);
    if (st) {
        free(A), free(e);
        ml_check(L, st, ctx);
    }
    if (s1) {
        lua_pushnumber(L, A[0]);
        lua_pushnumber(L, e[0]);
    } else {
        ml_push_list(L, A, n1);
        ml_push_list(L, e, n1);
    }
    free(A), free(e);
    return 2;
}

/* A zeroed userdata of size bytes whose __gc is gc, left on the stack: it
 * owns what a call allocates, so that whatever raises frees it. */
static void *ml_owner(lua_State *L, size_t size, lua_CFunction gc)
{
    void *u = lua_newuserdatauv(L, size, 0);
    memset(u, 0, size);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    return u;
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
    ml_lenses_arg(L, 1, ctx, lens, &ls);
    double pts = ml_num(L, 1, ctx, "points", 72.0), res = ml_num(L, 1, ctx, "resolution", 1e-3);
    if (pts != floor(pts) || pts < 8 || pts > 1e6)
        sl_lua_error(L, "%s: key 'points' = %g: expected an integer from 8 to 1000000", ctx, pts);
    ml_lua_caustics *u = ml_owner(L, sizeof *u, ml_caustics_gc);
    u->lens = lens;
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

/* A map owned by a userdata (freed by __gc whatever raises). */
typedef struct ml_lua_map {
    const sl_lens *lens;
    sl_ml_map m;
    int live;
} ml_lua_map;

static int ml_map_gc(lua_State *L)
{
    ml_lua_map *u = lua_touserdata(L, 1);
    if (u->live)
        u->lens->map_free(&u->m);
    u->live = 0;
    return 0;
}

/* The map's PNG with the lenses' caustics over it (resolution a quarter
 * of a pixel). */
static void ml_map_png(lua_State *L, const sl_lens *lens, const sl_ml_map_spec *spec,
                       const sl_ml_map *m, const char *png, unsigned flags, const char *ctx)
{
    ml_lua_caustics *u = ml_owner(L, sizeof *u, ml_caustics_gc);
    u->lens = lens;
    double res = 0.25 * fmin((spec->x1 - spec->x0) / spec->nx, (spec->y1 - spec->y0) / spec->ny);
    ml_check(L, lens->caustics(&spec->lenses, 72, res, &u->c), ctx);
    u->live = 1;
    sl_plot_curve cv[2 * SL_ML_LENS_MAX];
    for (int k = 0; k < u->c.n_curves; k++) {
        cv[k].n = u->c.curve[k].n;
        cv[k].x = u->c.curve[k].cx;
        cv[k].y = u->c.curve[k].cy;
    }
    double box[4] = {spec->x0, spec->x1, spec->y0, spec->y1};
    char title[128];
    snprintf(title, sizeof title, "%d lenses, %llu rays", spec->lenses.n,
             (unsigned long long)m->rays);
    ml_check(L, sl_plot_map(png, flags, m->A, m->nx, m->ny, box, cv, u->c.n_curves, title), ctx);
    lua_pop(L, 1);
}

/* result:lightcurve{t0 =, u0 =, tE =, alpha =, rho = | models = {...},
 * t = {...} | number, ld1 = 0, ld2 = 0, backend = "auto"}: finite-source
 * magnifications read from the map (NaN where the source leaves it). */
static int l_ml_map_lightcurve(lua_State *L)
{
    const char *ctx = "microlensing.map:lightcurve";
    ml_lua_map *u = lua_touserdata(L, lua_upvalueindex(1));
    int cfg = lua_istable(L, 2) ? 2 : 1; /* m:lightcurve{...} or m.lightcurve{...} */
    luaL_checktype(L, cfg, LUA_TTABLE);
    static const char *const names[SL_ML_TRACK_NPAR] = {"t0", "u0", "tE", "alpha", "rho"};
    static const char *const keys[] = {"t0", "u0", "tE", "alpha", "rho", "models", "t", "ld1",
                                       "ld2", "backend", NULL};
    sl_lua_check_keys(L, cfg, ctx, keys, NULL, 0, 0);
    lua_getfield(L, cfg, "models");
    int many = !lua_isnil(L, -1);
    int midx = lua_gettop(L);
    int64_t n_models = 1;
    if (many) {
        if (!lua_istable(L, midx) || luaL_len(L, midx) < 1)
            sl_lua_error(L, "%s: key 'models': expected a non-empty list of model tables", ctx);
        n_models = (int64_t)luaL_len(L, midx);
    }
    double *par = lua_newuserdatauv(L, (size_t)n_models * SL_ML_TRACK_NPAR * sizeof(double), 0);
    for (int64_t i = 0; i < n_models; i++) {
        int row = cfg;
        char mctx[96];
        snprintf(mctx, sizeof mctx, "%s", ctx);
        if (many) {
            snprintf(mctx, sizeof mctx, "%s: models[%lld]", ctx, (long long)i + 1);
            lua_geti(L, midx, (lua_Integer)i + 1);
            if (!lua_istable(L, -1))
                sl_lua_error(L, "%s: expected a table {t0 =, u0 =, tE =, alpha =, rho =}", mctx);
            row = lua_gettop(L);
        }
        for (int k = 0; k < SL_ML_TRACK_NPAR; k++)
            par[i * SL_ML_TRACK_NPAR + k] = ml_num(L, row, mctx, names[k], NAN);
        if (many)
            lua_pop(L, 1);
    }
    int64_t n_t;
    int scalar;
    double *t = ml_times(L, cfg, ctx, &n_t, &scalar);
    sl_backend be;
    sl_lua_open_backend(L, cfg, ctx, SL_BACKEND_CAN_CPU | SL_BACKEND_CAN_CUDA, "microlensing", &be);
    double *A = lua_newuserdatauv(L, (size_t)(n_models * n_t) * sizeof(double), 0);
    sl_ml_tracks tr = {n_models, par, n_t, t, ml_num(L, cfg, ctx, "ld1", 0.0),
                       ml_num(L, cfg, ctx, "ld2", 0.0)};
    ml_check(L, u->lens->lightcurves(&be, &u->m, &tr, A), "microlensing.lightcurves");
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

/* starling.microlensing.map{s =, q = | lenses =, box = {x0, x1, y0, y1},
 * pixels = 512 | nx =, ny =, rays = 100, seed = 1, backend = "auto",
 * fits = PATH, values = false}: {nx, ny, rays, rays_per_cell, active,
 * cells, cell, lens_box, enlarged, seconds, backend, [values = {row, ...}]}
 * with the map written to PATH as FITS when asked. */
static int l_ml_map(lua_State *L)
{
    const char *ctx = "microlensing.map";
    luaL_checktype(L, 1, LUA_TTABLE);
    const sl_lens *lens = ml_table(L);
    static const char *const keys[] = {"s", "q", "lenses", "box", "pixels", "nx", "ny", "rays",
                                       "seed", "backend", "fits", "png", "values", "tile_rows",
                                       "overwrite", NULL};
    sl_lua_check_keys(L, 1, ctx, keys, NULL, 0, 0);
    sl_ml_map_spec spec;
    memset(&spec, 0, sizeof spec);
    ml_lenses_arg(L, 1, ctx, lens, &spec.lenses);
    lua_getfield(L, 1, "box");
    if (!lua_istable(L, -1) || luaL_len(L, -1) != 4)
        sl_lua_error(L, "%s: key 'box': expected {x0, x1, y0, y1} (the source-plane region)", ctx);
    double b[4];
    for (int i = 0; i < 4; i++) {
        lua_geti(L, -1, i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER)
            sl_lua_error(L, "%s: box[%d]: expected a number", ctx, i + 1);
        b[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    spec.x0 = b[0];
    spec.x1 = b[1];
    spec.y0 = b[2];
    spec.y1 = b[3];
    double pix = ml_num(L, 1, ctx, "pixels", 512.0);
    double nx = ml_num(L, 1, ctx, "nx", pix), ny = ml_num(L, 1, ctx, "ny", pix);
    if (nx != floor(nx) || ny != floor(ny) || nx < 1 || ny < 1 || nx > 65536 || ny > 65536)
        sl_lua_error(L, "%s: %g x %g pixels: expected integers from 1 to 65536", ctx, nx, ny);
    spec.nx = (int)nx;
    spec.ny = (int)ny;
    spec.rays_per_pixel = ml_num(L, 1, ctx, "rays", 100.0);
    double seed = ml_num(L, 1, ctx, "seed", 1.0);
    if (seed != floor(seed) || seed < 0 || seed > 9007199254740992.0)
        sl_lua_error(L, "%s: key 'seed' = %g: expected an integer >= 0", ctx, seed);
    spec.seed = (uint64_t)seed;
    double tr = ml_num(L, 1, ctx, "tile_rows", 0.0);
    if (tr != floor(tr) || tr < 0 || tr > 65536)
        sl_lua_error(L, "%s: key 'tile_rows' = %g: expected 0 (automatic) or a number of rows",
                     ctx, tr);
    spec.tile_rows = (int)tr;
    const char *fits = NULL, *png = NULL;
    lua_getfield(L, 1, "fits");
    if (!lua_isnil(L, -1))
        fits = sl_lua_check_str(L, -1, ctx, "fits");
    lua_pop(L, 1);
    lua_getfield(L, 1, "png");
    if (!lua_isnil(L, -1))
        png = sl_lua_check_str(L, -1, ctx, "png");
    lua_pop(L, 1);
    /* before any ray is shot: an output that cannot be made is bad input */
    unsigned flags = sl_lua_out_flags(L, 1, ctx);
    char kctx[1100];
    if (fits) {
        snprintf(kctx, sizeof kctx, "%s: key 'fits'", ctx);
        sl_lua_out_check(L, fits, flags, kctx);
    }
    if (png) {
        snprintf(kctx, sizeof kctx, "%s: key 'png'", ctx);
        sl_lua_out_check(L, png, flags, kctx);
        ml_check(L, sl_plot_png_ready(png, flags), ctx);
    }
    lua_getfield(L, 1, "values");
    int values = lua_toboolean(L, -1);
    lua_pop(L, 1);
    sl_backend be;
    sl_lua_open_backend(L, 1, ctx, SL_BACKEND_CAN_CPU | SL_BACKEND_CAN_CUDA, "microlensing", &be);
    ml_lua_map *u = ml_owner(L, sizeof *u, ml_map_gc);
    u->lens = lens;
    int uidx = lua_gettop(L);
    ml_check(L, lens->map(&be, &spec, &u->m), ctx);
    u->live = 1;
    if (fits)
        ml_check(L, lens->map_write_fits(&u->m, &spec, fits, flags), ctx);
    if (png)
        ml_map_png(L, lens, &spec, &u->m, png, flags, ctx);
    const sl_ml_map *m = &u->m;
    lua_createtable(L, 0, 14);
    lua_pushinteger(L, m->nx);
    lua_setfield(L, -2, "nx");
    lua_pushinteger(L, m->ny);
    lua_setfield(L, -2, "ny");
    lua_pushinteger(L, (lua_Integer)m->rays);
    lua_setfield(L, -2, "rays");
    lua_pushinteger(L, (lua_Integer)m->rays_per_cell);
    lua_setfield(L, -2, "rays_per_cell");
    lua_pushinteger(L, (lua_Integer)m->active);
    lua_setfield(L, -2, "active");
    lua_pushinteger(L, (lua_Integer)m->cells);
    lua_setfield(L, -2, "cells");
    lua_pushnumber(L, m->cell);
    lua_setfield(L, -2, "cell");
    lua_pushinteger(L, m->enlarged);
    lua_setfield(L, -2, "enlarged");
    lua_pushnumber(L, m->seconds);
    lua_setfield(L, -2, "seconds");
    lua_pushstring(L, be.description);
    lua_setfield(L, -2, "backend");
    ml_push_box(L, m->lens_box);
    lua_setfield(L, -2, "lens_box");
    if (fits) {
        lua_pushstring(L, fits);
        lua_setfield(L, -2, "fits");
    }
    if (png) {
        lua_pushstring(L, png);
        lua_setfield(L, -2, "png");
    }
    if (values) {
        lua_createtable(L, m->ny, 0);
        for (int j = 0; j < m->ny; j++) {
            ml_push_list(L, m->A + (size_t)j * m->nx, m->nx);
            lua_rawseti(L, -2, j + 1);
        }
        lua_setfield(L, -2, "values");
    }
    /* the map stays alive as the closure's upvalue, as long as the result */
    lua_pushvalue(L, uidx);
    lua_pushcclosure(L, l_ml_map_lightcurve, 1);
    lua_setfield(L, -2, "lightcurve");
    return 1;
}

/* core.microlensing.png_ready(path): raises when PLplot cannot write a
 * PNG here (the grid search asks before its work). */
static int l_ml_png_ready(lua_State *L)
{
    const char *path = sl_lua_check_str(L, 1, "microlensing.gridsearch", "png");
    ml_check(L, sl_plot_png_ready(path, lua_toboolean(L, 2) ? SL_OUT_OVERWRITE : 0),
             "microlensing.gridsearch");
    return 0;
}

/* core.microlensing.chi2_png{path =, chi2 = {nx * ny values, row by row},
 * nx =, ny =, box = {x0, x1, y0, y1}, title =}: the grid search's picture
 * (init.lua checks the user's keys; these come from it). */
static int l_ml_chi2_png(lua_State *L)
{
    const char *ctx = "microlensing.gridsearch";
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "path");
    const char *path = sl_lua_check_str(L, -1, ctx, "png");
    int nx = (int)ml_num(L, 1, ctx, "nx", NAN), ny = (int)ml_num(L, 1, ctx, "ny", NAN);
    if (nx < 1 || ny < 1 || nx > 10000 || ny > 10000)
        sl_lua_error(L, "%s: a grid of %d x %d cells: expected 1 to 10000 each way", ctx, nx, ny);
    lua_getfield(L, 1, "chi2");
    if (lua_type(L, -1) != LUA_TTABLE || lua_rawlen(L, -1) != (size_t)nx * (size_t)ny)
        sl_lua_error(L, "%s: chi2: expected %d values", ctx, nx * ny);
    double *c = lua_newuserdatauv(L, (size_t)nx * ny * sizeof *c, 0), box[4];
    for (int k = 0; k < nx * ny; k++) {
        lua_rawgeti(L, -2, k + 1);
        c[k] = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : INFINITY;
        lua_pop(L, 1);
    }
    lua_getfield(L, 1, "box");
    for (int k = 0; k < 4; k++) {
        lua_rawgeti(L, -1, k + 1);
        box[k] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_getfield(L, 1, "title");
    const char *title = lua_tostring(L, -1);
    lua_getfield(L, 1, "overwrite");
    unsigned flags = lua_toboolean(L, -1) ? SL_OUT_OVERWRITE : 0;
    ml_check(L, sl_plot_chi2_grid(path, flags, c, nx, ny, box, title), ctx);
    return 0;
}

static int open_face(lua_State *L)
{
    static const luaL_Reg fns[] = {{"magnification", l_ml_magnification},
                                   {"binary_mag0", l_ml_binary_mag0},
                                   {"binary_mag", l_ml_binary_mag},
                                   {"multi_mag0", l_ml_multi_mag0},
                                   {"caustics", l_ml_caustics},
                                   {"map", l_ml_map},
                                   {"chi2_png", l_ml_chi2_png},
                                   {"png_ready", l_ml_png_ready},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    lua_setfield(L, -2, "microlensing");
    return 0;
}

const sl_lua_face sl_ml_lua_face = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_LUA_FACE,
    .name = "microlensing",
    .description = "starling.microlensing: magnifications, caustics, maps, grid search",
    .open = open_face,
    .chunk = sl_ml_lua_chunk,
    .chunk_name = "microlensing.lua",
};
