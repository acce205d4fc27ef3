#!/usr/bin/env python3
"""Reference data for tests/test_mcmc_diag.c, made with ArviZ.

Draws of three made-up cases, each chains x draws of one parameter:

  ar09    4 chains of 1000 draws, AR(1) with phi = 0.9 (tau = 19)
  offset  4 chains of 501 draws (an odd count: the middle draw is
          dropped when chains are split), AR(1) phi = 0.5, one chain
          shifted by 2: R-hat well above 1
  heavy   8 chains of 200 draws, AR(1) phi = 0.7 driven by Student-t noise
          with 2 degrees of freedom (heavy tails: bulk and tail ESS differ)

  tests/data/mcmc_diag_draws.csv   case,chain,draw,value
  tests/data/mcmc_diag_ref.csv     case,rhat,ess_bulk,ess_tail,mean,sd: ArviZ's
                                   rhat (rank: max of bulk and folded split
                                   R-hat), ess (bulk, tail), the pooled mean
                                   and sd (ddof 1)

Run:  python3 -m venv /tmp/azenv && /tmp/azenv/bin/pip install numpy arviz
      /tmp/azenv/bin/python tests/reference/make_mcmc_diag_reference.py
"""
import os

import arviz as az
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "data")


def ar1(rng, m, n, phi, noise):
    x = np.zeros((m, n))
    for c in range(m):
        e = noise(rng, n)
        for t in range(1, n):
            x[c, t] = phi * x[c, t - 1] + e[t]
        x[c, 0] = e[0] / np.sqrt(1 - phi * phi)
    return x


def main():
    rng = np.random.default_rng(20261126)
    cases = {
        "ar09": ar1(rng, 4, 1000, 0.9, lambda r, n: r.normal(size=n)),
        "offset": ar1(rng, 4, 501, 0.5, lambda r, n: r.normal(size=n)),
        "heavy": ar1(rng, 8, 200, 0.7, lambda r, n: r.standard_t(2, size=n)),
    }
    cases["offset"][2] += 2.0
    with open(os.path.join(data, "mcmc_diag_draws.csv"), "w") as f:
        f.write("case,chain,draw,value\n")
        for name, x in cases.items():
            for c in range(x.shape[0]):
                for t in range(x.shape[1]):
                    f.write(f"{name},{c},{t},{x[c, t]:.17g}\n")
    with open(os.path.join(data, "mcmc_diag_ref.csv"), "w") as f:
        f.write("case,rhat,ess_bulk,ess_tail,mean,sd\n")
        for name, x in cases.items():
            f.write(f"{name},{az.rhat(x):.17g},{az.ess(x, method='bulk'):.17g},"
                    f"{az.ess(x, method='tail'):.17g},{x.mean():.17g},{x.std(ddof=1):.17g}\n")
    print(f"arviz {az.__version__}, numpy {np.__version__}")


if __name__ == "__main__":
    main()
