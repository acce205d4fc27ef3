#!/usr/bin/env python3
"""RadVel's single-core speed on rv-bench's set-up (n_obs = 256, n_pl = 4,
one instrument, Table 2 parameter distribution): model evaluations (RVModel
at the data times + the jitter log-likelihood) per second, the median of 5
timed loops. Usage: python3 bench/radvel_bench.py"""
import sys
import time

import numpy as np
import radvel
from radvel.likelihood import RVLikelihood

rng = np.random.default_rng(1)
t = 3652.5 * (np.arange(256) + 0.5 * rng.uniform(size=256)) / 256
v = 50 * (rng.uniform(size=256) - 0.5)
err = 1 + 4 * rng.uniform(size=256)
p = radvel.Parameters(4, basis="per tp e w k")
for j in range(1, 5):
    p["per%d" % j] = radvel.Parameter(value=2.0 * (3652.5 / 2.0) ** rng.uniform())
    p["tp%d" % j] = radvel.Parameter(value=rng.uniform(0, 100))
    p["e%d" % j] = radvel.Parameter(value=0.99 * rng.uniform())
    p["w%d" % j] = radvel.Parameter(value=2 * np.pi * rng.uniform())
    p["k%d" % j] = radvel.Parameter(value=500 ** rng.uniform())
p["dvdt"] = radvel.Parameter(value=0.0)
p["curv"] = radvel.Parameter(value=0.0)
like = RVLikelihood(radvel.RVModel(p), t, v, err)
like.params["gamma"] = radvel.Parameter(value=0.0)
like.params["jit"] = radvel.Parameter(value=1.0)
like.vector.dict_to_vector()
n = 2000
rates = []
for rep in range(6):
    t0 = time.perf_counter()
    for i in range(n):
        like.vector.vector[0][0] = 2.0 + 1e-6 * i  # a new model each call
        like.logprob()
    rates.append(n / (time.perf_counter() - t0))
rates = sorted(rates[1:])
print("radvel %s (C Kepler solver: %s), numpy %s, python %s: %.4g model evaluations/s "
      "(single core, median of 5)" % (radvel.__version__, radvel.kepler.cext, np.__version__,
                                       sys.version.split()[0], rates[2]))
