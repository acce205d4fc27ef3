/* What the parts of the Lua module "starling.core" share: the objects they
 * hand each other (ensembles, likelihoods) and the function each part opens
 * its functions with. binding.c calls every part's opener; the parts use
 * this header and each other's objects, never binding.c. The helpers
 * plugins' faces share (errors, parameter tables, outputs) are
 * <starling/lua_face.h>'s; nothing here prints. */
#ifndef STARLING_LUA_BINDING_UTIL_H
#define STARLING_LUA_BINDING_UTIL_H

#include <lauxlib.h>
#include <lua.h>
#include "starling/data.h"
#include "starling/lua_face.h"
#include "starling/starling.h"

#define SL_LUA_RESULT "starling.result"

/* Loads the default plugin path into a registry owned by the Lua state
 * (sl_lua_registry); raises when that fails (face.c). */
void sl_lua_open_registry(lua_State *L);

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

/* --- starling.plot_png (plot_png.c) --- */

int sl_lua_plot_png(lua_State *L);

/* --- runs (binding_run.c) --- */

void sl_lua_open_run(lua_State *L);

/* --- likelihoods, kepler.solve (binding_likelihood.c) --- */

void sl_lua_open_likelihood(lua_State *L);

/* The metatable of a likelihood object. */
#define SL_LUA_LIKELIHOOD "starling.likelihood"

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
/* L:minimize{...}: batched Nelder-Mead on a likelihood, added to the
 * likelihood's methods (binding_minimize.c); after sl_lua_open_likelihood. */
void sl_lua_open_minimize(lua_State *L);

/* --- the DE-MCMC sampler (binding_demcmc.c) --- */

void sl_lua_open_demcmc(lua_State *L);

/* --- points and lines as a PNG (binding_points.c) --- */

void sl_lua_open_points(lua_State *L);

#endif
