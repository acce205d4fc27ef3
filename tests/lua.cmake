# The starling executable and the Lua API, tested by running the built
# executable on small scripts (CPU backend; no label).
sl_add_test(test_lua SOURCES test_lua.c TIMEOUT 300)
add_dependencies(test_lua starling hermite mvs newton monitors plummer kepler_rv slt_um_watch)
target_compile_definitions(test_lua PRIVATE SLT_UM_DIR="${SLT_UM_DIR}")

# The binding knows no likelihood by name: word options, data and backends
# come from the plugin's table (issue 9). A string "kepler_rv" in lua/*.c
# would mean a plugin's knowledge crept back into the front end.
add_test(NAME lua_binding_has_no_likelihood_names
         COMMAND sh -c "! grep -n '\"kepler_rv' \"$0\"/*.c \"$0\"/*.h" ${PROJECT_SOURCE_DIR}/lua)
