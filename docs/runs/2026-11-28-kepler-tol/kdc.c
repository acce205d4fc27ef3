#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "starling/kepler_drift.h"
int main(void)
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
    double dt = 0.021902806297056811 * 2 * M_PI;
    for (int i = 1; i < n; i++) {
        double x[3], v[3];
        for (int d = 0; d < 3; d++) x[d] = b[i][1 + d] - b[0][1 + d], v[d] = b[i][4 + d];
        int t0[3], t1[3];
        for (int s = 0; s < 200; s++) {
            double xa[3], va[3], xb[3], vb[3];
            memcpy(xa, x, sizeof x), memcpy(va, v, sizeof v), memcpy(xb, x, sizeof x), memcpy(vb, v, sizeof v);
            int a = sl_kepler_drift_tol(1.0, dt, 0.0, xa, va), c = sl_kepler_drift_tol(1.0, dt, 1e-6, xb, vb);
            if (s < 3) t0[s] = a, t1[s] = c;
            memcpy(x, xa, sizeof x), memcpy(v, va, sizeof v);
        }
        printf("planet %d: iterations tight %d %d %d, early %d %d %d\n", i, t0[0], t0[1], t0[2], t1[0], t1[1], t1[2]);
    }
}
