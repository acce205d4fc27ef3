"""The peer of bench/nbody_rv_bench.lua: the same 2-planet N-body RV
likelihood written the way users write it today, REBOUND (WHFast in Jacobi
coordinates, no corrector, step P_1 / 100, as starling's default) from the same Jacobi
elements through the 200 observation times of tests/data, one model a
call, on P processes; prints models per second.

    python3 bench/nbody_rv_rebound.py [models [procs]]

Timed after a warm-up of each process, the work itself (no process start)."""
import math
import multiprocessing as mp
import os
import sys
import time

import rebound

K_GAUSS = 0.01720209895
V_UNIT = 1.495978707e11 * K_GAUSS / 86400.0
HERE = os.path.dirname(os.path.abspath(__file__))


def mass_from_k(K, P, e, m_in):
    A = K * math.sqrt((1 - e) * (1 + e)) * (P / (2 * math.pi)) ** (1 / 3)
    m = A * m_in ** (2 / 3)
    for _ in range(60):
        nxt = A * (m_in + m) ** (2 / 3)
        if abs(nxt - m) <= 1e-15 * nxt:
            return nxt
        m = nxt
    return m


def load():
    t, v = [], []
    with open(os.path.join(HERE, "..", "tests", "data", "nbody_rv_gj876_rebound.csv")) as f:
        for line in f:
            if line[0] in "#t":
                continue
            a, b = line.split(",")
            t.append(float(a)), v.append(float(b))
    return t, v


T, V = load()


def rv_model(p, times, mstar=0.32):
    """The star's velocity (m/s) at times (days from the epoch, any order)
    for planets p (P K e w M0 twice), or None when the integration breaks."""
    sim = rebound.Simulation()
    sim.G = 1.0
    sim.add(m=mstar)
    m_in = mstar
    for j in range(2):
        P, K, e, w, M0 = p[5 * j:5 * j + 5]
        if not (P > 0 and K >= 0 and 0 <= e < 1):
            return None
        Pc = P * K_GAUSS
        m = mass_from_k(K / V_UNIT, Pc, e, m_in)
        sim.add(m=m, P=Pc, e=e, omega=w + math.pi, M=M0, inc=0.5 * math.pi)
        m_in += m
    sim.move_to_com()
    sim.integrator = "whfast"
    sim.integrator.corrector = 0  # WHFast's Jacobi coordinates, no corrector: starling's default
    sim.dt = p[0] * K_GAUSS / 100
    model = [0.0] * len(times)
    pos = sorted((x, k) for k, x in enumerate(times) if x >= 0)
    neg = sorted(((x, k) for k, x in enumerate(times) if x < 0), reverse=True)
    try:
        for sign, ts in ((1, pos), (-1, neg)):
            s = sim.copy()
            s.dt = sign * sim.dt
            for x, k in ts:
                s.integrate(x * K_GAUSS, exact_finish_time=1)
                model[k] = s.particles[0].vz * V_UNIT
    except Exception:  # REBOUND stops a run that breaks (escape, encounter, NaN)
        return None
    return model


def loglike(p):
    model = rv_model(p, T)
    if model is None:
        return -math.inf
    gamma, jit = p[10], p[11]
    ll = 0.0
    for k in range(len(T)):
        var = 4.0 + jit * jit
        r = V[k] - model[k] - gamma
        ll += -0.5 * (r * r / var + math.log(2 * math.pi * var))
    return ll


def rows(n):
    truth = [30.126, 88.34, 0.2531, 0.8, 2.1, 61.082, 212.07, 0.0354, 0.4, 5.4, 0.0, 1.0]
    rng, out = 12345, []
    for _ in range(n):
        r = []
        for k, x in enumerate(truth):
            rng = (1103515245 * rng + 12345) % 2147483648
            s = 0.002 if k % 5 == 0 else 0.1
            r.append(x * (1 + s * (2 * rng / 2147483648 - 1)))
        out.append(r)
    return out


def work(chunk):
    return [loglike(p) for p in chunk]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    procs = int(sys.argv[2]) if len(sys.argv) > 2 else os.cpu_count()
    ps = rows(n)
    chunks = [ps[i::procs] for i in range(procs)]
    with mp.Pool(procs) as pool:
        pool.map(work, [c[:2] for c in chunks])  # warm-up
        t0 = time.perf_counter()
        pool.map(work, chunks)
        dt = time.perf_counter() - t0
    print("rebound %s WHFast (Jacobi, P_1/100), %d processes: %d models in %.3f s, %.4g models/s"
          % (rebound.__version__, procs, n, dt, n / dt))


if __name__ == "__main__":
    main()
