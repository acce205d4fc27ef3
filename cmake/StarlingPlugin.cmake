# Building starling plugins: one implementation for starling's own tree
# (CMakeLists.txt includes this file) and for plugins built against an
# installed starling (find_package(starling) includes the installed copy).
#
#   starling_enable_cuda()
#       Enables CUDA in the calling project when nvcc is found (cache
#       variable STARLING_PLUGIN_CUDA: AUTO, ON or OFF; default AUTO). The
#       CUDA architectures default to those core was built for. A macro: call
#       it at file scope, before starling_add_plugin.
#
#   starling_add_plugin(NAME SOURCES a.c ... [CUDA_SOURCES k.cu ...]
#                       [OUTPUT_DIRECTORY dir])
#       A plugin: a MODULE library NAME.so (no "lib" prefix, only
#       sl_plugin_entry visible) linked to starling::core, which carries the
#       compile flags the reproducibility promise rests on. CUDA_SOURCES are
#       compiled only when the project enabled CUDA; then SL_HAVE_CUDA=1 is
#       defined for the plugin's sources and the shared CUDA runtime is
#       linked (core and plugins must share one runtime), else SL_HAVE_CUDA=0.
#       The .so goes to OUTPUT_DIRECTORY, else ${STARLING_PLUGIN_OUTPUT_DIRECTORY},
#       else ${CMAKE_BINARY_DIR}/plugins: point STARLING_PLUGIN_PATH there.
#
#   starling_add_integrator(NAME HEADER stages.h SOURCES ... [CUDA_SOURCES ...]
#                           [FORCES f ...] [NBODIES n ...] [OUTPUT_DIRECTORY dir])
#   starling_add_force(NAME HEADER force.h SOURCES ... [CUDA_SOURCES ...]
#                      [INTEGRATORS p ...] [NBODIES n ...] [OUTPUT_DIRECTORY dir])
#       A plugin that carries kernels. HEADER is the plugin's SL_HD header
#       (an integrator's stages sl_prop_NAME_*, a force's sl_force_NAME_*).
#       The kernels of NAME with every force starling and this project know
#       (or those in FORCES), or of every integrator they know with NAME (or
#       those in INTEGRATORS), are stamped out at the end of the configure
#       step, so the order of declarations does not matter. Each pair goes in
#       the plugin built here, once; when both sides are built here, in the
#       force's. A pair is one CUDA and one or more C translation units
#       (compiled in parallel), with a lane loop per N in NBODIES (default
#       2 3 4; when both sides name N, those they share) and a runtime-N
#       fallback for any other N. Every unrolled N costs compile time and
#       plugin size; ask for the N you run. The
#       generated header NAME_kernels.h defines STARLING_KERNEL_TABLES, the
#       plugin-table entries of those kernel sets, for the plugin's tables[]:
#           #include "NAME_kernels.h"
#           static const sl_plugin_table tables[] = {
#               {SL_KIND_FORCE, "NAME", &table}, STARLING_KERNEL_TABLES};
#       Without HEADER, no kernels are stamped.
#
#   starling_add_force(NAME TERM HEADER term.h SOURCES ... [STACKS base ...])
#       A term (force_term.h): a correction added to a base force, whose
#       header defines sl_term_NAME_central and sl_term_NAME_potential. It
#       carries no kernels itself; with STACKS, a stack base__NAME is built
#       for each base named (starling_add_force_stack), so that a run can
#       say force = {"base", "NAME"}.
#
#   starling_add_force_stack(BASE base TERMS t ... [INTEGRATORS p ...]
#                            [NBODIES n ...] [OUTPUT_DIRECTORY dir])
#       A stack: the plugin base__t1__t2... whose kernels, of every
#       integrator this starling knows (or those in INTEGRATORS), sum the
#       base force and any of the terms a run lists (force_stack.h). The
#       terms' and the base's headers come from starling_register_physics.
#
#   starling_add_likelihood / starling_add_monitor(NAME SOURCES ... [CUDA_SOURCES ...]
#                                                  [OUTPUT_DIRECTORY dir])
#       Exactly starling_add_plugin: nothing is stamped for these kinds. A
#       likelihood's CUDA_SOURCES are its own kernels, compiled (with
#       SL_HAVE_CUDA=1) only when CUDA is enabled, as for any plugin; a
#       monitor is host code. They exist so that a CMakeLists.txt says what
#       it builds, as the `starling new` scaffolds' do.
#
#   starling_register_physics(INTEGRATOR|FORCE NAME HEADER)
#       Declares an installed integrator or force whose SL_HD header is
#       <HEADER> (e.g. starling/forces/newton.h), so that plugins built
#       against it stamp kernels with it. An installed starling declares its own
#       (starlingPhysics.cmake); STARLING_INTEGRATORS and STARLING_FORCES list
#       them.
#   starling_embed_text(TARGET FILE SYMBOL)
#       Compiles FILE's text into TARGET as `const char SYMBOL[]` (ending in
#       a NUL), regenerated whenever FILE changes: the Lua chunk of a
#       plugin's Lua face (sl_lua_face.chunk, <starling/face.h>), which then
#       travels inside the plugin, in the build tree and in an install alike.
#       Declare it in C as `extern const char SYMBOL[];`.

