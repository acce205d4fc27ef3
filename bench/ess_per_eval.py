#!/usr/bin/env python3
"""Effective draws per likelihood evaluation: starling's DE-MCMC (plain,
DE-MCz, DE-MCz with the snooker) against emcee's DEMove and StretchMove,
on the targets of tests/test_demcmc.c, with the same chains (walkers), the
same number of evaluations, the same start (draws of the uniform prior
box) and the same burn-in (the first half).

Targets: correlated Gaussians (d = 2, 10, 30; zero mean, covariance
s_i s_j 0.8^|i-j|, s_i = i) and the banana ln p = -(1-x)^2/2 - 5 (y-x^2)^2.
The smallest bulk and tail ESS over the parameters are ArviZ's
(arviz.ess on the kept draws of every run alike), so the figure is the
same quantity for both codes. The per-evaluation figure does not depend
on the machine; the CPU seconds are printed for information only.

  python3 bench/ess_per_eval.py STARLING_EXECUTABLE [--evals 400000] [--seeds 3]

Needs numpy, emcee and arviz (pip). starling runs the same targets written
in Lua (CPU backend).
"""
import argparse
import os
import subprocess
import tempfile
import time

import arviz as az
import emcee
import numpy as np


def gauss(d):
    s = np.arange(1, d + 1, dtype=float)
    i = np.arange(d)
    cov = np.outer(s, s) * 0.8 ** np.abs(i[:, None] - i[None, :])
    prec = np.linalg.inv(cov)
    return lambda x: -0.5 * np.einsum("...i,ij,...j->...", x, prec, x), prec


TARGETS = {
    "gauss2": (2, 16, 200.0),
    "gauss10": (10, 30, 200.0),
    "gauss30": (30, 90, 200.0),
    "banana": (2, 16, None),
}


def lua_target(name, d, half, prec):
    if name == "banana":
        body = "return -0.5 * (1 - p[1])^2 - 5 * (p[2] - p[1]^2)^2"
        priors = "x1 = {'uniform', -20, 20}, x2 = {'uniform', -20, 400}"
    else:
        rows = []
        for i in range(d):
            terms = " + ".join("%.17g * p[%d]" % (prec[i, j], j + 1)
                               for j in range(d) if abs(prec[i, j]) > 1e-300)
            rows.append("q = q + p[%d] * (%s)" % (i + 1, terms))
        body = "local q = 0\n" + "\n".join(rows) + "\nreturn -0.5 * q"
        priors = ", ".join("x%d = {'uniform', %g, %g}" % (i + 1, -half, half) for i in range(d))
    names = ", ".join("'x%d'" % (i + 1) for i in range(d))
    return body, priors, names


def starling_run(exe, name, d, chains, gens, seed, variant, half, prec, tmp):
    body, priors, names = lua_target(name, d, half, prec)
    opts = {"de": "", "dez": "archive = true,", "dez_snooker": "archive = true, snooker = 0.1,"}[variant]
    out = os.path.join(tmp, "draws.csv")
    script = os.path.join(tmp, "run.lua")
    with open(script, "w") as f:
        f.write("""local starling = require "starling"
local function f(p)
%s
end
local r = starling.demcmc{ likelihood = f, params = {%s}, priors = {%s},
  chains = %d, generations = %d, burn = %d, seed = %d, %s }
r:save('%s')
print(r:info().evaluations)
""" % (body, names, priors, chains, gens, gens // 2, seed, opts, out))
    t = time.time()
    p = subprocess.run([exe, "run", script], capture_output=True, text=True, check=True)
    wall = time.time() - t
    evals = int(float(p.stdout.split()[-1]))
    rows = [l for l in open(out) if not l.startswith("#")]
    a = np.loadtxt(rows[1:], delimiter=",")
    x = a[:, 2:2 + d].reshape(-1, chains, d).transpose(1, 0, 2)  # chain, draw, param
    return x, evals, wall


def emcee_run(name, d, chains, gens, seed, move, loglike, lo, hi):
    """emcee starts as starling does: from draws of the uniform prior box,
    which its log-probability applies."""
    rng = np.random.default_rng(seed)
    p0 = rng.uniform(lo, hi, size=(chains, d))

    def logpost(x):
        inside = np.all((x >= lo) & (x <= hi), axis=-1)
        return np.where(inside, loglike(x), -np.inf)

    mv = emcee.moves.DEMove() if move == "DEMove" else emcee.moves.StretchMove()
    s = emcee.EnsembleSampler(chains, d, logpost, moves=mv, vectorize=True)
    s._random = np.random.mtrand.RandomState(seed)
    t = time.time()
    s.run_mcmc(p0, gens, progress=False)
    wall = time.time() - t
    x = s.get_chain()[gens // 2:].transpose(1, 0, 2)
    return x, chains * gens, wall


def ess(x):
    ds = az.convert_to_dataset(x)
    b = az.ess(ds, method="bulk")["x"].values
    t = az.ess(ds, method="tail")["x"].values
    return float(np.min(b)), float(np.min(t))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("starling")
    ap.add_argument("--evals", type=int, default=400000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--targets", default="gauss2,gauss10,gauss30,banana")
    a = ap.parse_args()
    print("| target | d | chains | sampler | evaluations | min bulk ESS | min tail ESS | "
          "bulk ESS per 1000 evaluations | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.targets.split(","):
            d, chains, half = TARGETS[name]
            if name == "banana":
                logp = lambda x: -0.5 * (1 - x[..., 0]) ** 2 - 5 * (x[..., 1] - x[..., 0] ** 2) ** 2
                prec = None
                lo, hi = np.array([-20.0, -20.0]), np.array([20.0, 400.0])
            else:
                logp, prec = gauss(d)
                lo, hi = np.full(d, -half), np.full(d, half)
            gens = a.evals // chains
            runs = [("starling DE-MC", "de"), ("starling DE-MCz", "dez"),
                    ("starling DE-MCz + snooker", "dez_snooker"),
                    ("emcee DEMove", "DEMove"), ("emcee StretchMove", "StretchMove")]
            for label, kind in runs:
                bulk, tail, ev, wall = [], [], [], []
                for seed in range(1, a.seeds + 1):
                    if label.startswith("starling"):
                        x, e, w = starling_run(a.starling, name, d, chains, gens, seed, kind,
                                               half, prec, tmp)
                    else:
                        x, e, w = emcee_run(name, d, chains, gens, seed, kind, logp, lo, hi)
                    b, t = ess(x)
                    bulk.append(b), tail.append(t), ev.append(e), wall.append(w)
                print("| %s | %d | %d | %s | %d | %.0f | %.0f | %.2f | %.1f |" % (
                    name, d, chains, label, np.mean(ev), np.mean(bulk), np.mean(tail),
                    1000 * np.mean(bulk) / np.mean(ev), np.mean(wall)), flush=True)


if __name__ == "__main__":
    main()
