/* The DE-MCMC sampler from Lua (starling/demcmc.h):
 *
 *   local r = starling.demcmc{
 *     likelihood = L,              -- a starling.likelihood object, or
 *                                  -- function(p) return ln L end with params = {...}
 *     priors = {P1 = {"uniform", 1, 100}, K1 = {"log_uniform", 0.1, 1e3},
 *               e1 = {"truncated_normal", 0, 0.3, 0, 0.95}, w1 = {"uniform", 0, 6.2832,
 *               periodic = true}, jit = 0.5},      -- a number: fixed
 *     chains = 64, generations = 4000, burn = 2000, thin = 1, seed = 1,
 *     progress = true,             -- or function(generation, acceptance, rhat, ess)
 *     archive = false, archive_every = 10,   -- DE-MCz: differences from past states
 *     snooker = 0,                 -- probability of a snooker update
 *     stop_rhat = 1.01, stop_ess = 1000, stop_every = 100,  -- stop once converged
 *     backend = "auto",            -- "cuda": generations on the likelihood's device
 *     fused = true,                -- there, half-generations in the plugin's kernel
 *   }
 *   r:summary()      per parameter: median, 16 and 84 %, mean, sd, R-hat, ESS (printable)
 *   r:save(path)     the kept draws as CSV, with the configuration in '#' lines;
 *                    a path ending .h5 or .hdf5: HDF5 (mcmc_hdf5.h's layout)
 *   r:samples(name)  one parameter's kept draws (generation-major)
 *   r:info()         counts, acceptance, times
 *   r:trace_png(path[, {params = {...}, chains = 8, title = ...}])
 *   r:corner_png(path[, {params = {...}, points = 5000, title = ...}])
 *   starling.demcmc{..., resume = r}  goes on from r's last generation
 *   checkpoint = {path = "run.ckpt", every = 1000}: the chains written every
 *   1000 generations; starling.demcmc{..., resume = "run.ckpt"} goes on from there;
 *   checkpoint.draws = "run_draws.h5": the kept draws appended there as they come
 *   (mcmc_hdf5.h), a resumed run appending after the generation it resumes from
 *
 * A parameter without a prior gets a uniform one over the likelihood's own
 * bounds when both are finite; otherwise it is an error naming it. Every
 * argument is checked before any work starts. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binding_util.h"
#include "num_text.h"
#include "csv.h"
#include "mcmc_hdf5.h"
#include "mcmc_plot.h"

#define SL_LUA_DEMCMC "starling.demcmc_result"
#define FN "demcmc"

static const char *const dm_backends[] = {"auto", "cpu", "cuda", NULL};
enum { DM_AUTO, DM_CPU, DM_CUDA };

static const sl_param dm_params[] = {
    {"backend", SL_PARAM_WORD, 0, 0, 0, 0,
     "where the generations run: cuda keeps them on the likelihood's device (its plugin "
     "needs a device entry); auto does so when it can", dm_backends, NULL},
    {"fused", SL_PARAM_BOOL, 1, 0, 1, 0,
     "on the device, each half-generation in one kernel of the likelihood's when its plugin "
     "has one (demcmc_half_device): the same chains, less time outside the likelihood",
     NULL, NULL},
    {"time_every", SL_PARAM_INTEGER, 16, 1, 1e9, 0,
     "on the device, info().likelihood_s is measured on every k-th half-generation and "
     "scaled; 1 measures each (exact, a few microseconds of the device's time apiece)",
     NULL, NULL},
    {"chains", SL_PARAM_INTEGER, 0, 0, 1e9, 0,
     "chains: even, >= 2 x the free parameters (0: 3 x, at least 16)", NULL, NULL},
    {"generations", SL_PARAM_INTEGER, 2000, 1, 1e12, 0, "generations to run", NULL, NULL},
    {"burn", SL_PARAM_INTEGER, NAN, 0, 1e12, 0, "generations not kept", NULL,
     "half the generations (none when resuming)"},
    {"thin", SL_PARAM_INTEGER, 1, 1, 1e9, 0, "keep every thin-th generation", NULL, NULL},
    {"seed", SL_PARAM_INTEGER, 1, 0, 9007199254740991.0, 0, "keys every random draw", NULL,
     NULL},
    {"gamma", SL_PARAM_NUMBER, 0, 0, 10, 0, "the jump's scale (0: 2.38 / sqrt(2 d))", NULL,
     NULL},
    {"gamma1_every", SL_PARAM_INTEGER, 10, 0, 1e9, 0,
     "every k-th generation jumps with gamma = 1 (0: never)", NULL, NULL},
    {"noise", SL_PARAM_NUMBER, 1e-4, 0, 0.999, 0,
     "spread of the jump's noise, relative to the pair's difference", NULL, NULL},
    {"outliers", SL_PARAM_BOOL, 1, 0, 1, 0,
     "restart chains stuck far below the others during burn-in", NULL, NULL},
    {"archive", SL_PARAM_BOOL, 0, 0, 1, 0,
     "DE-MCz: differences from an archive of past states", NULL, NULL},
    {"archive_every", SL_PARAM_INTEGER, 10, 1, 1e9, 0,
     "DE-MCz: the chains join the archive every k generations", NULL, NULL},
    {"snooker", SL_PARAM_NUMBER, 0, 0, 1, 0, "probability of a snooker update", NULL, NULL},
    {"stop_rhat", SL_PARAM_NUMBER, 0, 0, 10, 0,
     "stop once every R-hat is below this (0: not asked)", NULL, NULL},
    {"stop_ess", SL_PARAM_NUMBER, 0, 0, 1e15, 0,
     "stop once every min(bulk, tail) ESS is above this (0: not asked)", NULL, NULL},
    {"stop_every", SL_PARAM_INTEGER, 0, 0, 1e12, 0,
     "kept generations between convergence checks", NULL,
     "a twentieth of those asked, at least 50"},
};
enum { N_DM = sizeof dm_params / sizeof *dm_params };

static const char *const dm_extra[] = {"likelihood", "priors", "params", "progress",
                                       "resume", "checkpoint", "overwrite", "start", NULL};

/* ---- the result ------------------------------------------------------------ */

typedef struct dm_result {
    sl_demcmc_result r;
    sl_demcmc_config c;
    int backend;     /* DM_*, as asked */
    int on_device;   /* the generations ran on the device */
    int fused;       /* asked: fused half-generations where the plugin has them */
    int n;           /* parameters */
    char **names;
    sl_prior *priors;
    int64_t first;   /* generations run before this call (resume) */
    char target[160];/* what was sampled, for the output's header */
} dm_result;

static void prior_text(char *buf, size_t n, const sl_prior *p);

