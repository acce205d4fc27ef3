#define _GNU_SOURCE
#include "starling/registry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "starling/check_set.h"
#include "starling/ensemble.h"
#include "starling/face.h"
#include "starling/force.h"
#include "starling/force_term.h"
#include "starling/launch.h"
#include "starling/likelihood.h"
#include "starling/monitor.h"
#include "starling/nomem.h"
#include "starling/propagator.h"
#include "monitor_table.h"

struct sl_registry {
    sl_registry_item *items;
    size_t n_items, cap_items;
    void **handles;
    size_t n_handles;
    char **paths;   /* one per handle */
    char **problems;
    size_t n_problems;
    char **dirs;    /* canonical folders already scanned */
    size_t n_dirs;
};

const char *sl_kind_name(sl_kind k)
{
    switch (k) {
    case SL_KIND_PROPAGATOR: return "integrator";
    case SL_KIND_FORCE: return "force";
    case SL_KIND_MONITOR: return "monitor";
    case SL_KIND_LIKELIHOOD: return "likelihood";
    case SL_KIND_PERIODOGRAM: return "periodogram";
    case SL_KIND_KERNELS: return "kernel set";
    case SL_KIND_LENS: return "lens model";
    case SL_KIND_LUA_FACE: return "Lua face";
    case SL_KIND_COMMAND: return "command";
    case SL_KIND_CHECKS: return "checks";
    }
    return "unknown";
}

sl_status sl_registry_create(sl_registry **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? SL_OK : sl_fail_nomem(sizeof **out, "plugin registry");
}

void sl_registry_destroy(sl_registry *r)
{
    if (!r)
        return;
    /* Tables point into the plugins, so handles close last. */
    free(r->items);
    for (size_t i = 0; i < r->n_handles; i++) {
        dlclose(r->handles[i]);
        free(r->paths[i]);
    }
    free(r->handles);
    free(r->paths);
    for (size_t i = 0; i < r->n_problems; i++)
        free(r->problems[i]);
    free(r->problems);
    for (size_t i = 0; i < r->n_dirs; i++)
        free(r->dirs[i]);
    free(r->dirs);
    free(r);
}

static int push_str(char ***arr, size_t *n, const char *s)
{
    char **a = realloc(*arr, (*n + 1) * sizeof *a);
    if (!a)
        return -1;
    *arr = a;
    a[*n] = strdup(s);
    if (!a[*n])
        return -1;
    (*n)++;
    return 0;
}

/* The head every table starts with, checked the same way for every kind:
 * the ABI, the kind and name the plugin lists it under, and its schema. */
static sl_status check_head(const char *path, const sl_plugin_table *t)
{
    const sl_table_head *h = sl_head(t->table);
    const char *kind = sl_kind_name(t->kind);
    if (h->abi != SL_ABI_VERSION)
        return sl_fail(SL_ERR_PLUGIN,
                       "plugin %s: %s '%s' has ABI version %u, but this starling has ABI "
                       "version %u; rebuild the plugin against this starling",
                       path, kind, t->name, h->abi, SL_ABI_VERSION);
    if (h->kind != t->kind)
        return sl_fail(SL_ERR_PLUGIN, "plugin %s: table '%s' is listed as a %s but its head "
                       "says kind %d (%s); set .kind = the kind it is listed under",
                       path, t->name, kind, (int)h->kind, sl_kind_name(h->kind));
    if (!h->name || strcmp(h->name, t->name) != 0)
        return sl_fail(SL_ERR_PLUGIN, "plugin %s: table '%s' is named '%s' inside", path,
                       t->name, h->name ? h->name : "(null)");
    if (sl_params_check_schema(h->params, h->n_params) != SL_OK)
        return sl_fail_context(SL_ERR_PLUGIN, "plugin %s: %s '%s': parameters", path, kind,
                               t->name);
    return SL_OK;
}

/* Traits that instantiate.h can have stamped (launch.h's limits). */
static int traits_stamped(const sl_kernel_traits *t)
{
    return t->nstages >= 1 && t->nstages <= SL_STAGES_MAX && t->persist >= 0 &&
           (t->jerk == 0 || t->jerk == 1) && (t->adaptive == 0 || t->adaptive == 1) &&
           (t->perturb == 0 || t->perturb == 1) && t->jerk + t->perturb <= 1;
}

