/* Ensembles in Lua: a userdata owning an sl_ensemble, with one user value,
 * a metadata table {seed =, config =} from which output headers are made.
 * Systems and bodies are 1-based on this side. */
#include <math.h>
#include <string.h>

#include "binding_util.h"
#include "csv.h"

#define SEED_MAX 9007199254740991.0 /* 2^53 - 1: every seed is exact in a double */

static const sl_param gen_params[] = {
    {"n", SL_PARAM_INTEGER, 0, 1, 1e9, 1, "number of systems", NULL, NULL},
    {"planets", SL_PARAM_INTEGER, 2, 1, SL_NBODY_MAX - 1, 0, "planets per system", NULL, NULL},
    {"planet_mass", SL_PARAM_NUMBER, 1e-3, 0, 1, 0,
     "mass of each planet (central mass 1)", NULL, NULL},
    {"a1", SL_PARAM_NUMBER, 1, 1e-300, 1e300, 0,
     "orbital radius of the innermost planet", NULL, NULL},
    {"spacing", SL_PARAM_NUMBER, 0.4, 0, 1e300, 0,
     "planet k at a1 (1 + spacing)^(k-1): a number, {min =, max =} or function(i)", NULL, NULL},
    {"perturb", SL_PARAM_NUMBER, 0, 0, 0.99, 0,
     "scale each coordinate by 1 + perturb u, u uniform in [-1, 1)", NULL, NULL},
    {"random_phase", SL_PARAM_BOOL, 1, 0, 1, 0,
     "random orbital phases (else all on +x)", NULL, NULL},
    {"seed", SL_PARAM_INTEGER, 42, 0, SEED_MAX, 0, "random seed", NULL, NULL},
};
enum { N_GEN = sizeof gen_params / sizeof gen_params[0] };

static const sl_param range_params[] = {
    {"min", SL_PARAM_NUMBER, 0, 0, 1e300, 1, "spacing of system 1", NULL, NULL},
    {"max", SL_PARAM_NUMBER, 0, 0, 1e300, 1, "spacing of system n", NULL, NULL},
};

static const sl_param systems_params[] = {
    {"seed", SL_PARAM_INTEGER, 0, 0, SEED_MAX, 0, "recorded in output headers", NULL, NULL},
};

static const sl_param body_params[] = {
    {"m", SL_PARAM_NUMBER, 0, 0, 1e300, 1, "mass", NULL, NULL},
};

/* ---- the userdata ---------------------------------------------------------- */

sl_ensemble *sl_lua_to_ensemble(lua_State *L, int idx)
{
    sl_lua_ensemble *le = luaL_testudata(L, idx, SL_LUA_ENSEMBLE);
    return le ? le->e : NULL;
}

sl_ensemble *sl_lua_check_ensemble(lua_State *L, int idx)
{
    sl_ensemble *e = sl_lua_to_ensemble(L, idx);
    if (!e) {
        char got[96];
        sl_lua_describe(L, idx, got, sizeof got);
        sl_lua_error(L, "expected an ensemble (call methods with ':'), got %s", got);
    }
    return e;
}

void sl_lua_ensemble_meta(lua_State *L, int idx)
{
    lua_getiuservalue(L, idx, 1);
}

/* Pushes an empty ensemble userdata; its sl_ensemble is filled in by the
 * caller, so that a failure half-way leaves nothing the GC cannot free. */
static sl_lua_ensemble *push_ensemble(lua_State *L)
{
    sl_lua_ensemble *le = lua_newuserdatauv(L, sizeof *le, 1);
    le->e = NULL;
    luaL_setmetatable(L, SL_LUA_ENSEMBLE);
    lua_newtable(L);
    lua_setiuservalue(L, -2, 1);
    return le;
}

static void set_meta_seed(lua_State *L, int ud, lua_Integer seed)
{
    lua_getiuservalue(L, ud, 1);
    lua_pushinteger(L, seed);
    lua_setfield(L, -2, "seed");
    lua_pop(L, 1);
}

void sl_lua_push_header(lua_State *L, int meta_idx)
{
    meta_idx = lua_absindex(L, meta_idx);
    int n = 0;
    lua_newtable(L);
    lua_pushliteral(L, "starling " SL_VERSION);
    lua_rawseti(L, -2, ++n);
    if (lua_getfield(L, meta_idx, "seed") == LUA_TNUMBER) {
        lua_pushfstring(L, "seed = %I", (LUAI_UACINT)lua_tointeger(L, -1));
        lua_rawseti(L, -3, ++n);
    }
    lua_pop(L, 1);
    if (lua_getfield(L, meta_idx, "config") == LUA_TSTRING) {
        lua_pushfstring(L, "config: %s", lua_tostring(L, -1));
        lua_rawseti(L, -3, ++n);
    }
    lua_pop(L, 1);
}

