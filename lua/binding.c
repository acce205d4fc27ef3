/* starling.core: the module table, its generic functions and the Lua
 * faces of the plugins found (the helpers they share are face.c's). */
#include "binding.h"

#include <stdio.h>
#include <string.h>

#include "face_keys.h"
#include "starling/face.h"
#include "starling/output.h"

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

/* Every plugin's Lua face adds its functions to the module table on top of
 * the stack, in the registry's order. */
static void open_faces(lua_State *L)
{
    const sl_registry *r = sl_lua_registry(L);
    for (size_t i = 0; i < sl_registry_count(r); i++) {
        const sl_registry_item *it = sl_registry_at(r, i);
        const sl_lua_face *f = it->table;
        if (it->kind != SL_KIND_LUA_FACE || !f->open)
            continue;
        int top = lua_gettop(L);
        f->open(L);
        lua_settop(L, top);
    }
}

/* core._open_face_chunks(core, M): runs the Lua chunk of every face that
 * has one with (core, M), the C module and the `starling` table, once the
 * pure-Lua library has built M. A chunk is named as a file of the library
 * folder, so that error messages skip its frames as they skip init.lua's
 * and point at the user's line. */
static int l_open_face_chunks(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, LUA_REGISTRYINDEX, SL_LIBSOURCE_KEY);
    const char *lib = lua_isstring(L, -1) ? lua_tostring(L, -1) : "=";
    const sl_registry *r = sl_lua_registry(L);
    for (size_t i = 0; i < sl_registry_count(r); i++) {
        const sl_registry_item *it = sl_registry_at(r, i);
        const sl_lua_face *f = it->table;
        if (it->kind != SL_KIND_LUA_FACE || !f->chunk)
            continue;
        lua_pushfstring(L, "%s%s", lib, f->chunk_name);
        if (luaL_loadbufferx(L, f->chunk, strlen(f->chunk), lua_tostring(L, -1), "t") != LUA_OK)
            return luaL_error(L, "starling: the Lua face '%s' of %s: %s", it->name, it->path,
                              lua_tostring(L, -1));
        lua_pushvalue(L, 1);
        lua_pushvalue(L, 2);
        lua_call(L, 2, 0);
        lua_pop(L, 1); /* the name */
    }
    return 0;
}

int luaopen_starling_core(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"output_check", l_output_check}, {"write_text", l_write_text},
        {"plugins", l_plugins},         {"problems", l_problems},
        {"backends", l_backends},       {"cuda_devices", l_cuda_devices},
        {"where", l_where},             {"_set_libsource", l_set_libsource},
        {"_open_face_chunks", l_open_face_chunks},
        {NULL, NULL},
    };
    sl_lua_open_registry(L);
    luaL_newlib(L, fns);
    lua_pushliteral(L, SL_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushboolean(L, sl_cuda_built());
    lua_setfield(L, -2, "cuda_built");
    lua_pushliteral(L, SL_CUDA_ARCHS);
    lua_setfield(L, -2, "cuda_archs");
    sl_lua_open_ensemble(L);
    sl_lua_open_run(L);
    lua_pushcfunction(L, sl_lua_plot_png);
    lua_setfield(L, -2, "plot_png");
    sl_lua_open_likelihood(L);
    sl_lua_open_minimize(L);
    sl_lua_open_demcmc(L);
    sl_lua_open_points(L);
    open_faces(L);
    return 1;
}