static void names_free(char **names, int n)
{
    for (int i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

static int dm_gc(lua_State *L)
{
    dm_result *d = lua_touserdata(L, 1);
    sl_demcmc_result_free(&d->r);
    names_free(d->names, d->n);
    free(d->priors);
    d->names = NULL, d->priors = NULL;
    return 0;
}

static dm_result *check_dm(lua_State *L, int idx)
{
    dm_result *d = luaL_testudata(L, idx, SL_LUA_DEMCMC);
    if (!d || !d->r.samples) {
        char got[96];
        sl_lua_describe(L, idx, got, sizeof got);
        sl_lua_error(L, "expected a demcmc result (call methods with ':'), got %s", got);
    }
    return d;
}

/* ---- the parameters and their priors ---------------------------------------- */

/* The names, from the likelihood or from params = {...} (for a function). */
static void read_names(lua_State *L, int cfg, const sl_lua_lik *k, dm_result *d)
{
    if (k) {
        if (lua_getfield(L, cfg, "params") != LUA_TNIL)
            sl_lua_error(L, FN ": key 'params' is for a likelihood function; a likelihood "
                            "object names its own (see :params())");
        lua_pop(L, 1);
        d->n = (int)k->n_par;
        d->names = calloc((size_t)d->n, sizeof *d->names);
        for (int i = 0; d->names && i < d->n; i++)
            d->names[i] = strdup(k->names[i]);
        return;
    }
    if (lua_getfield(L, cfg, "params") != LUA_TTABLE || lua_rawlen(L, -1) == 0) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, FN ": key 'params' = %s: a likelihood function needs its parameters' "
                        "names in order, e.g. params = {\"x\", \"y\"}", got);
    }
    d->n = (int)lua_rawlen(L, -1);
    d->names = calloc((size_t)d->n, sizeof *d->names);
    for (int i = 0; d->names && i < d->n; i++) {
        lua_rawgeti(L, -1, i + 1);
        char what[32];
        snprintf(what, sizeof what, "params[%d]", i + 1);
        d->names[i] = strdup(sl_lua_check_str(L, -1, FN, what));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static double prior_num(lua_State *L, int t, int i, const char *name, const char *what)
{
    lua_rawgeti(L, t, i);
    if (lua_type(L, -1) != LUA_TNUMBER) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, FN ": priors.%s: %s = %s%s: expected a number", name, what, got,
                     sl_lua_type_note(L, -1));
    }
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

#define PRIOR_FORMS                                                                        \
    "{\"uniform\", lo, hi}, {\"log_uniform\", lo, hi}, {\"normal\", mean, sigma}, "          \
    "{\"truncated_normal\", mean, sigma, lo, hi}, {\"fixed\", value} or a number (fixed)"

/* The prior at the top of the stack, for parameter `name`. */
static sl_prior read_prior(lua_State *L, const char *name)
{
    sl_prior p = {0};
    int t = lua_gettop(L);
    if (lua_type(L, t) == LUA_TNUMBER) {
        p.kind = SL_PRIOR_FIXED;
        p.value = lua_tonumber(L, t);
        return p;
    }
    if (lua_type(L, t) != LUA_TTABLE || lua_rawgeti(L, t, 1) != LUA_TSTRING) {
        char got[96];
        sl_lua_describe(L, t, got, sizeof got);
        sl_lua_error(L, FN ": priors.%s = %s: expected " PRIOR_FORMS, name, got);
    }
    const char *kind = lua_tostring(L, -1);
    lua_pop(L, 1);
    static const char *const kinds[] = {"uniform", "log_uniform", "normal", "truncated_normal",
                                        "fixed"};
    for (int k = 0; k < 5; k++)
        if (!strcmp(kind, kinds[k]))
            p.kind = k + 1;
    if (!p.kind)
        sl_lua_error(L, FN ": priors.%s: kind \"%s\": expected " PRIOR_FORMS, name, kind);
    static const int nargs[] = {0, 2, 2, 2, 4, 1};
    if ((int)lua_rawlen(L, t) != 1 + nargs[p.kind])
        sl_lua_error(L, FN ": priors.%s: a %s prior takes %d numbers, got %d: expected "
                     PRIOR_FORMS, name, kind, nargs[p.kind], (int)lua_rawlen(L, t) - 1);
    if (p.kind == SL_PRIOR_FIXED)
        p.value = prior_num(L, t, 2, name, "value");
    else if (p.kind == SL_PRIOR_UNIFORM || p.kind == SL_PRIOR_LOG_UNIFORM) {
        p.lo = prior_num(L, t, 2, name, "lower");
        p.hi = prior_num(L, t, 3, name, "upper");
    } else {
        p.mu = prior_num(L, t, 2, name, "mean");
        p.sigma = prior_num(L, t, 3, name, "sigma");
        if (p.kind == SL_PRIOR_TRUNC_NORMAL) {
            p.lo = prior_num(L, t, 4, name, "lower");
            p.hi = prior_num(L, t, 5, name, "upper");
        }
    }
    int pt = lua_getfield(L, t, "periodic");
    if (pt != LUA_TNIL && pt != LUA_TBOOLEAN)
        sl_lua_error(L, FN ": priors.%s: periodic: expected true or false", name);
    p.periodic = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return p;
}

/* A name of the table at t that is no parameter: an error listing them. */
static void check_prior_names(lua_State *L, int t, const dm_result *d)
{
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        int found = 0;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (int i = 0; i < d->n && !found; i++)
                found = !strcmp(lua_tostring(L, -1), d->names[i]);
        if (!found) {
            char got[96], known[512] = "";
            size_t used = 0;
            sl_lua_describe(L, -1, got, sizeof got);
            for (int i = 0; i < d->n && used < sizeof known; i++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                         i ? ", " : "", d->names[i]);
            sl_lua_error(L, FN ": priors: %s is not a parameter; the parameters are %s", got,
                         known);
        }
    }
}

static void read_priors(lua_State *L, int cfg, const sl_lua_lik *k, dm_result *d)
{
    d->priors = calloc((size_t)d->n, sizeof *d->priors);
    if (!d->priors || !d->names)
        sl_lua_error(L, FN ": out of memory for %d parameters", d->n);
    int tt = lua_getfield(L, cfg, "priors");
    if (tt != LUA_TTABLE && tt != LUA_TNIL) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, FN ": key 'priors' = %s: expected a table {name = prior, ...}", got);
    }
    int t = lua_gettop(L);
    if (tt == LUA_TTABLE)
        check_prior_names(L, t, d);
    for (int i = 0; i < d->n; i++) {
        if (tt == LUA_TTABLE && lua_getfield(L, t, d->names[i]) != LUA_TNIL) {
            d->priors[i] = read_prior(L, d->names[i]);
        } else if (k && isfinite(k->lo[i]) && isfinite(k->hi[i])) {
            d->priors[i] = (sl_prior){.kind = SL_PRIOR_UNIFORM, .lo = k->lo[i], .hi = k->hi[i]};
        } else {
            sl_lua_error(L, FN ": priors.%s is required: %s", d->names[i],
                         k ? "the likelihood does not bound it" : "give one for every parameter");
        }
        if (tt == LUA_TTABLE)
            lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* ---- the targets ------------------------------------------------------------ */

typedef struct lua_target {
    lua_State *L;
    int fn;            /* the function's stack index */
    int n;             /* parameters */
    const sl_lua_lik *k;
    int failed;        /* the function raised: its message is on the stack */
} lua_target;

static sl_status lik_target(void *ud, const double *p, int64_t n, double *out)
{
    lua_target *t = ud;
    return t->k->l->eval_batch(t->k->ctx, &t->k->be, p, (size_t)n, out);
}

static sl_status dev_target(void *ud, const double *p, int64_t n, const int *count, double *out,
                            void *stream)
{
    lua_target *t = ud;
    return t->k->l->eval_batch_device(t->k->ctx, p, (size_t)n, count, out, stream);
}

static sl_status dev_half(void *ud, const struct sl_dm_half *h, void *stream)
{
    lua_target *t = ud;
    return t->k->l->demcmc_half_device(t->k->ctx, h, stream);
}

static sl_status fn_target(void *ud, const double *p, int64_t n, double *out)
{
    lua_target *t = ud;
    lua_State *L = t->L;
    for (int64_t r = 0; r < n; r++) {
        lua_pushvalue(L, t->fn);
        lua_createtable(L, t->n, 0);
        for (int i = 0; i < t->n; i++) {
            lua_pushnumber(L, p[r * t->n + i]);
            lua_rawseti(L, -2, i + 1);
        }
        if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
            t->failed = 1; /* the message stays on the stack for the caller */
            return sl_fail(SL_ERR_ARG, "the likelihood function raised an error");
        }
        int isnum = 0;
        double v = lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
        if (!isnum)
            return sl_fail(SL_ERR_ARG, "the likelihood function returned no number (a log "
                                       "likelihood; -math.huge outside the model's domain)");
        out[r] = v;
    }
    return SL_OK;
}

