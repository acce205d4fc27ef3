-- @NAME@.lua: the installed hermite integrator with Newtonian gravity plus
-- the @NAME@ term, on a star and two planets, without and with the term.
--
--   STARLING_PLUGIN_PATH=build/plugins starling run @NAME@.lua [backend]
--
-- backend: "cpu" (default) or "cuda"; STARLING_TEST_BACKEND is read when none
-- is given.
--
-- A failed check stops the script with an error (exit status 1).
local starling = require "starling"
local backend = ... or os.getenv("STARLING_TEST_BACKEND") or "cpu"

local function system()
  return starling.ensemble{ systems = { {
    {m = 1, x = {0, 0, 0}, v = {0, 0, 0}},
    {m = 1e-3, x = {1, 0, 0}, v = {0, 1, 0}},
    {m = 1e-3, x = {0, 1.6, 0}, v = {-1 / math.sqrt(1.6), 0, 0}},
  } } }
end

for _, rho in ipairs{0, 0.01} do
  local r = starling.integrate{
    ensemble = system(), integrator = "hermite", force = {"newton", {"@NAME@", rho = rho}},
    dt = 2 * math.pi / 400, t_end = 20 * math.pi, backend = backend,
  }
  assert(r:status(1) == "active", "stopped: " .. tostring(r:reason(1)))
  assert(r.kernel == "hermite/newton__@NAME@/3", "ran " .. r.kernel)
  print(("%-28s rho = %-5g on %s: |E/E0 - 1| = %.3e")
    :format(r.kernel, rho, backend, r:energy_error(1)))
  assert(r:energy_error(1) < 1e-8, "energy not conserved")
end
print("@NAME@ ok")
