/* A run's force for tests: a name or a list joined by '+' ("newton",
 * "gr", "newton+gr+j2"), resolved as Lua resolves force = {...}
 * (force_stack.h). */
#ifndef SLT_FORCE_H
#define SLT_FORCE_H

#include "sl_test.h"
#include "starling/force_stack.h"

/* The table a run takes, resolved into st (which must outlive the run). */
static SLT_UNUSED const sl_force *slt_force(const slt_plugins *p, const char *list,
                                            sl_force_stack *st)
{
    const sl_force *f[SL_STACK_TERMS_MAX + 1];
    int n = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, "+"); tok && n < SL_STACK_TERMS_MAX + 1;
         tok = strtok(NULL, "+")) {
        const void *t;
        SLT_OK(sl_registry_get(p->reg, SL_KIND_FORCE, tok, &t));
        f[n++] = t;
    }
    SLT_OK(sl_force_stack_resolve(p->reg, f, n, st));
    return sl_force_stack_table(st);
}

#endif
