/* L:minimize{start = row | {rows}, step = {...}, iterations = 2000,
 *            tol = 1e-6}: batched Nelder-Mead (starling/simplex.h) on a
 * prepared likelihood, one simplex per start row, every round's trial
 * points of all simplices in one eval of the likelihood (on its backend).
 * step has one entry per parameter: the simplex's initial edge along it,
 * 0 to hold the parameter at its start value. It minimises chi^2 (or
 * -2 ln L where the plugin gives no chi^2) and returns {x = {best rows},
 * chi2 = {...}, iterations = {...}, evals =, batches =, seconds =}. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "binding_util.h"
#include "starling/simplex.h"

typedef struct mz_user {
    const sl_lua_lik *k;
    const double *base; /* n_start x n_par start rows (the held values) */
    const int *free_ix; /* dim indices of the free parameters */
    int dim;
    double *rows, *ll, *chi2; /* scratch for the largest batch */
} mz_user;

static sl_status mz_fn(void *user, const double *x, const size_t *owner, size_t n, double *out)
{
    mz_user *u = user;
    const sl_lua_lik *k = u->k;
    for (size_t i = 0; i < n; i++) {
        double *r = u->rows + i * k->n_par;
        memcpy(r, u->base + owner[i] * k->n_par, k->n_par * sizeof *r);
        for (int q = 0; q < u->dim; q++)
            r[u->free_ix[q]] = x[i * (size_t)u->dim + (size_t)q];
    }
    sl_status st = k->l->eval_batch_chi2
                       ? k->l->eval_batch_chi2(k->ctx, &k->be, u->rows, n, u->ll, u->chi2)
                       : k->l->eval_batch(k->ctx, &k->be, u->rows, n, u->ll);
    for (size_t i = 0; !st && i < n; i++)
        out[i] = k->l->eval_batch_chi2 ? u->chi2[i] : -2.0 * u->ll[i];
    return st;
}

static double mz_num(lua_State *L, int t, const char *key, double def, double lo, double hi)
{
    lua_getfield(L, t, key);
    double v = def;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) >= lo) ||
            !(lua_tonumber(L, -1) <= hi)) {
            char got[96];
            sl_lua_describe(L, -1, got, sizeof got);
            sl_lua_error(L, "minimize: '%s' = %s: expected a number in [%g, %g]", key, got, lo,
                         hi);
        }
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* Row i (1-based) of the list at idx (or the single row idx) into p. */
static void mz_row(lua_State *L, const sl_lua_lik *k, int idx, const char *what, double *p)
{
    if (lua_type(L, idx) != LUA_TTABLE || lua_rawlen(L, idx) != k->n_par)
        sl_lua_error(L, "minimize: %s: expected a list of %zu numbers (%s, ..., see :params())",
                     what, k->n_par, k->names[0]);
    for (size_t j = 0; j < k->n_par; j++) {
        lua_rawgeti(L, idx, (lua_Integer)j + 1);
        if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1))) {
            char got[96];
            sl_lua_describe(L, -1, got, sizeof got);
            sl_lua_error(L, "minimize: %s, '%s' = %s: expected a finite number", what,
                         k->names[j], got);
        }
        p[j] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
}

static void push_vec(lua_State *L, const double *x, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, x[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static int lik_minimize(lua_State *L)
{
    sl_lua_lik *k = sl_lua_to_likelihood(L, 1);
    if (!k)
        sl_lua_error(L, "minimize: expected L:minimize{...} on a likelihood");
    if (lua_type(L, 2) != LUA_TTABLE)
        sl_lua_error(L, "minimize: expected a table {start =, step =, iterations =, tol =}");
    static const char *const keys[] = {"start", "step", "iterations", "tol", NULL};
    sl_lua_check_keys(L, 2, "minimize", keys, NULL, 0, 0);
    int iters = (int)mz_num(L, 2, "iterations", 2000, 1, 1e7);
    double tol = mz_num(L, 2, "tol", 1e-6, 0, 1e300);
    lua_getfield(L, 2, "start"); /* 3 */
    lua_getfield(L, 2, "step");  /* 4 */
    if (lua_type(L, 3) != LUA_TTABLE || lua_rawlen(L, 3) == 0)
        sl_lua_error(L, "minimize: 'start' is missing or empty: expected a parameter row or a "
                     "list of them");
    int single = lua_rawgeti(L, 3, 1) == LUA_TNUMBER;
    lua_pop(L, 1);
    size_t n = single ? 1 : lua_rawlen(L, 3), np = k->n_par;
    double step_all[64];
    if (np > 32)
        sl_lua_error(L, "minimize: %zu parameters: at most 32", np);
    mz_row(L, k, 4, "'step'", step_all);
    int free_ix[32], dim = 0;
    double step[32];
    for (size_t j = 0; j < np; j++)
        if (step_all[j] != 0.0)
            step[dim] = step_all[j], free_ix[dim++] = (int)j;
    if (dim == 0)
        sl_lua_error(L, "minimize: every 'step' is 0: expected a step != 0 for each parameter to "
                     "fit");
    /* one userdata for everything: Lua frees it after any error */
    size_t batch = n * (size_t)(dim + 1);
    size_t need = n * np + n * dim + n * dim + n + batch * np + 2 * batch;
    double *base = lua_newuserdatauv(L, need * sizeof(double) + n * sizeof(int), 0);
    double *start = base + n * np, *x = start + n * dim, *f = x + n * dim;
    double *rows = f + n, *ll = rows + batch * np, *chi2 = ll + batch;
    int *it = (int *)(chi2 + batch);
    for (size_t i = 0; i < n; i++) {
        char what[48];
        snprintf(what, sizeof what, single ? "'start'" : "start[%zu]", i + 1);
        if (!single)
            lua_rawgeti(L, 3, (lua_Integer)i + 1);
        mz_row(L, k, single ? 3 : -1, what, base + i * np);
        if (!single)
            lua_pop(L, 1);
        for (int q = 0; q < dim; q++)
            start[i * dim + q] = base[i * np + (size_t)free_ix[q]];
    }
    mz_user u = {k, base, free_ix, dim, rows, ll, chi2};
    sl_simplex_spec spec = {dim, n, start, step, iters, tol};
    sl_simplex_result res = {x, f, it, 0, 0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sl_lua_check(L, sl_simplex_minimise(&spec, mz_fn, &u, &res), "minimize");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    lua_createtable(L, 0, 6);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        for (int q = 0; q < dim; q++)
            base[i * np + (size_t)free_ix[q]] = x[i * dim + q];
        push_vec(L, base + i * np, np);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "x");
    push_vec(L, f, n);
    lua_setfield(L, -2, "chi2");
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, it[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "iterations");
    lua_pushinteger(L, (lua_Integer)res.evals);
    lua_setfield(L, -2, "evals");
    lua_pushinteger(L, (lua_Integer)res.batches);
    lua_setfield(L, -2, "batches");
    lua_pushnumber(L, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    lua_setfield(L, -2, "seconds");
    return 1;
}

void sl_lua_open_minimize(lua_State *L)
{
    luaL_getmetatable(L, SL_LUA_LIKELIHOOD);
    lua_getfield(L, -1, "__index");
    lua_pushcfunction(L, lik_minimize);
    lua_setfield(L, -2, "minimize");
    lua_pop(L, 2);
}
