/* starling.core.integrate and the result object.
 *
 * Everything in the config table is checked before anything is allocated
 * outside Lua's control or any file is created; after that, nothing raises
 * until sl_integrate has returned, so a Lua error never unwinds through the
 * library. Errors from a progress function are caught and re-raised after
 * the run. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "binding_util.h"
#include "num_text.h"
#include "csv.h"
#include "starling/cancel.h"
#include "starling/force_stack.h"

static const sl_param run_params[] = {
    {"t_end", SL_PARAM_NUMBER, 0, 0, 1e300, 1, "time to integrate to (absolute)", NULL, NULL},
    {"max_steps", SL_PARAM_INTEGER, 0, 0, 9e15, 0,
     "stop systems after this many steps (0: none)", NULL, NULL},
    {"steps_per_launch", SL_PARAM_INTEGER, 0, 0, 1e9, 0,
     "steps per kernel launch (0: auto)", NULL, NULL},
    {"seed", SL_PARAM_INTEGER, 0, 0, 9007199254740991.0, 0,
     "recorded in output headers", NULL, NULL},
};

static const char *const run_keys[] = {"ensemble", "integrator", "force",   "backend",
                                       "monitors", "log",        "progress", "dry_run",
                                       "megno",    "overwrite", NULL};

/* megno = true, or a table of these (megno.h) */
static const sl_param megno_params[] = {
    {"interval", SL_PARAM_NUMBER, 0, 0, 1e300, 0,
     "time between the shadows' renormalisations (0: 10 steps)", NULL, NULL},
    {"delta", SL_PARAM_NUMBER, 1e-7, 1e-12, 1e-3, 0,
     "the shadow's distance, relative to the system's spread", NULL, NULL},
    {"seed", SL_PARAM_INTEGER, 1, 0, 9007199254740991.0, 0,
     "picks the shadows' initial directions", NULL, NULL},
};

#define MONITORS_EXAMPLE "{ {\"eject\", r = 50}, \"close_encounter\" }"

/* ---- the result userdata ---------------------------------------------------- */

typedef struct sl_lua_result {
    int64_t n_sys;
    sl_run_result res; /* owns energy_error and angmom_error */
    int32_t *status, *reason, *detail;
    double *stop_time, *time;
    int64_t *steps;
    char backend[256];
    int has_megno;
    sl_megno_result megno; /* when has_megno */
} sl_lua_result;

static int r_gc(lua_State *L)
{
    sl_lua_result *r = lua_touserdata(L, 1);
    sl_run_result_free(&r->res);
    free(r->status), free(r->reason), free(r->detail);
    free(r->stop_time), free(r->time), free(r->steps);
    sl_megno_result_free(&r->megno);
    memset(r, 0, sizeof *r);
    return 0;
}

/* Allocated before the run, so that taking over the run's arrays
 * afterwards cannot fail. */
static sl_lua_result *push_result(lua_State *L, int64_t n)
{
    sl_lua_result *r = lua_newuserdatauv(L, sizeof *r, 1);
    memset(r, 0, sizeof *r);
    luaL_setmetatable(L, SL_LUA_RESULT);
    size_t ns = (size_t)n;
    r->status = malloc(ns * sizeof *r->status);
    r->reason = malloc(ns * sizeof *r->reason);
    r->detail = malloc(ns * sizeof *r->detail);
    r->stop_time = malloc(ns * sizeof *r->stop_time);
    r->time = malloc(ns * sizeof *r->time);
    r->steps = malloc(ns * sizeof *r->steps);
    if (!r->status || !r->reason || !r->detail || !r->stop_time || !r->time || !r->steps)
        sl_lua_error(L, "integrate: out of memory for the results of %lld systems", (long long)n);
    r->n_sys = n;
    return r;
}

static void take_results(sl_lua_result *r, const sl_ensemble *e, sl_run_result *res,
                         const sl_backend *be)
{
    size_t ns = (size_t)e->n_sys;
    r->res = *res;
    memset(res, 0, sizeof *res);
    memcpy(r->status, e->status, ns * sizeof *r->status);
    memcpy(r->reason, e->reason, ns * sizeof *r->reason);
    memcpy(r->detail, e->detail, ns * sizeof *r->detail);
    memcpy(r->stop_time, e->stop_time, ns * sizeof *r->stop_time);
    memcpy(r->time, e->time, ns * sizeof *r->time);
    memcpy(r->steps, e->steps, ns * sizeof *r->steps);
    snprintf(r->backend, sizeof r->backend, "%s", be->description);
}

static sl_lua_result *check_result(lua_State *L)
{
    sl_lua_result *r = luaL_testudata(L, 1, SL_LUA_RESULT);
    if (!r) {
        char got[96];
        sl_lua_describe(L, 1, got, sizeof got);
        sl_lua_error(L, "expected a result (call methods with ':'), got %s", got);
    }
    return r;
}

static int64_t result_sys(lua_State *L, sl_lua_result *r, const char *fn)
{
    return sl_lua_check_sys(L, 2, r->n_sys, fn);
}

static int r_status(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    lua_pushstring(L, sl_status_label(r->status[result_sys(L, r, "status")]));
    return 1;
}

/* The result's ensemble, whose stop sources name user monitors' stops
 * (append-only, so the result's details keep their meaning). */
