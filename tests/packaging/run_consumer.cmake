# Builds and tests tests/packaging/consumer one way (cmake -P script):
#   -DMODE=find_package|subdirectory -DCONSUMER=<consumer source> -DTYPESTAR_SOURCE_DIR=<typestar source>
#   -DTYPESTAR_BUILD_DIR=<built typestar tree> -DWORK=<scratch dir> -DGENERATOR=<generator>
#   -DCXX=<compiler> [-DCONFIG=<config>] [-DEXAMPLE=<examples/timer_service>]
# With find_package, EXAMPLE (a project users copy) is built and tested against the package too.
include("${CMAKE_CURRENT_LIST_DIR}/../support/script_steps.cmake")

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(config_args -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}")
if(MODE STREQUAL "find_package")
  install_typestar("${TYPESTAR_BUILD_DIR}" "${WORK}/prefix" "${CONFIG}")
  list(APPEND config_args "-DCMAKE_PREFIX_PATH=${WORK}/prefix")
elseif(MODE STREQUAL "subdirectory")
  list(APPEND config_args -DTYPESTAR_CONSUMER_MODE=subdirectory "-DTYPESTAR_SOURCE_DIR=${TYPESTAR_SOURCE_DIR}"
       -DTYPESTAR_BUILD_CLI=OFF)
else()
  message(FATAL_ERROR "MODE must be find_package or subdirectory, not '${MODE}'")
endif()

run("${CMAKE_COMMAND}" -S "${CONSUMER}" -B "${WORK}/build" ${config_args})
if(MODE STREQUAL "find_package")
  # The package, not the source tree, provided the targets.
  file(READ "${WORK}/build/CMakeCache.txt" cache)
  string(FIND "${cache}" "typestar_DIR:PATH=${WORK}/prefix/" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "typestar was not found in the installed prefix")
  endif()
  # A build with the JVM agent installs its jar, and the package says where.
  if(EXISTS "${TYPESTAR_BUILD_DIR}/device/jvm/typestar-agent.jar")
    expect("typestar_AGENT_JAR: ${WORK}/prefix/share/typestar/java/typestar-agent.jar")
    expect_file("${WORK}/prefix/share/typestar/java/typestar-agent.jar")
  endif()
endif()
run("${CMAKE_COMMAND}" --build "${WORK}/build" --target consumer_tests)

# One CTest test per transition, all passing against the hand-written device.
run("${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/build" -N -L conformance)
expect("Total Tests: 9")
run("${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/build" --output-on-failure)
expect("100% tests passed, 0 tests failed out of 9")
# Every test carries the resource lock and the labels of typestar_add_conformance_tests().
file(READ "${WORK}/build/consumer_tests[1]_typestar_tests.cmake" output)
expect("add_test([==[Timer.Running_start]==]")
expect("LABELS [==[conformance;consumer]==] RESOURCE_LOCK [==[consumer_timer]==]")

# A spec that disappears is re-discovered without a rebuild: one `learn` test.
file(REMOVE "${WORK}/build/timer.yaml")
run("${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/build" -N -L learn)
expect("Total Tests: 1")

if(MODE STREQUAL "find_package" AND EXAMPLE)
  run("${CMAKE_COMMAND}" -S "${EXAMPLE}" -B "${WORK}/example" ${config_args})
  run("${CMAKE_COMMAND}" --build "${WORK}/example")
  run("${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/example" --output-on-failure)
  expect("100% tests passed")
endif()
message(STATUS "packaging consumer (${MODE}): ok")
