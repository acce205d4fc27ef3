-- The likelihood's device time on kepler_rv (4,096 chains, 2,000 generations, thin 10),
-- measured on every half-generation against every 16th and scaled, unfused
-- and fused, each twice (the first run carries the first launches).
--
--   starling run bench/demcmc_timing.lua data.csv   (data.csv: written by bench/demcmc_rv.lua)
local starling = require "starling"
local f = assert(io.open(arg[1]))
f:read("l"); f:read("l")
local t, rv, err = {}, {}, {}
for line in f:lines() do
  local a, b, c = line:match("([^,]+),([^,]+),([^,]+)")
  t[#t + 1], rv[#rv + 1], err[#err + 1] = tonumber(a), tonumber(b), tonumber(c)
end
local L = starling.likelihood("kepler_rv", { data = { t = t, rv = rv, err = err }, planets = 2, backend = "cuda" })
local names = {}
for i, p in ipairs(L:params()) do names[i] = p.name end
local T = 2 * math.pi
local priors = { P1 = {"uniform", 14.0, 15.2}, K1 = {"uniform", 10, 50}, e1 = {"uniform", 0, 0.5},
  w1 = {"uniform", 0, T, periodic = true}, M01 = {"uniform", 0, T, periodic = true},
  P2 = {"uniform", 90, 105}, K2 = {"uniform", 5, 30}, e2 = {"uniform", 0, 0.6},
  w2 = {"uniform", 0, T, periodic = true}, M02 = {"uniform", 0, T, periodic = true},
  [names[11]] = {"uniform", -20, 10}, [names[12]] = 2.5 }
for _, fused in ipairs({false, true}) do
  for _, k in ipairs({1, 16, 1, 16}) do
    local r = starling.demcmc{ likelihood = L, priors = priors, chains = 4096, generations = 2000,
                               seed = 1, thin = 10, fused = fused, time_every = k }
    local i = r:info()
    print(string.format("fused %s time_every %2d: wall %.4f s, likelihood %.4f s, setup %.1f ms, finish %.1f ms",
                        tostring(fused), k, i.wall_s, i.likelihood_s, 1e3 * i.setup_s, 1e3 * i.finish_s))
  end
end
