# A register-automaton spec under node:test (cmake -P script), as a team runs it: a data class of its
# own (a bounded stack of integers) behind a DataPurpose (device/node/lib/data.js),
# specTests(spec, dataPurpose) in a copy of examples/node_job with typestar-node-device linked into
# its node_modules. A missing spec is never learned under CI, is learned with SL* into
# <spec>.proposed.yaml for review (its accept command works), and into the spec with TYPESTAR_UPDATE=1,
# byte for byte the same; the spec passes, one test per automaton transition nested per location; the
# upgrade (pop takes the oldest) fails with the data trace, the proposal and its separating trace,
# and a reproduce line that runs; under CI nothing is written; update mode rewrites the spec and
# passes; a spec of another class is one failure before any word runs; the option tmax on a data
# device is a settings error (TYPESTAR_TMAX is not read). Every decision is the session's (typestar
# suite / check --format json); the runner only serves the purpose and prints.
# NODE; CLI; SOURCE: the source tree; PACKAGE: the typestar-node-device directory; WORK: scratch.
include("${CMAKE_CURRENT_LIST_DIR}/../support/script_steps.cmake")

file(REMOVE_RECURSE "${WORK}")
file(COPY "${SOURCE}/examples/node_job/" DESTINATION "${WORK}")
file(MAKE_DIRECTORY "${WORK}/node_modules")
file(CREATE_LINK "${PACKAGE}" "${WORK}/node_modules/typestar-node-device" SYMBOLIC)
set(spec "${WORK}/specs/stack.yaml")
set(proposed "${WORK}/specs/stack.proposed.yaml")

file(WRITE "${WORK}/src/stack.js" [=[
'use strict';
// A stack of at most two integers. With STACK_UPGRADE=1, pop() takes the oldest (a queue).
class BoundedStack {
  constructor() {
    this.items = [];
    this.upgraded = process.env.STACK_UPGRADE === '1';
  }
  /// False when full.
  push(value) {
    if (this.items.length >= 2) return false;
    this.items.push(value);
    return true;
  }
  /// Throws a RangeError when empty.
  pop() {
    if (this.items.length === 0) throw new RangeError('empty stack');
    return this.upgraded ? this.items.shift() : this.items.pop();
  }
}
module.exports = { BoundedStack };
]=])
file(WRITE "${WORK}/purposes/stack.js" [=[
'use strict';
// BoundedStack as a register automaton: push(p) answers ok or full, pop() out(v) or empty.
const { DataPurpose, answer } = require('typestar-node-device');
const { BoundedStack } = require('../src/stack');

module.exports = new DataPurpose('BoundedStack').framework('example-1')
  .reset(() => new BoundedStack())
  .callin('push', ['p'], (s, [p]) => (s.push(p) ? 'ok' : 'full'))
  .callin('pop', [], (s) => answer('out', s.pop()))
  .output('ok').output('full').output('empty').output('out', 'v')
  .refusedAs('empty', RangeError);
]=])
file(WRITE "${WORK}/test/stack.test.js" [=[
'use strict';
const path = require('path');
const { specTests } = require('typestar-node-device/test');

specTests(path.join(__dirname, '..', 'specs', 'stack.yaml'), require('../purposes/stack'), { nested: true });
]=])
file(WRITE "${WORK}/test/stack_tmax.js" [=[
'use strict';
const path = require('path');
const { specTests } = require('typestar-node-device/test');

specTests(path.join(__dirname, '..', 'specs', 'stack.yaml'), require('../purposes/stack'), { tmax: 40 });
]=])

# `node --test FILE` in the project with a clean environment and ARGN (VAR=value) added.
macro(node_test outcome file)
  set(command "${CMAKE_COMMAND}" -E chdir "${WORK}" "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE
      --unset=TYPESTAR_BOUND --unset=TYPESTAR_LEARNER --unset=TYPESTAR_TMAX --unset=STACK_UPGRADE --unset=NODE_OPTIONS
      --unset=NODE_PATH "TYPESTAR_CLI=${CLI}" ${ARGN} "${NODE}" --test "${file}")
  if("${outcome}" STREQUAL "pass")
    run(${command})
  else()
    run_failing(${command})
  endif()
endmacro()

# 1. No spec: never learned under CI.
node_test(fail test/stack.test.js CI=1)
expect("CI is set")
if(EXISTS "${spec}" OR EXISTS "${proposed}")
  message(FATAL_ERROR "a spec was written under CI:\n${output}")
endif()

# 2. Learned with SL* for review; the spec with TYPESTAR_UPDATE=1, byte for byte the same.
node_test(fail test/stack.test.js)
expect("not ok 1 - stack.learn")
expect("the spec does not exist, so it was learned: ${spec} from node:test in-process BoundedStack with SL* (from scratch)")
expect(": 4 locations, 2 registers at most, 9 transitions, bound 2;")
expect("Review it, then accept it:\n        typestar accept ${spec}\n    or rerun in update mode, which writes stack.yaml itself.")
expect_file("${proposed}")
file(READ "${proposed}" learned)
if(NOT learned MATCHES "kind: register-automaton\n" OR NOT learned MATCHES "device: \"node:test in-process BoundedStack\"")
  message(FATAL_ERROR "the proposal is not a register automaton learned from the purpose run by node:test:\n${learned}")
