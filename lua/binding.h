/* The C half of the Lua module: "starling.core", preloaded by the starling
 * executable and wrapped by the pure-Lua library in lua/starling/.
 *
 * Every error raised here is prefixed with the location of the user's
 * config line (the first stack frame that is neither a C function nor part
 * of starling's own Lua library), so that scripts see
 * "run.lua:12: integrate: key 'dt' = -1: expected ...". Nothing here prints. */
#ifndef STARLING_LUA_BINDING_H
#define STARLING_LUA_BINDING_H

#include <lauxlib.h>
#include <lua.h>
#include "starling/data.h"
#include "starling/starling.h"

#define SL_LUA_ENSEMBLE "starling.ensemble"
#define SL_LUA_RESULT "starling.result"

int luaopen_starling_core(lua_State *L);

/* --- errors (binding.c) --- */

/* Pushes "file:line: " of the user's frame, or "" when there is none. */
void sl_lua_where(lua_State *L);
/* Raises a message (printf-style) with the user's location prefixed. */
int sl_lua_error(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Describes the value at idx for a message: 3, 0.5, "abc", true, nil, a table. */
void sl_lua_describe(lua_State *L, int idx, char *buf, size_t cap);
/* " (a string)" for values that are not numbers or booleans, else "". */
const char *sl_lua_type_note(lua_State *L, int idx);

/* --- parameter tables (binding.c) --- */

/* Checks the value at idx against the schema entry `key` of pv and stores
 * it; raises "ctx: key 'k' = v: expected ..." otherwise. */
void sl_lua_set_param(lua_State *L, const char *ctx, sl_param_values *pv, const char *key,
                      int idx);

/* Walks the table at tidx: a key listed in `extra` is left to the caller,
 * one found in a schema of pvs[] (first match wins) is checked and stored,
 * anything else raises naming the key, its value and the keys known. With
 * allow_first, entry [1] is skipped (the name in {"eject", r = 50}). */
void sl_lua_check_keys(lua_State *L, int tidx, const char *ctx, const char *const *extra,
                       sl_param_values *const *pvs, size_t npv, int allow_first);

/* The string at idx, else raises "fn: <what> = <value>: expected a string". */
const char *sl_lua_check_str(lua_State *L, int idx, const char *fn, const char *what);

/* Raises "ctx: " + sl_last_error() when st is not SL_OK. */
void sl_lua_check(lua_State *L, sl_status st, const char *ctx);

/* Opens the backend named by key 'backend' of the table at cfg ("auto" when
 * absent) through the core's one parser (sl_backend_parse), for a plugin
 * that can run on `can` (SL_BACKEND_CAN_*; `who` names it); raises
 * "ctx: key 'backend' = <value>: <the core's reason>". */
void sl_lua_open_backend(lua_State *L, int cfg, const char *ctx, unsigned can, const char *who,
                         sl_backend *be);

/* --- output files (binding.c) --- */

/* An output file (starling/output.h) owned by a userdata left on the
 * stack: whatever raises before sl_lua_out_commit (a bad value, an error
 * from a Lua callback, an interrupt) removes its temporary file, at once
 * when the caller aborts it and at the latest when the state closes.
 * Raises "ctx: <why>" when the path breaks a rule of output.h. */
struct sl_out;
struct sl_out *sl_lua_out_open(lua_State *L, const char *path, unsigned flags, const char *ctx);
/* Puts it in place; raises "ctx: ..." (the temporary file removed). */
void sl_lua_out_commit(lua_State *L, struct sl_out *o, const char *ctx);
/* Raises "ctx: <why>" unless sl_out_check(path, flags) passes: for every
 * output a call will write, before its work starts. */
void sl_lua_out_check(lua_State *L, const char *path, unsigned flags, const char *ctx);
/* SL_OUT_OVERWRITE when the table at idx (a call's configuration or its
 * options; none or nil: 0) has overwrite = true; raises on a non-boolean. */
unsigned sl_lua_out_flags(lua_State *L, int idx, const char *ctx);

/* The registry this Lua state loaded at module open. */
const sl_registry *sl_lua_registry(lua_State *L);

/* --- ensembles (binding_ensemble.c) --- */

typedef struct sl_lua_ensemble {
    sl_ensemble *e;
} sl_lua_ensemble;

void sl_lua_open_ensemble(lua_State *L);
sl_ensemble *sl_lua_to_ensemble(lua_State *L, int idx); /* NULL if not one */
sl_ensemble *sl_lua_check_ensemble(lua_State *L, int idx);
/* Pushes the metadata table of the ensemble at idx: {seed=, config=}. */
void sl_lua_ensemble_meta(lua_State *L, int idx);
/* A 1-based system index at idx, checked, as a 0-based one. */
int64_t sl_lua_check_sys(lua_State *L, int idx, int64_t n_sys, const char *fn);
/* Pushes the header lines of an output (a Lua list) from a meta table. */
void sl_lua_push_header(lua_State *L, int meta_idx);
/* Writes header lines (a Lua list at idx) as '#' comments. */
void sl_lua_write_header(lua_State *L, int idx, FILE *f);

/* --- runs (binding_run.c) --- */

void sl_lua_open_run(lua_State *L);

/* --- periodograms (binding_lombscargle.c) --- */

void sl_lua_open_lombscargle(lua_State *L);

/* --- microlensing (binding_microlensing.c) --- */

void sl_lua_open_microlensing(lua_State *L);

/* --- data for plugins (binding_data.c) --- */

/* Key 'data' of the table at cfg as a descriptor (starling/data.h): a file
 * name, a table of named columns, or a data object whose metatable is
 * object_mt (starling.rv.read's: its columns, from memory); and key
 * 'columns' = {want = "from", ...} as the user's picks. Arrays live in
 * userdata pushed on the stack, strings in the user's tables: all valid
 * until the caller returns. Returns 0 (d empty) when 'data' is absent;
 * raises "ctx: data.rv[3] = ..." and the like for bad values. */
int sl_lua_data(lua_State *L, int cfg, const char *ctx, const char *object_mt, sl_data *d);

/* Only key 'columns' of the table at cfg, as picks into d. */
void sl_lua_data_picks(lua_State *L, int cfg, const char *ctx, sl_data *d);

/* --- likelihoods, kepler.solve, rv.read (binding_likelihood.c) --- */

void sl_lua_open_likelihood(lua_State *L);

/* A prepared likelihood object: its plugin, context, backend and free
 * parameters (names, bounds). */
typedef struct sl_lua_lik {
    const sl_likelihood *l;
    void *ctx;
    sl_backend be;
    size_t n_par;
    const char *const *names;
    const double *lo, *hi;
} sl_lua_lik;
/* The likelihood object at idx, or NULL when it is none. */
sl_lua_lik *sl_lua_to_likelihood(lua_State *L, int idx);
/* L:minimize{...}: batched Nelder-Mead on a likelihood (binding_minimize.c). */
int sl_lua_lik_minimize(lua_State *L);

/* --- the DE-MCMC sampler (binding_demcmc.c) --- */

void sl_lua_open_demcmc(lua_State *L);

/* --- points and lines as a PNG (binding_points.c) --- */

void sl_lua_open_points(lua_State *L);

#endif
