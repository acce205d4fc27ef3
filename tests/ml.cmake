# The microlensing plugin (issue 12): magnifications against reference
# values (tests/reference/microlensing_ref.py), bad input, and (label gpu)
# the CUDA backend against the CPU's.
sl_add_test(test_microlensing SOURCES test_microlensing.c TIMEOUT 120 COST 60)
add_dependencies(test_microlensing microlensing)
target_include_directories(test_microlensing PRIVATE ${PROJECT_SOURCE_DIR}/plugins/microlensing)
# the map's FITS file is read back through cfitsio
pkg_check_modules(ML_TEST_CFITSIO REQUIRED IMPORTED_TARGET cfitsio)
target_link_libraries(test_microlensing PRIVATE PkgConfig::ML_TEST_CFITSIO)

# The photometric likelihood against MulensModel's chi^2 and bad input.
sl_add_test(test_ml_likelihood SOURCES test_ml_likelihood.c TIMEOUT 900 COST 250)
add_dependencies(test_ml_likelihood microlensing)
# fsbl's hexadecapole (ml_fsbl.h) is checked directly too
target_include_directories(test_ml_likelihood PRIVATE ${PROJECT_SOURCE_DIR}/plugins/microlensing)
# Under the sanitizers (scripts/sanitize.sh) one test is left to the plain
# pass: fsbl_against_vbmicrolensing draws two high-resolution magnification
# maps, and under ASan + UBSan on CI's two cores the suite took 771 s of its
# 900 (a2393c9), the longest of the sanitizer pass, and 36 s without it.
# The map code it runs is sanitized through test_microlensing's map tests
# and fsbl_options' and fsbl_chi2_at_truth's maps (a uniform source; the
# limb-darkened one is left to the plain pass, docs/TESTING.md).
sl_sanitizer_skip(test_ml_likelihood ml_likelihood/fsbl_against_vbmicrolensing)

if(SL_HAVE_CUDA)
  sl_add_test(test_gpu_microlensing SOURCES test_gpu_microlensing.c LABELS gpu TIMEOUT 300)
  add_dependencies(test_gpu_microlensing microlensing)
  set_tests_properties(test_gpu_microlensing PROPERTIES SKIP_REGULAR_EXPRESSION "SL_GPU_SKIP")
endif()

# The Lua face (models, batches, messages) through the built executable.
sl_add_test(test_lua_ml SOURCES test_lua_ml.c TIMEOUT 600 COST 90)
add_dependencies(test_lua_ml starling microlensing)
# Under the sanitizers two grid searches are left to the plain pass: the
# finite-source stage (maps shot for each (s, q) cell; 106 s of the suite's
# 206 under ASan + UBSan on two cores) and the one with parallax (44 s).
# Their C code is sanitized in test_ml_likelihood (fsbl's maps and
# likelihood, parallax) and test_microlensing (maps); the grid search's
# own stages by gridsearch, gridsearch_axes_sorted and gridsearch_passbands.
sl_sanitizer_skip(test_lua_ml lua_ml/gridsearch_finite_source lua_ml/gridsearch_parallax)

# The dynamic engine (finite sources, s and q free) against VBMicrolensing,
# its sources compiled in (the plugin is a module; the CPU's, with the CUDA
# entries' stand-ins). The 2,258 rows take
# ~45 s on one core, ten times that under the sanitizers: there the fold
# rows alone (the_fold_a_map_missed) run the same code.
sl_add_test(test_ml_dynamic
  SOURCES test_ml_dynamic.c ${PROJECT_SOURCE_DIR}/plugins/microlensing/ml_dynamic.c
          ${PROJECT_SOURCE_DIR}/plugins/microlensing/ml_caustics.c
          ${PROJECT_SOURCE_DIR}/plugins/microlensing/ml_nocuda.c
  TIMEOUT 300 COST 50)
target_include_directories(test_ml_dynamic PRIVATE ${PROJECT_SOURCE_DIR}/plugins/microlensing)
sl_sanitizer_skip(test_ml_dynamic ml_dynamic/finite_sources_with_s_and_q_free_are_vbmicrolensings)