endif()
run("${CLI}" accept "${spec}")  # the printed command works
expect("accepted ${proposed} as ${spec}: 4 locations")
file(REMOVE "${spec}")
node_test(pass test/stack.test.js TYPESTAR_UPDATE=1)
expect("pass: learned ${spec} from node:test in-process BoundedStack with SL*")
file(READ "${spec}" updated)
if(NOT learned STREQUAL updated)
  message(FATAL_ERROR "the proposal and the spec TYPESTAR_UPDATE wrote differ:\n${learned}\n---\n${updated}")
endif()

# 3. The spec passes: one test per transition of the automaton, nested per location; a team-wide
# TYPESTAR_TMAX is not read for a data device.
node_test(pass test/stack.test.js TYPESTAR_TMAX=40)
expect("ok 2 - BoundedStack.l1\n")
expect("    ok 2 - l1_push_2\n")
expect("# pass 9\n")
expect("# fail 0\n")
expect("Passing is bounded evidence, not a proof. It relies on:")

# 4. The upgrade (pop takes the oldest): the data trace, the proposal with its separating trace, and
# a reproduce line that runs as printed (it fails on the upgrade, passes without it).
node_test(fail test/stack.test.js STACK_UPGRADE=1)
expect("typestar: BoundedStack.l0_push: the device does not conform to the register automaton.")
expect("    3     l2     pop             out(-1048576)  out(0)  <- differs\n")
expect("Shortest separating data trace, stored spec vs proposal (the proposal's answers):")
expect("Proposed spec: ${proposed} (compare: typestar diff ${spec} ${proposed})")
expect("# fail 7\n")
expect_file("${proposed}")
if(NOT output MATCHES "Reproduce: node --test --test-name-pattern='\\^l0_push\\$' [^\n]*stack\\.test\\.js\n")
  message(FATAL_ERROR "no node:test reproduce line for l0_push:\n${output}")
endif()
run_failing("${CMAKE_COMMAND}" -E chdir "${WORK}" "${CMAKE_COMMAND}" -E env --unset=CI STACK_UPGRADE=1 "TYPESTAR_CLI=${CLI}"
            "${NODE}" --test --test-name-pattern=^l0_push$ test/stack.test.js)
expect("# fail 1\n")
run("${CMAKE_COMMAND}" -E chdir "${WORK}" "${CMAKE_COMMAND}" -E env --unset=CI --unset=STACK_UPGRADE "TYPESTAR_CLI=${CLI}"
    "${NODE}" --test --test-name-pattern=^l0_push$ test/stack.test.js)
expect("# pass 1\n")
file(REMOVE "${proposed}" "${WORK}/specs/stack.proposed.dot")

# 5. The same under CI: the proposal printed, nothing written.
node_test(fail test/stack.test.js CI=1 STACK_UPGRADE=1)
expect("CI is set, so nothing was written; the proposed spec:")
if(EXISTS "${proposed}")
  message(FATAL_ERROR "a proposal was written under CI: ${proposed}")
endif()

# 6. Update mode: the spec rewritten, keeping the team's location name (the initial location renamed
# Empty by hand: the re-learned automaton's is paired with it), every test whose answer it explains
# passes; then the upgrade passes.
string(REPLACE "initial: l0\n" "initial: Empty\n" named "${updated}")
string(REPLACE "  l0:\n" "  Empty:\n" named "${named}")
string(REPLACE "to: l0}" "to: Empty}" named "${named}")
file(WRITE "${spec}" "${named}")
node_test(pass test/stack.test.js TYPESTAR_UPDATE=1 STACK_UPGRADE=1)
expect("Update mode: wrote ${spec}; review and commit it.")
expect("typestar: BoundedStack.Empty_push: the device's answer is in the updated spec (update mode: wrote ${spec}).")
expect("# fail 0\n")
file(READ "${spec}" rewritten)
if(NOT rewritten MATCHES "initial: Empty\n" OR NOT rewritten MATCHES "\n  Empty:\n")
  message(FATAL_ERROR "update mode did not keep the stored location name Empty:\n${rewritten}")
endif()
node_test(pass test/stack.test.js STACK_UPGRADE=1)
expect("# pass 9\n")
file(WRITE "${spec}" "${updated}")

# 7. A spec of another class: one failure before any word runs.
string(REPLACE "name: BoundedStack" "name: Queue" other "${updated}")
file(WRITE "${spec}" "${other}")
node_test(fail test/stack.test.js)
expect("does not match the learning purpose of BoundedStack; no word was run")
expect("# fail 1\n")
expect("# pass 0\n")
file(WRITE "${spec}" "${updated}")

# 8. A data device never waits: the option tmax on it is a settings error, one failing test.
node_test(fail test/stack_tmax.js)
expect("not ok 1 - stack.settings")
expect("option tmax: BoundedStack is a data device (a register automaton), which never waits")
message(STATUS "the register-automaton spec under node:test: learned, passed, failed with its proposal, updated, refused for another class")