# Script mode of starling_embed_text: FILE's bytes as a C array.
if(DEFINED STARLING_EMBED_IN)
  file(READ "${STARLING_EMBED_IN}" sl_hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," sl_bytes "${sl_hex}")
  file(WRITE "${STARLING_EMBED_OUT}"
       "/* Generated by starling_embed_text from ${STARLING_EMBED_IN}; do not edit. */\n"
       "const char ${STARLING_EMBED_SYMBOL}[] = {\n    ${sl_bytes}0x00};\n")
  return()
endif()
# this file, which starling_embed_text runs in script mode (set in every
# scope that includes it, before the guard)
set(_STARLING_PLUGIN_CMAKE "${CMAKE_CURRENT_LIST_FILE}")
include_guard(GLOBAL)

macro(starling_enable_cuda)
  set(STARLING_PLUGIN_CUDA "AUTO" CACHE STRING
      "Compile plugins' CUDA sources: AUTO (when nvcc is found), ON or OFF")
  set_property(CACHE STARLING_PLUGIN_CUDA PROPERTY STRINGS AUTO ON OFF)
  if(NOT STARLING_CORE_HAS_CUDA AND NOT STARLING_PLUGIN_CUDA STREQUAL "OFF")
    # A plugin's kernels are launched through core (sl_cuda_launch_systems):
    # against a core without CUDA they would not even load.
    if(STARLING_PLUGIN_CUDA STREQUAL "ON")
      message(FATAL_ERROR "STARLING_PLUGIN_CUDA=ON but this starling was built without "
                          "the CUDA backend (rebuild it with -DSL_CUDA=ON)")
    endif()
    message(STATUS "starling: core has no CUDA backend; plugins are built CPU-only")
  elseif(NOT STARLING_PLUGIN_CUDA STREQUAL "OFF")
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND STARLING_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES ${STARLING_CUDA_ARCHITECTURES})
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      enable_language(CUDA)
      if(NOT DEFINED CMAKE_CUDA_STANDARD)
        set(CMAKE_CUDA_STANDARD 17)
      endif()
    elseif(STARLING_PLUGIN_CUDA STREQUAL "ON")
      message(FATAL_ERROR "STARLING_PLUGIN_CUDA=ON but no CUDA compiler (nvcc) was found; "
                          "put nvcc on PATH or set CMAKE_CUDA_COMPILER")
    endif()
  endif()
endmacro()

# Whether the calling project compiles CUDA (starling_enable_cuda or its own
# enable_language(CUDA)).
function(_starling_cuda_enabled out)
  get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CUDA" IN_LIST langs)
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()

function(starling_add_plugin name)
  # _KERNELS (internal): the plugin carries stamped kernels, added at the
  # end of the configure step, so it compiles CUDA whenever it can.
  cmake_parse_arguments(P "_KERNELS" "OUTPUT_DIRECTORY" "SOURCES;CUDA_SOURCES" ${ARGN})
  if(P_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "starling_add_plugin(${name}): unexpected arguments "
                        "'${P_UNPARSED_ARGUMENTS}'; expected SOURCES, CUDA_SOURCES, "
                        "OUTPUT_DIRECTORY")
  endif()
  if(NOT P_SOURCES)
    message(FATAL_ERROR "starling_add_plugin(${name}): no SOURCES (the C file with "
                        "sl_plugin_entry is required, CUDA_SOURCES only add kernels)")
  endif()
  if(NOT TARGET starling::core)
    message(FATAL_ERROR "starling_add_plugin(${name}): no target starling::core; "
                        "call find_package(starling CONFIG REQUIRED) first")
  endif()
  _starling_cuda_enabled(cuda_on)
  set(with_cuda OFF)
  if((P_CUDA_SOURCES OR P__KERNELS) AND cuda_on)
    if(STARLING_CORE_HAS_CUDA)
      set(with_cuda ON)
    else()
      message(WARNING "starling_add_plugin(${name}): CUDA_SOURCES not compiled: this "
                      "starling was built without the CUDA backend, which launches them")
    endif()
  endif()

  set(srcs ${P_SOURCES})
  if(with_cuda)
    list(APPEND srcs ${P_CUDA_SOURCES})
  endif()
  add_library(${name} MODULE ${srcs})
  set_target_properties(${name} PROPERTIES STARLING_WITH_CUDA ${with_cuda})
  target_link_libraries(${name} PRIVATE starling::core)
  # A plugin exports sl_plugin_entry and nothing else. Hidden visibility
  # covers its own code, not static archives a toolchain links in: nvcc 13
  # on Ubuntu 24.04 put libsupc++'s __cxa_* among a CUDA plugin's exports
  # (found by sdk-check on the GPU machine), which other plugins could bind.
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${name} PRIVATE "LINKER:--exclude-libs,ALL")
  endif()
  set_target_properties(${name} PROPERTIES
    PREFIX "" OUTPUT_NAME ${name}
    C_EXTENSIONS ON
    C_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden)

  set(out "${P_OUTPUT_DIRECTORY}")
  if(NOT out)
    set(out "${STARLING_PLUGIN_OUTPUT_DIRECTORY}")
  endif()
  if(NOT out)
    set(out "${CMAKE_BINARY_DIR}/plugins")
  endif()
  set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${out}")

  # SL_HAVE_CUDA is a property of this plugin, not of core: a CPU-only
  # plugin must not reference *_cuda launchers even when core has CUDA.
  if(with_cuda)
    target_compile_definitions(${name} PRIVATE SL_HAVE_CUDA=1)
    # The shared runtime (as core uses): a static one per plugin would be a
    # second runtime in the process. Linking through the CUDA host linker
    # also brings libstdc++, which nvcc's objects need.
    if(NOT TARGET CUDA::cudart)
      find_package(CUDAToolkit REQUIRED)
    endif()
    set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Shared
                                             LINKER_LANGUAGE CUDA)
    target_link_libraries(${name} PRIVATE CUDA::cudart)
  else()
    target_compile_definitions(${name} PRIVATE SL_HAVE_CUDA=0)
  endif()
