/* energy-bench: how each integrator's energy error grows over a long run.
 * Copies of the outer Solar System (tests/data/outer_ss.csv, G = 1, AU,
 * Msun, one year = 2 pi; each copy's planets nudged by 1e-9 of their
 * position so that the copies differ) integrated to T time units (1e6 by
 * default, 1.6e5 yr) with each integrator:setting asked for, on one
 * backend. The state is stopped at times spaced evenly in log t (four per
 * decade from 10) and the energy of every system measured on the host
 * against its initial energy: the median and largest |dE/E| over the
 * systems at each time go to a CSV (energy-plot draws it), and a table
 * of a few of them to stdout. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outer_ss.h"
#include "starling/starling.h"

enum { MAX_SAMPLES = 64 };

typedef struct en_opts {
    int64_t systems;
    double t_end;
    const char *runs, *data, *backend, *csv;
} en_opts;

static void usage(void)
{
    puts("usage: energy-bench [--systems N] [--t-end T] [--backend cuda|cpu]\n"
         "                    [--runs mvs:dt=0.05,hermite:dt=0.05,rkck_adaptive:tol=1e-10]\n"
         "                    [--data outer_ss.csv] [--csv energy.csv]\n"
         "  Copies of the outer Solar System to T time units (one year = 2 pi) with each\n"
         "  integrator:key=value (dt in years); the median and largest |dE/E| over the\n"
         "  systems at times spaced in log t go to the CSV, a summary to stdout.");
}

static int parse(int argc, char **argv, en_opts *o)
{
    *o = (en_opts){.systems = 64, .t_end = 1e6, .data = SS_DATA, .backend = "cuda",
                   .csv = "energy.csv",
                   .runs = "mvs:dt=0.05,verlet:dt=0.01,hermite:dt=0.05,rkck:dt=0.05,"
                           "rkck_adaptive:tol=1e-10,hermite_adaptive:eta=0.01"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help") || !v) {
            usage();
            return -1;
        }
        i++;
        if (!strcmp(a, "--systems"))
            o->systems = atoll(v);
        else if (!strcmp(a, "--t-end"))
            o->t_end = atof(v);
        else if (!strcmp(a, "--runs"))
            o->runs = v;
        else if (!strcmp(a, "--data"))
            o->data = v;
        else if (!strcmp(a, "--backend"))
            o->backend = v;
        else if (!strcmp(a, "--csv"))
            o->csv = v;
        else {
            usage();
            return -1;
        }
    }
    if (!(o->systems > 0 && o->t_end > 10)) {
        fprintf(stderr, "energy-bench: --systems must be > 0 and --t-end > 10\n");
        return -1;
    }
    return 0;
}

/* Median and largest |E/E0 - 1| over the systems (a stopped or failed
 * system counts as infinite: its energy is not the run's). */
static void energy_errors(const sl_ensemble *e, const sl_force *f, const double *e0,
                          double *work, double *median, double *worst)
{
    double fp[SL_FORCE_PARAMS_MAX] = {0};
    for (int64_t s = 0; s < e->n_sys; s++) {
        double en, L[3];
        sl_system_energy(e, s, f, fp, &en, L);
        work[s] = e->status[s] == SL_SYS_ACTIVE ? fabs(en / e0[s] - 1.0) : INFINITY;
    }
    qsort(work, (size_t)e->n_sys, sizeof *work, ss_cmp_double);
    *median = work[e->n_sys / 2];
    *worst = work[e->n_sys - 1];
}

