-- megno_scan.lua: where is a pair of giant planets chaotic? MEGNO across
-- the outer planet's distance, through the mean-motion resonances.
--
--   starling run examples/megno_scan.lua [out_prefix [systems [t_end]]]
--
-- Each system is a star of mass 1 and two planets of mass 1e-3 (about
-- Jupiter's): the inner on a circular orbit at a = 1, the outer at a2 with
-- e = 0.05, both in one plane (G = 1: the inner orbit takes 2 pi). a2 runs
-- from 1.3 to 2.2 over the systems. MEGNO's time mean <Y> tends to 2 for
-- quasi-periodic motion and grows without bound (as lambda t / 2) for
-- chaotic motion; REBOUND users compute the same map with sim.megno() in
-- a process pool.
--
-- Writes OUT.csv (per system: a2, period ratio, <Y>, Lyapunov estimate, ...)
-- and OUT.png (<Y>, capped at 8, against the period ratio; dashed: the 2:1
-- resonance). Default OUT: megno_scan; 600 systems; t_end 5000 (~800 inner
-- orbits).
--
-- Integrator: mvs at 100 steps per inner orbit; a system whose planets
-- meet (within one mutual Hill radius) stops there and keeps the <Y> it had
-- reached.
--
-- With the defaults: 50 of 600 chaotic (<Y> > 4), 20
-- stopped by a close encounter; 52 s on one CPU core, 1.25 s on an H100
-- (21 stopped there: one chaotic system meets its encounter on one
-- backend only, as chaotic runs may). <Y> ~ 2 outside the
-- resonances; chaos fills period ratios 1.48..1.65, where the resonances
-- overlap (Wisdom 1980's mu^(2/7) rule), and marks the 2:1 resonance's
-- separatrix (1.92..1.98) and, thinly, 5:3, 7:4, 7:3, 5:2 and 3:1
-- (docs/megno-scan.png).

local starling = require "starling"

local out, n_arg, t_arg = ...
out = out or "megno_scan"
local n = math.tointeger(tonumber(n_arg)) or 600
local t_end = tonumber(t_arg) or 5000
local m, e2, M2 = 1e-3, 0.05, 2.0
local a_lo, a_hi = 1.3, 2.2

-- the outer planet's heliocentric state from its elements (pericentre on +x)
local function outer(a)
  local E = starling.kepler.solve(M2, e2)
  local nmot = math.sqrt((1 + m) / a ^ 3)
  local c, s, q = math.cos(E), math.sin(E), math.sqrt(1 - e2 * e2)
  local k = nmot * a / (1 - e2 * c)
  return {a * (c - e2), a * q * s, 0}, {-k * s, k * q * c, 0}
end

local systems = {}
for i = 1, n do
  local a2 = a_lo + (a_hi - a_lo) * (i - 1) / (n - 1)
  local x2, v2 = outer(a2)
  local bodies = {
    {m = 1, x = {0, 0, 0}, v = {0, 0, 0}},
    {m = m, x = {1, 0, 0}, v = {0, math.sqrt(1 + m), 0}},
    {m = m, x = x2, v = v2},
  }
  -- to the barycentre
  local mt, cx, cv = 1 + 2 * m, {0, 0, 0}, {0, 0, 0}
  for _, b in ipairs(bodies) do
    for k = 1, 3 do
      cx[k] = cx[k] + b.m * b.x[k] / mt
      cv[k] = cv[k] + b.m * b.v[k] / mt
    end
  end
  for _, b in ipairs(bodies) do
    for k = 1, 3 do
      b.x[k] = b.x[k] - cx[k]
      b.v[k] = b.v[k] - cv[k]
    end
  end
  systems[i] = bodies
end
print(string.format("integrating %d systems to t = %g with MEGNO", n, t_end))
local E = starling.ensemble{systems = systems, seed = 1}
for i = 1, n do
  local a2 = a_lo + (a_hi - a_lo) * (i - 1) / (n - 1)
  E:set_attr("a2", i, a2)
  E:set_attr("period_ratio", i, a2 ^ 1.5)
end

local r = starling.integrate{
  ensemble = E,
  integrator = "mvs", dt = 2 * math.pi / 100,
  t_end = t_end,
  megno = {interval = 100 * 2 * math.pi / 100, seed = 1},
  monitors = {{"close_encounter", hill = 1}},
}
r:write_csv(out .. ".csv", {overwrite = true}) -- an example: a re-run replaces its outputs

local x, y, chaotic = {}, {}, 0
for i = 1, n do
  x[i] = E:attr("period_ratio", i)
  y[i] = math.min(r:megno(i) or 8, 8)
  if (r:megno(i) or 8) > 4 then chaotic = chaotic + 1 end
end
starling.plot_png{
  path = out .. ".png", overwrite = true, x = x, y = y, mark = 2.0,
  title = string.format("MEGNO, time mean, of two Jupiters at t = %g (%d systems)", t_end, n),
  xlabel = "period ratio P2/P1", ylabel = "mean Y (capped at 8)",
}
print(string.format("%d systems, %d chaotic (<Y> > 4), %d stopped by a close encounter; "
                    .. "%.2f s on %s", n, chaotic, r.n_stopped, r.wall_s, r.backend))
print("wrote " .. out .. ".csv and " .. out .. ".png")
