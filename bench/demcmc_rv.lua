-- DE-MCMC on kepler_rv: generations/s, the share of the likelihood, and the
-- wall time to 1000 effective draws of every parameter (issue 11's set-up:
-- 4096 chains, 2 planets, 200 observations).
--
--   starling run bench/demcmc_rv.lua [backend [chains [generations [data.csv [variant [sampler [thin]]]]]]]
--
-- variant: "de" (default: halves, two likelihood calls a generation) or
-- "dez" (DE-MCz: one call of all chains a generation). sampler: "auto"
-- (default: whole generations on the device when the likelihood is there)
-- or "cpu" (proposals and decisions on the host). thin (default 1) keeps
-- every thin-th generation after the burn-in. On cuda with "auto", the run
-- is made twice: with the sampler's own kernels around kepler_rv's device
-- entry, then with each half-generation fused into kepler_rv's kernel
-- (fused = true), and the fused run's time outside the likelihood printed.
--
-- The data are synthetic and written to data.csv (default demcmc_rv.csv) so
-- that a peer (bench/emcee_rv.py) samples exactly the same posterior: 200
-- velocities over 1000 days of a star with planets of P = 14.62 and 97.3 d,
-- errors 2 m/s plus a jitter of 2.5 m/s, drawn with a fixed seed. The priors
-- are uniform boxes around the truth (periodic angles), the jitter fixed.
local starling = require "starling"

local backend = arg[1] or "auto"
local chains = tonumber(arg[2]) or 4096
local generations = tonumber(arg[3]) or 2000
local out = arg[4] or "demcmc_rv.csv"
local variant = arg[5] or "de"
local sampler = arg[6] or "auto"
local thin = tonumber(arg[7]) or 1
assert(variant == "de" or variant == "dez", "variant: expected de or dez, got " .. variant)

local TRUTH = { P1 = 14.62, K1 = 31.5, e1 = 0.12, w1 = 1.10, M01 = 2.30,
                P2 = 97.30, K2 = 18.2, e2 = 0.28, w2 = 4.00, M02 = 0.90, gamma = -5.2 }
local JIT = 2.5

-- the observations: times uneven over 1000 days, velocities from the
-- plugin's own model plus Gaussian noise (Box-Muller on a fixed LCG)
local seed = 12345
local function u01() seed = (seed * 1103515245 + 12345) % 2147483648; return (seed + 0.5) / 2147483648 end
local function gauss() return math.sqrt(-2 * math.log(u01())) * math.cos(2 * math.pi * u01()) end
local n = 200
local t, err = {}, {}
for i = 1, n do t[i] = 2459000 + 1000 * (i - 1 + 0.8 * u01()) / n; err[i] = 2.0 end
local probe = starling.likelihood("kepler_rv", { data = { t = t, rv = t, err = err }, planets = 2,
                                                  backend = "cpu" })
local names = {}
for i, p in ipairs(probe:params()) do names[i] = p.name end
local gname, jname = names[11], names[12]
local truth = {}
for i, name in ipairs(names) do truth[i] = TRUTH[name] or (name == gname and TRUTH.gamma) or JIT end
local model = probe:model(t, truth, gname:sub(7))
local rv = {}
for i = 1, n do rv[i] = model[i] + math.sqrt(err[i]^2 + JIT^2) * gauss() end
local f = assert(io.open(out, "w"))
f:write("# synthetic: ", table.concat(names, " "), " = ")
for i = 1, #truth do f:write(truth[i], i < #truth and " " or "\n") end
f:write("t,rv,err\n")
for i = 1, n do f:write(string.format("%.10f,%.10f,%.3f\n", t[i], rv[i], err[i])) end
f:close()

local L = starling.likelihood("kepler_rv", { data = { t = t, rv = rv, err = err }, planets = 2,
                                              backend = backend })