static sl_status fail_unstamped(const char *integrator, const sl_kernel_entry *k,
                                const char *from)
{
    const sl_kernel_traits *t = &k->traits;
    return sl_fail(SL_ERR_PLUGIN, "integrator '%s': the kernel for force '%s', N = %d, in %s "
                   "records PERSIST %d, NSTAGES %d, JERK %d, ADAPTIVE %d, PERTURB %d, which "
                   "starling's loops cannot have stamped (an entry written by hand?); build "
                   "its kernels with <starling/kernels.inc> or starling_add_integrator",
                   integrator, k->force ? k->force : "(none)", k->n_body, from, t->persist,
                   t->nstages, t->jerk, t->adaptive, t->perturb);
}

sl_status sl_kernel_traits_check(const sl_propagator *p, const sl_kernel_entry *k,
                                 const char *from)
{
    const sl_kernel_traits *t = &k->traits;
    const char *force = k->force ? k->force : "(none)";
    if (!traits_stamped(t))
        return fail_unstamped(p->name, k, from);
    if (t->persist != p->persist_per_body)
        return sl_fail(SL_ERR_PLUGIN, "integrator '%s' declares persist_per_body = %d, but its "
                       "kernels for force '%s' in %s were compiled with SL_PROP_%s_PERSIST %d: "
                       "the table and the kernels come from different versions of the "
                       "integrator; rebuild the plugin that carries the kernels against its "
                       "header, or correct the table", p->name, p->persist_per_body, force,
                       from, p->name, t->persist);
    if (t->adaptive != p->adaptive)
        return sl_fail(SL_ERR_PLUGIN, "integrator '%s' declares adaptive = %d, but its kernels "
                       "for force '%s' in %s were compiled with SL_PROP_%s_ADAPTIVE %d: the "
                       "table and the kernels come from different versions of the integrator; "
                       "rebuild the plugin that carries the kernels against its header, or "
                       "correct the table", p->name, p->adaptive, force, from, p->name,
                       t->adaptive);
    return SL_OK;
}

/* A kernel set is named "integrator/force" and holds that force's kernels,
 * each with a CPU entry and the traits of a stamped kernel (compared with
 * its integrator's table when a run picks it: the integrator may load
 * later). */
static sl_status check_kernel_set(const char *path, const sl_kernel_set *k)
{
    size_t ni = k->integrator ? strlen(k->integrator) : 0;
    int named = ni && k->force && !strncmp(k->name, k->integrator, ni) && k->name[ni] == '/' &&
                !strcmp(k->name + ni + 1, k->force);
    if (!named)
        return sl_fail(SL_ERR_PLUGIN, "plugin %s: kernel set '%s' must be named "
                       "\"integrator/force\" after its integrator and force", path, k->name);
    /* no kernels at all: instantiate.h's mark of a pair that cannot run
     * (the stages need a part the force lacks); kept so that a run asking
     * for the pair is told why */
    if (!k->kernels && k->n_kernels == 0)
        return SL_OK;
    if (!k->kernels || k->n_kernels == 0)
        return sl_fail(SL_ERR_PLUGIN, "plugin %s: kernel set '%s' has no kernels", path, k->name);
    for (size_t i = 0; i < k->n_kernels; i++)
        if (!k->kernels[i].cpu || !k->kernels[i].force || strcmp(k->kernels[i].force, k->force) ||
            k->kernels[i].n_body < 0 || k->kernels[i].n_body > SL_NBODY_MAX)
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: kernel set '%s': entry %zu has no CPU "
                           "loop, another force or a body count outside 0..%d", path, k->name,
                           i, SL_NBODY_MAX);
    char from[PATH_MAX + 16];
    snprintf(from, sizeof from, "plugin %s", path);
    for (size_t i = 0; i < k->n_kernels; i++)
        if (!traits_stamped(&k->kernels[i].traits))
            return fail_unstamped(k->integrator, &k->kernels[i], from);
    return SL_OK;
}

/* Limits of launch.h that a table declares and only run time can check:
 * its packed parameter counts, what the kernels may read. */
