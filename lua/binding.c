/* starling.core: module table, the plugin registry, error locations and
 * generic validation of key = value tables against plugin schemas. */
#include "binding.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "csv.h"

#define SL_REGISTRY_KEY "starling.registry"
#define SL_LIBSOURCE_KEY "starling.libsource"

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
        if (sl_lua_to_ensemble(L, idx)) {
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

static void open_registry(lua_State *L)
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

/* ---- module functions ---------------------------------------------------- */

/* {name, type, default | default_doc, min, max | words, required, doc,
 * expects}: a word key's default is its word, a computed default is
 * described (default_doc) rather than given as a number. */
static void push_param(lua_State *L, const sl_param *p)
{
    static const char *const type_name[] = {"number", "integer", "boolean", "word"};
    char want[640];
    lua_createtable(L, 0, 8);
    lua_pushstring(L, p->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, p->type <= SL_PARAM_WORD ? type_name[p->type] : "?");
    lua_setfield(L, -2, "type");
    if (p->def_doc) {
        lua_pushstring(L, p->def_doc);
        lua_setfield(L, -2, "default_doc");
    } else if (!p->required) {
        if (p->type == SL_PARAM_BOOL)
            lua_pushboolean(L, p->def != 0);
        else if (p->type == SL_PARAM_WORD)
            lua_pushstring(L, sl_param_word(p, p->def));
        else
            lua_pushnumber(L, p->def);
        lua_setfield(L, -2, "default");
    }
    if (p->type == SL_PARAM_WORD) {
        lua_createtable(L, (int)sl_param_word_count(p), 0);
        for (size_t i = 0; i < sl_param_word_count(p); i++) {
            lua_pushstring(L, p->words[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, "words");
    } else {
        lua_pushnumber(L, p->min);
        lua_setfield(L, -2, "min");
        lua_pushnumber(L, p->max);
        lua_setfield(L, -2, "max");
    }
    lua_pushboolean(L, p->required);
    lua_setfield(L, -2, "required");
    lua_pushstring(L, p->doc ? p->doc : "");
    lua_setfield(L, -2, "doc");
    sl_param_expectation(p, want, sizeof want);
    lua_pushstring(L, want);
    lua_setfield(L, -2, "expects");
}

/* A likelihood's capabilities: backends = {"cpu", "cuda"}, precisions =
 * {"double", "mixed"}, into the table on top. */
static void push_caps(lua_State *L, const sl_likelihood *l)
{
    int n = 0;
    lua_createtable(L, 2, 0);
    if (l->backends & SL_BACKEND_CAN_CPU) {
        lua_pushliteral(L, "cpu");
        lua_rawseti(L, -2, ++n);
    }
    if (l->backends & SL_BACKEND_CAN_CUDA) {
        lua_pushliteral(L, "cuda");
        lua_rawseti(L, -2, ++n);
    }
    lua_setfield(L, -2, "backends");
    n = 0;
    lua_createtable(L, 3, 0);
    for (uint32_t b = SL_PRECISION_DOUBLE; b <= SL_PRECISION_SINGLE; b <<= 1)
        if (l->precisions & b) {
            lua_pushstring(L, sl_precision_name(b));
            lua_rawseti(L, -2, ++n);
        }
    lua_setfield(L, -2, "precisions");
}

static int l_plugins(lua_State *L)
{
    const sl_registry *r = sl_lua_registry(L);
    lua_createtable(L, (int)sl_registry_count(r), 0);
    for (size_t i = 0; i < sl_registry_count(r); i++) {
        const sl_registry_item *it = sl_registry_at(r, i);
        const sl_table_head *h = sl_head(it->table);
        const char *desc = h->description;
        const sl_param *params = h->params;
        size_t np = params ? h->n_params : 0;
        lua_createtable(L, 0, 8);
        lua_pushstring(L, sl_kind_name(it->kind));
        lua_setfield(L, -2, "kind");
        lua_pushstring(L, it->name);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, desc ? desc : "");
        lua_setfield(L, -2, "description");
        lua_pushstring(L, it->path);
        lua_setfield(L, -2, "path");
        lua_pushstring(L, it->plugin->name);
        lua_setfield(L, -2, "plugin");
        lua_pushstring(L, it->plugin->version ? it->plugin->version : "");
        lua_setfield(L, -2, "version");
        lua_createtable(L, (int)np, 0);
        for (size_t k = 0; k < np; k++) {
            push_param(L, &params[k]);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        lua_setfield(L, -2, "params");
        const sl_monitor *m = it->table;
        if (it->kind == SL_KIND_MONITOR && m->check) { /* a user monitor's stop codes */
            lua_newtable(L);
            for (int k = 0; m->codes[k]; k++) {
                lua_pushstring(L, m->codes[k]);
                lua_rawseti(L, -2, k + 1);
            }
            lua_setfield(L, -2, "codes");
        }
        if (it->kind == SL_KIND_LIKELIHOOD)
            push_caps(L, it->table);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int l_problems(lua_State *L)
{
    const sl_registry *r = sl_lua_registry(L);
    lua_createtable(L, (int)sl_registry_problem_count(r), 0);
    for (size_t i = 0; i < sl_registry_problem_count(r); i++) {
        lua_pushstring(L, sl_registry_problem(r, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int l_backends(lua_State *L)
{
    int n = sl_cuda_device_count();
    lua_createtable(L, n + 1, 0);
    lua_pushliteral(L, "cpu");
    lua_rawseti(L, -2, 1);
    for (int d = 0; d < n; d++) {
        lua_pushfstring(L, "cuda:%d", d);
        lua_rawseti(L, -2, d + 2);
    }
    return 1;
}

static int l_cuda_devices(lua_State *L)
{
    lua_pushinteger(L, sl_cuda_device_count());
    return 1;
}

static int l_where(lua_State *L)
{
    sl_lua_where(L);
    return 1;
}

/* The Lua library tells us where it lives, so its frames are skipped when
 * looking for the user's line. */
static int l_set_libsource(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_settop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, SL_LIBSOURCE_KEY);
    return 0;
}

/* core.output_check(path, overwrite, ctx): raises "ctx: <why>" unless the
 * path may be written (output.h), so that Lua code checks its outputs
 * before its work. */
static int l_output_check(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1), *ctx = luaL_optstring(L, 3, "output");
    sl_lua_out_check(L, path, lua_toboolean(L, 2) ? SL_OUT_OVERWRITE : 0, ctx);
    return 0;
}

/* core.write_text(path, text, overwrite, ctx): text written as output.h
 * says; raises "ctx: <why>". */
static int l_write_text(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1), *ctx = luaL_optstring(L, 4, "output");
    size_t n;
    const char *text = luaL_checklstring(L, 2, &n);
    sl_out *o = sl_lua_out_open(L, path, lua_toboolean(L, 3) ? SL_OUT_OVERWRITE : 0, ctx);
    fwrite(text, 1, n, o->f);
    sl_lua_out_commit(L, o, ctx);
    return 0;
}

int luaopen_starling_core(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"output_check", l_output_check}, {"write_text", l_write_text},
        {"plugins", l_plugins},         {"problems", l_problems},
        {"backends", l_backends},       {"cuda_devices", l_cuda_devices},
        {"where", l_where},             {"_set_libsource", l_set_libsource},
        {NULL, NULL},
    };
    open_registry(L);
    luaL_newlib(L, fns);
    lua_pushliteral(L, SL_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushboolean(L, sl_cuda_built());
    lua_setfield(L, -2, "cuda_built");
    lua_pushliteral(L, SL_CUDA_ARCHS);
    lua_setfield(L, -2, "cuda_archs");
    sl_lua_open_ensemble(L);
    sl_lua_open_run(L);
    sl_lua_open_lombscargle(L);
    sl_lua_open_microlensing(L);
    sl_lua_open_likelihood(L);
    sl_lua_open_demcmc(L);
    sl_lua_open_points(L);
    return 1;
}
