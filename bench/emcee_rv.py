#!/usr/bin/env python3
"""The peer of bench/demcmc_rv.lua: emcee on the same posterior.

Reads the data demcmc_rv.lua wrote (its header has the names), samples with
emcee (StretchMove, its default, or DEMove) using a log-probability
vectorised over walkers in numpy (emcee's fastest use for a cheap model),
and runs one independent sampler per process so that all cores work; the
effective sample sizes of the processes add up. Prints the wall time, the
likelihood evaluations, the smallest bulk ESS over the parameters and the
seconds per 1000 effective draws. The bulk ESS is computed here as ArviZ
0.23 computes it (rank-normalised split chains, Geyer's initial monotone
sequence), so that the GPU host needs only numpy and emcee; where ArviZ is
installed the script checks its own figure against ArviZ's.

  python3 bench/emcee_rv.py demcmc_rv.csv [--move stretch|de] [--walkers 64]
                            [--steps 4000] [--procs 16]

The model is kepler_rv's (basis P K e w M0, M0 the mean anomaly at the
earliest observation, v = K [cos(nu + w) + e cos w] + gamma, ln L =
-0.5 sum[(v - m)^2 / (s^2 + j^2) + ln 2 pi (s^2 + j^2)]), priors as in the
Lua script (uniform boxes, periodic angles wrapped, jitter fixed).
"""
import argparse
import multiprocessing as mp
import time

import numpy as np

TWO_PI = 2 * np.pi
BOX = [(14.0, 15.2), (10, 50), (0, 0.5), (0, TWO_PI), (0, TWO_PI),
       (90, 105), (5, 30), (0, 0.6), (0, TWO_PI), (0, TWO_PI), (-20, 10)]
ANGLES = [3, 4, 8, 9]
JIT = 2.5


def load(path):
    d = np.loadtxt(path, delimiter=",", skiprows=2)
    return d[:, 0], d[:, 1], d[:, 2]


def truth(path):
    """The generating parameters from the data's header (the first 11)."""
    with open(path) as f:
        head = f.readline()
    return np.array([float(v) for v in head.split("=")[1].split()[:len(BOX)]])


def kepler_E(M, e):
    """Newton from E = M + e sin M: to rounding in 8 steps for e <= 0.6."""
    E = M + e * np.sin(M)
    for _ in range(8):
        E = E - (E - e * np.sin(E) - M) / (1 - e * np.cos(E))
    return E


def _autocov(x):
    n = x.shape[-1]
    f = np.fft.rfft(x - x.mean(axis=-1, keepdims=True), n=2 * n)
    return np.fft.irfft(f * np.conj(f), n=2 * n)[..., :n] / n


def ess_bulk(x):
    """ArviZ 0.23's bulk ESS of x (chains x draws)."""
    from statistics import NormalDist
    h = x.shape[1] // 2
    x = np.vstack((x[:, :h], x[:, -h:]))
    flat = x.ravel()
    order = np.argsort(flat, kind="mergesort")
    ranks = np.empty(flat.size)
    sv = flat[order]
    i = 0
    while i < sv.size:  # average ranks of ties
        j = i
        while j + 1 < sv.size and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i:j + 1]] = 0.5 * (i + j) + 1
        i = j + 1
    inv = np.frompyfunc(NormalDist().inv_cdf, 1, 1)
    z = inv((ranks - 0.375) / (flat.size + 0.25)).astype(float).reshape(x.shape)
    m, n = z.shape
    acov = _autocov(z)
    mean_var = acov[:, 0].mean() * n / (n - 1)
    var_plus = mean_var * (n - 1) / n + (z.mean(axis=1).var(ddof=1) if m > 1 else 0.0)
    rho = np.zeros(n)
    even, odd = 1.0, 1.0 - (mean_var - acov[:, 1].mean()) / var_plus
    rho[0], rho[1] = even, odd
    t = 1
    while t < n - 3 and even + odd > 0:
        even = 1.0 - (mean_var - acov[:, t + 1].mean()) / var_plus
        odd = 1.0 - (mean_var - acov[:, t + 2].mean()) / var_plus
        if even + odd >= 0:
            rho[t + 1], rho[t + 2] = even, odd
        t += 2
    max_t = t - 2
    if even > 0:
        rho[max_t + 1] = even
    t = 1
    while t <= max_t - 2:
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = rho[t + 2] = (rho[t - 1] + rho[t]) / 2
        t += 2
    tau = -1 + 2 * rho[:max_t + 1].sum() + rho[max_t + 1:max_t + 2].sum()
    tau = max(tau, 1 / np.log10(m * n))
    return m * n / tau