/* ---- progress --------------------------------------------------------------- */

typedef struct dm_progress {
    lua_State *L;
    int fn;              /* a function's stack index, or 0: the printer */
    int64_t first;       /* generations before this call */
    double t0, last;
    int failed;
} dm_progress;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int dm_progress_cb(void *ud, const sl_demcmc_progress *q)
{
    dm_progress *p = ud;
    if (p->fn) {
        lua_pushvalue(p->L, p->fn);
        lua_pushinteger(p->L, (lua_Integer)q->generation);
        lua_pushnumber(p->L, q->acceptance);
        lua_pushnumber(p->L, q->rhat);
        lua_pushnumber(p->L, q->ess);
        if (lua_pcall(p->L, 4, 1, 0) != LUA_OK) {
            p->failed = 1;
            return 1;
        }
        int stop = lua_toboolean(p->L, -1);
        lua_pop(p->L, 1);
        return stop;
    }
    double t = now_s();
    if (t - p->last < 0.5 && q->generation < q->last)
        return 0;
    p->last = t;
    int64_t done = q->generation - p->first, left = q->last - q->generation;
    double el = t - p->t0, eta = done > 0 ? el * (double)left / (double)done : 0.0;
    /* on a terminal the line rewrites itself; in a file, one line each */
    int tty = isatty(fileno(stderr));
    char diag[64] = "";
    if (!isnan(q->rhat))
        snprintf(diag, sizeof diag, ", R-hat %.3f, ESS %.0f", q->rhat, q->ess);
    fprintf(stderr, "%sdemcmc: generation %lld of %lld, acceptance %.2f%s, %.0f s, ETA %.0f s%s",
            tty ? "\r" : "", (long long)q->generation, (long long)q->last, q->acceptance, diag,
            el, eta, tty ? "  " : "\n");
    if (tty && q->generation >= q->last)
        fputc('\n', stderr);
    return 0;
}

/* ---- starling.demcmc -------------------------------------------------------- */

/* The schema's range for chains, [0, 1e9], says less than the rule: a
 * negative count is told the rule itself (the sampler's check tells the
 * others, with the free parameters counted). */
static void check_chains_key(lua_State *L, int cfg)
{
    if (lua_getfield(L, cfg, "chains") == LUA_TNUMBER && lua_isinteger(L, -1)) {
        lua_Integer n = lua_tointeger(L, -1);
        if (n < 0)
            sl_lua_error(L, FN ": key 'chains' = %lld: expected an even number >= 4 and >= 2 x "
                            "the free parameters, or 0 (3 x the free parameters, at least 16)",
                         (long long)n);
    }
    lua_pop(L, 1);
}

/* A core message already begins with "demcmc: "; it is not said twice. */
static void dm_check(lua_State *L, sl_status st)
{
    if (st == SL_OK)
        return;
    const char *m = sl_last_error();
    if (!strncmp(m, FN ": ", sizeof FN + 1))
        m += sizeof FN + 1;
    sl_lua_error(L, FN ": %s", m);
}

static void read_config(lua_State *L, int cfg, int resuming, dm_result *d)
{
    sl_param_values pv;
    sl_param_values *pvs[] = {&pv};
    check_chains_key(L, cfg);
    sl_lua_check(L, sl_params_init(&pv, dm_params, N_DM), FN);
    sl_lua_check_keys(L, cfg, FN, dm_extra, pvs, 1, 0);
    sl_lua_check(L, sl_params_complete(&pv), FN);
    sl_demcmc_config *c = &d->c;
    sl_demcmc_config_default(c);
    c->chains = (int64_t)sl_params_get(&pv, "chains");
    c->generations = (int64_t)sl_params_get(&pv, "generations");
    double burn = sl_params_get(&pv, "burn");
    c->burn = isnan(burn) ? (resuming ? 0 : c->generations / 2) : (int64_t)burn;
    c->thin = (int64_t)sl_params_get(&pv, "thin");
    c->seed = (uint64_t)sl_params_get(&pv, "seed");
    c->gamma = sl_params_get(&pv, "gamma");
    c->gamma1_every = (int64_t)sl_params_get(&pv, "gamma1_every");
    c->noise = sl_params_get(&pv, "noise");
    c->outliers = sl_params_get(&pv, "outliers") != 0.0;
    c->archive = sl_params_get(&pv, "archive") != 0.0;
    c->archive_every = (int64_t)sl_params_get(&pv, "archive_every");
    c->snooker = sl_params_get(&pv, "snooker");
    c->stop_rhat = sl_params_get(&pv, "stop_rhat");
    c->stop_ess = sl_params_get(&pv, "stop_ess");
    c->stop_every = (int64_t)sl_params_get(&pv, "stop_every");
    d->backend = (int)sl_params_get(&pv, "backend");
    d->fused = sl_params_get(&pv, "fused") != 0.0;
    c->device_time_every = (int64_t)sl_params_get(&pv, "time_every");
    if (c->chains == 0) {
        int free = 0;
        for (int i = 0; i < d->n; i++)
            free += d->priors[i].kind != SL_PRIOR_FIXED;
        c->chains = 3 * free < 16 ? 16 : 3 * free + (3 * free) % 2;
    }
}

/* Where a run goes on from: a result (resume = r) or a checkpoint file
 * (resume = "path"); names and states live in the result or in userdata
 * on the stack. */
typedef struct resume_point {
    const char *from;          /* "the result" or the file's name, for messages */
    int n;
    const char *const *names;
    const double *last;        /* chains x n */
    int64_t chains, first;     /* generations run before */
    uint64_t seed;
    const double *archive;     /* DE-MCz: archive_rows x n, or NULL */
    int64_t archive_rows;
} resume_point;

/* "# key = value" of a checkpoint's header line, or NULL. */
static const char *header_value(const char *line, const char *key)
{
    size_t k = strlen(key);
    if (strncmp(line, "# ", 2) || strncmp(line + 2, key, k) || strncmp(line + 2 + k, " = ", 3))
        return NULL;
    return line + 5 + k;
}

#define CKPT_MAGIC "# starling demcmc checkpoint"

/* `rows` lines "k,v1,...,vn" (k = 1, 2, ...) into x; *ln counts the
 * lines read. 0, or the k of the first line that is not one. */
static long long read_rows(FILE *f, int *ln, long long rows, int n, double *x)
{
    char line[8192];
    for (long long c = 0; c < rows; c++) {
        ++*ln;
        char *p = fgets(line, sizeof line, f) ? line : NULL;
        long long idx = p ? strtoll(p, &p, 10) : -1;
        for (int i = 0; p && idx == c + 1 && i < n; i++) {
            char *end;
            x[c * n + i] = *p == ',' ? strtod(p + 1, &end) : NAN;
            p = *p == ',' && end != p + 1 && isfinite(x[c * n + i]) ? end : NULL;
        }
        if (!p || idx != c + 1)
            return c + 1;
    }
    return 0;
}

