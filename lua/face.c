/* The front end's helpers for Lua faces (<starling/lua_face.h>): errors
 * located at the user's line, key = value tables checked against plugin
 * schemas, backends, output files and the registry of a Lua state. A shared
 * library, so that the executable and every plugin's face use one copy. */
#include "starling/lua_face.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "face_keys.h"
#include "starling/backend.h"
#include "starling/output.h"
#include "starling/registry.h"

/* ---- errors ------------------------------------------------------------ */

void sl_lua_where(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, SL_LIBSOURCE_KEY);
    size_t liblen = 0;
    const char *lib = lua_tolstring(L, -1, &liblen);
    lua_Debug ar;
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        /* C functions have no current line; the library's own frames are
         * skipped so the message points at the user's config line */
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0)
            continue;
        if (lib && liblen && strncmp(ar.source, lib, liblen) == 0)
            continue;
        lua_pop(L, 1);
        lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
        return;
    }
    lua_pop(L, 1);
    lua_pushliteral(L, "");
}

int sl_lua_error(lua_State *L, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sl_lua_where(L);
    lua_pushstring(L, msg);
    lua_concat(L, 2);
    return lua_error(L);
}

const char *sl_lua_check_str(lua_State *L, int idx, const char *fn, const char *what)
{
    if (lua_type(L, idx) != LUA_TSTRING) {
        char got[96];
        sl_lua_describe(L, idx, got, sizeof got);
        sl_lua_error(L, "%s: %s = %s: expected a string", fn, what, got);
    }
    return lua_tostring(L, idx);
}

void sl_lua_check(lua_State *L, sl_status st, const char *ctx)
{
    if (st != SL_OK)
        sl_lua_error(L, "%s: %s", ctx, sl_last_error());
}

/* The core's message without its leading `backend "SPEC": `, which the
 * caller's "key 'backend' = "SPEC"" already says. */
static const char *backend_reason(const char *spec)
{
    const char *m = sl_last_error();
    size_t n = strlen(spec);
    if (!strncmp(m, "backend \"", 9) && !strncmp(m + 9, spec, n) && !strncmp(m + 9 + n, "\": ", 3))
        return m + 12 + n;
    return m;
}

void sl_lua_open_backend(lua_State *L, int cfg, const char *ctx, unsigned can, const char *who,
                         sl_backend *be)
{
    int t = lua_getfield(L, cfg, "backend");
    if (t != LUA_TNIL && t != LUA_TSTRING) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, "%s: key 'backend' = %s: expected " SL_BACKEND_SPECS, ctx, got);
    }
    const char *spec = t == LUA_TNIL ? "auto" : lua_tostring(L, -1);
    if (sl_backend_open_for(spec, can, who, be) != SL_OK) /* the parser's message if bad */
        sl_lua_error(L, "%s: key 'backend' = \"%s\": %s", ctx, spec, backend_reason(spec));
    lua_pop(L, 1);
}

static int out_gc(lua_State *L)
{
    sl_out_abort(lua_touserdata(L, 1)); /* a no-op after commit */
    return 0;
}

sl_out *sl_lua_out_open(lua_State *L, const char *path, unsigned flags, const char *ctx)
{
    sl_out *o = lua_newuserdatauv(L, sizeof *o, 0);
    memset(o, 0, sizeof *o);
    if (luaL_newmetatable(L, "starling.out")) {
        lua_pushcfunction(L, out_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, out_gc);
        lua_setfield(L, -2, "__close");
    }
    lua_setmetatable(L, -2);
    sl_lua_check(L, sl_out_open(o, path, flags), ctx);
    return o;
}

void sl_lua_out_commit(lua_State *L, sl_out *o, const char *ctx)
{
    sl_lua_check(L, sl_out_commit(o), ctx);
}

void sl_lua_out_check(lua_State *L, const char *path, unsigned flags, const char *ctx)
{
    sl_lua_check(L, sl_out_check(path, flags), ctx);
}

unsigned sl_lua_out_flags(lua_State *L, int idx, const char *ctx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        return 0;
    int t = lua_getfield(L, idx, "overwrite");
    int on = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (t != LUA_TNIL && t != LUA_TBOOLEAN)
        sl_lua_error(L, "%s: key 'overwrite' = %s: expected true or false", ctx,
                     lua_typename(L, t));
    return on ? SL_OUT_OVERWRITE : 0;
}

void sl_lua_describe(lua_State *L, int idx, char *buf, size_t cap)
{
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            snprintf(buf, cap, "%lld", (long long)lua_tointeger(L, idx));
        else
            sl_fmt_num(buf, cap, lua_tonumber(L, idx));
        return;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        snprintf(buf, cap, "\"%.40s%s\"", s, len > 40 ? "..." : "");
        return;
    }
    case LUA_TBOOLEAN:
        snprintf(buf, cap, "%s", lua_toboolean(L, idx) ? "true" : "false");
        return;
    case LUA_TNIL:
        snprintf(buf, cap, "nil");
        return;
    case LUA_TUSERDATA:
        if (luaL_testudata(L, idx, SL_LUA_ENSEMBLE)) {
            snprintf(buf, cap, "an ensemble");
            return;
        }
        break;
    }
    const char *t = luaL_typename(L, idx);
    snprintf(buf, cap, "a%s %s", strchr("aeiou", t[0]) ? "n" : "", t);
}

