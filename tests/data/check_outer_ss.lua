-- Swarm-NG's test mode on the outer Solar System: mvs at REBOUND WHFast's
-- step, to compare with WHFast's final state (tests/lua.cmake):
--   starling check tests/data/check_outer_ss.lua --reference tests/data/outer_ss_whfast_final.csv
local starling = require "starling"
local here = arg[0]:match("(.*/)") or "./"
local E = starling.read_ensemble(here .. "outer_ss_start.csv")
return starling.integrate{ensemble = E, integrator = "mvs", dt = 2 * math.pi * 0.1,
                          t_end = 2 * math.pi * 1e4, backend = "cpu"}
