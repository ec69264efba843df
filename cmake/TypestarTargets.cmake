# Helpers shared by typestar's own targets: C++20 and warnings PRIVATE, never global flags.

# Sanitizers for typestar's own targets only (README "Sanitizer builds"): a comma-separated list
# such as `address,undefined`, passed to -fsanitize= when compiling and linking each target that
# typestar_target_defaults() sets up. Empty (the default) builds without sanitizers. Any finding
# aborts the program (-fno-sanitize-recover), so a test that triggers one fails. Targets that
# already choose a sanitizer themselves (monitor_tsan_tests: -fsanitize=thread) keep theirs.
set(TYPESTAR_SANITIZE "" CACHE STRING
    "Sanitizers for typestar's own targets, e.g. address,undefined (empty: none)")
# TYPESTAR_FUZZ_INSTRUMENT (set in the top-level CMakeLists.txt when TYPESTAR_FUZZ is on): every
# typestar target is compiled with libFuzzer's coverage instrumentation, so the code under test
# guides the fuzzers in tests/fuzz (docs/fuzzing.md).

function(typestar_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
  get_target_property(own_options ${target} COMPILE_OPTIONS)
  if(TYPESTAR_SANITIZE AND NOT "${own_options}" MATCHES "-fsanitize=")
    target_compile_options(${target} PRIVATE -fsanitize=${TYPESTAR_SANITIZE}
                           -fno-sanitize-recover=all -fno-omit-frame-pointer)
    # PUBLIC: a sanitized static library needs the sanitizer runtime in whatever links it, also a
    # consumer of the installed package (the exported targets carry the option).
    target_link_options(${target} PUBLIC -fsanitize=${TYPESTAR_SANITIZE})
  endif()
  if(TYPESTAR_FUZZ_INSTRUMENT AND NOT "${own_options}" MATCHES "-fsanitize=")
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()

# typestar_library(NAME <short> SOURCES … DEPS …): static library typestar_<short>, alias typestar::<short>.
function(typestar_library)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  set(target typestar_${ARG_NAME})
  add_library(${target} STATIC ${ARG_SOURCES})
  add_library(typestar::${ARG_NAME} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${ARG_NAME} POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  typestar_target_defaults(${target})
endfunction()

# The optimisation level of the test programs' own code (TYPESTAR_TEST_OPTIMIZE, default -Og): the
# libraries under test keep the build type's flags (-O2 in RelWithDebInfo), the test files, which are
# most of the build's compile time, are compiled for debugging (-Og keeps full debug information and
# compiles a test file about twice as fast as -O2). Empty: the build type's flags everywhere.
set(TYPESTAR_TEST_OPTIMIZE "-Og" CACHE STRING
    "Optimisation flag for typestar's test programs' own sources (empty: the build type's)")
function(typestar_test_code_options target)
  if(TYPESTAR_TEST_OPTIMIZE)
    target_compile_options(${target} PRIVATE ${TYPESTAR_TEST_OPTIMIZE})
  endif()
endfunction()

# typestar_test(NAME <name> SOURCES … DEPS … [LABELS …] [SERIAL]): a gtest executable whose tests
# ctest discovers. SERIAL runs them alone (RUN_SERIAL): for tests that measure real time.
function(typestar_test)
  cmake_parse_arguments(ARG "SERIAL" "NAME" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  typestar_target_defaults(${ARG_NAME})
  target_compile_definitions(${ARG_NAME} PRIVATE
    TYPESTAR_SOURCE_DIR="${PROJECT_SOURCE_DIR}" TYPESTAR_BINARY_DIR="${PROJECT_BINARY_DIR}")
  typestar_test_code_options(${ARG_NAME})
  if(TARGET typestar_test_pch)  # tests/CMakeLists.txt: one precompiled header for every test target
    target_precompile_headers(${ARG_NAME} REUSE_FROM typestar_test_pch)
  endif()
  set(labels ${ARG_LABELS})
  if(NOT labels)
    set(labels unit)
  endif()
  set(properties LABELS "${labels}")
  if(ARG_SERIAL)
    list(APPEND properties RUN_SERIAL TRUE)
  endif()
  gtest_discover_tests(${ARG_NAME} DISCOVERY_MODE PRE_TEST PROPERTIES ${properties})
endfunction()
