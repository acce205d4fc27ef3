-- nbody_rv_bench.lua: N-body likelihood models per second, GPU and CPU,
-- for a 2-planet resonant RV fit (the GJ 876-like pair's 200 velocities
-- over ten years, tests/data) and a 3-planet TTV fit (transits of a
-- near-resonant chain, made here by the model itself), with the ratio to
-- the peer's figure when one is given (bench/nbody_rv_rebound.py: REBOUND
-- WHFast over the same data, one model a call, on the host's processes).
--
--   starling run bench/nbody_rv_bench.lua [models [peer_models_per_s]]
--
-- With a GPU it then prints the 2-planet RV case's GPU rate by models per
-- call (1024 .. 65536) for one thread a model and for a pair of threads
-- (threads_per_model = 2: forward and backward from the epoch), with the
-- epoch first (the pair's second thread idle) and mid-data (half the
-- velocities each): one thread a model fills the device only with enough
-- models, and a sampler's call is as large as its chains.
--
-- Each evaluation is timed after a warm-up call of the same size (which
-- also makes the GPU's context and uploads the data); the models are the
-- truth scattered by 0.2 % in period and 10 % in the rest.
local starling = require "starling"
local n = tonumber(arg[1]) or 16384
local peer = tonumber(arg[2])
local here = arg[0]:match("^(.*)/[^/]*$") or "."

-- the RV data: tests/data's IAS15 velocities, 2 m/s errors
local t, v, e = {}, {}, {}
for line in io.lines(here .. "/../tests/data/nbody_rv_gj876_rebound.csv") do
  local a, b = line:match("^([%-%d%.e]+),([%-%d%.e]+)$")
  if a then t[#t + 1], v[#v + 1], e[#e + 1] = tonumber(a), tonumber(b), 2.0 end
end
local rv = { t = t, rv = v, err = e }

local function scatter(base, per, count)
  local rng, rows = 12345, {}
  local function u() rng = (1103515245 * rng + 12345) % 2147483648; return rng / 2147483648 end
  for i = 1, count do
    local r = {}
    for k, x in ipairs(base) do
      local s = (k - 1) % per == 0 and 0.002 or 0.1
      r[k] = x * (1 + s * (2 * u() - 1))
    end
    rows[i] = r
  end
  return rows
end

local function time(L, rows)
  L:eval({rows[1], rows[2]})
  L:eval(rows)
  local t0 = starling.clock()
  local ll = L:eval(rows)
  local dt = starling.clock() - t0
  local ok = 0
  for _, x in ipairs(ll) do if x > -math.huge then ok = ok + 1 end end
  return #rows / dt, ok
end

local cases = {}
do -- 2-planet RV: 200 velocities over 10 years, mvs at P_1 / 100
  local truth = {30.126, 88.34, 0.2531, 0.8, 2.1, 61.082, 212.07, 0.0354, 0.4, 5.4, 0, 1}
  cases[#cases + 1] = { name = "nbody_rv, 2 planets, 200 RVs over 10 yr", make = function(be)
    return starling.likelihood("nbody_rv", { data = rv, planets = 2, mstar = 0.32, epoch = 0,
                                             backend = be })
  end, rows = function() return scatter(truth, 5, n) end }
end
do -- 3-planet TTV: a 1:2:4 chain's transits over 4 years, made by the model
  local truth = {10.1, 8.0, 0.1, 0.05, 3.0, 20.3, 12.0, 0.05, 0.1, 9.0, 40.8, 6.0, 0.1, -0.1, 21.0}
  local function transits()
    local rows = { planet = {}, time = {}, error = {} }
    local P = {10.1, 20.3, 40.8}
    for j = 1, 3 do
      for k = 0, math.floor(1461 / P[j]) do
        rows.planet[#rows.planet + 1] = j
        rows.time[#rows.time + 1] = truth[5 * j] + k * P[j]
        rows.error[#rows.error + 1] = 0.002
      end
    end
    return rows
  end
  cases[#cases + 1] = { name = "ttv, 3 planets, 4 yr of transits", make = function(be)
    return starling.likelihood("ttv", { data = transits(), planets = 3, epoch = 0, backend = be })
  end, rows = function() return scatter(truth, 5, n) end }
end

print(string.format("N-body likelihoods, %d models a call", n))
print("| workload | GPU models/s | CPU models/s | GPU/CPU | peer models/s | GPU/peer |")
print("|---|---|---|---|---|---|")
for _, c in ipairs(cases) do
  local rows = c.rows()
  local Lc <close> = c.make("cpu")
  local cpu_rate, ok = time(Lc, c.cpu_rows or (function()
    local few = {}
    for i = 1, math.min(#rows, 1024) do few[i] = rows[i] end
    return few
  end)())
  local gpu_rate = nil
  local okg, Lg = pcall(c.make, "cuda")
  if okg then
    gpu_rate = time(Lg, rows)
    Lg:close()
  end
  local p = (c.name:match("^nbody_rv") and peer) or nil
  print(string.format("| %s | %s | %.4g | %s | %s | %s |", c.name,
                      gpu_rate and string.format("%.4g", gpu_rate) or "—", cpu_rate,
                      gpu_rate and string.format("%.1f", gpu_rate / cpu_rate) or "—",
                      p and string.format("%.4g", p) or "—",
                      (p and gpu_rate) and string.format("%.0f", gpu_rate / p) or "—"))
  io.stderr:write(string.format("%s: %d of the CPU's %d models finite\n", c.name, ok,
                                math.min(#rows, 1024)))
end

do -- the device's layouts: one thread a model, or a pair (forward and backward)
  local function make(epoch, tpm)
    return starling.likelihood("nbody_rv", { data = rv, planets = 2, mstar = 0.32, epoch = epoch,
                                             threads_per_model = tpm, backend = "cuda" })
  end
  local ok = pcall(function() make(0, 1):close() end)
  if ok then
    local all = cases[1].rows()
    print("GPU models/s by models a call (" .. cases[1].name .. "), threads a model:")
    for _, lay in ipairs({ {0, 1}, {0, 2}, {913, 1}, {913, 2} }) do
      local Lg <close> = make(lay[1], lay[2])
      local line = {}
      for _, size in ipairs({1024, 4096, 16384, 65536}) do
        local rows = {}
        for i = 1, size do rows[i] = all[(i - 1) % #all + 1] end
        line[#line + 1] = string.format("%d: %.4g", size, (time(Lg, rows)))
      end
      print(string.format("  epoch %s, %d thread%s a model: %s",
                          lay[1] == 0 and "first (day 0)" or "mid-data (day 913)", lay[2],
                          lay[2] > 1 and "s" or "", table.concat(line, ", ")))
    end
  end
end