static sl_status check_limits(const char *path, const sl_plugin_table *t)
{
    if (t->kind == SL_KIND_PROPAGATOR) {
        const sl_propagator *p = t->table;
        if (p->n_packed < 1 || p->n_packed > SL_PROP_PACKED_MAX)
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: integrator '%s' declares n_packed = %d: "
                           "expected 1..%d (pp[0] is the step; pp[%d] is the core's)", path,
                           t->name, p->n_packed, SL_PROP_PACKED_MAX, SL_PP_SMOOTH);
        if (p->persist_per_body < 0)
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: integrator '%s' declares persist_per_body "
                           "= %d: expected >= 0", path, t->name, p->persist_per_body);
        char from[PATH_MAX + 16];
        snprintf(from, sizeof from, "plugin %s", path);
        for (size_t i = 0; p->kernels && i < p->n_kernels; i++) {
            sl_status st = sl_kernel_traits_check(p, &p->kernels[i], from);
            if (st)
                return st;
        }
    } else if (t->kind == SL_KIND_FORCE) {
        const sl_force *f = t->table;
        if (f->n_packed < 0 || f->n_packed > SL_FORCE_PARAMS_MAX)
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: force '%s' declares n_packed = %d: "
                           "expected 0..%d", path, t->name, f->n_packed, SL_FORCE_PARAMS_MAX);
        if (f->caps & SL_FORCE_CAP_LIST)
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: force '%s' has SL_FORCE_CAP_LIST, which "
                           "only core's table for a run's list of forces has", path, t->name);
        if (!!strstr(t->name, "__") != !!(f->caps & SL_FORCE_CAP_STACK))
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: force '%s': %s", path, t->name,
                           (f->caps & SL_FORCE_CAP_STACK)
                               ? "a stack's table is named base__term... after its forces"
                               : "a force's name has no '__' (a stack's name joins its "
                                 "forces with it)");
        if ((f->caps & SL_FORCE_CAP_STACK) && (f->caps & SL_FORCE_CAP_TERM))
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: force '%s' is both a term and a stack",
                           path, t->name);
    }
    return SL_OK;
}

/* A monitor is built-in (configure) or a user monitor (check, with codes). */
static sl_status check_monitor(const char *path, const sl_monitor *m)
{
    char why[256];
    if (sl_monitor_table_problem(m, why, sizeof why))
        return sl_fail(SL_ERR_PLUGIN, "plugin %s: monitor '%s' %s", path, m->name, why);
    return SL_OK;
}

/* A command's name is one word that cannot be mistaken for an option or a
 * script (no leading '-', no '/' or '.'); it has a main and usage text. */
static sl_status check_command(const char *path, const sl_command *c)
{
    const char *n = c->name;
    int word = n[0] && n[0] != '-' && !strpbrk(n, "/. \t\n");
    if (!word)
        return sl_fail(SL_ERR_PLUGIN, "plugin %s: command '%s': a command is named by one word "
                       "without '/', '.', blanks or a leading '-'", path, n);
    if (!c->main || !c->usage || !c->synopsis)
        return sl_fail(SL_ERR_PLUGIN, "plugin %s: command '%s' has no %s", path, n,
                       !c->main ? "main" : !c->usage ? "usage text" : "synopsis");
    return SL_OK;
}

/* The tables a front end calls into: a function to call, a chunk with a
 * name; checks that name a kind. */
static sl_status check_face(const char *path, const sl_plugin_table *t)
{
    if (t->kind == SL_KIND_COMMAND)
        return check_command(path, t->table);
    if (t->kind == SL_KIND_LUA_FACE) {
        const sl_lua_face *f = t->table;
        if (!f->open && !f->chunk)
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: Lua face '%s' has neither open nor a "
                           "chunk", path, t->name);
        if (f->chunk && !f->chunk_name)
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: Lua face '%s' has a chunk without "
                           "chunk_name", path, t->name);
    }
    if (t->kind == SL_KIND_CHECKS) {
        const sl_check_set *c = t->table;
        if (!c->extra.check || c->extra.kind < SL_KIND_PROPAGATOR || c->extra.kind > SL_KIND_CHECKS)
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: checks '%s' have no check function or "
                           "an unknown kind (%d)", path, t->name, (int)c->extra.kind);
    }
    return SL_OK;
}

