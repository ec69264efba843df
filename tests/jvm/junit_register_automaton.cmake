# A register-automaton spec under JUnit 5 (cmake -P script), as a team runs it: a data class of its
# own (a bounded stack of ints) behind a DataPurpose, TypestarSpec.of(spec, dataPurpose).
#   -DEXAMPLE=<examples/java_junit> -DWORK=<scratch dir> -DJARS=<dir of typestar-agent.jar and
#   typestar-junit.jar> -DJAVA_LIBS=<dir of gson and JUnit's jars> -DTYPESTAR=<the typestar CLI>
# In a copy of the JUnit example: a missing spec is never learned under CI, is learned with SL* into
# <spec>.proposed.yaml for review (its accept command works), and into the spec with TYPESTAR_UPDATE=1,
# byte for byte the same; the spec passes, one test per automaton transition nested per location; the
# upgrade (pop takes the oldest) fails with the data trace, the proposal and its separating trace,
# and a reproduce line that runs; under CI nothing is written; update mode rewrites the spec and
# passes; a spec of another class is one failure before any word runs; tmax() on a data device is a
# settings error. Every decision is the
# session's (typestar suite / check --format json); the runner only serves the purpose and prints.
include("${CMAKE_CURRENT_LIST_DIR}/../support/script_steps.cmake")

file(REMOVE_RECURSE "${WORK}")
file(COPY "${EXAMPLE}/" DESTINATION "${WORK}")
file(REMOVE_RECURSE "${WORK}/build")
set(spec "${WORK}/specs/stack.yaml")
set(proposed "${WORK}/specs/stack.proposed.yaml")
set(env "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE "TYPESTAR_CLI=${TYPESTAR}"
    "TYPESTAR_JAVA_DIR=${JARS}" "JAVA_LIBS=${JAVA_LIBS}" EXAMPLE_TEST_CLASS=com.example.StackSpecTest)

file(WRITE "${WORK}/src/main/java/com/example/BoundedStack.java" [=[
package com.example;

import java.util.ArrayDeque;

/** A stack of at most two ints. With -Dexample.upgrade=true, pop() takes the oldest (a queue). */
public final class BoundedStack {
    public static final int CAPACITY = 2;
    private final ArrayDeque<Integer> items = new ArrayDeque<>();
    private final boolean upgraded = Boolean.getBoolean("example.upgrade");

    /** False when full. */
    public boolean push(int value) {
        if (items.size() >= CAPACITY) return false;
        items.push(value);
        return true;
    }

    /** Throws NoSuchElementException when empty. */
    public int pop() {
        return upgraded ? items.removeLast() : items.pop();
    }
}
]=])
file(WRITE "${WORK}/src/test/java/com/example/StackSpecTest.java" [=[
package com.example;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;
import typestar.agent.DataPurpose;
import typestar.agent.DataPurpose.Answer;
import typestar.junit.TypestarReports;
import typestar.junit.TypestarSpec;

/** BoundedStack as a register automaton: push(p) answers ok or full, pop() out(v) or empty. */
@ExtendWith(TypestarReports.class)
class StackSpecTest {
    static DataPurpose<BoundedStack> purpose() {
        return DataPurpose.<BoundedStack>of("com.example.BoundedStack", BoundedStack::new)
                .framework("example-1")
                .callin("push", List.of("p"), (s, v) -> Answer.of(s.push((int) v[0]) ? "ok" : "full"))
                .callin("pop", List.of(), (s, v) -> Answer.of("out", s.pop()))
                .output("ok")
                .output("full")
                .output("empty")
                .output("out", "v")
                .refusedAs("empty", NoSuchElementException.class);
    }

    @TestFactory
    Stream<DynamicNode> stack() {
        return TypestarSpec.of("specs/stack.yaml", purpose()).byState();
    }
}
]=])

# 1. No spec: never learned under CI.
run_failing(${env} CI=true sh "${WORK}/run.sh")
expect("CI is set, so typestar neither learns nor writes it here.")
if(EXISTS "${spec}" OR EXISTS "${proposed}")
  message(FATAL_ERROR "a spec was written under CI")
endif()

# 2. Learned with SL* for review; the spec with TYPESTAR_UPDATE=1, byte for byte the same.
run_failing(${env} sh "${WORK}/run.sh")
expect("stack.learn ✘")
expect("the spec does not exist, so it was learned: specs/stack.yaml from junit in-process com.example.BoundedStack with SL* (from scratch)")
expect(": 4 locations, 2 registers at most, 9 transitions, bound 2;")
expect("Proposed spec: specs/stack.proposed.yaml\nReview it, then accept it:\n    typestar accept specs/stack.yaml\n")
expect_file("${proposed}")
file(READ "${proposed}" learned)
if(NOT learned MATCHES "kind: register-automaton\n" OR NOT learned MATCHES "device: \"junit in-process com.example.BoundedStack\"")
  message(FATAL_ERROR "the proposal is not a register automaton learned from the purpose run by JUnit:\n${learned}")
endif()
run(${CMAKE_COMMAND} -E chdir "${WORK}" "${TYPESTAR}" accept specs/stack.yaml)  # the printed command works
expect("accepted specs/stack.proposed.yaml as specs/stack.yaml: 4 locations")
file(REMOVE "${spec}")
run(${env} TYPESTAR_UPDATE=1 sh "${WORK}/run.sh")
expect("pass: learned specs/stack.yaml from junit in-process com.example.BoundedStack with SL*")
file(READ "${spec}" updated)
if(NOT learned STREQUAL updated)
  message(FATAL_ERROR "the proposal and the spec TYPESTAR_UPDATE wrote differ:\n${learned}\n---\n${updated}")
