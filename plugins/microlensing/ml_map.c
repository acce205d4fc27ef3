#define _POSIX_C_SOURCE 200809L
/* Magnification maps by inverse ray shooting (host side, and the CPU
 * backend's shooting loop). The lens plane is cut into square cells of the
 * source pixels' size; a cell is active when the box around the images of
 * its corners and centre meets the source box, or when it holds a lens
 * (whose neighbourhood maps everywhere). Each active cell gets the same
 * number of rays, uniform at random in it (ml_map.h), so the density is
 * uniform where it matters; a pixel's magnification is the rays it caught
 * over the rays its area would catch unlensed. The region grows (by half
 * its size on every side) while a cell on its edge is active: every image
 * of the source box must lie inside it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ml_caustics.h"
#include "ml_internal.h"
#include "ml_map.h"
#include "starling/cancel.h"
#include "starling/nomem.h"

#define ML_MAP_SIDE_MAX 65536
#define ML_MAP_ENLARGE_MAX 8
#define ML_MAP_CELLS_MAX 4000000000LL

static double ml_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static sl_status ml_map_check(const sl_ml_map_spec *m)
{
    sl_status st = sl_ml_lenses_check(&m->lenses);
    if (st)
        return st;
    if (!isfinite(m->x0) || !isfinite(m->x1) || !(m->x0 < m->x1) || !isfinite(m->y0) ||
        !isfinite(m->y1) || !(m->y0 < m->y1))
        return sl_fail(SL_ERR_ARG, "microlensing: map: box x [%g, %g), y [%g, %g): expected "
                       "finite bounds with x0 < x1 and y0 < y1", m->x0, m->x1, m->y0, m->y1);
    if (m->nx < 1 || m->ny < 1 || m->nx > ML_MAP_SIDE_MAX || m->ny > ML_MAP_SIDE_MAX)
        return sl_fail(SL_ERR_ARG, "microlensing: map: %d x %d pixels: expected 1 to %d a side",
                       m->nx, m->ny, ML_MAP_SIDE_MAX);
    if (!(m->rays_per_pixel > 0.0) || !(m->rays_per_pixel <= 1e7))
        return sl_fail(SL_ERR_ARG, "microlensing: map: rays_per_pixel = %g: expected a number "
                       "in (0, 1e7]", m->rays_per_pixel);
    return SL_OK;
}

static sl_status ml_map_cancelled(void)
{
    return sl_fail(SL_ERR_CANCELLED, "microlensing: map: cancelled");
}

/* Cells the serial pass over the flags covers between polls of the
 * cancellation request (a few milliseconds' work). */
#define ML_MAP_POLL_CELLS (1LL << 22)

/* The active cells of grid g (CPU), in order. A large map's lens plane
 * holds up to ML_MAP_CELLS_MAX cells, whose tests take tens of seconds on
 * a few cores: every row polls the cancellation request, so that a signal
 * ends the search within a row's time. */
static sl_status ml_active_cpu(const sl_ml_map_spec *m, const ml_map_grid *g, ml_active *out)
{
    int64_t cells = g->ncx * g->ncy, n = 0;
    unsigned char *flag = malloc((size_t)cells);
    if (!flag)
        return sl_fail_nomem((size_t)cells, "microlensing: map: the lens-plane cells");
    int on_edge = 0;
#pragma omp parallel for schedule(static) reduction(+ : n) reduction(| : on_edge)
    for (int64_t cy = 0; cy < g->ncy; cy++) {
        if (sl_cancelled()) /* the rows left are skipped; checked after the loop */
            continue;
        for (int64_t cx = 0; cx < g->ncx; cx++) {
            int64_t c = cy * g->ncx + cx;
            flag[c] = (unsigned char)sl_ml_cell_active(m, g->lx0, g->ly0, g->h, cx, cy);
            n += flag[c];
            if (flag[c] && (cx == 0 || cy == 0 || cx == g->ncx - 1 || cy == g->ncy - 1))
                on_edge |= 1;
        }
    }
    if (sl_cancelled()) {
        free(flag);
        return ml_map_cancelled();
    }
    int64_t *l = malloc((size_t)(n > 0 ? n : 1) * sizeof *l);
    if (!l) {
        free(flag);
        return sl_fail_nomem((size_t)n * sizeof *l, "microlensing: map: the active cells");
    }
    int64_t k = 0;
    for (int64_t c0 = 0; c0 < cells; c0 += ML_MAP_POLL_CELLS) {
        if (sl_cancelled()) {
            free(flag);
            free(l);
            return ml_map_cancelled();
        }
        int64_t c1 = c0 + ML_MAP_POLL_CELLS < cells ? c0 + ML_MAP_POLL_CELLS : cells;
        for (int64_t c = c0; c < c1; c++)
            if (flag[c])
                l[k++] = c;
    }
    free(flag);
    out->cells = l;
    out->n = n;
    out->edge = on_edge;
    out->on_device = 0;
    return SL_OK;
}

