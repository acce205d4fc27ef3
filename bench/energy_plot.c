/* energy-plot: draws energy-bench's CSV as a PNG through PLplot: the
 * median |dE/E| over the systems against time, log axes, one line per
 * integrator and setting.
 *
 *   energy-plot energy.csv energy.png ["title"]
 *
 * Built only where PLplot is (Debian: libplplot-dev, plplot-driver-cairo):
 * the GPU run writes the CSV, the picture is made wherever it is read. */
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LINES = 16, MAX_POINTS = 128 };

typedef struct series {
    char label[160];
    int n;
    PLFLT t[MAX_POINTS], y[MAX_POINTS]; /* log10 */
} series;

static series *find_or_add(series *s, int *n, const char *label)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(s[i].label, label))
            return &s[i];
    if (*n == MAX_LINES)
        return NULL;
    series *q = &s[(*n)++];
    snprintf(q->label, sizeof q->label, "%s", label);
    q->n = 0;
    return q;
}

/* The rows "integrator,key,value,backend,t,median_dE,max_dE" after '#'
 * comments and the header; returns the number of series, -1 on bad input
 * (the file and line named). */
static int read_csv(const char *path, series *s)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "energy-plot: cannot open %s\n", path);
        return -1;
    }
    char line[512];
    int n = 0, lineno = 0, header = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (!header++)
            continue;
        char name[64], key[32], val[32], backend[16];
        double t, med, max;
        if (sscanf(line, "%63[^,],%31[^,],%31[^,],%15[^,],%lf,%lf,%lf", name, key, val, backend,
                   &t, &med, &max) != 7 || !(t > 0)) {
            fprintf(stderr, "energy-plot: %s:%d: expected integrator,key,value,backend,t,"
                    "median_dE,max_dE with t > 0\n", path, lineno);
            fclose(f);
            return -1;
        }
        char label[160];
        double v = atof(val);
        if (!strcmp(key, "dt"))
            snprintf(label, sizeof label, "%s dt=%.3g yr", name, v / (2 * M_PI));
        else
            snprintf(label, sizeof label, "%s %s=%s", name, key, val);
        series *q = find_or_add(s, &n, label);
        if (!q || q->n == MAX_POINTS) {
            fprintf(stderr, "energy-plot: %s:%d: too many lines or points\n", path, lineno);
            fclose(f);
            return -1;
        }
        /* an exact zero (or a stopped system's inf) has no place on log axes */
        if (med > 0 && isfinite(med)) {
            q->t[q->n] = log10(t);
            q->y[q->n] = log10(med);
            q->n++;
        }
    }
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: energy-plot energy.csv energy.png [title]\n");
        return 2;
    }
    series s[MAX_LINES];
    int n = read_csv(argv[1], s);
    if (n <= 0) {
        if (n == 0)
            fprintf(stderr, "energy-plot: %s: no rows\n", argv[1]);
        return 1;
    }
    PLFLT x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < s[i].n; k++) {
            x0 = fmin(x0, s[i].t[k]), x1 = fmax(x1, s[i].t[k]);
            y0 = fmin(y0, s[i].y[k]), y1 = fmax(y1, s[i].y[k]);
        }
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s.tmp.png", argv[2]);
    plsdev("pngcairo");
    plsfnam(tmp);
    plspage(0, 0, 1000, 650, 0, 0);
    plscolbg(255, 255, 255);
    plinit();
    plscol0(15, 0, 0, 0);
    plcol0(15);
    plenv(floor(x0), ceil(x1), floor(y0), ceil(y1) + 1, 0, 30); /* 30: log x and log y */
    pllab("time (G = 1; one year = 2#gp)", "median |#gDE/E|",
          argc > 3 ? argv[3] : "energy error over the outer Solar System copies");
    /* cmap0 1..8: colours that stay apart on white */
    static const int rgb[8][3] = {{214, 39, 40},  {31, 119, 180}, {44, 160, 44},
                                  {255, 127, 14}, {148, 103, 189}, {23, 190, 207},
                                  {140, 86, 75},  {127, 127, 127}};
    for (int i = 0; i < 8; i++)
        plscol0(i + 1, rgb[i][0], rgb[i][1], rgb[i][2]);
    static const int colours[] = {1, 2, 3, 4, 5, 6, 7, 8};
    PLINT opt[MAX_LINES], col[MAX_LINES], lst[MAX_LINES], nosym[MAX_LINES];
    PLFLT lw[MAX_LINES], ssc[MAX_LINES];
    const char *text[MAX_LINES], *sym[MAX_LINES];
    for (int i = 0; i < n; i++) {
        col[i] = colours[i % (int)(sizeof colours / sizeof colours[0])];
        plcol0(col[i]);
        plwidth(2.0);
        plline(s[i].n, s[i].t, s[i].y);
        opt[i] = PL_LEGEND_LINE, lst[i] = 1, lw[i] = 2.0, nosym[i] = 0, ssc[i] = 1.0;
        text[i] = s[i].label, sym[i] = "";
    }
    PLFLT lw_out, lh_out;
    plcol0(15);
    pllegend(&lw_out, &lh_out, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
             PL_POSITION_TOP | PL_POSITION_LEFT | PL_POSITION_INSIDE, 0.02, 0.02, 0.1, 0, 15, 1,
             0, 0, n, opt, 1.0, 1.0, 1.5, 0.0, col, text, col, nosym, ssc, lw, col, lst, lw,
             col, ssc, nosym, sym);
    plend();
    if (rename(tmp, argv[2])) {
        fprintf(stderr, "energy-plot: cannot write %s\n", argv[2]);
        return 1;
    }
    printf("wrote %s (%d lines)\n", argv[2], n);
    return 0;
}
