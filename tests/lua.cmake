# The starling executable and the Lua API, tested by running the built
# executable on small scripts (CPU backend; no label).
sl_add_test(test_lua SOURCES test_lua.c TIMEOUT 300)
add_dependencies(test_lua starling hermite newton monitors plummer slt_um_watch)
target_compile_definitions(test_lua PRIVATE SLT_UM_DIR="${SLT_UM_DIR}")
