#!/usr/bin/env python3
"""The peer of bench/demcmc_nbody.lua: emcee over an N-body RV likelihood
written with REBOUND, the pipeline users write by hand today, on the same
posterior (examples/data/gj876_like_rv.csv, the same priors, jitter fixed
at 2 m/s). The likelihood is bench/nbody_rv_rebound.py's (WHFast in Jacobi
coordinates without a corrector, step P_1 / 100, from the same Jacobi
elements through every observation time); emcee's walkers are evaluated in
parallel over P processes (emcee's pool), started in a small ball about the
truth (emcee's advice). Prints the wall time, the evaluations, the smallest
bulk ESS (bench/emcee_rv.py's, ArviZ's method) and the seconds per 1000
effective draws.

  python3 bench/emcee_nbody.py [--walkers 64] [--steps 2000] [--procs 16]
"""
import argparse
import math
import multiprocessing as mp
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emcee_rv import ess_bulk  # noqa: E402
import nbody_rv_rebound as nb  # noqa: E402

TWO_PI = 2 * math.pi
BOX = [(29.9, 30.4), (60, 120), (0, 0.5), (0, TWO_PI), (0, TWO_PI),
       (60.8, 61.4), (180, 240), (0, 0.2), (0, TWO_PI), (0, TWO_PI), (-20, 20)]
ANGLES = [3, 4, 8, 9]
TRUTH = [30.126, 88.34, 0.2531, 0.8, 2.1, 61.082, 212.07, 0.0354, 0.4, 5.4, 0.0]
EPOCH = 2455000.0
JIT = 2.0
HERE = os.path.dirname(os.path.abspath(__file__))
T = V = E = None


def load():
    t, v, e = [], [], []
    with open(os.path.join(HERE, "..", "examples", "data", "gj876_like_rv.csv")) as f:
        for line in f:
            if line[0] in "#t":
                continue
            a, b, c = line.split(",")
            t.append(float(a) - EPOCH), v.append(float(b)), e.append(float(c))
    return t, v, e


def logp(p):
    p = list(p)
    for k in ANGLES:
        p[k] %= TWO_PI
    if not all(lo <= x <= hi for x, (lo, hi) in zip(p, BOX)):
        return -np.inf
    model = nb.rv_model(p[:10], T)
    if model is None:
        return -np.inf
    ll = 0.0
    for k in range(len(T)):
        var = E[k] * E[k] + JIT * JIT
        r = V[k] - model[k] - p[10]
        ll += -0.5 * (r * r / var + math.log(TWO_PI * var))
    return ll if math.isfinite(ll) else -np.inf


def init():
    global T, V, E
    T, V, E = load()


def main():
    import emcee
    ap = argparse.ArgumentParser()
    ap.add_argument("--walkers", type=int, default=64)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--procs", type=int, default=mp.cpu_count())
    a = ap.parse_args()
    init()
    rng = np.random.default_rng(1)
    width = np.array([hi - lo for lo, hi in BOX])
    p0 = np.array(TRUTH) + 1e-4 * width * rng.standard_normal((a.walkers, len(BOX)))
    with mp.Pool(a.procs, initializer=init) as pool:
        pool.map(logp, list(p0[:a.procs]))  # warm-up
        sampler = emcee.EnsembleSampler(a.walkers, len(BOX), logp, pool=pool)
        t0 = time.perf_counter()
        sampler.run_mcmc(p0, a.steps, progress=False)
        wall = time.perf_counter() - t0
    chain = sampler.get_chain(discard=a.steps // 2)
    x = np.transpose(chain, (1, 0, 2))
    x[:, :, ANGLES] = np.mod(x[:, :, ANGLES], TWO_PI)
    ess = np.array([ess_bulk(x[:, :, k]) for k in range(len(BOX))])
    k = int(np.argmin(ess))
    evals = a.walkers * a.steps
    print(f"emcee {emcee.__version__} stretch over REBOUND {nb.rebound.__version__} WHFast "
          f"(Jacobi, no corrector, P_1/100), {a.procs} processes, {a.walkers} walkers x "
          f"{a.steps} steps (burn {a.steps // 2}), acceptance "
          f"{np.mean(sampler.acceptance_fraction):.3f}")
    print("| sampler | wall s | evaluations | models/s | min bulk ESS | s per 1000 ESS |")
    print(f"| emcee + REBOUND, {a.procs} processes | {wall:.3f} | {evals} | {evals / wall:.4g} | "
          f"{ess[k]:.0f} (parameter {k + 1}) | {wall * 1000 / ess[k]:.3f} |")


if __name__ == "__main__":
    main()
