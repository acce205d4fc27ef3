/* Counter-based random numbers: Philox4x32-10 (Salmon et al. 2011), the
 * generator behind cuRAND's CURAND_RNG_PSEUDO_PHILOX4_32_10. Written once as
 * SL_HD so the CPU and the GPU draw identical streams keyed by
 * (seed, stream, counter); the GPU test checks it against cuRAND's own
 * curand_Philox4x32_10 on the same keys and counters. */
#ifndef STARLING_RNG_H
#define STARLING_RNG_H

#include <stdint.h>
#include "starling/hd.h"

typedef struct sl_u32x4 { uint32_t v[4]; } sl_u32x4;

SL_HD SL_INLINE void sl_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    *lo = (uint32_t)p;
}

/* One Philox4x32-10 block: 10 rounds on counter c under key k. */
SL_HD SL_INLINE sl_u32x4 sl_philox4x32_10(sl_u32x4 c, uint32_t k0, uint32_t k1)
{
    const uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
    const uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    for (int r = 0; r < 10; r++) {
        uint32_t hi0, lo0, hi1, lo1;
        sl_mulhilo32(M0, c.v[0], &hi0, &lo0);
        sl_mulhilo32(M1, c.v[2], &hi1, &lo1);
        sl_u32x4 n;
        n.v[0] = hi1 ^ c.v[1] ^ k0;
        n.v[1] = lo1;
        n.v[2] = hi0 ^ c.v[3] ^ k1;
        n.v[3] = lo0;
        c = n;
        k0 += W0;
        k1 += W1;
    }
    return c;
}

/* The block for (seed, stream, counter): key = seed, counter words =
 * (counter lo, counter hi, stream lo, stream hi). This is cuRAND's layout
 * for curand_init(seed, subsequence = stream, offset = 4 * counter). */
SL_HD SL_INLINE sl_u32x4 sl_rng_block(uint64_t seed, uint64_t stream, uint64_t counter)
{
    sl_u32x4 c;
    c.v[0] = (uint32_t)counter;
    c.v[1] = (uint32_t)(counter >> 32);
    c.v[2] = (uint32_t)stream;
    c.v[3] = (uint32_t)(stream >> 32);
    return sl_philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* Uniform double in [0, 1) from two 32-bit words (53 random bits). */
SL_HD SL_INLINE double sl_u01(uint32_t hi, uint32_t lo)
{
    uint64_t b = ((uint64_t)(hi >> 5) << 26) | (uint64_t)(lo >> 6);
    return (double)b * (1.0 / 9007199254740992.0);
}

/* A sequential stream for host-side generators: (seed, stream) fixed,
 * counter advancing; two doubles per block. */
typedef struct sl_rng {
    uint64_t seed, stream, counter;
    sl_u32x4 buf;
    int have; /* doubles left in buf: 0, 1 or 2 */
} sl_rng;

SL_HD SL_INLINE void sl_rng_init(sl_rng *r, uint64_t seed, uint64_t stream)
{
    r->seed = seed;
    r->stream = stream;
    r->counter = 0;
    r->have = 0;
}

SL_HD SL_INLINE double sl_rng_uniform(sl_rng *r)
{
    if (r->have == 0) {
        r->buf = sl_rng_block(r->seed, r->stream, r->counter++);
        r->have = 2;
    }
    r->have--;
    return r->have ? sl_u01(r->buf.v[0], r->buf.v[1]) : sl_u01(r->buf.v[2], r->buf.v[3]);
}

#endif