/* A checkpoint's header: its "# key = value" lines. */
typedef struct ckpt_head {
    long long seed, gens, chains, archive_rows;
    char params[4096];
} ckpt_head;

/* Reads the magic line and the header from f, and the column names' line
 * after it; the number of lines read, 0 when f is no checkpoint. Keys
 * not found are -1 (archive_rows 0, params ""). */
static int read_ckpt_head(FILE *f, ckpt_head *h)
{
    char line[8192];
    *h = (ckpt_head){-1, -1, -1, 0, ""};
    if (!fgets(line, sizeof line, f) || strncmp(line, CKPT_MAGIC "\n", sizeof CKPT_MAGIC))
        return 0;
    int ln = 1;
    while (fgets(line, sizeof line, f) && line[0] == '#') {
        ln++;
        line[strcspn(line, "\r\n")] = 0;
        const char *v;
        if ((v = header_value(line, "seed")))
            h->seed = atoll(v);
        else if ((v = header_value(line, "generations")))
            h->gens = atoll(v);
        else if ((v = header_value(line, "chains")))
            h->chains = atoll(v);
        else if ((v = header_value(line, "archive_rows")))
            h->archive_rows = atoll(v);
        else if ((v = header_value(line, "params")))
            snprintf(h->params, sizeof h->params, "%.4000s", v);
    }
    return ln;
}

/* The checkpoint file at path into *rp (its arrays in userdata on the stack);
 * errors name the file and line. */
static void read_checkpoint(lua_State *L, const char *path, resume_point *rp)
{
    FILE *f = fopen(path, "r");
    if (!f)
        sl_lua_error(L, FN ": resume: cannot open %s", path);
    char line[8192];
    ckpt_head h;
    int ln = read_ckpt_head(f, &h);
    long long seed = h.seed, gens = h.gens, chains = h.chains, zrows = h.archive_rows;
    const char *params = h.params;
    if (!ln) {
        fclose(f);
        sl_lua_error(L, FN ": resume: %s:1: not a starling demcmc checkpoint (expected the line "
                        "\"" CKPT_MAGIC "\")", path);
    }
    if (seed < 0 || gens < 0 || chains < 1 || !params[0]) {
        fclose(f);
        sl_lua_error(L, FN ": resume: %s: its header lacks seed, generations, chains or params",
                     path);
    }
    int n = 1;
    for (const char *c = params; *c; c++)
        n += *c == ',';
    char **names = lua_newuserdatauv(L, (size_t)n * sizeof *names + strlen(params) + 1, 0);
    char *buf = (char *)(names + n);
    strcpy(buf, params);
    names[0] = buf;
    for (int i = 1; i < n; i++) {
        names[i] = strchr(names[i - 1], ',');
        *names[i]++ = 0;
    }
    double *x = lua_newuserdatauv(L, (size_t)(chains * n) * sizeof *x, 0);
    ln++; /* the column names */
    long long bad = read_rows(f, &ln, chains, n, x);
    if (bad) {
        fclose(f);
        sl_lua_error(L, FN ": resume: %s:%d: expected chain %lld's %d values, "
                        "\"%lld,v1,...\"", path, ln, bad, n, bad);
    }
    double *z = NULL;
    if (zrows > 0) {
        z = lua_newuserdatauv(L, (size_t)(zrows * n) * sizeof *z, 0);
        ln++; /* the archive's column names */
        bad = fgets(line, sizeof line, f) ? read_rows(f, &ln, zrows, n, z) : 1;
        if (bad) {
            fclose(f);
            sl_lua_error(L, FN ": resume: %s:%d: expected archive row %lld's %d values, "
                            "\"%lld,v1,...\"", path, ln, bad, n, bad);
        }
    }
    fclose(f);
    *rp = (resume_point){path, n, (const char *const *)names, x, chains, gens, (uint64_t)seed,
                         z, zrows > 0 ? zrows : 0};
}

/* resume = r or "checkpoint file": *rp, or 0 when the key is absent. */
static int read_resume(lua_State *L, int cfg, resume_point *rp)
{
    int t = lua_getfield(L, cfg, "resume");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    if (t == LUA_TSTRING) {
        read_checkpoint(L, lua_tostring(L, -1), rp); /* its userdata stay on the stack */
        return 1;
    }
    const dm_result *prev = luaL_testudata(L, -1, SL_LUA_DEMCMC);
    if (!prev || !prev->r.last) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, FN ": key 'resume' = %s: expected a demcmc result or a checkpoint file's "
                        "name", got);
    }
    *rp = (resume_point){"the result", prev->n, (const char *const *)prev->names,
                         prev->r.last, prev->c.chains, prev->first + prev->r.generations,
                         prev->c.seed, prev->r.archive, prev->r.archive_rows};
    return 1; /* cfg keeps the result alive */
}

/* Key 'start': the chains' first states, one row of every parameter (in
 * the likelihood's order, fixed ones at their values) per chain, instead
 * of draws from the priors (e.g. a small ball about L:minimize's best, as
 * emcee's users start their walkers). Each row must lie inside every
 * prior's support. The rows live in a userdata left on the stack; NULL
 * when the key is absent. */
static const double *read_start(lua_State *L, int cfg, int resuming, const dm_result *d)
{
    int t = lua_getfield(L, cfg, "start");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    if (resuming)
        sl_lua_error(L, FN ": keys 'start' and 'resume' together: a resumed run starts where "
                        "the other stopped");
    const int64_t chains = d->c.chains;
    if (t != LUA_TTABLE || (int64_t)lua_rawlen(L, -1) != chains) {
        char got[96];
        sl_lua_describe(L, -1, got, sizeof got);
        sl_lua_error(L, FN ": key 'start' = %s: expected a list of %lld rows (one per chain) of "
                        "%d numbers", t == LUA_TTABLE ? "a list of another length" : got,
                     (long long)chains, d->n);
    }
    int tab = lua_gettop(L);
    double *x = lua_newuserdatauv(L, (size_t)chains * (size_t)d->n * sizeof *x, 0);
    for (int64_t i = 0; i < chains; i++) {
        if (lua_rawgeti(L, tab, (lua_Integer)i + 1) != LUA_TTABLE ||
            (int)lua_rawlen(L, -1) != d->n)
            sl_lua_error(L, FN ": start[%lld]: expected a row of %d numbers (%s ... %s)",
                         (long long)i + 1, d->n, d->names[0], d->names[d->n - 1]);
        for (int k = 0; k < d->n; k++) {
            lua_rawgeti(L, -1, k + 1);
            int isnum = 0;
            double v = lua_tonumberx(L, -1, &isnum);
            lua_pop(L, 1);
            if (!isnum || !isfinite(v))
                sl_lua_error(L, FN ": start[%lld][%d] (%s): expected a finite number",
                             (long long)i + 1, k + 1, d->names[k]);
            if (!(sl_prior_logpdf(&d->priors[k], v) > -INFINITY)) {
                char pr[96];
                prior_text(pr, sizeof pr, &d->priors[k]);
                sl_lua_error(L, FN ": start[%lld][%d] (%s) = %g: outside its prior %s",
                             (long long)i + 1, k + 1, d->names[k], v, pr);
            }
            x[i * d->n + k] = v;
        }
        lua_pop(L, 1);
    }
    lua_remove(L, tab); /* the rows' userdata stays */
    return x;
}