static const sl_ensemble *result_ensemble(lua_State *L, int idx)
{
    lua_getiuservalue(L, idx, 1);
    lua_getfield(L, -1, "ensemble");
    const sl_ensemble *e = sl_lua_to_ensemble(L, -1);
    lua_pop(L, 2); /* the metadata table still holds the ensemble */
    return e;
}

static int r_reason(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    int64_t s = result_sys(L, r, "reason");
    if (r->reason[s] == SL_REASON_NONE) {
        lua_pushnil(L);
        return 1;
    }
    char label[320];
    sl_stop_label(result_ensemble(L, 1), r->reason[s], r->detail[s], label, sizeof label);
    lua_pushstring(L, label);
    return 1;
}

/* The body (1-based) a stop concerns, or the pair for a close encounter or
 * a collision. */
static int decode_detail(int32_t why, int32_t d, int *i, int *j)
{
    if (why == SL_REASON_EJECTION || why == SL_REASON_UNBOUND) {
        *i = d + 1;
        return 1;
    }
    if (why == SL_REASON_CLOSE_ENCOUNTER || why == SL_REASON_COLLISION) {
        *i = d / 256 + 1;
        *j = d % 256 + 1;
        return 2;
    }
    return 0;
}

static int r_detail(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    int64_t s = result_sys(L, r, "detail");
    if (r->reason[s] == SL_REASON_STEP_SIZE && sl_step_fault_label(r->detail[s])) {
        lua_pushstring(L, sl_step_fault_label(r->detail[s]));
        return 1;
    }
    int i = 0, j = 0, n = decode_detail(r->reason[s], r->detail[s], &i, &j);
    if (n == 0)
        lua_pushnil(L);
    if (n >= 1)
        lua_pushinteger(L, i);
    if (n == 2)
        lua_pushinteger(L, j);
    return n ? n : 1;
}

static int push_number_or_nil(lua_State *L, double v)
{
    if (isnan(v))
        lua_pushnil(L);
    else
        lua_pushnumber(L, v);
    return 1;
}

static int r_stop_time(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    return push_number_or_nil(L, r->stop_time[result_sys(L, r, "stop_time")]);
}

static int r_time(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    lua_pushnumber(L, r->time[result_sys(L, r, "time")]);
    return 1;
}

static int r_steps(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    lua_pushinteger(L, r->steps[result_sys(L, r, "steps")]);
    return 1;
}

static int r_energy_error(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    lua_pushnumber(L, r->res.energy_error[result_sys(L, r, "energy_error")]);
    return 1;
}

static int r_angmom_error(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    lua_pushnumber(L, r->res.angmom_error[result_sys(L, r, "angmom_error")]);
    return 1;
}

enum { MEGNO_MEAN, MEGNO_Y, MEGNO_LYAPUNOV, MEGNO_SPAN };

/* One of the MEGNO values of system i (nil where nothing was measured). */
static int r_megno_field(lua_State *L, const char *fn, int which)
{
    sl_lua_result *r = check_result(L);
    int64_t s = result_sys(L, r, fn);
    if (!r->has_megno)
        return sl_lua_error(L, "%s: this run measured no MEGNO (give integrate the key megno = "
                               "true)", fn);
    const sl_megno_result *m = &r->megno;
    const double *a = which == MEGNO_MEAN ? m->megno : which == MEGNO_Y ? m->y
                    : which == MEGNO_LYAPUNOV ? m->lyapunov : m->span;
    return push_number_or_nil(L, a[s]);
}

static int r_megno(lua_State *L) { return r_megno_field(L, "megno", MEGNO_MEAN); }
static int r_megno_y(lua_State *L) { return r_megno_field(L, "megno_y", MEGNO_Y); }
static int r_lyapunov(lua_State *L) { return r_megno_field(L, "lyapunov", MEGNO_LYAPUNOV); }
static int r_megno_span(lua_State *L) { return r_megno_field(L, "megno_span", MEGNO_SPAN); }

static int r_survivors(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    lua_Integer n = 0;
    for (int64_t s = 0; s < r->n_sys; s++)
        n += r->status[s] == SL_SYS_ACTIVE;
    lua_pushinteger(L, n);
    return 1;
}

static int r_size(lua_State *L)
{
    lua_pushinteger(L, check_result(L)->n_sys);
    return 1;
}

/* e: the result's ensemble (names user monitors' stops), or NULL. */
static void write_result_rows(FILE *f, const sl_lua_result *r, const sl_ensemble *e)
{
    fputs("sys,status,reason,detail,stop_time,time,steps,energy_error,angmom_error", f);
    int n_attr = e && e->n_sys == r->n_sys ? e->n_attr : 0;
    if (r->has_megno)
        fputs(",megno,megno_y,lyapunov,megno_span", f);
    for (int a = 0; a < n_attr; a++)
        fprintf(f, ",%s", e->attr_name[a]);
    fputc('\n', f);
    /* a signal ends the rows; the commit after it then refuses (output.h) */
    for (int64_t s = 0; s < r->n_sys && !((s & 1023) == 0 && sl_cancelled()); s++) {
        char detail[32] = "", stop[32] = "", why[320];
        int i = 0, j = 0, n = decode_detail(r->reason[s], r->detail[s], &i, &j);
        if (n == 1)
            snprintf(detail, sizeof detail, "%d", i);
        if (n == 2)
            snprintf(detail, sizeof detail, "%d-%d", i, j);
        if (r->reason[s] == SL_REASON_STEP_SIZE && sl_step_fault_label(r->detail[s]))
            snprintf(detail, sizeof detail, "%s", sl_step_fault_label(r->detail[s]));
        if (!isnan(r->stop_time[s]))
            snprintf(stop, sizeof stop, "%.17g", r->stop_time[s]);
        sl_stop_label(e, r->reason[s], r->detail[s], why, sizeof why);
        fprintf(f, "%lld,%s,%s,%s,%s", (long long)s + 1, sl_status_label(r->status[s]), why,
                detail, stop);
        sl_put_num(f, ",", r->time[s]);
        fprintf(f, ",%lld", (long long)r->steps[s]);
        sl_put_num(f, ",", r->res.energy_error[s]);
        sl_put_num(f, ",", r->res.angmom_error[s]);
        if (r->has_megno) {
            const sl_megno_result *m = &r->megno;
            const double v[4] = {m->megno[s], m->y[s], m->lyapunov[s], m->span[s]};
            for (int k = 0; k < 4; k++)
                isnan(v[k]) ? (void)fputc(',', f) : (void)fprintf(f, ",%.17g", v[k]);
        }
        for (int a = 0; a < n_attr; a++)
            sl_put_num(f, ",", e->attr[(size_t)a * (size_t)e->n_sys + (size_t)s]);
        fputc('\n', f);
    }
}

