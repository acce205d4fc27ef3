-- rv_fit.lua: the posterior of HD 164922's two planets from 401 published
-- radial velocities of three instruments, by DE-MCMC (starling.demcmc),
-- compared with the published fit.
--
--   starling run examples/rv_fit.lua [backend [generations [out_prefix]]] [--full]
--
-- backend: "auto" (default), "cpu" or "cuda". Writes OUT_posterior.csv,
-- OUT_trace.png, OUT_corner.png and OUT_rv.png (data, offsets removed, with
-- 30 posterior models and the median model), OUT defaulting to "rv_fit".
--
-- Size: by default 64 chains x 8000 generations (the first half burn-in),
-- about 35 s on 2 CPU cores: every planet's P, K and e median lands within
-- the published 1-sigma interval (tests/test_lua.c checks this run), the
-- tails are rougher than a longer run's. --full runs 20000 generations
-- (about 1.5 minutes on 2 CPU cores, seconds on a GPU) for smoother
-- corner plots; a number as `generations` sets any other length. Fewer
-- than a few thousand generations do not reach the posterior (R-hat >> 1).
--
-- Data: examples/data/hd164922.csv, Fulton et al. (2016, ApJ 830, 46) as
-- shipped by RadVel (MIT licence; the file's header says more). Model: two
-- Keplerians, an offset and a jitter per instrument (HIRES before and after
-- its 2004 upgrade, APF). Priors: uniform boxes around the planets' periods
-- (from a periodogram, as one would start), uniform K, e < 0.9, angles
-- periodic, offsets and jitters uniform. The published values (Fulton et al.
-- 2016, Table 3; 16th, 50th and 84th percentiles) are printed beside ours.
local starling = require "starling"

-- "--full" anywhere among the arguments: the full-size run (see above)
local full, args = false, {}
for _, a in ipairs(arg) do
  if a == "--full" then full = true else args[#args + 1] = a end
end
local backend = args[1] or "auto"
local generations = tonumber(args[2]) or (full and 20000 or 8000)
local out = args[3] or "rv_fit"
local here = arg[0]:match("^(.*)/[^/]*$") or "."

print("reading " .. here .. "/data/hd164922.csv")
local data = starling.rv.read(here .. "/data/hd164922.csv",
                              { columns = { time = "time", rv = "mnvel", err = "errvel", inst = "tel" } })
local L = starling.likelihood("kepler_rv", { data = data, planets = 2, backend = backend })
print(string.format("DE-MCMC: 64 chains x %d generations on %s%s (progress on stderr)",
                    generations, L:info().backend,
                    full and "" or "; --full for the 20000-generation run"))
local T = 2 * math.pi
local r = starling.demcmc{
  likelihood = L,
  priors = {
    P1 = {"uniform", 1000, 1400}, K1 = {"uniform", 0, 20}, e1 = {"uniform", 0, 0.9},
    w1 = {"uniform", 0, T, periodic = true}, M01 = {"uniform", 0, T, periodic = true},
    P2 = {"uniform", 74, 78}, K2 = {"uniform", 0, 20}, e2 = {"uniform", 0, 0.9},
    w2 = {"uniform", 0, T, periodic = true}, M02 = {"uniform", 0, T, periodic = true},
    gamma_k = {"uniform", -20, 20}, gamma_j = {"uniform", -20, 20}, gamma_a = {"uniform", -20, 20},
    jit_k = {"uniform", 0, 10}, jit_j = {"uniform", 0, 10}, jit_a = {"uniform", 0, 10},
  },
  chains = 64, generations = generations, burn = generations // 2, thin = 10, seed = 164922,
  progress = true,
}
local s = r:summary()
print(tostring(s))
local info = r:info()
print(string.format("%d chains x %d generations on %s: %.1f s (%.1f s in the likelihood), "
                    .. "acceptance %.2f", info.chains, info.generations, info.target,
                    info.wall_s, info.likelihood_s, info.acceptance))

-- Fulton et al. (2016): median and the 16 / 84 % bounds
local PUBLISHED = { P1 = {1195.6, 1201.1, 1206.7}, K1 = {6.84, 7.15, 7.46}, e1 = {0.076, 0.126, 0.175},
                    P2 = {75.709, 75.765, 75.823}, K2 = {1.93, 2.22, 2.52}, e2 = {0.09, 0.22, 0.35} }
print("\nparameter   starling median [16 %, 84 %]        published median [16 %, 84 %]   within 1 sigma")
local all = true
for _, name in ipairs({"P1", "K1", "e1", "P2", "K2", "e2"}) do
  local p, q = PUBLISHED[name], s[name]
  local sigma = 0.5 * (p[3] - p[1])
  local ok = math.abs(q.median - p[2]) <= sigma
  all = all and ok
  print(string.format("%-10s  %-9.5g [%-9.5g %-9.5g]    %-9.5g [%-9.5g %-9.5g]  %s", name, q.median,
                      q.lo, q.hi, p[2], p[1], p[3], ok and "yes" or "NO"))
end
print(all and "every median within the published 1-sigma interval" or "some medians differ")

print("writing " .. out .. "_posterior.csv and the plots")
-- an example: a re-run replaces its outputs (overwrite = true)
r:save(out .. "_posterior.csv", {overwrite = true})
r:trace_png(out .. "_trace.png", { params = {"P1", "K1", "e1", "P2", "K2", "e2"}, chains = 6,
                                   overwrite = true })
r:corner_png(out .. "_corner.png", { params = {"P1", "K1", "e1", "P2", "K2", "e2"},
                                     overwrite = true })

-- data less each instrument's median offset, against posterior models
local params = {}
for i, p in ipairs(L:params()) do params[i] = p.name end
local median = {}
for i, name in ipairs(params) do median[i] = s[name].median end
local offset = { k = s.gamma_k.median, j = s.gamma_j.median, a = s.gamma_a.median }
local colour = { k = 1, j = 2, a = 3 }
local y, group = {}, {}
for i = 1, data.n do
  y[i] = data.v[i] - offset[data.instrument[i]]
  group[i] = colour[data.instrument[i]]
end
local grid, t0, t1 = {}, data.t[1], data.t[data.n]
for k = 1, 1500 do grid[k] = t0 + (t1 - t0) * (k - 1) / 1499 end
local lines, draws = {}, r:samples("P1")
local n_draws = #draws
for l = 1, 30 do
  local k = 1 + ((l * 7919) % n_draws)
  local p = {}
  for i, name in ipairs(params) do p[i] = r:samples(name)[k] end
  lines[l] = L:model(grid, p)
end
lines[#lines + 1] = L:model(grid, median)
starling.points_png{ path = out .. "_rv.png", overwrite = true, x = data.t, y = y, err = data.err, group = group,
                     grid = grid, lines = lines, last_bold = true,
                     title = "HD 164922: HIRES (blue, red), APF (green); 30 posterior models, median in black",
                     xlabel = "BJD (TDB)", ylabel = "radial velocity less offset (m/s)" }
print("wrote " .. out .. "_posterior.csv, _trace.png, _corner.png, _rv.png")
