#!/usr/bin/env python3
"""The peer of bench/ml_dynamic.lua: VBMicrolensing's BinaryMag2 for the same finite
source (rho = 1e-3, uniform) along the same track through the central caustic of s = 1,
q = 1e-3 (u0 = 0.005, alpha = 0, tE = 20 d, N epochs over t = -0.5 .. 0.5 d), at
RelTol = 1e-3 (Tol = 1e-12, so the relative bound governs), over P worker processes
(each with its own VBMicrolensing object). Each worker times its own share after a
warm-up, as bench/ml_dynamic.lua times starling's call; the pool's wall time is printed
beside it. Its accuracy: the worst relative difference from BinaryMag2 at RelTol = Tol =
1e-7 over every 30th epoch.

    python3 bench/ml_dynamic_vbm.py [epochs [procs]]
"""
import multiprocessing as mp
import os
import sys
import time

S, Q, RHO, U0, TE = 1.0, 1e-3, 1e-3, 0.005, 20.0


def track(n):
    # MulensModel's trajectory in the centre-of-mass frame, alpha = 0
    return [(-(-0.5 + k / (n - 1)) / TE, -U0) for k in range(n)]


def work(args):
    chunk, tol = args
    import VBMicrolensing
    vbm = VBMicrolensing.VBMicrolensing()
    vbm.RelTol, vbm.Tol = tol, (1e-12 if tol > 1e-6 else tol)
    vbm.BinaryMag2(S, Q, chunk[0][0], chunk[0][1], RHO)  # warm-up
    t0 = time.perf_counter()
    out = [vbm.BinaryMag2(S, Q, a, b, RHO) for a, b in chunk]
    return time.perf_counter() - t0, out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    procs = int(sys.argv[2]) if len(sys.argv) > 2 else os.cpu_count()
    pts = track(n)
    chunks = [pts[k::procs] for k in range(procs)]
    with mp.Pool(procs) as pool:
        pool.map(work, [(c[:4], 1e-3) for c in chunks])  # warm-up: workers and imports
        t0 = time.perf_counter()
        res = pool.map(work, [(c, 1e-3) for c in chunks])
        wall = time.perf_counter() - t0
        ref = pool.map(work, [(pts[::30], 1e-7)])[0][1]
    work_s = max(r[0] for r in res)
    A = [None] * n
    for k, r in enumerate(res):
        A[k::procs] = r[1]
    worst = max(abs(a / r - 1) for a, r in zip(A[::30], ref))
    import VBMicrolensing
    print("VBMicrolensing %s BinaryMag2 (RelTol 1e-3), %d processes: %d epochs, work %.3f s "
          "(pool wall %.3f s), %.4g epochs/s; worst %.2e from RelTol 1e-7"
          % (getattr(VBMicrolensing, "__version__", "?"), procs, n, work_s, wall, n / work_s,
             worst))


if __name__ == "__main__":
    main()
