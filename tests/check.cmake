# The conformance suite (starling check-plugin, core/src/conformance*.c):
# every in-tree plugin must pass it, and plugins that break the physics
# contract (tests/plugins/bad_physics.c) must fail it.
set(SLT_PHYSICS_DIR ${CMAKE_BINARY_DIR}/tests/badphysics)
function(slt_physics_plugin target case file)
  add_library(${target} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/bad_physics.c)
  target_link_libraries(${target} PRIVATE starling_core)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${target} PRIVATE SLT_CASE_${case} SLT_NAME="${file}")
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${file}
    LIBRARY_OUTPUT_DIRECTORY ${SLT_PHYSICS_DIR} C_VISIBILITY_PRESET hidden)
endfunction()
slt_physics_plugin(slt_plugin_euler_order4 EULER_ORDER4 euler_order4)
slt_physics_plugin(slt_plugin_not_gradient NOT_GRADIENT not_gradient)

# An adaptive integrator (tests/plugins/adaptive_plugin.c): one whose
# table states its order passes, one stating a higher order fails.
function(slt_adaptive_plugin target case file)
  add_library(${target} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/adaptive_plugin.c)
  target_link_libraries(${target} PRIVATE starling_core)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests
                             ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(${target} PRIVATE SLT_CASE_${case} SLT_NAME="${file}")
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${file}
    LIBRARY_OUTPUT_DIRECTORY ${SLT_PHYSICS_DIR}/${file} C_VISIBILITY_PRESET hidden)
endfunction()
slt_adaptive_plugin(slt_plugin_heun HEUN heun)
slt_adaptive_plugin(slt_plugin_heun_order4 HEUN_ORDER4 heun_order4)
# ... and from Lua (tests/test_lua.c, lua.cmake)
add_dependencies(test_lua slt_plugin_heun)
target_compile_definitions(test_lua PRIVATE SLT_HEUN_DIR="${SLT_PHYSICS_DIR}/heun")

# A likelihood on core's API only (tests/plugins/tiny_likelihood.c): a good
# CPU-only one, and one whose data from memory differ from the file's.
function(slt_tiny_plugin target case file)
  add_library(${target} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/tiny_likelihood.c)
  target_link_libraries(${target} PRIVATE starling_core)
  target_compile_definitions(${target} PRIVATE SLT_CASE_${case} SLT_NAME="${file}")
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${file}
    LIBRARY_OUTPUT_DIRECTORY ${SLT_PHYSICS_DIR}/${file} C_VISIBILITY_PRESET hidden)
endfunction()
slt_tiny_plugin(slt_plugin_tiny TINY_GOOD tiny)
slt_tiny_plugin(slt_plugin_tiny_memory TINY_MEMORY tiny_memory)
slt_tiny_plugin(slt_plugin_tiny_shared TINY_SHARED tiny_shared)

set(SL_INTREE_PLUGINS hermite mvs verlet rkck rkck_adaptive hermite_adaptive newton plummer gr j2
    newton__gr__j2
    monitors kepler_rv lombscargle microlensing nbody_rv)
sl_add_test(test_check_plugin SOURCES test_check_plugin.c TIMEOUT 600 LIBS lombscargle_check COST 60)
add_dependencies(test_check_plugin starling ${SL_INTREE_PLUGINS} slt_plugin_euler_order4
                 slt_plugin_heun slt_plugin_heun_order4
                 slt_plugin_not_gradient slt_plugin_good slt_plugin_abi_plugin
                 slt_plugin_no_entry slt_plugin_tiny slt_plugin_tiny_memory
                 slt_plugin_tiny_shared)
target_compile_definitions(test_check_plugin PRIVATE SLT_PLUGIN_DIR="${SL_PLUGIN_DIR}"
  SLT_BAD_DIR="${SLT_BAD_DIR}" SLT_PHYSICS_DIR="${SLT_PHYSICS_DIR}")

# One ctest entry per in-tree plugin, through the executable, as a user
# would run it; and the broken integrator, which must fail.
foreach(p IN LISTS SL_INTREE_PLUGINS)
  add_test(NAME check_plugin_${p} COMMAND starling check-plugin $<TARGET_FILE:${p}>)
  set_tests_properties(check_plugin_${p} PROPERTIES TIMEOUT 120)
endforeach()
add_test(NAME check_plugin_refuses_euler_order4
         COMMAND starling check-plugin $<TARGET_FILE:slt_plugin_euler_order4>)
set_tests_properties(check_plugin_refuses_euler_order4 PROPERTIES TIMEOUT 120 WILL_FAIL TRUE)
add_test(NAME check_plugin_adaptive COMMAND starling check-plugin $<TARGET_FILE:slt_plugin_heun>)
add_test(NAME check_plugin_refuses_adaptive_order4
         COMMAND starling check-plugin $<TARGET_FILE:slt_plugin_heun_order4>)
set_tests_properties(check_plugin_adaptive check_plugin_refuses_adaptive_order4 PROPERTIES
  TIMEOUT 120)
set_tests_properties(check_plugin_refuses_adaptive_order4 PROPERTIES WILL_FAIL TRUE)

if(SL_HAVE_CUDA)
  sl_add_test(test_gpu_check_plugin SOURCES test_gpu_check_plugin.c LABELS gpu TIMEOUT 300
              LIBS lombscargle_check)
  add_dependencies(test_gpu_check_plugin ${SL_INTREE_PLUGINS})
  target_compile_definitions(test_gpu_check_plugin PRIVATE SLT_PLUGIN_DIR="${SL_PLUGIN_DIR}")
  set_tests_properties(test_gpu_check_plugin PROPERTIES SKIP_REGULAR_EXPRESSION "SL_GPU_SKIP")
endif()

# The force scaffold stays a term's physics and little else: at most 60
# written lines, its CMake included.
add_test(NAME scaffold_force_lines
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scaffold_force_lines.sh
                 ${PROJECT_SOURCE_DIR}/examples/scaffolds/force 60)
