-- A planetary microlensing event, point source: a Jupiter-mass-ratio
-- planet (q = 1e-3) near the Einstein ring (s = 1.1) whose source crosses
-- the planetary caustic two days before the peak, next to the same event
-- without the planet (PSPL), in MulensModel's conventions
-- (docs/microlensing.md). The 4,001 epochs are computed in one call per
-- model; the PNG shows the binary curve and marks t0.
-- Run: starling examples/ml_planet.lua [out.png] [backend]
local starling = require "starling"
local ml = starling.microlensing

local out = (arg and arg[1]) or "ml_planet.png"
local backend = (arg and arg[2]) or "auto"
local event = {t0 = 0, u0 = 0.08, tE = 20}
local planet = {s = 1.1, q = 1e-3, alpha = 45}

local t = {}
for i = 1, 4001 do t[i] = -40 + 80 * (i - 1) / 4000 end
print("magnifications of 4001 epochs, without and with the planet")
local A_pspl = ml.pspl{t0 = event.t0, u0 = event.u0, tE = event.tE, t = t, backend = backend}
local A = ml.binary{t0 = event.t0, u0 = event.u0, tE = event.tE, s = planet.s, q = planet.q,
                    alpha = planet.alpha, t = t, backend = backend}

local peak, at, dev, dev_at = 0, 0, 0, 0
for i = 1, #t do
  if A[i] > peak then peak, at = A[i], t[i] end
  local d = A[i] / A_pspl[i] - 1
  if math.abs(d) > math.abs(dev) then dev, dev_at = d, t[i] end
end
print(string.format("binary peak A = %.3f at t = %.2f d; PSPL peak %.3f", peak, at,
                    A_pspl[2001]))
print(string.format("largest planetary deviation %+.1f %% at t = %.2f d", 100 * dev, dev_at))
starling.plot_png{
  path = out, overwrite = true, x = t, y = A, mark = event.t0,
  title = string.format("s = %.2f, q = %.0e, alpha = %d, u0 = %.2f, tE = %g d",
                        planet.s, planet.q, planet.alpha, event.u0, event.tE),
  xlabel = "t - t0 [d]", ylabel = "magnification",
}
print("wrote " .. out)
