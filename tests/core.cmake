# CPU suites (no label): run in CI on every build.
set(SL_TEST_PLUGINS hermite newton monitors)

sl_add_test(test_kepler SOURCES test_kepler.c TIMEOUT 120)
add_dependencies(test_kepler ${SL_TEST_PLUGINS})

sl_add_test(test_kepler_drift SOURCES test_kepler_drift.c TIMEOUT 120)
sl_add_test(test_mvs_lanes SOURCES test_mvs_lanes.c TIMEOUT 120)

sl_add_test(test_conservation SOURCES test_conservation.c TIMEOUT 120)
add_dependencies(test_conservation ${SL_TEST_PLUGINS})

sl_add_test(test_demcmc SOURCES test_demcmc.c TIMEOUT 300 COST 30)
sl_add_test(test_mcmc_diag SOURCES test_mcmc_diag.c TIMEOUT 120)

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
slt_test_plugin(slt_plugin_packed PACKED packed packed)
slt_test_plugin(slt_plugin_kind_mismatch KIND_MISMATCH kind_mismatch kind_mismatch)
slt_test_plugin(slt_plugin_bad_default BAD_DEFAULT bad_default bad_default)
slt_test_plugin(slt_plugin_dup_param DUP_PARAM dup_param dup_param)
slt_test_plugin(slt_plugin_lik_no_caps LIK_NO_CAPS lik_no_caps lik_no_caps)
slt_test_plugin(slt_plugin_stack_name STACK_NAME stack_name stack_name)
slt_test_plugin(slt_plugin_list_cap LIST_CAP list_cap list_cap)
slt_test_plugin(slt_plugin_face_empty FACE_EMPTY face_empty face_empty)
slt_test_plugin(slt_plugin_cmd_name CMD_NAME cmd_name cmd_name)
slt_test_plugin(slt_plugin_cmd_no_main CMD_NO_MAIN cmd_no_main cmd_no_main)
# Integrator tables and kernels that disagree on what the kernels were
# compiled with (tests/plugins/traits_plugin.c); not copied into mixed/.
function(slt_traits_plugin target case file)
  add_library(${target} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/traits_plugin.c)
  target_link_libraries(${target} PRIVATE starling_core)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests
                             ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(${target} PRIVATE SLT_CASE_${case} SLT_NAME="${file}"
                             SL_HAVE_CUDA=0)
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${file}
    LIBRARY_OUTPUT_DIRECTORY ${SLT_BAD_DIR}/${file} C_VISIBILITY_PRESET hidden)
  set(SLT_BAD_TARGETS ${SLT_BAD_TARGETS} ${target} PARENT_SCOPE)
endfunction()
slt_traits_plugin(slt_plugin_traits_own TRAITS_OWN traits_own)
slt_traits_plugin(slt_plugin_traits_set TRAITS_SET traits_set)
# A text file with a plugin's name, and a file the scan must ignore.
file(WRITE ${SLT_BAD_DIR}/notelf/notelf.so "this is a text file, not a shared object\n")
file(WRITE ${SLT_BAD_DIR}/mixed/notelf.so "this is a text file, not a shared object\n")
file(WRITE ${SLT_BAD_DIR}/mixed/README.txt "not a plugin: the registry only looks at *.so\n")

sl_add_test(test_registry SOURCES test_registry.c TIMEOUT 60)
add_dependencies(test_registry ${SL_TEST_PLUGINS} ${SLT_BAD_TARGETS})
target_compile_definitions(test_registry PRIVATE
  SLT_BAD_DIR="${SLT_BAD_DIR}" SLT_PLUGIN_DIR="${SL_PLUGIN_DIR}")

sl_add_test(test_rng SOURCES test_rng.c TIMEOUT 60)

# Batched Nelder-Mead (starling/simplex.h).
sl_add_test(test_simplex SOURCES test_simplex.c TIMEOUT 60)

sl_add_test(test_params SOURCES test_params.c TIMEOUT 60)
add_dependencies(test_params ${SL_TEST_PLUGINS})