static int r_write_csv(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    const char *path = sl_lua_check_str(L, 2, "write_csv", "file name");
    unsigned flags = sl_lua_out_flags(L, 3, "write_csv");
    lua_getiuservalue(L, 1, 1);
    int meta = lua_gettop(L);
    lua_getfield(L, meta, "ensemble");
    const sl_ensemble *e = sl_lua_to_ensemble(L, -1);
    sl_lua_push_header(L, meta);
    int header = lua_gettop(L);
    sl_out *o = sl_lua_out_open(L, path, flags, "write_csv");
    sl_lua_write_header(L, header, o->f);
    write_result_rows(o->f, r, e);
    sl_lua_out_commit(L, o, "write_csv");
    return 0;
}

static int r_tostring(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    lua_pushfstring(L, "starling result: %I systems (%I active, %I stopped, %I failed) on %s",
                    (LUAI_UACINT)r->n_sys, (LUAI_UACINT)r->res.n_active,
                    (LUAI_UACINT)r->res.n_stopped, (LUAI_UACINT)r->res.n_failed, r->backend);
    return 1;
}

static const char *const result_fields[] = {
    "backend",  "kernel",   "wall_s",      "kernel_s", "launches", "system_steps",
    "rejected_steps", "n_active", "n_stopped", "n_failed", "log_records", "ensemble", "log",
    "seed", "config", NULL};

/* Fields first come from the methods table (upvalue 1); an unknown name is
 * an error rather than nil, so that a typo does not read as "no value". */
static int r_index(lua_State *L)
{
    sl_lua_result *r = check_result(L);
    if (lua_type(L, 2) != LUA_TSTRING) {
        char got[96];
        sl_lua_describe(L, 2, got, sizeof got);
        return sl_lua_error(L, "result: no field [%s]", got);
    }
    if (lua_getfield(L, lua_upvalueindex(1), lua_tostring(L, 2)) != LUA_TNIL)
        return 1;
    const char *k = lua_tostring(L, 2);
    const sl_run_result *s = &r->res;
    if (!strcmp(k, "backend")) lua_pushstring(L, r->backend);
    else if (!strcmp(k, "kernel")) lua_pushstring(L, s->kernel);
    else if (!strcmp(k, "wall_s")) lua_pushnumber(L, s->wall_s);
    else if (!strcmp(k, "kernel_s")) lua_pushnumber(L, s->kernel_s);
    else if (!strcmp(k, "launches")) lua_pushinteger(L, s->launches);
    else if (!strcmp(k, "system_steps")) lua_pushnumber(L, s->system_steps);
    else if (!strcmp(k, "rejected_steps")) lua_pushinteger(L, s->rejected_steps);
    else if (!strcmp(k, "n_active")) lua_pushinteger(L, s->n_active);
    else if (!strcmp(k, "n_stopped")) lua_pushinteger(L, s->n_stopped);
    else if (!strcmp(k, "n_failed")) lua_pushinteger(L, s->n_failed);
    else if (!strcmp(k, "log_records")) lua_pushinteger(L, s->log_records);
    else {
        int i = 0;
        while (result_fields[i] && strcmp(result_fields[i], k))
            i++;
        if (!result_fields[i])
            return sl_lua_error(L, "result: no field or method '%s'", k);
        lua_getiuservalue(L, 1, 1);
        lua_getfield(L, -1, k); /* ensemble, log, seed, config: nil when absent */
    }
    return 1;
}

static void open_result(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"status", r_status},       {"reason", r_reason},
        {"detail", r_detail},       {"stop_time", r_stop_time},
        {"time", r_time},           {"steps", r_steps},
        {"energy_error", r_energy_error}, {"angmom_error", r_angmom_error},
        {"survivors", r_survivors}, {"size", r_size},
        {"megno", r_megno},         {"megno_y", r_megno_y},
        {"lyapunov", r_lyapunov},   {"megno_span", r_megno_span},
        {"write_csv", r_write_csv}, {NULL, NULL},
    };
    luaL_newmetatable(L, SL_LUA_RESULT);
    luaL_newlib(L, methods);
    lua_pushvalue(L, -1);
    lua_setfield(L, -4, "result_methods");
    lua_pushcclosure(L, r_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, r_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, r_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, r_size);
    lua_setfield(L, -2, "__len");
    lua_pop(L, 1);
}

