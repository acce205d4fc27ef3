/* Counter-based random numbers: Philox4x32-10 against Random123's known
 * answers, the (seed, stream, counter) layout, uniform doubles, streams. */
#include "sl_test.h"

/* From Random123's kat_vectors (philox4x32 10 rounds): counter words,
 * key words, expected output. */
static const struct {
    uint32_t ctr[4], key[2], out[4];
} kat[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000}, {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

Test(rng, philox4x32_10_known_answers)
{
    for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
        sl_u32x4 c;
        memcpy(c.v, kat[i].ctr, sizeof c.v);
        sl_u32x4 r = sl_philox4x32_10(c, kat[i].key[0], kat[i].key[1]);
        for (int k = 0; k < 4; k++)
            cr_assert_eq(r.v[k], kat[i].out[k], "vector %zu word %d: %08x, expected %08x", i, k,
                         r.v[k], kat[i].out[k]);
    }
}

Test(rng, block_layout_is_curand_layout)
{
    /* key = seed (lo, hi); counter = (counter lo, counter hi, stream lo, stream hi) */
    const uint64_t seeds[] = {0, 1, 0x299f31d0a4093822ull, 0xffffffffffffffffull};
    const uint64_t streams[] = {0, 7, 0x0370734413198a2eull, 0xffffffffffffffffull};
    const uint64_t ctrs[] = {0, 3, 0x85a308d3243f6a88ull, 0x00000001ffffffffull};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int d = 0; d < 4; d++) {
                sl_u32x4 c = {{(uint32_t)ctrs[d], (uint32_t)(ctrs[d] >> 32), (uint32_t)streams[b],
                               (uint32_t)(streams[b] >> 32)}};
                sl_u32x4 want = sl_philox4x32_10(c, (uint32_t)seeds[a], (uint32_t)(seeds[a] >> 32));
                sl_u32x4 got = sl_rng_block(seeds[a], streams[b], ctrs[d]);
                cr_assert(memcmp(&want, &got, sizeof want) == 0);
            }
    /* the third known answer, through the (seed, stream, counter) API */
    sl_u32x4 r = sl_rng_block(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3243f6a88ull);
    cr_assert_eq(r.v[0], 0xd16cfe09u);
    cr_assert_eq(r.v[3], 0x24126ea1u);
}

Test(rng, u01_range_and_resolution)
{
    cr_assert_eq(sl_u01(0, 0), 0.0);
    double top = sl_u01(0xffffffffu, 0xffffffffu);
    cr_assert(top < 1.0);
    cr_assert_eq(top, 1.0 - 0x1p-53, "53 random bits: largest value %.17g", top);
    cr_assert_eq(sl_u01(0, 1u << 6), 0x1p-53, "lowest bit used is bit 6 of the low word");
    cr_assert_eq(sl_u01(1u << 31, 0), 0.5);
}

Test(rng, uniform_stream_statistics)
{
    sl_rng r;
    sl_rng_init(&r, 2024, 3);
    const int n = 1 << 20, nb = 64;
    int64_t hist[64] = {0};
    double sum = 0, sum2 = 0, lag = 0, prev = 0;
    for (int i = 0; i < n; i++) {
        double u = sl_rng_uniform(&r);
        cr_assert(u >= 0.0 && u < 1.0, "value %.17g outside [0, 1)", u);
        sum += u;
        sum2 += u * u;
        lag += (u - 0.5) * (prev - 0.5);
        prev = u;
        hist[(int)(u * nb)]++;
    }
    double mean = sum / n, var = sum2 / n - mean * mean;
    /* 6 sigma bounds */
    cr_assert(fabs(mean - 0.5) < 6.0 * sqrt(1.0 / 12.0 / n), "mean %.6f", mean);
    cr_assert(fabs(var - 1.0 / 12.0) < 6.0 * sqrt(1.0 / 180.0 / n), "variance %.6f", var);
    cr_assert(fabs(lag / n) < 6.0 / 12.0 / sqrt((double)n), "lag-1 covariance %.3g", lag / n);
    double chi2 = 0, expect = (double)n / nb;
    for (int b = 0; b < nb; b++)
        chi2 += (hist[b] - expect) * (hist[b] - expect) / expect;
    /* 63 degrees of freedom: mean 63, sd ~11.2; 130 is p < 1e-6 */
    cr_assert(chi2 < 130.0, "chi^2 = %.1f over %d bins", chi2, nb);
    cr_log_info("mean %.6f var %.6f chi2 %.1f", mean, var, chi2);
}

