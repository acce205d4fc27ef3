-- A planetary caustic-crossing event made from a known model and found
-- again by the grid search. The photometry imitates a survey: a wide
-- survey's I band once a night for 160 days (with bad-weather gaps), a
-- follow-up network's I band every 20 minutes for the 6 days around the
-- peak, and a V-band point every third night; magnitudes with 0.5 %-3 %
-- errors that grow with faintness, and Gaussian noise. The grid search
-- then fits a PSPL, fits (t0, u0, tE, alpha) for every (s, q) of the grid
-- and its alpha slices, polishes the best cells, and writes the table and
-- the chi^2 map. A binary lens on the x axis cannot tell (u0, alpha) from
-- (-u0, -alpha): either is the truth.
-- Run: starling examples/ml_gridsearch.lua [out_prefix] [backend] [seed] [--full]
--
-- Size: by default a small grid around the truth, 3 x 2 cells of (s, q)
-- (s 0.87, 1.15, 1.52; q 2e-3, 2e-2) and 8 alpha slices, 96 fits, the best
-- cell polished: under a minute on 2 CPU cores. Coarser alpha slices (4)
-- land in the close (s < 1) solution instead. --full searches 11 x 7 cells
-- (s from 0.5 to 2, q from 1e-4 to 0.1) and polishes the best 3 (1,232
-- fits; about 5 minutes on 2 CPU cores, 4.4 s on an H100).
local starling = require "starling"
local ml = starling.microlensing

-- "--full" anywhere among the arguments: the full-size grid (see above)
local full, args = false, {}
for _, a in ipairs(arg or {}) do
  if a == "--full" then full = true else args[#args + 1] = a end
end
local prefix = args[1] or "ml_gridsearch"
local backend = args[2] or "auto"
local seed = tonumber(args[3]) or 12
local grid = full and {s = {from = 0.5, to = 2.0, n = 11}, q = {from = 1e-4, to = 1e-1, n = 7},
                      polish = 3}
                   or {s = {from = 0.87, to = 1.52, n = 3}, q = {from = 2e-3, to = 2e-2, n = 2},
                       polish = 1}
local truth = {t0 = 8000, u0 = 0.03, tE = 30, s = 1.15, q = 2e-3, alpha = 60}
math.randomseed(seed)

local function gauss()
  return math.sqrt(-2 * math.log(1 - math.random())) * math.cos(2 * math.pi * math.random())
end

-- epochs of each passband
local bands = {}
local t_survey, t_follow, t_v = {}, {}, {}
for d = 0, 159 do
  local night = truth.t0 - 80 + d + 0.1 * math.random()
  if math.random() > 0.25 then t_survey[#t_survey + 1] = night end -- a quarter lost to weather
  if d % 3 == 0 and math.random() > 0.25 then t_v[#t_v + 1] = night + 0.02 end
end
for k = 0, 6 * 72 - 1 do
  local t = truth.t0 - 3 + k / 72
  if (t - truth.t0 + 3) % 1 < 0.4 then t_follow[#t_follow + 1] = t end -- 40 % of each day dark
end
bands = {{"survey_I", t_survey, 19.0, 0.6}, {"followup_I", t_follow, 19.0, 0.6},
         {"survey_V", t_v, 20.3, 0.5}}

-- the light curve, magnitudes with zero point 22 (docs/microlensing.md)
local path = prefix .. "_data.csv"
local f = assert(io.open(path .. ".tmp", "w"))
f:write(string.format("# made by examples/ml_gridsearch.lua, seed %d: binary t0 %g u0 %g tE %g "
  .. "s %g q %g alpha %g\n", seed, truth.t0, truth.u0, truth.tE, truth.s, truth.q, truth.alpha))
f:write("time,mag,err,band\n")
local n = 0
for _, b in ipairs(bands) do
  local name, t, base, fs = b[1], b[2], b[3], b[4]
  local A = ml.binary{t0 = truth.t0, u0 = truth.u0, tE = truth.tE, s = truth.s, q = truth.q,
                      alpha = truth.alpha, t = t, backend = backend}
  local F0 = 10 ^ (0.4 * (22 - base))
  for i = 1, #t do
    local m = 22 - 2.5 * math.log(F0 * (fs * A[i] + 1 - fs), 10)
    local err = 0.005 + 0.025 * 10 ^ (0.4 * (m - base))
    f:write(string.format("%.5f,%.5f,%.5f,%s\n", t[i], m + err * gauss(), err, name))
    n = n + 1
  end
end
f:close()
assert(os.rename(path .. ".tmp", path))
print(string.format("wrote %s: %d points in %d passbands", path, n, #bands))

local L = ml.likelihood{data = path, model = "binary", backend = backend}
local _, chi2_truth = L:eval({truth.t0, truth.u0, truth.tE, truth.s, truth.q, truth.alpha})
print(string.format("chi2 of the truth: %.1f", chi2_truth))

print(string.format("grid search: %d s x %d q cells x 8 alpha slices on %s%s "
                    .. "(progress on stderr)", grid.s.n, grid.q.n, L:info().backend,
                    full and "" or "; --full for the 11 x 7 grid"))
local r = ml.gridsearch{data = path, backend = backend, s = grid.s, q = grid.q, alpha = 8,
                        polish = grid.polish, csv = prefix .. "_grid.csv",
                        png = prefix .. "_chi2.png", overwrite = true}
local b = r.best
print(string.format("PSPL start: t0 %.3f u0 %.4f tE %.2f chi2 %.1f", r.pspl.t0, r.pspl.u0,
                    r.pspl.tE, r.pspl.chi2))
print(string.format("best: t0 %.4f u0 %+.5f tE %.3f s %.4f q %.3e alpha %.2f chi2 %.1f",
                    b.t0, b.u0, b.tE, b.s, b.q, b.alpha, b.chi2))
print(string.format("grid search: %d cells, %d likelihood evaluations, %.2f s on %s",
                    #r.cells, r.evals, r.seconds, r.backend))
print("wrote " .. prefix .. "_grid.csv and " .. prefix .. "_chi2.png")
