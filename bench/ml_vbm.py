#!/usr/bin/env python3
"""The peer for bench/ml_bench.c: VBMicrolensing's BinaryMag0 on the batch ml-bench
dumped (binary lens, point source), over all host cores in worker processes, each
holding its own VBMicrolensing object. The source positions follow MulensModel's
trajectory in BinaryMag0's frame (docs/microlensing.md):
    y1 = -tau cos a + u0 sin a,  y2 = -tau sin a - u0 cos a.
Prints the peer's rate and, given starling's rates (cpu=R gpu=R), the ratios; and
the largest relative difference between the peer and the magnifications ml-bench
dumped beside the batch (FILE.A), when present.

    ml_vbm.py BATCH [cpu=RATE] [gpu=RATE] [--procs N]
"""
import multiprocessing as mp
import os
import struct
import sys
import time

import numpy as np


def read_batch(path):
    with open(path, "rb") as f:
        kind, = struct.unpack("<i", f.read(4))
        n_models, n_t = struct.unpack("<qq", f.read(16))
        npar = {0: 3, 1: 5, 2: 6}[kind]
        par = np.frombuffer(f.read(8 * n_models * npar), dtype="<f8").reshape(n_models, npar)
        t = np.frombuffer(f.read(8 * n_t), dtype="<f8")
    if kind != 2:
        sys.exit("ml_vbm.py: the batch is not a binary-lens one (kind %d)" % kind)
    return par, t


def work(args):
    par, t = args
    import VBMicrolensing
    vbm = VBMicrolensing.VBMicrolensing()
    f = vbm.BinaryMag0
    out = np.empty((len(par), len(t)))
    t0 = time.perf_counter()
    for i, (tt0, u0, tE, s, q, alpha) in enumerate(par):
        a = np.radians(alpha)
        tau = (t - tt0) / tE
        y1 = (-tau * np.cos(a) + u0 * np.sin(a)).tolist()
        y2 = (-tau * np.sin(a) - u0 * np.cos(a)).tolist()
        out[i] = [f(s, q, a1, a2) for a1, a2 in zip(y1, y2)]
    return out, time.perf_counter() - t0


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    procs = os.cpu_count()
    if "--procs" in sys.argv:
        procs = int(sys.argv[sys.argv.index("--procs") + 1])
        args = [a for a in args if a != str(procs)]
    par, t = read_batch(args[0])
    rates = dict(a.split("=") for a in args[1:] if "=" in a)
    chunks = np.array_split(par, procs * 4)
    with mp.Pool(procs) as pool:
        pool.map(work, [(chunks[0][:2], t)] * procs)  # import and warm every worker
        w0 = time.perf_counter()
        res = pool.map(work, [(c, t) for c in chunks])
        wall = time.perf_counter() - w0
    A = np.concatenate([r[0] for r in res])
    n = A.size
    import VBMicrolensing
    print("# VBMicrolensing %s BinaryMag0, %d models x %d epochs, %d processes" %
          (getattr(VBMicrolensing, "__version__", "?"), len(par), len(t), procs))
    print("peer  VBMicrolensing BinaryMag0 (%d processes) %10.4f s  %.3e magnifications/s" %
          (procs, wall, n / wall))
    for k in ("cpu", "gpu"):
        if k in rates:
            print("starling %s / VBMicrolensing: %.2fx" % (k, float(rates[k]) / (n / wall)))
    if os.path.exists(args[0] + ".A"):
        ours = np.fromfile(args[0] + ".A", dtype="<f8").reshape(A.shape)
        print("worst relative difference starling cpu vs VBMicrolensing: %.2e" %
              np.max(np.abs(ours / A - 1)))


if __name__ == "__main__":
    main()
