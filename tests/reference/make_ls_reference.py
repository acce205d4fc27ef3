#!/usr/bin/env python3
"""Reference periodograms for tests/test_lombscargle.c, made with astropy.

Writes small files under tests/data/ (run from the repository root):
  ls_single.csv        one light curve: t,y,dy (200 points, periodic + noise)
  ls_single_ref.csv    f, then power for method x normalisation
                       (std_standard .. gen_psd), astropy method='cython',
                       autofrequency(samples_per_peak=5, nyquist_factor=2)
  ls_single_fap.csv    per method/normalisation: best frequency, best power,
                       Baluev FAP of the best power (astropy), and the FAP of
                       3 fixed power levels
  ls_nody_ref.csv      the same light curve without dy, explicit grid
                       f = 0.05 + k * 0.002, k < 600, generalised + standard,
                       normalisation 'standard'
  ls_batch.csv         id,t,y,dy for 6 objects of different lengths
  ls_batch_ref.csv     id, best frequency and best power (generalised,
                       standard normalisation, autofrequency 5/5) per object

Generated with: python 3.11.7, numpy 2.4.6, astropy 8.0.2, scipy 1.17.1 (pip). The 'slow'
method is checked against 'cython' here (same formula) before writing.
"""
import numpy as np
from astropy.timeseries import LombScargle

rng = np.random.default_rng(20240604)
METHODS = [("std", False), ("gen", True)]
NORMS = ["standard", "model", "log", "psd"]


def light_curve(n, span, period, amp, noise, offset=10.0):
    t = np.sort(rng.uniform(0.0, span, n))
    dy = noise * (0.5 + rng.uniform(size=n))
    y = offset + amp * np.sin(2 * np.pi * t / period + 0.3) + dy * rng.normal(size=n)
    return t, y, dy


def write(path, header, cols, fmt="%.17g"):
    with open(path, "w") as f:
        f.write(header + "\n")
        for row in zip(*cols):
            f.write(",".join(x if isinstance(x, str) else fmt % x for x in row) + "\n")


t, y, dy = light_curve(200, 100.0, 2.7, 0.8, 0.5)
write("tests/data/ls_single.csv", "t,y,dy", [t, y, dy])
ls0 = LombScargle(t, y, dy)
freq = ls0.autofrequency(samples_per_peak=5, nyquist_factor=2)
cols, names, faps = [freq], ["f"], []
for mname, fit_mean in METHODS:
    for norm in NORMS:
        ls = LombScargle(t, y, dy, fit_mean=fit_mean, center_data=True, normalization=norm)
        p = ls.power(freq, method="cython")
        p_slow = ls.power(freq, method="slow")
        assert np.allclose(p, p_slow, rtol=1e-10, atol=0), (mname, norm)
        cols.append(p)
        names.append(f"{mname}_{norm}")
        k = int(np.argmax(p))
        levels = np.quantile(p, [0.5, 0.9, 0.999])
        fap = ls.false_alarm_probability(
            np.concatenate([[p[k]], levels]), method="baluev",
            samples_per_peak=5, nyquist_factor=2)
        faps.append([f"{mname}_{norm}", freq[k], p[k], *fap, *levels])
write("tests/data/ls_single_ref.csv", ",".join(names), cols)
with open("tests/data/ls_single_fap.csv", "w") as f:
    f.write("case,best_f,best_p,fap_best,fap_q50,fap_q90,fap_q999,q50,q90,q999\n")
    for row in faps:
        f.write(row[0] + "," + ",".join("%.17g" % x for x in row[1:]) + "\n")

f_ex = 0.05 + 0.002 * np.arange(600)
pn = [LombScargle(t, y, fit_mean=fm, center_data=True).power(f_ex, method="cython")
      for _, fm in METHODS]
write("tests/data/ls_nody_ref.csv", "f,std_standard,gen_standard", [f_ex, *pn])

ids, rows_t, rows_y, rows_dy, best = [], [], [], [], []
for i, (n, span, period) in enumerate([(40, 30.0, 1.3), (150, 200.0, 7.1), (12, 20.0, 0.9),
                                       (300, 60.0, 0.37), (25, 10.0, 3.3), (80, 400.0, 45.0)]):
    tb, yb, dyb = light_curve(n, span, period, 1.0, 0.3)
    name = f"obj{i:02d}"
    ids += [name] * n
    rows_t.append(tb), rows_y.append(yb), rows_dy.append(dyb)
    ls = LombScargle(tb, yb, dyb)
    fb = ls.autofrequency(samples_per_peak=5, nyquist_factor=5)
    pb = ls.power(fb, method="cython")
    k = int(np.argmax(pb))
    best.append((name, fb[k], pb[k], len(fb)))
# interleave two objects' rows to check grouping by id
order = np.arange(sum(len(a) for a in rows_t))
tt, yy, ee = (np.concatenate(rows_t), np.concatenate(rows_y), np.concatenate(rows_dy))
order[:52] = np.ravel(np.column_stack([np.arange(26), 40 + np.arange(26)]))
order[52:40 + 26] = np.arange(26, 40)
write("tests/data/ls_batch.csv", "id,t,y,dy",
      [[ids[i] for i in order], tt[order], yy[order], ee[order]])
with open("tests/data/ls_batch_ref.csv", "w") as f:
    f.write("id,best_f,best_p,n_f\n")
    for name, fb, pb, nf in best:
        f.write(f"{name},{fb:.17g},{pb:.17g},{nf}\n")
