/* Ensembles: n_sys systems of n_body bodies, stored in chunked
 * structure-of-arrays order so that neighbouring GPU threads (systems) read
 * neighbouring addresses. The host keeps the same layout, so copies to and
 * from the device are single memcpys; accessors hide the layout. */
#ifndef STARLING_ENSEMBLE_H
#define STARLING_ENSEMBLE_H

#include <stddef.h>
#include <stdint.h>
#include "starling/status.h"

SL_EXTERN_C_BEGIN

enum {
    SL_CHUNK = 32,     /* systems per chunk: one warp */
    SL_NFIELD = 7,     /* x y z vx vy vz m, per body */
    SL_NBODY_MAX = 64  /* largest system the runtime-N fallback accepts */
};

enum { SL_X = 0, SL_Y, SL_Z, SL_VX, SL_VY, SL_VZ, SL_M };

/* Systems the CPU's lane loop steps together (internal/lanes.h), a divisor
 * of SL_CHUNK: the stride its stage and force functions see (launch.h). */
#ifndef SL_LANES
#define SL_LANES 32
#endif
SL_STATIC_ASSERT(SL_LANES > 0 && SL_CHUNK % SL_LANES == 0, "SL_LANES must divide SL_CHUNK");

typedef enum sl_sys_status {
    SL_SYS_ACTIVE = 0,  /* integrating, or reached the destination time */
    SL_SYS_STOPPED = 1, /* a monitor stopped it (reason says which) */
    SL_SYS_FAILED = 2   /* the state became non-finite */
} sl_sys_status;

typedef enum sl_stop_reason {
    SL_REASON_NONE = 0,
    SL_REASON_EJECTION,
    SL_REASON_UNBOUND,
    SL_REASON_CLOSE_ENCOUNTER,
    SL_REASON_NONFINITE,
    SL_REASON_STEP_CAP,
    SL_REASON_ENERGY,
    SL_REASON_MONITOR, /* a user monitor (monitor.h): detail = slot * 256 + code */
    SL_REASON_STEP_SIZE, /* an adaptive step failed: detail = SL_STEP_FAULT_* */
    SL_REASON_COLLISION  /* two bodies touched (monitor 'collision'): detail = i*256+j */
} sl_stop_reason;

/* The detail of a system stopped with SL_REASON_STEP_SIZE (launch.h says
 * when each happens). */
enum {
    SL_STEP_FAULT_NONFINITE = 1, /* the controller returned NaN, inf or a size <= 0 */
    SL_STEP_FAULT_UNDERFLOW = 2, /* a size too small to advance the time */
    SL_STEP_FAULT_REJECTIONS = 3 /* SL_REJECT_MAX rejections in a row */
};

/* A user monitor that has stopped systems of an ensemble: its name and its
 * code names, copied, so that a stop stays readable after the plugin is
 * gone. */
typedef struct sl_stop_source {
    char *name;
    char **codes;
    int n_codes;
} sl_stop_source;

typedef struct sl_ensemble {
    int64_t n_sys;
    int n_body;
    int64_t n_chunks;
    double *state;    /* n_chunks * n_body * SL_NFIELD * SL_CHUNK */
    double *time;     /* per system */
    int64_t *steps;   /* steps taken since creation */
    int32_t *status;  /* sl_sys_status */
    int32_t *reason;  /* sl_stop_reason */
    int32_t *detail;  /* body index, i*256+j for a pair, -1 when no body is at fault */
    double *stop_time;/* time at which the system stopped, NAN while active */
    int n_attr;       /* user attributes: named double columns */
    char **attr_name;
    double *attr;     /* n_attr * n_sys, attribute-major */
    int n_stop_sources; /* user monitors that stopped systems here: append-only, */
    sl_stop_source *stop_sources; /* so a slot keeps its meaning for the ensemble's life */
} sl_ensemble;

/* Index of (system, body, field) in the chunked layout. */
static inline size_t sl_state_index(int64_t s, int n_body, int body, int field)
{
    return ((size_t)(s / SL_CHUNK) * (size_t)(n_body * SL_NFIELD) +
            (size_t)(body * SL_NFIELD + field)) * SL_CHUNK + (size_t)(s % SL_CHUNK);
}

