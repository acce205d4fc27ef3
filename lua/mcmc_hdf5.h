/* A DE-MCMC result as an HDF5 file (libhdf5), for runs too large for CSV
 * and for readers such as h5py, ArviZ (through xarray) or Julia's HDF5.jl.
 *
 * Layout (row-major, as h5py shows it):
 *   /samples         float64 [kept, chains, params]  the kept draws
 *   /log_posterior   float64 [kept, chains]
 *   /log_likelihood  float64 [kept, chains]
 *   /generation      int64   [kept]   the generation each kept row is (1-based)
 *   /params          string  [params] names, in the samples' last axis order
 *   /priors          string  [params] each prior as the CSV's "# prior" lines say it
 *   /last            float64 [chains, params]  the last generation, kept or not
 *   /accepted        int64   [chains]  accepted proposals per chain
 *   /archive         float64 [rows, params]    DE-MCz's archive (when used)
 * and the configuration, the seed and the counts as attributes of "/". */
#ifndef SL_LUA_MCMC_HDF5_H
#define SL_LUA_MCMC_HDF5_H

#include <hdf5.h>

#include "starling/demcmc.h"

typedef struct sl_mcmc_h5 {
    const sl_demcmc_config *c;
    const sl_demcmc_result *r;
    int n;                     /* parameters */
    const char *const *names;
    const char *const *priors; /* one description per parameter */
    int64_t first;             /* generations run before this result's */
    const char *target;        /* what was sampled */
    int on_device;             /* the generations ran on the device */
} sl_mcmc_h5;

/* Writes the file whole or not at all (starling/output.h; flags as there). */
sl_status sl_mcmc_write_hdf5(const char *path, unsigned flags, const sl_mcmc_h5 *h);

/* The draws of a run appended to an HDF5 file as they are kept, flushed
 * after each append, so that a run killed outright leaves the draws up to
 * its last append: /samples, /log_posterior, /log_likelihood and
 * /generation as above, growing along their first axis, and /params. */
typedef struct sl_mcmc_draws {
    hid_t file, samples, logpost, loglike, gen;
    const char *path;
    int64_t rows, chains;
    int n;
} sl_mcmc_draws;

/* A new file at path (through = -1), or, resuming after generation
 * `through`, the file there with the rows of later generations dropped (a
 * new one when there is none). Its chains and parameters must be these. */
sl_status sl_mcmc_draws_open(sl_mcmc_draws *w, const char *path, int64_t chains, int n,
                             const char *const *names, int64_t through);
/* rows kept generations (rows x chains x n samples, rows x chains log
 * posteriors and log-likelihoods, their generation numbers), then a flush. */
sl_status sl_mcmc_draws_append(sl_mcmc_draws *w, const double *samples, const double *logpost,
                               const double *loglike, const int64_t *gen, int64_t rows);
sl_status sl_mcmc_draws_close(sl_mcmc_draws *w);

#endif