/* ---- reading the config ------------------------------------------------------- */

/* integrator / force: "name" or {"name", key = value, ...}; leaves the
 * value on the stack and returns the table. */
static const void *read_plugin(lua_State *L, int cfg, const char *key, sl_kind kind,
                               const char *def, int *spec_idx)
{
    int t = lua_getfield(L, cfg, key);
    *spec_idx = lua_gettop(L);
    const char *name = def;
    if (t == LUA_TSTRING)
        name = lua_tostring(L, -1);
    else if (t == LUA_TTABLE && lua_rawgeti(L, -1, 1) == LUA_TSTRING) {
        name = lua_tostring(L, -1);
        lua_pop(L, 1); /* the table still holds the name */
    } else if (t != LUA_TNIL) {
        char got[96];
        sl_lua_describe(L, *spec_idx, got, sizeof got);
        sl_lua_error(L, "integrate: key '%s' = %s: expected a name such as \"%s\" or a table "
                        "{\"%s\", key = value, ...}", key, got, def, def);
    }
    const void *table;
    if (sl_registry_get(sl_lua_registry(L), kind, name, &table) != SL_OK)
        sl_lua_error(L, "integrate: key '%s' = \"%s\": %s", key, name, sl_last_error());
    return table;
}

static void check_plugin_table(lua_State *L, int spec_idx, const char *kind, const char *name,
                               sl_param_values *pv)
{
    if (lua_type(L, spec_idx) != LUA_TTABLE)
        return;
    char ctx[128];
    snprintf(ctx, sizeof ctx, "integrate: %s '%s'", kind, name);
    sl_param_values *pvs[] = {pv};
    sl_lua_check_keys(L, spec_idx, ctx, NULL, pvs, 1, 1);
}

/* ---- the force: a base, terms added to it ------------------------------------------ */

enum { FORCE_LIST_MAX = SL_STACK_TERMS_MAX + 1 };

typedef struct force_spec {
    const sl_force *f[FORCE_LIST_MAX];
    int idx[FORCE_LIST_MAX]; /* the entry's {"name", key = value} table, or 0 */
    int n;
} force_spec;

#define FORCE_EXAMPLE "\"newton\", {\"gr\", c = 10065.32} or {\"newton\", \"gr\", {\"j2\", J2 = ..., R = ...}}"

static void add_force(lua_State *L, force_spec *fs, const char *name, int idx, int entry)
{
    const void *t;
    if (sl_registry_get(sl_lua_registry(L), SL_KIND_FORCE, name, &t) != SL_OK) {
        if (entry)
            sl_lua_error(L, "integrate: key 'force', entry %d = \"%s\": %s", entry, name,
                         sl_last_error());
        sl_lua_error(L, "integrate: key 'force' = \"%s\": %s", name, sl_last_error());
    }
    fs->f[fs->n] = t;
    fs->idx[fs->n++] = idx;
}

/* A list: {"newton", "gr"} or {{"plummer", eps = ...}, "gr"}, as opposed
 * to one force with its keys, {"gr", c = ...}. */
static int is_force_list(lua_State *L, int idx)
{
    int second = lua_rawgeti(L, idx, 2) != LUA_TNIL;
    int first_table = lua_rawgeti(L, idx, 1) == LUA_TTABLE;
    lua_pop(L, 2);
    return second || first_table;
}

static void read_force_list(lua_State *L, int list, force_spec *fs)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, list);
    lua_pushnil(L);
    while (lua_next(L, list)) {
        if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 1 || lua_tointeger(L, -2) > n) {
            char k[96];
            sl_lua_describe(L, -2, k, sizeof k);
            sl_lua_error(L, "integrate: key 'force': unexpected key %s in a list of forces: give "
                            "a parameter with its force, e.g. {\"newton\", {\"gr\", c = ...}}",
                         k);
        }
        lua_pop(L, 1);
    }
    if (n > FORCE_LIST_MAX)
        sl_lua_error(L, "integrate: key 'force': %lld forces; at most a base and %d terms",
                     (long long)n, FORCE_LIST_MAX - 1);
    for (lua_Integer i = 1; i <= n; i++) {
        int t = lua_rawgeti(L, list, i), idx = lua_gettop(L);
        if (t == LUA_TSTRING)
            add_force(L, fs, lua_tostring(L, idx), 0, (int)i);
        else if (t == LUA_TTABLE && lua_rawgeti(L, idx, 1) == LUA_TSTRING)
            add_force(L, fs, lua_tostring(L, -1), idx, (int)i); /* the name stays pushed */
        else {
            char got[96];
            sl_lua_describe(L, idx, got, sizeof got);
            sl_lua_error(L, "integrate: key 'force', entry %lld = %s: expected a force's name "
                            "or {\"name\", key = value, ...}", (long long)i, got);
        }
    }
}

/* force = "name", {"name", key = value, ...} or a list of those, the base
 * first; resolved into p->stack (force_stack.h). The entries' tables stay
 * on the stack at fs->idx. */
