/* The grouped CUDA loops' shared-memory stride (SL_GROUP_STRIDE(N, G),
 * internal/group.h): a warp's 64-bit shared loads are served a half-warp
 * (16 threads, 16 / G systems) at a time, from 16 banks of one double
 * each (32 of 4 bytes), and a half-warp whose distinct addresses share a
 * bank is served in as many passes as the most crowded bank holds. This
 * replays, on the host, the addresses the loops read in each way they read
 * (every thread of a system the same body; each thread its own bodies, as
 * Hermite's bodies b = g + G l and mvs's planets 1 + g + G l; each thread
 * body g + k, the pair terms at one body a thread; the masses likewise),
 * for every N and G a grouped loop can take, and asks for one pass each.
 * The odd stride used before (57 at N = 8) fails the pair loads at G = 8,
 * which ran two passes on the H200 (docs/BENCHMARKS.md, 2026-12-01). */
#include <criterion/criterion.h>

#include "starling/internal/group.h"

enum { HALF = 16, BANKS = 16 };

/* Passes a half-warp needs for these addresses (in doubles; equal
 * addresses are one broadcast). */
static int passes(const long addr[HALF])
{
    int worst = 1;
    for (int b = 0; b < BANKS; b++) {
        long seen[HALF];
        int n = 0;
        for (int t = 0; t < HALF; t++) {
            if (((addr[t] % BANKS) + BANKS) % BANKS != b)
                continue;
            int dup = 0;
            for (int k = 0; k < n; k++)
                dup |= seen[k] == addr[t];
            if (!dup)
                seen[n++] = addr[t];
        }
        worst = n > worst ? n : worst;
    }
    return worst;
}

/* The half-warp of threads 0..15 reading, thread t = G s + g, the double
 * at offset off(g) of its system s's block. */
typedef long (*offset_fn)(int g, int G, int N, int arg, int c);

static int half_warp(long stride, int G, int N, offset_fn off, int arg, int c)
{
    long addr[HALF];
    for (int t = 0; t < HALF; t++)
        addr[t] = (long)(t / G) * stride + off(t % G, G, N, arg, c);
    return passes(addr);
}

static long same_body(int g, int G, int N, int b, int c) { (void)g, (void)G, (void)N; return 3 * b + c; }
static long own_body(int g, int G, int N, int l, int c) { (void)N; return 3 * (g + G * l) + c; }
static long own_planet(int g, int G, int N, int l, int c) { (void)N; return 3 * (1 + g + G * l) + c; }
static long pair_body(int g, int G, int N, int k, int c) { (void)N; return 3 * ((g + k) % G) + c; }
static long pair_mass(int g, int G, int N, int k, int c) { (void)c; return 6 * N + (g + k) % G; }
static long same_mass(int g, int G, int N, int b, int c) { (void)g, (void)G, (void)c; return 6 * N + b; }

static void check_reads(long stride, int G, int N, offset_fn off, int lo, int hi, const char *what)
{
    for (int arg = lo; arg < hi; arg++)
        for (int c = 0; c < 3; c++) {
            int p = half_warp(stride, G, N, off, arg, c);
            cr_assert_eq(p, 1, "N = %d, G = %d, stride %ld: %s (%d, component %d) takes %d passes",
                         N, G, stride, what, arg, c, p);
        }
}

static void check_stride(long stride, int G, int N)
{
    check_reads(stride, G, N, same_body, 0, N, "every thread body");
    check_reads(stride, G, N, same_mass, 0, N, "every thread the mass of body");
    /* whole rows (a partial last row reads a subset of its addresses) */
    check_reads(stride, G, N, own_body, 0, (N + G - 1) / G, "own bodies, l =");
    check_reads(stride, G, N, own_planet, 0, (N - 1 + G - 1) / G, "own planets, l =");
    if (G == N) {
        check_reads(stride, G, N, pair_body, 1, G / 2 + 1, "pair terms, k =");
        check_reads(stride, G, N, pair_mass, 1, G / 2 + 1, "pair masses, k =");
    }
}

/* Every (N, G) the grouped loops can stamp: G a power of 2 up to 16, N up
 * to 16 (the largest unrolled body count). */
Test(group_stride, a_half_warp_reads_in_one_pass)
{
    for (int G = 2; G <= 16; G *= 2)
        for (int N = 2; N <= 16; N++) {
            const long stride = SL_GROUP_STRIDE(N, G);
            cr_assert(stride >= 7 * N, "N = %d, G = %d: stride %ld holds less than x, v, m", N, G,
                      stride);
            cr_assert(stride < 7 * N + 2 * G, "N = %d, G = %d: stride %ld pads more than it needs",
                      N, G, stride);
            check_stride(stride, G, N);
        }
}

/* The check can fail: the odd stride of before at N = 8, G = 8. */
Test(group_stride, the_odd_stride_conflicts_at_8_bodies)
{
    cr_assert_eq(half_warp(57, 8, 8, pair_body, 1, 0), 2);
    cr_assert_eq(half_warp(56, 8, 8, pair_body, 1, 0), 1);
}
