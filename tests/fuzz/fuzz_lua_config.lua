-- The decoder of fuzz_lua_config.c: fuzz bytes become configurations for
-- starling.ensemble{...}, starling.integrate{...} and, for some inputs,
-- starling.likelihood(name, {...}) and its :eval(rows). The bytes are only
-- ever read as choices and numbers (string.byte, string.unpack): they are
-- never loaded as code, and no os/io function is reachable from them.
--
-- Loaded once with the scratch folder and this folder as arguments; returns a function
-- of the input bytes that gives nil when every call behaved, else a text
-- describing the broken promise (fuzz_lua_config.c aborts with it), and
-- then the config and its outcome as text (printed with SLF_VERBOSE=1).
local tmpdir, srcdir = ...
-- real RV files for likelihoods (read only)
local rv_files = { srcdir .. "/corpus/fuzz_rv_read/header_4col_inst.txt",
  srcdir .. "/corpus/fuzz_rv_read/radvel_time_mnvel_errvel_tel.csv" }
local starling = require "starling"

-- ---- the dictionary ------------------------------------------------------

local run_keys = { "ensemble", "integrator", "force", "backend", "monitors", "log", "progress",
  "dry_run", "t_end", "max_steps", "steps_per_launch", "seed" }
local ensemble_keys = { "n", "planets", "planet_mass", "a1", "spacing", "perturb",
  "random_phase", "seed", "systems", "min", "max", "m", "x", "v" }
local likelihood_keys = { "data", "precision", "basis" }

