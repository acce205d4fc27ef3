/* A run's list of forces: one base force and terms added to it (force.h,
 * force_term.h), `force = {"newton", {"gr", c = ...}, {"j2", J2 = ...,
 * R = ...}}` in Lua.
 *
 * The kernels a run uses are those of a stack: a plugin that
 * starling_add_force_stack builds from a base and an ordered set of terms
 * (named base__term1__term2, e.g. newton__gr__j2), whose kernels evaluate
 * the base and then each term whose bit is on in a mask. The mask sits in
 * the last slot the stack packs, after the base's values and each term's,
 * in the stack's order. One stack serves every subset of its terms, so a
 * handful of stacks covers the combinations users run without stamping
 * each; a run picks the stack with the fewest terms that holds all of its
 * own, and a list with no stack is refused, naming the stacks there are.
 *
 * sl_force_stack_resolve returns a table a run takes as its force
 * (sl_run_config.force): named after the stack, so the registry finds its
 * kernels; its parameters the base's and the listed terms' (a name may
 * appear once); packed by sl_force_pack (its pack entry is NULL: the
 * table is the first member of its sl_force_stack, which sl_force_pack
 * reads). A list of one base force gives that force's own table. */
#ifndef STARLING_FORCE_STACK_H
#define STARLING_FORCE_STACK_H

#include "starling/force.h"
#include "starling/force_term.h"
#include "starling/registry.h"

SL_EXTERN_C_BEGIN

/* Terms a stack may hold. */
enum { SL_STACK_TERMS_MAX = 8 };

/* A resolved list, owned by the caller for as long as a run uses its table
 * (which points back at it: resolve it where it stays, do not copy it).
 * Its fields are the implementation's. */
typedef struct sl_force_stack {
    sl_force table;        /* first: what the run sees when the list has terms (caps LIST) */
    const sl_force *use;   /* &table, or the base alone */
    const sl_force *base;
    const sl_force *term[SL_STACK_TERMS_MAX]; /* the listed terms, in the stack's order */
    int offset[SL_STACK_TERMS_MAX];           /* each one's first slot */
    int n_terms;
    unsigned mask;                            /* their bits */
    int mask_slot;
    sl_param params[SL_PARAMS_MAX];
    char label[256];
    char description[320];
} sl_force_stack;

/* Resolves forces[0..n-1] into *out: the base first, then terms in any
 * order; a list that starts with a term has the base newton. Refused,
 * naming the force: an empty list, a second base, a base after a term, a
 * term twice, a stack's own table named directly, two forces with a
 * parameter of the same name, and a list no stack of r holds. */
sl_status sl_force_stack_resolve(const sl_registry *r, const sl_force *const *forces, int n,
                                 sl_force_stack *out);
/* The table a run takes as its force. */
const sl_force *sl_force_stack_table(const sl_force_stack *s);
/* "newton + gr + j2": the forces the run sums, for messages and outputs. */
const char *sl_force_stack_label(const sl_force_stack *s);

/* Packs pv into fp as a run's kernels read it: fp zeroed, then f->pack
 * (which fills its n_packed leading doubles), or for a list's table (caps
 * SL_FORCE_CAP_LIST) each listed force at its slot and the mask last. */
sl_status sl_force_pack(const sl_force *f, const sl_param_values *pv,
                        double fp[SL_FORCE_PARAMS_MAX]);

/* Splits a stack's name base__t1__t2 into its parts: names[0] the base.
 * Returns the number of parts (0 when name holds no "__" or a part is
 * empty, or there are more than cap); each part is written into buf, NUL
 * terminated, names[] pointing into it. */
int sl_force_stack_split(const char *name, char *buf, size_t buf_len, const char **names,
                         int cap);

SL_EXTERN_C_END

#endif
