"""The Lomb-Scargle benchmark's batch through astropy and nifty-ls, for
docs/BENCHMARKS.md (issue 4): run on the GPU machine's CPU in the same call
as bench/ls-bench, on the batch ls-bench wrote with --dump.

  ls-bench --dump batch.bin ... ; python3 ls_bench_ref.py batch.bin [LABEL=MS ...]

Times (median of 3, after a warm-up) for the whole batch, all cores used
through one process per core (each object is small, so per-object
parallelism is how these codes fill a multi-core CPU):
  astropy method="fast"   (Press & Rybicki, numpy FFT)
  astropy method="slow"   (direct sum in numpy), timed on a subset and
                          scaled to the batch (stated in the output)
  nifty-ls (finufft backend)
Accuracy on the first objects against the exact sum (astropy
method="cython", the direct O(N N_f) sum, which starling's FP64 path
matches to 1e-11): the largest |P - P_exact| / max P_exact per object.
LABEL=MS: starling's end-to-end times for the same batch (from ls-bench's
table, e.g. cuda-fp64=37.7), printed as speed-ups of starling over each.

Made with: astropy 8.0.2, nifty-ls 1.1.0 (finufft 2.5.1), numpy 2.x. """
import multiprocessing as mp
import os
import sys
import time

import numpy as np

F_MIN = 1.005 / (2 * np.pi)
F_MAX = 150.796 / (2 * np.pi)
N_F = 28608
DF = (F_MAX - F_MIN) / N_F
FREQ = F_MIN + DF * np.arange(N_F)


def load(path):
    with open(path, "rb") as f:
        n = int(np.fromfile(f, np.int64, 1)[0])
        off = np.fromfile(f, np.int64, n + 1)
        m = int(off[-1])
        t = np.fromfile(f, np.float64, m)
        y = np.fromfile(f, np.float64, m)
        dy = np.fromfile(f, np.float64, m)
    return [(t[off[i]:off[i + 1]], y[off[i]:off[i + 1]], dy[off[i]:off[i + 1]]) for i in range(n)]


def astropy_power(obj, method):
    from astropy.timeseries import LombScargle
    t, y, dy = obj
    # astropy's "fast" method needs a regular grid, which FREQ is
    return LombScargle(t, y, dy).power(FREQ, method=method, assume_regular_frequency=True)


def nifty_power(obj):
    import nifty_ls.finufft
    t, y, dy = obj
    return nifty_ls.finufft.lombscargle(t, y, F_MIN, DF, N_F, dy=dy, nthreads=1)


def work(args):
    kind, objs = args
    best = []
    for o in objs:
        p = astropy_power(o, kind) if kind != "nifty" else nifty_power(o)
        best.append(FREQ[int(np.argmax(p))])
    return best


def timed_batch(pool, kind, objs, ncpu):
    chunks = [(kind, objs[i::ncpu]) for i in range(ncpu)]
    pool.map(work, [(kind, objs[:ncpu])])  # warm-up (imports, caches)
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        pool.map(work, chunks)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main():
    objs = load(sys.argv[1])
    starling = [(a.split("=")[0], float(a.split("=")[1])) for a in sys.argv[2:]]
    ncpu = os.cpu_count() or 1
    import astropy
    import nifty_ls
    print(f"# astropy {astropy.__version__}, nifty-ls {nifty_ls.__version__}, numpy "
          f"{np.__version__}; {ncpu} processes; batch of {len(objs)} objects, "
          f"{sum(len(o[0]) for o in objs)} points, N_f = {N_F}")
    with mp.get_context("fork").Pool(ncpu) as pool:
        rows = []
        for kind in ("nifty", "fast"):
            rows.append((kind, timed_batch(pool, kind, objs, ncpu), len(objs)))
        sub = objs[: 4 * ncpu]
        s = timed_batch(pool, "slow", sub, ncpu)
        rows.append(("slow", s * len(objs) / len(sub), len(sub)))
    names = {"nifty": "nifty-ls 1.1 (finufft, CPU)", "fast": "astropy fast (Press & Rybicki)",
             "slow": "astropy slow (direct sum)"}
    print("| code | batch time [ms] | timed on | " +
          " | ".join(f"starling {lab} ({ms:.1f} ms) faster by" for lab, ms in starling) + " |")
    print("|---|---:|---|" + "---:|" * len(starling))
    for kind, sec, n in rows:
        note = "whole batch" if n == len(objs) else f"{n} objects, scaled to {len(objs)}"
        ratios = " | ".join(f"{1e3 * sec / ms:.1f}x" for _, ms in starling)
        print(f"| {names[kind]} | {1e3 * sec:.1f} | {note} | {ratios} |")

    # accuracy against the exact sum on the first objects
    print("\n| code | max over objects of max abs(P - P_exact) / max P_exact | median |")
    print("|---|---:|---:|")
    errs = {"nifty": [], "fast": []}
    for o in objs[:20]:
        exact = astropy_power(o, "cython")
        peak = exact.max()
        errs["nifty"].append(np.max(np.abs(nifty_power(o) - exact)) / peak)
        errs["fast"].append(np.max(np.abs(astropy_power(o, "fast") - exact)) / peak)
    for kind, e in errs.items():
        print(f"| {names[kind]} | {max(e):.2e} | {np.median(e):.2e} |")


if __name__ == "__main__":
    main()