static sl_status check_plugin(const sl_registry *r, const char *path, const sl_plugin *p)
{
    if (!p)
        return sl_fail(SL_ERR_PLUGIN, "plugin %s: sl_plugin_entry returned NULL", path);
    if (p->abi != SL_ABI_VERSION)
        return sl_fail(SL_ERR_PLUGIN,
                       "plugin %s: ABI version %u, but this starling has ABI version %u; "
                       "rebuild the plugin against this starling",
                       path, p->abi, SL_ABI_VERSION);
    if (!p->name || !p->tables || p->n_tables == 0)
        return sl_fail(SL_ERR_PLUGIN, "plugin %s: declares no name or no tables", path);
    for (size_t i = 0; i < p->n_tables; i++) {
        const sl_plugin_table *t = &p->tables[i];
        if (t->kind < SL_KIND_PROPAGATOR || t->kind > SL_KIND_CHECKS || !t->table || !t->name)
            return sl_fail(SL_ERR_PLUGIN, "plugin %s: table %zu has an unknown kind (%d) or no "
                           "name", path, i, (int)t->kind);
        sl_status st = check_head(path, t);
        if (st)
            return st;
        if (t->kind == SL_KIND_KERNELS && (st = check_kernel_set(path, t->table)))
            return st;
        if ((st = check_limits(path, t)) || (st = check_face(path, t)))
            return st;
        if (t->kind == SL_KIND_MONITOR && (st = check_monitor(path, t->table)))
            return st;
        if (t->kind == SL_KIND_LIKELIHOOD && sl_likelihood_check_caps(t->table) != SL_OK)
            return sl_fail_context(SL_ERR_PLUGIN, "plugin %s: likelihood '%s'", path, t->name);
        for (size_t k = 0; k < r->n_items; k++)
            if (r->items[k].kind == t->kind && strcmp(r->items[k].name, t->name) == 0)
                return sl_fail(SL_ERR_PLUGIN,
                               "plugin %s: %s '%s' is already provided by %s; remove one of "
                               "the two from the plugin path",
                               path, sl_kind_name(t->kind), t->name, r->items[k].path);
        for (size_t k = 0; k < i; k++)
            if (p->tables[k].kind == t->kind && strcmp(p->tables[k].name, t->name) == 0)
                return sl_fail(SL_ERR_PLUGIN, "plugin %s: %s '%s' is declared twice", path,
                               sl_kind_name(t->kind), t->name);
    }
    return SL_OK;
}

sl_status sl_registry_load_file(sl_registry *r, const char *path)
{
    for (size_t i = 0; i < r->n_handles; i++)
        if (strcmp(r->paths[i], path) == 0)
            return SL_OK;
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return sl_fail(SL_ERR_PLUGIN, "plugin %s: cannot be loaded: %s", path, dlerror());
    sl_plugin_entry_fn entry;
    *(void **)&entry = dlsym(h, SL_PLUGIN_ENTRY_SYMBOL);
    if (!entry) {
        dlclose(h);
        return sl_fail(SL_ERR_PLUGIN,
                       "plugin %s: has no symbol %s, so it is not a starling plugin", path,
                       SL_PLUGIN_ENTRY_SYMBOL);
    }
    const sl_plugin *p = entry();
    sl_status st = check_plugin(r, path, p);
    if (st) {
        dlclose(h);
        return st;
    }
    void **hs = realloc(r->handles, (r->n_handles + 1) * sizeof *hs);
    if (!hs) {
        dlclose(h);
        return sl_fail_nomem((double)(r->n_handles + 1) * sizeof *hs, "plugin %s", path);
    }
    r->handles = hs;
    size_t np = r->n_handles;
    if (push_str(&r->paths, &np, path)) {
        dlclose(h);
        return sl_fail_nomem((double)(r->n_handles + 1) * sizeof *hs, "plugin %s", path);
    }
    r->handles[r->n_handles++] = h;
    const char *kept = r->paths[r->n_handles - 1];
    if (r->n_items + p->n_tables > r->cap_items) {
        size_t cap = (r->n_items + p->n_tables) * 2;
        sl_registry_item *it = realloc(r->items, cap * sizeof *it);
        if (!it)
            return sl_fail_nomem((double)cap * sizeof *it, "plugin %s", path);
        r->items = it;
        r->cap_items = cap;
    }
    for (size_t i = 0; i < p->n_tables; i++) {
        sl_registry_item *it = &r->items[r->n_items++];
        it->kind = p->tables[i].kind;
        it->name = p->tables[i].name;
        it->table = p->tables[i].table;
        it->plugin = p;
        it->path = kept;
    }
    return SL_OK;
}