local T = 2 * math.pi
local priors = {
  P1 = {"uniform", 14.0, 15.2}, K1 = {"uniform", 10, 50}, e1 = {"uniform", 0, 0.5},
  w1 = {"uniform", 0, T, periodic = true}, M01 = {"uniform", 0, T, periodic = true},
  P2 = {"uniform", 90, 105}, K2 = {"uniform", 5, 30}, e2 = {"uniform", 0, 0.6},
  w2 = {"uniform", 0, T, periodic = true}, M02 = {"uniform", 0, T, periodic = true},
  [gname] = {"uniform", -20, 10}, [jname] = JIT,
}
-- time_every = 1: the unfused run's likelihood time is measured on every
-- half-generation (exact, the basis of "outside the likelihood"); the
-- fused run's on every 16th, the default
local function sample(gens, fused)
  return starling.demcmc{ likelihood = L, priors = priors, chains = chains, generations = gens,
                          seed = 1, archive = variant == "dez", backend = sampler, thin = thin,
                          fused = fused, time_every = fused and 16 or 1 }
end

local function report(r, title)
  local info, s = r:info(), r:summary()
  local min_ess, min_name = math.huge, ""
  for i = 1, #s do
    if s[i].sd > 0 and s[i].ess_bulk < min_ess then min_ess, min_name = s[i].ess_bulk, s[i].name end
  end
  print(string.format("demcmc_rv: %s, %s, %d chains, %d generations (burn %d, thin %d), 2 planets, %d observations%s",
                      info.target, variant == "dez" and "DE-MCz" or "DE-MC", chains, generations,
                      generations // 2, thin, n, title))
  print(tostring(s))
  print(string.format("| likelihood, variant, generations on, thin | wall s | generations/s | likelihood share | evaluations | acceptance | min bulk ESS | s per 1000 ESS |"))
  print(string.format("| %s, %s, %s%s, %d | %.3f | %.1f | %s | %d | %.3f | %.0f (%s) | %.3f |", backend, variant,
                      info.generations_on, info.fused and " fused" or "", thin, info.wall_s,
                      generations / info.wall_s,
                      info.fused and "(fused)" or string.format("%.1f %%", 100 * info.likelihood_s / info.wall_s),
                      info.evaluations, info.acceptance, min_ess, min_name,
                      info.wall_s * 1000 / min_ess))
  return info
end

if backend == "cuda" and sampler == "auto" then
  -- The fused run's time outside the likelihood is its wall time less the
  -- likelihood kernels' time of the unfused run, which evaluated the same
  -- proposals (the chains are the same bit for bit: test_gpu_demcmc).
  -- warm-up: the device's first launches of either path load their kernels
  -- (CUDA's lazy module loading: the fused kernel's first launch takes
  -- 17 ms on the H200), once a process, not once a run
  sample(20, false)
  sample(20, true)
  local u = report(sample(generations, false), ", the sampler's own kernels around the device entry")
  local f = report(sample(generations, true), ", half-generations fused into kepler_rv's kernel")
  assert(u.evaluations == f.evaluations and u.acceptance == f.acceptance,
         "the fused run is not the unfused run")
  print(string.format("fused: wall %.3f s against %.3f s unfused; the likelihood's kernels %.3f s, "
                      .. "the fused kernels %.3f s (device time): outside the likelihood %.1f %% "
                      .. "fused, %.1f %% unfused",
                      f.wall_s, u.wall_s, u.likelihood_s, f.likelihood_s,
                      100 * (f.wall_s - u.likelihood_s) / f.wall_s,
                      100 * (u.wall_s - u.likelihood_s) / u.wall_s))
  -- where the rest went: the run's fixed costs, and the gaps between kernels
  local loop = f.wall_s - f.setup_s - f.finish_s
  print(string.format("fused: setup %.1f ms, finish %.1f ms; the generations %.3f s, of which the "
                      .. "fused kernels %.3f s (the sampler's steps in them %.3f s) and between "
                      .. "kernels %.3f s (%.2f us a half-generation)",
                      1e3 * f.setup_s, 1e3 * f.finish_s, loop, f.likelihood_s,
                      f.likelihood_s - u.likelihood_s, loop - f.likelihood_s,
                      1e6 * (loop - f.likelihood_s) / (2 * generations)))
else
  report(sample(generations, nil), "")
end