void sl_lua_write_header(lua_State *L, int idx, FILE *f)
{
    const char *lines[16];
    size_t n = 0;
    idx = lua_absindex(L, idx);
    for (lua_Integer i = 1; n < 16 && lua_rawgeti(L, idx, i) == LUA_TSTRING; i++) {
        lines[n++] = lua_tostring(L, -1); /* stays alive: the table holds it */
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    sl_csv_comment_lines(f, lines, n);
}

/* ---- constructors ------------------------------------------------------------ */

/* Per-system spacing from {min =, max =} (linear) or function(i); NULL when
 * spacing is one number (then stored in pv). The array is a userdata left
 * on the stack, so the GC frees it whatever happens. */
static double *read_spacing(lua_State *L, sl_param_values *pv, int64_t n)
{
    int t = lua_getfield(L, 1, "spacing");
    if (t != LUA_TTABLE && t != LUA_TFUNCTION) {
        if (t != LUA_TNIL)
            sl_lua_set_param(L, "ensemble", pv, "spacing", -1);
        lua_pop(L, 1);
        return NULL;
    }
    int src = lua_gettop(L);
    double *sp = lua_newuserdatauv(L, (size_t)n * sizeof(double), 0);
    if (t == LUA_TTABLE) {
        sl_param_values range;
        sl_param_values *pvs[] = {&range};
        sl_params_init(&range, range_params, 2);
        sl_lua_check_keys(L, src, "ensemble: key 'spacing'", NULL, pvs, 1, 0);
        sl_lua_check(L, sl_params_complete(&range), "ensemble: key 'spacing'");
        double lo = sl_params_get(&range, "min"), hi = sl_params_get(&range, "max");
        for (int64_t s = 0; s < n; s++)
            sp[s] = n > 1 ? lo + (hi - lo) * (double)s / (double)(n - 1) : lo;
        return sp;
    }
    for (int64_t s = 0; s < n; s++) {
        char ctx[64];
        snprintf(ctx, sizeof ctx, "ensemble: spacing(%lld)", (long long)s + 1);
        lua_pushvalue(L, src);
        lua_pushinteger(L, s + 1);
        lua_call(L, 1, 1);
        sl_lua_set_param(L, ctx, pv, "spacing", -1);
        sp[s] = sl_params_get(pv, "spacing");
        lua_pop(L, 1);
    }
    return sp;
}

static sl_status add_spacing_attr(sl_ensemble *e, const double *sp, double spacing)
{
    int a;
    sl_status st = sl_ensemble_attr(e, "spacing", &a);
    for (int64_t s = 0; !st && s < e->n_sys; s++)
        e->attr[(size_t)a * (size_t)e->n_sys + (size_t)s] = sp ? sp[s] : spacing;
    return st;
}

static int from_generator(lua_State *L)
{
    static const char *const extra[] = {"spacing", NULL};
    sl_param_values pv;
    sl_param_values *pvs[] = {&pv};
    sl_params_init(&pv, gen_params, N_GEN);
    sl_lua_check_keys(L, 1, "ensemble", extra, pvs, 1, 0);
    sl_lua_check(L, sl_params_complete(&pv), "ensemble");
    int64_t n = (int64_t)sl_params_get(&pv, "n");
    const double *sp = read_spacing(L, &pv, n);
    sl_test_system_spec spec = {
        .n_planets = (int)sl_params_get(&pv, "planets"),
        .planet_mass = sl_params_get(&pv, "planet_mass"),
        .a1 = sl_params_get(&pv, "a1"),
        .spacing = sl_params_get(&pv, "spacing"),
        .spacing_per_sys = sp,
        .perturb = sl_params_get(&pv, "perturb"),
        .random_phase = sl_params_get(&pv, "random_phase") != 0,
        .seed = (uint64_t)sl_params_get(&pv, "seed"),
    };
    sl_lua_ensemble *le = push_ensemble(L);
    sl_lua_check(L, sl_ensemble_test_systems(&spec, n, &le->e), "ensemble");
    sl_lua_check(L, add_spacing_attr(le->e, sp, spec.spacing), "ensemble");
    set_meta_seed(L, lua_gettop(L), (lua_Integer)spec.seed);
    return 1;
}

/* A vector key of a body: a list of 3 finite numbers, required. */
static void read_vec(lua_State *L, int body, const char *key, const char *ctx, double out[3])
{
    int t = lua_getfield(L, body, key);
    /* no default: a body silently placed at the origin (on the star) is
     * a typo, not a choice */
    if (t == LUA_TNIL)
        sl_lua_error(L, "%s: key '%s' is missing: every body needs a position x = {x, y, z} and "
                        "a velocity v = {vx, vy, vz} (use {0, 0, 0} for a body at rest at the "
                        "origin)", ctx, key);
    char got[96];
    if (t != LUA_TTABLE || lua_rawlen(L, -1) != 3) {
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, "%s: key '%s' = %s: expected a list of 3 finite numbers", ctx, key, got);
    }
    for (int c = 0; c < 3; c++) {
        lua_rawgeti(L, -1, c + 1);
        out[c] = lua_tonumber(L, -1);
        if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(out[c])) {
            sl_lua_describe(L, -1, got, sizeof got);
            sl_lua_error(L, "%s: key '%s'[%d] = %s%s: expected a finite number", ctx, key, c + 1,
                         got, sl_lua_type_note(L, -1));
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* A body table {m =, x = {..}, v = {..}} at idx, checked and stored. */
static void read_body(lua_State *L, int idx, const char *ctx, sl_ensemble *e, int64_t s, int b)
{
    static const char *const extra[] = {"x", "v", NULL};
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE) {
        char got[96];
        sl_lua_describe(L, idx, got, sizeof got);
        sl_lua_error(L, "%s = %s: expected a body {m = ..., x = {x, y, z}, v = {vx, vy, vz}}",
                     ctx, got);
    }
    sl_param_values pv;
    sl_param_values *pvs[] = {&pv};
    sl_params_init(&pv, body_params, 1);
    sl_lua_check_keys(L, idx, ctx, extra, pvs, 1, 0);
    sl_lua_check(L, sl_params_complete(&pv), ctx);
    double x[3], v[3];
    read_vec(L, idx, "x", ctx, x);
    read_vec(L, idx, "v", ctx, v);
    sl_lua_check(L, sl_ensemble_set_body(e, s, b, sl_params_get(&pv, "m"), x, v), ctx);
}

static int bodies_in(lua_State *L, int sys_idx, lua_Integer s)
{
    if (lua_type(L, sys_idx) != LUA_TTABLE || lua_rawlen(L, sys_idx) < 1) {
        char got[96];
        sl_lua_describe(L, sys_idx, got, sizeof got);
        sl_lua_error(L, "ensemble: systems[%lld] = %s: expected a list of bodies", (long long)s,
                     got);
    }
    return (int)lua_rawlen(L, sys_idx);
}

static int from_systems(lua_State *L)
{
    static const char *const extra[] = {"systems", NULL};
    sl_param_values pv;
    sl_param_values *pvs[] = {&pv};
    sl_params_init(&pv, systems_params, 1);
    sl_lua_check_keys(L, 1, "ensemble", extra, pvs, 1, 0);
    lua_getfield(L, 1, "systems");
    int sys = lua_gettop(L);
    lua_Integer n = lua_type(L, sys) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, sys) : 0;
    if (n < 1) {
        char got[96];
        sl_lua_describe(L, sys, got, sizeof got);
        sl_lua_error(L, "ensemble: key 'systems' = %s: expected a non-empty list of systems", got);
    }
    lua_rawgeti(L, sys, 1);
    int nb = bodies_in(L, -1, 1);
    lua_pop(L, 1);
    if (nb > SL_NBODY_MAX)
        sl_lua_error(L, "ensemble: systems[1] has %d bodies: at most %d are supported", nb,
                     SL_NBODY_MAX);
    sl_lua_ensemble *le = push_ensemble(L);
    sl_lua_check(L, sl_ensemble_create(n, nb, &le->e), "ensemble");
    for (lua_Integer s = 1; s <= n; s++) {
        lua_rawgeti(L, sys, s);
        int got = bodies_in(L, -1, s);
        if (got != nb)
            sl_lua_error(L, "ensemble: systems[%lld] has %d bodies, but systems[1] has %d",
                         (long long)s, got, nb);
        for (int b = 1; b <= nb; b++) {
            char ctx[96];
            snprintf(ctx, sizeof ctx, "ensemble: systems[%lld][%d]", (long long)s, b);
            lua_rawgeti(L, -1, b);
            read_body(L, -1, ctx, le->e, s - 1, b - 1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (pv.given[0])
        set_meta_seed(L, lua_gettop(L), (lua_Integer)sl_params_get(&pv, "seed"));
    return 1;
}

static int l_ensemble(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TTABLE) {
        char got[96];
        sl_lua_describe(L, 1, got, sizeof got);
        return sl_lua_error(L, "ensemble: expected a table such as {n = 1000, planets = 2}, got %s",
                            got);
    }
    lua_settop(L, 1);
    int explicit_bodies = lua_getfield(L, 1, "systems") != LUA_TNIL;
    int generated = lua_getfield(L, 1, "n") != LUA_TNIL;
    lua_settop(L, 1);
    if (explicit_bodies && generated)
        return sl_lua_error(L, "ensemble: give either 'n' (generated test systems) or 'systems' "
                               "(explicit bodies), not both");
    return explicit_bodies ? from_systems(L) : from_generator(L);
}

static int l_read_ensemble(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING) {
        char got[96];
        sl_lua_describe(L, 1, got, sizeof got);
        return sl_lua_error(L, "read_ensemble: expected a file name, got %s", got);
    }
    int has_seed;
    uint64_t seed;
    sl_lua_ensemble *le = push_ensemble(L);
    sl_lua_check(L, sl_csv_read_ensemble(lua_tostring(L, 1), &le->e, &has_seed, &seed),
                 "read_ensemble");
    if (has_seed)
        set_meta_seed(L, lua_gettop(L), (lua_Integer)seed);
    return 1;
}

/* ---- methods ------------------------------------------------------------------ */

static int64_t check_index(lua_State *L, int idx, int64_t n, const char *fn, const char *what)
{
    int ok = 0;
    lua_Integer i = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &ok) : 0;
    if (!ok || i < 1 || i > n) {
        char got[96];
        sl_lua_describe(L, idx, got, sizeof got);
        sl_lua_error(L, "%s: %s %s: expected an integer in [1, %lld]", fn, what, got, (long long)n);
    }
    return (int64_t)i - 1;
}

