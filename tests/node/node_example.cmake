# The Node example project (examples/node_job) as a team runs it (cmake -P): `node --test` in a copy
# of the project, typestar-node-device in its node_modules (a link to the package directory PACKAGE,
# as `npm install` of the package would give), the typestar CLI as TYPESTAR_CLI:
#  1. on CI, the committed spec passes: one test per transition, all pass but the two the learning
#     purpose did not explore (unknown, source purpose: skipped, named);
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

include("${CMAKE_CURRENT_LIST_DIR}/../support/script_steps.cmake")

# `node --test` in the project, with a clean environment and ARGN (VAR=value) added; its output
# becomes ${output}. run_tests(pass|fail ...) stops the script unless it passes or fails.
macro(run_tests outcome)
  set(command "${CMAKE_COMMAND}" -E chdir "${WORK}" "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE
      --unset=TYPESTAR_BOUND --unset=JOB_VERSION --unset=NODE_OPTIONS --unset=NODE_PATH "TYPESTAR_CLI=${CLI}" ${ARGN}
      "${NODE}" --test)
  if("${outcome}" STREQUAL "pass")
    run(${command})
  else()
    run_failing(${command})
  endif()
  message("${output}")
endmacro()
macro(expect_all)
  foreach(text IN ITEMS ${ARGN})
    expect("${text}")
  endforeach()
endmacro()
function(expect_file_unchanged file what)
  file(READ "${SOURCE}/examples/node_job/specs/job.yaml" committed)
  file(READ "${file}" now)
  if(NOT committed STREQUAL now)
    message(FATAL_ERROR "${what}")
  endif()
endfunction()

# 1. The committed spec passes, on CI.
run_tests(pass CI=1)
expect_all("ok 1 - Job.s0_cancel" "ok 9 - Job.s3_wait" "# pass 7" "# fail 0" "# skipped 2"
  # s2: callbacksDrained holds callins back while `done` is undelivered: outside the purpose, skipped
  "ok 4 - Job.s2_cancel # SKIP typestar: ${spec}:20: state s2, input cancel is unknown (purpose: not explored by the learning purpose of Job): not tested")

# 2. The simulated upgrade fails the changed transition, proposes and diffs.
run_tests(fail JOB_VERSION=2)
expect_all(
  "not ok 7 - Job.s3_cancel"
  "not ok 9 - Job.s3_wait"
  "# pass 5"
  "# fail 2"
  "# skipped 2"
  "typestar: Job.s3_cancel: the device does not conform to the spec."
  "  spec:   ${spec}:22 (state s3, input cancel)"
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
expect_file("${proposed}")
file(READ "${proposed}" output)
expect_all("framework: job-2.0.0" "device: \"node:test in-process Job\"")

# 3. The same on CI: the proposal is printed, nothing is written.
file(REMOVE "${proposed}" "${WORK}/specs/job.proposed.dot")
run_tests(fail JOB_VERSION=2 CI=1)
expect_all("not ok 7 - Job.s3_cancel" "CI is set, so nothing was written. The proposed spec:"
  "Stored -> proposed (typestar diff):")
if(EXISTS "${proposed}")
  message(FATAL_ERROR "a proposal was written on CI")
endif()
expect_file_unchanged("${spec}" "the spec was written on CI")

# 4. Update mode accepts the change; then the plain run passes.
run_tests(pass JOB_VERSION=2 TYPESTAR_UPDATE=1)
expect_all("Update mode (TYPESTAR_UPDATE / --update): wrote ${spec}."
  "Job.s3_cancel: the device's answer on start wait cancel is in the updated spec.")
file(READ "${spec}" output)
expect("framework: job-2.0.0")
run_tests(pass JOB_VERSION=2)
expect("# fail 0")

# 5. No spec: on CI a clear failure and nothing written; locally, the committed spec is learned.
file(REMOVE "${spec}" "${proposed}" "${WORK}/specs/job.proposed.dot")
run_tests(fail CI=1)
expect_all("not ok 1 - job.learn" "typestar: the spec ${spec} does not exist."
  "CI is set, so typestar neither learns nor writes it here.")
if(EXISTS "${spec}" OR EXISTS "${proposed}")
  message(FATAL_ERROR "a spec was written on CI")
endif()
run_tests(fail)
expect_all("does not exist, so it was learned from Job (3 states" "Proposed spec: ${proposed}")
file(READ "${proposed}" learned)
file(READ "${SOURCE}/examples/node_job/specs/job.yaml" committed)
# What the search beyond the bound ran is the run's own provenance (how many words its last search
# kept depends on the hypotheses it met); it must be there, and the rest is the committed text.
if(NOT learned MATCHES "\n  explored: \"search of [0-9]+ random words per transition[^\n]*\n")
  message(FATAL_ERROR "the learned spec does not record what was searched beyond the bound:\n${learned}")
endif()
string(REGEX REPLACE "\n  explored: [^\n]*\n" "\n" learned "${learned}")
string(REGEX REPLACE "\n  explored: [^\n]*\n" "\n" committed "${committed}")
if(NOT learned STREQUAL committed)
  message(FATAL_ERROR "the learned spec is not the committed one, byte for byte:\n${learned}")
endif()
