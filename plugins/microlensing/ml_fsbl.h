/* The finite-source binary lens of the photometric likelihood (model
 * "fsbl"), written once as SL_HD C: for a binary (s, q) held fixed, the
 * magnification of a source of radius rho centred at (y1, y2), from
 *
 *  - a magnification map around the caustics (ml_track.h's pixelated,
 *    limb-darkened source read by bilinear interpolation) when the source's
 *    disk lies inside one;
 *  - else the hexadecapole approximation (Gould 2008, ApJ 681, 1593): the
 *    point-source magnification at the centre and at 12 points on rings of
 *    radius rho and rho/2 give the ring averages' rho^2 and rho^4 terms,
 *    weighted by the source profile's moments <r^2>, <r^4>;
 *  - else, further than SL_ML_FSBL_FAR rho from every caustic's box, the
 *    point-source magnification (its error there ~ (1/SL_ML_FSBL_FAR)^2/8).
 *
 * The maps reach SL_ML_FSBL_MARGIN rho_max beyond each caustic's box, so a
 * source read by the hexadecapole is at least that far from a caustic: its
 * error there was below 5e-5 against VBMicrolensing's BinaryMag2 for
 * rho = 1e-3 and 1e-2 (s = 1.1, q = 0.01), where a map reads to ~0.2 %. */
#ifndef STARLING_ML_FSBL_H
#define STARLING_ML_FSBL_H

#include <math.h>
#include "microlensing.h"
#include "ml_binary.h"
#include "ml_track.h"

#define SL_ML_FSBL_MAPS 4 /* a binary has at most three caustics */
#ifndef SL_ML_FSBL_MARGIN
#define SL_ML_FSBL_MARGIN 10.0
#endif
/* Steps of the source grid per radius at most: a source of 100 pixels'
 * radius is read at 32 x 32 points a quadrant, not 200 x 200 (the pixels
 * average the rays already; 32 steps resolve a fold across the disk as the
 * track test's 20 do). */
#ifndef SL_ML_FSBL_STEPS_MAX
#define SL_ML_FSBL_STEPS_MAX 32
#endif
#ifndef SL_ML_FSBL_FAR
#define SL_ML_FSBL_FAR 100.0
#endif

typedef struct sl_ml_fsbl {
    double s, q;
    double l1;                         /* linear limb darkening of the source */
    double rho_min, rho_max;           /* the sources the maps were made for */
    double w2, w4;                     /* <r^2>/rho^2 and <r^4>/rho^4 over the source's light */
    int n_maps;
    sl_ml_grid2 map[SL_ML_FSBL_MAPS];  /* A in host or device memory, as the reader needs */
    int n_box;
    double box[SL_ML_FSBL_MAPS][4];    /* each caustic's x_min, x_max, y_min, y_max */
} sl_ml_fsbl;

/* Whether the disk of radius rho at (x, y) lies among map g's pixel centres,
 * with a pixel to spare (so that rounding never reads outside). */
SL_HD SL_INLINE int sl_ml_fsbl_inside(const sl_ml_grid2 *g, double x, double y, double rho)
{
    return x - rho >= g->x0 + 1.5 * g->dx && x + rho <= g->x0 + (g->nx - 1.5) * g->dx &&
           y - rho >= g->y0 + 1.5 * g->dy && y + rho <= g->y0 + (g->ny - 1.5) * g->dy;
}

/* Squared distance from (x, y) to the nearest caustic box (0 inside one). */
SL_HD SL_INLINE double sl_ml_fsbl_box_d2(const sl_ml_fsbl *f, double x, double y)
{
    double best = INFINITY;
    for (int k = 0; k < f->n_box; k++) {
        const double *b = f->box[k];
        double dx = x < b[0] ? b[0] - x : x > b[1] ? x - b[1] : 0.0;
        double dy = y < b[2] ? b[2] - y : y > b[3] ? y - b[3] : 0.0;
        double d2 = dx * dx + dy * dy;
        best = d2 < best ? d2 : best;
    }
    return best;
}

/* The ring average at radius r is A0 + a2 r^2 + a4 r^4 + ...; 4 points
 * add a cos(4 phi) term at r^4 that the + and x sets carry with opposite
 * signs, so (+ and x) / 2 at rho and + at rho/2 give a2 rho^2 and a4 rho^4;
 * the source's average is A0 + a2 rho^2 <r^2> + a4 rho^4 <r^4>. */