const char *sl_lua_type_note(lua_State *L, int idx)
{
    switch (lua_type(L, idx)) {
    case LUA_TSTRING: return " (a string)";
    case LUA_TBOOLEAN: return " (a boolean)";
    }
    return "";
}

/* ---- parameter tables ---------------------------------------------------- */

void sl_lua_set_param(lua_State *L, const char *ctx, sl_param_values *pv, const char *key, int idx)
{
    const sl_param *p = sl_params_find(pv->schema, pv->n, key);
    double v;
    int t = lua_type(L, idx);
    if (p && t == LUA_TSTRING && p->type == SL_PARAM_WORD) {
        sl_lua_check(L, sl_params_set_word(pv, key, lua_tostring(L, idx)), ctx);
        return;
    }
    if (p && t == LUA_TBOOLEAN && p->type == SL_PARAM_BOOL)
        v = lua_toboolean(L, idx);
    else if (p && t == LUA_TNUMBER)
        v = lua_tonumber(L, idx);
    else if (p) {
        char got[96], want[640];
        sl_lua_describe(L, idx, got, sizeof got);
        sl_param_expectation(p, want, sizeof want);
        sl_lua_error(L, "%s: key '%s' = %s%s: expected %s", ctx, key, got,
                     p->type == SL_PARAM_WORD ? "" : sl_lua_type_note(L, idx), want);
        return;
    } else
        v = 0; /* sl_params_set reports the unknown key */
    sl_lua_check(L, sl_params_set(pv, key, v), ctx);
}

static int in_list(const char *const *list, const char *s)
{
    for (; list && *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

static void unknown_key(lua_State *L, const char *ctx, const char *key, int vidx,
                        const char *const *extra, sl_param_values *const *pvs, size_t npv)
{
    char known[1024] = "", got[96];
    size_t used = 0;
    for (const char *const *e = extra; e && *e && used < sizeof known - 64; e++)
        used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "", *e);
    for (size_t i = 0; i < npv; i++)
        for (size_t k = 0; k < pvs[i]->n && used < sizeof known - 64; k++)
            if (!in_list(extra, pvs[i]->schema[k].name))
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                     used ? ", " : "", pvs[i]->schema[k].name);
    sl_lua_describe(L, vidx, got, sizeof got);
    sl_lua_error(L, "%s: unknown key '%s' (= %s); known keys: %s", ctx, key, got,
                 used ? known : "none");
}

void sl_lua_check_keys(lua_State *L, int tidx, const char *ctx, const char *const *extra,
                       sl_param_values *const *pvs, size_t npv, int allow_first)
{
    tidx = lua_absindex(L, tidx);
    lua_pushnil(L);
    while (lua_next(L, tidx)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            if (allow_first && lua_isinteger(L, -2) && lua_tointeger(L, -2) == 1) {
                lua_pop(L, 1);
                continue;
            }
            char k[96], v[96];
            sl_lua_describe(L, -2, k, sizeof k);
            sl_lua_describe(L, -1, v, sizeof v);
            sl_lua_error(L, "%s: unexpected entry [%s] = %s: expected key = value pairs", ctx, k,
                         v);
        }
        const char *key = lua_tostring(L, -2);
        if (!in_list(extra, key)) {
            size_t i = 0;
            while (i < npv && !sl_params_find(pvs[i]->schema, pvs[i]->n, key))
                i++;
            if (i == npv)
                unknown_key(L, ctx, key, -1, extra, pvs, npv);
            sl_lua_set_param(L, ctx, pvs[i], key, -1);
        }
        lua_pop(L, 1);
    }
}

/* ---- the registry -------------------------------------------------------- */

typedef struct sl_lua_reg {
    sl_registry *r;
} sl_lua_reg;

static int registry_gc(lua_State *L)
{
    sl_lua_reg *lr = lua_touserdata(L, 1);
    sl_registry_destroy(lr->r);
    lr->r = NULL;
    return 0;
}

const sl_registry *sl_lua_registry(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, SL_REGISTRY_KEY);
    sl_lua_reg *lr = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return lr->r;
}

void sl_lua_open_registry(lua_State *L)
{
    sl_lua_reg *lr = lua_newuserdatauv(L, sizeof *lr, 0);
    lr->r = NULL;
    lua_newtable(L);
    lua_pushcfunction(L, registry_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    if (sl_registry_create(&lr->r) != SL_OK || sl_registry_load_default(lr->r) != SL_OK)
        luaL_error(L, "starling: loading plugins: %s", sl_last_error());
    lua_setfield(L, LUA_REGISTRYINDEX, SL_REGISTRY_KEY);
}