endif()

# 3. The spec passes: one test per transition of the automaton, nested per location.
run(${env} sh "${WORK}/run.sh")
expect("│        ├─ l1 ✔\n")
expect("│        │  ├─ l1_push_2 ✔\n")
expect("[         9 tests successful      ]")
expect("[         0 tests failed          ]")
expect("passing is bounded evidence, not a proof. It relies on:")
expect("typestar.transition = `l1_pop`")
# typestar's JUnit XML (TypestarXmlReports): test cases named by transition, classed by location.
file(READ "${WORK}/build/typestar-reports/TEST-typestar-com_example_BoundedStack-com.example.StackSpecTest.xml" output)
expect("<testcase name=\"l1_pop\" classname=\"com_example_BoundedStack.l1\"")

# 4. The upgrade (pop takes the oldest): the data trace, the proposal with its separating trace once,
# a pointer in the other failures, and a reproduce line that runs as printed.
run_failing(${env} EXAMPLE_JVM_OPTS=-Dexample.upgrade=true sh "${WORK}/run.sh")
expect("typestar: com_example_BoundedStack.l0_push: the device does not conform to the register automaton.")
expect("  device: jvm:com.example.BoundedStack (in this JVM) (served to typestar check on http://127.0.0.1:")
expect("    3     l2     pop             out(-1048576)  out(0)  <- differs\n")
expect("Shortest separating data trace, stored spec vs proposal (the proposal's answers):")
expect("Proposed spec: specs/stack.proposed.yaml (compare: typestar diff specs/stack.yaml specs/stack.proposed.yaml)")
expect("The re-learned proposal and its separating data trace are in the first failure of com_example_BoundedStack.")
expect("[         7 tests failed          ]")
expect_file("${proposed}")
if(NOT output MATCHES "Reproduce: typestar check (specs/stack.yaml --device 'exec:[^'#]+#com_example_BoundedStack' --bound 2)\n")
  message(FATAL_ERROR "no reproduce line through typestar check and an exec: launcher:\n${output}")
endif()
set(reproduce "${CMAKE_MATCH_1}")
run_failing(${CMAKE_COMMAND} -E chdir "${WORK}" sh -c "'${TYPESTAR}' check ${reproduce}")
expect("does not conform to com.example.BoundedStack (data trace, 3 steps): expected out(-1048576), got out(0)")
string(REPLACE "specs/stack.yaml" "specs/stack.proposed.yaml" conforming "${reproduce}")
run(${CMAKE_COMMAND} -E chdir "${WORK}" sh -c "'${TYPESTAR}' check ${conforming}")
expect("conforms")
file(REMOVE "${proposed}" "${WORK}/specs/stack.proposed.dot")

# 5. The same under CI: the proposal printed, nothing written.
run_failing(${env} CI=1 EXAMPLE_JVM_OPTS=-Dexample.upgrade=true sh "${WORK}/run.sh")
expect("CI is set, so nothing was written; the proposed spec:")
if(EXISTS "${proposed}")
  message(FATAL_ERROR "a proposal was written under CI: ${proposed}")
endif()

# 6. Update mode: the spec rewritten, every test whose answer it explains passes; then the upgrade passes.
run(${env} "EXAMPLE_JVM_OPTS=-Dexample.upgrade=true -Dtypestar.update=true" sh "${WORK}/run.sh")
expect("wrote specs/stack.yaml; review and commit it.")
expect("typestar: com_example_BoundedStack.l0_push: the device's answer is in the updated spec (update mode: wrote specs/stack.yaml).")
expect("[         0 tests failed          ]")
run(${env} EXAMPLE_JVM_OPTS=-Dexample.upgrade=true sh "${WORK}/run.sh")
expect("[         9 tests successful      ]")
file(WRITE "${spec}" "${updated}")

# 7. A spec of another class: one failure before any word runs.
string(REPLACE "name: com.example.BoundedStack" "name: com.example.Queue" other "${updated}")
file(WRITE "${spec}" "${other}")
run_failing(${env} sh "${WORK}/run.sh")
expect("does not match the learning purpose of com.example.BoundedStack; no word was run:")
expect("the spec is of class 'com.example.Queue', the purpose drives 'com.example.BoundedStack'")
expect("[         1 tests failed          ]")
expect("[         0 tests successful      ]")
# 8. A data device never waits: tmax() on it is a settings error, one failing test, no word run.
file(WRITE "${WORK}/src/test/java/com/example/StackTmaxSpecTest.java" [=[
package com.example;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import typestar.junit.TypestarSpec;

class StackTmaxSpecTest {
    @TestFactory
    Stream<DynamicTest> stack() {
        return TypestarSpec.of("specs/stack.yaml", StackSpecTest.purpose()).tmax(40).tests();
    }
}
]=])
run_failing(${env} EXAMPLE_TEST_CLASS=com.example.StackTmaxSpecTest sh "${WORK}/run.sh")
expect("stack.settings")
expect("tmax() / tmin(): com.example.BoundedStack is a data device (a register automaton), which never waits")
expect("[         1 tests failed          ]")
message(STATUS "the register-automaton spec under JUnit 5: learned, passed, failed with its proposal, updated, refused for another class")
