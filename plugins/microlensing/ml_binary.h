/* Binary lens, point source, written once as SL_HD C: the images are the
 * roots of the fifth-degree complex polynomial the lens equation becomes
 * (Witt 1990), found by Laguerre's method with deflation and polished on
 * the undeflated polynomial (the strategy of Skowron & Gould 2012); roots
 * that do not satisfy the lens equation are rejected, and the magnification
 * is the sum of 1/|det J| over the images.
 *
 * Frame (docs/microlensing.md): lengths in Einstein radii of the total
 * mass, origin at the centre of mass, lens 1 (mass fraction 1/(1+q)) at
 * x = -s q/(1+q), lens 2 (mass fraction q/(1+q)) at x = s/(1+q). */
#ifndef STARLING_ML_BINARY_H
#define STARLING_ML_BINARY_H

#include <math.h>
#include "ml_cplx.h"
#include "starling/hd.h"

#define SL_ML_DEG 5
#define SL_ML_LAGUERRE_MAXIT 100
/* Newton steps on the lens equation that polish each root, at most. */
#define SL_ML_POLISH_MAX 4
/* A polished root is an image when the next Newton step would move it by
 * less than this, relative to 1 + |z|: real images sit at ~1e-16, false
 * roots at ~1e-3 or more. */
#define SL_ML_IMAGE_TOL 1e-9
/* Two images closer than this (relative to 1 + |z|) are one. */
#define SL_ML_SAME_IMAGE 1e-9

/* a(z) and its first two derivatives by Horner's scheme (a[k]: z^k). */
SL_HD SL_INLINE void sl_ml_horner(const sl_cplx *a, int n, sl_cplx z, sl_cplx *p, sl_cplx *d1,
                                  sl_cplx *d2)
{
    sl_cplx f = a[n], g = sl_c(0.0, 0.0), h = sl_c(0.0, 0.0);
    for (int k = n - 1; k >= 0; k--) {
        h = sl_cadd(sl_cmul(h, z), g);
        g = sl_cadd(sl_cmul(g, z), f);
        f = sl_cadd(sl_cmul(f, z), a[k]);
    }
    *p = f;
    *d1 = g;
    *d2 = sl_cscale(2.0, h);
}

/* One root of the degree-n polynomial a, by Laguerre's method from z. A
 * fractional step every tenth iteration breaks the rare limit cycle. */
SL_HD SL_INLINE sl_cplx sl_ml_laguerre(const sl_cplx *a, int n, sl_cplx z, int maxit)
{
    const double frac[8] = {0.5, 0.25, 0.75, 0.13, 0.38, 0.62, 0.88, 1.0};
    for (int it = 1; it <= maxit; it++) {
        sl_cplx p, d1, d2;
        sl_ml_horner(a, n, z, &p, &d1, &d2);
        if (sl_cabs2(p) == 0.0)
            return z;
        sl_cplx g = sl_cdiv(d1, p);
        sl_cplx g2 = sl_cmul(g, g);
        sl_cplx h = sl_csub(g2, sl_cdiv(d2, p));
        sl_cplx sq = sl_csqrt(sl_cscale((double)(n - 1), sl_csub(sl_cscale((double)n, h), g2)));
        sl_cplx gp = sl_cadd(g, sq), gm = sl_csub(g, sq);
        sl_cplx den = sl_cabs2(gp) >= sl_cabs2(gm) ? gp : gm;
        sl_cplx dz = sl_cabs2(den) > 0.0 ? sl_cdiv(sl_c((double)n, 0.0), den)
                                         : sl_c(1.0 + sl_cabs(z), 0.0); /* p' = p'' = 0: move */
        sl_cplx z1 = sl_csub(z, it % 10 ? dz : sl_cscale(frac[(it / 10) % 8], dz));
        if (z1.re == z.re && z1.im == z.im)
            return z;
        z = z1;
        if (sl_cabs2(dz) <= 1e-20 * sl_cabs2(z)) /* |dz| <= 1e-10 |z|: the polish does the rest */
            return z;
    }
    return z;
}

/* All n >= 2 roots of a, with d (n + 1 values) for the deflated
 * polynomial: Laguerre on the deflated polynomial down to degree 2, whose
 * roots are taken in closed form. The roots are not polished on a: the
 * callers polish the images on the lens equation itself, which
 * deflation's rounding does not reach, and a false root only needs to
 * stay false. */
