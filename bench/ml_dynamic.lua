-- ml_dynamic.lua: the dynamic engine (finite source, s and q free) on the
-- issue's workload: rho = 1e-3, uniform, along a track through the central
-- caustic of s = 1, q = 1e-3 (u0 = 0.005, alpha = 0, tE = 20 d, N epochs
-- over t = -0.5 .. 0.5 d), at tol = 1e-3; epochs per second on every CPU
-- core (the engine has no GPU path: the GPU row prints only where the cuda
-- backend takes binary_mag), and the ratio to the peer's figure when one
-- is given (bench/ml_dynamic_vbm.py: VBMicrolensing BinaryMag2 at RelTol
-- 1e-3 on the host's processes, the same track).
--
--   starling run bench/ml_dynamic.lua [epochs [peer_epochs_per_s]]
--
-- Each backend's call is timed after a warm-up call on 16 epochs; the
-- accuracy is the worst relative difference from the engine at tol = 1e-5
-- over every 30th epoch (the CPU suite holds the engine to VBMicrolensing).
local starling = require "starling"
local ml = starling.microlensing
local n = tonumber(arg[1]) or 3000
local peer = tonumber(arg[2])
local S, Q, RHO, U0, TE = 1.0, 1e-3, 1e-3, 0.005, 20.0

local y1, y2 = {}, {}
for k = 0, n - 1 do
  y1[#y1 + 1] = -(-0.5 + k / (n - 1)) / TE
  y2[#y2 + 1] = -U0
end
local few1, few2 = {}, {}
for k = 1, n, 30 do few1[#few1 + 1], few2[#few2 + 1] = y1[k], y2[k] end

local ref = ml.binary_mag{s = S, q = Q, rho = RHO, y1 = few1, y2 = few2, tol = 1e-5}

local function run(backend)
  local ok = pcall(ml.binary_mag, {s = S, q = Q, rho = RHO, y1 = {y1[1]}, y2 = {y2[1]},
                                   backend = backend})
  if not ok then return nil end
  ml.binary_mag{s = S, q = Q, rho = RHO, y1 = {table.unpack(y1, 1, 16)},
                y2 = {table.unpack(y2, 1, 16)}, backend = backend}
  local t0 = starling.clock()
  local A = ml.binary_mag{s = S, q = Q, rho = RHO, y1 = y1, y2 = y2, tol = 1e-3,
                          backend = backend}
  local dt = starling.clock() - t0
  local worst, j = 0, 0
  for k = 1, n, 30 do
    j = j + 1
    worst = math.max(worst, math.abs(A[k] / ref[j] - 1))
  end
  return n / dt, worst, dt
end

local gpu, gerr, gs = run("cuda")
local cpu, cerr, cs = run("cpu")
print(string.format("Dynamic engine, s = %g, q = %g, rho = %g, %d epochs through the central "
                    .. "caustic, tol 1e-3", S, Q, RHO, n))
print("| backend | epochs/s | seconds | worst vs tol 1e-5 |")
print("|---|---|---|---|")
if gpu then print(string.format("| GPU | %.4g | %.3f | %.2e |", gpu, gs, gerr)) end
print(string.format("| CPU (every core) | %.4g | %.3f | %.2e |", cpu, cs, cerr))
if peer then
  print(string.format("| peer | %.4g | | |", peer))
  print(string.format("GPU/CPU %s, GPU/peer %s, CPU/peer %.3g",
                      gpu and string.format("%.3g", gpu / cpu) or "—",
                      gpu and string.format("%.3g", gpu / peer) or "—", cpu / peer))
elseif gpu then
  print(string.format("GPU/CPU %.3g", gpu / cpu))
end