/* The same parameters and chain count; the seed is the resumed run's
 * unless given. */
static void check_resume(lua_State *L, int cfg, const resume_point *rp, dm_result *d)
{
    if (rp->n != d->n)
        sl_lua_error(L, FN ": resume: %s has %d parameters, this run %d", rp->from, rp->n, d->n);
    for (int i = 0; i < d->n; i++)
        if (strcmp(rp->names[i], d->names[i]))
            sl_lua_error(L, FN ": resume: parameter %d is '%s' in %s, '%s' here", i + 1,
                         rp->names[i], rp->from, d->names[i]);
    if (lua_getfield(L, cfg, "chains") != LUA_TNIL && d->c.chains != rp->chains)
        sl_lua_error(L, FN ": resume: chains = %lld, %s has %lld", (long long)d->c.chains,
                     rp->from, (long long)rp->chains);
    lua_pop(L, 1);
    d->c.chains = rp->chains;
    if (lua_getfield(L, cfg, "seed") == LUA_TNIL)
        d->c.seed = rp->seed;
    lua_pop(L, 1);
    d->first = rp->first;
    if (d->c.archive && rp->archive) /* DE-MCz goes on with its archive */
        d->c.archive_start = rp->archive, d->c.archive_start_rows = rp->archive_rows;
}

/* checkpoint = {path = "run.ckpt", every = 1000}: the chains written there,
 * whole or not at all, every `every` generations. */
typedef struct ckpt {
    const char *path;
    unsigned flags; /* output.h */
    const dm_result *d;
    const char *draws;   /* checkpoint.draws: the kept draws appended there, or NULL */
    sl_mcmc_draws w;
} ckpt;

static void write_rows(FILE *f, const double *x, int64_t rows, int n)
{
    for (int64_t c = 0; c < rows; c++) {
        fprintf(f, "%lld", (long long)c + 1);
        for (int i = 0; i < n; i++)
            sl_put_num(f, ",", x[c * n + i]);
        fputc('\n', f);
    }
}

static void write_columns(FILE *f, const char *first, const dm_result *d)
{
    fputs(first, f);
    for (int i = 0; i < d->n; i++)
        fprintf(f, ",%s", d->names[i]);
    fputc('\n', f);
}

static sl_status write_checkpoint(void *ud, const sl_demcmc_state *s)
{
    const ckpt *k = ud;
    const dm_result *d = k->d;
    sl_out af;
    sl_status st = sl_out_open(&af, k->path, k->flags);
    if (st)
        return st;
    fprintf(af.f, CKPT_MAGIC "\n# seed = %llu\n# generations = %lld\n# chains = %lld\n",
            (unsigned long long)d->c.seed, (long long)s->generation, (long long)d->c.chains);
    if (s->archive)
        fprintf(af.f, "# archive_rows = %lld\n", (long long)s->archive_rows);
    fprintf(af.f, "# params = ");
    for (int i = 0; i < d->n; i++)
        fprintf(af.f, "%s%s", i ? "," : "", d->names[i]);
    fputc('\n', af.f);
    write_columns(af.f, "chain", d);
    write_rows(af.f, s->x, d->c.chains, d->n);
    if (s->archive) {
        write_columns(af.f, "archive", d);
        write_rows(af.f, s->archive, s->archive_rows, d->n);
    }
    return sl_out_commit(&af);
}

static sl_status append_draws(void *ud, const sl_demcmc_result *r, int64_t from, int64_t to);

