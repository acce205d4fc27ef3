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
 * An odd stride (57 at N = 8) fails the pair loads at G = 8, which then
 * take two passes on the H200. */
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

/* The exchange block of the pair terms (SL_GROUP_XROW): a propagator with
 * and one without the jerk, a force with pair terms. */
#define SL_PROP_tjerk_JERK 1
#define SL_PROP_tjerk_PERTURB 0
#define SL_PROP_tpull_JERK 0
#define SL_PROP_tpull_PERTURB 0
#define SL_FORCE_tpair_PAIR 1

static int g_nt, g_xrow, g_base;
static long exchange_write(int g, int G, int N, int k, int c)
{
    (void)N;
    return g_base + g_xrow * ((g + k) % G) + g_nt * (k - 1) + c;
}
static long exchange_read(int g, int G, int N, int k, int c)
{
    (void)G, (void)N;
    return g_base + g_xrow * g + g_nt * (k - 1) + c;
}

static void check_pair_loop(long stride, int G, int nt, int xrow)
{
    const int N = G;
    cr_assert_eq(xrow % 2, 1, "G = %d: exchange rows of even length %d", G, xrow);
    cr_assert(xrow >= nt * (G / 2 - 1), "G = %d: exchange rows of %d hold less than %d terms",
              G, xrow, nt * (G / 2 - 1));
    cr_assert(stride >= SL_GROUP_STRIDE(N, G) + (long)G * xrow,
              "G = %d: stride %ld holds less than the points and the exchange", G, stride);
    cr_assert_eq(stride % (2 * G), SL_GROUP_STRIDE(N, G) % (2 * G),
                 "G = %d: the exchange moves the stride off G mod 2G", G);
    check_stride(stride, G, N);
    g_nt = nt, g_xrow = xrow, g_base = (int)SL_GROUP_STRIDE(N, G);
    check_reads(stride, G, N, exchange_write, 1, G / 2, "exchange writes, k =");
    check_reads(stride, G, N, exchange_read, 1, G / 2, "exchange reads, k =");
}

/* Where each thread owns one body of a force with pair terms, a system's
 * block also holds the exchange, and every read above and the exchange's
 * stores and loads still take one pass. */
Test(group_stride, the_pair_exchange_reads_in_one_pass)
{
    for (int G = 2; G <= 8; G *= 2) {
        cr_assert(SL_GROUP_XCHG(G), "G = %d: no exchange", G);
        check_pair_loop(SL_GROUP_LOOP_STRIDE(tjerk, tpair, G, G), G, 6, SL_GROUP_XROW(tjerk, G));
        check_pair_loop(SL_GROUP_LOOP_STRIDE(tpull, tpair, G, G), G, 3, SL_GROUP_XROW(tpull, G));
    }
    /* a force without pair terms, more bodies than threads, or 16 threads
     * (shuffles): no exchange */
    cr_assert_eq(SL_GROUP_LOOP_STRIDE(tjerk, tnone, 8, 8), SL_GROUP_STRIDE(8, 8));
    cr_assert_eq(SL_GROUP_LOOP_STRIDE(tjerk, tpair, 9, 8), SL_GROUP_STRIDE(9, 8));
    cr_assert_eq(SL_GROUP_LOOP_STRIDE(tjerk, tpair, 16, 16), SL_GROUP_STRIDE(16, 16));
}

/* The check can fail: rows of even length (18 terms at N = 8) put the
 * half-warp's two systems' writers on the same banks. */
Test(group_stride, even_exchange_rows_conflict)
{
    g_nt = 6, g_xrow = 18, g_base = 56;
    cr_assert_eq(half_warp(56 + 8 * 18, 8, 8, exchange_write, 1, 0), 2);
    g_xrow = 19;
    cr_assert_eq(half_warp(56 + 8 * 19 + 8, 8, 8, exchange_write, 1, 0), 1);
}

/* The check can fail: the odd stride of before at N = 8, G = 8. */
Test(group_stride, the_odd_stride_conflicts_at_8_bodies)
{
    cr_assert_eq(half_warp(57, 8, 8, pair_body, 1, 0), 2);
    cr_assert_eq(half_warp(56, 8, 8, pair_body, 1, 0), 1);
}
