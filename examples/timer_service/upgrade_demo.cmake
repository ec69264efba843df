# What this shows: running the 1.0 conformance tests against TimerService 2.0. Checks that the run
# fails with the counterexample, writes the proposed spec and prints the diff. (cmake -P script)
file(COPY_FILE "${SPEC}" "${WORK}/timer_service.yaml")
file(REMOVE "${WORK}/timer_service.proposed.yaml" "${WORK}/timer_service.proposed.dot")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE --unset=TYPESTAR_DEVICE
          --unset=TYPESTAR_BOUND --unset=GTEST_FILTER "${BINARY}"
  WORKING_DIRECTORY "${WORK}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
message("${out}${err}")
if(code EQUAL 0)
  message(FATAL_ERROR "TimerService 2.0 passed the 1.0 conformance tests; expected a failure")
endif()
foreach(expected
    "[  FAILED  ] TimerService.Running_start"
    "Running  start  err       ok      <- differs"
    "Proposed spec: ${WORK}/timer_service.proposed.yaml"
    "| Running | start      | start  | added  | err | -> Running |")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "missing from the output: ${expected}")
  endif()
endforeach()
if(NOT EXISTS "${WORK}/timer_service.proposed.yaml" OR NOT EXISTS "${WORK}/timer_service.proposed.dot")
  message(FATAL_ERROR "no proposed spec was written")
endif()
file(READ "${SPEC}" approved)
file(READ "${WORK}/timer_service.yaml" after)
if(NOT approved STREQUAL after)
  message(FATAL_ERROR "the approved spec was overwritten")
endif()
