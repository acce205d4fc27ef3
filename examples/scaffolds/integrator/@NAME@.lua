-- @NAME@.lua: the @NAME@ integrator on a two-body Kepler orbit, with every
-- force it was built for.
--
--   STARLING_PLUGIN_PATH=build/plugins starling run @NAME@.lua [backend]
--
-- backend: "cpu" (default) or "cuda"; STARLING_TEST_BACKEND is read when none
-- is given.
--
-- A planet of mass 1e-3 on an orbit of eccentricity ~0.2 around a star of
-- mass 1, 10 orbits at two step sizes: a second-order method's energy error
-- shrinks 4-fold when the step halves. A failed check stops the script
-- with an error (exit status 1).
local starling = require "starling"
local backend = ... or os.getenv("STARLING_TEST_BACKEND") or "cpu"

local function orbit()
  local m = 1e-3
  return starling.ensemble{ systems = { {
    {m = 1, x = {0, 0, 0}, v = {0, 0, 0}},
    {m = m, x = {1, 0, 0}, v = {0, 0.9 * math.sqrt(1 + m), 0}},
  } } }
end

local period = 2 * math.pi
local function energy_error(force, steps)
  local r = starling.integrate{
    ensemble = orbit(), integrator = "@NAME@", force = force,
    dt = period / steps, t_end = 10 * period, backend = backend,
  }
  assert(r:status(1) == "active", "the orbit stopped: " .. tostring(r:reason(1)))
  return r:energy_error(1), r.kernel
end

for _, force in ipairs{"newton", "plummer"} do
  local e1, kernel = energy_error(force, 500)
  local e2 = energy_error(force, 1000)
  local order = math.log(e1 / e2, 2)
  print(("%-22s on %s: |E/E0 - 1| = %.3e (P/500), %.3e (P/1000), order %.2f")
    :format(kernel, backend, e1, e2, order))
  assert(order > 1.8 and order < 2.2, ("%s: order %.2f, expected 2"):format(force, order))
end
print("@NAME@ ok")
