-- The microlensing plugin's Lua face, the part written in Lua: run once
-- per Lua state with the C module (whose core.microlensing the plugin's C
-- face made) and the `starling` table, to which it adds
-- starling.microlensing. Embedded into the plugin (ml_face.lua -> C string).
local core, M = ...

--- Microlensing magnifications (docs/microlensing.md), MulensModel's
--- conventions: starling.microlensing.pspl{t0 =, u0 =, tE =, t = {...}},
--- fspl{... rho =, a1 = 0}, binary{... s =, q =, alpha = <degrees>}; each
--- takes models = {{...}, ...} for many models at the same t, and
--- backend = "auto" | "cpu" | "cuda". binary_mag0{s =, q =, y1 =, y2 =}
--- gives the point-source magnification at a source position and the
--- number of images; multi_mag0{lenses = {{x =, y =, m =}, ...}, y1 =, y2 =} the
--- same for 1 to 4 point lenses, at one source or lists of them.
--- caustics{s =, q = | lenses = {{x =, y =, m =}, ...},
--- points = 72, resolution = 1e-3} gives the closed caustics, each
--- {x =, y =, crit_x =, crit_y =, box =}, with n, box and crit_box.
--- map{s =, q = | lenses =, box = {x0, x1, y0, y1}, pixels = 512, rays = 100,
--- seed = 1, backend =, fits = PATH, values = false} shoots a magnification
--- map (inverse ray shooting), writes it as FITS when asked, and returns its
--- statistics (and the values, row by row, with values = true). The result's
--- lightcurve{t0 =, u0 =, tE =, alpha =, rho = | models =, t =, ld1 = 0,
--- ld2 = 0} reads finite-source light curves from the map (also
--- starling.microlensing.lightcurve(result, {...})).
--- likelihood{data = PATH | columns, model = "pspl" | "fspl" | "binary" | "fsbl" |
---   "binary_source",
--- phot = "auto" | "mag" | "flux", zero_point = 22, ld = 0, backend =; fsbl
--- (finite-source binary from maps): s =, q =, rho_min = 5e-4, rho_max = 0.01,
--- pixel = rho_min / 5, rays = 200, seed = 1; fsbl with s and q free: engine =
--- "dynamic", tol = 1e-3}
--- prepares the photometric likelihood (chi^2 with each passband's source
--- and blend flux fitted): starling.likelihood("microlensing", cfg).
local function ml_model(kind)
  return function(cfg)
    if type(cfg) ~= "table" then
      error("microlensing." .. kind .. ": expected a table {t0 =, u0 =, tE =, t =, ...}", 2)
    end
    if cfg.model ~= nil and cfg.model ~= kind then
      error("microlensing." .. kind .. ": key 'model' = " .. tostring(cfg.model)
            .. ": leave it out (this function is the " .. kind .. " model)", 2)
    end
    local c = {}
    for k, v in pairs(cfg) do c[k] = v end
    c.model = kind
    return core.microlensing.magnification(c)
  end
end
--- The grid search (docs/microlensing.md): a PSPL fit from starts spread
--- over the data's span, then for every (s, q) on the grid and every alpha
--- slice, both signs of u0, a Nelder-Mead fit of (t0, u0, tE, alpha) with s
--- and q held, all simplices advanced together (L:minimize); the best fit per
--- cell, the best `polish` (3) cells polished together with all six
--- parameters free, a CSV table and a chi^2 map (PNG). With rho = {min =,
--- max =} (and ld, pixel, rays, seed): then per cell a finite-source fit of
--- (t0, u0, tE, alpha, rho) on that cell's magnification maps (model fsbl),
--- started from the PSPL fit, from the cell's point-source fit and from
--- start = {t0 =, u0 =, tE =, alpha =} when given.
local function ml_axis(ctx, name, v, def)
  v = v == nil and def or v
  if type(v) ~= "table" then
    error(ctx .. ": key '" .. name .. "' = " .. tostring(v)
          .. ": expected a list of values or {from =, to =, n =} (log-spaced)", 3)
  end
  if v.from ~= nil or v.to ~= nil or v.n ~= nil then
    local a, b, n = v.from, v.to, v.n
    if type(a) ~= "number" or type(b) ~= "number" or not (a > 0 and b > a)
       or math.type(n) ~= "integer" or n < 1 or n > 1000 then
      error(ctx .. ": key '" .. name .. "' = {from = " .. tostring(a) .. ", to = "
            .. tostring(b) .. ", n = " .. tostring(n)
            .. "}: expected 0 < from < to and an integer n in 1..1000", 3)
    end
    local out, la, lb = {}, math.log(a, 10), math.log(b, 10)
    for i = 1, n do out[i] = 10 ^ (n == 1 and la or la + (lb - la) * (i - 1) / (n - 1)) end
    return out, la, lb
  end
  if #v == 0 then error(ctx .. ": key '" .. name .. "' is an empty list", 3) end
  for i, x in ipairs(v) do
    if type(x) ~= "number" or not (x > 0) then
      error(ctx .. ": " .. name .. "[" .. i .. "] = " .. tostring(x) .. ": expected a number > 0", 3)
    end
  end
  local out = {} -- ascending, so the table and the picture's axes run one way
  for i, x in ipairs(v) do out[i] = x end
  table.sort(out)
  return out
