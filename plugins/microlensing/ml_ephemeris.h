/* A satellite's ephemeris for satellite parallax: the observer's position
 * seen from the Earth's centre, as a table the user gives (JPL Horizons'
 * geocentric RA, Dec and distance, e.g.), read once and interpolated at
 * each of that observer's epochs. Each passband named in the table's band
 * column is observed from its own rows; a table without one serves the
 * data's only passband.
 *
 * Between rows each Cartesian coordinate (ICRS, AU) is the cubic through
 * the four nearest rows (two either side where there are), which for a
 * daily table of a heliocentric orbit is good to ~1e-8 AU. An epoch
 * outside a band's rows is an error: the table must cover the data. */
#ifndef STARLING_ML_EPHEMERIS_H
#define STARLING_ML_EPHEMERIS_H

#include <stddef.h>
#include "starling/data.h"
#include "starling/status.h"

SL_EXTERN_C_BEGIN

#define SL_ML_EPHEMERIS_MAX 16

/* One observer's rows, by time. */
typedef struct sl_ml_ephemeris_track {
    char band[32];        /* the passband it serves ("" : the only one) */
    size_t n;
    double *t;            /* Julian dates (TDB), increasing */
    double *x, *y, *z;    /* geocentric ICRS position, AU */
} sl_ml_ephemeris_track;

typedef struct sl_ml_ephemeris {
    char *source;         /* the table's name, for messages */
    int n_track;
    sl_ml_ephemeris_track track[SL_ML_EPHEMERIS_MAX];
} sl_ml_ephemeris;

/* Reads the table d (columns time, ra, dec in degrees, distance in AU,
 * band optional); an error names the row and the value. */
sl_status sl_ml_ephemeris_read(const sl_data *d, sl_ml_ephemeris *out);
void sl_ml_ephemeris_free(sl_ml_ephemeris *e);

/* The track serving passband `band` (its name), or -1. */
int sl_ml_ephemeris_find(const sl_ml_ephemeris *e, const char *band);

/* The observer's position at Julian date jd from track k; an error names
 * `what` (the epoch) and the track's span when jd is outside it. */
sl_status sl_ml_ephemeris_at(const sl_ml_ephemeris *e, int k, double jd, const char *what,
                             double xyz[3]);

SL_EXTERN_C_END

#endif
