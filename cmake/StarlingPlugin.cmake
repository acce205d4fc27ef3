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
#   starling_add_integrator / starling_add_force / starling_add_likelihood /
#   starling_add_monitor(NAME ...)   the same, per kind of plugin.
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
  cmake_parse_arguments(P "" "OUTPUT_DIRECTORY" "SOURCES;CUDA_SOURCES" ${ARGN})
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
  if(P_CUDA_SOURCES AND cuda_on)
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
  target_link_libraries(${name} PRIVATE starling::core)
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

# Per-kind entry points. They only forward for now; kernel stamping per
# installed force (for integrators) or per installed integrator (for forces)
# belongs in starling_add_integrator and starling_add_force.
function(starling_add_integrator name)
  starling_add_plugin(${name} ${ARGN})
endfunction()

function(starling_add_force name)
  starling_add_plugin(${name} ${ARGN})
endfunction()

function(starling_add_likelihood name)
  starling_add_plugin(${name} ${ARGN})
endfunction()

function(starling_add_monitor name)
  starling_add_plugin(${name} ${ARGN})
endfunction()
