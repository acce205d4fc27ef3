#!/usr/bin/env python3
"""How far apart two equally good runs of the outer Solar System end.

`starling check` compares mvs with REBOUND WHFast on the outer Solar System
over 10^4 years (tests/lua.cmake, starling_check_outer_ss_whfast). Both are
the same method at the same step, so what separates their final states is
rounding: every step rounds differently in the two codes, and the errors
walk. A change that only reorders a sum, or trades a division for a product
with a reciprocal, gives another walk of the same kind. This script measures
the spread of those walks, so that the check's tolerance sits above it and
still far below what a wrong integrator gives (IAS15, the true motion,
differs from WHFast by ~1e-6 there).

Realisations: the initial state, and K - 1 copies of it with every
coordinate of every planet multiplied by 1 + u 3e-16, u uniform in [-1, 1]
(one or two units in the last place). A start moved by 1e-11 of itself
ends at most 2e-7 away after 10^4 years (the velocities, measured), so
these starts' own separation is below 6e-12 there, a fiftieth of the
walks'. Each is integrated by REBOUND WHFast (democratic heliocentric, as
the reference) and by starling's mvs; the script prints, over the
realisations k, the check's measure (worst difference over the bodies
relative to the system's largest coordinate) of

  mvs(k) - WHFast(0)   what starling_check_outer_ss_whfast measures on k
  mvs(k) - WHFast(k)   the two codes on the same start
  WHFast(k) - WHFast(0)  REBOUND's own walk

Run:  python3 -m venv /tmp/rbv && /tmp/rbv/bin/pip install numpy rebound==5.2.2
      STARLING_PLUGIN_PATH=BUILD/lib/starling/plugins \\
          /tmp/rbv/bin/python tests/reference/outer_ss_rounding.py BUILD/bin/starling [K] [SEED]
"""
import os
import random
import subprocess
import sys
import tempfile

import rebound

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_mvs_reference import DATA, DT, T_END, initial  # noqa: E402

FIELDS = ("x", "y", "z", "vx", "vy", "vz")
NUDGE = 3e-16
TOL = 1e-9  # the tolerance to count against


def state(sim):
    return [[p.m] + [getattr(p, f) for f in FIELDS] for p in sim.particles]


def nudged(k, rng, rel=NUDGE):
    sim = initial()
    if k == 0:
        return sim
    for p in sim.particles[1:]:
        for f in FIELDS:
            setattr(p, f, getattr(p, f) * (1.0 + rel * rng.uniform(-1.0, 1.0)))
    return sim


def whfast(sim):
    sim.integrator = "whfast"
    sim.integrator.coordinates = "democraticheliocentric"
    sim.integrator.safe_mode = 1
    sim.dt = DT
    sim.steps(int(round(T_END / DT)))
    return state(sim)


def write_ensemble(path, states):
    with open(path, "w") as f:
        f.write("sys,body,m,x,y,z,vx,vy,vz\n")
        for s, st in enumerate(states):
            for b, row in enumerate(st):
                f.write("%d,%d,%s\n" % (s + 1, b + 1, ",".join("%.17g" % v for v in row)))


def read_ensemble(path):
    systems = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("sys"):
                continue
            cols = line.strip().split(",")
            systems.setdefault(int(cols[0]), []).append([float(c) for c in cols[2:9]])
    return [systems[k] for k in sorted(systems)]


def measure(a, b):
    """starling check's measure (lua/check_ref.c): worst |a - b| over the
    bodies relative to b's largest coordinate, for positions and velocities"""
    out = []
    for c0 in (1, 4):
        scale = max(abs(row[c]) for row in b for c in range(c0, c0 + 3))
        out.append(max(abs(ra[c] - rb[c]) for ra, rb in zip(a, b)
                       for c in range(c0, c0 + 3)) / scale)
    return out


def mvs(starling, states, tmp):
    start, final = os.path.join(tmp, "start.csv"), os.path.join(tmp, "final.csv")
    write_ensemble(start, states)
    script = os.path.join(tmp, "run.lua")
    with open(script, "w") as f:
        f.write('local starling = require "starling"\n'
                'local E = starling.read_ensemble("%s")\n'
                'starling.integrate{ensemble = E, integrator = "mvs", dt = 2 * math.pi * 0.1,\n'
                '                   t_end = 2 * math.pi * 1e4, backend = "cpu"}\n'
                'E:write_csv("%s")\n' % (start, final))
    subprocess.run([starling, script], check=True, stdout=subprocess.DEVNULL)
    return read_ensemble(final)


def spread(name, values, tol):
    v = sorted(values)
    q = lambda f: v[min(len(v) - 1, int(f * len(v)))]  # noqa: E731
    print("  %-32s min %.3g  median %.3g  90%% %.3g  max %.3g  beyond %g: %d" %
          (name, v[0], q(0.5), q(0.9), v[-1], tol, sum(x > tol for x in v)))


def main():
    starling = sys.argv[1]
    K = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    sims = [nudged(k, rng) for k in range(K)]
    starts = [state(s) for s in sims]
    ref = read_ensemble(os.path.join(DATA, "outer_ss_whfast_final.csv"))[0]
    wh = [whfast(s) for s in sims]
    if measure(wh[0], ref) != [0.0, 0.0]:
        print("note: this REBOUND does not give tests/data/outer_ss_whfast_final.csv to the bit "
              "(%.3g, %.3g)" % tuple(measure(wh[0], ref)))
    with tempfile.TemporaryDirectory() as tmp:
        got = mvs(starling, starts, tmp)
    rows = [(measure(g, ref), measure(g, w), measure(w, ref)) for g, w in zip(got, wh)]
    print("outer Solar System, 10^4 yr at 0.1 yr, %d starts (each coordinate moved by up to %g of itself): %s" % (K, NUDGE, starling))
    print("  realisation 0 (the test's start): mvs - WHFast(0) positions %.3g, velocities %.3g"
          % tuple(rows[0][0]))
    for i, what in enumerate(("mvs(k) - WHFast(0)", "mvs(k) - WHFast(k)", "WHFast(k) - WHFast(0)")):
        for j, pv in enumerate(("positions", "velocities")):
            spread("%s %s" % (what, pv), [r[i][j] for r in rows], TOL)


if __name__ == "__main__":
    main()