Test(rng, uniform_draws_two_per_block_in_order)
{
    sl_rng r;
    sl_rng_init(&r, 77, 5);
    for (uint64_t c = 0; c < 10; c++) {
        sl_u32x4 b = sl_rng_block(77, 5, c);
        double u0 = sl_rng_uniform(&r), u1 = sl_rng_uniform(&r);
        cr_assert_eq(u0, sl_u01(b.v[0], b.v[1]), "block %llu first draw", (unsigned long long)c);
        cr_assert_eq(u1, sl_u01(b.v[2], b.v[3]), "block %llu second draw", (unsigned long long)c);
    }
    cr_assert_eq(r.counter, 10);
}

Test(rng, streams_reproducible_and_independent)
{
    enum { N = 100000 };
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c),
           *d = malloc(N * sizeof *d);
    sl_rng ra, rb, rc, rd;
    sl_rng_init(&ra, 11, 0);
    sl_rng_init(&rb, 11, 0);
    sl_rng_init(&rc, 11, 1);  /* neighbouring stream */
    sl_rng_init(&rd, 12, 0);  /* neighbouring seed */
    for (int i = 0; i < N; i++) {
        a[i] = sl_rng_uniform(&ra);
        b[i] = sl_rng_uniform(&rb);
        c[i] = sl_rng_uniform(&rc);
        d[i] = sl_rng_uniform(&rd);
    }
    cr_assert(memcmp(a, b, N * sizeof *a) == 0, "same (seed, stream) must repeat exactly");
    int same_c = 0, same_d = 0;
    double cov_c = 0, cov_d = 0;
    for (int i = 0; i < N; i++) {
        same_c += a[i] == c[i];
        same_d += a[i] == d[i];
        cov_c += (a[i] - 0.5) * (c[i] - 0.5);
        cov_d += (a[i] - 0.5) * (d[i] - 0.5);
    }
    cr_assert_eq(same_c, 0);
    cr_assert_eq(same_d, 0);
    /* correlation coefficient ~ N(0, 1/sqrt(N)): 6 sigma */
    double rc_ = cov_c / N * 12.0, rd_ = cov_d / N * 12.0;
    cr_assert(fabs(rc_) < 6.0 / sqrt((double)N), "streams 0 and 1 correlate: %.4f", rc_);
    cr_assert(fabs(rd_) < 6.0 / sqrt((double)N), "seeds 11 and 12 correlate: %.4f", rd_);
    /* A stream is a pure function of the counter: jumping ahead works. */
    sl_rng rj;
    sl_rng_init(&rj, 11, 0);
    rj.counter = 500; /* block 500 holds draws 1000 and 1001 */
    cr_assert_eq(sl_rng_uniform(&rj), a[1000]);
    cr_assert_eq(sl_rng_uniform(&rj), a[1001]);
    free(a), free(b), free(c), free(d);
}

/* The test systems draw from stream s of the seed: same seed, same systems;
 * another seed, other phases. */
Test(rng, test_systems_are_keyed_by_seed_and_system)
{
    sl_test_system_spec sp = {.n_planets = 2, .planet_mass = 1e-3, .a1 = 1, .spacing = 0.5,
                              .perturb = 0.01, .random_phase = 1, .seed = 5};
    sl_ensemble *a, *b, *c, *big;
    SLT_OK(sl_ensemble_test_systems(&sp, 10, &a));
    SLT_OK(sl_ensemble_test_systems(&sp, 10, &b));
    SLT_OK(sl_ensemble_test_systems(&sp, 100, &big));
    sp.seed = 6;
    SLT_OK(sl_ensemble_test_systems(&sp, 10, &c));
    slt_assert_same_ensemble(a, b, "same seed");
    int differ = 0;
    for (int s = 0; s < 10; s++)
        for (int bd = 0; bd < 3; bd++)
            for (int f = 0; f < SL_NFIELD; f++) {
                /* system s does not depend on how many systems there are */
                cr_assert(slt_same_bits(sl_ensemble_get(a, s, bd, f), sl_ensemble_get(big, s, bd, f)));
                differ += sl_ensemble_get(a, s, bd, f) != sl_ensemble_get(c, s, bd, f);
            }
    cr_assert(differ > 10 * 2 * 6 - 5, "another seed changed only %d values", differ);
    sl_ensemble_destroy(a);
    sl_ensemble_destroy(b);
    sl_ensemble_destroy(c);
    sl_ensemble_destroy(big);
}