# Named parameters (named_params.h): one list gives the schema, the struct
# and the pack; the in-tree packs put each key in the field kernels read.
sl_add_test(test_named_params SOURCES test_named_params.c TIMEOUT 60)
add_dependencies(test_named_params ${SL_TEST_PLUGINS})
# Pair forces (force_pair.h): the variants force_pair.inc derives agree
# with each other and with the potential.
sl_add_test(test_force_pair SOURCES test_force_pair.c TIMEOUT 60)
# Pair forces are their pair term (force_pair.h): newton's and plummer's
# headers hold no pair loop of their own; force_pair.inc derives them all.
add_test(NAME pair_forces_write_no_loops
         COMMAND sh -c "! grep -n 'for (' \"$0\"/forces/newton/newton.h \"$0\"/forces/plummer/plummer.h"
                 ${PROJECT_SOURCE_DIR})
# ...and no kernel or table of an in-tree integrator, force or scaffold
# reads or packs a parameter by its slot (pp[3], fp[S * 0]): `grep KEY`
# leads from a Lua key to every line that uses it.
add_test(NAME kernels_read_parameters_by_name
         COMMAND sh -c "! grep -nE 'pp\\[[0-9]\\]|fp\\[S ?\\* ?[0-9]|fp\\[[0-9]\\] =' \"$0\"/integrators/*/*.[ch] \"$0\"/forces/*/*.[ch] \"$0\"/examples/scaffolds/*/@NAME@.[ch]"
                 ${PROJECT_SOURCE_DIR})

# The loops are functions (internal/*.inc), not macros: no header holds a
# macro with a loop over 12 lines, and the loop engines' macros are gone.
add_test(NAME loops_are_functions
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/loops_are_functions.sh ${PROJECT_SOURCE_DIR})

sl_add_test(test_ensemble SOURCES test_ensemble.c TIMEOUT 60)

sl_add_test(test_backend SOURCES test_backend.c TIMEOUT 60)
add_dependencies(test_backend ${SL_TEST_PLUGINS})

# Vectorisable sincos, cbrt, log and floor (plugins/kepler_rv/vmath.h, the
# likelihood's own header).
sl_add_test(test_vmath SOURCES test_vmath.c TIMEOUT 120)
target_include_directories(test_vmath PRIVATE ${PROJECT_SOURCE_DIR}/plugins/kepler_rv)
# Planets from RV elements to an N-body start (plugins/nbody_rv/
# nbody_elements.h): at the epoch the star's velocity is kepler_rv's sum;
# transit times on the step's Kepler orbit (transit_time.h); the path
# through observation times (nbody_path.inc) against kepler_rv.
sl_add_test(test_nbody_elements SOURCES test_nbody_elements.c TIMEOUT 60)
target_include_directories(test_nbody_elements PRIVATE ${PROJECT_SOURCE_DIR}/plugins/kepler_rv
                                                       ${PROJECT_SOURCE_DIR}/plugins/nbody_rv
                                                       ${PROJECT_SOURCE_DIR}/integrators/mvs
                                                       ${PROJECT_SOURCE_DIR}/integrators/hermite)
sl_add_test(test_table SOURCES test_table.c TIMEOUT 60)
sl_add_test(test_group_stride SOURCES test_group_stride.c TIMEOUT 60)

# an integrator with more stages than the lane loop used to stamp (issue 9)
sl_add_test(test_stages SOURCES test_stages.c TIMEOUT 60)
add_dependencies(test_stages ${SL_TEST_PLUGINS})

# kernels composed by the registry from several plugins (issue 9)
# A force with accelerations only, built as one from outside the tree: its
# kernel sets for hermite (needs jerks) and mvs (needs acc_perturb) are
# empty, and runs with them are refused, naming the missing part.
starling_add_force(slt_nojerk HEADER ${CMAKE_CURRENT_SOURCE_DIR}/forces/nojerk.h
                   SOURCES forces/nojerk_plugin.c NBODIES 3
                   OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/forces/nojerk)
# mvs against REBOUND's WHFast and IAS15 (tests/data/outer_ss*.csv, made by
# tests/reference/make_mvs_reference.py), its order, energy and refusals
sl_add_test(test_mvs SOURCES test_mvs.c TIMEOUT 300 COST 100)
add_dependencies(test_mvs ${SL_TEST_PLUGINS} mvs)
# Under the sanitizers, the convergence study against IAS15 (3e5 steps at
# two step sizes, 71 of the suite's 250 CPU-seconds there) is left to the
# plain pass: its loop is the one agrees_with_rebound_whfast and
# energy_error_is_bounded run under the sanitizers.
sl_sanitizer_skip(test_mvs mvs/converges_at_second_order_to_ias15)
sl_add_test(test_composition SOURCES test_composition.c TIMEOUT 120)
add_dependencies(test_composition ${SL_TEST_PLUGINS} plummer mvs slt_nojerk)
target_compile_definitions(test_composition PRIVATE
  SLT_NOJERK="$<TARGET_FILE:slt_nojerk>")