int64_t sl_lua_check_sys(lua_State *L, int idx, int64_t n_sys, const char *fn)
{
    return check_index(L, idx, n_sys, fn, "system");
}

static int m_size(lua_State *L)
{
    lua_pushinteger(L, sl_lua_check_ensemble(L, 1)->n_sys);
    return 1;
}

static int m_bodies(lua_State *L)
{
    lua_pushinteger(L, sl_lua_check_ensemble(L, 1)->n_body);
    return 1;
}

static void push_vec(lua_State *L, const double *v)
{
    lua_createtable(L, 3, 0);
    for (int c = 0; c < 3; c++) {
        lua_pushnumber(L, v[c]);
        lua_rawseti(L, -2, c + 1);
    }
}

static int m_body(lua_State *L)
{
    sl_ensemble *e = sl_lua_check_ensemble(L, 1);
    int64_t s = check_index(L, 2, e->n_sys, "body", "system");
    int b = (int)check_index(L, 3, e->n_body, "body", "body");
    double m, x[3], v[3];
    sl_ensemble_get_body(e, s, b, &m, x, v);
    lua_createtable(L, 0, 3);
    lua_pushnumber(L, m);
    lua_setfield(L, -2, "m");
    push_vec(L, x);
    lua_setfield(L, -2, "x");
    push_vec(L, v);
    lua_setfield(L, -2, "v");
    return 1;
}

