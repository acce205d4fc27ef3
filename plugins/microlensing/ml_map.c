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

/* The active cells of grid g (CPU), in order. */
static sl_status ml_active_cpu(const sl_ml_map_spec *m, const ml_map_grid *g, ml_active *out)
{
    int64_t cells = g->ncx * g->ncy, n = 0;
    unsigned char *flag = malloc((size_t)cells);
    if (!flag)
        return sl_fail_nomem((size_t)cells, "microlensing: map: the lens-plane cells");
    int on_edge = 0;
#pragma omp parallel for schedule(static) reduction(+ : n) reduction(| : on_edge)
    for (int64_t c = 0; c < cells; c++) {
        int64_t cy = c / g->ncx, cx = c - cy * g->ncx;
        flag[c] = (unsigned char)sl_ml_cell_active(m, g->lx0, g->ly0, g->h, cx, cy);
        n += flag[c];
        if (flag[c] && (cx == 0 || cy == 0 || cx == g->ncx - 1 || cy == g->ncy - 1))
            on_edge |= 1;
    }
    int64_t *l = malloc((size_t)(n > 0 ? n : 1) * sizeof *l);
    if (!l) {
        free(flag);
        return sl_fail_nomem((size_t)n * sizeof *l, "microlensing: map: the active cells");
    }
    int64_t k = 0;
    for (int64_t c = 0; c < cells; c++)
        if (flag[c])
            l[k++] = c;
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

sl_status sl_ml_map_run(const sl_backend *be, const sl_ml_map_spec *m, sl_ml_map *out)
{
    memset(out, 0, sizeof *out);
    sl_status st = ml_map_check(m);
    if (st)
        return st;
    size_t npix = (size_t)m->nx * (size_t)m->ny;
    int cuda = be && be->kind == SL_BACKEND_CUDA;
    if (cuda && be->mem_bytes && npix * sizeof(uint32_t) > be->mem_bytes / 2)
        return sl_fail(SL_ERR_NOMEM, "microlensing: map: %d x %d pixels need %zu MiB of GPU "
                       "memory for their counts, more than half the device's %zu MiB; maps in "
                       "tiles are not built yet: make the map smaller", m->nx, m->ny,
                       npix * sizeof(uint32_t) >> 20, be->mem_bytes >> 20);
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
        st = sl_cancelled() ? sl_fail(SL_ERR_CANCELLED, "microlensing: map: cancelled") : SL_OK;
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
