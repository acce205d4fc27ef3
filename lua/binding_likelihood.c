/* Likelihoods and Kepler's equation from Lua:
 *
 *   starling.kepler.solve(M, e)          E (elliptic) or F (hyperbolic)
 *   starling.likelihood(name, {data = path | {t = {...}, rv = {...}, ...} |
 *                              data object, columns = {...}, backend = "auto",
 *                              <the plugin's options>})
 *   starling.likelihood{name = name, <the same keys>}
 *     :params()        {{name =, min =, max =}, ...}
 *     :eval(rows)      log-likelihoods, chi² (two lists; numbers for one row)
 *     :model(t, p[, instrument])  predicted curve at t for one vector p (an
 *                      instrument by name, or a series by number from 1:
 *                      a light curve's passbands, in order of first epoch)
 *     :info()          {name =, backend =, n_params =}
 *     :minimize{start =, step =, iterations =, tol =}  batched Nelder-Mead
 *                      (binding_minimize.c)
 *     :close()         releases the plugin's state (device memory, maps) now
 *                      rather than at collection; later calls are errors
 *   starling.clock()                     monotonic wall-clock seconds
 *
 * A data object is a table whose metatable is SL_LUA_DATA_OBJECT, as a
 * plugin's reader in its Lua face returns (starling.rv.read).
 *
 * Every argument is checked before any work starts and errors name the
 * user's line, the key or element, its value and what was expected. A model
 * outside the plugin's domain (e >= 1, K < 0, ...) is not an error in :eval:
 * it gets ln L = -inf so that samplers may propose freely; NaN is an error. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "binding_util.h"
#include "starling/kepler.h"

/* ---- small checks ----------------------------------------------------------- */

/* The number at idx, else raises "fn: what = <value>: expected <want>". */
static double check_num(lua_State *L, int idx, const char *fn, const char *what,
                        const char *want)
{
    if (lua_type(L, idx) != LUA_TNUMBER || isnan(lua_tonumber(L, idx))) {
        char got[96];
        sl_lua_describe(L, idx, got, sizeof got);
        sl_lua_error(L, "%s: %s = %s%s: expected %s", fn, what, got, sl_lua_type_note(L, idx),
                     want);
    }
    return lua_tonumber(L, idx);
}

/* A scalar or a list of numbers at idx into a userdata-owned array pushed
 * on the stack (freed by Lua on any later error). */
static double *check_vec(lua_State *L, int idx, const char *fn, const char *what,
                         const char *want, size_t *n, int *is_list)
{
    idx = lua_absindex(L, idx);
    *is_list = lua_type(L, idx) == LUA_TTABLE;
    size_t len = *is_list ? lua_rawlen(L, idx) : 1;
    if (*is_list && len == 0)
        sl_lua_error(L, "%s: %s is an empty list: expected %s or a list of them", fn, what,
                     want);
    double *v = lua_newuserdatauv(L, len * sizeof *v, 0);
    char name[64];
    for (size_t i = 0; i < len; i++) {
        if (*is_list) {
            lua_rawgeti(L, idx, (lua_Integer)i + 1);
            snprintf(name, sizeof name, "%s[%zu]", what, i + 1);
        } else {
            lua_pushvalue(L, idx);
            snprintf(name, sizeof name, "%s", what);
        }
        v[i] = check_num(L, -1, fn, name, want);
        lua_pop(L, 1);
    }
    *n = len;
    return v;
}

/* ---- starling.kepler.solve ------------------------------------------------------ */

/* Elliptic for 0 <= e < 1 (Markley: ~1e-15 residual), hyperbolic for e > 1;
 * e = 1 (parabolic) has no solution of either equation. */
