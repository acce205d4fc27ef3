#!/usr/bin/env python3
"""RadVel's single-core speed on rv-bench's set-up (n_obs = 256, n_pl = 4,
one instrument, Table 2 parameter distribution): model evaluations (RVModel
at the data times + the jitter log-likelihood) per second, the median of 5
timed loops. Usage: python3 bench/radvel_bench.py

On a machine without network (the GPU host), unpack RadVel's wheel and put
it on PYTHONPATH: `python3 -m zipfile -e radvel-*.whl DIR`. RadVel's package
__init__ also imports its plotting, reporting and sampling stacks
(matplotlib, emcee, nbsphinx, astropy, dill), which model evaluation never
calls; when that import fails, this script loads the package's model,
likelihood and C Kepler modules without the __init__, and stubs scipy and
pandas if they are missing (the RV likelihood path imports but does not
call them; a stub raises if anything does). It prints what it did."""
import importlib
import importlib.metadata
import importlib.util
import sys
import time
import types

import numpy as np


def _stub(name):
    m = types.ModuleType(name)
    m.__path__ = []  # a package with no submodules: they get stubs of their own

    def missing(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)

        def fail(*a, **k):
            raise RuntimeError("%s.%s is a stub in radvel_bench.py" % (name, attr))
        return fail
    m.__getattr__ = missing
    return m


def load_radvel():
    try:
        import radvel
        return radvel.model, radvel.likelihood, radvel.kepler, "full import"
    except ImportError as err:
        why = str(err)
    spec = importlib.util.find_spec("radvel")
    if spec is None:
        sys.exit("radvel_bench.py: radvel not found (pip install radvel, or unpack its wheel "
                 "onto PYTHONPATH)")
    pkg = types.ModuleType("radvel")
    pkg.__path__ = list(spec.submodule_search_locations)
    sys.modules["radvel"] = pkg
    stubbed = []
    for name in ("scipy", "scipy.linalg", "scipy.spatial", "pandas"):
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules[name] = _stub(name)
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, sys.modules[name])
            stubbed.append(name)
    for sub in ("kepler", "orbit", "model", "basis", "gp", "likelihood"):
        setattr(pkg, sub, importlib.import_module("radvel." + sub))
    how = "submodules without the package __init__ (%s)" % why
    if stubbed:
        how += "; stubbed: " + ", ".join(stubbed)
    return pkg.model, pkg.likelihood, pkg.kepler, how


model, likelihood, kepler, how = load_radvel()
print("# radvel loaded as: " + how)
rng = np.random.default_rng(1)
t = 3652.5 * (np.arange(256) + 0.5 * rng.uniform(size=256)) / 256
v = 50 * (rng.uniform(size=256) - 0.5)
err = 1 + 4 * rng.uniform(size=256)
p = model.Parameters(4, basis="per tp e w k")
for j in range(1, 5):
    p["per%d" % j] = model.Parameter(value=2.0 * (3652.5 / 2.0) ** rng.uniform())
    p["tp%d" % j] = model.Parameter(value=rng.uniform(0, 100))
    p["e%d" % j] = model.Parameter(value=0.99 * rng.uniform())
    p["w%d" % j] = model.Parameter(value=2 * np.pi * rng.uniform())
    p["k%d" % j] = model.Parameter(value=500 ** rng.uniform())
p["dvdt"] = model.Parameter(value=0.0)
p["curv"] = model.Parameter(value=0.0)
like = likelihood.RVLikelihood(model.RVModel(p), t, v, err)
like.params["gamma"] = model.Parameter(value=0.0)
like.params["jit"] = model.Parameter(value=1.0)
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
      "(single core, median of 5)" % (importlib.metadata.version("radvel"), kepler.cext, np.__version__,
                                       sys.version.split()[0], rates[2]))
