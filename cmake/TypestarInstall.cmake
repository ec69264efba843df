# Install and export rules: the libraries (typestar::<name>), the headers, and a CMake package
# `typestar` that find_package(typestar CONFIG) finds after `cmake --install`.
# Included once from the top-level CMakeLists.txt after every library was defined.
include(CMakePackageConfigHelpers)

set(_typestar_install_targets
  typestar_log typestar_core typestar_spec typestar_render typestar_sul typestar_learn typestar_conformance typestar_session
  typestar_device typestar_asio typestar_ra
  typestar_monitor typestar_gmock typestar_gtest typestar_gtest_main)
set(_typestar_exported "")
foreach(target IN LISTS _typestar_install_targets)
  if(TARGET ${target})
    list(APPEND _typestar_exported ${target})
  endif()
endforeach()

install(TARGETS ${_typestar_exported}
  EXPORT typestarTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The targets' headers belong to typestar_targets, which is not installed (Boost and SQLite devices
# of typestar's own tests): a header whose library is not exported would not link.
set(_typestar_header_excludes PATTERN targets EXCLUDE)
foreach(optional render asio)
  if(NOT TARGET typestar_${optional})
    list(APPEND _typestar_header_excludes PATTERN ${optional} EXCLUDE)
  endif()
endforeach()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/typestar" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        ${_typestar_header_excludes})
foreach(plugin gtest gmock)
  if(TARGET typestar_${plugin})
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/plugin/${plugin}/include/typestar" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
endforeach()

set(TYPESTAR_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/typestar" CACHE STRING
    "Where typestar's CMake package files are installed")
install(EXPORT typestarTargets NAMESPACE typestar:: DESTINATION ${TYPESTAR_INSTALL_CMAKEDIR})
# The JVM jars (device/jvm installs them here): typestar_AGENT_JAR and typestar_JUNIT_JAR in the package.
set(TYPESTAR_INSTALL_JAVADIR "${CMAKE_INSTALL_DATADIR}/typestar/java")
set(TYPESTAR_INSTALLED_AGENT_JAR OFF)
if(TARGET typestar_agent)
  set(TYPESTAR_INSTALLED_AGENT_JAR ON)
endif()
set(TYPESTAR_INSTALLED_JUNIT_JAR OFF)
if(TARGET typestar_junit)
  set(TYPESTAR_INSTALLED_JUNIT_JAR ON)
endif()
# The Node package (device/CMakeLists.txt installs it here with the agent): typestar_NODE_PACKAGE_DIR.
set(TYPESTAR_INSTALL_NODEDIR "${CMAKE_INSTALL_DATADIR}/typestar/node/typestar-node-device")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/typestarConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/typestarConfig.cmake" INSTALL_DESTINATION ${TYPESTAR_INSTALL_CMAKEDIR}
  PATH_VARS TYPESTAR_INSTALL_JAVADIR TYPESTAR_INSTALL_NODEDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/typestarConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/typestarConfig.cmake"
  "${PROJECT_BINARY_DIR}/typestarConfigVersion.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/TypestarTests.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/TypestarAddTests.cmake"
  DESTINATION ${TYPESTAR_INSTALL_CMAKEDIR})