endfunction()

function(starling_register_physics kind name header)
  if(NOT kind MATCHES "^(INTEGRATOR|FORCE|TERM)$")
    message(FATAL_ERROR "starling_register_physics(${kind} ${name}): expected INTEGRATOR, FORCE "
                        "or TERM")
  endif()
  get_property(known GLOBAL PROPERTY STARLING_${kind}S)
  if(NOT name IN_LIST known)
    set_property(GLOBAL APPEND PROPERTY STARLING_${kind}S ${name})
  endif()
  set_property(GLOBAL PROPERTY STARLING_${kind}_HEADER_${name} "${header}")
  get_property(all GLOBAL PROPERTY STARLING_${kind}S)
  set(STARLING_${kind}S "${all}" PARENT_SCOPE)
endfunction()

# The #include line for a header given as a path (made absolute) or as an
# include name (<starling/...>).
function(_starling_include_line out header)
  if(IS_ABSOLUTE "${header}" OR EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${header}")
    get_filename_component(abs "${header}" ABSOLUTE)
    set(${out} "#include \"${abs}\"" PARENT_SCOPE)
  else()
    set(${out} "#include <${header}>" PARENT_SCOPE)
  endif()
endfunction()

# Writes the translation units of the kernels of integrator P with force F
# into dir, appending them to the parent's c_list / cu_list: one CUDA unit,
# and C units that compile in parallel, each a part of the N of `nbodies`
# of about equal cost (a lane loop's code grows with N; parts of N summing to
# about 40: N = 2..16 as 2..9, 10..13 and 14..16).
function(_starling_stamp_pair dir p p_header f f_header nbodies c_list cu_list)
  _starling_include_line(p_inc "${p_header}")
  _starling_include_line(f_inc "${f_header}")
  # The C units: each holds the lane loops (internal/lanes.inc, included
  # once per N) of a part of NBODIES, parts cut where the sum of their N
  # reaches 40 so that they compile in parallel in similar times; the first
  # also the set and the runtime-N loop (internal/loop.inc). The CUDA unit
  # is kernels.inc, its kernels one per N (internal/kernel.inc).
  set(parts "")
  set(part "")
  set(cost 0)
  set(all_n "")
  foreach(n IN LISTS nbodies)
    string(APPEND all_n " X(__VA_ARGS__, ${n})")
    string(APPEND part "#define SL_N ${n}\n#include <starling/internal/lanes.inc>\n")
    math(EXPR cost "${cost} + ${n}")
    if(cost GREATER_EQUAL 40)
      list(APPEND parts "${part}")
      set(part "")
      set(cost 0)
    endif()
  endforeach()
  if(part OR NOT parts)
    # (a blank, not empty: an empty element would vanish from the list)
    list(APPEND parts "${part} ")
  endif()
  string(JOIN " " nb_text ${nbodies})
  set(head "/* Generated by starling's StarlingPlugin.cmake: the kernels of integrator\n"
           " * '${p}' with force '${f}' (unrolled N: ${nb_text}, and any other N runs\n"
           " * the runtime-N loop). Do not edit: change NBODIES in CMakeLists.txt. */\n"
           "#include <starling/instantiate.h>\n${f_inc}\n${p_inc}\n\n")
  string(JOIN "" head ${head})
  file(CONFIGURE OUTPUT "${dir}/${p}_${f}.cu" @ONLY CONTENT
       "${head}#define SL_P ${p}\n#define SL_F ${f}\n#define SL_NBODIES(X, ...)${all_n}\n#include <starling/kernels.inc>\n")
  set(c_out "")
  set(i 0)
  foreach(part IN LISTS parts)
    set(loops "#define SL_P ${p}\n#define SL_F ${f}\n${part}")
    if(i EQUAL 0)
      set(file "${dir}/${p}_${f}.c")
      set(body "#define SL_GEN_NBODIES(X, ...)${all_n}\n\n"
               "SL_KERNELS_SET(${p}, ${f}, SL_GEN_NBODIES)\n\n"
               "#define SL_P ${p}\n#define SL_F ${f}\n#define SL_N 0\n"
               "#include <starling/internal/loop.inc>\n#undef SL_N\n${part}")
    else()
      set(file "${dir}/${p}_${f}_${i}.c")
      set(body "${loops}")
    endif()
    string(JOIN "" body ${body})
    file(CONFIGURE OUTPUT "${file}" @ONLY CONTENT "${head}${body}")
    list(APPEND c_out "${file}")
    math(EXPR i "${i} + 1")
  endforeach()
  set(${c_list} ${${c_list}} ${c_out} PARENT_SCOPE)
  set(${cu_list} ${${cu_list}} "${dir}/${p}_${f}.cu" PARENT_SCOPE)
endfunction()

# The kernel sets of plugin NAME for the (integrator, force) pairs in `pairs`
# (a list of "p/f"), declared in the generated NAME_kernels.h.
function(_starling_kernel_header name dir pairs)
  set(decls "")
  set(entries "")
  foreach(pair IN LISTS pairs)
    string(REPLACE "/" "_" sym "${pair}")
    string(APPEND decls "extern const sl_kernel_set sl_kset_${sym};\n")
    string(APPEND entries " \\\n    {SL_KIND_KERNELS, \"${pair}\", &sl_kset_${sym}},")
  endforeach()
  string(TOUPPER "${name}" up)
  file(CONFIGURE OUTPUT "${dir}/${name}_kernels.h" CONTENT
"/* Generated by starling_add_integrator/starling_add_force(${name}): the kernel
 * sets stamped for this plugin, as entries of its sl_plugin_table list. */
#ifndef STARLING_GENERATED_${up}_KERNELS_H
#define STARLING_GENERATED_${up}_KERNELS_H
#include <starling/plugin.h>
#include <starling/propagator.h>
${decls}
#define STARLING_KERNEL_TABLES${entries}
#endif
" @ONLY)
endfunction()

function(_starling_check_identifier what name)
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${what}: '${name}' is not a C identifier (letters, digits, _); "
                        "kernels are named sl_prop_NAME_* / sl_force_NAME_* after it")
  endif()
endfunction()

# starling_add_integrator and starling_add_force: kind is INTEGRATOR or FORCE,
# `others` the kind whose known members NAME is paired with.
function(_starling_add_physics kind name)
  if(kind STREQUAL "INTEGRATOR")
    set(other FORCE)
    set(fn starling_add_integrator)
    set(with FORCES)
  else()
    set(other INTEGRATOR)
    set(fn starling_add_force)
    set(with INTEGRATORS)
  endif()
  cmake_parse_arguments(K "" "HEADER;OUTPUT_DIRECTORY" "SOURCES;CUDA_SOURCES;${with};NBODIES" ${ARGN})
  if(K_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}(${name}): unexpected arguments '${K_UNPARSED_ARGUMENTS}'; "
                        "expected HEADER, SOURCES, CUDA_SOURCES, ${with}, NBODIES, OUTPUT_DIRECTORY")
  endif()
  if(NOT K_HEADER)
    set(pass SOURCES ${K_SOURCES})
    if(K_CUDA_SOURCES)
      list(APPEND pass CUDA_SOURCES ${K_CUDA_SOURCES})
    endif()
    if(K_OUTPUT_DIRECTORY)
      list(APPEND pass OUTPUT_DIRECTORY ${K_OUTPUT_DIRECTORY})
    endif()
    foreach(key ${with} NBODIES)
      if(K_${key})
        message(FATAL_ERROR "${fn}(${name}): ${key} without HEADER (the SL_HD header "
                            "kernels are stamped from)")
      endif()
    endforeach()
    starling_add_plugin(${name} ${pass})
    return()
  endif()
  _starling_check_identifier("${fn}" "${name}")
  get_filename_component(header "${K_HEADER}" ABSOLUTE)
  if(NOT EXISTS "${header}")
    message(FATAL_ERROR "${fn}(${name}): HEADER '${K_HEADER}' not found (looked at ${header})")
  endif()

  set(nbodies "")
  if(DEFINED K_NBODIES)
    _starling_check_nbodies("${fn}(${name})" "${K_NBODIES}")
    set(nbodies ${K_NBODIES})
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/starling_kernels/${name}")
  set(args SOURCES ${K_SOURCES} CUDA_SOURCES ${K_CUDA_SOURCES} _KERNELS)
  if(K_OUTPUT_DIRECTORY)
    list(APPEND args OUTPUT_DIRECTORY ${K_OUTPUT_DIRECTORY})
  endif()
  starling_add_plugin(${name} ${args})
  get_filename_component(header_dir "${header}" DIRECTORY)
  target_include_directories(${name} PRIVATE "${dir}" "${header_dir}")
  set(listed OFF)
  if(DEFINED K_${with})
    set(listed ON)
  endif()
  _starling_declare(${kind} ${name} "${header}" "${dir}" "${K_${with}}" ${listed} "${nbodies}")
