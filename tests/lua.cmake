# The starling executable and the Lua API, tested by running the built
# executable on small scripts (CPU backend; no label).
# 600 s, the suites' default: under ASan on CI's 2 cores the 99 tests take
# 185 s alone and passed 300 s beside test_forces and test_family (CI 49).
sl_add_test(test_lua SOURCES test_lua.c TIMEOUT 600 COST 400)
add_dependencies(test_lua starling hermite mvs newton monitors plummer kepler_rv slt_um_watch)
target_compile_definitions(test_lua PRIVATE SLT_UM_DIR="${SLT_UM_DIR}")
# A plugin of faces only (tests/plugins/face_plugin.c), in a folder of its
# own that the test puts on STARLING_PLUGIN_PATH.
add_library(slt_face_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/face_plugin.c)
target_link_libraries(slt_face_plugin PRIVATE starling_core starling_face PkgConfig::LUA)
set_target_properties(slt_face_plugin PROPERTIES PREFIX "" OUTPUT_NAME slt_greet
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/faceplugin C_VISIBILITY_PRESET hidden
  BUILD_RPATH "$ORIGIN/../../lib")
add_dependencies(test_lua slt_face_plugin)
target_compile_definitions(test_lua PRIVATE SLT_FACE_DIR="${CMAKE_BINARY_DIR}/tests/faceplugin")
# PLplot's driver folder: a test copies its cairo listing without the driver
pkg_get_variable(SLT_PLPLOT_DRV_DIR plplot drvdir)
target_compile_definitions(test_lua PRIVATE SLT_PLPLOT_DRV_DIR="${SLT_PLPLOT_DRV_DIR}")
target_link_libraries(test_lua PRIVATE PkgConfig::HDF5) # reads back :save("x.h5")
# Under the sanitizers: not the statistical check of DE-MC (three seeds to
# R-hat < 1.01, up to 6e4 generations) nor examples/rv_fit.lua end to end;
# the same DE-MC, corner and trace code runs there in demcmc_kepler_rv and
# the demcmc_* tests (docs/TESTING.md).
sl_sanitizer_skip(test_lua lua/demcmc_synthetic_truth_in_95 lua/rv_fit_example_matches_published)

# The binding knows no likelihood by name: word options, data and backends
# come from the plugin's table (issue 9). A string "kepler_rv" in lua/*.c
# would mean a plugin's knowledge crept back into the front end.
add_test(NAME lua_binding_has_no_likelihood_names
         COMMAND sh -c "! grep -n '\"kepler_rv' \"$0\"/*.c \"$0\"/*.h" ${PROJECT_SOURCE_DIR}/lua)
# More broadly, the front end names no plugin at all: no file under lua/
# holds a plugin folder's name or includes a plugin's header; plugins
# reach the executable and the Lua module through their faces.
add_test(NAME lua_front_end_names_no_plugin
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -P ${PROJECT_SOURCE_DIR}/tests/front_end_names.cmake)

# Swarm-NG's test mode (`starling check`) on the outer Solar System: mvs at
# REBOUND WHFast's step reaches WHFast's final state; at a tolerance below
# mvs's own error, IAS15's final state must fail it. The two codes are one
# method at one step, so what parts them after 10^5 steps is a walk of
# rounding errors, and any change of rounding (a product for a division)
# draws another walk. Measured over 512 starts 1-2 ulp apart
# (tests/reference/outer_ss_rounding.py, docs/TESTING.md): velocities
# median 2.9e-10, largest 1.7e-9, and REBOUND against itself up to 1.36e-9
# (14 of 512 beyond 1e-9, the tolerance this test had); positions at most
# 3.5e-10. The tolerances sit above that spread and 10^5 below IAS15's
# difference (~1e-4).
add_test(NAME starling_check_outer_ss_whfast
         COMMAND starling check ${CMAKE_SOURCE_DIR}/tests/data/check_outer_ss.lua
                 --reference ${CMAKE_SOURCE_DIR}/tests/data/outer_ss_whfast_final.csv
                 --pos-tol=1e-9 --vel-tol=3e-9)
add_test(NAME starling_check_outer_ss_ias15_fails
         COMMAND starling check ${CMAKE_SOURCE_DIR}/tests/data/check_outer_ss.lua
                 --reference ${CMAKE_SOURCE_DIR}/tests/data/outer_ss_ias15_final.csv
                 --pos-tol=1e-6 --vel-tol=1e-6)
set_tests_properties(starling_check_outer_ss_whfast starling_check_outer_ss_ias15_fails
                     PROPERTIES TIMEOUT 120)
# the verdict itself, not just any failure (a missing file also exits 1)
set_tests_properties(starling_check_outer_ss_ias15_fails PROPERTIES
                     PASS_REGULAR_EXPRESSION "positions 0\\.000[0-9]+ \\(body [0-9]\\).*FAIL \\(1 system beyond\\)")

# How outputs reach their paths (starling/output.h): the C API on links,
# FIFOs, folders and protected files, and the executable's face of it.
sl_add_test(test_outputs SOURCES test_outputs.c TIMEOUT 600 COST 60)
add_dependencies(test_outputs starling hermite newton monitors)
# its 1 s bound after a signal is about the build users run, not the
# sanitizers' slowdown (test_signals below is left out whole for that)
sl_sanitizer_skip(test_outputs outputs/signal_during_a_write)

# The first SIGINT/SIGTERM at a random (seeded, logged) moment of a long
# run: the sampler, a large write, a CPU map, `starling ls` of a stream.
# Not under the sanitizers: their slowdown is not what the 1 s bound is about.
sl_add_test(test_signals SOURCES test_signals.c TIMEOUT 600 COST 120)
add_dependencies(test_signals starling kepler_rv microlensing lombscargle)
sl_sanitizer_skip(test_signals signals/*)
