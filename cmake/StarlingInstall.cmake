# Installing starling as a plugin SDK: the CMake package (find_package(starling
# CONFIG): target starling::core, the executable starling::starling, the
# plugin helpers of StarlingPlugin.cmake) and starling.pc. Every path in them
# is relative to where they lie, so an install prefix can be moved.
include(CMakePackageConfigHelpers)

set(SL_INSTALL_CMAKEDIR lib/cmake/starling)

# sl_install_header(SOURCE DEST): a header that lives with a plugin (an SL_HD
# physics header of a force or an integrator, a plugin's own API such as
# lombscargle's) and that code outside it includes as <starling/DEST>. It is
# installed there, and the build tree's include folder gets a header of that
# name that includes the source, so code in the tree uses the installed name
# too.
function(sl_install_header src dest)
  get_filename_component(abs ${src} ABSOLUTE)
  get_filename_component(dir ${dest} DIRECTORY)
  get_filename_component(file ${dest} NAME)
  file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/include/starling/${dest}
       CONTENT "/* Generated: the build tree's <starling/${dest}>. */\n#include \"${abs}\"\n")
  install(FILES ${abs} DESTINATION include/starling/${dir} RENAME ${file})
endfunction()

function(sl_install_hd_header src dest)
  sl_install_header(${src} ${dest})
endfunction()

function(sl_install_package)
  install(EXPORT starlingTargets NAMESPACE starling:: FILE starlingTargets.cmake
          DESTINATION ${SL_INSTALL_CMAKEDIR})
  set(SL_PC_CUDA_ARCHS "")
  if(SL_HAVE_CUDA)
    set(SL_PC_CUDA_ARCHS "${CMAKE_CUDA_ARCHITECTURES}")
  endif()
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/starlingConfig.cmake.in
    ${CMAKE_BINARY_DIR}/cmake/starlingConfig.cmake
    INSTALL_DESTINATION ${SL_INSTALL_CMAKEDIR})
  # 0.x: a minor version may change the plugin ABI (plugins also check
  # SL_ABI_VERSION when loaded).
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/starlingConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  # The integrators and forces whose SL_HD headers are installed, for
  # starling_add_integrator/starling_add_force in plugins built later.
  set(physics "# Generated: the integrators, forces and terms this starling installs.\n")
  foreach(kind INTEGRATOR FORCE TERM)
    get_property(names GLOBAL PROPERTY STARLING_${kind}S)
    foreach(n IN LISTS names)
      get_property(h GLOBAL PROPERTY STARLING_${kind}_HEADER_${n})
      string(APPEND physics "starling_register_physics(${kind} ${n} ${h})\n")
    endforeach()
  endforeach()
  file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/cmake/starlingPhysics.cmake CONTENT "${physics}")
  install(FILES ${CMAKE_BINARY_DIR}/cmake/starlingConfig.cmake
                ${CMAKE_BINARY_DIR}/cmake/starlingConfigVersion.cmake
                ${CMAKE_BINARY_DIR}/cmake/starlingPhysics.cmake
                ${PROJECT_SOURCE_DIR}/cmake/StarlingPlugin.cmake
          DESTINATION ${SL_INSTALL_CMAKEDIR})

  set(SL_PC_OPENMP "")
  if(SL_OPENMP)
    set(SL_PC_OPENMP "${OpenMP_C_FLAGS}")
  endif()
  # a build without lane clones hands that choice to the plugins built
  # against it (starling::core's interface carries it for CMake users)
  set(SL_PC_DEFINES "")
  if(NOT SL_LANE_CLONES)
    set(SL_PC_DEFINES " -DSL_NO_LANE_CLONES=1")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/starling.pc.in
                 ${CMAKE_BINARY_DIR}/cmake/starling.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/cmake/starling.pc DESTINATION lib/pkgconfig)
endfunction()