endfunction()

function(_starling_check_nbodies what nbodies)
  foreach(n IN LISTS nbodies)
    if(NOT n MATCHES "^[0-9]+$" OR n LESS 1 OR n GREATER 16)
      message(FATAL_ERROR "${what}: NBODIES '${n}': expected body counts 1..16 "
                          "(SL_NBODY_MAX); other N run the runtime-N loop")
    endif()
  endforeach()
endfunction()

# A plugin built here that carries kernels: recorded, and paired at the end
# of the configure step (_starling_stamp_all), when every integrator and
# force of the project is known, so that the order of the declarations does
# not matter. `partners` limits the pairs when `listed`; `nbodies` is empty
# when the declaration named none.
function(_starling_declare kind name header dir partners listed nbodies)
  set_property(GLOBAL APPEND PROPERTY STARLING_LOCAL_${kind}S ${name})
  set_property(GLOBAL PROPERTY STARLING_LOCAL_HEADER_${name} "${header}")
  set_property(GLOBAL PROPERTY STARLING_LOCAL_DIR_${name} "${dir}")
  set_property(GLOBAL PROPERTY STARLING_LOCAL_LISTED_${name} ${listed})
  set_property(GLOBAL PROPERTY STARLING_LOCAL_PARTNERS_${name} "${partners}")
  set_property(GLOBAL PROPERTY STARLING_LOCAL_NBODIES_${name} "${nbodies}")
  set_property(GLOBAL PROPERTY STARLING_LOCAL_PAIRS_${name} "")
  get_property(scheduled GLOBAL PROPERTY STARLING_STAMP_SCHEDULED)
  if(NOT scheduled)
    set_property(GLOBAL PROPERTY STARLING_STAMP_SCHEDULED ON)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _starling_stamp_all)
  endif()
