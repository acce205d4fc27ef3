-- Plots a periodogram as a PNG: a synthetic light curve (two sinusoids,
-- uneven sampling), its generalised Lomb-Scargle periodogram in full, and
-- starling.plot_png drawing the power against frequency with the best
-- frequency marked.
-- Run: starling examples/ls_plot.lua [out.png]
local starling = require "starling"

local out = (arg and arg[1]) or "ls_periodogram.png"
local seed = 7
local function rand() seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 end
local t, y, dy = {}, {}, {}
for i = 1, 300 do
  t[i] = 100 * rand()
  dy[i] = 0.1 + 0.1 * rand()
  y[i] = math.sin(2 * math.pi * 1.7 * t[i]) + 0.4 * math.sin(2 * math.pi * 0.31 * t[i])
         + dy[i] * (2 * rand() - 1)
end

print("periodogram of 300 points at 6000 frequencies")
local r = starling.lombscargle{t = t, y = y, dy = dy, full = true, fap = true, top_k = 2,
                               grid = "explicit", f_min = 0.01, f_max = 3, n_f = 6000}
local o = r[1]
starling.plot_png{
  path = out, overwrite = true, object = o, mark = o.best_frequency,
  title = string.format("generalised lomb-scargle: best f = %.4f c/d (fap %.1e)",
                        o.best_frequency, o.fap),
  xlabel = "frequency [1/d]", ylabel = "power (standard normalisation)",
}
print(string.format("wrote %s: %d frequencies, best %.5f c/d, power %.3f, second peak %.4f c/d",
  out, o.n_f, o.best_frequency, o.best_power, o.peaks[2].frequency))