# Kernels are stamped at the end of the configure step: an integrator and a
# force declared in either order give the same pairs in the same plugins.
add_test(NAME stamping_is_order_independent
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/stamping
                 -P ${PROJECT_SOURCE_DIR}/tests/stamping.cmake)
set_tests_properties(stamping_is_order_independent PROPERTIES TIMEOUT 120)

# The limits of launch.h as compile-time checks (issue 9): each case of
# compile_fail/limits.c must fail to compile with its message, with the C
# compiler and, in a CUDA build, with nvcc; the OK case must compile.
set(SLT_LIMIT_INCLUDES -I${PROJECT_SOURCE_DIR}/core/include -I${CMAKE_BINARY_DIR}/include
    -I${PROJECT_SOURCE_DIR}/tests)
set(SLT_LIMIT_CASES
  "NSTAGES_0\;SL_PROP_slt_lim_NSTAGES must be 1..16"
  "NSTAGES_17\;SL_PROP_slt_lim_NSTAGES must be 1..16"
  "PERSIST\;SL_PROP_slt_lim_PERSIST must be 0..SL_PROP_slt_lim_SCRATCH"
  "JERK\;SL_PROP_slt_lim_JERK must be 0 or 1"
  "PERTURB_JERK\;SL_PROP_slt_lim_PERTURB must be 0 or 1, and not 1 with JERK 1"
  "PERTURB_MISSING\;SL_PROP_slt_lim_PERTURB"
  "FORCE_FLAG\;SL_FORCE_newton_PERTURB must be 0 or 1"
  "ADAPTIVE\;SL_PROP_slt_lim_ADAPTIVE must be 0 or 1"
  "ADAPTIVE_MISSING\;SL_PROP_slt_lim_ADAPTIVE"
  "CONTROL_MISSING\;sl_prop_slt_lim_control"
  "SYNC_ADAPTIVE\;SL_PROP_slt_lim_SYNC must be 0 or 1, and not 1 with ADAPTIVE 1"
  "SYNC_MISSING\;SL_PROP_slt_lim_SYNC"
  "NBODY\;unrolled body count 65 is outside 1..SL_NBODY_MAX")
function(slt_limit_tests tag)
  set(cmd ${ARGN})
  add_test(NAME limits_${tag}_ok COMMAND ${cmd} -DSLT_OK)
  foreach(entry IN LISTS SLT_LIMIT_CASES)
    list(GET entry 0 case)
    list(GET entry 1 msg)
    add_test(NAME limits_${tag}_${case} COMMAND ${cmd} -DSLT_${case})
    set_tests_properties(limits_${tag}_${case} PROPERTIES PASS_REGULAR_EXPRESSION "${msg}")
  endforeach()
endfunction()
slt_limit_tests(c ${CMAKE_C_COMPILER} -std=gnu11 -fsyntax-only ${SLT_LIMIT_INCLUDES}
                ${CMAKE_CURRENT_SOURCE_DIR}/compile_fail/limits.c)
if(SL_HAVE_CUDA)
  list(GET CMAKE_CUDA_ARCHITECTURES 0 slt_arch)
  slt_limit_tests(cuda ${CMAKE_CUDA_COMPILER} -x cu -arch=sm_${slt_arch} -c -o /dev/null
                  ${SLT_LIMIT_INCLUDES} ${CMAKE_CURRENT_SOURCE_DIR}/compile_fail/limits.c)
endif()

# Adaptive stepping in the kernel contract: per-system steps, rejections,
# guard rails, the same bits on every loop and for any steps per launch.
sl_add_test(test_adaptive SOURCES test_adaptive.c TIMEOUT 300 COST 20)
add_dependencies(test_adaptive ${SL_TEST_PLUGINS})

# The kernel contract (issue 9): masses and velocities reach the physics,
# force parameters per system from ensemble attributes, run-time limits.
sl_add_test(test_contract SOURCES test_contract.c TIMEOUT 300)
add_dependencies(test_contract ${SL_TEST_PLUGINS} plummer)

