# typestar's JUnit-XML reports (TypestarXmlReports, typestar.reports.dir) on the worked JUnit 5
# example (cmake -P script): -DEXAMPLE=<examples/java_junit> -DWORK=<scratch dir> -DJARS=<dir of
# typestar-agent.jar and typestar-junit.jar> -DJAVA_LIBS=<dir of gson and JUnit's jars>
# -DTYPESTAR=<the typestar CLI> -DJAVA=<java> -DSUMMARY=<tests/jvm/JunitXmlSummary.java>.
# One TEST-typestar-<Spec>-<TestClass>.xml per spec and test class (two classes of one spec in two
# JVMs keep both reports), well-formed, its test cases named by transition with
# classname <Spec>.<State>, its properties the spec, bound, tmax and device; a failure carries the
# test's message; the tests not tested (unknown transitions, inputs outside the learning purpose)
# are ONE skipped test case; the same results give the same bytes but for the times; nothing is
# written without typestar.reports.dir.
include("${CMAKE_CURRENT_LIST_DIR}/../support/script_steps.cmake")

file(REMOVE_RECURSE "${WORK}")
file(COPY "${EXAMPLE}/" DESTINATION "${WORK}")
file(REMOVE_RECURSE "${WORK}/build")
set(spec "${WORK}/specs/connection.yaml")
set(xml "${WORK}/build/typestar-reports/TEST-typestar-com_example_Connection-com.example.ConnectionSpecTest.xml")
set(env "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE "TYPESTAR_CLI=${TYPESTAR}"
    "TYPESTAR_JAVA_DIR=${JARS}" "JAVA_LIBS=${JAVA_LIBS}")

# The XML as CI servers read it (parsed: it must be well-formed), one line per suite, property, test case.
function(summary file)
  expect_file("${file}")
  run("${JAVA}" "${SUMMARY}" "${file}")
  set(output "${output}" PARENT_SCOPE)
endfunction()

# 1. The simulated upgrade: 4 of 12 tests fail; each test case named by its transition.
run_failing(${env} EXAMPLE_JVM_OPTS=-Dexample.upgrade=true sh "${WORK}/run.sh")
expect("[         4 tests failed          ]")
file(GLOB reports "${WORK}/build/typestar-reports/*")
if(NOT reports STREQUAL xml)
  message(FATAL_ERROR "expected exactly ${xml}, got: ${reports}")
endif()
summary("${xml}")
expect("testsuite com_example_Connection tests=12 skipped=0 failures=4 errors=0\n")
expect("property spec=specs/connection.yaml\nproperty bound=2\nproperty tmax=10 ms\nproperty device=jvm:com.example.Connection (in this JVM)\n")
expect("testcase com_example_Connection.New New_close passed\ntestcase com_example_Connection.New New_open passed\n")
expect("testcase com_example_Connection.Open Open_send failure: typestar: com_example_Connection.Open_send: the device does not conform to the spec.\n")
expect("testcase com_example_Connection.Closed Closed_open failure: typestar: com_example_Connection.Closed_open: the device does not conform to the spec.\n")
expect("testcase com_example_Connection.Closed Closed_wait failure: ")
# The failure's body is the test's whole message: the aligned trace and what changed.
file(READ "${xml}" output)
expect("    4     Closed  open   err       ok      &lt;- differs\n")
expect("    Closed open: err  =&gt;  -&gt; Open   &lt;- this test's transition\n")
if(output MATCHES "name=\"[^\"]*(\\(\\)|\\[[0-9]+\\])")
  message(FATAL_ERROR "a test case named by JUnit's index:\n${output}")
endif()
file(REMOVE "${WORK}/specs/connection.proposed.yaml")

