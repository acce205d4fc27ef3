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

#endif
