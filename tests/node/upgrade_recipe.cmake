# The CI recipe of docs/upgrades/ci-recipe.md as a test (cmake -P), on the ws 7.5.10 -> 8.18.0 bump:
#  1. the bumped version fails the approved spec: exactly the transition test WebSocket.s5_wait, with
#     the trace, a proposed spec equal to the committed docs/upgrades/specs/ws-8.18.0.yaml, and the
#     diff; the approved spec is untouched;
#  2. update mode accepts the proposal: the tests pass and the spec becomes the proposal;
#  3. the next plain run passes against the accepted spec (its unknown transitions skipped).
# BINARY: node_upgrade_subject; CLI: typestar; SOURCE: the source tree; WORK: its spec directory.
file(MAKE_DIRECTORY "${WORK}")
file(COPY_FILE "${SOURCE}/specs/node/ws.yaml" "${WORK}/ws.yaml")
file(REMOVE "${WORK}/ws.proposed.yaml" "${WORK}/ws.proposed.dot")

function(run_subject out_var code_var)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_DEVICE --unset=TYPESTAR_BOUND
            --unset=GTEST_FILTER TYPESTAR_NODE_WS=ws-8 ${ARGN} "${BINARY}"
    WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code)
  set(${out_var} "${out}${err}" PARENT_SCOPE)
  set(${code_var} "${code}" PARENT_SCOPE)
endfunction()
function(expect_in text)
  foreach(expected IN LISTS ARGN)
    string(FIND "${text}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "missing from the output: ${expected}")
    endif()
  endforeach()
endfunction()
function(expect_same_behaviour a b what)
  execute_process(COMMAND "${CLI}" diff "${a}" "${b}" OUTPUT_VARIABLE diff_out RESULT_VARIABLE diff_code)
  if(NOT diff_code EQUAL 0)
    message(FATAL_ERROR "${what}:\n${diff_out}")
  endif()
endfunction()

# 1. Bump and run: the suite fails, proposes, and leaves the approved spec alone.
run_subject(out code --unset=TYPESTAR_UPDATE)
message("${out}")
if(code EQUAL 0)
  message(FATAL_ERROR "ws 8.18.0 passed the ws 7.5.10 spec; expected one failing transition test")
endif()
# (17 pass; the 12 transitions the learning purpose denies where the approved spec says err are
# skipped with their reason, never passed)
expect_in("${out}"
  "[  PASSED  ] 17 tests."
  "[  FAILED  ] WebSocket.s5_wait\n"
  " 1 FAILED TEST"
  "    4     s5     wait     on_message_string  on_message_buffer  <- differs"
  "Proposed spec: ${WORK}/ws.proposed.yaml"
  "    | s5    | connect wait send | wait   | changed | on_message_string -> s3 | on_message_buffer -> s3 |")
file(READ "${SOURCE}/specs/node/ws.yaml" approved)
file(READ "${WORK}/ws.yaml" after)
if(NOT approved STREQUAL after)
  message(FATAL_ERROR "the approved spec was overwritten without update mode")
endif()
expect_same_behaviour("${WORK}/ws.proposed.yaml" "${SOURCE}/docs/upgrades/specs/ws-8.18.0.yaml"
                      "the proposal is not the committed ws 8.18.0 spec")

# 2. Accept with update mode.
run_subject(out code TYPESTAR_UPDATE=1)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "update mode did not accept the proposal (exit ${code}):\n${out}")
endif()
expect_same_behaviour("${WORK}/ws.yaml" "${SOURCE}/docs/upgrades/specs/ws-8.18.0.yaml"
                      "update mode wrote a spec other than the ws 8.18.0 proposal")

# 3. The next run, without update mode, passes against the accepted spec.
run_subject(out code --unset=TYPESTAR_UPDATE)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "ws 8.18.0 fails the accepted spec (exit ${code}):\n${out}")
endif()
# (the 12 callins the learning purpose did not explore are unknown in the proposal: skipped, named)
expect_in("${out}" "[  PASSED  ] 18 tests." "[  SKIPPED ] 12 tests,")
