/* A run's list of forces resolved to a stack's kernels (force_stack.h). */
#include "starling/force_stack.h"

#include <stdio.h>
#include <string.h>

int sl_force_stack_split(const char *name, char *buf, size_t buf_len, const char **names,
                         int cap)
{
    size_t len = strlen(name);
    if (len + 1 > buf_len || !strstr(name, "__"))
        return 0;
    memcpy(buf, name, len + 1);
    int n = 0;
    char *p = buf;
    for (;;) {
        char *sep = strstr(p, "__");
        if (sep)
            *sep = '\0';
        if (!*p || n == cap)
            return 0;
        names[n++] = p;
        if (!sep)
            return n;
        p = sep + 2;
    }
}

static int is_term(const sl_force *f) { return (f->caps & SL_FORCE_CAP_TERM) != 0; }

/* A stack's table named in a list: say which list runs it. */
static sl_status stack_named(const sl_force *t)
{
    char buf[256], list[300];
    const char *part[SL_STACK_TERMS_MAX + 1];
    int np = sl_force_stack_split(t->name, buf, sizeof buf, part, SL_STACK_TERMS_MAX + 1);
    size_t u = (size_t)snprintf(list, sizeof list, "{");
    for (int k = 0; k < np && u < sizeof list; k++)
        u += (size_t)snprintf(list + u, sizeof list - u, "%s\"%s\"", k ? ", " : "", part[k]);
    if (u < sizeof list)
        snprintf(list + u, sizeof list - u, "}");
    return sl_fail(SL_ERR_ARG, "force '%s' is a stack's kernels, not a force: name the forces "
                   "it sums, e.g. %s", t->name, list);
}

/* The list's structure: one base first (newton when the list starts with
 * a term), terms after it, none twice, no stack table. */
static sl_status check_list(const sl_registry *r, const sl_force *const *f, int n,
                            const sl_force **base)
{
    if (n < 1)
        return sl_fail(SL_ERR_ARG, "force: an empty list; expected a base force such as "
                       "\"newton\", then terms such as \"gr\"");
    if (n > SL_STACK_TERMS_MAX + 1)
        return sl_fail(SL_ERR_ARG, "force: %d forces in the list; at most a base and %d terms",
                       n, SL_STACK_TERMS_MAX);
    for (int i = 0; i < n; i++) {
        if (f[i]->caps & SL_FORCE_CAP_STACK)
            return stack_named(f[i]);
        if (i > 0 && !is_term(f[i]))
            return sl_fail(SL_ERR_ARG, "force '%s' (entry %d of the list) is a base force; a "
                           "list has one base, first, then terms (e.g. \"gr\", \"j2\")",
                           f[i]->name, i + 1);
        for (int k = 0; k < i; k++)
            if (f[k] == f[i])
                return sl_fail(SL_ERR_ARG, "force '%s' is listed twice", f[i]->name);
    }
    if (!is_term(f[0])) {
        *base = f[0];
        return SL_OK;
    }
    *base = r ? sl_registry_find(r, SL_KIND_FORCE, "newton") : NULL;
    if (!*base)
        return sl_fail(SL_ERR_ARG, "force '%s' is a term, added to a base force, and this "
                       "starling has no 'newton' to add it to; name a base first",
                       f[0]->name);
    return SL_OK;
}

/* How well stack table t holds base + want[0..nw-1]: its term count when
 * it holds them all, else -1. */
static int covers(const sl_force *t, const sl_force *base, const sl_force *const *want, int nw)
{
    char buf[256];
    const char *part[SL_STACK_TERMS_MAX + 1];
    int np = sl_force_stack_split(t->name, buf, sizeof buf, part, SL_STACK_TERMS_MAX + 1);
    if (np < 2 || strcmp(part[0], base->name) != 0)
        return -1;
    for (int w = 0; w < nw; w++) {
        int found = 0;
        for (int k = 1; k < np && !found; k++)
            found = !strcmp(part[k], want[w]->name);
        if (!found)
            return -1;
    }
    return np - 1;
}

static const sl_force *pick_stack(const sl_registry *r, const sl_force *base,
                                  const sl_force *const *want, int nw, char *have, size_t cap)
{
    const sl_force *best = NULL;
    int best_n = 0;
    size_t used = 0;
    have[0] = '\0';
    for (size_t i = 0; r && i < sl_registry_count(r); i++) {
        const sl_registry_item *it = sl_registry_at(r, i);
        const sl_force *t = it->table;
        if (it->kind != SL_KIND_FORCE || !(t->caps & SL_FORCE_CAP_STACK))
            continue;
        if (used + strlen(t->name) + 4 < cap)
            used += (size_t)snprintf(have + used, cap - used, "%s%s", used ? ", " : "",
                                     t->name);
        int k = covers(t, base, want, nw);
        if (k > 0 && (!best || k < best_n)) {
            best = t;
            best_n = k;
        }
    }
    return best;
}

static sl_status add_params(sl_force_stack *s, const sl_force *f, int *np)
{
    for (size_t i = 0; i < f->n_params; i++) {
        for (int k = 0; k < *np; k++)
            if (!strcmp(s->params[k].name, f->params[i].name))
                return sl_fail(SL_ERR_ARG, "force: '%s' is a parameter of two forces in the "
                               "list (the second is '%s'); a stack needs each name once",
                               f->params[i].name, f->name);
        if (*np == SL_PARAMS_MAX)
            return sl_fail(SL_ERR_ARG, "force: the list has more than %d parameters",
                           SL_PARAMS_MAX);
        s->params[(*np)++] = f->params[i];
    }
    return SL_OK;
}

