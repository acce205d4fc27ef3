#!/usr/bin/env python3
"""Reference data for tests/test_megno.c, made with REBOUND's MEGNO.

Two planets of a thousandth of the star's mass (G = 1, star mass 1), the
inner on a circular orbit at a = 1, the outer at e = 0.05:

  tests/data/megno_regular.csv   outer at a = 1.35: quasi-periodic, <Y> -> 2;
                                 to t = 5000
  tests/data/megno_chaotic.csv   outer at a = 1.30: chaotic (the planets
                                 scatter within ~10^4 time units); to
                                 t = 400, before rounding differences
                                 between two codes (growing as e^(0.05 t))
                                 part their trajectories
  tests/data/megno_rebound.csv   REBOUND's <Y> (sim.megno()) and Lyapunov
                                 estimate (sim.lyapunov()) for each, WHFast
                                 at dt = P_inner / 100 with variational
                                 equations, for 32 seeds of the initial
                                 tangent vector: the spread a method of
                                 MEGNO leaves at a finite time

The state files have the layout of tests/data/outer_ss.csv (a header
`body,m,x,y,z,vx,vy,vz`, one row per body, barycentric), so that starling
integrates exactly the bodies REBOUND did.

Run:  python3 -m venv /tmp/rebenv && /tmp/rebenv/bin/pip install numpy rebound
      /tmp/rebenv/bin/python tests/reference/make_megno_reference.py
"""
import os
import platform

import rebound

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")

CASES = {
    "regular": (1.35, 5000.0),
    "chaotic": (1.30, 400.0),
}
SEEDS = range(1, 33)


def make(a_outer):
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=1.0)
    sim.add(primary=sim.particles[0], m=1e-3, a=1.0, e=0.0, M=0.0)
    sim.add(primary=sim.particles[0], m=1e-3, a=a_outer, e=0.05, M=2.0)
    sim.move_to_com()
    sim.integrator = "whfast"
    sim.dt = 0.01 * sim.particles[1].P
    return sim


def stamp():
    return "# made by tests/reference/make_megno_reference.py with rebound %s, python %s\n" % (
        rebound.__version__, platform.python_version())


def main():
    rows = []
    for name, (a_outer, t_end) in CASES.items():
        sim = make(a_outer)
        with open(os.path.join(DATA, "megno_%s.csv" % name), "w") as f:
            f.write("# two planets, m = 1e-3, a = 1 (e = 0) and %g (e = 0.05), G = 1, "
                    "barycentric\n" % a_outer)
            f.write(stamp())
            f.write("body,m,x,y,z,vx,vy,vz\n")
            for i, p in enumerate(sim.particles):
                f.write("%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n" % (
                    i + 1, p.m, p.x, p.y, p.z, p.vx, p.vy, p.vz))
        for seed in SEEDS:
            sim = make(a_outer)
            dt = sim.dt
            sim.init_megno(seed=seed)
            sim.integrate(t_end, exact_finish_time=0)
            rows.append("%s,%d,%.17g,%.17g,%.17g,%.17g,%.17g" % (
                name, seed, t_end, sim.t, dt, sim.megno(), sim.lyapunov()))
    with open(os.path.join(DATA, "megno_rebound.csv"), "w") as f:
        f.write("# REBOUND WHFast with variational equations, init_megno(seed); t: the time "
                "reached (whole steps)\n")
        f.write(stamp())
        f.write("case,seed,t_end,t,dt,megno,lyapunov\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
