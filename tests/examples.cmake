# Every script in examples/ at its default size, as a reader's first run
# would start it (from a copy of examples/ in a temporary folder, the
# outputs there): each must end, exit 0 and print its result line. The
# defaults are sized to finish in under a minute on 2 CPU cores
# (docs/GUIDE.md, "Examples"); the 180-s limit leaves room for a machine
# shared with the other suites (ctest -j).
# Label `example`: the sanitizer pass (scripts/sanitize.sh) leaves them out,
# the code they run being covered by the suites' smaller scripts there.
function(sl_example_test name expect)
  add_test(NAME example_${name}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/run_example.sh $<TARGET_FILE:starling>
                   ${PROJECT_SOURCE_DIR} ${name} ${expect} ${ARGN})
  set_tests_properties(example_${name} PROPERTIES TIMEOUT 180 LABELS example)
endfunction()

sl_example_test(ls_asteroid "^best period")
sl_example_test(ls_batch "^recovered within 0.1 h")
sl_example_test(ls_plot "^wrote ls_periodogram.png")
sl_example_test(megno_scan "^wrote megno_scan.csv and megno_scan.png")
sl_example_test(merge_scatter "^wrote merge_scatter.csv and merge_scatter.png")
# docs/microlensing.md's command, from the root of the copy
sl_example_test(ml_gridsearch "^wrote examples/out/ml_gridsearch_grid.csv"
                examples/out/ml_gridsearch auto)
sl_example_test(ml_map "^wrote ml_map.fits and ml_map.png")
sl_example_test(ml_ob03235 "^finite-source search skipped")
sl_example_test(ml_planet "^wrote ml_planet.png")
sl_example_test(nbody_rv_fit "^wrote nbody_rv_fit_posterior.csv, _corner.png, _rv.png")
sl_example_test(ttv_fit "^wrote ttv_fit_posterior.csv, _corner.png")
sl_example_test(quickstart "^results (one row per system): examples/out/quickstart.csv")
# rv_fit: test_lua's lua/rv_fit_example_matches_published runs its default
# size and checks the medians against the published ones
sl_example_test(rv_grid "^truth ")
