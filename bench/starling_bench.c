/* starling-bench: integrator + force ensembles (Hermite and Newton unless
 * --integrators and --force name others), system-steps per second on the CUDA backend
 * and on the CPU backend (all cores), in the same run, on the same initial
 * conditions, with the ratio and a check that the two backends agree. See
 * docs/BENCHMARKS.md for recorded runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "starling/cuda_nbodies.h"
#include "starling/starling.h"

typedef struct bench_opts {
    int64_t systems, cpu_systems, steps, per_launch;
    int bodies[8], n_bodies, repeats, monitors;
    const char *backends; /* "both", "cpu" or "cuda" */
    const char *integrators; /* comma-separated */
    const char *force;       /* NAME or NAME:key=value,key=value */
} bench_opts;

static void usage(void)
{
    puts("usage: starling-bench [--all] [--systems N] [--cpu-systems N] [--bodies 3,6]\n"
         "                      [--steps S] [--per-launch K] [--repeats R] [--monitors]\n"
         "                      [--backend both|cpu|cuda] [--integrators hermite,rkck]\n"
         "                      [--force NAME[:key=value,...]]\n"
         "  An integrator (hermite by default) + a force (newton by default, e.g.\n"
         "  --force j2:J2=0.0147,R=1e-3), Swarm-NG test systems (star +\n"
         "  equal-mass planets), dt = 1e-3 inner orbits (an adaptive integrator: its\n"
         "  defaults, dt caps its first step); prints system-steps/s per backend and\n"
         "  the ratio.\n"
         "  --all: the issue-2 benchmark (131072 systems, N = 3 and 6, 1000 steps/launch).");
}

static int parse(int argc, char **argv, bench_opts *o)
{
    *o = (bench_opts){.systems = 131072, .cpu_systems = 0, .steps = 2000, .per_launch = 1000,
                      .bodies = {3, 6}, .n_bodies = 2, .repeats = 3, .backends = "both",
                      .integrators = "hermite", .force = "newton"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--all"))
            continue;
        if (!strcmp(a, "--monitors")) {
            o->monitors = 1;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help") || !v) {
            usage();
            return -1;
        }
        i++;
        if (!strcmp(a, "--systems"))
            o->systems = atoll(v);
        else if (!strcmp(a, "--cpu-systems"))
            o->cpu_systems = atoll(v);
        else if (!strcmp(a, "--steps"))
            o->steps = atoll(v);
        else if (!strcmp(a, "--per-launch"))
            o->per_launch = atoll(v);
        else if (!strcmp(a, "--repeats"))
            o->repeats = atoi(v);
        else if (!strcmp(a, "--backend"))
            o->backends = v;
        else if (!strcmp(a, "--integrators"))
            o->integrators = v;
        else if (!strcmp(a, "--force"))
            o->force = v;
        else if (!strcmp(a, "--bodies")) {
            o->n_bodies = 0;
            for (char *s = (char *)v; *s && o->n_bodies < 8; s++) {
                o->bodies[o->n_bodies++] = (int)strtol(s, &s, 10);
                if (!*s)
                    break;
            }
        } else {
            usage();
            return -1;
        }
    }
    if (o->systems < 1 || o->steps < 1 || o->repeats < 1 || o->per_launch < 1) {
        fprintf(stderr, "starling-bench: sizes must be positive\n");
        return -1;
    }
    if (o->cpu_systems <= 0)
        o->cpu_systems = o->systems;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct bench_ctx {
    const sl_propagator *prop;
    const sl_force *force;
    const sl_registry *reg;
    double fp[SL_FORCE_PARAMS_MAX];
} bench_ctx;

/* The force of a spec NAME[:key=value,...], its keys validated and packed. */
static sl_status load_force(const sl_registry *reg, const char *spec, bench_ctx *bc)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    char *keys = strchr(buf, ':');
    if (keys)
        *keys++ = '\0';
    sl_param_values pv;
    sl_status st = sl_registry_get(reg, SL_KIND_FORCE, buf, (const void **)&bc->force);
    if (!st)
        st = sl_params_init(&pv, bc->force->params, bc->force->n_params);
    if (st)
        return st;
    for (char *save = NULL, *kv = keys ? strtok_r(keys, ",", &save) : NULL; kv;
         kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '='), *end;
        if (!eq)
            return sl_fail(SL_ERR_ARG, "--force: '%s': expected key=value", kv);
        *eq = '\0';
        double x = strtod(eq + 1, &end);
        if (end == eq + 1 || *end)
            return sl_fail(SL_ERR_ARG, "--force: %s = '%s': expected a number", kv, eq + 1);
        if ((st = sl_params_set(&pv, kv, x)))
            return st;
    }
    if ((st = sl_params_complete(&pv)))
        return st;
    return bc->force->pack(&pv, bc->fp);
}

