/* ss-bench: the question a REBOUND user asks, "how long for my ensemble at
 * a given accuracy?". Copies of the outer Solar System (tests/data/
 * outer_ss.csv: Sun and the four giants, J2000 elements, G = 1, AU, Msun,
 * one year = 2 pi) or of another system (--data: solar_system.csv, the Sun
 * and eight planets), each copy's planets nudged by 1e-9 of their position
 * so that the copies differ, integrated for a span with each integrator
 * and step asked for, on the CPU and CUDA backends in one run: wall time,
 * the largest |dE/E| at the end over the systems, and the time ratio.
 * bench/rebound_ss.py times REBOUND on the same ensemble. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outer_ss.h"
#include "starling/starling.h"

static const double YEAR = 2.0 * 3.14159265358979323846;

typedef struct ss_opts {
    int64_t systems, cpu_systems;
    double years;
    const char *runs; /* "mvs:0.1,hermite:0.05,mvs:0.5/corrector=11": integrator:dt (years) */
    const char *data;
    const char *backends;
} ss_opts;

static void usage(void)
{
    puts("usage: ss-bench [--systems N] [--cpu-systems N] [--years Y]\n"
         "                [--runs mvs:0.1,hermite:0.05,rkck_adaptive:tol=1e-10,mvs:0.5/corrector=11]\n"
         "                [--data outer_ss.csv]\n"
         "                [--backend both|cpu|cuda]\n"
         "  Copies of the outer Solar System (or of --data's system) for Y years with each integrator:dt (years)\n"
         "  or integrator:key=value, several joined by '/' (dt in years);\n"
         "  megno=K: measure MEGNO too, renormalising every K steps (megno.h);\n"
         "  prints wall seconds per backend, their ratio and the worst |dE/E|\n"
         "  (with megno=K also the median and range of <Y> over the copies).\n"
         "  SS_DIGEST=1 in the environment: a digest of every end state, to stderr.");
}

static int parse(int argc, char **argv, ss_opts *o)
{
    *o = (ss_opts){.systems = 16384, .cpu_systems = 0, .years = 1000.0,
                   .runs = "mvs:0.2,mvs:0.1,mvs:0.05,hermite:0.1,hermite:0.05",
                   .data = SS_DATA, .backends = "both"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help") || !v) {
            usage();
            return -1;
        }
        i++;
        if (!strcmp(a, "--systems"))
            o->systems = atoll(v);
        else if (!strcmp(a, "--cpu-systems"))
            o->cpu_systems = atoll(v);
        else if (!strcmp(a, "--years"))
            o->years = atof(v);
        else if (!strcmp(a, "--runs"))
            o->runs = v;
        else if (!strcmp(a, "--data"))
            o->data = v;
        else if (!strcmp(a, "--backend"))
            o->backends = v;
        else {
            usage();
            return -1;
        }
    }
    if (o->cpu_systems <= 0)
        o->cpu_systems = o->systems;
    return o->systems > 0 && o->years > 0 ? 0 : -1;
}

/* One timed run (after a short warm-up run); seconds of wall time and the
 * largest |dE/E| over the systems. */
enum { SS_KEYS = 4 };
typedef struct ss_set {
    int n;
    char key[SS_KEYS][32];
    double val[SS_KEYS];
} ss_set;

/* "0.5/corrector=11": a bare number is dt in years, key=value the rest
 * (dt=... in years too). */
static int parse_set(const char *spec, ss_set *set)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", spec);
    set->n = 0;
    for (char *save = NULL, *it = strtok_r(buf, "/", &save); it; it = strtok_r(NULL, "/", &save)) {
        if (set->n == SS_KEYS)
            return -1;
        char *eq = strchr(it, '=');
        snprintf(set->key[set->n], sizeof set->key[0], "%.*s", eq ? (int)(eq - it) : 2,
                 eq ? it : "dt");
        set->val[set->n] = atof(eq ? eq + 1 : it) * (strcmp(set->key[set->n], "dt") ? 1.0 : YEAR);
        set->n++;
    }
    return set->n > 0 ? 0 : -1;
}