/* The header of the checkpoint at path; 0 when it is none. */
static int checkpoint_header(const char *path, ckpt_head *h)
{
    FILE *f = fopen(path, "r");
    int ok = f && read_ckpt_head(f, h);
    if (f)
        fclose(f);
    return ok;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* An existing checkpoint that this process did not write is an earlier
 * run's, never replaced silently: a run that resumes from it goes on
 * writing it; otherwise overwrite = true is needed, and the message says
 * whether the file is this configuration's (and how to resume it) or
 * another's. */
static void check_checkpoint_path(lua_State *L, ckpt *k, const dm_result *d,
                                  const resume_point *rp)
{
    char ctx[1100];
    snprintf(ctx, sizeof ctx, FN ": key 'checkpoint': path = \"%.1000s\"", k->path);
    if (rp && rp->from && same_file(rp->from, k->path))
        k->flags |= SL_OUT_OVERWRITE;
    ckpt_head h;
    char mine[4096] = "";
    if (!(k->flags & SL_OUT_OVERWRITE) && !sl_out_made_here(k->path) &&
        checkpoint_header(k->path, &h)) {
        for (int i = 0; i < d->n; i++)
            snprintf(mine + strlen(mine), sizeof mine - strlen(mine), "%s%s", i ? "," : "",
                     d->names[i]);
        if (h.seed == (long long)d->c.seed && h.chains == d->c.chains && !strcmp(h.params, mine))
            sl_lua_error(L, "%s: it holds an earlier run of this configuration (%lld "
                            "generations): resume it with resume = \"%s\", or pass overwrite = "
                            "true to start again", ctx, h.gens, k->path);
        sl_lua_error(L, "%s: it holds another run's checkpoint (seed %lld, %lld chains, "
                        "parameters %s): choose another path, or pass overwrite = true to "
                        "replace it", ctx, h.seed, h.chains, h.params);
    }
    sl_lua_out_check(L, k->path, k->flags, ctx);
}

/* checkpoint.draws is written in place (appended to as the run goes), so
 * it must be a file, not a stream; a resumed run appends to its earlier
 * file, and a new run replaces one only as output.h's rule allows. */
static void check_draws_path(lua_State *L, const ckpt *k, int resuming)
{
    char ctx[1100];
    snprintf(ctx, sizeof ctx, FN ": checkpoint.draws = \"%.1000s\"", k->draws);
    struct stat sb;
    if (stat(k->draws, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        sl_lua_error(L, "%s: expected a file (HDF5 is appended to in place), not a FIFO or a "
                        "device", ctx);
    if (!resuming)
        sl_lua_out_check(L, k->draws, k->flags, ctx);
}

static void read_checkpoint_key(lua_State *L, int cfg, ckpt *k, dm_result *d,
                                const resume_point *rp)
{
    if (lua_getfield(L, cfg, "checkpoint") == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    int t = lua_gettop(L);
    if (!lua_istable(L, t) || lua_getfield(L, t, "path") != LUA_TSTRING ||
        lua_getfield(L, t, "every") != LUA_TNUMBER || !lua_isinteger(L, -1) ||
        lua_tointeger(L, -1) < 1)
        sl_lua_error(L, FN ": key 'checkpoint': expected {path = \"run.ckpt\", every = "
                        "<generations, >= 1>}");
    k->path = lua_tostring(L, -2); /* the table at t keeps it */
    k->d = d;
    k->flags = sl_lua_out_flags(L, cfg, FN);
    check_checkpoint_path(L, k, d, rp);
    d->c.checkpoint = write_checkpoint;
    d->c.checkpoint_ud = k;
    d->c.checkpoint_every = (int64_t)lua_tointeger(L, -1);
    lua_pop(L, 2);
    int dt = lua_getfield(L, t, "draws");
    if (dt != LUA_TNIL && dt != LUA_TSTRING)
        sl_lua_error(L, FN ": checkpoint.draws: expected a file name (HDF5, e.g. "
                        "\"run_draws.h5\"), got a %s", lua_typename(L, dt));
    if (dt == LUA_TSTRING) {
        k->draws = lua_tostring(L, -1); /* the table at t keeps it */
        check_draws_path(L, k, rp != NULL);
        d->c.draws = append_draws;
        d->c.draws_ud = k;
    }
    lua_pop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, t)) { /* no other key */
        lua_pop(L, 1);
        const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        if (strcmp(key, "path") && strcmp(key, "every") && strcmp(key, "draws"))
            sl_lua_error(L, FN ": checkpoint: unknown key '%s' (expected path, every and "
                            "optionally draws)", key);
    }
}

/* The kept generations [from, to) appended to checkpoint.draws, with
 * their generation numbers (1-based, counting a resumed run's earlier). */
static sl_status append_draws(void *ud, const sl_demcmc_result *r, int64_t from, int64_t to)
{
    ckpt *k = ud;
    const dm_result *d = k->d;
    const int64_t N = r->chains, D = r->n_params, rows = to - from;
    int64_t *gen = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *gen);
    if (!gen)
        return sl_fail_nomem((double)rows * sizeof *gen, "%s: generation numbers", k->draws);
    for (int64_t i = 0; i < rows; i++)
        gen[i] = d->first + d->c.burn + (from + i) * d->c.thin + 1;
    sl_status st = sl_mcmc_draws_append(&k->w, r->samples + from * N * D, r->logpost + from * N,
                                        r->loglike + from * N, gen, rows);
    free(gen);
    return st;
}

/* backend = "cuda" keeps the generations on the likelihood's device, and
 * says why it cannot; "auto" does so when it can. */
static void choose_backend(lua_State *L, const sl_lua_lik *k, dm_result *d)
{
    const char *why = NULL;
    if (!k)
        why = "the likelihood is a Lua function";
    else if (k->be.kind != SL_BACKEND_CUDA)
        why = "the likelihood object runs on the CPU (starling.likelihood{..., backend = "
              "\"cuda\"})";
    else if (!k->l->eval_batch_device)
        why = "its plugin has no device entry (eval_batch_device)";
    else if (d->c.chains > 1023 * 1024)
        why = "more than 1,047,552 chains";
    if (d->backend == DM_CUDA && why)
        sl_lua_error(L, FN ": backend = \"cuda\": %s", why);
    d->on_device = d->backend != DM_CPU && !why;
}

static void describe_target(const sl_lua_lik *k, dm_result *d)
{
    if (k)
        snprintf(d->target, sizeof d->target, "likelihood %s (%s)", k->l->name,
                 k->be.description);
    else
        snprintf(d->target, sizeof d->target, "a Lua function");
}

/* The run's warnings on stderr, one a line; a script reads them in
 * r:info().warnings. */
static void print_warnings(const dm_result *d)
{
    const char *w = d->r.warnings;
    while (*w) {
        size_t n = strcspn(w, "\n");
        fprintf(stderr, "starling: " FN ": warning: %.*s\n", (int)n, w);
        w += n + (w[n] == '\n');
    }
}

static int l_demcmc(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TTABLE) {
        char got[96];
        sl_lua_describe(L, 1, got, sizeof got);
        sl_lua_error(L, FN ": expected a table {likelihood = ..., priors = {...}, ...}, got %s",
                     got);
    }
    lua_settop(L, 1);
    lua_getfield(L, 1, "likelihood"); /* 2 */
    const sl_lua_lik *k = sl_lua_to_likelihood(L, 2);
    if (!k && lua_type(L, 2) != LUA_TFUNCTION) {
        char got[96];
        sl_lua_describe(L, 2, got, sizeof got);
        sl_lua_error(L, FN ": key 'likelihood' = %s: expected a starling.likelihood object or "
                        "a function(p) returning ln L (with params = {names})", got);
    }
    int pt = lua_getfield(L, 1, "progress"); /* 3 */
    if (pt != LUA_TNIL && pt != LUA_TBOOLEAN && pt != LUA_TFUNCTION)
        sl_lua_error(L, FN ": key 'progress' = %s: expected true, false or "
                        "function(generation, acceptance)", lua_typename(L, pt));
    dm_result *d = lua_newuserdatauv(L, sizeof *d, 0); /* 4 */
    memset(d, 0, sizeof *d);
    luaL_setmetatable(L, SL_LUA_DEMCMC);
    resume_point rp;
    int resuming = read_resume(L, 1, &rp);
    read_names(L, 1, k, d);
    read_priors(L, 1, k, d);
    read_config(L, 1, resuming, d);
    if (resuming)
        check_resume(L, 1, &rp, d);
    const double *start = read_start(L, 1, resuming, d);
    ckpt ck = {NULL, 0, NULL, NULL, {0}};
    read_checkpoint_key(L, 1, &ck, d, resuming ? &rp : NULL);
    describe_target(k, d);
    dm_check(L, sl_demcmc_check(&d->c, d->n, d->priors, (const char *const *)d->names));
    dm_progress pr = {L, pt == LUA_TFUNCTION ? 3 : 0, d->first, now_s(), 0.0, 0};
    if (pt == LUA_TFUNCTION || (pt == LUA_TBOOLEAN && lua_toboolean(L, 3)))
        d->c.progress = dm_progress_cb, d->c.progress_ud = &pr;
    lua_target t = {L, 2, d->n, k, 0};
    choose_backend(L, k, d);
    if (d->on_device)
        d->c.device_target = dev_target, d->c.device_target_ud = &t;
    if (d->on_device && d->fused && k->l->demcmc_half_device)
        d->c.device_half = dev_half, d->c.device_half_ud = &t;
    /* the draws file: new, or cut after the generation this run resumes from */
    if (ck.draws)
        dm_check(L, sl_mcmc_draws_open(&ck.w, ck.draws, d->c.chains, d->n,
                                       (const char *const *)d->names, resuming ? d->first : -1));
    sl_status st = sl_demcmc_run(&d->c, d->n, d->priors, (const char *const *)d->names,
                                 k ? lik_target : fn_target, &t, resuming ? rp.last : start,
                                 d->first, &d->r);
    if (ck.draws) {
        sl_status cl = sl_mcmc_draws_close(&ck.w);
        st = st ? st : cl;
    }
    d->c.draws = NULL, d->c.draws_ud = NULL; /* ck is this call's */
    d->c.checkpoint = NULL, d->c.checkpoint_ud = NULL;
    d->c.device_target = NULL, d->c.device_target_ud = NULL; /* t is this call's */
    d->c.device_half = NULL, d->c.device_half_ud = NULL;
    if (t.failed || pr.failed) /* the function's own error, as Lua raised it */
        return lua_error(L);
    if (d->c.progress && !pr.fn && d->r.converged && isatty(fileno(stderr)))
        fputc('\n', stderr); /* the line stopped short of its last generation */
    dm_check(L, st);
    print_warnings(d);
    lua_pushvalue(L, 4); /* the result, below what reading the keys left */
    return 1;
}

/* ---- methods ---------------------------------------------------------------- */

static int param_index(lua_State *L, const dm_result *d, int idx, const char *fn)
{
    if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_Integer i = lua_tointeger(L, idx);
        if (i >= 1 && i <= d->n)
            return (int)i - 1;
    } else if (lua_type(L, idx) == LUA_TSTRING) {
        for (int i = 0; i < d->n; i++)
            if (!strcmp(d->names[i], lua_tostring(L, idx)))
                return i;
    }
    char got[96];
    sl_lua_describe(L, idx, got, sizeof got);
    return sl_lua_error(L, "%s: parameter %s: expected a name (e.g. \"%s\") or 1..%d", fn,
                        got, d->names[0], d->n);
}