static void read_force(lua_State *L, int cfg, sl_force_stack *stack, force_spec *fs)
{
    fs->n = 0;
    int t = lua_getfield(L, cfg, "force"), spec = lua_gettop(L);
    if (t == LUA_TNIL)
        add_force(L, fs, "newton", 0, 0);
    else if (t == LUA_TSTRING)
        add_force(L, fs, lua_tostring(L, spec), 0, 0);
    else if (t == LUA_TTABLE && is_force_list(L, spec))
        read_force_list(L, spec, fs);
    else if (t == LUA_TTABLE && lua_rawgeti(L, spec, 1) == LUA_TSTRING)
        add_force(L, fs, lua_tostring(L, -1), spec, 0);
    else {
        char got[96];
        sl_lua_describe(L, spec, got, sizeof got);
        sl_lua_error(L, "integrate: key 'force' = %s: expected a name or a list such as "
                        FORCE_EXAMPLE, got);
    }
    sl_lua_check(L, sl_force_stack_resolve(sl_lua_registry(L), fs->f, fs->n, stack),
                 "integrate: key 'force'");
}

/* Each entry's own keys, checked against its force's schema, then set in
 * the run's values (the stack's schema holds every listed force's). */
static void read_force_keys(lua_State *L, const force_spec *fs, sl_param_values *all)
{
    for (int i = 0; i < fs->n; i++) {
        if (!fs->idx[i])
            continue;
        sl_param_values own;
        sl_lua_check(L, sl_params_init(&own, fs->f[i]->params, fs->f[i]->n_params),
                     "integrate");
        check_plugin_table(L, fs->idx[i], "force", fs->f[i]->name, &own);
        for (size_t k = 0; k < own.n; k++)
            if (own.given[k])
                sl_lua_check(L, sl_params_set(all, own.schema[k].name, own.v[k]), "integrate");
    }
}

static void check_monitor_list(lua_State *L, int list)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, list);
    lua_pushnil(L);
    while (lua_next(L, list)) {
        if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 1 || lua_tointeger(L, -2) > n) {
            char k[96];
            sl_lua_describe(L, -2, k, sizeof k);
            sl_lua_error(L, "integrate: key 'monitors': unexpected entry [%s]: expected a list "
                            "such as " MONITORS_EXAMPLE, k);
        }
        lua_pop(L, 1);
    }
}

/* ---- user monitors' contexts ------------------------------------------------------ */

/* The contexts user monitors' prepare made, in a userdata whose __gc
 * releases them, so that an error raised after a prepare (a later key, the
 * backend, the run) leaks nothing; a finished run releases them at once. */
#define SL_LUA_USER_MONITORS "starling.user_monitors"
enum { USER_MONITORS_MAX = 64 };

typedef struct user_monitors {
    size_t n;
    sl_monitor_use use[USER_MONITORS_MAX];
} user_monitors;

static void user_monitors_release(user_monitors *um)
{
    for (size_t i = um->n; i-- > 0;)
        if (um->use[i].monitor->release)
            um->use[i].monitor->release((void *)um->use[i].ctx);
    um->n = 0;
}

static int um_gc(lua_State *L)
{
    user_monitors_release(lua_touserdata(L, 1));
    return 0;
}

static user_monitors *push_user_monitors(lua_State *L)
{
    user_monitors *um = lua_newuserdatauv(L, sizeof *um, 0);
    um->n = 0;
    if (luaL_newmetatable(L, SL_LUA_USER_MONITORS)) {
        lua_pushcfunction(L, um_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return um;
}

/* One entry of `monitors`, at the top of the stack; returns its table. A
 * user monitor is prepared here (its errors name the monitor, and the key
 * through prepare's own message) and kept in um. */
static const sl_monitor *read_monitor(lua_State *L, lua_Integer i, sl_monitor_config *mc,
                                      user_monitors *um)
{
    int item = lua_gettop(L);
    const char *name = NULL;
    if (lua_type(L, item) == LUA_TSTRING)
        name = lua_tostring(L, item);
    else if (lua_type(L, item) == LUA_TTABLE && lua_rawgeti(L, item, 1) == LUA_TSTRING) {
        name = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    char got[96], ctx[128];
    sl_lua_describe(L, item, got, sizeof got);
    if (!name)
        sl_lua_error(L, "integrate: monitors[%lld] = %s: expected a monitor name or a table "
                        "{\"name\", key = value, ...}", (long long)i, got);
    const void *table;
    if (sl_registry_get(sl_lua_registry(L), SL_KIND_MONITOR, name, &table) != SL_OK)
        sl_lua_error(L, "integrate: monitors[%lld] = \"%s\": %s", (long long)i, name,
                     sl_last_error());
    const sl_monitor *m = table;
    snprintf(ctx, sizeof ctx, "integrate: monitors[%lld] ('%s')", (long long)i, name);
    sl_param_values pv;
    sl_param_values *pvs[] = {&pv};
    sl_lua_check(L, sl_params_init(&pv, m->params, m->n_params), ctx);
    if (lua_type(L, item) == LUA_TTABLE)
        sl_lua_check_keys(L, item, ctx, NULL, pvs, 1, 1);
    sl_lua_check(L, sl_params_complete(&pv), ctx);
    if (m->configure)
        sl_lua_check(L, m->configure(&pv, mc), ctx);
    if (m->check) {
        if (um->n == USER_MONITORS_MAX)
            sl_lua_error(L, "%s: at most %d user monitors", ctx, USER_MONITORS_MAX);
        void *mctx = NULL;
        sl_clear_error();
        if (m->prepare && m->prepare(&pv, &mctx) != SL_OK)
            sl_lua_error(L, "%s: %s", ctx,
                         *sl_last_error() ? sl_last_error() : "refused by its prepare, "
                         "without a message");
        um->use[um->n].monitor = m;
        um->use[um->n++].ctx = mctx;
    }
    return m;
}

/* Returns 1 when a "log" monitor was given. */
static int read_monitors(lua_State *L, int cfg, sl_monitor_config *mc, user_monitors *um)
{
    int t = lua_getfield(L, cfg, "monitors");
    int list = lua_gettop(L), has_log = 0;
    if (t != LUA_TNIL && t != LUA_TTABLE) {
        char got[96];
        sl_lua_describe(L, list, got, sizeof got);
        sl_lua_error(L, "integrate: key 'monitors' = %s: expected a list such as " MONITORS_EXAMPLE,
                     got);
    }
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    check_monitor_list(L, list);
    const sl_monitor *seen[64];
    lua_Integer n = (lua_Integer)lua_rawlen(L, list);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, list, i);
        const sl_monitor *m = read_monitor(L, i, mc, um);
        for (lua_Integer k = 1; k < i && k <= 64; k++)
            if (seen[k - 1] == m)
                sl_lua_error(L, "integrate: monitors[%lld]: monitor '%s' is already given as "
                                "monitors[%lld]", (long long)i, m->name, (long long)k);
        if (i <= 64)
            seen[i - 1] = m;
        has_log |= strcmp(m->name, "log") == 0;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return has_log;
}

static const char *read_string_key(lua_State *L, int cfg, const char *key, const char *want)
{
    int t = lua_getfield(L, cfg, key);
    /* lua_tostring would turn a number into a string in place */
    const char *s = t == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (t != LUA_TNIL && (!s || !*s)) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, "integrate: key '%s' = %s: expected %s", key, got, want);
    }
    lua_pop(L, 1); /* cfg still holds the string */
    return t == LUA_TNIL ? NULL : s;
}

