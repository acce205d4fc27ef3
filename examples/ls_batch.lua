-- The seed's batch demonstration (Gowanlock et al. 2021): ~1,000 synthetic
-- asteroids with log-normal numbers of points and a ZTF-like cadence
-- (random nights in observing seasons over three years, points within the
-- night), all in one lombscargle call; reports the fraction whose rotation
-- period is recovered within 0.1 h.
--
-- An asteroid's light curve is double-peaked (two maxima per rotation), so
-- the periodogram's highest peak is usually at half the rotation period:
-- a period counts as recovered when the best period or twice it is within
-- 0.1 h of the truth (as the seed counts it).
-- Run: starling examples/ls_batch.lua [n_objects]
local starling = require "starling"

local n_obj = tonumber(arg and arg[1]) or 1000
local seed = 20211
local function rand() seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 end
local function gauss() return math.sqrt(-2 * math.log(rand() + 1e-300)) * math.cos(2 * math.pi * rand()) end

-- ZTF-like: 3 years, an 8-month season each year, nights at random, the
-- point in a 0.25 d window of the night that drifts by 0.35 d over the
-- season (the object moves from the morning to the evening sky); errors
-- 0.02-0.1 mag. Single-site nights make the 1 c/d alias the usual failure.
local function cadence_time()
  local year = math.floor(3 * rand())
  local night = math.floor(240 * rand())
  return 365.25 * year + night + 0.35 * night / 240 + 0.25 * rand()
end

print(string.format("making %d synthetic asteroids", n_obj))
local objects, truth = {}, {}
for i = 1, n_obj do
  local n = math.floor(math.exp(math.log(120) + 0.8 * gauss()) + 0.5)   -- log-normal N_t
  n = math.max(10, math.min(2000, n))
  local period_h = 2.5 + 17.5 * rand()                                  -- rotation period
  local amp, ph, ph2 = 0.1 + 0.3 * rand(), rand(), rand()
  local t, y, dy = {}, {}, {}
  for k = 1, n do t[k] = cadence_time() end
  table.sort(t)
  for k = 1, n do
    local phase = t[k] * 24 / period_h + ph
    dy[k] = 0.02 + 0.08 * rand()
    y[k] = 18 + amp * (math.sin(4 * math.pi * phase) + 0.3 * math.sin(2 * math.pi * (phase + ph2)))
           + dy[k] * gauss()
  end
  objects[i] = {t = t, y = y, dy = dy, id = string.format("ast%04d", i)}
  truth[i] = {period_h = period_h, n = n}
end

-- the seed's batch grid: [1.005, 150.796) rad/d, N_f = 28,608
print(string.format("Lomb-Scargle periodograms of %d objects at 28608 frequencies each", n_obj))
local r = starling.lombscargle{
  objects = objects,
  grid = "explicit", f_min = 1.005 / (2 * math.pi), f_max = 150.796 / (2 * math.pi), n_f = 28608,
}

local found, found50, n50, flagged = 0, 0, 0, 0
for i = 1, r.n do
  local o, tr = r[i], truth[i]
  if o.flag ~= "ok" then
    flagged = flagged + 1
  else
    local p = 24 * o.best_period
    local ok = math.abs(p - tr.period_h) < 0.1 or math.abs(2 * p - tr.period_h) < 0.1
    if ok then found = found + 1 end
    if tr.n >= 50 then
      n50 = n50 + 1
      if ok then found50 = found50 + 1 end
    end
  end
end
local pts = 0
for i = 1, n_obj do pts = pts + truth[i].n end
print(string.format("backend: %s (%s); %d objects, %d points (mean N_t %.0f), %.1f ms",
  r.backend, r.engine, n_obj, pts, pts / n_obj, 1e3 * r.wall_s))
print(string.format("recovered within 0.1 h: %d / %d = %.1f %%  (N_t >= 50: %d / %d = %.1f %%; flagged %d)",
  found, n_obj, 100 * found / n_obj, found50, n50, 100 * found50 / math.max(1, n50), flagged))
-- the seed reached 94.9 % (99 % with >= 50 points) on its own cadence; far
-- below 80 % here would mean a bug, not the cadence
assert(found50 >= 0.8 * n50, "recovered fraction too low")
