-- A real event: OGLE-2003-BLG-235/MOA-2003-BLG-53, the first planet found
-- by microlensing (Bond et al. 2004, ApJ 606, L155), from the OGLE and MOA
-- photometry that MulensModel ships (NASA Exoplanet Archive; MIT licence;
-- examples/data/ob03235.csv, made by tests/reference/ob03235_data.py).
-- A PSPL fit, then the point-source binary grid search over (s, q) and 12
-- alpha slices. The published solution (s ~ 1.10-1.12, q ~ 0.002-0.004,
-- alpha ~ 224 deg) has the source cross the caustic, where a point source
-- overshoots: the point-source search finds the planet's (s, q) region and
-- a chi^2 well below the PSPL's. Then the finite-source search (model fsbl:
-- a magnification map per (s, q) cell) on a 3 x 3 grid around that cell,
-- fitting rho too, as Bond et al. did.
-- Run: starling examples/ml_ob03235.lua [out_prefix] [backend]
local starling = require "starling"
local ml = starling.microlensing

local prefix = (arg and arg[1]) or "ml_ob03235"
local backend = (arg and arg[2]) or "auto"
local data = "examples/data/ob03235.csv" -- run from the repository's root

local r = ml.gridsearch{data = data, backend = backend,
                        s = {from = 0.7, to = 1.5, n = 9}, q = {from = 1e-4, to = 1e-2, n = 5},
                        alpha = 12, csv = prefix .. "_grid.csv", png = prefix .. "_chi2.png"}
local b = r.best
print(string.format("PSPL: t0 %.3f u0 %.4f tE %.2f chi2 %.1f", r.pspl.t0, r.pspl.u0, r.pspl.tE,
                    r.pspl.chi2))
print(string.format("binary (point source): t0 %.3f u0 %+.4f tE %.2f s %.4f q %.3e alpha %.1f "
                    .. "chi2 %.1f (PSPL - binary = %.1f)", b.t0, b.u0, b.tE, b.s, b.q, b.alpha,
                    b.chi2, r.pspl.chi2 - b.chi2))
print("published (Bond et al. 2004): s 1.120, q 0.0039; MulensModel example 16 "
      .. "(finite source, parallax): s 1.101, q 0.0022, alpha 223.2, chi2 1607.2")
print(string.format("grid search: %d cells, %d likelihood evaluations, %.2f s on %s",
                    #r.cells, r.evals, r.seconds, r.backend))

-- finite source: (s, q) a few per cent and a factor 1.5 either side of the
-- point-source best, rho between 3e-4 and 5e-3 (maps of pixel 1e-4), every
-- cell also started from the point-source best (its basin is narrow: a
-- cell's own fits from the PSPL may not find it)
local f = ml.gridsearch{data = data, backend = backend,
                        s = {b.s / 1.04, b.s, b.s * 1.04}, q = {b.q / 1.5, b.q, b.q * 1.5},
                        alpha = 12, rho = {min = 3e-4, max = 5e-3}, pixel = 1e-4, rays = 100,
                        start = {t0 = b.t0, u0 = b.u0, tE = b.tE, alpha = b.alpha},
                        csv = prefix .. "_fs_grid.csv"}
local fb = f.best
print(string.format("binary (finite source): t0 %.3f u0 %+.4f tE %.2f s %.4f q %.3e alpha %.1f "
                    .. "rho %.2e chi2 %.1f (point source - finite = %.1f)", fb.t0, fb.u0, fb.tE,
                    fb.s, fb.q, fb.alpha, fb.rho, fb.chi2, b.chi2 - fb.chi2))
print(string.format("finite-source search: %d cells, %d likelihood evaluations, %.2f s on %s",
                    #f.cells, f.evals, f.seconds, f.backend))