SL_HD SL_INLINE void sl_ml_roots_in(const sl_cplx *a, int n, sl_cplx *roots, sl_cplx *d)
{
    for (int k = 0; k <= n; k++)
        d[k] = a[k];
    for (int m = n; m >= 3; m--) {
        sl_cplx z = sl_ml_laguerre(d, m, sl_c(0.0, 0.0), SL_ML_LAGUERRE_MAXIT);
        roots[m - 1] = z;
        sl_cplx carry = d[m];
        for (int k = m - 1; k >= 0; k--) { /* synthetic division by (x - z) */
            sl_cplx t = d[k];
            d[k] = carry;
            carry = sl_cadd(t, sl_cmul(carry, z));
        }
    }
    /* d2 x^2 + d1 x + d0: q = -(d1 + sign d1 sqrt(d1^2 - 4 d2 d0))/2, roots q/d2
     * and d0/q, the form without cancellation */
    sl_cplx disc = sl_csqrt(sl_csub(sl_cmul(d[1], d[1]), sl_cscale(4.0, sl_cmul(d[2], d[0]))));
    if (d[1].re * disc.re + d[1].im * disc.im < 0.0)
        disc = sl_cscale(-1.0, disc);
    sl_cplx q = sl_cscale(-0.5, sl_cadd(d[1], disc));
    roots[1] = sl_cdiv(q, d[2]);
    roots[0] = sl_cabs2(q) > 0.0 ? sl_cdiv(d[0], q) : roots[1];
}

/* The binary's n <= SL_ML_DEG roots (sl_ml_roots_in). */
SL_HD SL_INLINE void sl_ml_roots(const sl_cplx *a, int n, sl_cplx *roots)
{
    sl_cplx d[SL_ML_DEG + 1];
    sl_ml_roots_in(a, n, roots, d);
}

/* out = a * b, degrees na and nb. */
SL_HD SL_INLINE void sl_ml_pmul(const sl_cplx *a, int na, const sl_cplx *b, int nb, sl_cplx *out)
{
    for (int k = 0; k <= na + nb; k++)
        out[k] = sl_c(0.0, 0.0);
    for (int i = 0; i <= na; i++)
        for (int j = 0; j <= nb; j++)
            out[i + j] = sl_cadd(out[i + j], sl_cmul(a[i], b[j]));
}

/* The lens equation's polynomial for lenses at real z1, z2 with masses m1,
 * m2 and the source at zeta. With D = (z - z1)(z - z2) and conj(z) from the
 * conjugated lens equation, N/D = conj(zeta) + m1/(z - z1) + m2/(z - z2),
 * P_i = N - z_i D, the images are the roots of
 * (z - zeta) P1 P2 - m1 D P2 - m2 D P1 (Witt 1990). */
SL_HD SL_INLINE void sl_ml_binary_poly(double z1, double z2, double m1, double m2, sl_cplx zeta,
                                       sl_cplx *c)
{
    sl_cplx zb = sl_cconj(zeta);
    sl_cplx D[3] = {sl_c(z1 * z2, 0.0), sl_c(-(z1 + z2), 0.0), sl_c(1.0, 0.0)};
    sl_cplx N[3] = {sl_c(zb.re * z1 * z2 - m1 * z2 - m2 * z1, zb.im * z1 * z2),
                    sl_c(-zb.re * (z1 + z2) + m1 + m2, -zb.im * (z1 + z2)), zb};
    sl_cplx P1[3], P2[3], A[5], B[5], C[5], Z[2] = {sl_cscale(-1.0, zeta), sl_c(1.0, 0.0)};
    for (int k = 0; k < 3; k++) {
        P1[k] = sl_csub(N[k], sl_cscale(z1, D[k]));
        P2[k] = sl_csub(N[k], sl_cscale(z2, D[k]));
    }
    sl_ml_pmul(P1, 2, P2, 2, A);
    sl_ml_pmul(D, 2, P2, 2, B);
    sl_ml_pmul(D, 2, P1, 2, C);
    sl_ml_pmul(Z, 1, A, 4, c);
    for (int k = 0; k <= 4; k++)
        c[k] = sl_csub(c[k], sl_cadd(sl_cscale(m1, B[k]), sl_cscale(m2, C[k])));
}

/* kappa = d zeta / d conj(z) = m1/(conj z - z1)^2 + m2/(conj z - z2)^2, and
 * the lens equation's residual zeta(z) - zeta. */
SL_HD SL_INLINE sl_cplx sl_ml_lens_map(double z1, double z2, double m1, double m2, sl_cplx z,
                                       sl_cplx *kappa)
{
    sl_cplx zb = sl_cconj(z);
    sl_cplx r1 = sl_cdiv(sl_c(1.0, 0.0), sl_csub(zb, sl_c(z1, 0.0)));
    sl_cplx r2 = sl_cdiv(sl_c(1.0, 0.0), sl_csub(zb, sl_c(z2, 0.0)));
    *kappa = sl_cadd(sl_cscale(m1, sl_cmul(r1, r1)), sl_cscale(m2, sl_cmul(r2, r2)));
    return sl_csub(z, sl_cadd(sl_cscale(m1, r1), sl_cscale(m2, r2)));
}

