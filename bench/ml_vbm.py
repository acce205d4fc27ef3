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

With --fs, the finite-source set-up ml-fit-bench --tracks dumped (s, q, u0, tE,
alpha, rho, the epochs and starling's uniform and limb-darkened magnifications)
goes through BinaryMag2 (Tol = RelTol = 1e-4, the issue's setting) on all cores,
uniform (a1 = 0) and linearly limb-darkened (a1 = 0.5): the peer's points/s, the
ratios to starling's (given as cpu=, gpu= for uniform, gpu_ld= for a1 = 0.5), and
the largest relative difference of starling's values from the peer's.

    ml_vbm.py --fs SETUP [gpu=RATE] [gpu_ld=RATE] [--procs N]
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


def fs_work(args):
    s, q, rho, a1, y = args
    import VBMicrolensing
    vbm = VBMicrolensing.VBMicrolensing()
    vbm.Tol, vbm.RelTol, vbm.a1 = 1e-4, 1e-4, a1
    t0 = time.perf_counter()
    out = [vbm.BinaryMag2(s, q, y1, y2, rho) for y1, y2 in y]
    return out, time.perf_counter() - t0


def fs_main(path, rates, procs):
    with open(path, "rb") as f:
        n, = struct.unpack("<q", f.read(8))
        s, q, u0, tE, alpha, rho = struct.unpack("<6d", f.read(48))
        t = np.frombuffer(f.read(8 * n), dtype="<f8")
        ours = [np.frombuffer(f.read(8 * n), dtype="<f8") for _ in range(2)]
    a = np.radians(alpha)
    tau = t / tE
    y = list(zip((-tau * np.cos(a) + u0 * np.sin(a)).tolist(),
                 (-tau * np.sin(a) - u0 * np.cos(a)).tolist()))
    import VBMicrolensing
    print("# VBMicrolensing %s BinaryMag2, Tol = RelTol = 1e-4, s = %g, q = %g, rho = %g, u0 = %g, "
          "%d points, %d processes" % (getattr(VBMicrolensing, "__version__", "?"), s, q, rho, u0,
                                       n, procs))
    with mp.Pool(procs) as pool:
        pool.map(fs_work, [(s, q, rho, 0.0, y[:2])] * procs)
        for ld, a1, key in ((0, 0.0, "gpu"), (1, 0.5, "gpu_ld")):
            chunks = [y[i::procs * 4] for i in range(procs * 4)]
            w0 = time.perf_counter()
            res = pool.map(fs_work, [(s, q, rho, a1, c) for c in chunks])
            wall = time.perf_counter() - w0
            A = np.empty(n)
            for i in range(procs * 4):
                A[i::procs * 4] = res[i][0]
            one = sum(r[1] for r in res) / n
            law = "a1 = %.1f" % a1 if ld else "uniform"
            print("peer  %-9s VBMicrolensing BinaryMag2 (%d processes) %.4f s = %.3e points/s; "
                  "%.3f ms a point on one core" % (law, procs, wall, n / wall, 1e3 * one))
            if key in rates:
                print("starling %s / VBMicrolensing: %.0fx" % (key, float(rates[key]) / (n / wall)))
            print("worst relative difference starling (map) vs VBMicrolensing, %s: %.2e" %
                  (law, np.max(np.abs(ours[ld] / A - 1))))


def main():
    if "--fs" in sys.argv:
        i = sys.argv.index("--fs")
        procs = os.cpu_count()
        if "--procs" in sys.argv:
            procs = int(sys.argv[sys.argv.index("--procs") + 1])
        rates = dict(a.split("=") for a in sys.argv[1:] if "=" in a)
        return fs_main(sys.argv[i + 1], rates, procs)
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
