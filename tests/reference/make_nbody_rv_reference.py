#!/usr/bin/env python3
"""Reference data for tests/test_nbody_elements.c, made with REBOUND.

An interacting pair near the 2:1 resonance, GJ 876 b and c-like (planets
innermost first, kepler_rv's words: P in days, K in m/s, e, omega of the
star's reflex orbit and the mean anomaly M0 at the epoch, in radians),
about a 0.32 M_sun star, edge-on. Each planet's mass from its K, sin i and
the mass inside it (the star and the inner planets), solved by iteration;
REBOUND adds the planets in Jacobi coordinates (its default primary, the
centre of mass of those added before), with the planet's own omega, the
star's + pi. G = 1, AU, M_sun, a time unit of 1/k days. IAS15 integrates
from the epoch to each observation time (exact_finish_time), forward and
backward; the star's velocity along +z, away from the observer, is the
radial velocity.

Writes tests/data/nbody_rv_gj876_rebound.csv: comment lines (how it was
made, the elements), a header `t_days,rv_ms` and 200 rows over ten years
around the epoch; and tests/data/nbody_ttv_gj876_rebound.csv: each
planet's mid-transit times (the least projected separation from the star,
the planet in front) over the five years after the epoch, bisected on
IAS15's trajectory. And the examples' synthetic data:
examples/data/gj876_like_rv.csv (the pair's velocities with noise) and
examples/data/kepler9_like_ttv.csv (a Kepler-9-like pair's transit times
with noise, in ttv's parameters: P, mass in Earth masses, sqrt(e) cos w,
sqrt(e) sin w, a mid-transit time near the epoch).

Run:  python3 -m venv /tmp/rebenv && /tmp/rebenv/bin/pip install rebound
      /tmp/rebenv/bin/python tests/reference/make_nbody_rv_reference.py
"""
import math
import os

import rebound

K_GAUSS = 0.01720209895
V_UNIT = 1.495978707e11 * K_GAUSS / 86400.0  # m/s per AU k / day

MSTAR = 0.32
# P (d), K (m/s), e, omega (star's), M0, inc, Omega
PLANETS = [
    (30.126, 88.34, 0.2531, 0.8, 2.1, 0.5 * math.pi, 0.0),
    (61.082, 212.07, 0.0354, 0.4, 5.4, 0.5 * math.pi, 0.0),
]


def mass_from_k(K, P, e, sin_i, m_in):
    A = K * math.sqrt((1 - e) * (1 + e)) * (P / (2 * math.pi)) ** (1 / 3) / sin_i
    m = A * m_in ** (2 / 3)
    for _ in range(200):
        nxt = A * (m_in + m) ** (2 / 3)
        if abs(nxt - m) <= 1e-15 * nxt:
            return nxt
        m = nxt
    raise RuntimeError("mass did not settle")


def build_sim():
    """The star and PLANETS as REBOUND particles (G = 1, starling's units),
    each mass from its K and the mass inside it, moved to the centre of
    mass."""
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=MSTAR)
    m_in = MSTAR
    for P, K, e, w, M0, inc, Om in PLANETS:
        Pc = P * K_GAUSS
        m = mass_from_k(K / V_UNIT, Pc, e, math.sin(inc), m_in)
        sim.add(m=m, P=Pc, e=e, omega=w + math.pi, M=M0, inc=inc, Omega=Om)
        m_in += m
    sim.move_to_com()
    return sim


def times_days():
    return [-1826.0 + 3652.0 * k / 199 for k in range(200)]


def main():
    sim = build_sim()
    sim.integrator = "ias15"
    rows = {}
    start = sim.copy()
    for sign in (1, -1):
        s = start.copy()
        s.integrator = "ias15"
        s.dt = sign * 1e-3
        ts = sorted((t for t in times_days() if (t >= 0) == (sign > 0)), key=abs)
        for t in ts:
            s.integrate(t * K_GAUSS, exact_finish_time=1)
            rows[t] = s.particles[0].vz * V_UNIT
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "data", "nbody_rv_gj876_rebound.csv")
    with open(out, "w") as f:
        f.write("# REBOUND %s IAS15, tests/reference/make_nbody_rv_reference.py\n"
                % rebound.__version__)
        f.write("# mstar %.17g; planets (P d, K m/s, e, omega, M0, inc, Omega): %s\n"
                % (MSTAR, "; ".join(" ".join("%.17g" % x for x in p) for p in PLANETS)))
        f.write("t_days,rv_ms\n")
        for t in times_days():
            f.write("%.17g,%.17g\n" % (t, rows[t]))
    print("wrote", out)


def transits(sim, j, t_end, step):
    """Mid-transit times of planet j (least projected separation from the
    star with the planet in front, z < 0), found by stepping IAS15 by
    `step` and bisecting g = x vx + y vy (relative to the star) to 1e-12 of
    the time unit."""
    def g(s):
        p, st = s.particles[j], s.particles[0]
        return (p.x - st.x) * (p.vx - st.vx) + (p.y - st.y) * (p.vy - st.vy), p.z - st.z

    out = []
    s = sim.copy()
    s.integrator = "ias15"
    t = 0.0
    g0, _ = g(s)
    while t < t_end:
        prev = s.copy()
        s.integrate(t + step, exact_finish_time=1)
        g1, z1 = g(s)
        if g0 < 0.0 <= g1:
            lo, hi = t, t + step
            while hi - lo > 1e-12:
                mid = 0.5 * (lo + hi)
                c = prev.copy()
                c.integrate(mid, exact_finish_time=1)
                gm, zm = g(c)
                if gm < 0.0:
                    lo = mid
                else:
                    hi = mid
            c = prev.copy()
            c.integrate(0.5 * (lo + hi), exact_finish_time=1)
            if g(c)[1] < 0.0:
                out.append(0.5 * (lo + hi))
        t += step
        g0 = g1
    return out