# 2. A three-valued spec (New close, Closed send unknown) and a purpose that does not explore `send`
# in New (the session's `skipped`): JUnit aborts two tests, the XML has ONE skipped test case.
file(WRITE "${spec}" [=[
typestar: 2
name: com.example.Connection
callins: [close, open, send]
callbacks: []
initial: New
bounds: {distinguisher: 2}
timing: {tmax_ms: 10, tmin_ms: 0}
assumptions: {quiet_is_stable: true}
states:
  New:
    callins:
      open: Open
    unknown:
      close: {source: purpose, reason: "the purpose never closes a new connection"}
  Open:
    callins:
      close: Closed
      send: Open
  Closed:
    callins:
      close: Closed
    unknown:
      send: {source: purpose, reason: "not explored"}
]=])
file(WRITE "${WORK}/src/test/java/com/example/RestrictedSpecTest.java" [=[
package com.example;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;
import typestar.agent.LearningPurpose;
import typestar.junit.TypestarReports;
import typestar.junit.TypestarSpec;

@ExtendWith(TypestarReports.class)
class RestrictedSpecTest {
    @TestFactory
    Stream<DynamicNode> connection() {
        LearningPurpose<?> purpose = new ConnectionPurpose().purpose()
                .restrictTo((history, next) -> !(next.equals("send") && history.isEmpty()));
        return TypestarSpec.of("specs/connection.yaml", purpose).byState();
    }
}
]=])
set(restricted ${env} EXAMPLE_TEST_CLASS=com.example.RestrictedSpecTest)
set(restricted_xml "${WORK}/build/typestar-reports/TEST-typestar-com_example_Connection-com.example.RestrictedSpecTest.xml")
run(${restricted} sh "${WORK}/run.sh")
expect("[         2 tests aborted         ]")
expect("[         9 tests successful      ]")
summary("${restricted_xml}")
expect("testsuite com_example_Connection tests=10 skipped=1 failures=0 errors=0\n")
expect("testcase com_example_Connection.Closed Closed_wait passed\ntestcase com_example_Connection not_tested skipped: not tested: New_send; typestar: 2 unknown transition(s) of connection.yaml not tested (three-valued spec): New close, Closed send\n")
string(REGEX MATCHALL "skipped:" skipped "${output}")
list(LENGTH skipped n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one skipped test case, got ${n}:\n${output}")
endif()
file(READ "${restricted_xml}" output)
expect("New_send: typestar: specs/connection.yaml:10: state New, input send: the spec says err, but the device's learning purpose does not explore it")

# 3. Deterministic: the same results give the same bytes, but for the times.
string(REGEX REPLACE "time=\"[0-9.]+\"" "time=\"T\"" first "${output}")
run(${restricted} sh "${WORK}/run.sh")
file(READ "${restricted_xml}" output)
string(REGEX REPLACE "time=\"[0-9.]+\"" "time=\"T\"" second "${output}")
if(NOT first STREQUAL second)
  message(FATAL_ERROR "two runs with the same results wrote different reports:\n${first}\n---\n${second}")
endif()

# 4. Off without typestar.reports.dir; a system property sets it as well as the configuration parameter.
run(${restricted} EXAMPLE_TYPESTAR_REPORTS= sh "${WORK}/run.sh")
if(EXISTS "${WORK}/build/typestar-reports")
  message(FATAL_ERROR "typestar's reports were written without typestar.reports.dir")
endif()
run(${restricted} EXAMPLE_TYPESTAR_REPORTS=
    "EXAMPLE_JVM_OPTS=-Dtypestar.reports.dir=${WORK}/build/by-property" sh "${WORK}/run.sh")
summary("${WORK}/build/by-property/TEST-typestar-com_example_Connection-com.example.RestrictedSpecTest.xml")
expect("testsuite com_example_Connection tests=10 skipped=1 failures=0 errors=0\n")

# 5. Two test classes of one spec in two JVMs (as Surefire's forks run them) with one reports
# directory: a red run, then a green one of another class. Each class keeps its own report; the red
# one is not overwritten by the green one.
file(READ "${WORK}/src/test/java/com/example/RestrictedSpecTest.java" source)
string(REPLACE "class RestrictedSpecTest" "class RestrictedAgainSpecTest" source "${source}")
file(WRITE "${WORK}/src/test/java/com/example/RestrictedAgainSpecTest.java" "${source}")
set(shared "${WORK}/shared-reports")
run_failing(${restricted} "EXAMPLE_TYPESTAR_REPORTS=${shared}" EXAMPLE_JVM_OPTS=-Dexample.upgrade=true sh "${WORK}/run.sh")
run(${env} "EXAMPLE_TYPESTAR_REPORTS=${shared}" EXAMPLE_TEST_CLASS=com.example.RestrictedAgainSpecTest sh "${WORK}/run.sh")
file(GLOB reports "${shared}/*")
list(LENGTH reports n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "expected two reports in ${shared}, got: ${reports}")
endif()
summary("${shared}/TEST-typestar-com_example_Connection-com.example.RestrictedSpecTest.xml")
if(NOT output MATCHES "testsuite com_example_Connection tests=[0-9]+ skipped=[01] failures=[1-9]")
  message(FATAL_ERROR "the red run's report lost its failures:\n${output}")
endif()
summary("${shared}/TEST-typestar-com_example_Connection-com.example.RestrictedAgainSpecTest.xml")
expect("testsuite com_example_Connection tests=10 skipped=1 failures=0 errors=0\n")