static void ml_active_free(ml_active *a)
{
    if (a->on_device)
        sl_ml_cuda_active_free(a);
    else
        free(a->cells);
    memset(a, 0, sizeof *a);
}

static void ml_shoot_cpu(const sl_ml_map_spec *m, const ml_map_grid *g, const ml_active *a,
                         uint32_t *count)
{
    const double inv_dx = m->nx / (m->x1 - m->x0), inv_dy = m->ny / (m->y1 - m->y0);
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t i = 0; i < a->n; i++)
        if (!sl_cancelled())
            sl_ml_shoot_cell(m, g->lx0, g->ly0, g->h, g->ncx, g->rays_per_cell, a->cells[i],
                             inv_dx, inv_dy, count);
}

void sl_ml_map_free(sl_ml_map *m)
{
    free(m->A);
    free(m->count);
    memset(m, 0, sizeof *m);
}

/* One map (or one tile of a map) shot whole. */
static sl_status ml_map_one(const sl_backend *be, const sl_ml_map_spec *m, sl_ml_map *out)
{
    memset(out, 0, sizeof *out);
    sl_status st;
    size_t npix = (size_t)m->nx * (size_t)m->ny;
    int cuda = be && be->kind == SL_BACKEND_CUDA;
    const double dx = (m->x1 - m->x0) / m->nx, dy = (m->y1 - m->y0) / m->ny;
    ml_map_grid g;
    g.h = fmin(dx, dy);
    g.rays_per_cell = (int64_t)llround(m->rays_per_pixel * g.h * g.h / (dx * dy));
    if (g.rays_per_cell < 1)
        g.rays_per_cell = 1;
    /* the source box, the lenses and an Einstein radius around them */
    double b[4] = {m->x0, m->x1, m->y0, m->y1};
    for (int i = 0; i < m->lenses.n; i++) {
        b[0] = fmin(b[0], m->lenses.x[i]);
        b[1] = fmax(b[1], m->lenses.x[i]);
        b[2] = fmin(b[2], m->lenses.y[i]);
        b[3] = fmax(b[3], m->lenses.y[i]);
    }
    b[0] -= 1.0;
    b[1] += 1.0;
    b[2] -= 1.0;
    b[3] += 1.0;
    ml_active act = {0};
    for (int grow = 0;; grow++) {
        double w = b[1] - b[0], hgt = b[3] - b[2];
        g.ncx = (int64_t)ceil(w / g.h);
        g.ncy = (int64_t)ceil(hgt / g.h);
        if ((double)g.ncx * (double)g.ncy > (double)ML_MAP_CELLS_MAX)
            return sl_fail(SL_ERR_ARG, "microlensing: map: the lens plane [%g, %g] x [%g, %g] "
                           "holds %.3g cells of the pixels' size (%g): more than %lld; make "
                           "the pixels larger or the box smaller", b[0], b[1], b[2], b[3],
                           (double)g.ncx * (double)g.ncy, g.h, (long long)ML_MAP_CELLS_MAX);
        g.lx0 = b[0];
        g.ly0 = b[2];
        ml_active_free(&act);
        st = cuda ? sl_ml_cuda_active(be, m, &g, &act) : ml_active_cpu(m, &g, &act);
        if (st)
            return st;
        out->enlarged = grow;
        if (!act.edge || grow == ML_MAP_ENLARGE_MAX)
            break;
        b[0] -= 0.5 * w;
        b[1] += 0.5 * w;
        b[2] -= 0.5 * hgt;
        b[3] += 0.5 * hgt;
    }
    int64_t n_active = act.n;
    out->nx = m->nx;
    out->ny = m->ny;
    out->x0 = m->x0;
    out->x1 = m->x1;
    out->y0 = m->y0;
    out->y1 = m->y1;
    out->lens_box[0] = g.lx0;
    out->lens_box[1] = g.lx0 + g.h * (double)g.ncx;
    out->lens_box[2] = g.ly0;
    out->lens_box[3] = g.ly0 + g.h * (double)g.ncy;
    out->cell = g.h;
    out->cells = g.ncx * g.ncy;
    out->active = n_active;
    out->rays_per_cell = g.rays_per_cell;
    out->rays = (uint64_t)n_active * (uint64_t)g.rays_per_cell;
    out->count = calloc(npix, sizeof *out->count);
    out->A = malloc(npix * sizeof *out->A);
    if (!out->count || !out->A) {
        ml_active_free(&act);
        sl_ml_map_free(out);
        return sl_fail_nomem(npix * 12, "microlensing: map: the pixels");
    }
    double t0 = ml_now();
    if (cuda) {
        st = sl_ml_cuda_shoot(be, m, &g, &act, out->count, &out->seconds);
    } else {
        ml_shoot_cpu(m, &g, &act, out->count);
        out->seconds = ml_now() - t0;
        st = sl_cancelled() ? ml_map_cancelled() : SL_OK;
    }
    ml_active_free(&act);
    if (st) {
        sl_ml_map_free(out);
        return st;
    }
    /* unlensed, a pixel catches rays_per_cell / h^2 rays per unit area */
    const double norm = g.h * g.h / ((double)g.rays_per_cell * dx * dy);
    for (size_t p = 0; p < npix; p++)
        out->A[p] = out->count[p] * norm;
    return SL_OK;
}

