#include "starling/copy.h"

#include <stdint.h>
#include <string.h>

void sl_copy_parallel(void *dst, const void *src, size_t bytes)
{
    enum { PIECE = 1 << 20 };
    int64_t n = (int64_t)((bytes + PIECE - 1) / PIECE);
#pragma omp parallel for schedule(static) if (n > 1)
    for (int64_t i = 0; i < n; i++) {
        size_t a = (size_t)i * PIECE, len = bytes - a < PIECE ? bytes - a : PIECE;
        memcpy((char *)dst + a, (const char *)src + a, len);
    }
}
