# The upgrade check as a test (cmake -P): SQLite with a commit hook that vetoes every commit, run
# against the stored spec of the accepting configuration, must fail with a counterexample, write
# the proposed spec and print the diff; the approved spec must stay untouched.
file(MAKE_DIRECTORY "${WORK}")
file(COPY_FILE "${SPEC}" "${WORK}/sqlite.yaml")
file(REMOVE "${WORK}/sqlite.proposed.yaml" "${WORK}/sqlite.proposed.dot")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE --unset=TYPESTAR_DEVICE
          --unset=TYPESTAR_BOUND --unset=GTEST_FILTER "${BINARY}"
  WORKING_DIRECTORY "${WORK}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
message("${out}${err}")
if(code EQUAL 0)
  message(FATAL_ERROR "SQLite with a vetoing commit hook passed the stored spec; expected a failure")
endif()
foreach(expected
    "[  FAILED  ] sqlite.s2_insert"
    "2     s2     insert  ok        err     <- differs"
    "Proposed spec: ${WORK}/sqlite.proposed.yaml"
    "| s2    | open                   | insert | removed | -> s4 | err |"
    "| s9    | open begin insert wait | commit | removed | -> s8 | err |")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing from the output: ${expected}")
  endif()
endforeach()
if(NOT EXISTS "${WORK}/sqlite.proposed.yaml" OR NOT EXISTS "${WORK}/sqlite.proposed.dot")
  message(FATAL_ERROR "no proposed spec was written")
endif()
file(READ "${SPEC}" approved)
file(READ "${WORK}/sqlite.yaml" after)
if(NOT approved STREQUAL after)
  message(FATAL_ERROR "the approved spec was overwritten")
endif()
