-- ml_multi.lua: point-source magnifications behind three lenses (a star
-- with two planets: masses 0.998, 1.5e-3, 5e-4 at (0, 0), (1.05, 0.02),
-- (-0.3, 0.9)), sources on a side x side grid over [-1.5, 1.5]^2, on the
-- GPU and the CPU, with the ratio to the peer's figure when one is given
-- (bench/ml_multi_vbm.py: VBMicrolensing's MultiMag0 over the same grid
-- on the host's processes) and to microJAX's published 0.94 ms a point
-- (an A100, its paper's triple-lens point source).
--
--   starling run bench/ml_multi.lua [side [peer_points_per_s]]
--
-- Each backend is timed after a warm-up call of the same size (which also
-- makes the GPU's context), the median of three calls.
local starling = require "starling"
local ml = starling.microlensing
local side = tonumber(arg[1]) or 1000
local peer = tonumber(arg[2])
local lenses = {{x = 0.0, y = 0.0, m = 0.998}, {x = 1.05, y = 0.02, m = 1.5e-3},
                {x = -0.3, y = 0.9, m = 5e-4}}
local y1, y2 = {}, {}
for j = 0, side - 1 do
  for i = 0, side - 1 do
    y1[#y1 + 1] = -1.5 + 3.0 * (i + 0.5) / side
    y2[#y2 + 1] = -1.5 + 3.0 * (j + 0.5) / side
  end
end

local function rate(backend, n)
  local a, b = {}, {}
  for k = 1, n do a[k], b[k] = y1[k], y2[k] end
  local cfg = {lenses = lenses, y1 = a, y2 = b, backend = backend}
  ml.multi_mag0(cfg)
  local ts = {}
  local A
  for r = 1, 3 do
    local t0 = starling.clock()
    A = ml.multi_mag0(cfg)
    ts[r] = starling.clock() - t0
  end
  table.sort(ts)
  return n / ts[2], A
end

local n = #y1
local cpu_n = math.min(n, 200000)
local cpu_rate, Ac = rate("cpu", cpu_n)
local ok, gpu_rate, Ag = pcall(rate, "cuda", n)
if not ok then gpu_rate = nil end
local worst = 0
if gpu_rate then
  for k = 1, cpu_n do
    worst = math.max(worst, math.abs(Ag[k] - Ac[k]) / math.max(1, Ac[k]))
  end
end
local microjax = 1 / 0.94e-3
print(string.format("triple lens, point source: %d sources (CPU: the first %d)", n, cpu_n))
print("| workload | GPU points/s | CPU points/s | GPU/CPU | VBMicrolensing points/s | GPU/peer | "
      .. "GPU/microJAX (1064 points/s, A100, published) |")
print("|---|---|---|---|---|---|---|")
print(string.format("| multi_mag0, 3 lenses | %s | %.4g | %s | %s | %s | %s |",
                    gpu_rate and string.format("%.4g", gpu_rate) or "—", cpu_rate,
                    gpu_rate and string.format("%.1f", gpu_rate / cpu_rate) or "—",
                    peer and string.format("%.4g", peer) or "—",
                    (peer and gpu_rate) and string.format("%.0f", gpu_rate / peer) or "—",
                    gpu_rate and string.format("%.0f", gpu_rate / microjax) or "—"))
if gpu_rate then print(string.format("worst CPU-GPU difference %.2e (over max(1, A))", worst)) end