/* The integrator's packed keys: its defaults, and dt (the step, or an
 * adaptive integrator's first-step cap) where it has the key. */
static int pack_prop(const sl_propagator *p, double dt, double pp[SL_PROP_PARAMS_MAX])
{
    sl_param_values pv;
    if (sl_params_init(&pv, p->params, p->n_params))
        return -1;
    if (sl_params_find(p->params, p->n_params, "dt") && sl_params_set(&pv, "dt", dt))
        return -1;
    if (sl_params_complete(&pv) || p->pack(&pv, pp))
        return -1;
    return 0;
}

/* Runs `steps` steps from the same start `repeats` times (plus a warm-up)
 * and returns the median rate; leaves the last final state in *out. */
static int run_backend(const bench_ctx *bc, const bench_opts *o, const sl_backend *be,
                       const sl_ensemble *start, double dt, double *rate, double *wall,
                       sl_ensemble **out)
{
    double rates[16];
    int reps = o->repeats < 16 ? o->repeats : 16;
    *out = NULL;
    for (int r = -1; r < reps; r++) {
        sl_ensemble *e;
        if (sl_ensemble_clone(start, &e))
            return -1;
        sl_run_config c;
        sl_run_config_init(&c);
        c.prop = bc->prop;
        c.force = bc->force;
        memcpy(c.fp, bc->fp, sizeof c.fp);
        c.registry = bc->reg;
        if (pack_prop(bc->prop, dt, c.pp)) {
            fprintf(stderr, "starling-bench: %s: %s\n", bc->prop->name, sl_last_error());
            sl_ensemble_destroy(e);
            return -1;
        }
        c.t_end = (r < 0 ? 10 : o->steps) * dt;
        c.steps_per_launch = o->per_launch;
        if (o->monitors) {
            c.mon.close_hill = 0.5;
            c.mon.eject_r = 100;
        }
        sl_run_result res;
        if (sl_integrate(be, e, &c, &res)) {
            fprintf(stderr, "starling-bench: %s: %s\n", be->description, sl_last_error());
            sl_ensemble_destroy(e);
            return -1;
        }
        if (r >= 0) {
            rates[r] = res.system_steps / res.kernel_s;
            *wall = res.wall_s;
        }
        sl_run_result_free(&res);
        if (r == reps - 1)
            *out = e;
        else
            sl_ensemble_destroy(e);
    }
    qsort(rates, (size_t)reps, sizeof rates[0], cmp_double);
    *rate = rates[reps / 2];
    return 0;
}

static double max_rel_diff(const sl_ensemble *a, const sl_ensemble *b, int64_t n_sys)
{
    double worst = 0;
    for (int64_t s = 0; s < n_sys; s++)
        for (int k = 0; k < a->n_body; k++) {
            double xa[3], va[3], xb[3], vb[3];
            sl_ensemble_get_body(a, s, k, NULL, xa, va);
            sl_ensemble_get_body(b, s, k, NULL, xb, vb);
            for (int c = 0; c < 3; c++) {
                double dx = fabs(xa[c] - xb[c]) / fmax(1.0, fabs(xa[c]));
                double dv = fabs(va[c] - vb[c]) / fmax(1.0, fabs(va[c]));
                worst = fmax(worst, fmax(dx, dv));
            }
        }
    return worst;
}

