#!/usr/bin/env python3
"""Reference data for tests/test_kepler_rv.c, made with RadVel.

Writes tests/data/rv_ref_data.txt (a synthetic two-instrument RV data set)
and tests/data/rv_ref_models.txt (parameter vectors in kepler_rv's layout,
RadVel's model velocities at the data times and RadVel's log-likelihood).

Run:  python3 -m venv /tmp/rvenv && /tmp/rvenv/bin/pip install numpy radvel
      /tmp/rvenv/bin/python tests/reference/make_rv_reference.py
Made with radvel 1.6.7, numpy 2.4.6, Python 3 (versions are written into the
files' headers too).

kepler_rv layout per model: 5 values per planet in the basis, then
gamma_<inst> for each instrument, jit_<inst> for each, then dvdt, curv.
Bases: 0 = P K e w M0 (M0 mean anomaly at the epoch), 1 = lnP lnK secosw
sesinw tp, 2 = lnP lnK secosw sesinw tc. RadVel is driven through its own
'per tp e w k' (bases 0, 1) and 'logper tc secosw sesinw logk' (basis 2)."""
import os
import sys

import numpy as np
import radvel
from radvel.likelihood import RVLikelihood, CompositeLikelihood

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
VERSIONS = "radvel %s, numpy %s, python %s" % (radvel.__version__, np.__version__,
                                                sys.version.split()[0])

rng = np.random.default_rng(20240603)
insts = ["HIRES", "APF"]
n_obs = 80
t = np.sort(2458000.0 + rng.uniform(0.0, 1500.0, n_obs))
t = np.round(t, 5)
inst = np.where(rng.uniform(size=n_obs) < 0.6, 0, 1)
err = np.round(rng.uniform(1.0, 4.0, n_obs), 3)
# truth: two planets, offsets, a trend
truth = radvel.Parameters(2, basis="per tp e w k")
for k, v in dict(per1=41.3, tp1=2458010.0, e1=0.25, w1=1.1, k1=18.0,
                 per2=403.0, tp2=2458200.0, e2=0.4, w2=-2.0, k2=35.0).items():
    truth[k] = radvel.Parameter(value=v)
truth["dvdt"] = radvel.Parameter(value=0.003)
truth["curv"] = radvel.Parameter(value=-2e-6)
epoch = 2458700.0
model = radvel.RVModel(truth, time_base=epoch)
v = model(t) + np.where(inst == 0, -3.2, 7.5) + rng.normal(0, 1, n_obs) * np.hypot(err, 2.0)
v = np.round(v, 4)

with open(os.path.join(DATA, "rv_ref_data.txt"), "w") as f:
    f.write("# Synthetic RV data for kepler_rv's RadVel comparison (tests/reference/"
            "make_rv_reference.py; %s)\n" % VERSIONS)
    f.write("time velocity error instrument\n")
    for i in range(n_obs):
        f.write("%.5f %.4f %.3f %s\n" % (t[i], v[i], err[i], insts[inst[i]]))

# read back what was written, so both sides use identical numbers
tab = np.loadtxt(os.path.join(DATA, "rv_ref_data.txt"), comments="#", skiprows=2,
                 dtype=str)
t = tab[:, 0].astype(float)
v = tab[:, 1].astype(float)
err = tab[:, 2].astype(float)
names = tab[:, 3]


def radvel_case(n_pl, per, tp, e, w, k, gam, jit, dvdt, curv, basis2=None):
    """RadVel's model (Keplerians + trend) at t and its log-likelihood."""
    if basis2 is None:
        p = radvel.Parameters(n_pl, basis="per tp e w k")
        for j in range(n_pl):
            s = str(j + 1)
            p["per" + s] = radvel.Parameter(value=per[j])
            p["tp" + s] = radvel.Parameter(value=tp[j])
            p["e" + s] = radvel.Parameter(value=e[j])
            p["w" + s] = radvel.Parameter(value=w[j])
            p["k" + s] = radvel.Parameter(value=k[j])
    else:
        p = radvel.Parameters(n_pl, basis="logper tc secosw sesinw logk")
        for j in range(n_pl):
            s = str(j + 1)
            lp, lk, sc, ss, tc = basis2[j]
            p["logper" + s] = radvel.Parameter(value=lp)
            p["tc" + s] = radvel.Parameter(value=tc)
            p["secosw" + s] = radvel.Parameter(value=sc)
            p["sesinw" + s] = radvel.Parameter(value=ss)
            p["logk" + s] = radvel.Parameter(value=lk)
    p["dvdt"] = radvel.Parameter(value=dvdt)
    p["curv"] = radvel.Parameter(value=curv)
    mod = radvel.RVModel(p, time_base=epoch)
    likes = []
    for i, nm in enumerate(insts):
        sel = names == nm
        like = RVLikelihood(mod, t[sel], v[sel], err[sel], suffix="_" + nm)
        like.params["gamma_" + nm] = radvel.Parameter(value=gam[i])
        like.params["jit_" + nm] = radvel.Parameter(value=jit[i])
        likes.append(like)
    # RadVel reads values through each likelihood's vector: sync it with the
    # Parameters just set (without this, gamma and jit would stay 0)
    for like in likes:
        like.vector.dict_to_vector()
    comp = CompositeLikelihood(likes)
    comp.vector.dict_to_vector()
    vel = mod(t)
    assert abs(comp.logprob() - sum(like.logprob() for like in likes)) < 1e-9
    # chi^2 with jitter, from RadVel's residuals and error bars
    chi2 = 0.0
    for like in likes:
        chi2 += np.sum(like.residuals() ** 2 / like.errorbars() ** 2)
    return vel, comp.logprob(), chi2