endfunction()

# Whether local plugin `name` asks for `partner` (all known ones unless it
# listed its partners).
function(_starling_wants out name partner)
  get_property(listed GLOBAL PROPERTY STARLING_LOCAL_LISTED_${name})
  get_property(partners GLOBAL PROPERTY STARLING_LOCAL_PARTNERS_${name})
  if(NOT listed OR partner IN_LIST partners)
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()

# The SL_HD header of integrator or force `name`: the local one if it is
# built here, else the one it was registered with.
function(_starling_header_of out kind name)
  get_property(h GLOBAL PROPERTY STARLING_LOCAL_HEADER_${name})
  if(NOT h)
    get_property(h GLOBAL PROPERTY STARLING_${kind}_HEADER_${name})
  endif()
  set(${out} "${h}" PARENT_SCOPE)
endfunction()

# The unrolled N of a pair: those both sides built here ask for (the common
# ones when both named NBODIES), else 2 3 4.
function(_starling_pair_nbodies out p f)
  set(common "")
  set(named OFF)
  foreach(x ${p} ${f})
    get_property(asked GLOBAL PROPERTY STARLING_LOCAL_NBODIES_${x})
    if("${asked}" STREQUAL "")
      continue()
    endif()
    if(NOT named)
      set(common ${asked})
      set(named ON)
    else()
      set(both "")
      foreach(k IN LISTS common)
        if(k IN_LIST asked)
          list(APPEND both ${k})
        endif()
      endforeach()
      set(common ${both})
    endif()
  endforeach()
  if(NOT named)
    set(common 2 3 4)
  endif()
  list(REMOVE_DUPLICATES common)
  set(${out} "${common}" PARENT_SCOPE)
endfunction()