static int dm_samples(lua_State *L)
{
    dm_result *d = check_dm(L, 1);
    int p = param_index(L, d, 2, "samples");
    int64_t S = d->r.kept * d->r.chains;
    lua_createtable(L, (int)S, 0);
    for (int64_t k = 0; k < S; k++) {
        lua_pushnumber(L, d->r.samples[k * d->n + p]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    return 1;
}

static double acceptance(const dm_result *d)
{
    int64_t a = 0;
    for (int64_t i = 0; i < d->r.chains; i++)
        a += d->r.accepted[i];
    return d->r.proposals ? (double)a / (double)d->r.proposals : 0.0;
}

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static int dm_info(lua_State *L)
{
    dm_result *d = check_dm(L, 1);
    lua_createtable(L, 0, 12);
    set_num(L, "chains", (double)d->r.chains);
    set_num(L, "kept", (double)d->r.kept);
    set_num(L, "generations", (double)d->r.generations);
    set_num(L, "first", (double)d->first);
    set_num(L, "acceptance", acceptance(d));
    set_num(L, "evaluations", (double)d->r.evaluations);
    set_num(L, "outside", (double)d->r.outside);
    set_num(L, "nan", (double)d->r.nan);
    set_num(L, "reset", (double)d->r.reset);
    set_num(L, "wall_s", d->r.wall_s);
    set_num(L, "likelihood_s", d->r.target_s);
    set_num(L, "setup_s", d->r.setup_s);   /* of wall_s, before the first generation */
    set_num(L, "finish_s", d->r.finish_s); /* and after the last was issued */
    set_num(L, "seed", (double)d->c.seed);
    lua_pushstring(L, d->on_device ? "device" : "host");
    lua_setfield(L, -2, "generations_on"); /* where proposals and decisions ran */
    lua_pushboolean(L, d->r.fused);
    lua_setfield(L, -2, "fused"); /* in the likelihood's kernel; likelihood_s includes them */
    set_num(L, "rhat", d->r.rhat); /* at the last convergence check, if any */
    set_num(L, "ess", d->r.ess);
    set_num(L, "archive_rows", (double)d->r.archive_rows);
    lua_pushboolean(L, d->r.converged);
    lua_setfield(L, -2, "converged");
    lua_pushstring(L, d->target);
    lua_setfield(L, -2, "target");
    lua_newtable(L); /* the run's warnings, one string each */
    const char *w = d->r.warnings;
    for (lua_Integer i = 1; *w; i++) {
        size_t n = strcspn(w, "\n");
        lua_pushlstring(L, w, n);
        lua_rawseti(L, -2, i);
        w += n + (w[n] == '\n');
    }
    lua_setfield(L, -2, "warnings");
    return 1;
}

/* The summary's text: one line per parameter. */
static int summary_tostring(lua_State *L)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "parameter          median         -1 sigma       +1 sigma       "
                       "R-hat   ESS bulk  ESS tail\n");
    for (lua_Integer i = 1; lua_rawgeti(L, 1, i) == LUA_TTABLE; i++) {
        char line[256];
        lua_getfield(L, -1, "name");
        lua_getfield(L, -2, "median");
        lua_getfield(L, -3, "lo");
        lua_getfield(L, -4, "hi");
        lua_getfield(L, -5, "rhat");
        lua_getfield(L, -6, "ess_bulk");
        lua_getfield(L, -7, "ess_tail");
        double med = lua_tonumber(L, -6);
        snprintf(line, sizeof line, "%-18s %-14.7g %-14.7g %-14.7g %-7.4f %-9.0f %.0f\n",
                 lua_tostring(L, -7), med, lua_tonumber(L, -5) - med, lua_tonumber(L, -4) - med,
                 lua_tonumber(L, -3), lua_tonumber(L, -2), lua_tonumber(L, -1));
        lua_pop(L, 8);
        luaL_addstring(&b, line);
    }
    lua_pop(L, 1);
    luaL_pushresult(&b);
    return 1;
}

static int dm_summary(lua_State *L)
{
    dm_result *d = check_dm(L, 1);
    lua_createtable(L, d->n, d->n);
    for (int p = 0; p < d->n; p++) {
        sl_mcmc_diag g;
        if (d->r.kept >= 4)
            sl_lua_check(L, sl_mcmc_diagnose(d->r.samples + p, d->r.kept, d->r.chains,
                                             d->r.chains * d->n, d->n, &g),
                         "summary");
        else
            sl_lua_error(L, "summary: %lld kept generations: at least 4 are needed",
                         (long long)d->r.kept);
        lua_createtable(L, 0, 11);
        lua_pushstring(L, d->names[p]);
        lua_setfield(L, -2, "name");
        set_num(L, "median", g.q50);
        set_num(L, "lo", g.q16);
        set_num(L, "hi", g.q84);
        set_num(L, "mean", g.mean);
        set_num(L, "sd", g.sd);
        set_num(L, "rhat", g.rhat);
        set_num(L, "ess_bulk", g.ess_bulk);
        set_num(L, "ess_tail", g.ess_tail);
        set_num(L, "tau", g.tau);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, d->names[p]);
        lua_rawseti(L, -2, p + 1);
    }
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, summary_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_setmetatable(L, -2);
    return 1;
}

/* A prior as the outputs state it: "uniform [0, 1] periodic". */
static void prior_text(char *buf, size_t n, const sl_prior *p)
{
    int k = snprintf(buf, n, "%s", sl_prior_kind_name(p->kind));
    buf += k, n -= (size_t)k;
    switch (p->kind) {
    case SL_PRIOR_FIXED: snprintf(buf, n, " %.17g", p->value); break;
    case SL_PRIOR_NORMAL: snprintf(buf, n, " mean %.17g sigma %.17g", p->mu, p->sigma); break;
    case SL_PRIOR_TRUNC_NORMAL:
        snprintf(buf, n, " mean %.17g sigma %.17g [%.17g, %.17g]", p->mu, p->sigma, p->lo,
                 p->hi);
        break;
    default: snprintf(buf, n, " [%.17g, %.17g]%s", p->lo, p->hi, p->periodic ? " periodic" : "");
    }
}

static void write_prior(FILE *f, const char *name, const sl_prior *p)
{
    char text[160];
    prior_text(text, sizeof text, p);
    fprintf(f, "# prior %s = %s\n", name, text);
}

static int ends_with(const char *s, const char *end)
{
    size_t a = strlen(s), b = strlen(end);
    return a >= b && !strcmp(s + a - b, end);
}

/* The format follows the name: .h5 and .hdf5 are HDF5, .csv and .txt (or
 * no extension, or a stream such as "-") CSV; any other extension is
 * refused rather than given CSV under a name that says otherwise. */
static void check_save_format(lua_State *L, const char *path)
{
    const char *base = strrchr(path, '/');
    const char *dot = strrchr(base ? base + 1 : path, '.');
    if (!dot || dot == (base ? base + 1 : path) || ends_with(path, ".csv") ||
        ends_with(path, ".txt"))
        return;
    sl_lua_error(L, "save: '%s': the name ends in '%s', a format save does not write; "
                    "expected .csv or .txt (CSV) or .h5 or .hdf5 (HDF5)", path, dot);
}

