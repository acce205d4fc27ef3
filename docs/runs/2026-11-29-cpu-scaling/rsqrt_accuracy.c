#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <stdlib.h>
static inline double rs(double x) {
    uint64_t i; memcpy(&i, &x, 8);
    i = 0x5fe6eb50c7b537a9ull - (i >> 1);
    double y; memcpy(&y, &i, 8);
    const double hx = 0.5 * x;
    for (int k = 0; k < 3; k++) y = y * (1.5 - hx * y * y); y = y + y * (0.5 - hx * y * y);
    return y;
}
int main(void) {
    srand(1); double worst = 0, worst2 = 0; long n = 20000000; double mean=0, mean2=0;
    for (long k = 0; k < n; k++) {
        double x = ldexp(0.5 + rand() / (double)RAND_MAX, (rand() % 200) - 100);
        long double ref = 1.0L / sqrtl((long double)x);
        double a = rs(x), b = 1.0 / sqrt(x);
        double ulp = nextafter((double)ref, INFINITY) - (double)ref;
        double ea = fabsl(a - ref) / ulp, eb = fabsl(b - ref) / ulp;
        if (ea > worst) worst = ea; if (eb > worst2) worst2 = eb; mean += ea; mean2 += eb;
    }
    printf("NR4 worst %.3f ulp mean %.3f ; 1/sqrt worst %.3f mean %.3f\n", worst, mean/n, worst2, mean2/n);
}
