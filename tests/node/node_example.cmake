# The Node example project (examples/node_job) as a team runs it (cmake -P): `node --test` in a copy
# of the project, typestar-node-device in its node_modules (a link to the package directory PACKAGE,
# as `npm install` of the package would give), the typestar CLI as TYPESTAR_CLI; each run is one
# `typestar check --format json` per spec against the purpose served by the test process:
#  1. on CI, the committed spec passes: one test per transition but the two the learning purpose did
#     not explore (unknown, source purpose), which are reported once, as one skipped test naming them;
#     a pass prints the assumptions it relied on (diagnostics);
#  2. the simulated upgrade (JOB_VERSION=2: a late cancel() is ignored, no longer an error) fails
#     exactly the changed transition's test, with the CLI's aligned trace, what passing relies on,
#     the session's proposal (specs/job.proposed.yaml, written), what changed and the diff; the
#     committed spec is untouched; the reproduce line runs as printed (it fails the one test;
#     without the upgrade it passes, exit 0);
#  3. the same on CI: it fails with the proposal printed, nothing is written;
#  4. update mode accepts the change (the tests pass, the spec is rewritten), then a plain run passes;
#  5. no spec on CI fails clearly, writing nothing; no spec locally learns the committed spec.
#  6. the bound and learner as settings (TYPESTAR_BOUND incl. auto, the option `bound`): the first-run
#     message states the states, the bound B, the search beyond it and the CLI's tight-bound warning;
#     its accept command works; a bad value is one failure;
#  7. update mode keeps the stored state names (as `typestar accept`) and passes;
#  8. a crash of the class (an uncaught ERR_INTERNAL_ASSERTION) is a device error, never an answer:
#     it voids the check (every test of the spec fails);
#  9. a spec of another class, or with other callins, is one failure before any word runs;
# 10. TYPESTAR_ENGINE=local (deprecated) warns once and runs the check.
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
# run_file(pass|fail FILE ...) runs only the test file FILE (relative to the project).
set(test_file "")
macro(run_tests outcome)
  set(command "${CMAKE_COMMAND}" -E chdir "${WORK}" "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE
      --unset=TYPESTAR_BOUND --unset=TYPESTAR_LEARNER --unset=TYPESTAR_ENGINE --unset=JOB_VERSION --unset=NODE_OPTIONS
      --unset=NODE_PATH "TYPESTAR_CLI=${CLI}" ${ARGN} "${NODE}" --test ${test_file})
  if("${outcome}" STREQUAL "pass")
    run(${command})
  else()
    run_failing(${command})
  endif()
  message("${output}")
endmacro()
macro(run_file outcome file)
  set(test_file "${file}")
  run_tests(${outcome} ${ARGN})
  set(test_file "")
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
expect_all("ok 1 - Job.s0_cancel" "ok 7 - Job.s3_wait" "# pass 7" "# fail 0" "# skipped 1"
  # s2: callbacksDrained holds callins back while `done` is undelivered: outside the purpose, unknown
  # in the spec, reported once for the spec (not one skip per transition, not on every test)
  "ok 8 - Job.unknown # SKIP typestar: 2 unknown transition(s) of job.yaml not tested (three-valued spec): s2 cancel, s2 start"
  "# not tested: ${spec}:20: state s2, input cancel (purpose: not explored by the learning purpose of Job)"
  # a pass prints what it relied on
  "# spec: ${spec}:15, bound B=2, transition (s0, start)"
  "# Passing is bounded evidence, not a proof. It relies on:"
  "#   - every callback arrives within tmax=20 ms (quiescence; every way into a quiet state double-checked with a wait of 3.0 x tmax)")
string(FIND "${output}" "Job.s2_cancel" listed)
if(NOT listed EQUAL -1)
  message(FATAL_ERROR "an unknown transition has a test of its own:\n${output}")
endif()

