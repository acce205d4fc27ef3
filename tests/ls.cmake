# Lomb-Scargle suites (issue 4). CPU: against astropy's reference files in
# tests/data (made by tests/reference/make_ls_reference.py). GPU (label
# gpu): CUDA against the CPU backend on the same inputs.
sl_add_test(test_lombscargle SOURCES test_lombscargle.c TIMEOUT 120 COST 45)
add_dependencies(test_lombscargle lombscargle)

if(SL_HAVE_CUDA)
  sl_add_test(test_gpu_lombscargle SOURCES test_gpu_lombscargle.c LABELS gpu TIMEOUT 300)
  add_dependencies(test_gpu_lombscargle lombscargle)
  set_tests_properties(test_gpu_lombscargle PROPERTIES SKIP_REGULAR_EXPRESSION "SL_GPU_SKIP")
endif()

# The FITS test writes its table through cfitsio.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LS_CFITSIO REQUIRED IMPORTED_TARGET cfitsio)
target_link_libraries(test_lombscargle PRIVATE PkgConfig::LS_CFITSIO)

# The Lua face (objects, FITS columns, plot_png, messages) through the
# built executable.
sl_add_test(test_lua_ls SOURCES test_lua_ls.c TIMEOUT 120)
add_dependencies(test_lua_ls starling lombscargle)

# FITS headers checked card by card (fits_cards.c): bad files built card by
# card, the input that aborted cfitsio, and files cfitsio writes.
sl_add_test(test_ls_fits SOURCES test_ls_fits.c TIMEOUT 120)
add_dependencies(test_ls_fits lombscargle)
target_link_libraries(test_ls_fits PRIVATE PkgConfig::LS_CFITSIO)
