/* GPU suite: starling's Philox4x32-10 computed in a device kernel equals
 * cuRAND's curand_Philox4x32_10 and curand_init(seed, subsequence = stream,
 * offset = 4 * counter) + curand4, and equals the CPU result, on the
 * known-answer vectors and on many (seed, stream, counter) triples.
 *
 * Skips when no CUDA device is usable, fails then if SL_REQUIRE_GPU=1. */
#include "gpu_rng.h"
#include "sl_test.h"

Test(gpu_rng, known_answers_on_device)
{
    SLT_REQUIRE_GPU();
    /* Random123 kat_vectors, philox4x32 10 rounds */
    const uint32_t ctr[3 * 4] = {0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
                                 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
    const uint32_t key[3 * 2] = {0, 0, 0xffffffff, 0xffffffff, 0xa4093822, 0x299f31d0};
    const uint32_t want[3 * 4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8,
                                  0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd,
                                  0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1};
    uint32_t sl[12], cu[12];
    char err[256] = "";
    cr_assert(slt_gpu_raw(3, ctr, key, sl, cu, err, sizeof err), "%s", err);
    for (int i = 0; i < 12; i++) {
        cr_assert_eq(sl[i], want[i], "starling on device, vector %d word %d: %08x vs %08x", i / 4,
                     i % 4, sl[i], want[i]);
        cr_assert_eq(cu[i], want[i], "cuRAND, vector %d word %d: %08x vs %08x", i / 4, i % 4,
                     cu[i], want[i]);
    }
}

Test(gpu_rng, matches_curand_and_cpu_on_many_keys)
{
    SLT_REQUIRE_GPU();
    enum { N = 1 << 16 };
    uint64_t *seed = malloc(N * sizeof *seed), *stream = malloc(N * sizeof *stream),
             *ctr = malloc(N * sizeof *ctr);
    uint32_t *o_sl = malloc(N * 4 * sizeof *o_sl), *o_raw = malloc(N * 4 * sizeof *o_raw),
             *o_init = malloc(N * 4 * sizeof *o_init);
    cr_assert(seed && stream && ctr && o_sl && o_raw && o_init);
    /* Keys from the generator itself, covering small, large and edge values;
     * counters below 2^62 so that offset = 4 * counter fits cuRAND's API. */
    sl_rng r;
    sl_rng_init(&r, 0x5eed, 0);
    for (int i = 0; i < N; i++) {
        sl_u32x4 b = sl_rng_block(0x5eed, 1, (uint64_t)i);
        uint64_t w0 = ((uint64_t)b.v[0] << 32) | b.v[1], w1 = ((uint64_t)b.v[2] << 32) | b.v[3];
        switch (i % 4) {
        case 0: seed[i] = w0, stream[i] = w1, ctr[i] = (w0 ^ w1) >> 2; break;
        case 1: seed[i] = (uint64_t)i, stream[i] = (uint64_t)i % 1000, ctr[i] = (uint64_t)i; break;
        case 2: seed[i] = w1, stream[i] = 0, ctr[i] = b.v[0]; break;
        default: seed[i] = ~0ull - (uint64_t)i, stream[i] = ~0ull - w0 % 7, ctr[i] = (1ull << 62) - 1 - (uint64_t)i; break;
        }
    }
    char err[256] = "";
    cr_assert(slt_gpu_blocks(N, seed, stream, ctr, o_sl, o_raw, o_init, err, sizeof err), "%s", err);
    for (int i = 0; i < N; i++) {
        sl_u32x4 host = sl_rng_block(seed[i], stream[i], ctr[i]);
        for (int w = 0; w < 4; w++) {
            cr_assert_eq(o_sl[4 * i + w], host.v[w],
                         "triple %d (seed %llx stream %llx counter %llx) word %d: device %08x, "
                         "host %08x", i, (unsigned long long)seed[i], (unsigned long long)stream[i],
                         (unsigned long long)ctr[i], w, o_sl[4 * i + w], host.v[w]);
            cr_assert_eq(o_raw[4 * i + w], host.v[w], "triple %d word %d: curand_Philox4x32_10 "
                         "%08x, starling %08x", i, w, o_raw[4 * i + w], host.v[w]);
            cr_assert_eq(o_init[4 * i + w], host.v[w],
                         "triple %d (seed %llx stream %llx counter %llx) word %d: curand_init + "
                         "curand4 %08x, starling %08x", i, (unsigned long long)seed[i],
                         (unsigned long long)stream[i], (unsigned long long)ctr[i], w,
                         o_init[4 * i + w], host.v[w]);
        }
    }
    free(seed), free(stream), free(ctr), free(o_sl), free(o_raw), free(o_init);
}

Test(gpu_rng, uniform_streams_identical_on_device_and_host)
{
    SLT_REQUIRE_GPU();
    enum { N = 4096, M = 33 };
    uint64_t stream[N];
    for (int i = 0; i < N; i++)
        stream[i] = (uint64_t)i * 2654435761u;
    double *dev = malloc(sizeof(double) * N * M);
    char err[256] = "";
    cr_assert(slt_gpu_uniform(N, M, 424242, stream, dev, err, sizeof err), "%s", err);
    for (int i = 0; i < N; i++) {
        sl_rng r;
        sl_rng_init(&r, 424242, stream[i]);
        for (int j = 0; j < M; j++) {
            double u = sl_rng_uniform(&r);
            cr_assert(slt_same_bits(u, dev[(size_t)i * M + j]), "stream %d draw %d: host %.17g, "
                      "device %.17g", i, j, u, dev[(size_t)i * M + j]);
        }
    }
    free(dev);
}
