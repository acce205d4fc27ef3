#!/usr/bin/env python3
"""examples/data/ob03235.csv: the photometry of OGLE-2003-BLG-235/MOA-2003-BLG-53, the
first planet found by microlensing (Bond et al. 2004, ApJ 606, L155), as MulensModel
3.12 ships it (MulensModel/data/photometry_files/OB03235, from the NASA Exoplanet
Archive; MulensModel is MIT-licensed), in one file the photometric likelihood reads:
time (HJD - 2450000), flux, err, band. OGLE's I magnitudes become fluxes with zero
point 22 (F = 10^(0.4 (22 - I)), sigma_F = 0.4 ln 10 F sigma_I: what the likelihood
does with magnitudes); MOA's relative fluxes stay as they are (their offset is the
passband's blend flux).  Run: /tmp/mlenv/bin/python tests/reference/ob03235_data.py"""
import os

import MulensModel
import numpy as np

SRC = os.path.join(os.path.dirname(MulensModel.__file__), "data", "photometry_files", "OB03235")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "data",
                   "ob03235.csv")


def ipac(path):
    rows = [l.split() for l in open(path) if l.strip() and l[0] not in "\\|"]
    return np.array(rows, dtype=float)


ogle = ipac(os.path.join(SRC, "OB03235_OGLE.tbl.txt"))
moa = ipac(os.path.join(SRC, "OB03235_MOA.tbl.txt"))
rows = []
for t, m, e in ogle:
    f = 10 ** (0.4 * (22.0 - m))
    rows.append((t - 2450000.0, f, 0.4 * np.log(10.0) * f * e, "OGLE_I"))
for t, f, e in moa:
    rows.append((t - 2450000.0, f, e, "MOA_R"))
rows.sort(key=lambda r: r[0])
with open(OUT, "w") as out:
    out.write("# OGLE-2003-BLG-235/MOA-2003-BLG-53 (Bond et al. 2004, ApJ 606, L155): OGLE I and\n"
              "# MOA photometry from the NASA Exoplanet Archive as shipped by MulensModel %s (MIT\n"
              "# licence), made by tests/reference/ob03235_data.py. time = HJD - 2450000; OGLE's\n"
              "# magnitudes as fluxes with zero point 22, MOA's relative fluxes as published.\n"
              % MulensModel.__version__)
    out.write("time,flux,err,band\n")
    for r in rows:
        out.write("%.6f,%.6g,%.6g,%s\n" % r)
print("%s: %d rows (OGLE %d, MOA %d)" % (OUT, len(rows), len(ogle), len(moa)))