/* Rows per tile: the spec's, else all rows when their counts fit in half
 * the device's memory, else as many as do. */
static int ml_tile_rows(const sl_backend *be, const sl_ml_map_spec *m)
{
    if (m->tile_rows > 0)
        return m->tile_rows < m->ny ? m->tile_rows : m->ny;
    int cuda = be && be->kind == SL_BACKEND_CUDA;
    size_t row = (size_t)m->nx * sizeof(uint32_t);
    if (!cuda || !be->mem_bytes || (size_t)m->ny * row <= be->mem_bytes / 2)
        return m->ny;
    size_t rows = (be->mem_bytes / 2) / row;
    return rows < 1 ? 1 : (int)rows;
}

/* Adds tile t (rows j0 ..) into the whole map out. */
static void ml_stitch(sl_ml_map *out, const sl_ml_map *t, int j0, int first)
{
    size_t off = (size_t)j0 * (size_t)out->nx, n = (size_t)t->nx * (size_t)t->ny;
    memcpy(out->count + off, t->count, n * sizeof *t->count);
    memcpy(out->A + off, t->A, n * sizeof *t->A);
    if (first) {
        memcpy(out->lens_box, t->lens_box, sizeof t->lens_box);
        out->cell = t->cell;
        out->rays_per_cell = t->rays_per_cell;
    }
    out->lens_box[0] = fmin(out->lens_box[0], t->lens_box[0]);
    out->lens_box[1] = fmax(out->lens_box[1], t->lens_box[1]);
    out->lens_box[2] = fmin(out->lens_box[2], t->lens_box[2]);
    out->lens_box[3] = fmax(out->lens_box[3], t->lens_box[3]);
    out->cells += t->cells;
    out->active += t->active;
    out->rays += t->rays;
    out->enlarged = t->enlarged > out->enlarged ? t->enlarged : out->enlarged;
    out->seconds += t->seconds;
}

/* The host memory a map's pixels need (counts and magnifications), checked
 * against the machine's before any work. */
static sl_status ml_host_memory(const sl_ml_map_spec *m)
{
    double need = (double)m->nx * (double)m->ny * (sizeof(uint32_t) + sizeof(double));
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    if (need > 0.8 * have)
        return sl_fail(SL_ERR_NOMEM, "microlensing: map: %d x %d pixels need %.1f GiB of host "
                       "memory (counts and magnifications), more than 80 %% of this machine's "
                       "%.1f GiB: make the map smaller", m->nx, m->ny, need / 1073741824.0,
                       have / 1073741824.0);
    return SL_OK;
}

sl_status sl_ml_map_run(const sl_backend *be, const sl_ml_map_spec *m, sl_ml_map *out)
{
    memset(out, 0, sizeof *out);
    sl_status st = ml_map_check(m);
    if (!st)
        st = ml_host_memory(m);
    if (st)
        return st;
    if (m->tile_rows < 0)
        return sl_fail(SL_ERR_ARG, "microlensing: map: tile_rows = %d: expected 0 (automatic) "
                       "or a number of rows > 0", m->tile_rows);
    int rows = ml_tile_rows(be, m);
    if (rows >= m->ny)
        return ml_map_one(be, m, out);
    size_t npix = (size_t)m->nx * (size_t)m->ny;
    out->count = malloc(npix * sizeof *out->count);
    out->A = malloc(npix * sizeof *out->A);
    if (!out->count || !out->A) {
        sl_ml_map_free(out);
        return sl_fail_nomem((double)npix * 12, "microlensing: map: the pixels");
    }
    out->nx = m->nx, out->ny = m->ny;
    out->x0 = m->x0, out->x1 = m->x1, out->y0 = m->y0, out->y1 = m->y1;
    const double dy = (m->y1 - m->y0) / m->ny;
    for (int j0 = 0; j0 < m->ny; j0 += rows) {
        sl_ml_map_spec t = *m;
        int j1 = j0 + rows < m->ny ? j0 + rows : m->ny;
        t.ny = j1 - j0;
        t.y0 = m->y0 + j0 * dy;
        t.y1 = j1 == m->ny ? m->y1 : m->y0 + j1 * dy;
        t.tile_rows = 0;
        /* a tile's pixels must be the map's: cells and rays per cell follow from them */
        sl_ml_map tile;
        if ((st = ml_map_one(be, &t, &tile))) {
            sl_ml_map_free(out);
            return sl_fail_context(st, "microlensing: map: the tile of rows %d to %d", j0,
                                   j1 - 1);
        }
        ml_stitch(out, &tile, j0, j0 == 0);
        sl_ml_map_free(&tile);
    }
    return SL_OK;
}