# Stamps, exactly once, every pair of an integrator and a force of which at
# least one is built here and that every side built here asks for. Its
# kernels go in the plugin built here; when both are, in the force's (the
# integrators' pairs with a base force that has no kernels of its own, as
# starling's newton, are the integrators'). Then writes each local plugin's
# NAME_kernels.h.
function(_starling_stamp_all)
  get_property(li GLOBAL PROPERTY STARLING_LOCAL_INTEGRATORS)
  get_property(lf GLOBAL PROPERTY STARLING_LOCAL_FORCES)
  get_property(ri GLOBAL PROPERTY STARLING_INTEGRATORS)
  get_property(rf GLOBAL PROPERTY STARLING_FORCES)
  set(ki ${ri} ${li})
  set(kf ${rf} ${lf})
  list(REMOVE_DUPLICATES ki)
  list(REMOVE_DUPLICATES kf)
  foreach(x IN LISTS li lf)
    get_property(listed GLOBAL PROPERTY STARLING_LOCAL_LISTED_${x})
    get_property(partners GLOBAL PROPERTY STARLING_LOCAL_PARTNERS_${x})
    if(x IN_LIST li)
      set(known ${kf})
      set(what "starling_add_integrator(${x}) FORCES")
    else()
      set(known ${ki})
      set(what "starling_add_force(${x}) INTEGRATORS")
    endif()
    foreach(y IN LISTS partners)
      _starling_check_identifier("${what}" "${y}")
      if(NOT y IN_LIST known)
        message(FATAL_ERROR "${what} names '${y}', which neither this starling nor this "
                            "project declares (known: ${known})")
      endif()
    endforeach()
  endforeach()
  foreach(p IN LISTS ki)
    foreach(f IN LISTS kf)
      set(p_local OFF)
      set(f_local OFF)
      if(p IN_LIST li)
        set(p_local ON)
        _starling_wants(p_wants ${p} ${f})
        if(NOT p_wants)
          continue()
        endif()
      endif()
      if(f IN_LIST lf)
        set(f_local ON)
        _starling_wants(f_wants ${f} ${p})
        if(NOT f_wants)
          continue()
        endif()
      endif()
      if(NOT p_local AND NOT f_local)
        continue()
      endif()
      set(carrier ${f})
      if(NOT f_local)
        set(carrier ${p})
      endif()
      _starling_header_of(ph INTEGRATOR ${p})
      _starling_header_of(fh FORCE ${f})
      _starling_pair_nbodies(nb ${p} ${f})
      get_property(dir GLOBAL PROPERTY STARLING_LOCAL_DIR_${carrier})
      set(c_srcs "")
      set(cu_srcs "")
      _starling_stamp_pair("${dir}" ${p} "${ph}" ${f} "${fh}" "${nb}" c_srcs cu_srcs)
      set_property(GLOBAL APPEND PROPERTY STARLING_LOCAL_PAIRS_${carrier} "${p}/${f}")
      target_sources(${carrier} PRIVATE ${c_srcs})
      get_target_property(cuda ${carrier} STARLING_WITH_CUDA)
      if(cuda)
        target_sources(${carrier} PRIVATE ${cu_srcs})
      endif()
      foreach(h "${ph}" "${fh}")
        if(IS_ABSOLUTE "${h}")
          get_filename_component(hd "${h}" DIRECTORY)
          target_include_directories(${carrier} PRIVATE "${hd}")
        endif()
      endforeach()
    endforeach()
  endforeach()
  foreach(x IN LISTS li lf)
    get_property(dir GLOBAL PROPERTY STARLING_LOCAL_DIR_${x})
    get_property(pairs GLOBAL PROPERTY STARLING_LOCAL_PAIRS_${x})
    _starling_kernel_header(${x} "${dir}" "${pairs}")
  endforeach()
endfunction()

function(starling_add_integrator name)
  _starling_add_physics(INTEGRATOR ${name} ${ARGN})
endfunction()

function(starling_add_force name)
  cmake_parse_arguments(T "TERM" "HEADER" "STACKS;SOURCES;NBODIES" ${ARGN})
  if(NOT T_TERM)
    _starling_add_physics(FORCE ${name} ${ARGN})
    return()
  endif()
  _starling_check_identifier("starling_add_force" "${name}")
  if(NOT T_HEADER)
    message(FATAL_ERROR "starling_add_force(${name} TERM): HEADER (the term's SL_HD header) "
                        "is required")
  endif()
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "starling_add_force(${name} TERM): unexpected arguments "
                        "'${T_UNPARSED_ARGUMENTS}'; expected HEADER, SOURCES, STACKS, NBODIES")
  endif()
  get_filename_component(header "${T_HEADER}" ABSOLUTE)
  get_filename_component(header_dir "${header}" DIRECTORY)
  starling_add_plugin(${name} SOURCES ${T_SOURCES})
  target_include_directories(${name} PRIVATE "${header_dir}")
  starling_register_physics(TERM ${name} "${header}")
  set(nb "")
  if(T_NBODIES)
    set(nb NBODIES ${T_NBODIES})
  endif()
  foreach(base IN LISTS T_STACKS)
    starling_add_force_stack(BASE ${base} TERMS ${name} ${nb})
  endforeach()
endfunction()

