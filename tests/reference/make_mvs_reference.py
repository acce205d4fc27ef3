#!/usr/bin/env python3
"""Reference data for tests/test_mvs.c, made with REBOUND.

The outer Solar System (Sun, Jupiter, Saturn, Uranus, Neptune) from J2000
mean orbital elements (JPL's "approximate positions of the planets",
Standish: a, e, I, mean longitude L, longitude of perihelion, longitude of
the node, heliocentric ecliptic), with G = 1, lengths in AU, masses in solar
masses, so one year is 2 pi time units. Writes

  tests/data/outer_ss.csv            the initial barycentric state
  tests/data/outer_ss_whfast.csv     REBOUND WHFast, democratic heliocentric
                                     coordinates, dt = 0.1 yr, 1e4 yr
  tests/data/outer_ss_ias15.csv      REBOUND IAS15 (epsilon 1e-9) to 1e4 yr
  tests/data/outer_ss_whfast_jacobi.csv, outer_ss_whfast_jacobi_c11.csv
                                     REBOUND WHFast, Jacobi coordinates,
                                     dt = 0.1 yr, 1e4 yr, without and with
                                     the symplectic corrector of order 11
  tests/data/outer_ss_start.csv, outer_ss_whfast_final.csv, outer_ss_ias15_final.csv
                                     the same states in the ensemble format
                                     (sys,body,m,x,y,z,vx,vy,vz) that
                                     starling.read_ensemble and `starling check`
                                     read (tests/data/check_outer_ss.lua)

and the whole Solar System (Sun and the eight planets, the Earth-Moon
barycentre as one body; same elements table), the issue's benchmark case:

  tests/data/solar_system.csv        the initial barycentric state
  tests/data/solar_system_whfast.csv REBOUND WHFast as above, dt = 8 days,
                                     1e5 steps (2190 yr)
  tests/data/solar_system_ias15.csv  REBOUND IAS15 (epsilon 1e-9) to the same time

Each file: a header line `body,m,x,y,z,vx,vy,vz` and one row per body; the
first comment lines say how it was made.

Run:  python3 -m venv /tmp/rebenv && /tmp/rebenv/bin/pip install numpy rebound
      /tmp/rebenv/bin/python tests/reference/make_mvs_reference.py [jacobi]
(jacobi: only the two Jacobi files)
"""
import math
import os
import sys

import rebound

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
YEAR = 2.0 * math.pi
T_END = 1.0e4 * YEAR
DT = 0.1 * YEAR
VERSIONS = "rebound %s, python %s" % (rebound.__version__, sys.version.split()[0])

# name, 1/mass (solar masses), a, e, I, L, varpi, Omega (degrees)
INNER = [
    ("mercury", 6023600.0, 0.38709927, 0.20563593, 7.00497902, 252.25032350, 77.45779628,
     48.33076593),
    ("venus", 408523.71, 0.72333566, 0.00677672, 3.39467605, 181.97909950, 131.60246718,
     76.67984255),
    ("earth", 328900.56, 1.00000261, 0.01671123, -0.00001531, 100.46457166, 102.93768193,
     0.0),
    ("mars", 3098708.0, 1.52371034, 0.09339410, 1.84969142, -4.55343205, -23.94362959,
     49.55953891),
]
PLANETS = [
    ("jupiter", 1047.3486, 5.20288700, 0.04838624, 1.30439695, 34.39644051, 14.72847983,
     100.47390909),
    ("saturn", 3497.898, 9.53667594, 0.05386179, 2.48599187, 49.95424423, 92.59887831,
     113.66242448),
    ("uranus", 22902.98, 19.18916464, 0.04725744, 0.77263783, 313.23810451, 170.95427630,
     74.01692503),
    ("neptune", 19412.24, 30.06992276, 0.00859048, 1.77004347, -55.12002969, 44.96476227,
     131.78422574),
]


def initial(planets=None):
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=1.0)
    for name, inv_m, a, e, inc, lon, varpi, node in planets or PLANETS:
        d = math.radians
        sim.add(m=1.0 / inv_m, a=a, e=e, inc=d(inc), Omega=d(node), omega=d(varpi - node),
                M=d(lon - varpi), primary=sim.particles[0])
    sim.move_to_com()
    return sim