def main_ttv():
    sim = build_sim()
    t_end = 1826.0 * K_GAUSS
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "data", "nbody_ttv_gj876_rebound.csv")
    with open(out, "w") as f:
        f.write("# REBOUND %s IAS15, tests/reference/make_nbody_rv_reference.py: mid-transit "
                "times over five years after the epoch\n" % rebound.__version__)
        f.write("planet,t_days\n")
        for j in (1, 2):
            for t in transits(sim, j, t_end, 0.5 * K_GAUSS):
                f.write("%d,%.17g\n" % (j, t / K_GAUSS))
    print("wrote", out)


def main_example():
    """examples/data/gj876_like_rv.csv: the pair's velocities (IAS15) at 160
    nights over ten years in observing seasons of eight months, with 3 m/s
    errors and 2 m/s of jitter added as Gaussian noise (Python's random,
    seed 876), times as BJD with the epoch at 2455000."""
    import random
    rng = random.Random(876)
    nights = []
    while len(nights) < 160:
        t = rng.uniform(0.0, 3652.0)
        if (t % 365.25) < 243.0:
            nights.append(t)
    nights = sorted(nights)
    s = build_sim()
    s.integrator = "ias15"
    rows = []
    for t in nights:
        s.integrate(t * K_GAUSS, exact_finish_time=1)
        rv = s.particles[0].vz * V_UNIT
        rows.append((2455000.0 + t, rv + rng.gauss(0.0, math.hypot(3.0, 2.0)), 3.0))
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "..", "examples", "data", "gj876_like_rv.csv")
    with open(out, "w") as f:
        f.write("# A GJ 876-like resonant pair (P 30.126 and 61.082 d, K 88.34 and 212.07 m/s, "
                "star 0.32 M_sun; the elements of tests/reference/make_nbody_rv_reference.py, "
                "epoch BJD 2455000):\n")
        f.write("# REBOUND %s IAS15 velocities at 160 nights in ten years, with Gaussian noise "
                "of 3 m/s errors and 2 m/s jitter (Python's random, seed 876). Synthetic: made by that "
                "script, free to use.\n" % rebound.__version__)
        f.write("time,rv,err\n")
        for t, v, e in rows:
            f.write("%.5f,%.3f,%.1f\n" % (t, v, e))
    print("wrote", out)


M_EARTH = 3.986004e14 / 1.3271244e20  # M_sun (IAU 2015 nominal GM ratio)
# a Kepler-9-like pair near 2:1 about a 1 M_sun star: P (d), m (M_earth),
# e, omega (star's), tc (a mid-transit, days after the epoch)
TTV_MSTAR = 1.0
TTV_PLANETS = [(19.243, 45.0, 0.06, 1.2, 3.1), (38.978, 30.0, 0.07, 2.5, 11.4)]


def tc_to_tp(tc, P, e, w):
    """starling's sl_krv_tc_to_tp: the true anomaly at conjunction pi/2 - w."""
    h = 0.5 * (0.5 * math.pi - w)
    E = 2.0 * math.atan2(math.sqrt(1 - e) * math.sin(h), math.sqrt(1 + e) * math.cos(h))
    return tc - P * (E - e * math.sin(E)) / (2 * math.pi)


def main_ttv_example():
    """examples/data/kepler9_like_ttv.csv: every transit of the pair over
    four years after the epoch (IAS15, bisected as above), with Gaussian
    noise of 1.5 minutes (the errors given), Python's random, seed 9."""
    import random
    rng = random.Random(9)
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=TTV_MSTAR)
    for P, m, e, w, tc in TTV_PLANETS:
        tp = tc_to_tp(tc, P, e, w)
        sim.add(m=m * M_EARTH, P=P * K_GAUSS, e=e, omega=w + math.pi,
                M=2 * math.pi * (0.0 - tp) / P, inc=0.5 * math.pi)
    sim.move_to_com()
    err = 1.5 / 1440.0
    rows = []
    for j in (1, 2):
        for t in transits(sim, j, 1461.0 * K_GAUSS, 0.5 * K_GAUSS):
            rows.append((j, t / K_GAUSS + rng.gauss(0.0, err)))
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "..", "examples", "data", "kepler9_like_ttv.csv")
    with open(out, "w") as f:
        f.write("# A Kepler-9-like pair near 2:1 about a 1 M_sun star (P, m in Earth masses, e, "
                "omega of the star, tc days after the epoch BJD 2455000): %s\n"
                % "; ".join(" ".join("%g" % x for x in p) for p in TTV_PLANETS))
        f.write("# REBOUND %s IAS15 mid-transit times over four years with Gaussian noise of "
                "1.5 min (Python's random, seed 9); tests/reference/make_nbody_rv_reference.py. "
                "Synthetic: free to use.\n" % rebound.__version__)
        f.write("planet,time,error\n")
        for j, t in rows:
            f.write("%d,%.6f,%.6f\n" % (j, 2455000.0 + t, err))
    print("wrote", out, len(rows), "transits")


if __name__ == "__main__":
    main()
    main_ttv()
    main_example()
    main_ttv_example()