static inline size_t sl_state_len(int64_t n_sys, int n_body)
{
    return (size_t)((n_sys + SL_CHUNK - 1) / SL_CHUNK) * (size_t)(n_body * SL_NFIELD) * SL_CHUNK;
}

sl_status sl_ensemble_create(int64_t n_sys, int n_body, sl_ensemble **out);
void sl_ensemble_destroy(sl_ensemble *e);
sl_status sl_ensemble_clone(const sl_ensemble *e, sl_ensemble **out);

/* Body accessors; the setters validate (finite values, mass >= 0). */
sl_status sl_ensemble_set_body(sl_ensemble *e, int64_t s, int b, double m,
                               const double x[3], const double v[3]);
void sl_ensemble_get_body(const sl_ensemble *e, int64_t s, int b, double *m,
                          double x[3], double v[3]);
static inline double sl_ensemble_get(const sl_ensemble *e, int64_t s, int b, int field)
{
    return e->state[sl_state_index(s, e->n_body, b, field)];
}

/* Removed bodies. A body merged into another (the collision monitor's
 * `merge`) keeps its index, so that body k stays body k in every output,
 * with mass 0 and a NaN position and velocity: outputs show the removal,
 * and sl_integrate runs a system with removed bodies on its survivors only.
 * set_body on a removed body brings it back. */
int sl_ensemble_body_removed(const sl_ensemble *e, int64_t s, int b);
void sl_ensemble_remove_body(sl_ensemble *e, int64_t s, int b);
/* The bodies of system s that are not removed. */
int sl_ensemble_live_bodies(const sl_ensemble *e, int64_t s);
/* Whether any system has a removed body. */
int sl_ensemble_has_removed(const sl_ensemble *e);
/* Joins body j into body i of system s (i != j, neither removed): body i
 * gets the sum of the masses at the centre of mass, with the total
 * momentum (equal weights when both are massless), and body j is removed.
 * Energy and angular momentum change (the pair's relative motion is
 * lost): sl_system_energy before and after measures by how much. */
void sl_ensemble_merge_bodies(sl_ensemble *e, int64_t s, int i, int j);
/* Adds (or finds) a named attribute column, zero-filled; returns its index. */
sl_status sl_ensemble_attr(sl_ensemble *e, const char *name, int *index);

/* Moves every system to its barycentric frame (position and velocity). */
void sl_ensemble_to_barycentric(sl_ensemble *e);

const char *sl_status_label(int32_t status);
const char *sl_reason_label(int32_t reason);
/* "nonfinite", "underflow" or "rejections" for an SL_STEP_FAULT_*; NULL otherwise. */
const char *sl_step_fault_label(int32_t detail);

/* The slot of user monitor `name` with these codes (NULL-terminated) among
 * e's stop sources, added when absent. */
sl_status sl_ensemble_stop_source(sl_ensemble *e, const char *name, const char *const *codes,
                                  int *slot);

/* A stop (reason, detail) for people: sl_reason_label(reason), or
 * "monitor NAME: CODE" for a user monitor's, with e's stop sources, or
 * "step_size: FAULT" (sl_step_fault_label) for an adaptive step's. */
void sl_stop_label(const sl_ensemble *e, int32_t reason, int32_t detail, char *buf, size_t cap);

/* The user monitor and code of a detail (reason SL_REASON_MONITOR); 0 when
 * the detail names no stop source of e. */
int sl_stop_source_of(const sl_ensemble *e, int32_t detail, const char **name,
                      const char **code);

/* Swarm-NG's test systems: a central mass 1 at rest and n_planets planets of
 * mass planet_mass on circular coplanar orbits, planet k (1-based) at radius
 * a1 * (1 + spacing)^(k-1), at random phases; each position and velocity
 * component is then scaled by (1 + perturb * u), u uniform in [-1, 1).
 * Random numbers come from the counter-based generator keyed by (seed, s). */
typedef struct sl_test_system_spec {
    int n_planets;
    double planet_mass;
    double a1;
    double spacing;          /* used when spacing_per_sys is NULL */
    const double *spacing_per_sys;
    double perturb;
    int random_phase;        /* 0: all planets start on the +x axis */
    uint64_t seed;
} sl_test_system_spec;

sl_status sl_ensemble_test_systems(const sl_test_system_spec *spec, int64_t n_sys,
                                   sl_ensemble **out);

SL_EXTERN_C_END

#endif
