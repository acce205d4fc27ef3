"""Makes rv_2planet.txt, the synthetic data set of examples/rv_grid.lua.

Python standard library only (no RadVel needed), so that anyone can remake
it: `python3 examples/data/make_rv_2planet.py > examples/data/rv_2planet.txt`.
With a seed as argument it makes another realisation of the same system
(the noise and the nights).
The model is kepler_rv's (RadVel's convention, basis "M0"):
v = K [cos(nu + w) + e cos w], M = 2 pi (t - epoch)/P + M0, epoch = first time.
"""
import math
import random
import sys

TRUTH = [  # P [d], K [m/s], e, w [rad], M0 [rad] at the epoch
    (14.62, 31.5, 0.12, 1.10, 2.30),
    (97.30, 18.2, 0.28, 4.00, 0.90),
]
GAMMA, JITTER = -5.2, 2.5  # m/s
N_OBS, SPAN, SEED = 60, 620.0, 20090101


def ecc_anomaly(M, e):
    E = M + 0.85 * e * math.copysign(1.0, math.sin(M))
    for _ in range(50):
        d = (E - e * math.sin(E) - M) / (1 - e * math.cos(E))
        E -= d
        if abs(d) < 1e-15:
            break
    return E


def velocity(t, epoch):
    v = GAMMA
    for P, K, e, w, M0 in TRUTH:
        E = ecc_anomaly(2 * math.pi * (t - epoch) / P + M0, e)
        nu = 2 * math.atan2(math.sqrt(1 + e) * math.sin(E / 2), math.sqrt(1 - e) * math.cos(E / 2))
        v += K * (math.cos(nu + w) + e * math.cos(w))
    return v


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else SEED
    rng = random.Random(seed)
    t0 = 2459000.5
    # observing seasons: nights drawn in three 150-day windows a year apart
    times = sorted(t0 + rng.choice([0, 230, 470]) + rng.uniform(0, 150) for _ in range(N_OBS))
    print("# Synthetic 2-planet RV data for examples/rv_grid.lua "
          "(examples/data/make_rv_2planet.py, seed %d)." % seed)
    print("# True parameters (basis \"M0\", epoch = first time %.5f):" % times[0])
    for j, (P, K, e, w, M0) in enumerate(TRUTH, 1):
        print("#   planet %d: P = %g d, K = %g m/s, e = %g, w = %g rad, M0 = %g rad"
              % (j, P, K, e, w, M0))
    print("#   gamma = %g m/s, jitter = %g m/s (added in quadrature to the errors)"
          % (GAMMA, JITTER))
    print("# time [BJD]  velocity [m/s]  error [m/s]  instrument")
    for t in times:
        err = rng.uniform(1.5, 3.5)
        v = velocity(t, times[0]) + rng.gauss(0, math.hypot(err, JITTER))
        print("%.5f %.3f %.3f HIRES" % (t, v, err))


main()
