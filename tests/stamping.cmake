# Stamping does not depend on declaration order (cmake -P, a ctest of its
# own): tests/stamping/ declares an integrator and a force beside installed
# ones, integrator first and then force first. Both orders must stamp the
# same pairs into the same plugins: lp carries its pair with the installed
# force, lf its pairs with the installed integrator and with lp (when both
# sides are built here, the force carries the pair), each pair once, with
# the N both sides ask for.
# Run: cmake -DSOURCE_DIR=<repository> -DWORK=<scratch dir> -P tests/stamping.cmake
if(NOT SOURCE_DIR OR NOT WORK)
  message(FATAL_ERROR "stamping: pass -DSOURCE_DIR=<the repository> -DWORK=<scratch dir>")
endif()
foreach(order pf fp)
  set(b "${WORK}/${order}")
  file(REMOVE_RECURSE "${b}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/stamping -B ${b}
                          -DSTARLING_SOURCE_DIR=${SOURCE_DIR} -DSL_ORDER=${order}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "stamping: configuring in order ${order} failed:\n${out}\n${err}")
  endif()
  set(text "")
  foreach(x lp lf)
    file(GLOB units RELATIVE "${b}/starling_kernels/${x}" "${b}/starling_kernels/${x}/*.c"
         "${b}/starling_kernels/${x}/*.cu")
    list(SORT units)
    file(READ "${b}/starling_kernels/${x}/${x}_kernels.h" h)
    string(REGEX MATCHALL "\"[a-z_]+/[a-z_]+\"" pairs "${h}")
    string(APPEND text "${x}: pairs ${pairs}; units ${units}\n")
  endforeach()
  file(READ "${b}/starling_kernels/lf/lp_lf.c" unit)
  string(REGEX MATCH "#define SL_GEN_NBODIES[^\n]*" nb "${unit}")
  string(APPEND text "lp/lf: ${nb}\n")
  message(STATUS "order ${order}:\n${text}")
  set(result_${order} "${text}")
endforeach()
set(pf "${result_pf}")
set(fp "${result_fp}")
if(NOT pf STREQUAL fp)
  message(FATAL_ERROR "stamping depends on the order of declarations:\n"
                      "integrator first:\n${pf}force first:\n${fp}")
endif()
set(want_lp "lp: pairs \"lp/inst_f\"; ")
set(want_lf "lf: pairs \"inst_p/lf\";\"lp/lf\"; ")
if(NOT pf MATCHES "${want_lp}" OR NOT pf MATCHES "${want_lf}")
  message(FATAL_ERROR "stamping: expected lp to carry lp/inst_f and lf to carry "
                      "inst_p/lf and lp/lf, got:\n${pf}")
endif()
if(NOT pf MATCHES "lp/lf: #define SL_GEN_NBODIES\\(X, \\.\\.\\.\\) X\\(__VA_ARGS__, 3\\) X\\(__VA_ARGS__, 5\\) *\n")
  message(FATAL_ERROR "stamping: lp/lf should unroll N = 3 5 (both sides' N), got:\n${pf}")
endif()

# And starling's own integrators are born that way too: each is declared
# with sl_add_integrator(NAME HEADER ...) (starling_add_integrator), and no
# integrator or force in the tree instantiates kernels by hand.
file(GLOB lists "${SOURCE_DIR}/integrators/*/CMakeLists.txt")
if(NOT lists)
  message(FATAL_ERROR "stamping: no integrators/*/CMakeLists.txt under ${SOURCE_DIR}")
endif()
foreach(f IN LISTS lists)
  file(READ "${f}" text)
  if(NOT text MATCHES "sl_add_integrator\\([a-z_]+ HEADER ")
    message(FATAL_ERROR "stamping: ${f} does not declare its integrator with "
                        "sl_add_integrator(NAME HEADER ...)")
  endif()
endforeach()
file(GLOB_RECURSE by_hand "${SOURCE_DIR}/integrators/*.c" "${SOURCE_DIR}/integrators/*.cu"
     "${SOURCE_DIR}/forces/*.c" "${SOURCE_DIR}/forces/*.cu")
foreach(f IN LISTS by_hand)
  file(READ "${f}" text)
  if(text MATCHES "SL_(INTEGRATOR|KERNELS)_INSTANTIATE|SL_INTEGRATOR_TABLE")
    message(FATAL_ERROR "stamping: ${f} instantiates kernels by hand; "
                        "starling_add_integrator/starling_add_force stamp them")
  endif()
endforeach()
