# Installs typestar and runs the out-of-tree example examples/pipe_reader against the package, the
# way a user meets it (cmake -P script):
#   -DTYPESTAR_BUILD_DIR=<built typestar tree> -DEXAMPLE=<examples/pipe_reader> -DEXPECTED=<dir of
#   the reviewed specs> -DWORK=<scratch dir> -DGENERATOR=<generator> -DCXX=<compiler>
#   [-DLAUNCHER=<compiler launcher>] [-DCONFIG=<config>] [-DRENDER=0|1]
# 1. `cmake --install` into WORK/prefix, then move the prefix (the package must be relocatable).
# 2. Configure and build the example with CMAKE_PREFIX_PATH only.
# 3. First test run: no spec, so the one `learn` test learns PipeReader and proposes its spec (and
#    its picture); the proposal has the behaviour of the reviewed spec, with the peer's `feed` and
#    `hangup` in the environment role. The client-side test skips. Accept the proposal (rename).
# 4. Second run: one test per transition, all passing, and the client-side monitor test (the
#    peer's actions reported with Monitor::environment) passing.
# 5. PipeReader 2.0 (close() on a closed reader no longer fails) against the accepted spec: fails at
#    the transition that changed, with the proposal, the diff and the pictures; the approved spec
#    is untouched.
include("${CMAKE_CURRENT_LIST_DIR}/../support/script_steps.cmake")

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/specs")
# A user's shell, not CI: typestar writes proposals only outside CI (docs/gtest-plugin.md).
set(env "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE --unset=TYPESTAR_DEVICE --unset=TYPESTAR_BOUND
        --unset=TYPESTAR_LEARNER --unset=TYPESTAR_REQUIRE_DEVICE --unset=GTEST_FILTER)

# 1. Install, then move: nothing in the package may point back at the build or the first prefix.
install_typestar("${TYPESTAR_BUILD_DIR}" "${WORK}/staging" "${CONFIG}")
file(RENAME "${WORK}/staging" "${WORK}/prefix")
set(prefix "${WORK}/prefix")
foreach(required lib/cmake/typestar/typestarConfig.cmake lib/cmake/typestar/TypestarTests.cmake
                 include/typestar/asio/event_loop.hpp include/typestar/device/drained.hpp
                 include/typestar/gtest/gtest.hpp bin/typestar bin/typestar-device)
  expect_file("${prefix}/${required}")
endforeach()

# 2. Configure and build the example against the package.
set(config_args -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_PREFIX_PATH=${prefix}"
    "-DPIPE_READER_SPEC_DIR=${WORK}/specs")
if(LAUNCHER)
  list(APPEND config_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
if(CONFIG)
  list(APPEND config_args "-DCMAKE_BUILD_TYPE=${CONFIG}")
endif()
run("${CMAKE_COMMAND}" -S "${EXAMPLE}" -B "${WORK}/build" ${config_args})
file(READ "${WORK}/build/CMakeCache.txt" output)
expect("typestar_DIR:PATH=${prefix}/lib/cmake/typestar")
# The package names the programs it installed (README "Install").
file(READ "${WORK}/build/typestar_programs.txt" output)
expect("typestar_EXECUTABLE=${prefix}/bin/typestar\n")
expect("typestar_DEVICE_EXECUTABLE=${prefix}/bin/typestar-device\n")
expect("typestar_NODE_PACKAGE_DIR=${prefix}/share/typestar/node/typestar-node-device\n")
expect_file("${prefix}/share/typestar/node/typestar-node-device/agent.js")
run("${CMAKE_COMMAND}" --build "${WORK}/build")

# 3. First run: learns.
set(spec "${WORK}/specs/pipe_reader.yaml")
set(proposal "${WORK}/specs/pipe_reader.proposed.yaml")
run(${env} "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/build" -N)
expect("pipe_reader.learn")
expect("pipe_reader.client")
expect("Total Tests: 2")
run_failing(${env} "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/build" --output-on-failure)
expect("the spec ${spec} does not exist, so it was learned from PipeReader (in-process)")
expect("Proposed spec: ${proposal}")
expect("***Skipped")  # pipe_reader.client: no spec yet
expect_file("${proposal}")
if(RENDER)
  expect_file("${WORK}/specs/pipe_reader.proposed.svg")
endif()
file(READ "${proposal}" output)
expect("typestar: 2\n")
expect("  - feed: {role: environment}\n  - hangup: {role: environment}\n")
run("${prefix}/bin/typestar" diff "${EXPECTED}/pipe_reader.expected.yaml" "${proposal}")
# The user reviews the proposal and accepts it.
file(RENAME "${proposal}" "${spec}")

# 4. Second run: the accepted spec's tests, re-discovered without a rebuild, all pass.
run(${env} "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}/build" --output-on-failure -j 2)
expect("100% tests passed, 0 tests failed out of 85")
# The client's check runs now; only the 29 transitions the learning purpose did not explore
# (`unknown`, source: purpose) are skipped, each naming why.
if(output MATCHES "pipe_reader\\.client \\.+\\*\\*\\*Skipped")
  message(FATAL_ERROR "pipe_reader.client skipped with the accepted spec in place:\n${output}")
endif()
string(REGEX MATCHALL "\\*\\*\\*Skipped" skips "${output}")
list(LENGTH skips skip_count)
if(NOT skip_count EQUAL 29)
  message(FATAL_ERROR "expected the 29 purpose-restricted transitions skipped, got ${skip_count}:\n${output}")
endif()
file(READ "${spec}" approved)

# 5. The upgrade fails, proposes, diffs and draws; the approved spec survives.
run_failing(${env} "${WORK}/build/pipe_reader_v2_tests")
expect("does not conform to the spec")
expect("<- differs")
expect("Proposed spec: ${proposal}")
expect("Stored -> proposed (typestar diff):")
expect_file("${proposal}")
if(RENDER)
  expect("${WORK}/specs/pipe_reader.diff.svg")
  expect_file("${WORK}/specs/pipe_reader.diff.svg")
endif()
file(READ "${spec}" after)
if(NOT approved STREQUAL after)
  message(FATAL_ERROR "the approved spec was overwritten by the upgrade run")
endif()
run("${prefix}/bin/typestar" diff "${EXPECTED}/pipe_reader_v2.expected.yaml" "${proposal}")
run_failing("${prefix}/bin/typestar" diff "${spec}" "${proposal}")
expect("| close  | added  | err |")
message(STATUS "install + examples/pipe_reader: learned, passed, upgrade caught: ok")