end

local GRID_KEYS = { data = 1, columns = 1, backend = 1, phot = 1, zero_point = 1, s = 1, q = 1,
                    alpha = 1, iterations = 1, tol = 1, csv = 1, png = 1, progress = 1,
                    polish = 1, rho = 1, ld = 1, pixel = 1, rays = 1, seed = 1, start = 1,
                    overwrite = 1, passbands = 1, parallax = 1, ra = 1, dec = 1, t0_par = 1,
                    time_offset = 1 }
local PARALLAX_KEYS = { ra = 1, dec = 1, t0_par = 1, time_offset = 1 }
local FINITE_KEYS = { ld = 1, pixel = 1, rays = 1, seed = 1, start = 1 }

-- rho = {min =, max =}: the finite-source search's range (nil: point source)
local function ml_rho_range(ctx, cfg)
  local r = cfg.rho
  if r == nil then
    for k in pairs(FINITE_KEYS) do
      if cfg[k] ~= nil then
        local v = type(cfg[k]) == "table" and "{...}" or tostring(cfg[k])
        error(ctx .. ": key '" .. k .. "' = " .. v .. ": only a finite-source "
              .. "search takes it (give rho = {min =, max =})", 3)
      end
    end
    return nil
  end
  if type(r) ~= "table" or type(r.min) ~= "number" or type(r.max) ~= "number"
     or not (r.min > 0 and r.max >= r.min) then
    local got = type(r) == "table" and ("{min = " .. tostring(r.min) .. ", max = "
                                        .. tostring(r.max) .. "}") or tostring(r)
    error(ctx .. ": key 'rho' = " .. got .. ": expected {min =, max =} with 0 < min <= max "
          .. "(source radii in Einstein radii)", 3)
  end
  local st = cfg.start -- {t0 =, u0 =, tE =, alpha =}: one more start in every cell
  if st ~= nil then
    if type(st) ~= "table" then
      error(ctx .. ": key 'start' = " .. tostring(st) .. ": expected {t0 =, u0 =, tE =, alpha =}", 3)
    end
    for _, k in ipairs({ "t0", "u0", "tE", "alpha" }) do
      if type(st[k]) ~= "number" or st[k] ~= st[k] then
        error(ctx .. ": key 'start': " .. k .. " = " .. tostring(st[k])
              .. ": expected a number ({t0 =, u0 =, tE =, alpha =}, e.g. a point-source fit)", 3)
      end
    end
    if not (st.tE > 0) then
      error(ctx .. ": key 'start': tE = " .. tostring(st.tE) .. ": expected a number > 0", 3)
    end
  end
  return { min = r.min, max = r.max }
end