-- names and parameters of every loaded plugin, so new keys are fuzzed too
local names = { "hermite", "newton", "log", "eject", "close_encounter", "energy", "unbound" }
local param_keys = {}
for _, p in ipairs(starling.plugins()) do
  names[#names + 1] = p.name
  for _, q in ipairs(p.params) do param_keys[#param_keys + 1] = q.name end
end

local keys = {}
for _, list in ipairs({ run_keys, ensemble_keys, likelihood_keys, param_keys }) do
  for _, k in ipairs(list) do keys[#keys + 1] = k end
end

local ints = { 0, 1, -1, 2, 3, 5, 7, 10, 63, 64, 65, 100, 1000, 1000000000, 1000000001,
  2147483648, 9007199254740991, 9007199254740992, 9007199254740993, math.maxinteger,
  math.mininteger }
local floats = { 0.0, -0.0, 1e-3, 0.01, 0.1, 0.5, 0.99, 1.0, 1.5, 2.5, -1.0, -0.5, 1 / 3,
  1e-300, 5e-324, 1e300, 1e308, math.huge, -math.huge, 0 / 0, 9e15, 1e16, 1e10, 20.0 }
local strings = { "", "cpu", "auto", "cuda", "cuda:0", "cuda:99", "cuda:", "cuda:x", "gpu",
  "double", "mixed", "M0", "tp", "tc", "kepler_rv",
  "nan", "1", "0.5", "-1", "inf", "1e999", " 1", "true", "x", "\0", "dt", "cpu\0x" }
for _, n in ipairs(names) do strings[#strings + 1] = n end
local odd_keys = { 0, -1, 1.5, 2 ^ 53, "", " dt", "DT", math.maxinteger, true, false }

-- ---- reading the bytes ------------------------------------------------------

local data, pos

-- The next byte; zeros after the end, which choose the smallest options,
-- so every decode terminates.
local function byte()
  pos = pos + 1
  return data:byte(pos) or 0
end

local function pick(list) return list[byte() % #list + 1] end

local function raw_double()
  local s = data:sub(pos + 1, pos + 8)
  pos = pos + 8
  if #s < 8 then return 0.0 end
  return (string.unpack("<d", s))
end

local made -- this input's raw strings, which messages may quote back

local function raw_string()
  local n = byte() % 24
  local s = data:sub(pos + 1, pos + n)
  pos = pos + n
  made[#made + 1] = s
  return s
end

-- ---- values -------------------------------------------------------------------

local pools = {} -- ensembles and functions, made once below

local value, table_of

-- A value of any kind; tables nest up to depth 3.
function value(depth)
  local c = byte() % 10
  if c == 0 then return nil end
  if c == 1 then return byte() % 2 == 1 end
  if c == 2 then return pick(ints) end
  if c == 3 then return pick(floats) end
  if c == 4 then return raw_double() end
  if c == 5 then return pick(strings) end
  if c == 6 then return raw_string() end
  if c == 7 and depth < 3 then return table_of(depth + 1) end
  if c == 8 then return pick(pools.ensembles) end
  return pick(pools.functions)
end

local special -- key -> generator of a plausible value

local function value_for(key, depth)
  local gen = special[key]
  if gen and byte() % 4 ~= 0 then return gen(depth) end
  return value(depth)
end

local function put(t, k, v)
  if k ~= k or k == nil then return end -- NaN and nil cannot be keys
  rawset(t, k, v)
end

-- A table of up to 7 entries: known keys, list entries or odd keys.
function table_of(depth)
  local t = {}
  for _ = 1, byte() % 8 do
    local c = byte() % 4
    if c <= 1 then
      local k = pick(keys)
      put(t, k, value_for(k, depth))
    elseif c == 2 then
      t[#t + 1] = value(depth)
    else
      put(t, pick(odd_keys), value(depth))
    end
  end
  return t
end

-- {"name", key = value, ...} or "name"
local function plugin_spec(depth)
  if byte() % 2 == 0 then return pick(names) end
  local t = table_of(depth + 1)
  t[1] = pick(names)
  return t
end

-- Generated systems stay small: n above 64 (but valid) becomes 64, so
-- that an input cannot ask for a billion systems; invalid n stays as is.
local function ensemble_spec(depth)
  local t = table_of(depth + 1)
  if byte() % 2 == 0 then t.n = t.n or pick({ 1, 2, 3, 64 }) end
  if math.type(t.n) and t.n > 64 and t.n <= 1e9 then t.n = 64 end
  return t
end

local function body(depth)
  if byte() % 8 == 0 then return value(depth) end
  local b = { m = byte() % 4 == 0 and value(depth) or pick(floats) }
  if byte() % 2 == 0 then b.x = { pick(floats), pick(floats), pick(floats) } end
  if byte() % 2 == 0 then b.v = { pick(floats), pick(floats), pick(floats) } end
  if byte() % 8 == 0 then b.x = value(depth) end
  return b
end

local function systems_list(depth)
  local list = {}
  local nb = byte() % 5
  for s = 1, byte() % 4 do
    local sys = {}
    for b = 1, (byte() % 8 == 0) and byte() % 5 or nb do sys[b] = body(depth) end
    list[s] = sys
  end
  return list
end

-- An ensemble: from the pool, or made now from a fuzzed spec (an invalid
-- spec must fail with a starling message, checked by the caller).
local errors
local function ensemble(depth)
  if byte() % 2 == 0 then return pick(pools.ensembles) end
  local spec = ensemble_spec(depth)
  if byte() % 3 == 0 then spec.n = nil; spec.systems = systems_list(depth) end
  local ok, e = pcall(starling.ensemble, spec)
  if ok then return e end
  errors[#errors + 1] = { "ensemble", e }
  return nil
end

local function monitors(depth)
  local list = {}
  for i = 1, byte() % 6 do
    list[i] = byte() % 8 == 0 and value(depth) or plugin_spec(depth)
  end
  if byte() % 8 == 0 then list[pick(odd_keys)] = value(depth) end
  return list
end

local function log_path()
  return pick({ tmpdir .. "/log.csv", tmpdir .. "/no/such/log.csv", tmpdir .. "/", "" })
end

special = {
  ensemble = ensemble,
  integrator = plugin_spec,
  force = plugin_spec,
  monitors = monitors,
  log = log_path,
  backend = function() return pick(strings) end,
  progress = function() return pick({ true, false, pools.functions[1] }) end,
  spacing = function(depth)
    local c = byte() % 3
    if c == 0 then return pick(floats) end
    if c == 1 then return { min = value(depth), max = value(depth) } end
    return pick(pools.functions)
  end,
  systems = systems_list,
  dt = function() return pick(floats) end,
  data = function() return pick({ rv_files[1], rv_files[2], tmpdir .. "/none.txt", srcdir }) end,
  t_end = function() return pick(floats) end,
}

pools.functions = {
  function(i) return 0.1 * (tonumber(i) or 0) end,
  function() error("a user function failed") end,
  function() return "text" end,
  function() return 0 / 0 end,
  function() end,
}
pools.ensembles = {
  starling.ensemble { n = 2, planets = 1, seed = 3 },
  starling.ensemble { n = 3, planets = 2, spacing = { min = 0.1, max = 0.5 } },
  starling.ensemble { systems = { { { m = 1, x = { 0, 0, 0 }, v = { 0, 0, 0 } },
                                    { m = 0, x = { 1, 0, 0 }, v = { 0, 0, 0 } } } } }, -- zero energy
  starling.ensemble { systems = { { { m = 1, x = { 0, 0, 0 }, v = { 0, 0, 0 } } } } }, -- one body
  starling.ensemble { n = 1, planets = 20 },
}

-- ---- one input -------------------------------------------------------------------

-- Whether e[s..f] lies inside a quotation of one of this input's raw
-- strings (as given, or as %q writes it): a message that quotes the user's
-- value "xbad argument" is not a raw Lua error.
local function quoted(e, s, f)
  for _, u in ipairs(made) do
    for _, form in ipairs({ u, string.format("%q", u):sub(2, -2) }) do
      if #form >= f - s + 1 then
        local a = 1
        while true do
          local i, j = e:find(form, a, true)
          if not i or i > s then break end
          if j >= f then return true end
          a = i + 1
        end
      end
    end
  end
  return false
end

-- Whether e says marker somewhere other than inside the user's own strings.
local function says(e, marker)
  local a = 1
  while true do
    local s, f = e:find(marker, a, true)
    if not s then return false end
    if not quoted(e, s, f) then return true end
    a = s + 1
  end
end

-- Errors are starling's messages naming the call: never a raw Lua error
-- from starling's own code ("attempt to index a nil value").
local function check_error(what, e)
  if type(e) ~= "string" or e == "" then
    return what .. ": an error that is not a message: " .. tostring(e)
  end
  if says(e, "attempt to ") or says(e, "bad argument") or says(e, "stack overflow") then
    return what .. ": a Lua error from inside starling: " .. e
  end
  if not (e:find("integrate", 1, true) or e:find("ensemble", 1, true)
        or e:find("likelihood", 1, true) or e:find("eval", 1, true)
        or e:find("a user function failed", 1, true)) then
    return what .. ": a message that names no call: " .. e
  end
end

-- A list of parameter vectors, mostly of plausible numbers.
local function rows_of(depth)
  if byte() % 8 == 0 then return value(depth) end
  local rows = {}
  for i = 1, byte() % 4 + 1 do
    local r = {}
    for k = 1, byte() % 12 do r[k] = byte() % 4 == 0 and value(depth) or pick(floats) end
    rows[i] = r
  end
  return rows
end

-- starling.likelihood(name, cfg), then :params() and :eval(rows).
local function likelihood_case()
  local name = byte() % 8 == 0 and pick(strings) or "kepler_rv"
  local cfg = table_of(1)
  if byte() % 4 ~= 0 then cfg.data = special.data() end
  local ok, l = pcall(starling.likelihood, name, cfg)
  if not ok then
    errors[#errors + 1] = { "likelihood", l }
    return
  end
  local np = #l:params()
  local rows = rows_of(1)
  if byte() % 2 == 0 then -- the right width, so that eval gets to work
    for _, r in ipairs(type(rows) == "table" and rows or {}) do
      if type(r) == "table" then for k = 1, np do r[k] = r[k] or 0.5 end end
    end
  end
  local ok2, e = pcall(l.eval, l, rows)
  if not ok2 then errors[#errors + 1] = { "likelihood eval", e } end
end

return function(bytes)
  data, pos, errors, made = bytes, 0, {}, {}
  local cfg = {}
  -- the first byte decides which basics are present, so that most inputs
  -- get past the first checks and reach the deeper ones
  local base = byte()
  if base & 1 ~= 0 then cfg.ensemble = pick(pools.ensembles) end
  if base & 2 ~= 0 then cfg.dt = 0.01 end
  if base & 4 ~= 0 then cfg.t_end = 1.0 end
  local extra = table_of(0)
  for k, v in next, extra do put(cfg, k, v) end
  cfg.dry_run = true
  if type(cfg.log) == "string" and cfg.log:sub(1, #tmpdir) ~= tmpdir then
    cfg.log = tmpdir .. "/log.csv"
  end
  local ok, r = pcall(starling.integrate, cfg)
  if byte() % 4 == 0 then likelihood_case() end
  local what = starling.serialize(cfg) .. "\n  -> " .. (ok and "accepted" or tostring(r))
  for _, e in ipairs(errors) do
    local bad = check_error(e[1], e[2])
    if bad then return bad, what end
  end
  if not ok then return check_error("integrate", r), what end
  if type(r) ~= "table" or r.dry_run ~= true then
    return "integrate{dry_run = true} returned " .. tostring(r), what
  end
  if r.systems ~= cfg.ensemble:size() then return "dry run: wrong system count", what end
  return nil, what
end