/* One integrator:key=value to t_end, stopping at the sample times. */
static int run_one(const en_opts *o, const sl_backend *be, const sl_registry *reg,
                   const sl_force *f, const char *name, const char *key, double val, FILE *csv,
                   double *at, double *med, double *max, int *n_at, double *wall)
{
    const void *t;
    if (sl_registry_get(reg, SL_KIND_PROPAGATOR, name, &t))
        return -1;
    const sl_propagator *p = t;
    sl_ensemble *e;
    if (ss_make("energy-bench", o->data, o->systems, &e))
        return -1;
    double *e0 = malloc(sizeof *e0 * (size_t)o->systems),
           *work = malloc(sizeof *work * (size_t)o->systems);
    int rc = e0 && work ? 0 : -1;
    double fp[SL_FORCE_PARAMS_MAX] = {0};
    for (int64_t s = 0; !rc && s < o->systems; s++) {
        double L[3];
        sl_system_energy(e, s, f, fp, &e0[s], L);
    }
    sl_run_config c;
    sl_run_config_init(&c);
    c.prop = p;
    c.force = f;
    c.registry = reg;
    c.steps_per_launch = 10000;
    sl_param_values pv;
    if (!rc && (sl_params_init(&pv, p->params, p->n_params) || sl_params_set(&pv, key, val) ||
                sl_params_complete(&pv) || p->pack(&pv, c.pp)))
        rc = -1;
    *n_at = 0;
    *wall = 0.0;
    for (int k = 0; !rc && k < MAX_SAMPLES; k++) {
        double tk = fmin(10.0 * pow(10.0, 0.25 * k), o->t_end);
        c.t_end = tk;
        sl_run_result r;
        if (sl_integrate(be, e, &c, &r)) {
            rc = -1;
            break;
        }
        *wall += r.wall_s;
        sl_run_result_free(&r);
        energy_errors(e, f, e0, work, &med[*n_at], &max[*n_at]);
        at[*n_at] = tk;
        fprintf(csv, "%s,%s,%.17g,%s,%.17g,%.6e,%.6e\n", name, key, val, be->kind ==
                SL_BACKEND_CUDA ? "cuda" : "cpu", tk, med[*n_at], max[*n_at]);
        (*n_at)++;
        if (tk >= o->t_end)
            break;
    }
    free(e0);
    free(work);
    sl_ensemble_destroy(e);
    return rc;
}

static double at_time(const double *at, const double *y, int n, double t)
{
    for (int k = 0; k < n; k++)
        if (at[k] >= t * (1 - 1e-12))
            return y[k];
    return NAN;
}

int main(int argc, char **argv)
{
    en_opts o;
    if (parse(argc, argv, &o))
        return 2;
    sl_registry *reg;
    const void *newton;
    if (sl_registry_create(&reg) || sl_registry_load_default(reg) ||
        sl_registry_get(reg, SL_KIND_FORCE, "newton", &newton)) {
        fprintf(stderr, "energy-bench: %s\n", sl_last_error());
        return 1;
    }
    sl_backend be;
    if (sl_backend_open(o.backend, &be)) {
        fprintf(stderr, "energy-bench: %s\n", sl_last_error());
        return 1;
    }
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s.tmp", o.csv);
    FILE *csv = fopen(tmp, "w");
    if (!csv) {
        fprintf(stderr, "energy-bench: cannot write %s\n", tmp);
        return 1;
    }
    fprintf(csv, "# energy-bench %s: outer Solar System (%s), %lld copies, t_end %g, %s\n",
            SL_VERSION, o.data, (long long)o.systems, o.t_end, be.description);
    fprintf(csv, "integrator,key,value,backend,t,median_dE,max_dE\n");
    printf("energy-bench %s: outer Solar System, %lld copies to t = %g (%.3g yr) on %s\n\n"
           "| integrator | setting | wall s | median |dE/E| t=1e2 | t=1e4 | t=%g | max at "
           "t=%g |\n|---|---|---|---|---|---|---|\n",
           SL_VERSION, (long long)o.systems, o.t_end, o.t_end / (2 * M_PI), be.description,
           o.t_end, o.t_end);
    char runs[512];
    snprintf(runs, sizeof runs, "%s", o.runs);
    int fail = 0;
    for (char *save = NULL, *tok = strtok_r(runs, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':'), *eq = colon ? strchr(colon, '=') : NULL;
        if (!colon || !eq) {
            fprintf(stderr, "energy-bench: run '%s': expected integrator:key=value\n", tok);
            fail = 2;
            break;
        }
        *colon = *eq = '\0';
        double val = atof(eq + 1);
        if (!strcmp(colon + 1, "dt"))
            val *= 2 * M_PI; /* years */
        double at[MAX_SAMPLES], med[MAX_SAMPLES], max[MAX_SAMPLES], wall;
        int n;
        if (run_one(&o, &be, reg, newton, tok, colon + 1, val, csv, at, med, max, &n, &wall)) {
            fprintf(stderr, "energy-bench: %s: %s\n", tok, sl_last_error());
            fail = 1;
            continue;
        }
        printf("| %s | %s = %s | %.3g | %.2g | %.2g | %.2g | %.2g |\n", tok, colon + 1,
               eq + 1, wall, at_time(at, med, n, 1e2), at_time(at, med, n, 1e4),
               at_time(at, med, n, o.t_end), at_time(at, max, n, o.t_end));
        fflush(stdout);
    }
    if (fclose(csv) || rename(tmp, o.csv)) {
        fprintf(stderr, "energy-bench: cannot write %s\n", o.csv);
        fail = 1;
    } else {
        printf("\nwrote %s\n", o.csv);
    }
    sl_registry_destroy(reg);
    return fail;
}
