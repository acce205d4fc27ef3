-- The load of bench/omp_wait.sh: a DE-MCMC run on kepler_rv (one planet,
-- 64 chains x 1500 generations, on the CPU), or an integrate run (256
-- two-planet systems), with OMP_NUM_THREADS threads.
--
--   starling run bench/omp_wait.lua demcmc|integrate RV_DATA
local starling = require "starling"
local what, data = arg[1], arg[2]
if what == "demcmc" then
  local L = starling.likelihood("kepler_rv", { data = data, planets = 1, backend = "cpu" })
  local T = 2 * math.pi
  starling.demcmc{ likelihood = L, chains = 64, generations = 1500, seed = 1,
    priors = { P1 = {"uniform", 14, 15.2}, K1 = {"uniform", 10, 50}, e1 = {"uniform", 0, 0.5},
      w1 = {"uniform", 0, T, periodic = true}, M01 = {"uniform", 0, T, periodic = true},
      gamma_HIRES = {"uniform", -20, 20}, jit_HIRES = {"uniform", 0, 10} } }
elseif what == "integrate" then
  local E = starling.ensemble{ n = 256, planets = 2, seed = 3 }
  starling.integrate{ ensemble = E, dt = 0.001, t_end = 20, backend = "cpu" }
else
  error("expected demcmc or integrate, got " .. tostring(what))
end