# 2. The simulated upgrade fails the changed transition, proposes and diffs.
run_tests(fail JOB_VERSION=2)
expect_all(
  "not ok 5 - Job.s3_cancel"
  "\nok 7 - Job.s3_wait"
  "# pass 6"
  "# fail 1"
  "# skipped 1"
  "typestar: Job.s3_cancel: the device does not conform to the spec."
  "  spec:   ${spec}:22 (state s3, input cancel)"
  "    step  state  input   expected  actual"
  "    3     s3     cancel  err       ok      <- differs"
  "Passing is bounded evidence, not a proof. It relies on:"
  "  - the device's states are told apart by words of length <= 2 (distinguisher bound B=2)"
  "Re-learned with L# (seeded with the stored spec)"
  "    typestar accept ${spec}\n"
  "Proposed spec: ${proposed}"
  "Stored -> proposed (typestar diff):"
  "| s3    | start wait | cancel | added  | err | -> s3 |"
  # which test's own transition changed: the session's per-test verdict
  "    s3 cancel: err  =>  -> s3   <- this test's transition")
expect_file_unchanged("${spec}" "the committed spec was overwritten without update mode")
# The reproduce line runs as printed: it fails the one test on the upgrade and passes (exit 0) without it.
if(NOT output MATCHES "Reproduce: (node --test --test-name-pattern='\\^Job\\\\.s3_cancel\\$' [^\n]*job\\.test\\.js)\n")
  message(FATAL_ERROR "no reproduce line for Job.s3_cancel:\n${output}")
endif()
set(reproduce "${CMAKE_MATCH_1}")
set(clean "${CMAKE_COMMAND}" -E chdir "${WORK}" "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE
    --unset=TYPESTAR_BOUND --unset=TYPESTAR_LEARNER --unset=TYPESTAR_ENGINE --unset=JOB_VERSION --unset=NODE_OPTIONS --unset=NODE_PATH
    "TYPESTAR_CLI=${CLI}")
run_failing(${clean} CI=1 JOB_VERSION=2 sh -c "${reproduce}")
expect_all("not ok 5 - Job.s3_cancel" "# pass 0" "# fail 1")
run(${clean} CI=1 sh -c "${reproduce}")
expect_all("ok 5 - Job.s3_cancel" "# pass 1" "# fail 0")
expect_file("${proposed}")
file(READ "${proposed}" output)
expect_all("framework: job-2.0.0" "device: \"node:test in-process Job\"")

# 3. The same on CI: the proposal is printed, nothing is written.
file(REMOVE "${proposed}" "${WORK}/specs/job.proposed.dot")
run_tests(fail JOB_VERSION=2 CI=1)
expect_all("not ok 5 - Job.s3_cancel" "CI is set, so nothing was written. The proposed spec:"
  "Stored -> proposed (typestar diff):")
if(EXISTS "${proposed}")
  message(FATAL_ERROR "a proposal was written on CI")
endif()
expect_file_unchanged("${spec}" "the spec was written on CI")

# 4. Update mode accepts the change; then the plain run passes.
run_tests(pass JOB_VERSION=2 TYPESTAR_UPDATE=1)
expect_all("typestar: Update mode: wrote ${spec}."
  "Job.s3_cancel: the device's answer on start wait cancel is in the updated spec (update mode: wrote ${spec})."
  "# fail 0")
file(READ "${spec}" output)
expect("framework: job-2.0.0")
run_tests(pass JOB_VERSION=2)
expect("# fail 0")

