#!/usr/bin/env python3
"""REBOUND on ss-bench's ensemble: the peer's side of the question "how long
for my ensemble at a given accuracy?", on the same machine.

Copies of a planetary system (tests/data/outer_ss.csv or solar_system.csv:
body,m,x,y,z,vx,vy,vz; G = 1, AU, Msun, one year = 2 pi), each copy's
planets nudged by 1e-9 x (copy mod 1000) of their position exactly as
ss-bench does, integrated for a span with REBOUND (WHFast in democratic
heliocentric coordinates with safe mode off, its fastest form for these
coordinates; with --corrector, WHFast in Jacobi coordinates with symplectic
correctors of that order, the only coordinates where REBOUND offers them;
whfast512, REBOUND 5.2's AVX-512 WHFast in Jacobi coordinates, with
corrector 17 or none, two copies of a 4-planet system per simulation and
every step in one call, its fastest use; or IAS15) on a
pool of processes, one simulation per task. Prints the wall time and the
worst |dE/E| at the end.

  rebound_ss.py DATA --systems 16384 --years 1000 --dt 0.05 [--integrator whfast]
                [--procs N] [--corrector 11] [--megno]
--dt is in years; --dt-days in days. --megno: each copy also computes its
MEGNO (init_megno(seed = copy + 1): variational equations, which REBOUND's
WHFast integrates in Jacobi coordinates only, so --megno implies them);
the median and range of sim.megno() over the copies are printed.
"""
import argparse
import math
import multiprocessing as mp
import os
import sys
import time

import rebound

YEAR = 2.0 * math.pi


def read_state(path):
    rows = []
    with open(path) as f:
        header = False
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            if not header:
                header = True
                continue
            rows.append([float(v) for v in line.strip().split(",")[1:8]])
    return rows


def add_copy(sim, rows, s):
    for b, (m, x, y, z, vx, vy, vz) in enumerate(rows):
        f = 1.0 + (1e-9 * (s % 1000) if b else 0.0)
        sim.add(m=m, x=x * f, y=y * f, z=z * f, vx=vx, vy=vy, vz=vz)


def energy_of(particles):
    sub = rebound.Simulation()
    sub.G = 1.0
    for p in particles:
        sub.add(m=p.m, x=p.x, y=p.y, z=p.z, vx=p.vx, vy=p.vy, vz=p.vz)
    return sub.energy()


def one512(args):
    """WHFast512 (Jacobi coordinates, AVX-512): `pack` copies side by side in
    one simulation (its N_systems: 8 planet slots shared), every step of the
    run in one call (concatenate_steps), and the energy of each copy on its
    own."""
    rows, s0, pack, dt, t_end, corrector = args
    sim = rebound.Simulation()
    sim.G = 1.0
    for s in range(s0, s0 + pack):
        add_copy(sim, rows, s)
    n = len(rows)
    e0 = [energy_of(sim.particles[k * n:(k + 1) * n]) for k in range(pack)]
    sim.integrator = "whfast512"
    sim.integrator.N_systems = pack
    sim.integrator.corrector = corrector
    steps = int(round(t_end / dt))
    sim.integrator.concatenate_steps = steps
    sim.dt = dt
    sim.integrate(steps * dt, exact_finish_time=0)
    sim.synchronize()
    return max(abs(energy_of(sim.particles[k * n:(k + 1) * n]) / e0[k] - 1.0)
               for k in range(pack))


def one(args):
    rows, s, integrator, dt, t_end, corrector, megno = args
    sim = rebound.Simulation()
    sim.G = 1.0
    add_copy(sim, rows, s)
    sim.integrator = integrator
    if integrator == "whfast":
        jacobi = corrector or megno
        sim.integrator.coordinates = "jacobi" if jacobi else "democraticheliocentric"
        sim.integrator.corrector = corrector
        sim.integrator.safe_mode = 0 if not megno else 1  # MEGNO needs safe mode
    if integrator != "ias15":
        sim.dt = dt
    e0 = sim.energy()
    if megno:
        sim.init_megno(seed=s + 1)
    sim.integrate(t_end, exact_finish_time=0)
    if integrator == "whfast":
        sim.synchronize()
    return abs(sim.energy() / e0 - 1.0), sim.megno() if megno else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--systems", type=int, default=16384)
    ap.add_argument("--years", type=float, default=1000.0)
    ap.add_argument("--dt", type=float, default=0.05, help="years")
    ap.add_argument("--dt-days", type=float, default=0.0)
    ap.add_argument("--integrator", default="whfast")
    ap.add_argument("--procs", type=int, default=os.cpu_count())
    ap.add_argument("--corrector", type=int, default=0)
    ap.add_argument("--megno", action="store_true")
    a = ap.parse_args()
    rows = read_state(a.data)
    dt = a.dt_days * YEAR / 365.25 if a.dt_days > 0 else a.dt * YEAR
    t_end = a.years * YEAR
    if a.integrator == "whfast512":
        planets = len(rows) - 1
        pack = 4 if planets <= 2 else 2 if planets <= 4 else 1
        tasks = [(rows, s, pack, dt, t_end, a.corrector) for s in range(0, a.systems, pack)]
        fn = one512
    else:
        tasks = [(rows, s, a.integrator, dt, t_end, a.corrector, a.megno)
                 for s in range(a.systems)]
        fn = one
    t0 = time.perf_counter()
    with mp.Pool(a.procs) as pool:
        out = pool.map(fn, tasks, chunksize=max(1, len(tasks) // (8 * a.procs)))
    wall = time.perf_counter() - t0
    errs = [o[0] if isinstance(o, tuple) else o for o in out]
    ys = sorted(o[1] for o in out if isinstance(o, tuple))
    step = "IAS15" if a.integrator == "ias15" else "dt = %.6g yr" % (dt / YEAR)
    if a.corrector:
        step += ", Jacobi, corrector %d" % a.corrector
    if a.integrator == "whfast512":
        step += ", %d copies per simulation" % tasks[0][2]
    if a.megno:
        step += ", Jacobi, MEGNO"
    print("rebound %s %s, %d bodies, %d copies, %g yr, %s, %d processes: %.3f s, max |dE/E| "
          "%.3g" % (rebound.__version__, a.integrator, len(rows), a.systems, a.years, step,
                    a.procs, wall, max(errs)), end="")
    if a.megno:
        print(", <Y> median %.4f (%.4f..%.4f)" % (ys[len(ys) // 2], ys[0], ys[-1]), end="")
    print()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
