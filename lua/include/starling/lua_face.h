/* What a plugin's Lua face (an sl_lua_face, <starling/face.h>) builds on:
 * the helpers of the `starling` executable's Lua module, in the shared
 * library starling_face (libstarling_face.so), which faces link.
 *
 * Every error raised here is prefixed with the location of the user's
 * config line (the first stack frame that is neither a C function nor part
 * of starling's own Lua library), so that scripts see
 * "run.lua:12: integrate: key 'dt' = -1: expected ...". Nothing here prints. */
#ifndef STARLING_LUA_FACE_H
#define STARLING_LUA_FACE_H

#include <lauxlib.h>
#include <lua.h>
#include "starling/backend.h"
#include "starling/data.h"
#include "starling/face.h"
#include "starling/params.h"
#include "starling/registry.h"

SL_EXTERN_C_BEGIN

/* The metatable name of an ensemble userdata (described as "an ensemble"). */
#define SL_LUA_ENSEMBLE "starling.ensemble"
/* The metatable of a data object (a table of columns a plugin's reader
 * returns) that sl_lua_data takes as data; a face creates it with
 * luaL_newmetatable before setting it. */
#define SL_LUA_DATA_OBJECT "starling.rvdata"

/* --- errors --- */

/* Pushes "file:line: " of the user's frame, or "" when there is none. */
void sl_lua_where(lua_State *L);
/* Raises a message (printf-style) with the user's location prefixed. */
int sl_lua_error(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Describes the value at idx for a message: 3, 0.5, "abc", true, nil, a table. */
void sl_lua_describe(lua_State *L, int idx, char *buf, size_t cap);
/* " (a string)" for values that are not numbers or booleans, else "". */
const char *sl_lua_type_note(lua_State *L, int idx);
/* Raises "ctx: " + sl_last_error() when st is not SL_OK. */
void sl_lua_check(lua_State *L, sl_status st, const char *ctx);

/* --- parameter tables --- */

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

/* Opens the backend named by key 'backend' of the table at cfg ("auto" when
 * absent) through the core's one parser (sl_backend_parse), for a plugin
 * that can run on `can` (SL_BACKEND_CAN_*; `who` names it); raises
 * "ctx: key 'backend' = <value>: <the core's reason>". */
void sl_lua_open_backend(lua_State *L, int cfg, const char *ctx, unsigned can, const char *who,
                         sl_backend *be);

/* --- output files --- */

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

/* --- data for plugins (starling/data.h) --- */

/* Key 'data' of the table at cfg as a descriptor (starling/data.h): a file
 * name, a table of named columns, or a data object whose metatable is
 * object_mt (SL_LUA_DATA_OBJECT: a reader's, its columns from memory); and key
 * 'columns' = {want = "from", ...} as the user's picks. Arrays live in
 * userdata pushed on the stack, strings in the user's tables: all valid
 * until the caller returns. Returns 0 (d empty) when 'data' is absent;
 * raises "ctx: data.rv[3] = ..." and the like for bad values. */
int sl_lua_data(lua_State *L, int cfg, const char *ctx, const char *object_mt, sl_data *d);
/* The same for the data under `key` of the table at cfg (a likelihood's
 * further data set, sl_likelihood.more_data), without picks. */
int sl_lua_data_key(lua_State *L, int cfg, const char *key, const char *ctx,
                    const char *object_mt, sl_data *d);

/* Only key 'columns' of the table at cfg, as picks into d. */
void sl_lua_data_picks(lua_State *L, int cfg, const char *ctx, sl_data *d);

/* --- a plugin's data reader: starling.X.read(path[, {columns = {...}}]) --- */

/* The reader's arguments, the path at 1 and the options at 2 (none, nil or
 * a table whose one key is 'columns', the user's picks), as a descriptor;
 * raises "fn: ..." for anything else. */
sl_data sl_lua_reader_args(lua_State *L, const char *fn);
/* Pushes a userdata of `size` zeroed bytes and returns them: the reader
 * reads into them, and release(them) runs when the userdata is collected,
 * so that an error after the read frees what was read. */
void *sl_lua_reader_guard(lua_State *L, size_t size, void (*release)(void *));
/* Pushes x[0..n) as a list of numbers. */
void sl_lua_push_numbers(lua_State *L, const double *x, size_t n);
/* Pushes a new data object {path =, n =}; the reader adds its columns as
 * fields (n_fields of them, a size hint). */
void sl_lua_data_object_new(lua_State *L, const char *path, size_t n, int n_fields);
/* Finishes the data object on top: `columns` (NULL-terminated) names the
 * fields starling.likelihood hands to the plugin, in order; `reader` is the
 * reader's Lua name. Sets the SL_LUA_DATA_OBJECT metatable. */
void sl_lua_data_object_seal(lua_State *L, const char *const *columns, const char *reader);

/* --- plugins --- */

/* The registry this Lua state loaded when the module opened: a face finds
 * its plugin's tables (and any other's) here. */
const sl_registry *sl_lua_registry(lua_State *L);

SL_EXTERN_C_END

#endif