def write(sim, name, how, planets=None):
    path = os.path.join(DATA, name)
    with open(path, "w") as f:
        f.write("# %s\n# made by tests/reference/make_mvs_reference.py with %s\n" %
                (how, VERSIONS))
        f.write("body,m,x,y,z,vx,vy,vz\n")
        names = ["sun"] + [p[0] for p in planets or PLANETS]
        for n, p in zip(names, sim.particles):
            f.write("%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n" %
                    (n, p.m, p.x, p.y, p.z, p.vx, p.vy, p.vz))
    print("wrote", path)


def write_ensemble(sim, name, how):
    path = os.path.join(DATA, name)
    with open(path, "w") as f:
        f.write("# %s\n# made by tests/reference/make_mvs_reference.py with %s\n" %
                (how, VERSIONS))
        f.write("sys,body,m,x,y,z,vx,vy,vz\n")
        for b, p in enumerate(sim.particles):
            f.write("1,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n" %
                    (b + 1, p.m, p.x, p.y, p.z, p.vx, p.vy, p.vz))
    print("wrote", path)


def main():
    sim = initial()
    write(sim, "outer_ss.csv", "outer Solar System, J2000 mean elements, barycentric, G = 1, "
          "AU, Msun, year = 2 pi")
    write_ensemble(sim, "outer_ss_start.csv", "outer Solar System, J2000 mean elements, "
                   "barycentric, G = 1, AU, Msun, year = 2 pi")
    sim.integrator = "whfast"
    sim.integrator.coordinates = "democraticheliocentric"
    sim.integrator.safe_mode = 1
    sim.dt = DT
    n = int(round(T_END / DT))
    sim.steps(n) if hasattr(sim, "steps") else sim.integrate(n * DT, exact_finish_time=0)
    write(sim, "outer_ss_whfast.csv", "REBOUND WHFast, democratic heliocentric, safe mode, "
          "dt = %.17g, %d steps (t = %.17g)" % (DT, n, sim.t))
    write_ensemble(sim, "outer_ss_whfast_final.csv", "REBOUND WHFast, democratic "
                   "heliocentric, safe mode, dt = %.17g, %d steps (t = %.17g)" % (DT, n, sim.t))
    sim = initial()
    sim.integrator = "ias15"
    sim.integrator.epsilon = 1e-9
    sim.integrate(T_END, exact_finish_time=1)
    write(sim, "outer_ss_ias15.csv", "REBOUND IAS15, epsilon 1e-9, t = %.17g" % sim.t)
    write_ensemble(sim, "outer_ss_ias15_final.csv", "REBOUND IAS15, epsilon 1e-9, t = %.17g" %
                   sim.t)
    jacobi()
    solar_system()


def jacobi():
    for corrector, name in ((0, "outer_ss_whfast_jacobi.csv"), (11, "outer_ss_whfast_jacobi_c11.csv")):
        sim = initial()
        sim.integrator = "whfast"
        sim.integrator.coordinates = "jacobi"
        sim.integrator.corrector = corrector
        sim.integrator.safe_mode = 0
        sim.dt = DT
        n = int(round(T_END / DT))
        sim.steps(n) if hasattr(sim, "steps") else sim.integrate(n * DT, exact_finish_time=0)
        sim.synchronize()
        write(sim, name, "REBOUND WHFast, Jacobi, corrector %d, safe mode off, dt = %.17g, %d "
              "steps (t = %.17g)" % (corrector, DT, n, sim.t))


def solar_system():
    allp = INNER + PLANETS
    day = YEAR / 365.25
    dt, n = 8 * day, 100000
    sim = initial(allp)
    write(sim, "solar_system.csv", "Sun and eight planets (Earth-Moon barycentre), J2000 mean "
          "elements, barycentric, G = 1, AU, Msun, year = 2 pi", allp)
    sim.integrator = "whfast"
    sim.integrator.coordinates = "democraticheliocentric"
    sim.integrator.safe_mode = 1
    sim.dt = dt
    sim.steps(n) if hasattr(sim, "steps") else sim.integrate(n * dt, exact_finish_time=0)
    t_end = sim.t
    write(sim, "solar_system_whfast.csv", "REBOUND WHFast, democratic heliocentric, safe mode, "
          "dt = %.17g (8 days), %d steps (t = %.17g)" % (dt, n, t_end), allp)
    sim = initial(allp)
    sim.integrator = "ias15"
    sim.integrator.epsilon = 1e-9
    sim.integrate(t_end, exact_finish_time=1)
    write(sim, "solar_system_ias15.csv", "REBOUND IAS15, epsilon 1e-9, t = %.17g" % sim.t,
          allp)


if __name__ == "__main__":
    if sys.argv[1:] == ["jacobi"]:
        jacobi()
    else:
        main()
