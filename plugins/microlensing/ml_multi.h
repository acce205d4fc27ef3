/* n point lenses, point source, written once as SL_HD C: the images are
 * the roots of the degree n^2 + 1 complex polynomial the lens equation
 * becomes (Witt 1990, Rhie 2002; ten for three lenses), found as the
 * binary's are (ml_binary.h: Laguerre with deflation), each polished by
 * Newton on the lens equation itself and kept when it converges there;
 * the magnification is the sum of 1/|det J| over the images.
 *
 * With D = prod (z - z_i), the conjugated lens equation gives
 * conj(z) = N / D, N = conj(zeta) D + sum_i m_i prod_{j != i} (z - z_j);
 * with P_k = N - conj(z_k) D the images are the roots of
 *   (z - zeta) prod_k P_k - D sum_i m_i prod_{k != i} P_k,
 * which for two lenses on the real axis is sl_ml_binary_poly's.
 * Positions are in Einstein radii of the total mass and the masses are
 * fractions of it, VBMicrolensing's SetLensGeometry frame. */
#ifndef STARLING_ML_MULTI_H
#define STARLING_ML_MULTI_H

#include <math.h>
#include "microlensing.h"
#include "ml_binary.h"
#include "ml_cplx.h"

/* Lenses a point-source magnification takes: the polynomial's degree
 * n^2 + 1 grows fast, and past four lenses double precision no longer
 * separates its roots. */
#define SL_ML_MULTI_MAX 4
#define SL_ML_MULTI_DEG (SL_ML_MULTI_MAX * SL_ML_MULTI_MAX + 1)
/* Newton steps on the lens equation per root, at most: with n^2 + 1 roots
 * several start next to each lens, and the binary's four steps leave some
 * of them at 1e-9 of an image, where they would count as a second one. */
#define SL_ML_MULTI_POLISH 12

/* The lens equation's polynomial (degree n^2 + 1) into c. */
SL_HD SL_INLINE void sl_ml_multi_poly(const sl_ml_lenses *L, sl_cplx zeta, sl_cplx *c)
{
    const int n = L->n;
    sl_cplx D[SL_ML_MULTI_MAX + 1], N[SL_ML_MULTI_MAX + 1], P[SL_ML_MULTI_MAX][SL_ML_MULTI_MAX + 1];
    sl_cplx t[SL_ML_MULTI_DEG + 1], u[SL_ML_MULTI_DEG + 1];
    /* D = prod (z - z_i) */
    D[0] = sl_c(1.0, 0.0);
    int dd = 0;
    for (int i = 0; i < n; i++) {
        sl_cplx r[2] = {sl_c(-L->x[i], -L->y[i]), sl_c(1.0, 0.0)};
        sl_ml_pmul(D, dd, r, 1, t);
        dd++;
        for (int k = 0; k <= dd; k++)
            D[k] = t[k];
    }
    /* N = conj(zeta) D + sum_i m_i D / (z - z_i) */
    const sl_cplx zb = sl_cconj(zeta);
    for (int k = 0; k <= n; k++)
        N[k] = sl_cmul(zb, D[k]);
    for (int i = 0; i < n; i++) { /* D / (z - z_i) by synthetic division */
        const sl_cplx zi = sl_c(L->x[i], L->y[i]);
        sl_cplx carry = D[n];
        for (int k = n - 1; k >= 0; k--) {
            N[k] = sl_cadd(N[k], sl_cscale(L->m[i], carry));
            carry = sl_cadd(D[k], sl_cmul(carry, zi));
        }
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k <= n; k++)
            P[i][k] = sl_csub(N[k], sl_cmul(sl_c(L->x[i], -L->y[i]), D[k]));
    /* (z - zeta) prod_k P_k */
    sl_cplx prod[SL_ML_MULTI_DEG + 1];
    int dp = 0;
    prod[0] = sl_c(1.0, 0.0);
    for (int i = 0; i < n; i++) {
        sl_ml_pmul(prod, dp, P[i], n, t);
        dp += n;
        for (int k = 0; k <= dp; k++)
            prod[k] = t[k];
    }
    const sl_cplx zl[2] = {sl_cscale(-1.0, zeta), sl_c(1.0, 0.0)};
    sl_ml_pmul(prod, dp, zl, 1, c);
    /* - D sum_i m_i prod_{k != i} P_k */
    for (int i = 0; i < n; i++) {
        int de = n;
        for (int k = 0; k <= n; k++)
            u[k] = D[k];
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            sl_ml_pmul(u, de, P[j], n, t);
            de += n;
            for (int k = 0; k <= de; k++)
                u[k] = t[k];
        }
        for (int k = 0; k <= de; k++)
            c[k] = sl_csub(c[k], sl_cscale(L->m[i], u[k]));
    }
}

