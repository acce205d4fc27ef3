/* The propagator interface. An integrator advances one system by one step;
 * it is written as SL_HD stage functions (the contract is in launch.h) and instantiated
 * at build time for (force, N) pairs, giving a CPU loop and a CUDA kernel
 * each (n_body == 0 marks a force's runtime-N fallback).
 *
 * Kernels are composed by the registry, not by the integrator: the
 * integrator's own table lists the kernels it was built with (the forces it
 * knew), and any plugin may add sl_kernel_sets for other pairs: a force
 * plugin for every integrator installed when it was built, an integrator
 * plugin for every installed force. sl_registry_kernel finds them all. */
#ifndef STARLING_PROPAGATOR_H
#define STARLING_PROPAGATOR_H

#include <stdint.h>
#include "starling/ensemble.h"
#include "starling/named_params.h"
#include "starling/params.h"
#include "starling/plugin.h"

SL_EXTERN_C_BEGIN

struct sl_run_args;
typedef sl_status (*sl_run_fn)(const struct sl_run_args *a);

/* What a kernel was compiled with: its integrator's SL_PROP_<P>_PERSIST,
 * _NSTAGES, _JERK, _ADAPTIVE and _PERTURB (launch.h), stamped by instantiate.h. The
 * integrator's table states persist_per_body and adaptive separately, and
 * a kernel set may have been stamped from another version of the
 * integrator's header: the registry and sl_integrate refuse a table whose
 * values differ from its kernels' (the loops would read past the
 * per-system buffers, or step the wrong way). */
typedef struct sl_kernel_traits {
    int persist;  /* doubles per body kept between launches */
    int nstages;  /* force evaluations per step; 0 in an entry not stamped by instantiate.h */
    int jerk;     /* 1: acc_jerk */
    int adaptive; /* 1: per-system steps (control) */
    int perturb;  /* 1: acc_perturb (a central body's Kepler term left to the stages) */
} sl_kernel_traits;

typedef struct sl_kernel_entry {
    const char *force;
    int n_body;      /* 0: any N up to SL_NBODY_MAX */
    sl_run_fn cpu;
    sl_run_fn cuda;  /* NULL when built without CUDA */
    sl_kernel_traits traits;
} sl_kernel_entry;

enum { SL_PROP_PARAMS_MAX = 8 };
/* pp's last double is the core's, not pack's: 1.0 where the run must be
 * smooth in its initial conditions to the last bits (MEGNO's shadow
 * trajectories, megno.h, whose rounding it divides by their distance),
 * else 0.0. An integrator whose iterations stop early (mvs: kepler_tol)
 * converges them fully there. pack fills at most the first
 * SL_PROP_PACKED_MAX. */
enum { SL_PP_SMOOTH = SL_PROP_PARAMS_MAX - 1, SL_PROP_PACKED_MAX = SL_PROP_PARAMS_MAX - 1 };
/* pp's first double is the step the loops take: every integrator's first
 * key field is dt (SL_PARAMS_PROPAGATOR, named_params.h). */
enum { SL_PP_DT = 0 };
SL_STATIC_ASSERT(SL_PROP_PARAMS_MAX == SL_PARAMS_PACKED_ROOM,
                 "named_params.h packs SL_PROP_PARAMS_MAX doubles");

typedef struct sl_propagator {
    SL_TABLE_HEAD;           /* kind SL_KIND_PROPAGATOR; params: e.g. dt */
    int order;               /* global error ~ dt^order: check-plugin measures it */
    int adaptive;            /* SL_PROP_<P>_ADAPTIVE: 0 fixed step pp[0]; 1 per-system steps */
    int persist_per_body;    /* doubles per body kept between launches: SL_PROP_<P>_PERSIST */
    /* Packs validated values into the vector kernels receive. pp[0] is the
     * step the loop uses (an adaptive integrator's first step), whatever the
     * parameter that sets it is called: sl_integrate refuses a pp[0] that is
     * not a finite number > 0. */
    sl_status (*pack)(const sl_param_values *pv, double pp[SL_PROP_PARAMS_MAX]);
    const sl_kernel_entry *kernels;
    size_t n_kernels;
    /* Leading doubles of pp that pack fills, 1..SL_PROP_PARAMS_MAX (the
     * rest it sets to 0); refused outside that range by the registry and
     * sl_integrate. */
    int n_packed;
    /* Optional: refuses, before any work, systems the integrator cannot
     * take (mvs: a central body too light), naming the system, the value
     * and what was expected. pp as pack filled it. NULL: any system. */
    sl_status (*check_systems)(const sl_ensemble *e, const double pp[SL_PROP_PARAMS_MAX]);
} sl_propagator;

/* Kernels of one (integrator, force) pair that a plugin carries, exported
 * as a table of kind SL_KIND_KERNELS named "integrator/force". */
typedef struct sl_kernel_set {
    SL_TABLE_HEAD;          /* kind SL_KIND_KERNELS, named "integrator/force"; no params */
    const char *integrator;
    const char *force;
    const sl_kernel_entry *kernels; /* each entry's force is `force` */
    size_t n_kernels;
} sl_kernel_set;

/* In the integrator's own table: the specialisation for (force, n_body),
 * else the force's runtime-N fallback; NULL if it has none for that force.
 * sl_registry_kernel (registry.h) also looks in every plugin's kernel sets,
 * and checks the traits. */
const sl_kernel_entry *sl_propagator_kernel(const sl_propagator *p, const char *force,
                                            int n_body);

/* Whether entry k's traits are those of a stamped kernel and agree with
 * table p (persist_per_body, adaptive); if not, SL_ERR_PLUGIN with a
 * message naming the integrator, the force, where the kernels come from
 * (`from`, e.g. a plugin file) and both values. */
sl_status sl_kernel_traits_check(const sl_propagator *p, const sl_kernel_entry *k,
                                 const char *from);

SL_EXTERN_C_END

#endif
