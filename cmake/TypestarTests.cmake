# TypestarTests.cmake: register a typestar gtest binary's conformance tests with CTest.
#
#   typestar_add_conformance_tests(
#     TARGET <target>                 # a test executable linked with typestar::gtest_main
#     [SPECS <spec.yaml>...]          # the specs it registers: a change re-discovers its tests
#     [LABELS <label>...]             # added to every test (conformance tests also get `conformance`,
#                                     # learning tests `learn`)
#     [RESOURCE_LOCK <name>]          # tests sharing one device never run at the same time (not
#                                     # needed for in-process devices: each test process has its own)
#     [DEVICE <url>]                  # passes --typestar_device=<url> to every test
#     [WORKING_DIRECTORY <dir>]       # default: the current binary directory
#     [EXTRA_ARGS <arg>...]           # more arguments for every test
#     [TEST_PREFIX <prefix>]          # prepended to every CTest test name
#     [PROPERTIES <name> <value>...]  # more test properties (e.g. ENVIRONMENT; TIMEOUT overrides the
#                                     # default 300 s per conformance test, 1800 s per learning test)
#     [DISCOVERY_TIMEOUT <seconds>]   # for `--gtest_list_tests` (default 10)
#   )
#
# Like gtest_discover_tests(... DISCOVERY_MODE PRE_TEST) and Catch2's catch_discover_tests: the test
# list comes from running `<target> --gtest_list_tests` (which only reads the specs' YAML), and is
# made again when ctest starts and the executable or one of SPECS changed (or appeared, or
# disappeared) since the last listing, so editing or accepting a spec needs no rebuild and no
# re-configure. Each gtest test becomes one CTest test running `--gtest_filter=<Suite>.<Test>`;
# a skipped gtest test (unreachable device, locally) is reported as skipped.

# Where the discovery script lives; a cache entry so the function works from any directory (and
# from projects that add typestar with add_subdirectory).
set(_TYPESTAR_ADD_TESTS_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/TypestarAddTests.cmake"
    CACHE INTERNAL "typestar's CTest discovery script")

function(typestar_add_conformance_tests)
  cmake_parse_arguments(ARG ""
    "TARGET;RESOURCE_LOCK;DEVICE;WORKING_DIRECTORY;TEST_PREFIX;DISCOVERY_TIMEOUT"
    "SPECS;LABELS;EXTRA_ARGS;PROPERTIES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "typestar_add_conformance_tests: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TARGET)
    message(FATAL_ERROR "typestar_add_conformance_tests: TARGET is required")
  endif()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "typestar_add_conformance_tests: '${ARG_TARGET}' is not a target")
  endif()
  if(NOT ARG_WORKING_DIRECTORY)
    set(ARG_WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  if(NOT ARG_DISCOVERY_TIMEOUT)
    set(ARG_DISCOVERY_TIMEOUT 10)
  endif()
  set(specs "")
  foreach(spec IN LISTS ARG_SPECS)
    get_filename_component(spec "${spec}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND specs "${spec}")
  endforeach()
  set(extra_args ${ARG_EXTRA_ARGS})
  if(ARG_DEVICE)
    list(APPEND extra_args "--typestar_device=${ARG_DEVICE}")
  endif()

  # One set of files per call (a target may be registered more than once, e.g. per device).
  get_property(counter TARGET ${ARG_TARGET} PROPERTY TYPESTAR_DISCOVERY_COUNTER)
  if(NOT counter)
    set(counter 0)
  endif()
  math(EXPR counter "${counter} + 1")
  set_property(TARGET ${ARG_TARGET} PROPERTY TYPESTAR_DISCOVERY_COUNTER ${counter})
  set(base "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}[${counter}]")

  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  set(tests_file "${base}_typestar_tests.cmake")
  if(multi_config)
    set(tests_file "${base}_typestar_tests-$<CONFIG>.cmake")
  endif()

  string(CONCAT content
    "if(EXISTS \"$<TARGET_FILE:${ARG_TARGET}>\")\n"
    "  include(\"${_TYPESTAR_ADD_TESTS_SCRIPT}\")\n"
    "  typestar_discover_tests_impl(\n"
    "    TARGET [==[${ARG_TARGET}]==]\n"
    "    EXECUTABLE [==[$<TARGET_FILE:${ARG_TARGET}>]==]\n"
    "    SPECS [==[${specs}]==]\n"
    "    LABELS [==[${ARG_LABELS}]==]\n"
    "    RESOURCE_LOCK [==[${ARG_RESOURCE_LOCK}]==]\n"
    "    WORKING_DIRECTORY [==[${ARG_WORKING_DIRECTORY}]==]\n"
    "    EXTRA_ARGS [==[${extra_args}]==]\n"
    "    TEST_PREFIX [==[${ARG_TEST_PREFIX}]==]\n"
    "    PROPERTIES [==[${ARG_PROPERTIES}]==]\n"
    "    DISCOVERY_TIMEOUT [==[${ARG_DISCOVERY_TIMEOUT}]==]\n"
    "    CMAKE_COMMAND [==[${CMAKE_COMMAND}]==]\n"
    "    CTEST_FILE [==[${tests_file}]==]\n"
    "  )\n"
    "  include(\"${tests_file}\")\n"
    "else()\n"
    "  add_test([==[${ARG_TARGET}_NOT_BUILT]==] [==[${ARG_TARGET}_NOT_BUILT]==])\n"
    "endif()\n")

  set(include_file "${base}_typestar_include.cmake")
  if(multi_config)
    foreach(config IN LISTS CMAKE_CONFIGURATION_TYPES)
      file(GENERATE OUTPUT "${base}_typestar_include-${config}.cmake" CONTENT "${content}"
           CONDITION $<CONFIG:${config}>)
    endforeach()
    file(WRITE "${include_file}" "include(\"${base}_typestar_include-\${CTEST_CONFIGURATION_TYPE}.cmake\")\n")
  else()
    file(GENERATE OUTPUT "${base}_typestar_include-generated.cmake" CONTENT "${content}")
    file(WRITE "${include_file}" "include(\"${base}_typestar_include-generated.cmake\")\n")
  endif()
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