def make_logp(t, v, s):
    dt = t - t.min()
    w2 = s * s + JIT * JIT
    lnw = np.sum(np.log(TWO_PI * w2))
    lo = np.array([b[0] for b in BOX])
    hi = np.array([b[1] for b in BOX])

    def logp(p):  # p: walkers x 11
        p = np.array(p, copy=True)
        p[:, ANGLES] = np.mod(p[:, ANGLES], TWO_PI)
        ok = np.all((p >= lo) & (p <= hi), axis=1)
        m = np.zeros((p.shape[0], t.size)) + p[:, 10:11]
        for k in (0, 5):
            P, K, e, w, M0 = (p[:, k + i:k + i + 1] for i in range(5))
            M = np.mod(TWO_PI * dt / P + M0, TWO_PI)
            E = kepler_E(M, e)
            nu = 2 * np.arctan2(np.sqrt(1 + e) * np.sin(E / 2), np.sqrt(1 - e) * np.cos(E / 2))
            m += K * (np.cos(nu + w) + e * np.cos(w))
        ll = -0.5 * (np.sum((v - m) ** 2 / w2, axis=1) + lnw)
        return np.where(ok, ll, -np.inf)
    logp = np.errstate(invalid="ignore", divide="ignore")(logp)
    return logp


def one(args):
    import emcee
    path, move, walkers, steps, seed, start = args
    t, v, s = load(path)
    logp = make_logp(t, v, s)
    rng = np.random.default_rng(seed)
    lo = np.array([b[0] for b in BOX])
    hi = np.array([b[1] for b in BOX])
    if start == "ball":  # emcee's advice: a small ball about a good fit
        p0 = truth(path) * (1 + 1e-4 * rng.standard_normal((walkers, len(BOX))))
    else:
        p0 = lo + (hi - lo) * rng.random((walkers, len(BOX)))
    mv = emcee.moves.DEMove() if move == "de" else emcee.moves.StretchMove()
    sampler = emcee.EnsembleSampler(walkers, len(BOX), logp, vectorize=True, moves=mv)
    np.random.seed(seed)
    t0 = time.perf_counter()
    sampler.run_mcmc(p0, steps, progress=False)
    wall = time.perf_counter() - t0
    chain = sampler.get_chain(discard=steps // 2)  # steps x walkers x dim
    return wall, chain, float(np.mean(sampler.acceptance_fraction))


def main():
    import emcee
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--move", default="stretch", choices=["stretch", "de"])
    ap.add_argument("--walkers", type=int, default=64)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--procs", type=int, default=mp.cpu_count())
    ap.add_argument("--start", default="ball", choices=["ball", "prior"],
                    help="walkers start in a 1e-4 ball about the truth (emcee's advice) "
                         "or drawn from the priors")
    a = ap.parse_args()
    t0 = time.perf_counter()
    with mp.Pool(a.procs) as pool:
        runs = pool.map(one, [(a.data, a.move, a.walkers, a.steps, 100 + i, a.start)
                               for i in range(a.procs)])
    wall = time.perf_counter() - t0
    ess = np.zeros(len(BOX))
    for _, chain, _ in runs:
        x = np.transpose(chain, (1, 0, 2))  # walkers x draws x dim
        x[:, :, ANGLES] = np.mod(x[:, :, ANGLES], TWO_PI)
        for k in range(len(BOX)):
            ess[k] += ess_bulk(x[:, :, k])
    try:
        import arviz as az
        x = np.transpose(runs[0][1], (1, 0, 2))
        ours, theirs = ess_bulk(x[:, :, 0]), az.ess(x[:, :, 0], method="bulk")
        assert abs(ours / theirs - 1) < 1e-8, (ours, theirs)
        print(f"bulk ESS as ArviZ {az.__version__}: {ours:.6f} = {theirs:.6f}")
    except ImportError:
        pass
    evals = a.procs * a.walkers * a.steps
    k = int(np.argmin(ess))
    print(f"emcee {emcee.__version__} {a.move}, start {a.start}, {a.procs} processes x "
          f"{a.walkers} walkers x {a.steps} steps (burn {a.steps // 2}), acceptance {np.mean([r[2] for r in runs]):.3f}")
    print("| peer | wall s | evaluations | min bulk ESS | s per 1000 ESS |")
    print(f"| emcee {a.move}, start {a.start} | {wall:.3f} | {evals} | {ess[k]:.0f} (parameter {k + 1}) | "
          f"{wall * 1000 / ess[k]:.3f} |")


if __name__ == "__main__":
    main()
