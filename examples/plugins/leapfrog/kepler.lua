-- kepler.lua: the leapfrog plugin on a two-body Kepler orbit.
--
--   STARLING_PLUGIN_PATH=build/plugins starling run kepler.lua [backend]
--
-- A planet of mass 1e-3 on an orbit of eccentricity about 0.2 around a star
-- of mass 1, 10 orbits at two step sizes. Leapfrog is symplectic and of
-- order 2: the energy error stays small and shrinks 4-fold when the step
-- halves. Any failed check stops the script with an error (exit status 1).

local starling = require "starling"
local backend = ... or "cpu"

local function kepler_orbit()
  local m = 1e-3
  -- apocentre at r = 1 with 0.9 times the circular speed: e ~ 0.19
  return starling.ensemble{ systems = { {
    {m = 1, x = {0, 0, 0}, v = {0, 0, 0}},
    {m = m, x = {1, 0, 0}, v = {0, 0.9 * math.sqrt(1 + m), 0}},
  } } }
end

local period = 2 * math.pi -- a ~ 0.86 here, so 10 "periods" are ~12.5 orbits
local function energy_error(steps_per_period)
  local r = starling.integrate{
    ensemble = kepler_orbit(), integrator = "leapfrog", force = "newton",
    dt = period / steps_per_period, t_end = 10 * period, backend = backend,
  }
  assert(r.kernel == "leapfrog/newton/2",
         "expected the N = 2 specialisation, ran " .. tostring(r.kernel))
  assert(r:status(1) == "active", "the orbit stopped: " .. tostring(r:reason(1)))
  return r:energy_error(1), r.kernel
end

local e1, kernel = energy_error(500)
local e2 = energy_error(1000)
local order = math.log(e1 / e2, 2)
print(("kernel %s on %s: |E/E0 - 1| = %.3e (dt = P/500), %.3e (dt = P/1000), order %.2f")
  :format(kernel, backend, e1, e2, order))
assert(e1 < 1e-7, ("energy error %.3e, expected < 1e-7"):format(e1))
assert(order > 1.8 and order < 2.2, ("order %.2f, expected 2"):format(order))
print("leapfrog ok")
