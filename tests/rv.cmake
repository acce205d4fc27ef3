# Kepler solvers and the kepler_rv likelihood plugin (issue 3).
sl_add_test(test_kepler_solver SOURCES test_kepler_solver.c TIMEOUT 300)

sl_add_test(test_kepler_rv SOURCES test_kepler_rv.c
            ${PROJECT_SOURCE_DIR}/plugins/kepler_rv/rv_data.c TIMEOUT 300 COST 20)
target_include_directories(test_kepler_rv PRIVATE ${PROJECT_SOURCE_DIR}/plugins/kepler_rv)
add_dependencies(test_kepler_rv kepler_rv)

if(SL_HAVE_CUDA)
  sl_add_test(test_gpu_kepler_rv SOURCES test_gpu_kepler_rv.c LABELS gpu TIMEOUT 300)
  target_include_directories(test_gpu_kepler_rv PRIVATE ${PROJECT_SOURCE_DIR}/plugins/kepler_rv)
  add_dependencies(test_gpu_kepler_rv kepler_rv)
  set_tests_properties(test_gpu_kepler_rv PROPERTIES SKIP_REGULAR_EXPRESSION "SL_GPU_SKIP")
  sl_add_test(test_gpu_demcmc SOURCES test_gpu_demcmc.c LABELS gpu TIMEOUT 300)
  add_dependencies(test_gpu_demcmc kepler_rv)
  set_tests_properties(test_gpu_demcmc PROPERTIES SKIP_REGULAR_EXPRESSION "SL_GPU_SKIP")
endif()

# The Lua API of issue 3 (starling.kepler.solve, rv.read, likelihood), run
# through the built executable and checked against the plugin (CPU backend).
sl_add_test(test_lua_rv SOURCES test_lua_rv.c TIMEOUT 300)
add_dependencies(test_lua_rv starling kepler_rv nbody_rv)

# The CPU lane code of kepler_rv (krv_lanes.h) and its batch independence.
sl_add_test(test_krv_lanes SOURCES test_krv_lanes.c TIMEOUT 300)
target_include_directories(test_krv_lanes PRIVATE ${PROJECT_SOURCE_DIR}/plugins/kepler_rv)
add_dependencies(test_krv_lanes kepler_rv)

# The N-body RV and transit-time likelihoods (plugins/nbody_rv, issue 50):
# one planet is kepler_rv, a resonant pair is REBOUND's, refused models are
# counted, bad data named.
sl_add_test(test_nbody_rv SOURCES test_nbody_rv.c TIMEOUT 300 COST 20)
target_include_directories(test_nbody_rv PRIVATE ${PROJECT_SOURCE_DIR}/plugins/kepler_rv
                                                 ${PROJECT_SOURCE_DIR}/plugins/nbody_rv)
add_dependencies(test_nbody_rv nbody_rv kepler_rv)
if(SL_HAVE_CUDA)
  sl_add_test(test_gpu_nbody_rv SOURCES test_gpu_nbody_rv.c LABELS gpu TIMEOUT 300)
  add_dependencies(test_gpu_nbody_rv nbody_rv)
  set_tests_properties(test_gpu_nbody_rv PROPERTIES SKIP_REGULAR_EXPRESSION "SL_GPU_SKIP")
endif()
