-- The seed's demonstration (Gowanlock et al. 2021): a synthetic asteroid
-- light curve of 3,554 points, rotation period 13.55 h (a double-peaked
-- curve, so the periodogram's highest peak is at half the period).
-- Run: starling examples/ls_asteroid.lua
local starling = require "starling"

local period_h = 13.55
local t, y, dy = {}, {}, {}
local seed = 12345
local function rand() seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 end
local tt = 0
for i = 1, 3554 do
  tt = tt + (rand() < 0.7 and 0.01 + 0.02 * rand() or 1 + 3 * rand())
  local ph = 2 * math.pi * tt * 24 / period_h
  t[i] = tt
  dy[i] = 0.02 + 0.03 * rand()
  y[i] = 18 + 0.3 * math.sin(2 * ph) + 0.1 * math.sin(ph) + dy[i] * (rand() - 0.5) * 2
end

print("Lomb-Scargle periodogram of 3554 points at 28194 frequencies")
local r = starling.lombscargle{
  t = t, y = y, dy = dy,
  grid = "explicit", f_min = 3.142 / (2 * math.pi), f_max = 150.796 / (2 * math.pi), n_f = 28194,
  top_k = 3, fap = true,
}
local o = r[1]
print(string.format("backend: %s (%s), %.1f ms", r.backend, r.engine, 1e3 * r.wall_s))
print(string.format("best period %.4f h (twice: %.4f h; true %.2f h), power %.3f, FAP %.2g",
  24 * o.best_period, 48 * o.best_period, period_h, o.best_power, o.fap))
for i, p in ipairs(o.peaks) do
  print(string.format("peak %d: period %.4f h, power %.3f", i, 24 / p.frequency, p.power))
end
assert(math.abs(48 * o.best_period - period_h) < 0.01, "period not recovered")