-- The finite-source stage: for every (s, q) a likelihood of model "fsbl"
-- (its maps made on the backend), alpha slices x signs of u0 from the PSPL
-- fit with rho from the middle of its range (log), (t0, u0, tE, alpha, rho)
-- free, one restart; the best fit per cell. Each cell's maps are released
-- before the next cell's are made.
local function ml_finite_cells(cfg, S, Q, na, pspl, rho, iters, tol, say, ctx, t_start, seeds)
  local cells, evals = {}, 0
  local u0 = math.max(pspl.u0, 1e-3)
  local r0 = math.sqrt(rho.min * rho.max)
  local step = { 0.02 * pspl.tE, 0.2 * u0, 0.1 * pspl.tE, 180 / na, 0.5 * r0 }
  local n_cells = #S * #Q
  for j, q in ipairs(Q) do
    for i, s in ipairs(S) do
      local F = core.likelihood("microlensing", { data = cfg.data, columns = cfg.columns,
        passbands = cfg.passbands,
        backend = cfg.backend, phot = cfg.phot, zero_point = cfg.zero_point, model = "fsbl",
        s = s, q = q, rho_min = rho.min, rho_max = rho.max, ld = cfg.ld, pixel = cfg.pixel,
        rays = cfg.rays, seed = cfg.seed })
      local st = {}
      for a = 0, na - 1 do
        for _, sg in ipairs({ 1, -1 }) do
          st[#st + 1] = { pspl.t0, sg * u0, pspl.tE, (a + 0.5) * 360 / na, r0 }
        end
      end
      local c = (j - 1) * #S + i
      local pc = seeds[c] -- the point-source fit of this cell, with a small and the middle rho
      st[#st + 1] = { pc.t0, pc.u0, pc.tE, pc.alpha, r0 }
      st[#st + 1] = { pc.t0, pc.u0, pc.tE, pc.alpha, math.min(2 * rho.min, rho.max) }
      local us = cfg.start -- the caller's start (e.g. a point-source fit with s, q free)
      if us then
        st[#st + 1] = { us.t0, us.u0, us.tE, us.alpha, r0 }
        st[#st + 1] = { us.t0, us.u0, us.tE, us.alpha, math.min(2 * rho.min, rho.max) }
      end
      local rb = F:minimize{ start = st, step = step, tol = tol, iterations = iters }
      local rs = F:minimize{ start = rb.x, step = { step[1] / 4, step[2] / 4, step[3] / 4,
        step[4] / 4, step[5] / 4 }, tol = tol, iterations = iters }
      evals = evals + rb.evals + rs.evals
      for k = 1, #rs.chi2 do
        if cells[c] == nil or rs.chi2[k] < cells[c].chi2 then
          local x = rs.x[k]
          cells[c] = { s = s, q = q, chi2 = rs.chi2[k], t0 = x[1], u0 = x[2], tE = x[3],
                       alpha = x[4] % 360, rho = x[5] }
        end
      end
      if say then
        io.stderr:write(string.format("%s: cell %d of %d (s = %.4g, q = %.3g): chi2 = %.2f, "
          .. "rho = %.3g (%.1f s)\n", ctx, c, n_cells, s, q, cells[c].chi2, cells[c].rho,
          core.clock() - t_start))
      end
      F:close()
    end
  end
  return cells, evals
end

-- Three Nelder-Mead runs of L from the starts, each from the last run's
-- end points with fresh simplices (step(x) sized on the first start) at
-- tol 1e-4: the last run, evals plus its evaluations, and the index of its
-- best end point.
local function ml_restarts(L, starts, step, evals)
  local r
  for _ = 1, 3 do
    r = L:minimize{ start = starts, step = step(starts[1]), tol = 1e-4, iterations = 4000 }
    starts, evals = r.x, evals + r.evals
  end
  local bp = 1
  for k = 2, #r.chi2 do if r.chi2[k] < r.chi2[bp] then bp = k end end
  return r, evals, bp
end

-- The best `npol` finite-source cells refined within their (s, q): three
-- restarts with smaller simplices and a tighter tol.
local function ml_finite_polish(cfg, cells, order, npol, rho)
  local best, evals = nil, 0
  for k = 1, math.min(npol, #order) do
    local c = cells[order[k]]
    local F = core.likelihood("microlensing", { data = cfg.data, columns = cfg.columns,
      passbands = cfg.passbands,
      backend = cfg.backend, phot = cfg.phot, zero_point = cfg.zero_point, model = "fsbl",
      s = c.s, q = c.q, rho_min = rho.min, rho_max = rho.max, ld = cfg.ld, pixel = cfg.pixel,
      rays = cfg.rays, seed = cfg.seed })
    local r
    r, evals = ml_restarts(F, { { c.t0, c.u0, c.tE, c.alpha, c.rho } }, function(x)
      return { 0.01 * x[3], 0.1 * math.abs(x[2]) + 1e-4, 0.02 * x[3], 2, 0.2 * x[5] }
    end, evals)
    F:close()
    if best == nil or r.chi2[1] < best.chi2 then
      local x = r.x[1]
      best = { t0 = x[1], u0 = x[2], tE = x[3], s = c.s, q = c.q, alpha = x[4] % 360,
               rho = x[5], chi2 = r.chi2[1] }
    end
  end
  return best, evals
end

local ml_point_cells, ml_grid_write, ml_parallax_polish -- below

local function ml_gridsearch(cfg)
  local ctx = "microlensing.gridsearch"
  if type(cfg) ~= "table" then
    error(ctx .. ": expected a table {data =, s =, q =, alpha =, ...}", 2)
  end
  for k, v in pairs(cfg) do
    if not GRID_KEYS[k] then
      local names = {}
      for n in pairs(GRID_KEYS) do names[#names + 1] = n end
      table.sort(names)
      error(ctx .. ": unknown key '" .. tostring(k) .. "' = " .. tostring(v)
            .. ": expected one of " .. table.concat(names, ", "), 2)
    end
  end
  -- every output before the work (starling/output.h's rules)
  if cfg.overwrite ~= nil and type(cfg.overwrite) ~= "boolean" then
    error(ctx .. ": key 'overwrite' = " .. tostring(cfg.overwrite) .. ": expected true or false", 2)
  end
  for _, key in ipairs({ "csv", "png" }) do
    if cfg[key] ~= nil then
      if type(cfg[key]) ~= "string" then
        error(ctx .. ": key '" .. key .. "' = " .. tostring(cfg[key]) .. ": expected a file name", 2)
      end
      core.output_check(cfg[key], cfg.overwrite, ctx .. ": key '" .. key .. "'")
    end
  end
  if cfg.png ~= nil then core.microlensing.png_ready(cfg.png, cfg.overwrite) end
  -- annual parallax: the polish's likelihood, made (and so checked) before any work
  local PX
  if cfg.parallax ~= nil then
    if cfg.rho ~= nil then
      error(ctx .. ": key 'parallax': the finite-source search (rho =) does not take it; "
            .. "search without parallax and add it with microlensing.likelihood{}", 2)
    end
    PX = core.likelihood("microlensing", { data = cfg.data, columns = cfg.columns,
      passbands = cfg.passbands, backend = cfg.backend, phot = cfg.phot,
      zero_point = cfg.zero_point, model = "binary", parallax = cfg.parallax, ra = cfg.ra,
      dec = cfg.dec, t0_par = cfg.t0_par, time_offset = cfg.time_offset })
  else
    for k in pairs(PARALLAX_KEYS) do
      if cfg[k] ~= nil then
        error(ctx .. ": key '" .. k .. "' = " .. tostring(cfg[k]) .. ": only a search with "
              .. "parallax = \"annual\" takes it", 2)
      end
    end
  end
  local t_start = core.clock()
  local S = ml_axis(ctx, "s", cfg.s, { from = 0.3, to = 3, n = 15 })
  local Q = ml_axis(ctx, "q", cfg.q, { from = 1e-5, to = 1, n = 11 })
  local na = cfg.alpha or 8
  if math.type(na) ~= "integer" or na < 1 or na > 360 then
    error(ctx .. ": key 'alpha' = " .. tostring(na) .. ": expected the number of slices, 1..360", 2)
  end
  local iters = cfg.iterations or 400
  local npol = cfg.polish or 3
  if math.type(npol) ~= "integer" or npol < 1 or npol > 1000 then
    error(ctx .. ": key 'polish' = " .. tostring(npol)
          .. ": expected the number of best cells to polish, 1..1000", 2)
  end
  local tol = cfg.tol or 0.05
  local say = cfg.progress == nil and true or cfg.progress
  local rho = ml_rho_range(ctx, cfg)
  local function lik(model)
    return core.likelihood("microlensing", { data = cfg.data, columns = cfg.columns,
      passbands = cfg.passbands,
      backend = cfg.backend, phot = cfg.phot, zero_point = cfg.zero_point, model = model })
  end
  local P = lik("pspl")
  -- PSPL: t0 over the data's span (the likelihood's t0 bounds are the span on either side)
  local p1 = P:params()[1]
  local span = (p1.max - p1.min) / 3
  local first = p1.min + span
  local starts = {}
  for i = 0, 19 do
    for _, u0 in ipairs({ 0.01, 0.1, 0.5 }) do
      for _, tE in ipairs({ 5, 20, 60 }) do
        starts[#starts + 1] = { first + span * (i + 0.5) / 20, u0, tE }
      end
    end
  end
  local r = P:minimize{ start = starts, step = { span / 40, 0.05, 5 }, tol = 1e-3,
                        iterations = 2000 }
  local bi = 1
  for i = 2, #r.chi2 do if r.chi2[i] < r.chi2[bi] then bi = i end end
  local ps = r.x[bi]
  local pspl = { t0 = ps[1], u0 = math.abs(ps[2]), tE = ps[3], chi2 = r.chi2[bi] }
  if say then
    io.stderr:write(string.format("%s: PSPL t0 = %.4f, u0 = %.4f, tE = %.3f, chi2 = %.2f "
      .. "(%d starts, %.2f s)\n", ctx, pspl.t0, pspl.u0, pspl.tE, pspl.chi2, #starts,
      core.clock() - t_start))
  end
  local out
  if rho then
    -- the point-source search first (cheap): each cell's finite-source fit
    -- starts from its point-source fit too, not only from the PSPL's
    local ps = ml_point_cells(cfg, S, Q, na, pspl, iters, tol, 0, say, ctx, t_start)
    local cells, evals = ml_finite_cells(cfg, S, Q, na, pspl, rho, iters, tol, say, ctx, t_start,
                                         ps.cells)
    evals = evals + ps.evals
    local order = {}
    for k = 1, #cells do order[k] = k end
    table.sort(order, function(a, b) return cells[a].chi2 < cells[b].chi2 end)
    local fit, pol_evals = ml_finite_polish(cfg, cells, order, npol, rho)
    out = { cells = cells, best_cell = cells[order[1]], best = fit, pspl = pspl, ns = #S,
            nq = #Q, evals = evals + r.evals + pol_evals, seconds = core.clock() - t_start,
            backend = P:info().backend, rho = rho }
  else
    out = ml_point_cells(cfg, S, Q, na, pspl, iters, tol, npol, say, ctx, t_start, PX)
    out.evals = out.evals + r.evals
  end
  ml_grid_write(cfg, ctx, out, S, Q, na, iters, tol)
  return out
end

-- The point-source stage: every (s, q) x alpha slice x sign of u0, then
-- the best cells polished with s and q free.
ml_point_cells = function(cfg, S, Q, na, pspl, iters, tol, npol, say, ctx, t_start, PX)
  local B = core.likelihood("microlensing", { data = cfg.data, columns = cfg.columns,
    passbands = cfg.passbands,
    backend = cfg.backend, phot = cfg.phot, zero_point = cfg.zero_point, model = "binary" })
  -- binary: every (s, q) x alpha slice x sign of u0, q rows in four chunks for progress
  local cells, evals = {}, 0
  local u0 = math.max(pspl.u0, 1e-3)
  local step = { 0.02 * pspl.tE, 0.2 * u0, 0.1 * pspl.tE, 0, 0, 180 / na }
  local chunk = math.max(1, math.ceil(#Q / 4))
  for j0 = 1, #Q, chunk do
    local st, owner = {}, {}
    for j = j0, math.min(#Q, j0 + chunk - 1) do
      for i, s in ipairs(S) do
        for a = 0, na - 1 do
          for _, sg in ipairs({ 1, -1 }) do
            st[#st + 1] = { pspl.t0, sg * u0, pspl.tE, s, Q[j], (a + 0.5) * 360 / na }
            owner[#st] = (j - 1) * #S + i
          end
        end
      end
    end
    local rb = B:minimize{ start = st, step = step, tol = tol, iterations = iters }
    -- one restart from each end point with a fresh simplex: Nelder-Mead's
    -- simplex collapses in the narrow valleys a caustic crossing makes
    local rs = B:minimize{ start = rb.x, step = { step[1] / 4, step[2] / 4, step[3] / 4, 0, 0,
                                                  step[6] / 4 }, tol = tol, iterations = iters }
    evals = evals + rb.evals + rs.evals
    rb = rs
    for k, c in ipairs(owner) do
      if cells[c] == nil or rb.chi2[k] < cells[c].chi2 then
        local x = rb.x[k]
        cells[c] = { s = x[4], q = x[5], chi2 = rb.chi2[k], t0 = x[1], u0 = x[2], tE = x[3],
                     alpha = x[6] % 360 }
      end
    end
    if say then
      io.stderr:write(string.format("%s: q rows %d-%d of %d done (%d fits, %.1f s)\n", ctx, j0,
        math.min(#Q, j0 + chunk - 1), #Q, #st, core.clock() - t_start))
    end
  end
  local order = {}
  for k = 1, #cells do order[k] = k end
  table.sort(order, function(a, b) return cells[a].chi2 < cells[b].chi2 end)
  local best = cells[order[1]]
  -- the best cells polished together with every parameter free: the best
  -- cell alone can sit in the wrong one of two degenerate minima (s and
  -- 1/s) or have a fit that stalled between grid points
  local backend = B:info().backend
  if npol == 0 then -- the cells only (the finite-source search's starts)
    B:close()
    return { cells = cells, best_cell = best, best = best, evals = evals, backend = backend }
  end
  local starts, pol_evals = {}, 0
  for k = 1, math.min(npol, #order) do
    local c = cells[order[k]]
    starts[k] = { c.t0, c.u0, c.tE, c.s, c.q, c.alpha }
  end
  local pol, bp
  pol, pol_evals, bp = ml_restarts(B, starts, function(x)
    return { 0.01 * x[3], 0.1 * math.abs(x[2]) + 1e-4, 0.02 * x[3], 0.02 * x[4], 0.1 * x[5], 2 }
  end, pol_evals)
  local x = pol.x[bp]
  local fit = { t0 = x[1], u0 = x[2], tE = x[3], s = x[4], q = x[5], alpha = x[6] % 360,
                chi2 = pol.chi2[bp] }
  B:close()
  if PX then -- parallax on top: from the polished fits with pi_E at 0 and 0.2 each way
    fit, pol_evals = ml_parallax_polish(PX, pol, fit, pol_evals)
  end
  return { cells = cells, best_cell = best, best = fit, pspl = pspl, ns = #S, nq = #Q,
           evals = evals + pol_evals, seconds = core.clock() - t_start, backend = backend }
end

-- Annual parallax added to the polished point-source fits: each starts
-- with pi_E at (0, 0) and 0.2 along each axis both ways, and so does its
-- mirror image (-u0, -alpha), which parallax tells apart only weakly (the
-- ecliptic degeneracy); all eight parameters free, three restarts; the
-- best replaces the fit only where it is better (the fit without parallax
-- is one of its starts).
ml_parallax_polish = function(PX, pol, fit, evals)
  local starts = {}
  local pis = { { 0, 0 }, { 0.2, 0 }, { -0.2, 0 }, { 0, 0.2 }, { 0, -0.2 } }
  for k = 1, #pol.x do
    local x = pol.x[k]
    for _, m in ipairs({ 1, -1 }) do
      for _, pe in ipairs(pis) do
        starts[#starts + 1] = { x[1], m * x[2], x[3], x[4], x[5], m * x[6], pe[1], pe[2] }
      end
    end
  end
  local r, bp
  r, evals, bp = ml_restarts(PX, starts, function(x)
    return { 0.01 * x[3], 0.1 * math.abs(x[2]) + 1e-4, 0.02 * x[3], 0.02 * x[4], 0.1 * x[5], 2,
             0.05, 0.05 }
  end, evals)
  PX:close()
  if not (r.chi2[bp] < fit.chi2) then
    fit.pi_E_N, fit.pi_E_E = 0, 0
    return fit, evals
  end
  local x = r.x[bp]
  return { t0 = x[1], u0 = x[2], tE = x[3], s = x[4], q = x[5], alpha = x[6] % 360,
           pi_E_N = x[7], pi_E_E = x[8], chi2 = r.chi2[bp] }, evals
end

-- The table (CSV, written whole as starling/output.h says) and the chi^2
-- map (PNG).
ml_grid_write = function(cfg, ctx, out, S, Q, na, iters, tol)
  local cells, pspl, fit, rho = out.cells, out.pspl, out.best, out.rho
  if cfg.csv then
    local parts = {}
    local f = { write = function(_, s) parts[#parts + 1] = s end }
    f:write(string.format("# starling %s microlensing.gridsearch: data %s, %d s x %d q x %d alpha "
      .. "slices x 2 signs of u0, iterations %d, tol %g, backend %s\n", M.version,
      tostring(type(cfg.data) == "string" and cfg.data or "(columns)"), #S, #Q, na, iters, tol,
      out.backend))
    if rho then
      f:write(string.format("# finite source (model fsbl, maps per cell): rho in [%.17g, %.17g], "
        .. "ld %g, pixel %s, rays %s, seed %s\n", rho.min, rho.max, cfg.ld or 0,
        cfg.pixel and string.format("%.17g", cfg.pixel) or "rho_min/5", tostring(cfg.rays or 200),
        tostring(cfg.seed or 1)))
    end
    f:write(string.format("# PSPL start: t0 %.17g u0 %.17g tE %.17g chi2 %.17g\n", pspl.t0,
      pspl.u0, pspl.tE, pspl.chi2))
    if cfg.parallax then
      f:write(string.format("# annual parallax in the polish: ra %.17g dec %.17g t0_par %s "
        .. "time_offset %.17g\n", cfg.ra, cfg.dec,
        cfg.t0_par and string.format("%.17g", cfg.t0_par) or "default", cfg.time_offset or 0))
    end
    f:write(string.format("# polished best: t0 %.17g u0 %.17g tE %.17g s %.17g q %.17g alpha "
      .. "%.17g%s%s chi2 %.17g\n", fit.t0, fit.u0, fit.tE, fit.s, fit.q, fit.alpha,
      rho and string.format(" rho %.17g", fit.rho) or "",
      fit.pi_E_N and string.format(" pi_E_N %.17g pi_E_E %.17g", fit.pi_E_N, fit.pi_E_E) or "",
      fit.chi2))
    f:write(rho and "s,q,chi2,t0,u0,tE,alpha,rho\n" or "s,q,chi2,t0,u0,tE,alpha\n")
    for _, c in ipairs(cells) do
      f:write(string.format("%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", c.s, c.q, c.chi2,
        c.t0, c.u0, c.tE, c.alpha))
      f:write(rho and string.format(",%.17g\n", c.rho) or "\n")
    end
    core.write_text(cfg.csv, table.concat(parts), cfg.overwrite, ctx .. ": key 'csv'")
  end
  if cfg.png then
    local chi2 = {}
    for k, c in ipairs(cells) do chi2[k] = c.chi2 end
    local ls = function(v) return math.log(v, 10) end
    local hs = #S > 1 and (ls(S[#S]) - ls(S[1])) / (#S - 1) / 2 or 0.05
    local hq = #Q > 1 and (ls(Q[#Q]) - ls(Q[1])) / (#Q - 1) / 2 or 0.05
    core.microlensing.chi2_png{ path = cfg.png, chi2 = chi2, nx = #S, ny = #Q,
      box = { ls(S[1]) - hs, ls(S[#S]) + hs, ls(Q[1]) - hq, ls(Q[#Q]) + hq },
      title = string.format("grid search: best s = %.3f, q = %.2e", fit.s, fit.q),
      overwrite = cfg.overwrite }
  end
  return out
end

M.microlensing = {
  pspl = ml_model("pspl"),
  fspl = ml_model("fspl"),
  binary = ml_model("binary"),
  magnification = core.microlensing.magnification,
  binary_mag0 = core.microlensing.binary_mag0,
  binary_mag = core.microlensing.binary_mag,
  multi_mag0 = core.microlensing.multi_mag0,
  caustics = core.microlensing.caustics,
  map = core.microlensing.map,
  likelihood = function(cfg)
    if type(cfg) ~= "table" then
      error("microlensing.likelihood: expected a table {data =, model =, ...}", 2)
    end
    return core.likelihood("microlensing", cfg)
  end,
  gridsearch = ml_gridsearch,
  -- lightcurve(map_result, {...}) = map_result:lightcurve{...}
  lightcurve = function(map, cfg)
    if type(map) ~= "table" or type(map.lightcurve) ~= "function" then
      error("microlensing.lightcurve: expected a map's result first: lightcurve(m, {t0 =, "
            .. "u0 =, tE =, alpha =, rho =, t =})", 2)
    end
    return map:lightcurve(cfg)
  end,
}