static int read_dry_run(lua_State *L, int cfg)
{
    int t = lua_getfield(L, cfg, "dry_run");
    if (t != LUA_TNIL && t != LUA_TBOOLEAN) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, "integrate: key 'dry_run' = %s%s: expected true or false", got,
                     sl_lua_type_note(L, -1));
    }
    int on = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return on;
}

static void check_progress(lua_State *L, int cfg)
{
    int t = lua_getfield(L, cfg, "progress");
    if (t != LUA_TNIL && t != LUA_TBOOLEAN && t != LUA_TFUNCTION) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, "integrate: key 'progress' = %s: expected true, false or "
                        "function(fraction, launches, elapsed_s)", got);
    }
    lua_pop(L, 1);
}

typedef struct run_plan {
    user_monitors *um;
    sl_ensemble *e;
    sl_run_config rc;
    sl_param_values force_values; /* rc.force_values: per-system values from attributes */
    sl_force_stack stack;         /* rc.force: the listed forces' table */
    sl_backend be;
    const char *log_path;
    unsigned log_flags; /* output.h: SL_OUT_OVERWRITE from overwrite = true */
    lua_Integer seed;
    int has_seed;
    int dry_run;
    int megno;
    sl_megno_config mc;
} run_plan;

/* megno = true, false or {interval = ..., delta = ..., seed = ...} */
static void read_megno(lua_State *L, int cfg, run_plan *p)
{
    sl_megno_config_default(&p->mc);
    int t = lua_getfield(L, cfg, "megno");
    if (t == LUA_TTABLE) {
        sl_param_values pv;
        sl_param_values *pvs[] = {&pv};
        sl_params_init(&pv, megno_params, sizeof megno_params / sizeof megno_params[0]);
        sl_lua_check_keys(L, -1, "integrate: megno", NULL, pvs, 1, 0);
        p->mc.interval = sl_params_get(&pv, "interval");
        p->mc.delta = sl_params_get(&pv, "delta");
        p->mc.seed = (uint64_t)sl_params_get(&pv, "seed");
        p->megno = 1;
    } else if (t == LUA_TBOOLEAN)
        p->megno = lua_toboolean(L, -1);
    else if (t != LUA_TNIL) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, "integrate: key 'megno' = %s: expected true, or a table {interval = "
                        "TIME, delta = 1e-7, seed = 1}", got);
    }
    lua_pop(L, 1);
}

