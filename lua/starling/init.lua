-- starling: the Lua face of the library (require "starling").
--
-- The checking and the work are done by the C module "starling.core", which
-- the starling executable preloads. This file adds what is easier in Lua:
-- recording each call's configuration (for the "# config:" line of every
-- output), choosing the progress printer, and pointing error messages at
-- the user's line rather than at this file.

local core = require "starling.core"

local M = {}

-- Frames whose source starts with this folder are ours and are skipped when
-- an error message looks for the user's config line.
local here = debug.getinfo(1, "S").source
core._set_libsource(here:match("^(@.*/)[^/]*$") or here)

local function fail(msg)
  error(core.where() .. msg, 0)
end

local function is_ensemble(v)
  local mt = type(v) == "userdata" and getmetatable(v)
  return mt and mt.__index == core.ensemble_methods or false
end

-- Shortest decimal form that reads back as the same number.
local function number_text(x)
  if math.type(x) == "integer" then return tostring(x) end
  if x ~= x then return "nan" end
  if x == math.huge then return "inf" end
  if x == -math.huge then return "-inf" end
  for prec = 15, 16 do
    local s = string.format("%." .. prec .. "g", x)
    if tonumber(s) == x then return s end
  end
  return string.format("%.17g", x)
end

local function is_identifier(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") ~= nil
end

-- One line of Lua-like text for a config value: keys sorted, so the same
-- config always gives the same line.
local function serialize(v, depth)
  depth = depth or 0
  local t = type(v)
  if t == "number" then return number_text(v) end
  if t == "string" then return (string.format("%q", v):gsub("\\\n", "\\n")) end
  if t == "boolean" or t == "nil" then return tostring(v) end
  if is_ensemble(v) then
    return v:_meta().config or string.format("<ensemble %dx%d>", v:size(), v:bodies())
  end
  if t ~= "table" then return "<" .. t .. ">" end
  if depth > 6 then return "{...}" end
  local parts, n = {}, rawlen(v)
  for i = 1, n do parts[#parts + 1] = serialize(rawget(v, i), depth + 1) end
  local keys = {}
  for k in next, v do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local key = is_identifier(k) and k or "[" .. serialize(k, depth + 1) .. "]"
    parts[#parts + 1] = key .. "=" .. serialize(rawget(v, k), depth + 1)
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

--- Version of the library, e.g. "0.1.0".
M.version = core.version

--- CUDA support: { built = bool, archs = "90", devices = n }.
M.cuda = { built = core.cuda_built, archs = core.cuda_archs, devices = core.cuda_devices() }

--- The config text recorded in outputs, for any value.
M.serialize = function(v) return serialize(v, 0) end

--- Backends usable now: {"cpu", "cuda:0", ...}.
function M.backends() return core.backends() end

--- Loaded plugins: list of {kind, name, description, path, plugin, version, params}.
function M.plugins() return core.plugins() end

--- Plugins that could not be loaded, one message each.
function M.problems() return core.problems() end

-- Explicit bodies of more than this many systems are recorded by count and
-- digest, not body by body: a config line of every body grows with the
-- ensemble (180 KB for 600 three-body systems).
local SYSTEMS_IN_FULL = 16

-- FNV-1a (64 bits, wrapping integer arithmetic) of a string.
local function fnv1a(text, h)
  h = h or -3750763034362895579 -- 0xcbf29ce484222325
  for i = 1, #text do
    h = (h ~ text:byte(i)) * 1099511628211
  end
  return h
end

-- The config text of an ensemble spec: explicit systems beyond
-- SYSTEMS_IN_FULL become "<N systems of B bodies, fnv1a64 HEX>", the digest
-- of their full text, so equal inputs still give equal lines.
local function ensemble_text(spec)
  local systems = type(spec) == "table" and rawget(spec, "systems")
  if type(systems) ~= "table" or rawlen(systems) <= SYSTEMS_IN_FULL then
    return "ensemble" .. serialize(spec)
  end
  local h, bodies = nil, 0
  for i = 1, rawlen(systems) do
    local sys = rawget(systems, i)
    h = fnv1a(serialize(sys) .. "\n", h)
    if type(sys) == "table" then bodies = math.max(bodies, rawlen(sys)) end
  end
  local rest = {}
  for k, v in next, spec do rest[k] = v end
  rest.systems = nil
  local text = serialize(rest)
  local summary = string.format("systems=<%d systems of %d bodies, fnv1a64 %016x>",
                                rawlen(systems), bodies, h)
  return "ensemble{" .. summary .. (text == "{}" and "}" or ", " .. text:sub(2))
end

--- A new ensemble: generated test systems {n = ..., planets = ..., ...} or
--- explicit bodies {systems = {{ {m =, x = {}, v = {}}, ... }, ...}}.
function M.ensemble(spec)
  local e = core.ensemble(spec)
  e:_meta().config = ensemble_text(spec)
  return e
end

--- An ensemble from a CSV file with the columns sys,body,m,x,y,z,vx,vy,vz.
function M.read_ensemble(path)
  local e = core.read_ensemble(path)
  e:_meta().config = "read_ensemble(" .. serialize(path) .. ")"
  return e
end

--- Integrates cfg.ensemble in place to cfg.t_end; returns a result.
function M.integrate(cfg)
  if type(cfg) ~= "table" then return core.integrate(cfg) end
  -- The starling executable installs core.progress_printer(show) and
  -- core.progress_default (on when stderr is a terminal and CI is unset).
  -- Its printer also warns once when a run would take over an hour, even
  -- with the progress line off; a function given here replaces it.
  local progress = cfg.progress
  if progress == nil then progress = core.progress_default == true end
  if type(progress) == "boolean" and core.progress_printer then
    progress = core.progress_printer(progress)
  end
  if type(progress) ~= "function" then progress = nil end
  local r = core.integrate(cfg, "integrate" .. serialize(cfg), progress)
  return r
end

--- A line plot (a periodogram) as a PNG: {path =, object = <a periodogram
--- result with full = true> | x =, y =, title =, xlabel =, ylabel =,
--- width =, height =, mark = <x of a dashed marker line>}.
function M.plot_png(cfg)
  return core.plot_png(cfg)
end

--- Kepler's equation: starling.kepler.solve(M, e) gives E with
--- E - e sin E = M (0 <= e < 1) or F with e sinh F - F = M (e > 1);
--- M and e are numbers or lists (a number pairs with every element).
M.kepler = { solve = function(m, e) return core.kepler_solve(m, e) end }

--- A likelihood plugin prepared on a data set: starling.likelihood(name,
--- {data = "rv.txt", <the plugin's options>}) or starling.likelihood{name =
--- name, data = {t = {...}, rv = {...}, err = {...}}}; data is a file name,
--- columns by name or a data object from a plugin's reader (starling.rv.read);
--- methods :params(), :eval(rows) -> loglik, chi2,
--- :model(t, p[, instrument]), :info().
function M.likelihood(name, cfg)
  return core.likelihood(name, cfg)
end

--- Differential-evolution MCMC: starling.demcmc{likelihood = L | function(p),
--- priors = {name = {"uniform", lo, hi} | {"log_uniform", lo, hi} |
--- {"normal", mean, sigma} | {"truncated_normal", mean, sigma, lo, hi} |
--- value (fixed), ...}, params = {names} (a function only), chains =,
--- generations =, burn =, thin =, seed =, progress =, resume = <result>};
--- methods :summary(), :save(path), :samples(name), :info().
function M.demcmc(cfg)
  return core.demcmc(cfg)
end

--- Points with error bars and lines as a PNG (PLplot): starling.points_png{
--- path =, x =, y =, err =, group = {colour index per point}, grid =,
--- lines = {{...}, ...} (each on grid), last_bold =, title =, xlabel =,
--- ylabel =, width =, height =}; e.g. velocities and posterior models.
function M.points_png(cfg)
  return core.points_png(cfg)
end

--- Wall-clock seconds from a monotonic clock (os.clock is CPU time).
function M.clock() return core.clock() end

--- Raises an error located at the caller's config line (for user libraries
--- that want starling-style messages).
M.error = fail

-- What the plugins' Lua faces write in Lua, added to M.
core._open_face_chunks(core, M)

return M