/* One Newton step on the lens equation of the lenses L from z:
 * dz + kappa conj(dz) = -f with f = z - sum m_i / conj(z - z_i) - zeta and
 * kappa = sum m_i / conj(z - z_i)^2; *det gets 1 - |kappa|^2 at z. */
SL_HD SL_INLINE sl_cplx sl_ml_multi_newton(const sl_ml_lenses *L, sl_cplx zeta, sl_cplx z,
                                           double *det)
{
    sl_cplx f = sl_csub(z, zeta), kap = sl_c(0.0, 0.0);
    const sl_cplx zb = sl_cconj(z);
    for (int i = 0; i < L->n; i++) {
        sl_cplx r = sl_cdiv(sl_c(1.0, 0.0), sl_csub(zb, sl_c(L->x[i], -L->y[i])));
        f = sl_csub(f, sl_cscale(L->m[i], r));
        kap = sl_cadd(kap, sl_cscale(L->m[i], sl_cmul(r, r)));
    }
    double j = 1.0 - sl_cabs2(kap);
    *det = j;
    if (j == 0.0)
        return sl_c(INFINITY, 0.0);
    return sl_cscale(1.0 / j, sl_csub(sl_cmul(kap, sl_cconj(f)), f));
}

/* Point-source magnification of 1 to SL_ML_MULTI_MAX lenses L (masses
 * summing to 1) with the source at (y1, y2); *n_images (NULL allowed)
 * gets the images found. The roots are polished (SL_ML_MULTI_POLISH steps)
 * and kept as the binary's are (SL_ML_IMAGE_TOL, SL_ML_SAME_IMAGE). */
SL_HD SL_INLINE double sl_ml_multi_mag0(const sl_ml_lenses *L, double y1, double y2,
                                        int *n_images)
{
    const int deg = L->n * L->n + 1;
    const sl_cplx zeta = sl_c(y1, y2);
    sl_cplx c[SL_ML_MULTI_DEG + 1], d[SL_ML_MULTI_DEG + 1], roots[SL_ML_MULTI_DEG];
    sl_ml_multi_poly(L, zeta, c);
    sl_ml_roots_in(c, deg, roots, d);
    double err[SL_ML_MULTI_DEG], det[SL_ML_MULTI_DEG];
    for (int k = 0; k < deg; k++) {
        sl_cplx z = roots[k], dz;
        double j;
        for (int it = 0; it < SL_ML_MULTI_POLISH; it++) {
            dz = sl_ml_multi_newton(L, zeta, z, &j);
            if (!(sl_cabs2(dz) < INFINITY))
                break;
            z = sl_cadd(z, dz);
            if (sl_cabs(dz) <= 1e-14 * (1.0 + sl_cabs(z)))
                break;
        }
        dz = sl_ml_multi_newton(L, zeta, z, &j);
        err[k] = sl_cabs(dz) / (1.0 + sl_cabs(z));
        det[k] = fabs(j);
        roots[k] = z;
    }
    int img[SL_ML_MULTI_DEG];
    const int n = sl_ml_keep_images(roots, err, deg, img);
    double a = 0.0;
    for (int i = 0; i < n; i++)
        a += 1.0 / det[img[i]];
    if (n_images)
        *n_images = n;
    return a;
}

#endif