/* median, min and max of <Y> over the copies into y[3] */
static void megno_summary(const sl_megno_result *mr, double y[3])
{
    double *v = malloc((size_t)mr->n_sys * sizeof *v);
    y[0] = y[1] = y[2] = NAN;
    if (!v)
        return;
    memcpy(v, mr->megno, (size_t)mr->n_sys * sizeof *v);
    qsort(v, (size_t)mr->n_sys, sizeof *v, ss_cmp_double);
    y[0] = v[mr->n_sys / 2], y[1] = v[0], y[2] = v[mr->n_sys - 1];
    free(v);
}

/* megno: every this many steps (0: no MEGNO); the run's key, not the integrator's */
static double megno_steps(const ss_set *set)
{
    for (int k = 0; k < set->n; k++)
        if (!strcmp(set->key[k], "megno"))
            return set->val[k];
    return 0.0;
}

/* FNV-1a over the bits of every system's end state (SS_DIGEST set: printed
 * to stderr), so that two builds can be shown to give the same bits. */
static uint64_t state_digest(const sl_ensemble *e)
{
    uint64_t h = 14695981039346656037ull;
    for (int64_t s = 0; s < e->n_sys; s++)
        for (int b = 0; b < e->n_body; b++)
            for (int f = 0; f < SL_NFIELD; f++) {
                double x = e->state[sl_state_index(s, e->n_body, b, f)];
                uint64_t u;
                memcpy(&u, &x, sizeof u);
                for (int k = 0; k < 8; k++, u >>= 8)
                    h = (h ^ (u & 0xff)) * 1099511628211ull;
            }
    return h;
}

static int timed(const sl_backend *be, const ss_opts *o, int64_t n, const sl_propagator *p,
                 const sl_force *f, const sl_registry *reg, const ss_set *set, double *wall,
                 double *de, double y[3])
{
    for (int warm = 1; warm >= 0; warm--) {
        sl_ensemble *e;
        if (ss_make("ss-bench", o->data, n, &e))
            return -1;
        sl_run_config c;
        sl_run_config_init(&c);
        c.prop = p;
        c.force = f;
        c.registry = reg;
        sl_param_values pv;
        int bad = sl_params_init(&pv, p->params, p->n_params) != SL_OK;
        for (int k = 0; !bad && k < set->n; k++)
            bad = strcmp(set->key[k], "megno") &&
                  sl_params_set(&pv, set->key[k], set->val[k]) != SL_OK;
        if (bad || sl_params_complete(&pv) || p->pack(&pv, c.pp)) {
            fprintf(stderr, "ss-bench: %s: %s\n", p->name, sl_last_error());
            return -1;
        }
        c.t_end = warm ? 10 * YEAR : o->years * YEAR;
        c.steps_per_launch = getenv("SS_LAUNCH_STEPS") ? atoll(getenv("SS_LAUNCH_STEPS")) : 1000;
        sl_run_result r;
        sl_megno_config m;
        sl_megno_config_default(&m);
        m.interval = megno_steps(set) * c.pp[0];
        sl_megno_result mr = {0};
        if (m.interval > 0 ? sl_integrate_megno(be, e, &c, &m, &r, &mr)
                           : sl_integrate(be, e, &c, &r)) {
            fprintf(stderr, "ss-bench: %s %s: %s\n", p->name, be->description, sl_last_error());
            sl_ensemble_destroy(e);
            return -1;
        }
        *wall = r.wall_s;
        if (!warm && getenv("SS_LAUNCH_STEPS"))
            fprintf(stderr, "ss-bench: %s on %s: wall %.4f s, kernels %.4f s in %lld launches\n",
                    p->name, be->description, r.wall_s, r.kernel_s, (long long)r.launches);
        *de = 0.0;
        for (int64_t s = 0; s < e->n_sys; s++)
            *de = fmax(*de, r.energy_error[s]);
        if (!warm && getenv("SS_DIGEST"))
            fprintf(stderr, "ss-bench: %s on %s: end states' digest %016llx\n", p->name,
                    be->description, (unsigned long long)state_digest(e));
        if (m.interval > 0)
            megno_summary(&mr, y);
        sl_megno_result_free(&mr);
        sl_run_result_free(&r);
        sl_ensemble_destroy(e);
    }
    return 0;
}