static void read_config(lua_State *L, int cfg, run_plan *p)
{
    lua_getfield(L, cfg, "ensemble");
    p->e = sl_lua_to_ensemble(L, -1);
    if (!p->e) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, "integrate: key 'ensemble' = %s: expected an ensemble (from "
                        "starling.ensemble or starling.read_ensemble)", got);
    }
    int ens = lua_gettop(L), prop_idx;
    sl_run_config *rc = &p->rc;
    sl_run_config_init(rc);
    rc->prop = read_plugin(L, cfg, "integrator", SL_KIND_PROPAGATOR, "hermite", &prop_idx);
    force_spec fs;
    read_force(L, cfg, &p->stack, &fs);
    rc->force = sl_force_stack_table(&p->stack);
    const char *force_label = sl_force_stack_label(&p->stack);
    sl_param_values run, pp, fp;
    sl_param_values *pvs[] = {&run, &pp, &fp};
    sl_params_init(&run, run_params, sizeof run_params / sizeof run_params[0]);
    sl_lua_check(L, sl_params_init(&pp, rc->prop->params, rc->prop->n_params), "integrate");
    sl_lua_check(L, sl_params_init(&fp, rc->force->params, rc->force->n_params), "integrate");
    sl_lua_check_keys(L, cfg, "integrate", run_keys, pvs, 3, 0);
    check_plugin_table(L, prop_idx, "integrator", rc->prop->name, &pp);
    read_force_keys(L, &fs, &fp);
    char ctx[128];
    sl_lua_check(L, sl_params_complete(&run), "integrate");
    snprintf(ctx, sizeof ctx, "integrate: integrator '%s'", rc->prop->name);
    sl_lua_check(L, sl_params_complete(&pp), ctx);
    sl_lua_check(L, rc->prop->pack(&pp, rc->pp), ctx);
    snprintf(ctx, sizeof ctx, "integrate: force '%s'", force_label);
    sl_lua_check(L, sl_params_complete(&fp), ctx);
    sl_lua_check(L, sl_force_pack(rc->force, &fp, rc->fp), ctx);
    p->force_values = fp;
    rc->force_values = &p->force_values;
    rc->t_end = sl_params_get(&run, "t_end");
    rc->max_steps = (int64_t)sl_params_get(&run, "max_steps");
    rc->steps_per_launch = (int64_t)sl_params_get(&run, "steps_per_launch");
    p->has_seed = run.given[3];
    p->seed = (lua_Integer)sl_params_get(&run, "seed");

    int has_log_monitor = read_monitors(L, cfg, &rc->mon, p->um);
    rc->user_monitors = p->um->use;
    rc->n_user_monitors = p->um->n;
    p->log_path = read_string_key(L, cfg, "log", "a CSV file name");
    if (has_log_monitor && !p->log_path)
        sl_lua_error(L, "integrate: monitor 'log' needs the key 'log' (a CSV file name) to "
                        "write its snapshots to");
    if (!has_log_monitor && p->log_path)
        rc->mon.log_on_stop = 1; /* a log without a log monitor records the stops */
    p->log_flags = sl_lua_out_flags(L, cfg, "integrate");
    if (p->log_path) { /* before the first step, in a dry run too */
        char ctx[1100];
        snprintf(ctx, sizeof ctx, "integrate: key 'log' = \"%.1000s\"", p->log_path);
        sl_lua_out_check(L, p->log_path, p->log_flags, ctx);
    }
    check_progress(L, cfg);
    p->dry_run = read_dry_run(L, cfg);
    read_megno(L, cfg, p);
    sl_lua_open_backend(L, cfg, "integrate", SL_BACKEND_CAN_CPU | SL_BACKEND_CAN_CUDA, NULL,
                        &p->be);

    /* sl_integrate checks these too, but only after the log file exists */
    rc->registry = sl_lua_registry(L);
    const sl_kernel_entry *k;
    sl_lua_check(L, sl_registry_kernel(rc->registry, rc->prop, rc->force->name, p->e->n_body, &k),
                 "integrate");
    if (p->be.kind == SL_BACKEND_CUDA && !k->cuda)
        sl_lua_error(L, "integrate: integrator '%s' with force '%s' has no CUDA kernel in this "
                        "build", rc->prop->name, force_label);
    lua_settop(L, ens);
}

/* ---- running -------------------------------------------------------------------- */

typedef struct progress_ctx {
    lua_State *L;
    int fn;     /* stack index of the progress function */
    int err;    /* stack index of a slot for its error */
    int failed;
    double last; /* the fraction last reported */
} progress_ctx;

static int progress_cb(void *ud, double fraction, int64_t launches, double elapsed)
{
    progress_ctx *p = ud;
    lua_State *L = p->L;
    p->last = fraction;
    if (!lua_checkstack(L, 8))
        return 0;
    lua_pushvalue(L, p->fn);
    lua_pushnumber(L, fraction);
    lua_pushinteger(L, launches);
    lua_pushnumber(L, elapsed);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        lua_replace(L, p->err);
        p->failed = 1;
        return 1;
    }
    int cancel = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return cancel;
}

static const char *event_label(double ev)
{
    switch ((int)ev) {
    case SL_LOG_PERIODIC: return "periodic";
    case SL_LOG_STOP: return "stop";
    case SL_LOG_INITIAL: return "initial";
    case SL_LOG_FINAL: return "final";
    case SL_LOG_MERGE: return "merge";
    }
    return "unknown";
}

static sl_status log_sink(void *ud, const double *rec, int64_t n, int rec_len)
{
    FILE *f = ud;
    int nb = (rec_len - SL_LOG_HEAD) / 6;
    for (int64_t i = 0; i < n; i++, rec += rec_len)
        for (int b = 0; b < nb; b++) {
            const double *s = rec + SL_LOG_HEAD + 6 * b;
            fprintf(f, "%lld", (long long)rec[0] + 1);
            sl_put_num(f, ",", rec[1]);
            fprintf(f, ",%lld,%s,%d", (long long)rec[2], event_label(rec[3]), b + 1);
            for (int k = 0; k < 6; k++)
                sl_put_num(f, ",", s[k]);
            fputc('\n', f);
        }
    if (ferror(f))
        return sl_fail(SL_ERR_IO, "writing the log: %s", strerror(errno));
    return SL_OK;
}

/* The log's temporary file, removed whatever error ends the call. */
static sl_out *open_log(lua_State *L, const char *path, unsigned flags, int header)
{
    char ctx[1100];
    snprintf(ctx, sizeof ctx, "integrate: key 'log' = \"%.1000s\"", path);
    sl_out *o = sl_lua_out_open(L, path, flags, ctx);
    sl_lua_write_header(L, header, o->f);
    fputs("sys,time,step,event,body,x,y,z,vx,vy,vz\n", o->f);
    return o;
}