static int ends_with_so(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

sl_status sl_registry_load_dir(sl_registry *r, const char *dir)
{
    char canon[PATH_MAX];
    if (!realpath(dir, canon))
        return SL_OK; /* an absent folder on the path is not an error */
    for (size_t i = 0; i < r->n_dirs; i++)
        if (strcmp(r->dirs[i], canon) == 0)
            return SL_OK;
    if (push_str(&r->dirs, &r->n_dirs, canon))
        return sl_fail_nomem((double)strlen(canon) + 1, "plugin folder %s", dir);
    DIR *d = opendir(canon);
    if (!d)
        return SL_OK;
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (ends_with_so(de->d_name) && push_str(&names, &n, de->d_name)) {
            closedir(d);
            return sl_fail_nomem((double)strlen(de->d_name) + 1, "plugin folder %s", dir);
        }
    closedir(d);
    /* Sorted, so that which of two duplicates wins does not depend on the
     * file system's order. */
    if (n > 1) /* qsort's array must not be NULL, even when empty */
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX + 256]; /* a folder and a file name of at most 255 */
        snprintf(path, sizeof path, "%s/%s", canon, names[i]);
        if (sl_registry_load_file(r, path) != SL_OK)
            push_str(&r->problems, &r->n_problems, sl_last_error());
        free(names[i]);
    }
    free(names);
    return SL_OK;
}

static void dir_of(char *path)
{
    char *slash = strrchr(path, '/');
    if (slash)
        *slash = '\0';
}

sl_status sl_registry_load_default(sl_registry *r)
{
    const char *env = getenv("STARLING_PLUGIN_PATH");
    if (env && *env) {
        char *copy = strdup(env);
        if (!copy)
            return sl_fail_nomem((double)strlen(env) + 1, "STARLING_PLUGIN_PATH");
        for (char *save = NULL, *tok = strtok_r(copy, ":", &save); tok;
             tok = strtok_r(NULL, ":", &save))
            sl_registry_load_dir(r, tok);
        free(copy);
    }
    char buf[PATH_MAX + 64];
    Dl_info info;
    if (dladdr((void *)sl_registry_load_default, &info) && info.dli_fname) {
        char lib[PATH_MAX];
        if (realpath(info.dli_fname, lib)) {
            dir_of(lib);
            snprintf(buf, sizeof buf, "%s/starling/plugins", lib);
            sl_registry_load_dir(r, buf);
        }
    }
    ssize_t len = readlink("/proc/self/exe", buf, PATH_MAX - 1);
    if (len > 0) {
        buf[len] = '\0';
        dir_of(buf);
        strcat(buf, "/../lib/starling/plugins");
        sl_registry_load_dir(r, buf);
    }
    return SL_OK;
}

size_t sl_registry_problem_count(const sl_registry *r) { return r->n_problems; }
const char *sl_registry_problem(const sl_registry *r, size_t i)
{
    return i < r->n_problems ? r->problems[i] : NULL;
}
size_t sl_registry_count(const sl_registry *r) { return r->n_items; }
const sl_registry_item *sl_registry_at(const sl_registry *r, size_t i)
{
    return i < r->n_items ? &r->items[i] : NULL;
}

const void *sl_registry_find(const sl_registry *r, sl_kind kind, const char *name)
{
    for (size_t i = 0; i < r->n_items; i++)
        if (r->items[i].kind == kind && strcmp(r->items[i].name, name) == 0)
            return r->items[i].table;
    return NULL;
}

/* A stack's table carries kernels' host functions, not a force a run
 * names (force_stack.h): not offered among the forces. */
static int is_stack_table(const sl_registry_item *it)
{
    return it->kind == SL_KIND_FORCE && (((const sl_force *)it->table)->caps & SL_FORCE_CAP_STACK);
}