SL_HD SL_INLINE double sl_ml_fsbl_hexadecapole(const sl_ml_fsbl *f, double x, double y,
                                               double rho)
{
    /* ring 0: + at rho, 1: + at rho/2, 2: x at rho; 4 points each, turned
     * by 90 degrees. One call site for the 13 solves: inlined 13 times the
     * root solver overflowed the GPU's instruction cache (8x slower). */
    const double c45 = 0.70710678118654752440;
    double ring[3] = {0.0, 0.0, 0.0}, a0 = 0.0;
    for (int p = 0; p < 13; p++) {
        double u = 0.0, v = 0.0;
        int r = (p - 1) / 4, turn = (p - 1) % 4;
        if (p > 0) {
            u = r == 1 ? 0.5 * rho : r == 2 ? c45 * rho : rho;
            v = r == 2 ? u : 0.0;
            for (int k = 0; k < turn; k++) { /* (u, v) turned by 90 degrees */
                double w = u;
                u = -v, v = w;
            }
        }
        double a = sl_ml_binary_mag0(f->s, f->q, x + u, y + v, 0);
        if (p == 0)
            a0 = a;
        else
            ring[r] += 0.25 * a;
    }
    double plus = ring[0] - a0, half = ring[1] - a0, cross = ring[2] - a0;
    double a2 = (16.0 * half - plus) / 3.0;
    double a4 = 0.5 * (plus + cross) - a2;
    return a0 + a2 * f->w2 + a4 * f->w4;
}

/* The map whose pixels hold the whole source, or -1. */
SL_HD SL_INLINE int sl_ml_fsbl_map_of(const sl_ml_fsbl *f, double x, double y, double rho)
{
    for (int k = 0; k < f->n_maps; k++)
        if (sl_ml_fsbl_inside(&f->map[k], x, y, rho))
            return k;
    return -1;
}

/* Steps per radius of the source grid on map g. */
SL_HD SL_INLINE int sl_ml_fsbl_steps(const sl_ml_grid2 *g, double rho)
{
    int n = sl_ml_track_steps(g, rho);
    return n < SL_ML_FSBL_STEPS_MAX ? n : SL_ML_FSBL_STEPS_MAX;
}

/* A source outside every map: the hexadecapole, or the point source far
 * from the caustics. */
SL_HD SL_INLINE double sl_ml_fsbl_outside(const sl_ml_fsbl *f, double x, double y, double rho)
{
    double far = SL_ML_FSBL_FAR * rho;
    if (sl_ml_fsbl_box_d2(f, x, y) > far * far)
        return sl_ml_binary_mag0(f->s, f->q, x, y, 0);
    return sl_ml_fsbl_hexadecapole(f, x, y, rho);
}

SL_HD SL_INLINE double sl_ml_fsbl_mag(const sl_ml_fsbl *f, double y1, double y2, double rho)
{
    int k = sl_ml_fsbl_map_of(f, y1, y2, rho);
    if (k >= 0)
        return sl_ml_track_point_k(&f->map[k], y1, y2, rho, f->l1, 0.0,
                                   sl_ml_fsbl_steps(&f->map[k], rho));
    return sl_ml_fsbl_outside(f, y1, y2, rho);
}

/* The source's moments <x> and <x^2>, x = r^2/rho^2, for the linear law
 * I = 1 - l1 (1 - sqrt(1 - x)): with B the beta function,
 * M_n = int_0^1 x^n I dx = (1 - l1)/(n + 1) + l1 B(n + 1, 3/2), and
 * B(1, 3/2) = 2/3, B(2, 3/2) = 4/15, B(3, 3/2) = 16/105. */
SL_HD SL_INLINE void sl_ml_fsbl_moments(double l1, double *w2, double *w4)
{
    double m0 = (1.0 - l1) + l1 * (2.0 / 3.0);
    double m1 = (1.0 - l1) / 2.0 + l1 * (4.0 / 15.0);
    double m2 = (1.0 - l1) / 3.0 + l1 * (16.0 / 105.0);
    *w2 = m1 / m0;
    *w4 = m2 / m0;
}

#endif
