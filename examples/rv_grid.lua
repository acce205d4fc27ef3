-- rv_grid.lua: a brute-force fit of two Keplerians by evaluating many random
-- models in batches (Ford 2009's use of the GPU: chi^2 of very many models).
--
--   starling run examples/rv_grid.lua [models [data.txt [backend]]]
--
-- models: how many 2-planet models to evaluate (default 10^6). On a 2-core
-- CPU (OpenMP) the default takes about 7 s, of which about 1.1 s are the
-- likelihood calls (including the conversion of the Lua rows) and the rest
-- drawing the models in Lua; give a smaller count for a quicker look.
-- backend: "auto" (default: CUDA when usable), "cpu" or "cuda".
--
-- Expected result (seed 2009, 10^6 models): the best models have P1 = 14.62 d,
-- K1 = 31.3 m/s, P2 = 97.3 d, K2 = 17.6 m/s, e2 = 0.33 and chi^2 = 131, below
-- the truth's 156 (jitter 0), as a fit to noisy data should be.
-- The data (examples/data/rv_2planet.txt, made by make_rv_2planet.py there)
-- are 60 synthetic velocities of a star with two planets; their true
-- parameters are in the file's header and in TRUTH below.
--
-- The search is a cross-entropy random search in 20 rounds: the first
-- twentieth of the models are drawn from wide priors (P1 in [5, 30] d, P2 in
-- [30, 300] d, both log-uniform; K in [0, 60] m/s; e in [0, 0.6); w, M0
-- uniform; gamma in [-30, 30] m/s), each later round around the best models
-- found so far (the best 50), with the spread those best models have.
-- Models are ranked by chi^2 with the jitter held at 0: a free jitter would
-- let an early, one-planet-like model explain the second planet as noise and
-- the search would settle there. The log-likelihood printed is the
-- plugin's (with jitter 0).
local starling = require "starling"

local n_models = tonumber(arg[1]) or 1000000
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local data = arg[2] or here .. "/data/rv_2planet.txt"
local backend = arg[3] or "auto"
local ROUNDS = 20

local TRUTH = { 14.62, 31.5, 0.12, 1.10, 2.30, 97.30, 18.2, 0.28, 4.00, 0.90, -5.2, 2.5 }
local TWO_PI = 2 * math.pi
-- which parameters are angles (w, M0: compared modulo 2 pi)
local ANGLE = { [4] = true, [5] = true, [9] = true, [10] = true }

local lik = starling.likelihood("kepler_rv", { data = data, planets = 2, backend = backend })
local names = {}
for i, p in ipairs(lik:params()) do names[i] = p.name end
assert(#names == 12, "this example expects one instrument (12 parameters)")
math.randomseed(2009)

local function log_uniform(a, b) return a * (b / a) ^ math.random() end

local function from_prior()
  return { log_uniform(5, 30), 60 * math.random(), 0.6 * math.random(),
           TWO_PI * math.random(), TWO_PI * math.random(),
           log_uniform(30, 300), 60 * math.random(), 0.6 * math.random(),
           TWO_PI * math.random(), TWO_PI * math.random(),
           60 * math.random() - 30, 0 }
end

local function wrap(a) return a - TWO_PI * math.floor(a / TWO_PI + 0.5) end

-- Mean-free spread of each parameter among the elite, about the best.
local function spread(elite)
  local s, best = {}, elite[1].p
  for i = 1, #best do
    local acc = 0
    for _, m in ipairs(elite) do
      local d = m.p[i] - best[i]
      if ANGLE[i] then d = wrap(d) end
      acc = acc + d * d
    end
    s[i] = math.sqrt(acc / #elite) + 1e-9
  end
  return s
end

local function gauss()
  return math.sqrt(-2 * math.log(1 - math.random())) * math.cos(TWO_PI * math.random())
end

-- A model near a random elite member; values kept inside the domain.
local function near(elite, s)
  local p = {}
  local base = elite[math.random(#elite)].p
  for i = 1, #base do p[i] = base[i] + s[i] * gauss() end
  p[1] = math.min(math.abs(p[1]), 30) -- the planets keep their period ranges
  p[6] = math.max(p[6], 30)
  for _, j in ipairs { 0, 5 } do
    p[j + 2] = math.abs(p[j + 2]) -- K
    p[j + 3] = math.min(math.abs(p[j + 3]), 0.95) -- e
  end
  p[12] = 0 -- jitter: see the header
  return p
end

local best = {} -- the best models so far, sorted by chi^2
local keep = 50
local t_eval, t_start = 0, starling.clock()
local per_round = math.ceil(n_models / ROUNDS)
local done = 0
print(string.format("%d models in %d rounds against %s on %s", n_models, ROUNDS, data,
                    lik:info().backend))
for round = 1, ROUNDS do
  local batch = {}
  local s = round > 1 and spread(best)
  for i = 1, math.min(per_round, n_models - done) do
    batch[i] = round == 1 and from_prior() or near(best, s)
  end
  local t0 = starling.clock()
  local ll, chi2 = lik:eval(batch)
  t_eval = t_eval + (starling.clock() - t0)
  done = done + #batch
  for i = 1, #batch do best[#best + 1] = { p = batch[i], ll = ll[i], chi2 = chi2[i] } end
  table.sort(best, function(a, b) return a.chi2 < b.chi2 end)
  for i = #best, keep + 1, -1 do best[i] = nil end
  if round % 5 == 0 then
    print(string.format("round %d of %d: %d models, best chi2 %.2f (%.1f s)", round, ROUNDS, done,
                        best[1].chi2, starling.clock() - t_start))
  end
end
local t_all = starling.clock() - t_start

print(string.format("%d two-planet models against %s on %s", done, data, lik:info().backend))
print(string.format("likelihood calls %.2f s (%.3g models/s), whole script %.2f s",
                    t_eval, done / t_eval, t_all))
print()
print("rank      lnL     chi2    P1      K1    e1    P2      K2    e2   gamma  jit")
local function row(label, ll, chi2, p)
  return string.format("%-5s %8.2f %8.2f %7.3f %6.2f %5.3f %7.2f %6.2f %5.3f %6.2f %5.2f",
                       label, ll, chi2, p[1], p[2], p[3], p[6], p[7], p[8], p[11], p[12])
end
for r = 1, 5 do print(row(tostring(r), best[r].ll, best[r].chi2, best[r].p)) end
local truth0 = table.move(TRUTH, 1, 11, 1, {})
truth0[12] = 0 -- ranked as the search ranks: jitter 0
local ll_true, chi2_true = lik:eval(truth0)
print(row("truth", ll_true, chi2_true, truth0))