sl_status sl_registry_get(const sl_registry *r, sl_kind kind, const char *name,
                          const void **table)
{
    *table = sl_registry_find(r, kind, name);
    if (*table)
        return SL_OK;
    char avail[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < r->n_items && used < sizeof avail - 64; i++)
        if (r->items[i].kind == kind && !is_stack_table(&r->items[i]))
            used += (size_t)snprintf(avail + used, sizeof avail - used, "%s%s",
                                     used ? ", " : "", r->items[i].name);
    return sl_fail(SL_ERR_ARG, "unknown %s '%s'; available: %s", sl_kind_name(kind), name,
                   used ? avail : "none (is the plugin path right? see STARLING_PLUGIN_PATH)");
}

const sl_kernel_entry *sl_propagator_kernel(const sl_propagator *p, const char *force, int n_body)
{
    const sl_kernel_entry *any = NULL;
    for (size_t i = 0; i < p->n_kernels; i++) {
        const sl_kernel_entry *k = &p->kernels[i];
        if (strcmp(k->force, force) != 0)
            continue;
        if (k->n_body == n_body)
            return k;
        if (k->n_body == 0)
            any = k;
    }
    return any;
}

/* ---- kernels, pooled from every plugin -------------------------------------------- */

typedef struct kernel_pick {
    const sl_kernel_entry *exact, *any;
    const char *exact_from, *any_from; /* the plugin file carrying each; NULL: prop's table */
} kernel_pick;

static void pick(kernel_pick *k, const sl_kernel_entry *e, const char *force, int n_body,
                 const char *from)
{
    if (strcmp(e->force, force) != 0)
        return;
    if (e->n_body == n_body && !k->exact)
        k->exact = e, k->exact_from = from;
    if (e->n_body == 0 && !k->any)
        k->any = e, k->any_from = from;
}

static const sl_kernel_set *set_of(const sl_registry_item *it, const char *integrator)
{
    if (it->kind != SL_KIND_KERNELS)
        return NULL;
    const sl_kernel_set *k = it->table;
    return strcmp(k->integrator, integrator) == 0 ? k : NULL;
}

void sl_registry_each_kernel(const sl_registry *r, const char *integrator,
                             void (*fn)(void *ud, const sl_kernel_entry *k, const char *path),
                             void *ud)
{
    for (size_t i = 0; i < r->n_items; i++) {
        const sl_registry_item *it = &r->items[i];
        const sl_kernel_entry *ks = NULL;
        size_t n = 0;
        if (it->kind == SL_KIND_PROPAGATOR && !strcmp(it->name, integrator)) {
            ks = ((const sl_propagator *)it->table)->kernels;
            n = ((const sl_propagator *)it->table)->n_kernels;
        } else if (set_of(it, integrator)) {
            ks = set_of(it, integrator)->kernels;
            n = set_of(it, integrator)->n_kernels;
        }
        for (size_t k = 0; k < n; k++)
            fn(ud, &ks[k], it->path);
    }
}

typedef struct force_list {
    char text[512];
    size_t used;
} force_list;

static void add_force(void *ud, const sl_kernel_entry *k, const char *path)
{
    (void)path;
    force_list *l = ud;
    char quoted[80];
    snprintf(quoted, sizeof quoted, "'%s'", k->force);
    if (strstr(l->text, quoted) || l->used >= sizeof l->text - 1)
        return;
    l->used += (size_t)snprintf(l->text + l->used, sizeof l->text - l->used, "%s%s",
                                l->used ? ", " : "", quoted);
}

/* Where kernel k of prop's own table comes from, for messages: the plugin
 * the registry loaded prop from, else the file that holds k's code (prop
 * may be a caller's copy of a plugin's table). */
static void own_table_from(const sl_registry *r, const sl_propagator *prop,
                           const sl_kernel_entry *k, char *buf, size_t cap)
{
    for (size_t i = 0; r && i < r->n_items; i++)
        if (r->items[i].table == (const void *)prop) {
            snprintf(buf, cap, "plugin %s", r->items[i].path);
            return;
        }
    Dl_info info;
    void *code;
    memcpy(&code, &k->cpu, sizeof code); /* a function's address, as dladdr takes it */
    if (dladdr(code, &info) && info.dli_fname)
        snprintf(buf, cap, "%s", info.dli_fname);
    else
        snprintf(buf, cap, "integrator '%s''s own table", prop->name);
}

