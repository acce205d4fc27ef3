# CPU suites (no label): run in CI on every build.
set(SL_TEST_PLUGINS hermite newton monitors)

sl_add_test(test_kepler SOURCES test_kepler.c TIMEOUT 120)
add_dependencies(test_kepler ${SL_TEST_PLUGINS})

sl_add_test(test_conservation SOURCES test_conservation.c TIMEOUT 120)
add_dependencies(test_conservation ${SL_TEST_PLUGINS})

sl_add_test(test_monitors SOURCES test_monitors.c TIMEOUT 180)
add_dependencies(test_monitors ${SL_TEST_PLUGINS})

# --- registry: deliberately broken plugins -----------------------------------
# Built as MODULE libraries from one source, one case each, into
# tests/badplugins/<case>/ (never the real plugin folder), and copied
# together into tests/badplugins/mixed/ for the folder scan.
set(SLT_BAD_DIR ${CMAKE_BINARY_DIR}/tests/badplugins)
set(SLT_BAD_TARGETS)
function(slt_test_plugin target case dir file)
  add_library(${target} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/test_plugin.c)
  target_link_libraries(${target} PRIVATE starling_core)
  target_compile_definitions(${target} PRIVATE SLT_CASE_${case} SLT_NAME="${file}")
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${file}
    LIBRARY_OUTPUT_DIRECTORY ${SLT_BAD_DIR}/${dir} C_VISIBILITY_PRESET hidden)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E make_directory ${SLT_BAD_DIR}/mixed
    COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:${target}> ${SLT_BAD_DIR}/mixed/
    VERBATIM)
  set(SLT_BAD_TARGETS ${SLT_BAD_TARGETS} ${target} PARENT_SCOPE)
endfunction()
slt_test_plugin(slt_plugin_good GOOD good slt_good)
slt_test_plugin(slt_plugin_abi_plugin ABI_PLUGIN abi_plugin abi_plugin)
slt_test_plugin(slt_plugin_abi_table ABI_TABLE abi_table abi_table)
slt_test_plugin(slt_plugin_no_entry NO_ENTRY no_entry no_entry)
slt_test_plugin(slt_plugin_null_entry NULL_ENTRY null_entry null_entry)
slt_test_plugin(slt_plugin_dup_a DUP dup dup_a)
slt_test_plugin(slt_plugin_dup_b DUP dup dup_b)
slt_test_plugin(slt_plugin_name_mismatch NAME_MISMATCH name_mismatch name_mismatch)
slt_test_plugin(slt_plugin_twice TWICE twice twice)
slt_test_plugin(slt_plugin_no_tables NO_TABLES no_tables no_tables)
slt_test_plugin(slt_plugin_kind_mismatch KIND_MISMATCH kind_mismatch kind_mismatch)
slt_test_plugin(slt_plugin_bad_default BAD_DEFAULT bad_default bad_default)
slt_test_plugin(slt_plugin_dup_param DUP_PARAM dup_param dup_param)
slt_test_plugin(slt_plugin_lik_no_caps LIK_NO_CAPS lik_no_caps lik_no_caps)
# A text file with a plugin's name, and a file the scan must ignore.
file(WRITE ${SLT_BAD_DIR}/notelf/notelf.so "this is a text file, not a shared object\n")
file(WRITE ${SLT_BAD_DIR}/mixed/notelf.so "this is a text file, not a shared object\n")
file(WRITE ${SLT_BAD_DIR}/mixed/README.txt "not a plugin: the registry only looks at *.so\n")

sl_add_test(test_registry SOURCES test_registry.c TIMEOUT 60)
add_dependencies(test_registry ${SL_TEST_PLUGINS} ${SLT_BAD_TARGETS})
target_compile_definitions(test_registry PRIVATE
  SLT_BAD_DIR="${SLT_BAD_DIR}" SLT_PLUGIN_DIR="${SL_PLUGIN_DIR}")

sl_add_test(test_rng SOURCES test_rng.c TIMEOUT 60)

sl_add_test(test_params SOURCES test_params.c TIMEOUT 60)
add_dependencies(test_params ${SL_TEST_PLUGINS})

sl_add_test(test_ensemble SOURCES test_ensemble.c TIMEOUT 60)

sl_add_test(test_backend SOURCES test_backend.c TIMEOUT 60)
add_dependencies(test_backend ${SL_TEST_PLUGINS})

# Vectorisable sincos, cbrt, log and floor (core/include/starling/vmath.h).
sl_add_test(test_vmath SOURCES test_vmath.c TIMEOUT 120)
sl_add_test(test_table SOURCES test_table.c TIMEOUT 60)

# an integrator with more stages than the lane loop used to stamp (issue 9)
sl_add_test(test_stages SOURCES test_stages.c TIMEOUT 60)
add_dependencies(test_stages ${SL_TEST_PLUGINS})

# kernels composed by the registry from several plugins (issue 9)
sl_add_test(test_composition SOURCES test_composition.c TIMEOUT 120)
add_dependencies(test_composition ${SL_TEST_PLUGINS} plummer)
