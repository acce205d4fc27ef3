/* Timing for the benchmarks: a monotonic clock, and the median of five
 * timed calls after one untimed warm-up (device start-up and first-touch
 * costs stay out of the figure). */
#ifndef SL_BENCH_TIME_H
#define SL_BENCH_TIME_H

#include <stdlib.h>
#include <time.h>

static inline double sl_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int sl_bench_cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median seconds of 5 calls of call(arg) after a warm-up; -1 when a call
 * returns non-zero (the call reports why). */
static inline double sl_bench_median5(int (*call)(void *), void *arg)
{
    double t[5];
    for (int r = -1; r < 5; r++) {
        double t0 = sl_bench_now();
        if (call(arg))
            return -1.0;
        if (r >= 0)
            t[r] = sl_bench_now() - t0;
    }
    qsort(t, 5, sizeof t[0], sl_bench_cmpd);
    return t[2];
}

#endif
