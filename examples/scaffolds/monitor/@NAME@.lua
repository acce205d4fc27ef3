-- @NAME@.lua: the installed hermite integrator and newton force on three
-- star + two-planet systems, with the @NAME@ monitor stopping the systems
-- whose outer planet leaves [r_min, r_max] = [0.8, 4].
--
--   STARLING_PLUGIN_PATH=build/plugins starling run @NAME@.lua [backend]
--
-- backend: "cpu" (default) or "cuda"; STARLING_TEST_BACKEND is read when none
-- is given.
--
-- The monitor is checked between launches, every steps_per_launch steps, so
-- a stop is at a launch's end. A failed check stops the script with an
-- error (exit status 1).
local starling = require "starling"
local backend = ... or os.getenv("STARLING_TEST_BACKEND") or "cpu"

-- planet 2 on a circle at 2; out to 8.5 (a = 5, e = 0.7); in to 0.6 (a = 1.5, e = 0.6)
local function system(r, v)
  return {
    {m = 1, x = {0, 0, 0}, v = {0, 0, 0}},
    {m = 1e-6, x = {1, 0, 0}, v = {0, 1, 0}},
    {m = 1e-6, x = {0, r, 0}, v = {-v, 0, 0}},
  }
end
local E = starling.ensemble{ systems = {
  system(2.0, math.sqrt(1 / 2.0)),
  system(1.5, math.sqrt(1.7 / 1.5)),
  system(2.4, math.sqrt(0.4 / 2.4)),
} }

local r = starling.integrate{
  ensemble = E, integrator = "hermite", force = "newton", dt = 0.01, t_end = 20,
  steps_per_launch = 20, backend = backend,
  monitors = { {"@NAME@", r_min = 0.8, r_max = 4} },
}
print(("3 systems on %s"):format(r.backend))
local want = {nil, "monitor @NAME@: too_far", "monitor @NAME@: too_close"}
for i = 1, 3 do
  print(("system %d: %-8s %-32s t = %g"):format(i, r:status(i), tostring(r:reason(i)), r:time(i)))
  assert(r:reason(i) == want[i], ("system %d: reason %s, expected %s")
    :format(i, tostring(r:reason(i)), tostring(want[i])))
end
assert(r:status(1) == "active" and r:time(1) == 20, "system 1 should reach t = 20")
assert(r:stop_time(2) < 20 and r:stop_time(3) < 20)
print("@NAME@ ok")
