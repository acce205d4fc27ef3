#!/usr/bin/env python3
"""The peer of bench/ml_multi.lua: VBMicrolensing's MultiMag0 (after SetLensGeometry) for
the same triple lens and the same side x side grid of sources, over P worker processes
(each with its own VBMicrolensing object), after a warm-up; prints points per second.

    python3 bench/ml_multi_vbm.py [side [procs]]
"""
import multiprocessing as mp
import os
import sys
import time

LENSES = [0.0, 0.0, 0.998, 1.05, 0.02, 1.5e-3, -0.3, 0.9, 5e-4]


def work(chunk):
    import VBMicrolensing
    vbm = VBMicrolensing.VBMicrolensing()
    vbm.SetLensGeometry(LENSES)
    return [vbm.MultiMag0(a, b) for a, b in chunk]


def main():
    side = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    procs = int(sys.argv[2]) if len(sys.argv) > 2 else os.cpu_count()
    pts = [(-1.5 + 3.0 * (i + 0.5) / side, -1.5 + 3.0 * (j + 0.5) / side)
           for j in range(side) for i in range(side)]
    chunks = [pts[k::procs] for k in range(procs)]
    with mp.Pool(procs) as pool:
        pool.map(work, [c[:100] for c in chunks])  # warm-up: the workers and their imports
        t0 = time.perf_counter()
        pool.map(work, chunks)
        dt = time.perf_counter() - t0
    import VBMicrolensing
    print("VBMicrolensing %s MultiMag0, 3 lenses, %d processes: %d points in %.3f s, %.4g points/s"
          % (getattr(VBMicrolensing, "__version__", "?"), procs, len(pts), dt, len(pts) / dt))


if __name__ == "__main__":
    main()