/* One Newton step on the lens equation from z, dz + kappa conj(dz) = -f;
 * returns dz and the Jacobian determinant 1 - |kappa|^2 at z in *det. */
SL_HD SL_INLINE sl_cplx sl_ml_newton(double z1, double z2, double m1, double m2, sl_cplx zeta,
                                     sl_cplx z, double *det)
{
    sl_cplx kap;
    sl_cplx f = sl_csub(sl_ml_lens_map(z1, z2, m1, m2, z, &kap), zeta);
    double j = 1.0 - sl_cabs2(kap);
    *det = j;
    if (j == 0.0)
        return sl_c(INFINITY, 0.0);
    return sl_cscale(1.0 / j, sl_csub(sl_cmul(kap, sl_cconj(f)), f));
}

/* The images among deg polished roots with their convergence err (the
 * Newton step left, relative to 1 + |z|): the converged roots, each
 * position once (a false root that Newton carried onto a real image, or a
 * pair of roots the polynomial could not separate next to a lens, counts
 * once, as its better converged copy). Their indices into img; returns
 * how many. */
SL_HD SL_INLINE int sl_ml_keep_images(const sl_cplx *roots, const double *err, int deg, int *img)
{
    int n = 0;
    for (int k = 0; k < deg; k++) {
        if (!(err[k] < SL_ML_IMAGE_TOL))
            continue;
        int dup = -1;
        for (int i = 0; i < n; i++)
            if (sl_cabs(sl_csub(roots[k], roots[img[i]])) <=
                SL_ML_SAME_IMAGE * (1.0 + sl_cabs(roots[k])))
                dup = i;
        if (dup < 0)
            img[n++] = k;
        else if (err[k] < err[img[dup]])
            img[dup] = k;
    }
    return n;
}

/* The images of source point zeta behind lenses at real z1, z2 with masses
 * m1, m2: their positions z and |det J| there, 3 or 5 of them (returned). */
SL_HD SL_INLINE int sl_ml_binary_images(double z1, double z2, double m1, double m2, sl_cplx zeta,
                                        sl_cplx *z_out, double *det_out)
{
    sl_cplx c[SL_ML_DEG + 1], roots[SL_ML_DEG];
    sl_ml_binary_poly(z1, z2, m1, m2, zeta, c);
    sl_ml_roots(c, SL_ML_DEG, roots);
    /* Each root is polished by Newton on the lens equation itself: a real
     * image converges from the deflated polynomial's ~1e-10 to rounding in
     * a step or two, a false root does not. What is left of the next step,
     * relative to the position, says which is which; it is measured in the
     * image plane, not as the lens equation's residual, which is huge next
     * to a lens for an image that is exact (the map is steep there). */
    double err[SL_ML_DEG], det[SL_ML_DEG];
    for (int k = 0; k < SL_ML_DEG; k++) {
        sl_cplx z = roots[k], dz;
        double j;
        for (int it = 0; it < SL_ML_POLISH_MAX; it++) {
            dz = sl_ml_newton(z1, z2, m1, m2, zeta, z, &j);
            if (!(sl_cabs2(dz) < INFINITY))
                break;
            z = sl_cadd(z, dz);
            if (sl_cabs(dz) <= 1e-14 * (1.0 + sl_cabs(z)))
                break;
        }
        dz = sl_ml_newton(z1, z2, m1, m2, zeta, z, &j);
        err[k] = sl_cabs(dz) / (1.0 + sl_cabs(z));
        det[k] = fabs(j);
        roots[k] = z;
    }
    /* Three or five images: four means a false root also converged, so
     * the least converged goes. */
    int img[SL_ML_DEG];
    int n = sl_ml_keep_images(roots, err, SL_ML_DEG, img);
    if (n == 4) {
        int worst = 0;
        for (int i = 1; i < 4; i++)
            if (err[img[i]] > err[img[worst]])
                worst = i;
        img[worst] = img[3];
        n = 3;
    }
    for (int i = 0; i < n; i++)
        z_out[i] = roots[img[i]], det_out[i] = det[img[i]];
    return n;
}

/* Point-source magnification of the binary lens (s, q) for the source at
 * (y1, y2); *n_images gets 3 or 5. */
SL_HD SL_INLINE double sl_ml_binary_mag0(double s, double q, double y1, double y2,
                                         int *n_images)
{
    double m1 = 1.0 / (1.0 + q), m2 = q / (1.0 + q);
    double z1 = -s * m2, z2 = s * m1;
    sl_cplx z[SL_ML_DEG];
    double det[SL_ML_DEG];
    const int n = sl_ml_binary_images(z1, z2, m1, m2, sl_c(y1, y2), z, det);
    double a = 0.0;
    for (int i = 0; i < n; i++)
        a += 1.0 / det[i];
    if (n_images)
        *n_images = n;
    return a;
}

#endif