# User monitors (monitor.h: prepare/check/release/codes): test plugins, one
# case each, in tests/usermon/<file>/ (never the real plugin folder), loaded
# by path or through STARLING_PLUGIN_PATH (tests/plugins/user_monitor.c).
set(SLT_UM_DIR ${CMAKE_BINARY_DIR}/tests/usermon)
set(SLT_UM_TARGETS)
function(slt_user_monitor target case file)
  add_library(${target} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/user_monitor.c)
  target_link_libraries(${target} PRIVATE starling_core)
  target_compile_definitions(${target} PRIVATE SLT_UM_${case} SLT_NAME="${file}")
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${file}
    LIBRARY_OUTPUT_DIRECTORY ${SLT_UM_DIR}/${file} C_VISIBILITY_PRESET hidden)
  set(SLT_UM_TARGETS ${SLT_UM_TARGETS} ${target} PARENT_SCOPE)
endfunction()
slt_user_monitor(slt_um_watch GOOD slt_watch)
slt_user_monitor(slt_um_badcode BAD_CODE slt_badcode)
slt_user_monitor(slt_um_unstable UNSTABLE slt_unstable)
slt_user_monitor(slt_um_nocodes NO_CODES slt_nocodes)

sl_add_test(test_user_monitors SOURCES test_user_monitors.c TIMEOUT 180)
add_dependencies(test_user_monitors ${SL_TEST_PLUGINS} ${SLT_UM_TARGETS})
target_compile_definitions(test_user_monitors PRIVATE SLT_UM_DIR="${SLT_UM_DIR}")

# check-plugin through the executable: the good user monitors pass, a
# monitor returning a code it does not name fails.
add_test(NAME check_plugin_user_monitor COMMAND starling check-plugin $<TARGET_FILE:slt_um_watch>)
add_test(NAME check_plugin_refuses_undeclared_code
         COMMAND starling check-plugin $<TARGET_FILE:slt_um_badcode>)
set_tests_properties(check_plugin_user_monitor check_plugin_refuses_undeclared_code PROPERTIES
  TIMEOUT 120)
set_tests_properties(check_plugin_refuses_undeclared_code PROPERTIES WILL_FAIL TRUE)

sl_add_test(test_family SOURCES test_family.c TIMEOUT 600 COST 200)
add_dependencies(test_family ${SL_TEST_PLUGINS} verlet rkck rkck_adaptive hermite_adaptive)

sl_add_test(test_forces SOURCES test_forces.c TIMEOUT 600 COST 300)
add_dependencies(test_forces ${SL_TEST_PLUGINS} gr j2 mvs verlet rkck rkck_adaptive hermite_adaptive)
# The sanitizer pass leaves out the long accuracy runs whose code runs there
# in shorter tests (docs/TESTING.md, "What the sanitizer pass leaves out"):
# gr's perihelion advance over ten centuries for five integrators (1.25e6
# steps each; gr_mercury_verlet stays, and j2_satellite_* runs every
# integrator's stamped kernels), gr+j2's over ten centuries with mvs (it
# stays with hermite, whose steps call the stack's jerk too: 97 s, and
# 112 s for mvs, under the sanitizers), and three of the five agreements
# with IAS15 (every integrator runs under the sanitizers in j2_satellite_*
# and its own suite).
sl_sanitizer_skip(test_forces forces/gr_mercury_mvs forces/gr_mercury_hermite
                  forces/gr_mercury_hermite_adaptive forces/gr_mercury_rkck
                  forces/gr_mercury_rkck_adaptive forces/gr_and_j2_mercury_mvs)
sl_sanitizer_skip(test_family family/rkck_agrees_with_ias15
                  family/rkck_adaptive_agrees_with_ias15 family/hermite_adaptive_agrees_with_ias15)
# MEGNO by shadow trajectories against REBOUND's (tests/data/megno_*.csv,
# made by tests/reference/make_megno_reference.py)
sl_add_test(test_megno SOURCES test_megno.c TIMEOUT 300 COST 25)
add_dependencies(test_megno ${SL_TEST_PLUGINS} mvs)

# The collision monitor's merge (tests/merge_cases.h)
sl_add_test(test_merge SOURCES test_merge.c TIMEOUT 300)
add_dependencies(test_merge ${SL_TEST_PLUGINS} mvs verlet rkck_adaptive)
