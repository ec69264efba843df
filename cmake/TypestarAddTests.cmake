# Run by ctest (through the include file typestar_add_conformance_tests writes): lists the tests of
# a typestar gtest binary and writes the add_test() calls, again only when the binary or a spec
# changed since the last listing.

function(typestar_discover_tests_impl)
  # List values (several specs, labels, arguments, properties) arrive split at their `;`: they
  # must be multi-value keywords, or only their first element would be kept.
  cmake_parse_arguments(ARG ""
    "TARGET;EXECUTABLE;RESOURCE_LOCK;WORKING_DIRECTORY;TEST_PREFIX;DISCOVERY_TIMEOUT;CMAKE_COMMAND;CTEST_FILE"
    "SPECS;LABELS;EXTRA_ARGS;PROPERTIES" ${ARGN})

  # What the listing depends on: the executable and each spec (its time stamp, or "missing").
  set(stamp "")
  foreach(spec IN LISTS ARG_SPECS)
    if(EXISTS "${spec}")
      file(TIMESTAMP "${spec}" t "%s")
      string(APPEND stamp "${spec}=${t}\n")
    else()
      string(APPEND stamp "${spec}=missing\n")
    endif()
  endforeach()
  set(stamp_file "${ARG_CTEST_FILE}.stamp")
  set(old_stamp "")
  if(EXISTS "${stamp_file}")
    file(READ "${stamp_file}" old_stamp)
  endif()
  if(EXISTS "${ARG_CTEST_FILE}" AND NOT "${ARG_EXECUTABLE}" IS_NEWER_THAN "${ARG_CTEST_FILE}"
     AND old_stamp STREQUAL stamp)
    return()
  endif()

  execute_process(
    COMMAND "${ARG_EXECUTABLE}" --gtest_list_tests
    WORKING_DIRECTORY "${ARG_WORKING_DIRECTORY}"
    TIMEOUT ${ARG_DISCOVERY_TIMEOUT}
    OUTPUT_VARIABLE output
    ERROR_VARIABLE errors
    RESULT_VARIABLE result)
  set(content "# typestar tests of ${ARG_TARGET}, listed from ${ARG_EXECUTABLE}\n")
  if(NOT result EQUAL 0)
    string(REPLACE "\n" "\n    " output_text "${output}${errors}")
    message(WARNING "typestar: listing the tests of ${ARG_EXECUTABLE} failed (${result}):\n    ${output_text}")
    string(APPEND content
      "add_test([==[${ARG_TEST_PREFIX}${ARG_TARGET}_DISCOVERY_FAILED]==] [==[${ARG_CMAKE_COMMAND}]==] -E false)\n")
    file(WRITE "${ARG_CTEST_FILE}" "${content}")
    file(REMOVE "${stamp_file}")
    return()
  endif()

  # Bracket-quote every property value.
  set(extra_properties "")
  foreach(p IN LISTS ARG_PROPERTIES)
    string(APPEND extra_properties " [==[${p}]==]")
  endforeach()
  set(args "")
  foreach(a IN LISTS ARG_EXTRA_ARGS)
    string(APPEND args " [==[${a}]==]")
  endforeach()

  string(REPLACE "\n" ";" lines "${output}")
  set(suite "")
  set(count 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^([A-Za-z0-9_]+)\\.( .*)?$")
      set(suite "${CMAKE_MATCH_1}")
    elseif(suite AND line MATCHES "^  ([A-Za-z0-9_]+)( .*)?$")
      set(test "${CMAKE_MATCH_1}")
      set(name "${ARG_TEST_PREFIX}${suite}.${test}")
      if(test STREQUAL "learn")
        set(labels learn ${ARG_LABELS})
      else()
        set(labels conformance ${ARG_LABELS})
      endif()
      string(APPEND content
        "add_test([==[${name}]==] [==[${ARG_EXECUTABLE}]==] [==[--gtest_filter=${suite}.${test}]==]${args})\n"
        "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY [==[${ARG_WORKING_DIRECTORY}]==]"
        " SKIP_REGULAR_EXPRESSION [==[\\[  SKIPPED \\]]==] LABELS [==[${labels}]==]")
      if(ARG_RESOURCE_LOCK)
        string(APPEND content " RESOURCE_LOCK [==[${ARG_RESOURCE_LOCK}]==]")
      endif()
      # A hung device must not hang CI (ctest's own default is 10^7 s). One transition's words take
      # seconds even at tmax = 1 s; learning a class takes minutes. PROPERTIES TIMEOUT overrides.
      if(test STREQUAL "learn")
        string(APPEND content " TIMEOUT 1800")
      else()
        string(APPEND content " TIMEOUT 300")
      endif()
      string(APPEND content "${extra_properties})\n")
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  file(WRITE "${ARG_CTEST_FILE}" "${content}")
  file(WRITE "${stamp_file}" "${stamp}")
endfunction()
