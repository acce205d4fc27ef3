-- quickstart.lua: where do two-planet systems stop being stable?
--
--   starling run examples/quickstart.lua [results.csv [systems [orbits]]]
--
-- 2000 systems, each a star of mass 1 and two planets of mass 1e-3 (about
-- Jupiter's) on circular, coplanar orbits at random phases: the inner planet
-- at a1 = 1, the outer one at a2 = a1 (1 + spacing). Units: G = 1, so an
-- orbit at radius 1 takes 2 pi.
--
-- Gladman (1993): such a pair is Hill stable -- its planets can never have a
-- close encounter -- when
--     Delta = a2 - a1 > 2 sqrt(3) R_H,   R_H = ((m1 + m2) / 3)^(1/3) (a1 + a2) / 2.
-- The spacings below spread Delta / R_H evenly from 2 to 5, across that
-- boundary. Each system is integrated (4th-order Hermite, Newtonian gravity)
-- until two planets come within one mutual Hill radius (close_encounter), a
-- planet passes r = 10 (eject), or t_end.
--
-- dt = 2 pi / 200: 200 steps per inner orbit. Survivors in the unstable
-- band pass within a few Hill radii of each other again and again, and a
-- fixed step loses accuracy there; at this dt their worst energy error is
-- 1e-5..1e-4 (chaotic survivors differ in the last bits between CPU and GPU
-- arithmetic), against ~4e-3 at 2 pi / 100. A 2-Hill-radius threshold
-- would allow the larger step, but it also stops the odd Hill-stable system
-- whose planets pass within 2 R_H at a conjunction.
-- t_end = 1000 inner orbits: most unstable systems meet within 30 orbits and
-- only a handful after 300, so longer runs change the picture little.
--
-- Expected outcome: no system above 2 sqrt(3) ~ 3.46 stops (Hill stability
-- forbids it); nearly all below ~2.75 do; the survival fraction climbs from
-- ~0 to 1 between 2.75 and 3.25, so the edge seen lies a little inside the
-- Hill boundary (the criterion is sufficient, not necessary, for
-- stability). About 1370 of 2000 survive. Measured: 7 s on 2 CPU cores,
-- 2.1 s on 16, 0.3 s on an H100; the GPU is used when present (backend =
-- "auto").

local starling = require "starling"

local out_arg, n_arg, orbits_arg = ...
local n = math.tointeger(tonumber(n_arg)) or 2000
local orbits = tonumber(orbits_arg) or 1000
local m = 1e-3
local lo, hi = 2.0, 5.0                    -- range of Delta / R_H
local hill_unit = (2 * m / 3) ^ (1 / 3)    -- R_H / ((a1 + a2) / 2)
local orbit = 2 * math.pi

-- Delta / R_H for a1 = 1 and a2 = 1 + s is s / (hill_unit (1 + s / 2)); invert it.
local function spacing_for(ratio)
  return ratio * hill_unit / (1 - ratio * hill_unit / 2)
end

local function delta_over_rh(s)
  return s / (hill_unit * (1 + s / 2))
end

local systems = starling.ensemble{
  n = n, planets = 2, planet_mass = m, a1 = 1.0, seed = 42,
  spacing = function(i) return spacing_for(lo + (hi - lo) * (i - 1) / (n - 1)) end,
}
for i = 1, n do
  systems:set_attr("delta_over_rh", i, delta_over_rh(systems:attr("spacing", i)))
end

print(("integrating %d systems for %g inner orbits"):format(n, orbits))
local r = starling.integrate{
  ensemble = systems,
  integrator = "hermite", force = "newton",
  dt = orbit / 200,
  t_end = orbits * orbit,
  backend = "auto",
  monitors = { {"close_encounter", hill = 1}, {"eject", r = 10} },
  progress = true,
}

-- ---- report --------------------------------------------------------------------

local function bar(count, total, width)
  return string.rep("#", total > 0 and math.floor(width * count / total + 0.5) or 0)
end

print(("backend: %s"):format(r.backend))
print(("kernel %s: %d systems to t = %g (%g inner orbits) in %.2f s, %.3g steps/s")
  :format(r.kernel, n, orbits * orbit, orbits, r.wall_s, r.system_steps / r.kernel_s))

local reasons = {}
for i = 1, n do
  local why = r:reason(i)
  if why then reasons[why] = (reasons[why] or 0) + 1 end
end
local why_text = {}
for why, count in pairs(reasons) do why_text[#why_text + 1] = ("%s %d"):format(why, count) end
table.sort(why_text)
print(("survivors: %d of %d (%.1f%%); stopped: %s")
  :format(r:survivors(), n, 100 * r:survivors() / n, table.concat(why_text, ", ")))

-- Stop times on a logarithmic scale, in inner orbits.
local edges = {0, 1, 3, 10, 30, 100, 300, 1000}
local stops = {}
for k = 1, #edges - 1 do stops[k] = 0 end
for i = 1, n do
  local t = r:stop_time(i)
  if t then
    local k = 1
    while k < #edges - 1 and t / orbit >= edges[k + 1] do k = k + 1 end
    stops[k] = stops[k] + 1
  end
end
print("\nstop times (inner orbits):")
for k = 1, #edges - 1 do
  print(("  %4d - %4d | %-40s %d"):format(edges[k], edges[k + 1], bar(stops[k], n - r:survivors(), 40),
    stops[k]))
end

-- Survival per bin of Delta / R_H.
local width = 0.25
local nbins = math.floor((hi - lo) / width + 0.5)
local alive, total = {}, {}
for b = 1, nbins do alive[b], total[b] = 0, 0 end
for i = 1, n do
  local b = math.min(nbins, math.floor((systems:attr("delta_over_rh", i) - lo) / width) + 1)
  total[b] = total[b] + 1
  if r:status(i) == "active" then alive[b] = alive[b] + 1 end
end
local critical = 2 * math.sqrt(3)
print(("\nsurvival by Delta / R_H (Hill boundary 2 sqrt(3) = %.3f):"):format(critical))
for b = 1, nbins do
  local from, to = lo + (b - 1) * width, lo + b * width
  local mark = from <= critical and critical < to and "  <- 2 sqrt(3)" or ""
  print(("  %.2f - %.2f | %-30s %3d/%3d %3.0f%%%s"):format(from, to, bar(alive[b], total[b], 30),
    alive[b], total[b], 100 * alive[b] / total[b], mark))
end

local worst, above, above_alive = 0, 0, 0
for i = 1, n do
  if r:status(i) == "active" then worst = math.max(worst, r:energy_error(i)) end
  if systems:attr("delta_over_rh", i) > critical then
    above = above + 1
    if r:status(i) == "active" then above_alive = above_alive + 1 end
  end
end
print(("\nHill-stable systems (Delta > 2 sqrt(3) R_H) surviving: %d of %d"):format(above_alive, above))
print(("worst relative energy error |E/E0 - 1| among survivors: %.2e"):format(worst))

-- Results beside this script unless a path is given.
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local out = out_arg or here .. "/out/quickstart.csv"
r:write_csv(out, {overwrite = true}) -- an example: a re-run replaces its output
print(("results (one row per system): %s"):format(out))
