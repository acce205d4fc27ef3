/* CPU backend of the Lomb-Scargle direct sum.
 *
 * Work is cut into tiles of up to LS_B consecutive frequencies of one
 * object, shared among OpenMP threads dynamically, so that one long series
 * and many short ones in the same batch all keep the cores busy. Within a
 * tile the trigonometry is done once per point: cos/sin at the tile's first
 * frequency and at the grid step, then each further frequency is one complex
 * rotation, (c + is) <- (c + is)(cd + i sd). The rotation's error grows by
 * about one rounding per step (< 1e-14 after 64 steps in FP64), far below
 * the 1e-9 agreement asked of FP64; the loops over points vectorise. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ls_internal.h"
#include "starling/cancel.h"
#include "starling/nomem.h"

enum { LS_J = 256 };     /* points per chunk (stays in L1) */
#define LS_B_D 64        /* frequencies per tile, FP64 */
#define LS_B_F 32        /* FP32: float rotations drift faster */

double sl_ls_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct tile {
    int64_t obj, k0;
    int nb;
} tile;

/* Sums for frequencies k0 .. k0 + nb - 1 of object o, one body for both
 * precisions: REAL is the type of the weights, trigonometry and sums
 * (FP32 reduces the phases in double first, as the GPU does), W and WY the
 * job's weight arrays of that type, SINCOS2PI the matching sincos. */
#define LS_TILE_SUMS(NAME, REAL, B, W, WY, SINCOS2PI)                                      \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))          \
    static void NAME(const sl_ls_job *j, const sl_ls_obj *o, int64_t k0, int nb,           \
                     sl_ls_sums *out)                                                      \
    {                                                                                      \
        REAL acc[7][B];                                                                    \
        memset(acc, 0, sizeof acc);                                                        \
        REAL c[LS_J], s[LS_J], cd[LS_J], sd[LS_J];                                         \
        const double f = o->f0 + (double)k0 * o->df;                                       \
        for (int64_t j0 = 0; j0 < o->n; j0 += LS_J) {                                      \
            int nj = o->n - j0 < LS_J ? (int)(o->n - j0) : LS_J;                           \
            const double *t = j->t + o->first + j0;                                        \
            const REAL *w = j->W + o->first + j0, *wy = j->WY + o->first + j0;             \
            for (int i = 0; i < nj; i++) {                                                 \
                SINCOS2PI((REAL)sl_ls_cycles(f, t[i]), &s[i], &c[i]);                      \
                SINCOS2PI((REAL)sl_ls_cycles(o->df, t[i]), &sd[i], &cd[i]);                \
            }                                                                              \
            for (int m = 0; m < nb; m++) {                                                 \
                REAL C = 0, S = 0, YC = 0, YS = 0, CC = 0, SS = 0, CS = 0;                 \
                _Pragma("omp simd reduction(+ : C, S, YC, YS, CC, SS, CS)")                \
                for (int i = 0; i < nj; i++) {                                             \
                    REAL ci = c[i], si = s[i], wc = w[i] * ci, ws = w[i] * si;             \
                    C += wc;                                                               \
                    S += ws;                                                               \
                    YC += wy[i] * ci;                                                      \
                    YS += wy[i] * si;                                                      \
                    CC += wc * ci;                                                         \
                    SS += ws * si;                                                         \
                    CS += wc * si;                                                         \
                    c[i] = ci * cd[i] - si * sd[i];                                        \
                    s[i] = si * cd[i] + ci * sd[i];                                        \
                }                                                                          \
                acc[0][m] += C, acc[1][m] += S, acc[2][m] += YC, acc[3][m] += YS;          \
                acc[4][m] += CC, acc[5][m] += SS, acc[6][m] += CS;                         \
            }                                                                              \
        }                                                                                  \
        for (int m = 0; m < nb; m++)                                                       \
            out[m] = (sl_ls_sums){acc[0][m], acc[1][m], acc[2][m], acc[3][m],              \
                                  acc[4][m], acc[5][m], acc[6][m]};                        \
    }