static int m_set_body(lua_State *L)
{
    sl_ensemble *e = sl_lua_check_ensemble(L, 1);
    int64_t s = check_index(L, 2, e->n_sys, "set_body", "system");
    int b = (int)check_index(L, 3, e->n_body, "set_body", "body");
    char ctx[96];
    snprintf(ctx, sizeof ctx, "set_body(%lld, %d)", (long long)s + 1, b + 1);
    read_body(L, 4, ctx, e, s, b);
    return 0;
}

static int m_time(lua_State *L)
{
    sl_ensemble *e = sl_lua_check_ensemble(L, 1);
    lua_pushnumber(L, e->time[check_index(L, 2, e->n_sys, "time", "system")]);
    return 1;
}

static int find_attr(const sl_ensemble *e, const char *name)
{
    for (int a = 0; a < e->n_attr; a++)
        if (strcmp(e->attr_name[a], name) == 0)
            return a;
    return -1;
}

static int m_attr(lua_State *L)
{
    sl_ensemble *e = sl_lua_check_ensemble(L, 1);
    const char *name = sl_lua_check_str(L, 2, "attr", "name");
    int64_t s = check_index(L, 3, e->n_sys, "attr", "system");
    int a = find_attr(e, name);
    if (a < 0)
        return sl_lua_error(L, "attr: the ensemble has no attribute '%s' (set it with set_attr)",
                            name);
    lua_pushnumber(L, e->attr[(size_t)a * (size_t)e->n_sys + (size_t)s]);
    return 1;
}

