#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "starling/kepler_drift.h"
int main(int argc, char **argv)
{
    FILE *f = fopen("/work/main/tests/data/solar_system.csv", "r");
    char line[512];
    double b[9][7];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == 'b') continue;
        char *p = strchr(line, ',') + 1;
        for (int k = 0; k < 7; k++) { b[n][k] = strtod(p, &p); p++; }
        n++;
    }
    double dt = 0.021902806297056811 * 2 * M_PI * (argc > 1 ? atof(argv[1]) : 1.0);
    int tot = 0;
    for (int i = 1; i < n; i++) {
        double x[3], v[3];
        for (int d = 0; d < 3; d++) x[d] = b[i][1 + d] - b[0][1 + d], v[d] = b[i][4 + d];
        int it = 0, mx = 0, mn = 99;
        for (int s = 0; s < 2000; s++) {
            int c = sl_kepler_drift_tol(1.0, dt, 1e-6, x, v);
            it += c; if (c > mx) mx = c; if (c < mn) mn = c;
        }
        tot += it;
        printf("planet %d: mean %.3f min %d max %d  x %.17g %.17g\n", i, it / 2000.0, mn, mx, x[0], x[1]);
    }
    printf("total mean per step %.3f\n", tot / 2000.0);
}