static int l_kepler_solve(lua_State *L)
{
    const char *fn = "kepler.solve";
    size_t nm, ne;
    int lm, le;
    double *M = check_vec(L, 1, fn, "M", "a finite number", &nm, &lm);
    double *e = check_vec(L, 2, fn, "e", "a number in [0, 1) or > 1", &ne, &le);
    for (size_t i = 0; i < nm; i++)
        if (!isfinite(M[i])) {
            char at[32] = "";
            if (lm)
                snprintf(at, sizeof at, "[%zu]", i + 1);
            sl_lua_error(L, "%s: M%s = %g: expected a finite number", fn, at, M[i]);
        }
    for (size_t i = 0; i < ne; i++)
        if (!(e[i] >= 0.0 && e[i] != 1.0 && isfinite(e[i]))) {
            char at[32] = "";
            if (le)
                snprintf(at, sizeof at, "[%zu]", i + 1);
            sl_lua_error(L, "%s: e%s = %g: expected a number in [0, 1) (elliptic) or > 1 "
                            "(hyperbolic)", fn, at, e[i]);
        }
    if (lm && le && nm != ne)
        sl_lua_error(L, "%s: M has %zu values and e %zu: expected lists of one length, or a "
                        "number for either", fn, nm, ne);
    size_t n = nm > ne ? nm : ne;
    if (!lm && !le) {
        lua_pushnumber(L, e[0] < 1.0 ? sl_kepler_markley(M[0], e[0])
                                     : sl_kepler_hyperbolic(M[0], e[0]));
        return 1;
    }
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        double m = M[lm ? i : 0], ei = e[le ? i : 0];
        lua_pushnumber(L, ei < 1.0 ? sl_kepler_markley(m, ei) : sl_kepler_hyperbolic(m, ei));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* ---- the likelihood object -------------------------------------------------------- */


/* Raises "fn: msg" for a plugin's failure, without the plugin's own
 * "name: fn: " prefix repeating what the caller's context already says. */
static void lik_check(lua_State *L, sl_status st, const char *name, const char *fn)
{
    if (st == SL_OK)
        return;
    const char *m = sl_last_error();
    size_t nl = strlen(name), fl = strlen(fn);
    if (!strncmp(m, name, nl) && !strncmp(m + nl, ": ", 2)) {
        m += nl + 2;
        if (!strncmp(m, fn, fl) && !strncmp(m + fl, ": ", 2))
            m += fl + 2;
    }
    sl_lua_error(L, "%s: %s", fn, m);
}

static int lik_gc(lua_State *L)
{
    sl_lua_lik *k = lua_touserdata(L, 1);
    if (k->ctx)
        k->l->release(k->ctx);
    k->ctx = NULL;
    return 0;
}

/* L:close(): as collection does, now; closing twice is harmless. */
static int lik_close(lua_State *L)
{
    if (!luaL_testudata(L, 1, SL_LUA_LIKELIHOOD)) {
        char got[96];
        sl_lua_describe(L, 1, got, sizeof got);
        sl_lua_error(L, "close: expected a likelihood (call methods with ':'), got %s", got);
    }
    return lik_gc(L);
}

sl_lua_lik *sl_lua_to_likelihood(lua_State *L, int idx)
{
    sl_lua_lik *k = luaL_testudata(L, idx, SL_LUA_LIKELIHOOD);
    return k && k->ctx ? k : NULL;
}

static sl_lua_lik *check_lik(lua_State *L)
{
    sl_lua_lik *k = luaL_testudata(L, 1, SL_LUA_LIKELIHOOD);
    if (!k || !k->ctx) {
        char got[96];
        sl_lua_describe(L, 1, got, sizeof got);
        sl_lua_error(L, "expected a likelihood (call methods with ':'), got %s", got);
    }
    return k;
}

/* starling.likelihood(name, {options}) or starling.likelihood{name =, ...}:
 * the plugin's options (its head's params, words included), data =,
 * columns = and backend =. */
static int l_likelihood(lua_State *L)
{
    int cfg = lua_type(L, 1) == LUA_TTABLE ? 1 : 2;
    if (cfg == 1)
        lua_getfield(L, 1, "name");
    else
        lua_pushvalue(L, 1);
    int name_idx = lua_gettop(L);
    const char *name = sl_lua_check_str(L, name_idx, "likelihood", "name");
    char ctx[96];
    snprintf(ctx, sizeof ctx, "likelihood '%s'", name);
    const void *tab;
    if (sl_registry_get(sl_lua_registry(L), SL_KIND_LIKELIHOOD, name, &tab) != SL_OK)
        sl_lua_error(L, "likelihood: name = \"%s\": %s", name, sl_last_error());
    const sl_likelihood *l = tab;
    if (lua_type(L, cfg) != LUA_TTABLE) {
        char got[96];
        sl_lua_describe(L, cfg, got, sizeof got);
        sl_lua_error(L, "%s: options = %s: expected a table {data = ..., ...}", ctx, got);
    }
    sl_param_values pv;
    sl_param_values *pvs[] = {&pv};
    sl_lua_check(L, sl_params_init(&pv, l->params, l->n_params), ctx);
    /* the keys beside the options: ours, and the likelihood's further data sets */
    enum { MAX_MORE = 8 };
    const char *extra[5 + MAX_MORE] = {"data", "columns", "backend"};
    int n_extra = 3, n_more = 0;
    if (cfg == 1)
        extra[n_extra++] = "name";
    for (; l->more_data && l->more_data[n_more] && n_more < MAX_MORE; n_more++)
        extra[n_extra++] = l->more_data[n_more];
    extra[n_extra] = NULL;
    sl_lua_check_keys(L, cfg, ctx, extra, pvs, 1, 0);
    sl_lua_check(L, sl_params_complete(&pv), ctx);
    sl_data data;
    if (!sl_lua_data(L, cfg, ctx, SL_LUA_DATA_OBJECT, &data))
        sl_lua_error(L, "%s: key 'data' is required: a file name or columns by name, e.g. "
                        "{t = {...}, rv = {...}, err = {...}}", ctx);
    if (n_more > 0) { /* alive on the stack until prepare returns */
        sl_data *more = lua_newuserdatauv(L, (size_t)n_more * sizeof *more, 0);
        sl_data_named *named = lua_newuserdatauv(L, (size_t)n_more * sizeof *named, 0);
        for (int i = 0; i < n_more; i++) {
            const char *key = l->more_data[i];
            const size_t j = data.n_more;
            if (sl_lua_data_key(L, cfg, key, ctx, SL_LUA_DATA_OBJECT, &more[j])) {
                named[j] = (sl_data_named){key, &more[j]};
                data.n_more = j + 1;
            }
        }
        data.more = named;
    }
    sl_lua_lik *k = lua_newuserdatauv(L, sizeof *k, 0);
    memset(k, 0, sizeof *k);
    luaL_setmetatable(L, SL_LUA_LIKELIHOOD);
    k->l = l;
    sl_lua_open_backend(L, cfg, ctx, l->backends, ctx, &k->be);
    sl_lua_check(L, l->prepare(&pv, &data, &k->ctx), ctx);
    sl_lua_check(L, l->free_params(k->ctx, &k->n_par, &k->names, &k->lo, &k->hi), ctx);
    return 1;
}

static int lik_params(lua_State *L)
{
    sl_lua_lik *k = check_lik(L);
    lua_createtable(L, (int)k->n_par, 0);
    for (size_t i = 0; i < k->n_par; i++) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, k->names[i]);
        lua_setfield(L, -2, "name");
        lua_pushnumber(L, k->lo[i]);
        lua_setfield(L, -2, "min");
        lua_pushnumber(L, k->hi[i]);
        lua_setfield(L, -2, "max");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int lik_info(lua_State *L)
{
    sl_lua_lik *k = check_lik(L);
    lua_createtable(L, 0, 3);
    lua_pushstring(L, k->l->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, k->be.description);
    lua_setfield(L, -2, "backend");
    lua_pushinteger(L, (lua_Integer)k->n_par);
    lua_setfield(L, -2, "n_params");
    if (k->l->counters) { /* counts = {unstable = 3, ...}: why models got -inf */
        size_t n = 0;
        const char *const *names = NULL;
        const uint64_t *counts = NULL;
        lik_check(L, k->l->counters(k->ctx, &n, &names, &counts), k->l->name, "info");
        lua_createtable(L, 0, (int)n);
        for (size_t i = 0; i < n; i++) {
            lua_pushinteger(L, (lua_Integer)counts[i]);
            lua_setfield(L, -2, names[i]);
        }
        lua_setfield(L, -2, "counts");
    }
    return 1;
}

/* One parameter vector (the table at idx) into p; NaN is refused, ±inf is
 * passed on (ln K = -inf is K = 0; the plugin judges the domain). */
static void read_row(lua_State *L, const sl_lua_lik *k, int idx, const char *fn, size_t row,
                     double *p)
{
    idx = lua_absindex(L, idx);
    char where[48] = "";
    if (row)
        snprintf(where, sizeof where, "row %zu, ", row);
    if (lua_type(L, idx) != LUA_TTABLE || lua_rawlen(L, idx) != k->n_par) {
        char got[96];
        if (lua_type(L, idx) == LUA_TTABLE)
            snprintf(got, sizeof got, "a list of %zu values", (size_t)lua_rawlen(L, idx));
        else
            sl_lua_describe(L, idx, got, sizeof got);
        char what[32] = "parameters";
        if (row)
            snprintf(what, sizeof what, "row %zu", row);
        sl_lua_error(L, "%s: %s = %s: expected a list of %zu numbers (%s, ..., see :params())",
                     fn, what, got, k->n_par, k->names[0]);
    }
    for (size_t j = 0; j < k->n_par; j++) {
        lua_rawgeti(L, idx, (lua_Integer)j + 1);
        if (lua_type(L, -1) != LUA_TNUMBER || isnan(lua_tonumber(L, -1))) {
            char got[96];
            sl_lua_describe(L, -1, got, sizeof got);
            sl_lua_error(L, "%s: %scolumn %zu ('%s') = %s%s: expected a number (not NaN)", fn,
                         where, j + 1, k->names[j], got, sl_lua_type_note(L, -1));
        }
        p[j] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
}

static int lik_eval(lua_State *L)
{
    sl_lua_lik *k = check_lik(L);
    const char *fn = "eval";
    if (lua_type(L, 2) != LUA_TTABLE) {
        char got[96];
        sl_lua_describe(L, 2, got, sizeof got);
        sl_lua_error(L, "%s: rows = %s: expected a list of parameter vectors (or one vector)",
                     fn, got);
    }
    /* one vector {P1, K1, ...} or a list of them */
    int single = lua_rawgeti(L, 2, 1) == LUA_TNUMBER;
    lua_pop(L, 1);
    size_t n = single ? 1 : lua_rawlen(L, 2);
    if (n == 0)
        sl_lua_error(L, "%s: rows is an empty list: expected at least one parameter vector", fn);
    double *p = lua_newuserdatauv(L, n * (k->n_par + 2) * sizeof *p, 0);
    double *ll = p + n * k->n_par, *chi2 = ll + n;
    if (single)
        read_row(L, k, 2, fn, 0, p);
    for (size_t i = 0; !single && i < n; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        read_row(L, k, -1, fn, i + 1, p + i * k->n_par);
        lua_pop(L, 1);
    }
    sl_status st = k->l->eval_batch_chi2
                       ? k->l->eval_batch_chi2(k->ctx, &k->be, p, n, ll, chi2)
                       : k->l->eval_batch(k->ctx, &k->be, p, n, ll);
    lik_check(L, st, k->l->name, fn);
    if (!k->l->eval_batch_chi2)
        for (size_t i = 0; i < n; i++)
            chi2[i] = NAN;
    if (single) {
        lua_pushnumber(L, ll[0]);
        lua_pushnumber(L, chi2[0]);
        return 2;
    }
    sl_lua_push_numbers(L, ll, n);
    sl_lua_push_numbers(L, chi2, n);
    return 2;
}

/* Instrument name -> the index of its offset among the gamma_ parameters
 * (the plugin's `series`), a number n -> series n - 1 (the plugin checks
 * its range), or -1 for none. */
static int series_of(lua_State *L, const sl_lua_lik *k, int idx)
{
    if (lua_isnoneornil(L, idx))
        return -1;
    if (lua_isinteger(L, idx)) { /* a series by number (a light curve's passbands), 1-based */
        lua_Integer b = lua_tointeger(L, idx);
        if (b < 1 || b > 1000)
            sl_lua_error(L, "model: series = %lld: expected a number from 1", (long long)b);
        return (int)b - 1;
    }
    const char *inst = sl_lua_check_str(L, idx, "model", "instrument");
    int series = 0;
    char names[512] = "";
    size_t used = 0;
    for (size_t j = 0; j < k->n_par; j++) {
        if (strncmp(k->names[j], "gamma_", 6) != 0)
            continue;
        if (!strcmp(k->names[j] + 6, inst))
            return series;
        used += (size_t)snprintf(names + used, used < sizeof names ? sizeof names - used : 0,
                                 "%s\"%s\"", series ? ", " : "", k->names[j] + 6);
        series++;
    }
    sl_lua_error(L, "model: instrument = \"%s\": expected one of %s", inst,
                 series ? names : "(none: this likelihood has no offsets)");
    return -1;
}

static int lik_model(lua_State *L)
{
    sl_lua_lik *k = check_lik(L);
    if (!k->l->model)
        sl_lua_error(L, "model: likelihood '%s' has no model curve", k->l->name);
    lua_settop(L, 4); /* an absent instrument reads as nil below the work arrays */
    int series = series_of(L, k, 4);
    size_t n;
    int is_list;
    double *t = check_vec(L, 2, "model", "t", "a finite number", &n, &is_list);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(t[i]))
            sl_lua_error(L, "model: t%s = %g: expected a finite number", is_list ? "[...]" : "",
                         t[i]);
    double *p = lua_newuserdatauv(L, (k->n_par + n) * sizeof *p, 0);
    double *out = p + k->n_par;
    read_row(L, k, 3, "model", 0, p);
    lik_check(L, k->l->model(k->ctx, p, t, n, series, out), k->l->name, "model");
    if (!is_list) {
        lua_pushnumber(L, out[0]);
        return 1;
    }
    sl_lua_push_numbers(L, out, n);
    return 1;
}

/* Monotonic wall-clock seconds, for scripts that time their work (os.clock
 * is CPU time, summed over OpenMP threads). */
static int l_clock(lua_State *L)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    lua_pushnumber(L, (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec);
    return 1;
}

void sl_lua_open_likelihood(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"params", lik_params}, {"eval", lik_eval}, {"model", lik_model},
        {"info", lik_info}, {"close", lik_close},
        {NULL, NULL},
    };
    luaL_newmetatable(L, SL_LUA_LIKELIHOOD);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, lik_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, lik_gc);
    lua_setfield(L, -2, "__close"); /* local L <close> = starling.likelihood(...) */
    lua_pop(L, 1);
    luaL_newmetatable(L, SL_LUA_DATA_OBJECT);
    lua_pop(L, 1);
    lua_pushcfunction(L, l_likelihood);
    lua_setfield(L, -2, "likelihood");
    lua_pushcfunction(L, l_kepler_solve);
    lua_setfield(L, -2, "kepler_solve");
    lua_pushcfunction(L, l_clock);
    lua_setfield(L, -2, "clock");
}