cases = []
r = np.random.default_rng(7)
for c in range(12):
    basis = c % 3
    n_pl = 1 + c % 2 + (c >= 6)
    trend = c % 3 if c >= 3 else 0
    per = 10 ** r.uniform(0.3, 3.0, n_pl)
    k = 10 ** r.uniform(0.0, 2.0, n_pl)
    e = r.uniform(0.0, 0.8, n_pl) if c != 0 else np.zeros(n_pl)
    w = r.uniform(-np.pi, np.pi, n_pl)
    gam = r.normal(0, 10, 2)
    jit = r.uniform(0, 5, 2)
    dvdt = r.normal(0, 0.01) if trend >= 1 else 0.0
    curv = r.normal(0, 1e-5) if trend >= 2 else 0.0
    vec = []
    if basis == 0:
        # tp first (exactly representable), then M0 from it in long double:
        # going the other way would round tp to ~5e-10 d at t ~ 2.5e6 d
        tp = np.round(epoch - per * r.uniform(0, 1, n_pl), 6)
        m0 = np.array([float(np.longdouble(2) * np.longdouble(np.pi) *
                             (np.longdouble(epoch) - np.longdouble(tp[j])) /
                             np.longdouble(per[j])) for j in range(n_pl)])
        for j in range(n_pl):
            vec += [per[j], k[j], e[j], w[j], m0[j]]
        vel, ll, chi2 = radvel_case(n_pl, per, tp, e, w, k, gam, jit, dvdt, curv)
    elif basis == 1:
        tp = epoch + r.uniform(-1000, 1000, n_pl)
        for j in range(n_pl):
            se = np.sqrt(e[j])
            vec += [np.log(per[j]), np.log(k[j]), se * np.cos(w[j]), se * np.sin(w[j]), tp[j]]
        # RadVel gets e and w from the same sqrt(e) cos w, sqrt(e) sin w
        e2 = np.array([vec[5 * j + 2] ** 2 + vec[5 * j + 3] ** 2 for j in range(n_pl)])
        w2 = np.array([np.arctan2(vec[5 * j + 3], vec[5 * j + 2]) for j in range(n_pl)])
        vel, ll, chi2 = radvel_case(n_pl, np.exp([vec[5 * j] for j in range(n_pl)]), tp, e2, w2,
                                    np.exp([vec[5 * j + 1] for j in range(n_pl)]), gam, jit,
                                    dvdt, curv)
    else:
        tc = epoch + r.uniform(-1000, 1000, n_pl)
        b2 = []
        for j in range(n_pl):
            se = np.sqrt(e[j])
            row = [np.log(per[j]), np.log(k[j]), se * np.cos(w[j]), se * np.sin(w[j]), tc[j]]
            vec += row
            b2.append(row)
        vel, ll, chi2 = radvel_case(n_pl, None, None, None, None, None, gam, jit, dvdt, curv,
                                    basis2=b2)
    vec += list(gam) + list(jit)
    if trend >= 1:
        vec.append(dvdt)
    if trend >= 2:
        vec.append(curv)
    cases.append((basis, n_pl, trend, vec, ll, chi2, vel))

with open(os.path.join(DATA, "rv_ref_models.txt"), "w") as f:
    f.write("# RadVel reference for kepler_rv (tests/reference/make_rv_reference.py; %s)\n"
            % VERSIONS)
    f.write("# data: rv_ref_data.txt; epoch %.17g; per case: a line 'case basis planets "
            "trend n_par', a line of parameters, 'loglik chi2', then the model velocities "
            "(Keplerians + trend, no offset) at the data times in file order\n" % epoch)
    f.write("epoch %.17g\n" % epoch)
    f.write("instruments %s\n" % " ".join(insts))  # order of gamma_*, jit_* below
    for basis, n_pl, trend, vec, ll, chi2, vel in cases:
        f.write("case %d %d %d %d\n" % (basis, n_pl, trend, len(vec)))
        f.write(" ".join("%.17g" % x for x in vec) + "\n")
        f.write("%.17g %.17g\n" % (ll, chi2))
        f.write(" ".join("%.17g" % x for x in vel) + "\n")
print("wrote", len(cases), "cases;", VERSIONS)