# 4b. Nested reports (the option `nested`): one describe per state holding its transitions' tests
# by their names; the unknown transitions once at the top; the reproduce line reruns the nested test.
file(WRITE "${WORK}/extra/nested-spec.js" "'use strict';
const path = require('path');
const { specTests } = require('typestar-node-device/test');
specTests(path.join(__dirname, '..', 'specs', 'job.yaml'), require('../purposes/job'), { nested: true });
")
run_file(pass extra/nested-spec.js CI=1 JOB_VERSION=2)
expect_all("# Subtest: Job.s0\n" "    ok 1 - s0_cancel\n" "ok 1 - Job.s0\n" "    ok 3 - s3_wait\n" "ok 3 - Job.s3\n"
  "ok 4 - Job.unknown # SKIP" "# suites 3" "# pass 7")
file(READ "${SOURCE}/examples/node_job/specs/job.yaml" committed)
file(WRITE "${spec}" "${committed}")
run_file(fail extra/nested-spec.js CI=1 JOB_VERSION=2)
expect_all("    not ok 1 - s3_cancel\n" "not ok 3 - Job.s3\n"
  "Reproduce: node --test --test-name-pattern='^s3_cancel$' ${WORK}/extra/nested-spec.js")

# 5. No spec: on CI a clear failure and nothing written; locally, the committed spec is learned.
file(REMOVE "${spec}" "${proposed}" "${WORK}/specs/job.proposed.dot")
run_tests(fail CI=1)
expect_all("not ok 1 - job.learn" "typestar: fail: the spec ${spec} does not exist."
  "CI is set, so typestar neither learns nor writes it here.")
if(EXISTS "${spec}" OR EXISTS "${proposed}")
  message(FATAL_ERROR "a spec was written on CI")
endif()
run_tests(fail)
expect_all("the spec does not exist, so it was learned: ${spec} from node:test in-process Job with L# (from scratch: no spec yet), DroidStar Algorithm 2 at B=2 as equivalence oracle: 3 states," "Proposed spec: ${proposed}")
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

# 6. The bound and the learner as settings; the first-run message; its accept command works.
# TYPESTAR_BOUND=auto on a stored spec: its suite at the spec's own bound (it used to read as "does not load").
file(READ "${SOURCE}/examples/node_job/specs/job.yaml" committed)
file(WRITE "${spec}" "${committed}")
run_tests(pass CI=1 TYPESTAR_BOUND=auto)
expect_all("# pass 7" "# fail 0")
# A bad value is one failure naming it.
run_tests(fail CI=1 TYPESTAR_BOUND=three)
expect_all("not ok 1 - job.settings" "TYPESTAR_BOUND=three: the bound is a non-negative integer or 'auto'")
# First run at B=1 (TYPESTAR_BOUND, with TYPESTAR_LEARNER): states, bound, search beyond it, the CLI's warning.
file(REMOVE "${spec}" "${proposed}" "${WORK}/specs/job.proposed.dot")
run_tests(fail TYPESTAR_BOUND=1 TYPESTAR_LEARNER=lstar)
expect_all("the spec does not exist, so it was learned: ${spec} from node:test in-process Job with L* (from scratch: no spec yet), DroidStar Algorithm 2 at B=1 as equivalence oracle: 3 states,"
  "(The bound was asked by TYPESTAR_BOUND=1.)"
  "Searched beyond the bound: "
  "warning: the bound is tight"
  "    typestar accept ${spec} --auto\n")
# The accept command it prints works (all states are new: --auto keeps the generated names).
run("${CLI}" accept "${spec}" --auto)
expect_file("${spec}")
# The option `bound` of specTests (TYPESTAR_BOUND unset), and `auto` on a first run.
file(WRITE "${WORK}/extra/bound-spec.js" "'use strict';
const path = require('path');
const { specTests } = require('typestar-node-device/test');
specTests(path.join(__dirname, '..', 'specs', 'bound.yaml'), require('../purposes/job'), { bound: 3 });
")
run_file(fail extra/bound-spec.js)
expect_all("DroidStar Algorithm 2 at B=3 as equivalence oracle" "(The bound was asked by option bound: 3.)")
file(REMOVE "${WORK}/specs/bound.proposed.yaml" "${WORK}/specs/bound.proposed.dot")
run_file(fail extra/bound-spec.js TYPESTAR_BOUND=auto)  # learned raising B (before: the CLI's default B=2)
expect_all("(The bound was asked by TYPESTAR_BOUND=auto.)" "B+1 finds nothing")
file(REMOVE "${WORK}/specs/bound.proposed.yaml" "${WORK}/specs/bound.proposed.dot")

# 7. Update mode keeps the team's state names (as `typestar accept` does) and passes.
string(REPLACE "s0" "Idle" named "${committed}")
string(REPLACE "s2" "Running" named "${named}")
string(REPLACE "s3" "Ended" named "${named}")
file(WRITE "${spec}" "${named}")
run_tests(pass JOB_VERSION=2 TYPESTAR_UPDATE=1)
expect_all("# fail 0" "Job.Ended_cancel: the device's answer on start wait cancel is in the updated spec (update mode")
file(READ "${spec}" output)
expect_all("framework: job-2.0.0" "  Idle:\n" "  Running:\n" "  Ended:\n")
string(FIND "${output}" "  s0:" generated)
if(NOT generated EQUAL -1)
  message(FATAL_ERROR "update mode dropped the stored state names:\n${output}")
endif()
run_tests(pass JOB_VERSION=2)
expect("# fail 0")

# 8. A crash of the class is a device error: never an answer, learning stops, nothing is written.
# (Gz's params() after close() crashes Node asynchronously, as zlib's did: ERR_INTERNAL_ASSERTION.)
file(WRITE "${WORK}/extra/crash-spec.js" "'use strict';
const path = require('path');
const { LearningPurpose, settle } = require('typestar-node-device');
const { specTests } = require('typestar-node-device/test');
class Gz {
  constructor() { this.closed = false; }
  close() { if (this.closed) throw new Error('closed twice'); this.closed = true; }
  params() {
    if (!this.closed) return;
    process.nextTick(() => {
      const e = new Error('This is caused by either a bug in Node.js or incorrect usage of Node.js internals.');
      e.code = 'ERR_INTERNAL_ASSERTION';
      throw e;
    });
  }
}
const purpose = new LearningPurpose('Gz').reset(() => new Gz())
  .callin('close', (g) => g.close()).callin('params', (g) => g.params())
  .settle(() => settle.turns()).timing({ tmaxMs: 20, tminMs: 0 }).quietIsStable().build();
specTests(path.join(__dirname, '..', 'specs', 'gz.yaml'), purpose);
")
run_file(fail extra/crash-spec.js)
# (node:test reports the exception against the running test; the runner says what it means.)
expect_all("not ok 1 - gz.learn" "ERR_INTERNAL_ASSERTION"
  "the class Gz crashed (uncaught exception in the class under learning: ERR_INTERNAL_ASSERTION"
  "a device error, not an answer; every test of this spec fails on it.")
if(EXISTS "${WORK}/specs/gz.proposed.yaml")
  file(READ "${WORK}/specs/gz.proposed.yaml" output)
  message(FATAL_ERROR "a proposal was written from a crashing class:\n${output}")
endif()
# With a spec: the crash voids the spec's one check: every test fails as a device error, none passes.
file(WRITE "${WORK}/specs/gz.yaml" "typestar: 1
name: Gz
callins: [close, params]
callbacks: []
initial: Open
bounds: {distinguisher: 1}
timing: {tmax_ms: 20, tmin_ms: 0}
assumptions: {quiet_is_stable: true}
states:
  Open:
    callins:
      close: Closed
      params: Open
  Closed:
    callins:
      params: Closed
")
run_file(fail extra/crash-spec.js)
expect_all("not ok 1 - Gz.Open_close" "a device error, not an answer; every test of this spec fails on it."
  "not ok 6 - Gz.Closed_wait"
  "typestar: Gz.Closed_wait: no verdict: the class crashed during the check (a device error, not an answer): uncaught exception in the class under learning: ERR_INTERNAL_ASSERTION"
  "# pass 0" "# fail 6")

# 9. A spec that does not match the purpose: one failure before any word runs.
string(REPLACE "name: Job" "name: OtherJob" other "${committed}")
file(WRITE "${spec}" "${other}")
run_tests(fail CI=1)
expect_all("not ok 1 - OtherJob.purpose" "# fail 1" "# pass 0"
  "does not match the learning purpose of Job; no word was run:"
  "the spec is of class 'OtherJob', the purpose drives 'Job'")
file(WRITE "${spec}" "typestar: 1
name: Job
callins: [start]
callbacks: [cancelled, done]
initial: s0
bounds: {distinguisher: 2}
timing: {tmax_ms: 20, tmin_ms: 0}
assumptions: {quiet_is_stable: true}
states:
  s0:
    callins:
      start: s2
  s2:
    callbacks:
      done: s3
  s3: {}
")
run_tests(fail CI=1)
expect_all("not ok 1 - Job.purpose" "# fail 1" "# pass 0" "callins of the purpose the spec does not have: cancel"
  "re-learned from the purpose: L# (from scratch: the device's inputs are not the spec's)")

# 10. TYPESTAR_ENGINE=local is deprecated and removed: one warning, then the check runs and passes.
file(WRITE "${spec}" "${committed}")
run_tests(pass CI=1 TYPESTAR_ENGINE=local)
expect_all("typestar: engine 'local' is deprecated and removed; the check engine runs (one `typestar check --format json` per spec)"
  "# pass 7" "# fail 0" "# skipped 1"
  "#   - every callback arrives within tmax=20 ms (quiescence; every way into a quiet state double-checked with a wait of 3.0 x tmax)")
string(REGEX MATCHALL "engine 'local' is deprecated" warnings "${output}")
list(LENGTH warnings count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected the deprecation warning once, got ${count}:\n${output}")
endif()