/* The result's metadata: its ensemble, the seed (given to integrate, else
 * the ensemble's), the config text and the log's name. */
static void push_result_meta(lua_State *L, int ens, int config_text, const run_plan *p)
{
    lua_createtable(L, 0, 4);
    int meta = lua_gettop(L);
    lua_pushvalue(L, ens);
    lua_setfield(L, meta, "ensemble");
    if (p->has_seed)
        lua_pushinteger(L, p->seed);
    else {
        sl_lua_ensemble_meta(L, ens);
        lua_getfield(L, -1, "seed");
        lua_remove(L, -2);
    }
    lua_setfield(L, meta, "seed");
    lua_pushvalue(L, config_text);
    lua_setfield(L, meta, "config");
    if (p->log_path) {
        lua_pushstring(L, p->log_path);
        lua_setfield(L, meta, "log");
    }
}

/* Raises the core's message from sl_integrate or sl_run_check, which may
 * already start with "integrate:". */
static int core_error(lua_State *L, user_monitors *um)
{
    const char *msg = lua_pushstring(L, sl_last_error()); /* release may set another */
    user_monitors_release(um);
    return sl_lua_error(L, "%s%s", strncmp(msg, "integrate:", 10) ? "integrate: " : "", msg);
}

/* starling.integrate{dry_run = true}: every check of a real run, the log
 * file's rules included (read_config checks them), then a summary table
 * instead of the run. The ensemble is not touched. */
static int dry_run(lua_State *L, const run_plan *p)
{
    if ((p->megno ? sl_megno_check(&p->be, p->e, &p->rc, &p->mc)
                  : sl_run_check(&p->be, p->e, &p->rc)) != SL_OK)
        return core_error(L, p->um);
    user_monitors_release(p->um);
    lua_createtable(L, 0, 8);
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "dry_run");
    lua_pushinteger(L, p->e->n_sys);
    lua_setfield(L, -2, "systems");
    lua_pushinteger(L, p->e->n_body);
    lua_setfield(L, -2, "bodies");
    lua_pushstring(L, p->rc.prop->name);
    lua_setfield(L, -2, "integrator");
    lua_pushstring(L, sl_force_stack_label(&p->stack));
    lua_setfield(L, -2, "force");
    lua_pushstring(L, p->be.description);
    lua_setfield(L, -2, "backend");
    lua_pushnumber(L, p->rc.t_end);
    lua_setfield(L, -2, "t_end");
    if (p->log_path) {
        lua_pushstring(L, p->log_path);
        lua_setfield(L, -2, "log");
    }
    return 1;
}

/* Stack: 1 config, 2 config text (or nil), 3 progress function (or nil). */
static int l_integrate(lua_State *L)
{
    lua_settop(L, 3);
    if (lua_type(L, 1) != LUA_TTABLE) {
        char got[96];
        sl_lua_describe(L, 1, got, sizeof got);
        return sl_lua_error(L, "integrate: expected a table {ensemble = ..., dt = ..., t_end = "
                               "...}, got %s", got);
    }
    run_plan p;
    memset(&p, 0, sizeof p);
    p.um = push_user_monitors(L); /* stack index 4, below everything read_config keeps */
    read_config(L, 1, &p);
    if (p.dry_run)
        return dry_run(L, &p);
    int ens = lua_gettop(L);

    push_result_meta(L, ens, 2, &p);
    int meta = lua_gettop(L);
    sl_lua_push_header(L, meta);
    int header = lua_gettop(L);

    sl_lua_result *r = push_result(L, p.e->n_sys);
    int res_idx = lua_gettop(L);
    lua_pushvalue(L, meta);
    lua_setiuservalue(L, res_idx, 1);
    sl_out *lf = p.log_path ? open_log(L, p.log_path, p.log_flags, header) : NULL;
    lua_pushnil(L); /* slot for a progress error */
    progress_ctx pc = {L, 3, lua_gettop(L), 0, 0.0};
    if (lua_type(L, 3) == LUA_TFUNCTION) {
        p.rc.progress = progress_cb;
        p.rc.progress_ud = &pc;
    }
    if (lf) {
        p.rc.log_sink = log_sink;
        p.rc.log_ud = lf->f;
    }

    sl_run_result res;
    sl_megno_result mr;
    sl_status st = p.megno ? sl_integrate_megno(&p.be, p.e, &p.rc, &p.mc, &res, &mr)
                           : sl_integrate(&p.be, p.e, &p.rc, &res);

    if (st != SL_OK) {
        if (lf)
            sl_out_abort(lf);
        if (pc.failed) {
            user_monitors_release(p.um);
            lua_pushvalue(L, pc.err);
            return lua_error(L);
        }
        return core_error(L, p.um);
    }
    user_monitors_release(p.um);
    take_results(r, p.e, &res, &p.be);
    if (p.megno)
        r->megno = mr, r->has_megno = 1;
    if (lf)
        sl_lua_out_commit(L, lf, "integrate: log");
    if (p.rc.progress && pc.last < 1.0) /* so that a printer can finish its line */
        progress_cb(&pc, 1.0, r->res.launches, r->res.wall_s);
    if (pc.failed) {
        lua_pushvalue(L, pc.err);
        return lua_error(L);
    }
    lua_pushvalue(L, res_idx);
    return 1;
}

void sl_lua_open_run(lua_State *L)
{
    open_result(L);
    lua_pushcfunction(L, l_integrate);
    lua_setfield(L, -2, "integrate");
}
