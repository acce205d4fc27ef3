-- @NAME@.lua: the @NAME@ likelihood on @NAME@.csv (48 points made with
-- P = 3.7, A = 2, phi = 0.8, c0 = 10, c1 = 0.05 and jitter 0.2): the best
-- of a coarse grid over P, where at each P the linear parameters (A, phi,
-- c0, c1) take their weighted least-squares values; then the best jitter at
-- that P; then the same points from memory instead of the file.
--
--   STARLING_PLUGIN_PATH=build/plugins starling run @NAME@.lua [backend]
--
-- backend: "cpu" (default), "cuda", "auto"; STARLING_TEST_BACKEND is read
-- when none is given. A failed check stops the script with an error (exit
-- status 1).
local starling = require "starling"
local backend = ... or os.getenv("STARLING_TEST_BACKEND") or "cpu"
local here = arg[0]:match("^(.*/)") or "./"
local csv = here .. "@NAME@.csv"

local L = starling.likelihood("@NAME@", {
  data = csv, period_min = 1, period_max = 20, backend = backend,
})
-- the file's time, y, err, read again here to pass them from memory below
local t, y, err = {}, {}, {}
for line in io.lines(csv) do
  local a, b, c = line:match("^([%d.eE+-]+),([%d.eE+-]+),([%d.eE+-]+)$")
  if a then t[#t + 1], y[#y + 1], err[#err + 1] = tonumber(a), tonumber(b), tonumber(c) end
end
local t_ref = (t[1] + t[#t]) / 2 -- the default: the midpoint of the times (sorted here)

-- Solves the 4x4 system A x = b (Gaussian elimination with pivoting).
local function solve(A, b)
  local n = #b
  for i = 1, n do
    local piv = i
    for r = i + 1, n do if math.abs(A[r][i]) > math.abs(A[piv][i]) then piv = r end end
    A[i], A[piv], b[i], b[piv] = A[piv], A[i], b[piv], b[i]
    for r = i + 1, n do
      local f = A[r][i] / A[i][i]
      for c = i, n do A[r][c] = A[r][c] - f * A[i][c] end
      b[r] = b[r] - f * b[i]
    end
  end
  local x = {}
  for i = n, 1, -1 do
    local s = b[i]
    for c = i + 1, n do s = s - A[i][c] * x[c] end
    x[i] = s / A[i][i]
  end
  return x
end

-- At period P: y ~ a sin + b cos + c0 + c1 dt by weighted least squares;
-- a sin x + b cos x = A sin(x + phi) with A = |(a, b)|, phi = atan2(b, a).
local function best_at(P, log_jitter)
  local M, v = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}, {0, 0, 0, 0}
  for k = 1, #t do
    local dt = t[k] - t_ref
    local f = {math.sin(2 * math.pi * dt / P), math.cos(2 * math.pi * dt / P), 1, dt}
    local w = 1 / err[k] ^ 2
    for i = 1, 4 do
      v[i] = v[i] + w * f[i] * y[k]
      for j = 1, 4 do M[i][j] = M[i][j] + w * f[i] * f[j] end
    end
  end
  local x = solve(M, v)
  local phi = math.atan(x[2], x[1]) % (2 * math.pi)
  return {P, math.sqrt(x[1] ^ 2 + x[2] ^ 2), phi, x[3], x[4], log_jitter}
end

-- The grid spans P's bounds, which the options period_min/max set.
local bounds = L:params()[1]
local rows, n_grid = {}, 1000
for i = 0, n_grid - 1 do
  local P = bounds.min * (bounds.max / bounds.min) ^ (i / (n_grid - 1))
  rows[#rows + 1] = best_at(P, math.log(0.1))
end
local lnL = L:eval(rows)
local best = 1
for i = 2, #rows do if lnL[i] > lnL[best] then best = i end end
local p = rows[best]
print(("%d points from %s on %s"):format(#t, csv:match("[^/]*$"), L:info().backend))
print(("best of %d periods in [%g, %g]: P = %.3f, A = %.2f, phi = %.2f, c0 = %.2f, "
  .. "c1 = %.3f (ln L = %.2f)"):format(n_grid, bounds.min, bounds.max, p[1], p[2], p[3], p[4],
  p[5], lnL[best]))
assert(math.abs(p[1] / 3.7 - 1) < 0.01, ("best P %.4f, expected 3.7"):format(p[1]))

-- the jitter at that P: log_jitter from -4 to 1
local jrows = {}
for i = 0, 50 do jrows[#jrows + 1] = best_at(p[1], -4 + 0.1 * i) end
local jl = L:eval(jrows)
local bj = 1
for i = 2, #jrows do if jl[i] > jl[bj] then bj = i end end
local jitter = math.exp(jrows[bj][6])
print(("best jitter at that P: %.2f (ln L = %.2f)"):format(jitter, jl[bj]))
assert(jitter > 0.05 and jitter < 0.6, ("jitter %.3f, expected about 0.2"):format(jitter))

-- the same points as columns in memory: the same ln L, bit for bit
local M = starling.likelihood{name = "@NAME@", data = {time = t, y = y, err = err},
  period_min = 1, period_max = 20, backend = backend}
local a, b = L:eval(jrows[bj]), M:eval(jrows[bj])
assert(a == b, ("from the file %.17g, from memory %.17g"):format(a, b))
print("from memory: the same ln L")
print("@NAME@ ok")
