-- demcmc_nbody.lua: DE-MCMC over the N-body RV likelihood (nbody_rv) of a
-- GJ 876-like resonant pair, the wall time to 1000 effective draws of
-- every parameter. The data are examples/data/gj876_like_rv.csv (160
-- velocities over ten years); the priors are uniform boxes about the
-- truth, angles periodic, the jitter fixed at its true 2 m/s; the peer
-- (bench/emcee_nbody.py: emcee over a REBOUND likelihood on the host's
-- processes) samples the same posterior.
--
-- The chains start as emcee's walkers do in the peer: a ball of 1e-4 of
-- each prior's width about the truth (start = "ball"), or from the priors
-- (start = "prior"), the harder problem of finding the mode too.
--
--   starling run bench/demcmc_nbody.lua [backend [chains [generations [start]]]]
local starling = require "starling"

local backend = arg[1] or "auto"
local chains = tonumber(arg[2]) or 4096
local generations = tonumber(arg[3]) or 1000
local start_kind = arg[4] or "ball"
local here = arg[0]:match("^(.*)/[^/]*$") or "."

local data = starling.rv.read(here .. "/../examples/data/gj876_like_rv.csv")
local L = starling.likelihood("nbody_rv", { data = data, planets = 2, mstar = 0.32,
                                            epoch = 2455000, backend = backend })
local T = 2 * math.pi
-- bench/emcee_nbody.py's BOX, in the same order
local priors = {
  P1 = {"uniform", 29.9, 30.4}, K1 = {"uniform", 60, 120}, e1 = {"uniform", 0, 0.5},
  w1 = {"uniform", 0, T, periodic = true}, M01 = {"uniform", 0, T, periodic = true},
  P2 = {"uniform", 60.8, 61.4}, K2 = {"uniform", 180, 240}, e2 = {"uniform", 0, 0.2},
  w2 = {"uniform", 0, T, periodic = true}, M02 = {"uniform", 0, T, periodic = true},
  gamma_default = {"uniform", -20, 20}, jit_default = 2.0,
}
-- bench/emcee_nbody.py's TRUTH and ball, jit_default fixed at 2
local truth = {30.126, 88.34, 0.2531, 0.8, 2.1, 61.082, 212.07, 0.0354, 0.4, 5.4, 0.0, 2.0}
local names = {"P1", "K1", "e1", "w1", "M01", "P2", "K2", "e2", "w2", "M02", "gamma_default"}
local start = nil
if start_kind == "ball" then
  local rng = 1
  local function u()
    rng = (6364136223846793005 * rng + 1442695040888963407) & 0x7fffffffffffffff
    return ((rng >> 11) + 0.5) / 4503599627370496.0
  end
  start = {}
  for c = 1, chains do
    local row = {}
    for k, x in ipairs(truth) do
      local pr = priors[names[k]]
      local z = math.sqrt(-2 * math.log(u())) * math.cos(2 * math.pi * u())
      row[k] = pr and x + 1e-4 * (pr[3] - pr[2]) * z or x
    end
    start[c] = row
  end
elseif start_kind ~= "prior" then
  error("start: expected \"ball\" or \"prior\", got " .. tostring(start_kind))
end
-- warm-up: the device's first launches load their kernels
starling.demcmc{ likelihood = L, priors = priors, chains = chains, generations = 4, seed = 2,
                 start = start }
local r = starling.demcmc{ likelihood = L, priors = priors, chains = chains,
                           generations = generations, seed = 1, start = start }
local info, s = r:info(), r:summary()
local min_ess, min_name, max_rhat = math.huge, "", 0
for i = 1, #s do
  if s[i].sd > 0 and s[i].ess_bulk < min_ess then min_ess, min_name = s[i].ess_bulk, s[i].name end
  if s[i].sd > 0 then max_rhat = math.max(max_rhat, s[i].rhat) end
end
print(string.format("demcmc_nbody: %s, %d chains from the %s, %d generations (burn %d), GJ "
                    .. "876-like pair, %d velocities", info.target, chains, start_kind,
                    generations, generations // 2, data.n))
print(tostring(s))
local c = L:info().counts
print(string.format("refused: %d domain, %d unstable, %d unbound of %d evaluations", c.domain,
                    c.unstable, c.unbound, info.evaluations))
print("| sampler | wall s | evaluations | models/s | acceptance | max R-hat | min bulk ESS | s per 1000 ESS |")
print(string.format("| starling DE-MC, nbody_rv on %s | %.3f | %d | %.4g | %.3f | %.3f | %.0f (%s) | %.4f |",
                    backend, info.wall_s, info.evaluations, info.evaluations / info.wall_s,
                    info.acceptance, max_rhat, min_ess, min_name, info.wall_s * 1000 / min_ess))
