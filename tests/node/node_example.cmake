# The Node example project (examples/node_job) as a team runs it (cmake -P): `node --test` in a copy
# of the project, typestar-node-device in its node_modules (a link to the package directory PACKAGE,
# as `npm install` of the package would give), the typestar CLI as TYPESTAR_CLI:
#  1. on CI, the committed spec passes: one test per transition, all pass;
#  2. the simulated upgrade (JOB_VERSION=2: a late cancel() is ignored, no longer an error) fails
#     exactly the changed transition's test, with the aligned trace, what passing relies on, the
#     proposal (specs/job.proposed.yaml, written) and the diff; the committed spec is untouched;
#  3. the same on CI: it fails with the proposal printed, nothing is written;
#  4. update mode accepts the change (the tests pass, the spec is rewritten), then a plain run passes;
#  5. no spec on CI fails clearly, writing nothing; no spec locally learns the committed spec.
# NODE; CLI; SOURCE: the source tree; PACKAGE: the typestar-node-device directory; WORK: scratch.
file(REMOVE_RECURSE "${WORK}")
file(COPY "${SOURCE}/examples/node_job/" DESTINATION "${WORK}")
file(MAKE_DIRECTORY "${WORK}/node_modules")
file(CREATE_LINK "${PACKAGE}" "${WORK}/node_modules/typestar-node-device" SYMBOLIC)
set(spec "${WORK}/specs/job.yaml")
set(proposed "${WORK}/specs/job.proposed.yaml")

function(run_tests out_var code_var)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE --unset=TYPESTAR_BOUND --unset=JOB_VERSION
            --unset=NODE_OPTIONS --unset=NODE_PATH "TYPESTAR_CLI=${CLI}" ${ARGN} "${NODE}" --test
    WORKING_DIRECTORY "${WORK}" OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE code TIMEOUT 240)
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
function(expect_not_in text)
  foreach(unexpected IN LISTS ARGN)
    string(FIND "${text}" "${unexpected}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "unexpected in the output: ${unexpected}")
    endif()
  endforeach()
endfunction()
function(expect_file_unchanged file what)
  file(READ "${SOURCE}/examples/node_job/specs/job.yaml" committed)
  file(READ "${file}" now)
  if(NOT committed STREQUAL now)
    message(FATAL_ERROR "${what}")
  endif()
endfunction()

# 1. The committed spec passes, on CI.
run_tests(out code CI=1)
message("${out}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the committed spec does not pass (exit ${code})")
endif()
expect_in("${out}" "ok 1 - Job.s0_cancel" "ok 9 - Job.s3_wait" "# pass 9" "# fail 0")

# 2. The simulated upgrade fails the changed transition, proposes and diffs.
run_tests(out code JOB_VERSION=2)
message("${out}")
if(code EQUAL 0)
  message(FATAL_ERROR "version 2 passed the version 1 spec; expected the late-cancel transition to fail")
endif()
expect_in("${out}"
  "not ok 7 - Job.s3_cancel"
  "not ok 9 - Job.s3_wait"
  "# pass 7"
  "# fail 2"
  "typestar: Job.s3_cancel: the device does not conform to the spec."
  "  spec:   ${spec}:"
  "    step  state  input   expected  actual"
  "    3     s3     cancel  err       ok      <- differs"
  "Passing is bounded evidence, not a proof. It relies on:"
  "  - the device's states are told apart by words of length <= 2 (distinguisher bound B=2)"
  "Re-learned (seeded with the stored spec, by the typestar CLI): 3 states."
  "Proposed spec: ${proposed}"
  "Stored -> proposed (typestar diff):"
  "| s3    | start wait | cancel | added  | err | -> s3 |"
  "This test's transition (s3, wait) did not change: its words pass through a transition that did (s3 cancel).")
expect_file_unchanged("${spec}" "the committed spec was overwritten without update mode")
if(NOT EXISTS "${proposed}")
  message(FATAL_ERROR "no proposal was written")
endif()
file(READ "${proposed}" proposal)
expect_in("${proposal}" "framework: job-2.0.0" "device: \"node:test in-process Job\"")

# 3. The same on CI: the proposal is printed, nothing is written.
file(REMOVE "${proposed}" "${WORK}/specs/job.proposed.dot")
run_tests(out code JOB_VERSION=2 CI=1)
message("${out}")
if(code EQUAL 0)
  message(FATAL_ERROR "version 2 passed on CI")
endif()
expect_in("${out}" "not ok 7 - Job.s3_cancel" "CI is set, so nothing was written. The proposed spec:"
  "Stored -> proposed (typestar diff):")
if(EXISTS "${proposed}")
  message(FATAL_ERROR "a proposal was written on CI")
endif()
expect_file_unchanged("${spec}" "the spec was written on CI")

# 4. Update mode accepts the change; then the plain run passes.
run_tests(out code JOB_VERSION=2 TYPESTAR_UPDATE=1)
message("${out}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "update mode did not accept the change (exit ${code})")
endif()
expect_in("${out}" "Update mode (TYPESTAR_UPDATE / --update): wrote ${spec}."
  "Job.s3_cancel: the device's answer on start wait cancel is in the updated spec.")
file(READ "${spec}" updated)
expect_in("${updated}" "framework: job-2.0.0")
run_tests(out code JOB_VERSION=2)
message("${out}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the accepted spec does not pass (exit ${code})")
endif()

# 5. No spec: on CI a clear failure and nothing written; locally, the committed spec is learned.
file(REMOVE "${spec}" "${proposed}" "${WORK}/specs/job.proposed.dot")
run_tests(out code CI=1)
message("${out}")
if(code EQUAL 0)
  message(FATAL_ERROR "a missing spec passed on CI")
endif()
expect_in("${out}" "not ok 1 - job.learn" "typestar: the spec ${spec} does not exist."
  "CI is set, so typestar neither learns nor writes it here.")
if(EXISTS "${spec}" OR EXISTS "${proposed}")
  message(FATAL_ERROR "a spec was written on CI")
endif()
run_tests(out code)
message("${out}")
if(code EQUAL 0)
  message(FATAL_ERROR "learning a missing spec without update mode passed; it must fail with the proposal")
endif()
expect_in("${out}" "does not exist, so it was learned from Job (3 states" "Proposed spec: ${proposed}")
file(READ "${proposed}" learned)
file(READ "${SOURCE}/examples/node_job/specs/job.yaml" committed)
if(NOT learned STREQUAL committed)
  message(FATAL_ERROR "the learned spec is not the committed one, byte for byte:\n${learned}")
endif()