int main(int argc, char **argv)
{
    ss_opts o;
    if (parse(argc, argv, &o))
        return 2;
    sl_registry *reg;
    const void *newton;
    if (sl_registry_create(&reg) || sl_registry_load_default(reg) ||
        sl_registry_get(reg, SL_KIND_FORCE, "newton", &newton)) {
        fprintf(stderr, "ss-bench: %s\n", sl_last_error());
        return 1;
    }
    int want_cpu = strcmp(o.backends, "cuda") != 0, want_gpu = strcmp(o.backends, "cpu") != 0;
    sl_backend cpu, gpu;
    sl_backend_open("cpu", &cpu);
    if (want_gpu && sl_backend_open("cuda", &gpu)) {
        fprintf(stderr, "ss-bench: no GPU (%s); CPU only\n", sl_last_error());
        want_gpu = 0;
    }
    printf("ss-bench %s: copies of %s, %lld on the GPU, %lld on the CPU, "
           "%g yr\nCPU: %s\n", SL_VERSION, o.data, (long long)o.systems,
           (long long)o.cpu_systems, o.years, cpu.description);
    if (want_gpu)
        printf("GPU: %s\n", gpu.description);
    printf("\n| integrator | dt (yr) or key=value | GPU s | GPU max dE/E | CPU s | CPU max dE/E | CPU/GPU "
           "(per system) |\n|---|---|---|---|---|---|---|\n");
    char runs[1024];
    snprintf(runs, sizeof runs, "%s", o.runs);
    int fail = 0;
    for (char *tok = strtok(runs, ","); tok; tok = strtok(NULL, ",")) {
        char *colon = strchr(tok, ':');
        if (!colon) {
            fprintf(stderr, "ss-bench: run '%s': expected integrator:dt\n", tok);
            return 2;
        }
        *colon = '\0';
        const void *p;
        if (sl_registry_get(reg, SL_KIND_PROPAGATOR, tok, &p)) {
            fprintf(stderr, "ss-bench: %s\n", sl_last_error());
            return 1;
        }
        ss_set set;
        if (parse_set(colon + 1, &set)) {
            fprintf(stderr, "ss-bench: run '%s:%s': expected dt or key=value, at most %d joined "
                    "by '/'\n", tok, colon + 1, SS_KEYS);
            return 2;
        }
        double gw = NAN, ge = NAN, cw = NAN, ce = NAN, gy[3] = {NAN}, cy[3] = {NAN};
        if (want_gpu && timed(&gpu, &o, o.systems, p, newton, reg, &set, &gw, &ge, gy))
            fail = 1;
        if (want_cpu && timed(&cpu, &o, o.cpu_systems, p, newton, reg, &set, &cw, &ce, cy))
            fail = 1;
        double ratio = (cw / (double)o.cpu_systems) / (gw / (double)o.systems);
        printf("| %s | %s | %.3g | %.2g | %.3g | %.2g | %.3g |\n", tok, colon + 1, gw, ge, cw,
               ce, ratio);
        if (megno_steps(&set) > 0)
            printf("|   | <Y> median (min..max) | %.4f (%.4f..%.4f) | | %.4f (%.4f..%.4f) | | |\n",
                   gy[0], gy[1], gy[2], cy[0], cy[1], cy[2]);
        fflush(stdout);
    }
    sl_registry_destroy(reg);
    return fail;
}