/* :save("run.h5") (or .hdf5): mcmc_hdf5.h's layout. */
static void save_hdf5(lua_State *L, const dm_result *d, const char *path, unsigned flags)
{
    char (*text)[160] = lua_newuserdatauv(L, (size_t)d->n * (160 + sizeof(char *)), 0);
    const char **priors = (const char **)(text + d->n);
    for (int p = 0; p < d->n; p++) {
        prior_text(text[p], sizeof text[p], &d->priors[p]);
        priors[p] = text[p];
    }
    sl_mcmc_h5 h = {&d->c, &d->r, d->n, (const char *const *)d->names, priors, d->first,
                    d->target, d->on_device};
    sl_lua_check(L, sl_mcmc_write_hdf5(path, flags, &h), "save");
}

static int dm_save(lua_State *L)
{
    dm_result *d = check_dm(L, 1);
    const char *path = sl_lua_check_str(L, 2, "save", "path");
    unsigned flags = sl_lua_out_flags(L, 3, "save");
    if (ends_with(path, ".h5") || ends_with(path, ".hdf5")) {
        save_hdf5(L, d, path, flags);
        return 0;
    }
    check_save_format(L, path);
    sl_out *af = sl_lua_out_open(L, path, flags, "save");
    FILE *f = af->f;
    const sl_demcmc_config *c = &d->c;
    fprintf(f, "# starling demcmc: %s\n", d->target);
    fprintf(f, "# seed = %llu, chains = %lld, generations = %lld (after %lld), burn = %lld, "
               "thin = %lld, gamma = %.17g, gamma1_every = %lld, noise = %.17g, outliers = %d\n",
            (unsigned long long)c->seed, (long long)c->chains, (long long)c->generations,
            (long long)d->first, (long long)c->burn, (long long)c->thin, c->gamma,
            (long long)c->gamma1_every, c->noise, c->outliers);
    fprintf(f, "# archive = %d, archive_every = %lld, snooker = %.17g, stop_rhat = %.17g, "
               "stop_ess = %.17g; generations run = %lld%s on the %s\n", c->archive,
            (long long)c->archive_every, c->snooker, c->stop_rhat, c->stop_ess,
            (long long)d->r.generations, d->r.converged ? " (converged)" : "",
            d->r.fused ? "device, fused into the likelihood's kernel"
                       : d->on_device ? "device" : "host");
    for (int p = 0; p < d->n; p++)
        write_prior(f, d->names[p], &d->priors[p]);
    fprintf(f, "generation,chain");
    for (int p = 0; p < d->n; p++)
        fprintf(f, ",%s", d->names[p]);
    fprintf(f, ",log_posterior,log_likelihood\n");
    /* a signal ends the rows; the commit after it then refuses (output.h) */
    for (int64_t k = 0; k < d->r.kept && !sl_cancelled(); k++)
        for (int64_t i = 0; i < d->r.chains; i++) {
            int64_t s = k * d->r.chains + i;
            fprintf(f, "%lld,%lld", (long long)(d->first + c->burn + k * c->thin + 1),
                    (long long)i + 1);
            for (int p = 0; p < d->n; p++)
                sl_put_num(f, ",", d->r.samples[s * d->n + p]);
            sl_put_num(f, ",", d->r.logpost[s]);
            sl_put_num(f, ",", d->r.loglike[s]);
            fputc('\n', f);
        }
    sl_lua_out_commit(L, af, "save");
    return 0;
}

/* The options table of a plot (index 3, may be absent): params = {names}
 * (default: every parameter that is not fixed) into d->which; *count and
 * title from `count_key` and `title` (overwrite = true is read by the
 * caller). */
static void plot_options(lua_State *L, const dm_result *d, const char *fn, int *which,
                         sl_plot_draws *pd, const char *count_key, int *count,
                         const char **title)
{
    int opt = lua_type(L, 3) == LUA_TTABLE;
    if (!lua_isnoneornil(L, 3) && !opt)
        sl_lua_error(L, "%s: options = %s: expected a table {params = {...}, %s = ..., "
                        "title = ...}", fn, lua_typename(L, lua_type(L, 3)), count_key);
    int n = 0;
    int pt = opt ? lua_getfield(L, 3, "params") : LUA_TNIL;
    if (pt != LUA_TNIL) {
        if (pt != LUA_TTABLE)
            sl_lua_error(L, "%s: params: expected a list of parameter names", fn);
        lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer i = 1; i <= len && n < d->n; i++) {
            lua_rawgeti(L, -1, i);
            which[n++] = param_index(L, d, lua_gettop(L), fn);
            lua_pop(L, 1);
        }
    } else {
        for (int i = 0; i < d->n; i++)
            if (d->priors[i].kind != SL_PRIOR_FIXED)
                which[n++] = i;
    }
    if (opt)
        lua_pop(L, 1);
    if (n == 0)
        sl_lua_error(L, "%s: no parameter to draw", fn);
    if (opt && lua_getfield(L, 3, count_key) != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1)
            sl_lua_error(L, "%s: %s: expected a whole number >= 1", fn, count_key);
        *count = (int)lua_tointeger(L, -1);
    }
    if (opt)
        lua_pop(L, 1);
    *title = NULL;
    if (opt && lua_getfield(L, 3, "title") != LUA_TNIL)
        *title = sl_lua_check_str(L, lua_gettop(L), fn, "title"); /* kept on the stack */
    *pd = (sl_plot_draws){d->r.samples, d->r.kept,   d->r.chains, d->n,
                          (const char *const *)d->names, which, n,
                          d->first + d->c.burn + 1, d->c.thin};
}

static int dm_trace_png(lua_State *L)
{
    dm_result *d = check_dm(L, 1);
    const char *path = sl_lua_check_str(L, 2, "trace_png", "path");
    lua_settop(L, 3); /* the options, or nil */
    int *which = lua_newuserdatauv(L, (size_t)d->n * sizeof(int), 0), shown = 8;
    sl_plot_draws pd;
    const char *title;
    plot_options(L, d, "trace_png", which, &pd, "chains", &shown, &title);
    unsigned flags = sl_lua_out_flags(L, 3, "trace_png");
    sl_lua_check(L, sl_plot_trace(path, flags, &pd, shown, title ? title : d->target),
                 "trace_png");
    return 0;
}

static int dm_corner_png(lua_State *L)
{
    dm_result *d = check_dm(L, 1);
    const char *path = sl_lua_check_str(L, 2, "corner_png", "path");
    lua_settop(L, 3); /* the options, or nil */
    int *which = lua_newuserdatauv(L, (size_t)d->n * sizeof(int), 0), points = 5000;
    sl_plot_draws pd;
    const char *title;
    plot_options(L, d, "corner_png", which, &pd, "points", &points, &title);
    if (d->r.kept < 1)
        sl_lua_error(L, "corner_png: no kept draws");
    unsigned flags = sl_lua_out_flags(L, 3, "corner_png");
    sl_lua_check(L, sl_plot_corner(path, flags, &pd, points, title ? title : d->target),
                 "corner_png");
    return 0;
}

void sl_lua_open_demcmc(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"summary", dm_summary}, {"save", dm_save},          {"samples", dm_samples},
        {"info", dm_info},       {"trace_png", dm_trace_png}, {"corner_png", dm_corner_png},
        {NULL, NULL},
    };
    luaL_newmetatable(L, SL_LUA_DEMCMC);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, dm_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    lua_pushcfunction(L, l_demcmc);
    lua_setfield(L, -2, "demcmc");
}