LS_TILE_SUMS(tile_sums_d, double, LS_B_D, w, wy, sl_ls_sincos2pi)
LS_TILE_SUMS(tile_sums_f, float, LS_B_F, wf, wyf, sl_ls_sincos2pif)

static sl_status make_tiles(const sl_ls_job *j, int b, tile **out, int64_t *n_out)
{
    int64_t n = 0;
    for (int64_t i = 0; i < j->n_obj; i++)
        if (!j->obj[i].flag && !j->obj[i].fast)
            n += (j->obj[i].n_f + b - 1) / b;
    tile *tl = malloc((size_t)(n ? n : 1) * sizeof *tl);
    if (!tl)
        return sl_fail_nomem((double)n * sizeof *tl, "lombscargle: %lld work tiles", (long long)n);
    int64_t at = 0;
    for (int64_t i = 0; i < j->n_obj; i++) {
        if (j->obj[i].flag || j->obj[i].fast)
            continue;
        for (int64_t k = 0; k < j->obj[i].n_f; k += b)
            tl[at++] = (tile){i, k, (int)(j->obj[i].n_f - k < b ? j->obj[i].n_f - k : b)};
    }
    *out = tl;
    *n_out = n;
    return SL_OK;
}

sl_status sl_ls_cpu_run(sl_ls_job *j)
{
    const int b = j->fp32 ? LS_B_F : LS_B_D;
    tile *tl;
    int64_t nt;
    sl_status st = make_tiles(j, b, &tl, &nt);
    if (st)
        return st;
    /* per-tile best, reduced per object afterwards (tiles of an object are
     * contiguous and in frequency order) */
    double *tp = malloc((size_t)(nt ? nt : 1) * sizeof *tp);
    int64_t *tk = malloc((size_t)(nt ? nt : 1) * sizeof *tk);
    if (!tp || !tk) {
        free(tl), free(tp), free(tk);
        return sl_fail_nomem((double)nt * (sizeof *tp + sizeof *tk),
                             "lombscargle: maxima of %lld work tiles", (long long)nt);
    }
    double t0 = sl_ls_now();
#pragma omp parallel for schedule(dynamic, 4)
    for (int64_t i = 0; i < nt; i++) {
        if (sl_cancelled()) /* skip the rest; checked after the loop */
            continue;
        const sl_ls_obj *o = &j->obj[tl[i].obj];
        sl_ls_sums sums[LS_B_D];
        if (j->fp32)
            tile_sums_f(j, o, tl[i].k0, tl[i].nb, sums);
        else
            tile_sums_d(j, o, tl[i].k0, tl[i].nb, sums);
        double bp = NAN;
        int64_t bk = -1;
        for (int m = 0; m < tl[i].nb; m++) {
            double p = sl_ls_power(&sums[m], o, j->generalised, j->norm);
            int64_t k = tl[i].k0 + m;
            sl_ls_put(j, o, k, p);
            if (sl_ls_better(p, k, bp, bk))
                bp = p, bk = k;
        }
        tp[i] = bp;
        tk[i] = bk;
    }
    j->kernel_s = sl_ls_now() - t0;
    if ((st = sl_cancel_check("lombscargle"))) {
        free(tl), free(tp), free(tk);
        return st;
    }
    for (int64_t i = 0; i < j->n_obj; i++)
        if (!j->obj[i].fast)
            j->best_p[i] = NAN, j->best_k[i] = -1;
    for (int64_t i = 0; i < nt; i++) {
        int64_t o = tl[i].obj;
        if (tk[i] >= 0 && sl_ls_better(tp[i], tk[i], j->best_p[o], j->best_k[o]))
            j->best_p[o] = tp[i], j->best_k[o] = tk[i];
    }
    free(tl), free(tp), free(tk);
    return SL_OK;
}
