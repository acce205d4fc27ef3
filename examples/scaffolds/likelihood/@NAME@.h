/* @NAME@: a sinusoid plus a linear trend,
 *
 *     y(t) = A sin(2 pi (t - t_ref) / P + phi) + c0 + c1 (t - t_ref),
 *
 * with a Gaussian log-likelihood whose variance per point is err^2 + s^2
 * (s the jitter, exp(log_jitter)):
 *
 *     ln L = -1/2 sum_k [ r_k^2 / w_k + ln(2 pi w_k) ],  r_k = y_k - y(t_k),
 *                                                         w_k = err_k^2 + s^2.
 *
 * The parameter vector of one model is P, A, phi, c0, c1, log_jitter (phi
 * is the phase at t_ref). A vector outside the domain (P <= 0, A < 0, a
 * value that is not finite) gets ln L = -inf, not an error, so that a
 * sampler may propose freely.
 *
 * This header is shared by the CPU code (@NAME@.c) and the CUDA code
 * (@NAME@_cuda.cu): the SL_HD functions below are the one definition of the
 * model, compiled by both, so the two backends compute the same sums in the
 * same order. */
#ifndef @NAME_UPPER@_H
#define @NAME_UPPER@_H

#include <math.h>
#include <stddef.h>
#include <starling/hd.h>
#include <starling/status.h>
#include <starling/version.h> /* SL_HAVE_CUDA (set by starling_add_likelihood) */

SL_EXTERN_C_BEGIN

enum { @NAME_UPPER@_NPAR = 6 }; /* P, A, phi, c0, c1, log_jitter */

/* What prepare makes from the options and the data. Evaluations read the
 * observations; the device buffers and the kernel time are this context's
 * own, so that distinct contexts may be evaluated from different threads
 * (the contract of <starling/likelihood.h>). */
typedef struct @NAME@_ctx {
    size_t n;            /* observations */
    double t_ref;
    double *dt, *y, *var; /* t - t_ref, y, err^2 */
    double lo[@NAME_UPPER@_NPAR], hi[@NAME_UPPER@_NPAR]; /* bounds for free_params */
    void *cuda;          /* device buffers, owned by @NAME@_cuda.cu */
    double kernel_s;     /* device time of the last evaluation (0 on the CPU) */
} @NAME@_ctx;

/* One model's parameters, unpacked once per model. */
typedef struct @NAME@_model {
    double omega, A, phi, c0, c1, jit2; /* omega = 2 pi / P, jit2 = s^2 */
} @NAME@_model;

/* 0 when p is outside the domain. */
SL_HD SL_INLINE int @NAME@_unpack(const double *p, @NAME@_model *m)
{
    int ok = 1;
    for (int i = 0; i < @NAME_UPPER@_NPAR; i++)
        ok &= isfinite(p[i]) != 0;
    ok &= p[0] > 0.0 && p[1] >= 0.0;
    m->omega = ok ? 2.0 * M_PI / p[0] : 0.0;
    ok &= isfinite(m->omega) != 0; /* P so small that 2 pi / P overflows */
    m->A = p[1], m->phi = p[2], m->c0 = p[3], m->c1 = p[4];
    m->jit2 = ok ? exp(2.0 * p[5]) : 0.0;
    return ok;
}

SL_HD SL_INLINE double @NAME@_at(const @NAME@_model *m, double dt)
{
    return m->A * sin(m->omega * dt + m->phi) + m->c0 + m->c1 * dt;
}

/* ln L of parameter vector p against n observations, and chi^2 (sum of
 * r^2 / w) into *chi2: one sum over the points in their order, the same on
 * the CPU and on the GPU. */
SL_HD SL_INLINE double @NAME@_loglik(const double *p, size_t n, const double *dt,
                                      const double *y, const double *var, double *chi2)
{
    @NAME@_model m;
    if (!@NAME@_unpack(p, &m)) {
        *chi2 = INFINITY;
        return -INFINITY;
    }
    double x2 = 0.0, lnw = 0.0;
    for (size_t k = 0; k < n; k++) {
        double r = y[k] - @NAME@_at(&m, dt[k]), w = var[k] + m.jit2;
        x2 += r * r / w;
        lnw += log(2.0 * M_PI * w);
    }
    /* extreme vectors (a trend that overflows) end as -inf, never NaN */
    double ll = -0.5 * (x2 + lnw);
    *chi2 = isnan(ll) ? INFINITY : x2;
    return isnan(ll) ? -INFINITY : ll;
}

#if SL_HAVE_CUDA
/* @NAME@_cuda.cu: n log-likelihoods (and chi^2 when chi2 is not NULL) on the
 * current CUDA device; the observations are uploaded on first use. */
sl_status @NAME@_cuda_eval(@NAME@_ctx *c, const double *params, size_t n, double *loglik,
                            double *chi2);
void @NAME@_cuda_release(@NAME@_ctx *c);
#endif

SL_EXTERN_C_END

#endif