# The generated SL_HD header of a stack (force_stack.inc under the stack's
# macros), its flags each a literal 0 or 1 so that the loops can test them.
function(_starling_stack_header out name base terms)
  get_property(bh GLOBAL PROPERTY STARLING_FORCE_HEADER_${base})
  if(NOT bh)
    get_property(known GLOBAL PROPERTY STARLING_FORCES)
    message(FATAL_ERROR "starling_add_force_stack(${name}): BASE '${base}' is not a force "
                        "this starling knows (known: ${known})")
  endif()
  _starling_include_line(inc "${bh}")
  set(incs "${inc}\n")
  set(x "")
  set(off "SL_FORCE_${base}_NPACKED")
  set(jerk "SL_FORCE_${base}_JERK")
  set(pert "SL_FORCE_${base}_PERTURB")
  set(pert_at "SL_FORCE_${base}_PERTURB_AT")
  set(bit 0)
  foreach(t IN LISTS terms)
    get_property(th GLOBAL PROPERTY STARLING_TERM_HEADER_${t})
    if(NOT th)
      get_property(known GLOBAL PROPERTY STARLING_TERMS)
      message(FATAL_ERROR "starling_add_force_stack(${name}): TERMS names '${t}', which this "
                          "starling does not know as a term (known terms: ${known})")
    endif()
    _starling_include_line(inc "${th}")
    string(APPEND incs "${inc}\n")
    string(APPEND x " X(__VA_ARGS__, ${t}, ${bit}, (${off}))")
    string(APPEND off " + SL_TERM_${t}_NPACKED")
    string(APPEND jerk " && SL_TERM_${t}_JERK")
    string(APPEND pert " && SL_TERM_${t}_PERTURB")
    string(APPEND pert_at " && SL_TERM_${t}_PERTURB")
    math(EXPR bit "${bit} + 1")
  endforeach()
  set(flags "")
  foreach(pair "JERK;${jerk}" "PERTURB;${pert}" "AT;SL_FORCE_${base}_AT" "PERTURB_AT;${pert_at}")
    list(GET pair 0 f)
    list(GET pair 1 cond)
    string(APPEND flags "#if ${cond}\n#define SL_STACK_${f} 1\n#define SL_FORCE_${name}_${f} 1\n"
                        "#else\n#define SL_STACK_${f} 0\n#define SL_FORCE_${name}_${f} 0\n#endif\n")
  endforeach()
  string(REPLACE ";" " " tl "${terms}")
  string(TOUPPER "${name}" up)
  set(text "/* Generated by starling_add_force_stack: the SL_HD functions of the stack\n"
           " * ${name}, base ${base} and terms ${tl} (force_stack.h). Do not edit. */\n"
           "#ifndef STARLING_STACK_${up}_H\n#define STARLING_STACK_${up}_H\n\n${incs}\n"
           "#define SL_FORCE_${name}_NPACKED (${off})\n"
           "#define SL_STACK ${name}\n#define SL_STACK_BASE ${base}\n"
           "#define SL_STACK_TERMS(X, ...)${x}\n#define SL_STACK_MASK (${off})\n${flags}"
           "#include <starling/force_stack.inc>\n"
           "#undef SL_STACK\n#undef SL_STACK_BASE\n#undef SL_STACK_TERMS\n#undef SL_STACK_MASK\n"
           "#undef SL_STACK_JERK\n#undef SL_STACK_PERTURB\n#undef SL_STACK_AT\n"
           "#undef SL_STACK_PERTURB_AT\n\n#endif\n")
  string(JOIN "" text ${text})
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(starling_add_force_stack)
  cmake_parse_arguments(K "" "BASE;OUTPUT_DIRECTORY" "TERMS;INTEGRATORS;NBODIES" ${ARGN})
  if(K_UNPARSED_ARGUMENTS OR NOT K_BASE OR NOT K_TERMS)
    message(FATAL_ERROR "starling_add_force_stack: expected BASE base TERMS t ... "
                        "[INTEGRATORS p ...] [NBODIES n ...] [OUTPUT_DIRECTORY dir], got "
                        "'${ARGN}'")
  endif()
  list(LENGTH K_TERMS nt)
  if(nt GREATER 8)
    message(FATAL_ERROR "starling_add_force_stack: ${nt} terms; at most 8 (SL_STACK_TERMS_MAX)")
  endif()
  foreach(t ${K_BASE} ${K_TERMS})
    _starling_check_identifier("starling_add_force_stack" "${t}")
    if(t MATCHES "__")
      message(FATAL_ERROR "starling_add_force_stack: '${t}': a force's name has no '__' "
                          "(a stack's name joins its forces with it)")
    endif()
  endforeach()
  string(JOIN "__" name ${K_BASE} ${K_TERMS})
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/starling_kernels/${name}")
  _starling_stack_header(text ${name} ${K_BASE} "${K_TERMS}")
  file(CONFIGURE OUTPUT "${dir}/${name}.h" CONTENT "${text}" @ONLY)
  string(REPLACE ";" " + " label "${K_BASE};${K_TERMS}")
  file(CONFIGURE OUTPUT "${dir}/${name}_plugin.c" CONTENT
"/* Generated by starling_add_force_stack: the plugin of the stack ${label}
 * (force_stack.h), its host functions and its kernels. Do not edit. */
#include <starling/force_stack.h>
#include <starling/plugin.h>
#include <starling/propagator.h>
#include \"${name}.h\"
#include \"${name}_kernels.h\"

_Static_assert(SL_FORCE_${name}_NPACKED < SL_FORCE_PARAMS_MAX,
               \"stack ${name}: its forces' parameters and its mask do not fit fp\");

static void host_acc(int n, const double *x, const double *v, const double *m, const double *fp,
                     double *a)
{
    sl_force_${name}_acc(n, 1, x, v, m, fp, a);
}

static double host_potential(int n, const double *x, const double *m, const double *fp)
{
    return sl_force_${name}_potential(n, 1, x, m, fp);
}

static sl_status zero_pack(const sl_param_values *pv, double fp[SL_FORCE_PARAMS_MAX])
{
    (void)pv;
    for (int i = 0; i < SL_FORCE_PARAMS_MAX; i++)
        fp[i] = 0.0;
    return SL_OK;
}

static const sl_force stack = {
    .abi = SL_ABI_VERSION,
    .kind = SL_KIND_FORCE,
    .name = \"${name}\",
    .description = \"the kernels of the stack ${label}: a run lists the base and any of its terms\",
    .pack = zero_pack,
    .acc = host_acc,
    .potential = host_potential,
    .n_packed = SL_FORCE_${name}_NPACKED,
    .caps = SL_FORCE_CAP_STACK | SL_FORCE_CAPS(${name}),
};

static const sl_plugin_table tables[] = {{SL_KIND_FORCE, \"${name}\", &stack},
                                         STARLING_KERNEL_TABLES};

static const sl_plugin plugin = {
    .abi = SL_ABI_VERSION,
    .name = \"${name}\",
    .version = \"1.0\",
    .description = \"the force stack ${label}\",
    .tables = tables,
    .n_tables = sizeof tables / sizeof tables[0],
};

SL_PLUGIN_EXPORT const sl_plugin *sl_plugin_entry(void) { return &plugin; }
" @ONLY)
  set(nbodies "")
  if(DEFINED K_NBODIES)
    _starling_check_nbodies("starling_add_force_stack(${name})" "${K_NBODIES}")
    set(nbodies ${K_NBODIES})
  endif()
  set(listed OFF)
  if(DEFINED K_INTEGRATORS)
    set(listed ON)
  endif()
  set(args SOURCES "${dir}/${name}_plugin.c" _KERNELS)
  if(K_OUTPUT_DIRECTORY)
    list(APPEND args OUTPUT_DIRECTORY ${K_OUTPUT_DIRECTORY})
  endif()
  starling_add_plugin(${name} ${args})
  _starling_declare(FORCE ${name} "${dir}/${name}.h" "${dir}" "${K_INTEGRATORS}" ${listed}
                    "${nbodies}")
  target_include_directories(${name} PRIVATE "${dir}")
  foreach(t ${K_BASE} ${K_TERMS})
    foreach(k FORCE TERM)
      get_property(h GLOBAL PROPERTY STARLING_${k}_HEADER_${t})
      if(h AND IS_ABSOLUTE "${h}")
        get_filename_component(hd "${h}" DIRECTORY)
        target_include_directories(${name} PRIVATE "${hd}")
      endif()
    endforeach()
  endforeach()
  # A public force, as starling's own: integrators built beside it carry
  # their kernels for it (_starling_stamp_all).
  starling_register_physics(FORCE ${name} "${dir}/${name}.h")
  set(STARLING_FORCES "${STARLING_FORCES}" PARENT_SCOPE)
  set(STARLING_STACK_NAME ${name} PARENT_SCOPE)
  set(STARLING_STACK_HEADER "${dir}/${name}.h" PARENT_SCOPE)
endfunction()

function(starling_add_likelihood name)
  starling_add_plugin(${name} ${ARGN})
endfunction()

function(starling_add_monitor name)
  starling_add_plugin(${name} ${ARGN})
endfunction()

function(starling_embed_text target file symbol)
  get_filename_component(abs "${file}" ABSOLUTE)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/starling_embed/${symbol}.c")
  add_custom_command(OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DSTARLING_EMBED_IN=${abs} -DSTARLING_EMBED_OUT=${out}
            -DSTARLING_EMBED_SYMBOL=${symbol} -P "${_STARLING_PLUGIN_CMAKE}"
    DEPENDS "${abs}" "${_STARLING_PLUGIN_CMAKE}"
    COMMENT "Embedding ${file} as ${symbol}" VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