/* What the stages of integrator prop need from a force, read off any of
 * its kernels' traits: SL_FORCE_CAP_* bits; 0 when it has no kernels. */
static void need_of(void *ud, const sl_kernel_entry *k, const char *path)
{
    (void)path;
    unsigned *need = ud;
    *need |= (k->traits.jerk ? SL_FORCE_CAP_JERK : 0u) |
             (k->traits.perturb ? SL_FORCE_CAP_PERTURB : 0u);
}

/* An error naming the part of force `force` that prop's stages need and
 * the force declares it lacks; SL_OK when that is not why. */
static sl_status missing_part(const sl_registry *r, const sl_propagator *prop, const char *force)
{
    const sl_force *f = r ? sl_registry_find(r, SL_KIND_FORCE, force) : NULL;
    unsigned need = 0;
    for (size_t i = 0; i < prop->n_kernels; i++)
        need_of(&need, &prop->kernels[i], NULL);
    if (r)
        sl_registry_each_kernel(r, prop->name, need_of, &need);
    if (!f)
        return SL_OK;
    unsigned lack = need & ~f->caps;
    if (lack & SL_FORCE_CAP_JERK)
        return sl_fail(SL_ERR_UNSUPPORTED, "integrator '%s' needs the force's jerks (acc_jerk), "
                       "and force '%s' provides none (SL_FORCE_%s_JERK 0): use an integrator "
                       "that needs accelerations only, or give the force an acc_jerk",
                       prop->name, force, force);
    if (lack & SL_FORCE_CAP_PERTURB)
        return sl_fail(SL_ERR_UNSUPPORTED, "integrator '%s' needs the force's perturbation "
                       "part (acc_perturb: everything but the central body's Newtonian pull), "
                       "and force '%s' provides none (SL_FORCE_%s_PERTURB 0): use an "
                       "integrator that takes the whole force, or give the force an "
                       "acc_perturb", prop->name, force, force);
    return SL_OK;
}

sl_status sl_registry_kernel(const sl_registry *r, const sl_propagator *prop, const char *force,
                             int n_body, const sl_kernel_entry **out)
{
    kernel_pick k = {NULL, NULL, NULL, NULL};
    for (size_t i = 0; i < prop->n_kernels; i++)
        pick(&k, &prop->kernels[i], force, n_body, NULL);
    for (size_t i = 0; r && i < r->n_items && !k.exact; i++) {
        const sl_kernel_set *s = set_of(&r->items[i], prop->name);
        for (size_t j = 0; s && j < s->n_kernels; j++)
            pick(&k, &s->kernels[j], force, n_body, r->items[i].path);
    }
    *out = k.exact ? k.exact : k.any;
    if (*out) {
        const char *path = k.exact ? k.exact_from : k.any_from;
        char from[PATH_MAX + 64];
        if (path)
            snprintf(from, sizeof from, "plugin %s", path);
        else
            own_table_from(r, prop, *out, from, sizeof from);
        sl_status st = sl_kernel_traits_check(prop, *out, from);
        if (st)
            *out = NULL;
        return st;
    }
    if (!r && prop->n_kernels == 0)
        return sl_fail(SL_ERR_ARG, "integrator '%s' has no kernels in its own table: its "
                       "plugin carries them as kernel sets, which the registry it was loaded "
                       "from pools; pass that registry (sl_run_config.registry)", prop->name);
    sl_status why = missing_part(r, prop, force);
    if (why)
        return why;
    force_list l = {"", 0};
    for (size_t i = 0; i < prop->n_kernels; i++)
        add_force(&l, &prop->kernels[i], NULL);
    if (r)
        sl_registry_each_kernel(r, prop->name, add_force, &l);
    return sl_fail(SL_ERR_UNSUPPORTED,
                   "integrator '%s' has no kernels for force '%s' (it has kernels for %s): a "
                   "force plugin carries kernels for the integrators installed when it was "
                   "built, so rebuild the force's plugin against this starling (docs/PLUGINS.md)",
                   prop->name, force, l.used ? l.text : "no force");
}
