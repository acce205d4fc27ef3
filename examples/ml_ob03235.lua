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
-- Run: starling examples/ml_ob03235.lua [out_prefix] [backend] [--full]
--
-- Size: by default the 2003 season alone (HJD - 2450000 in [2700, 2960):
-- 636 of the 1,535 points, the event and its baseline that year, written
-- to OUT_2003.csv) and the point-source search alone, on a 3 x 2 grid of
-- (s, q) (s 0.9, 1.1, 1.35; q 1e-3, 1e-2) and 4 alpha slices, the best
-- cell polished: it finds the planet's (s, q) region and its chi^2 drop
-- in under a minute on 2 CPU cores. --full fits every point on a 9 x 5
-- grid (s from 0.7 to 1.5, q from 1e-4 to 1e-2) with 12 slices (about 10
-- minutes on 2 CPU cores, 7 s on an H100) and then runs the finite-source
-- search (9 cells of magnification maps with pixels of 1e-4: about 60 s
-- on an H100, hours on a CPU).
local starling = require "starling"
local ml = starling.microlensing

-- "--full" anywhere among the arguments: the full-size run (see above)
local full, args = false, {}
for _, a in ipairs(arg or {}) do
  if a == "--full" then full = true else args[#args + 1] = a end
end
local prefix = args[1] or "ml_ob03235"
local backend = args[2] or "auto"
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local data = here .. "/data/ob03235.csv"
local grid = {s = {from = 0.7, to = 1.5, n = 9}, q = {from = 1e-4, to = 1e-2, n = 5}, alpha = 12,
              polish = 3}
if not full then
  -- the event's season: the header and the rows with 2700 <= time < 2960
  local season = prefix .. "_2003.csv"
  local src = assert(io.open(data))
  local dst = assert(io.open(season .. ".tmp", "w"))
  local n = 0
  for line in src:lines() do
    local t = tonumber(line:match("^([^,]+),"))
    if not t then
      dst:write(line, "\n")
    elseif t >= 2700 and t < 2960 then
      dst:write(line, "\n")
      n = n + 1
    end
  end
  src:close()
  dst:close()
  assert(os.rename(season .. ".tmp", season))
  print(string.format("wrote %s: the %d points of the 2003 season", season, n))
  data = season
  grid = {s = {from = 0.9, to = 1.35, n = 3}, q = {from = 1e-3, to = 1e-2, n = 2}, alpha = 4,
          polish = 1}
end

print(string.format("point-source grid search of %s: %d s x %d q cells x %d alpha slices%s "
                    .. "(progress on stderr)", data, grid.s.n, grid.q.n, grid.alpha,
                    full and "" or "; --full for every point, 9 x 5 x 12 and the finite-source "
                    .. "search"))
local r = ml.gridsearch{data = data, backend = backend, s = grid.s, q = grid.q,
                        alpha = grid.alpha, polish = grid.polish,
                        csv = prefix .. "_grid.csv", png = prefix .. "_chi2.png", overwrite = true}
local b = r.best
print(string.format("PSPL: t0 %.3f u0 %.4f tE %.2f chi2 %.1f", r.pspl.t0, r.pspl.u0, r.pspl.tE,
                    r.pspl.chi2))
print(string.format("binary (point source): t0 %.3f u0 %+.4f tE %.2f s %.4f q %.3e alpha %.1f "
                    .. "chi2 %.1f (PSPL - binary = %.1f)", b.t0, b.u0, b.tE, b.s, b.q, b.alpha,
                    b.chi2, r.pspl.chi2 - b.chi2))
print("published (Bond et al. 2004): s 1.120, q 0.0039; MulensModel example 16 "
      .. "(finite source, parallax, every point): s 1.101, q 0.0022, alpha 223.2, chi2 1607.2")
if not full then
  print("(the 2003 season alone: its chi2 is not comparable with fits of every point, and "
        .. "without the other seasons' baseline u0 and tE trade against the blend)")
end
print(string.format("grid search: %d cells, %d likelihood evaluations, %.2f s on %s",
                    #r.cells, r.evals, r.seconds, r.backend))

print("wrote " .. prefix .. "_grid.csv and " .. prefix .. "_chi2.png")
if not full then
  print("finite-source search skipped (hours on a CPU, a minute on a GPU): --full runs it")
  return
end

-- finite source: (s, q) a few per cent and a factor 1.5 either side of the
-- point-source best, rho between 3e-4 and 5e-3 (maps of pixel 1e-4), every
-- cell also started from the point-source best (its basin is narrow: a
-- cell's own fits from the PSPL may not find it)
print("finite-source grid search: 3 x 3 cells around the point-source best (progress on stderr)")
local f = ml.gridsearch{data = data, backend = backend,
                        s = {b.s / 1.04, b.s, b.s * 1.04}, q = {b.q / 1.5, b.q, b.q * 1.5},
                        alpha = 12, rho = {min = 3e-4, max = 5e-3}, pixel = 1e-4, rays = 100,
                        start = {t0 = b.t0, u0 = b.u0, tE = b.tE, alpha = b.alpha},
                        csv = prefix .. "_fs_grid.csv", overwrite = true}
local fb = f.best
print(string.format("binary (finite source): t0 %.3f u0 %+.4f tE %.2f s %.4f q %.3e alpha %.1f "
                    .. "rho %.2e chi2 %.1f (point source - finite = %.1f)", fb.t0, fb.u0, fb.tE,
                    fb.s, fb.q, fb.alpha, fb.rho, fb.chi2, b.chi2 - fb.chi2))
print(string.format("finite-source search: %d cells, %d likelihood evaluations, %.2f s on %s",
                    #f.cells, f.evals, f.seconds, f.backend))
print("wrote " .. prefix .. "_fs_grid.csv")