static int m_set_attr(lua_State *L)
{
    sl_ensemble *e = sl_lua_check_ensemble(L, 1);
    if (lua_type(L, 2) != LUA_TSTRING || !*lua_tostring(L, 2) || strpbrk(lua_tostring(L, 2), ",\n\r#"))
        return sl_lua_error(L, "set_attr: expected an attribute name without ',', '#' or newlines");
    int64_t s = check_index(L, 3, e->n_sys, "set_attr", "system");
    if (lua_type(L, 4) != LUA_TNUMBER) {
        char got[96];
        sl_lua_describe(L, 4, got, sizeof got);
        return sl_lua_error(L, "set_attr: value %s: expected a number", got);
    }
    int a;
    sl_lua_check(L, sl_ensemble_attr(e, lua_tostring(L, 2), &a), "set_attr");
    e->attr[(size_t)a * (size_t)e->n_sys + (size_t)s] = lua_tonumber(L, 4);
    return 0;
}

static int m_attrs(lua_State *L)
{
    sl_ensemble *e = sl_lua_check_ensemble(L, 1);
    lua_createtable(L, e->n_attr, 0);
    for (int a = 0; a < e->n_attr; a++) {
        lua_pushstring(L, e->attr_name[a]);
        lua_rawseti(L, -2, a + 1);
    }
    return 1;
}

static int m_clone(lua_State *L)
{
    sl_ensemble *e = sl_lua_check_ensemble(L, 1);
    sl_lua_ensemble *le = push_ensemble(L);
    sl_lua_check(L, sl_ensemble_clone(e, &le->e), "clone");
    /* the copy records the same origin: a shallow copy of the metadata */
    lua_getiuservalue(L, -1, 1);
    lua_getiuservalue(L, 1, 1);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_settable(L, -5);
    }
    lua_pop(L, 2);
    return 1;
}

static int m_write_csv(lua_State *L)
{
    sl_ensemble *e = sl_lua_check_ensemble(L, 1);
    const char *path = sl_lua_check_str(L, 2, "write_csv", "file name");
    unsigned flags = sl_lua_out_flags(L, 3, "write_csv");
    sl_lua_ensemble_meta(L, 1);
    sl_lua_push_header(L, -1);
    int header = lua_gettop(L);
    sl_out *o = sl_lua_out_open(L, path, flags, "write_csv");
    sl_lua_write_header(L, header, o->f);
    sl_csv_write_ensemble(o->f, e);
    sl_lua_out_commit(L, o, "write_csv");
    return 0;
}

static int m_meta(lua_State *L)
{
    sl_lua_check_ensemble(L, 1);
    sl_lua_ensemble_meta(L, 1);
    return 1;
}

static int m_tostring(lua_State *L)
{
    sl_ensemble *e = sl_lua_check_ensemble(L, 1);
    lua_pushfstring(L, "starling ensemble: %I systems x %d bodies", (LUAI_UACINT)e->n_sys,
                    e->n_body);
    return 1;
}

static int m_gc(lua_State *L)
{
    sl_lua_ensemble *le = lua_touserdata(L, 1);
    sl_ensemble_destroy(le->e);
    le->e = NULL;
    return 0;
}

void sl_lua_open_ensemble(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"size", m_size},       {"bodies", m_bodies},     {"body", m_body},
        {"set_body", m_set_body}, {"time", m_time},       {"attr", m_attr},
        {"set_attr", m_set_attr}, {"attrs", m_attrs},     {"clone", m_clone},
        {"write_csv", m_write_csv}, {"_meta", m_meta},    {NULL, NULL},
    };
    luaL_newmetatable(L, SL_LUA_ENSEMBLE);
    luaL_newlib(L, methods);
    lua_pushvalue(L, -1);
    lua_setfield(L, -4, "ensemble_methods"); /* the module table, for the Lua library */
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, m_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, m_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, m_size);
    lua_setfield(L, -2, "__len");
    lua_pop(L, 1);
    lua_pushcfunction(L, l_ensemble);
    lua_setfield(L, -2, "ensemble");
    lua_pushcfunction(L, l_read_ensemble);
    lua_setfield(L, -2, "read_ensemble");
}