/* The terms in the stack's order, their slots and bits; checks the sizes
 * the stack's kernels were built with against the tables'. */
static sl_status lay_out(sl_force_stack *s, const sl_registry *r, const sl_force *st,
                         const sl_force *const *want, int nw)
{
    char buf[256];
    const char *part[SL_STACK_TERMS_MAX + 1];
    int np = sl_force_stack_split(st->name, buf, sizeof buf, part, SL_STACK_TERMS_MAX + 1);
    int slot = s->base->n_packed;
    for (int k = 1; k < np; k++) {
        const sl_force *t = sl_registry_find(r, SL_KIND_FORCE, part[k]);
        if (!t || !is_term(t))
            return sl_fail(SL_ERR_PLUGIN, "force stack '%s': its term '%s' is not loaded as "
                           "a term; load its plugin or rebuild the stack", st->name, part[k]);
        for (int w = 0; w < nw; w++)
            if (want[w] == t) {
                s->term[s->n_terms] = t;
                s->offset[s->n_terms++] = slot;
                s->mask |= 1u << (k - 1);
            }
        slot += t->n_packed;
    }
    if (slot != st->n_packed)
        return sl_fail(SL_ERR_PLUGIN, "force stack '%s' was built for %d parameter slots "
                       "before its mask, but its forces' tables pack %d: rebuild the stack "
                       "against these forces", st->name, st->n_packed, slot);
    s->mask_slot = slot;
    return SL_OK;
}

static void name_it(sl_force_stack *s)
{
    size_t u = (size_t)snprintf(s->label, sizeof s->label, "%s", s->base->name);
    for (int k = 0; k < s->n_terms && u < sizeof s->label; k++)
        u += (size_t)snprintf(s->label + u, sizeof s->label - u, " + %s", s->term[k]->name);
    snprintf(s->description, sizeof s->description, "%s (the kernels of stack %s)", s->label,
             s->table.name);
}

static sl_status build(sl_force_stack *s, const sl_registry *r, const sl_force *const *f, int n)
{
    sl_status st = check_list(r, f, n, &s->base);
    if (st)
        return st;
    const sl_force *const *want = f + (is_term(f[0]) ? 0 : 1);
    int nw = n - (is_term(f[0]) ? 0 : 1);
    s->use = s->base;
    if (nw == 0) {
        snprintf(s->label, sizeof s->label, "%s", s->base->name);
        return SL_OK;
    }
    char have[512];
    const sl_force *stk = pick_stack(r, s->base, want, nw, have, sizeof have);
    if (!stk) {
        char list[256];
        size_t u = (size_t)snprintf(list, sizeof list, "%s", s->base->name);
        for (int w = 0; w < nw && u < sizeof list; w++)
            u += (size_t)snprintf(list + u, sizeof list - u, " + %s", want[w]->name);
        return sl_fail(SL_ERR_UNSUPPORTED, "force: no stack of kernels sums %s (stacks here: "
                       "%s); a stack is built by starling_add_force_stack, see PLUGINS.md",
                       list, have[0] ? have : "none");
    }
    s->table = *stk;
    if ((st = lay_out(s, r, stk, want, nw)))
        return st;
    int np = 0;
    if ((st = add_params(s, s->base, &np)))
        return st;
    for (int k = 0; k < s->n_terms; k++)
        if ((st = add_params(s, s->term[k], &np)))
            return st;
    name_it(s);
    s->table.description = s->description;
    s->table.params = np ? s->params : NULL;
    s->table.n_params = (size_t)np;
    s->table.pack = NULL;
    s->table.caps = (stk->caps & (SL_FORCE_CAP_JERK | SL_FORCE_CAP_PERTURB)) | SL_FORCE_CAP_LIST;
    s->use = &s->table;
    return SL_OK;
}

sl_status sl_force_stack_resolve(const sl_registry *r, const sl_force *const *forces, int n,
                                 sl_force_stack *out)
{
    memset(out, 0, sizeof *out);
    return build(out, r, forces, n);
}

const sl_force *sl_force_stack_table(const sl_force_stack *s) { return s->use; }

const char *sl_force_stack_label(const sl_force_stack *s) { return s->label; }

static sl_status pack_part(const sl_force *f, const sl_param_values *pv, double *dst)
{
    double tmp[SL_FORCE_PARAMS_MAX] = {0};
    sl_status st = f->pack(pv, tmp);
    if (st)
        return st;
    for (int k = 0; k < f->n_packed; k++)
        dst[k] = tmp[k];
    return SL_OK;
}

sl_status sl_force_pack(const sl_force *f, const sl_param_values *pv,
                        double fp[SL_FORCE_PARAMS_MAX])
{
    for (int k = 0; k < SL_FORCE_PARAMS_MAX; k++)
        fp[k] = 0.0;
    if (!(f->caps & SL_FORCE_CAP_LIST))
        return f->pack(pv, fp);
    const sl_force_stack *s = (const sl_force_stack *)f; /* its first member */
    sl_status st = pack_part(s->base, pv, fp);
    for (int k = 0; k < s->n_terms && !st; k++)
        st = pack_part(s->term[k], pv, fp + s->offset[k]);
    fp[s->mask_slot] = (double)s->mask;
    return st;
}