/* One integrator at N bodies on each backend asked for: one table row. */
static int bench_one(const bench_ctx *bc, const bench_opts *o, const sl_backend *gpu,
                     const sl_backend *cpu, int n)
{
    sl_test_system_spec sp = {.n_planets = n - 1, .planet_mass = 1e-5, .a1 = 1.0,
                              .spacing = 0.5, .perturb = 1e-3, .random_phase = 1, .seed = 2026};
    sl_ensemble *start = NULL, *start_cpu = NULL, *g = NULL, *c = NULL;
    if (sl_ensemble_test_systems(&sp, o->systems, &start)) {
        fprintf(stderr, "starling-bench: %s\n", sl_last_error());
        return 1;
    }
    const double dt = 2 * M_PI / 1000.0;
    double gr = NAN, cr = NAN, gw = 0, cw = 0;
    int fail = 0;
    if (gpu && run_backend(bc, o, gpu, start, dt, &gr, &gw, &g))
        fail = 1;
    if (cpu) {
        if (sl_ensemble_test_systems(&sp, o->cpu_systems, &start_cpu) ||
            run_backend(bc, o, cpu, start_cpu, dt, &cr, &cw, &c))
            fail = 1;
    }
    int64_t both = o->cpu_systems < o->systems ? o->cpu_systems : o->systems;
    double diff = g && c ? max_rel_diff(g, c, both) : NAN;
    printf("| %s | %d | %.3g | %.3g | %.1f | %.1e |\n", bc->prop->name, n, gr, cr, gr / cr,
           diff);
    fflush(stdout);
    sl_ensemble_destroy(start);
    sl_ensemble_destroy(start_cpu);
    sl_ensemble_destroy(g);
    sl_ensemble_destroy(c);
    return fail;
}

int main(int argc, char **argv)
{
    bench_opts o;
    if (parse(argc, argv, &o))
        return 2;
    sl_registry *reg;
    bench_ctx bc = {0};
    if (sl_registry_create(&reg) || sl_registry_load_default(reg) ||
        load_force(reg, o.force, &bc)) {
        fprintf(stderr, "starling-bench: %s\n", sl_last_error());
        return 1;
    }
    bc.reg = reg;
    int want_cpu = strcmp(o.backends, "cuda") != 0, want_gpu = strcmp(o.backends, "cpu") != 0;
    sl_backend cpu, gpu;
    sl_backend_open("cpu", &cpu);
    if (want_gpu && sl_backend_open("cuda", &gpu)) {
        fprintf(stderr, "starling-bench: no GPU (%s); CPU only\n", sl_last_error());
        want_gpu = 0;
    }
    printf("starling-bench %s: %s + %s, %lld systems (CPU: %lld), %lld steps, "
           "%lld steps/launch, monitors %s, median of %d\n",
           SL_VERSION, o.integrators, o.force, (long long)o.systems, (long long)o.cpu_systems,
           (long long)o.steps, (long long)o.per_launch,
           o.monitors ? "close_encounter+eject" : "nonfinite only", o.repeats);
    printf("CPU: %s\n", cpu.description);
    if (want_gpu)
        printf("GPU: %s (unrolled CUDA kernels for N = %s)\n", gpu.description,
               SL_CUDA_NBODIES_LIST);
    printf("\n| integrator | N | GPU system-steps/s | CPU system-steps/s | GPU/CPU | "
           "max rel diff |\n|---|---|---|---|---|---|\n");
    int fail = 0;
    char names[256];
    snprintf(names, sizeof names, "%s", o.integrators);
    for (char *save = NULL, *name = strtok_r(names, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        if (sl_registry_get(reg, SL_KIND_PROPAGATOR, name, (const void **)&bc.prop)) {
            fprintf(stderr, "starling-bench: %s\n", sl_last_error());
            fail = 1;
            continue;
        }
        for (int i = 0; i < o.n_bodies; i++)
            fail |= bench_one(&bc, &o, want_gpu ? &gpu : NULL, want_cpu ? &cpu : NULL,
                              o.bodies[i]);
    }
    sl_registry_destroy(reg);
    return fail;
}
