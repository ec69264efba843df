# The JUnit example as a Maven project, offline (cmake -P script; examples/java_junit/README.md,
# "Maven, offline"): -DEXAMPLE=<examples/java_junit> -DWORK=<scratch dir> -DJARS=<dir of
# typestar-agent.jar and typestar-junit.jar> -DTYPESTAR=<the typestar CLI> -DMVN=<mvn>.
# In a copy, with a fresh local repository (so nothing comes from an earlier run): the documented
# install:install-file of typestar's jars, then `mvn -o test` passes on the committed spec (12 tests)
# and fails on the simulated upgrade (Surefire: 4 failures; typestar's JUnit-XML report written with
# -Dtypestar.reports.dir), with Debian's /usr/share/maven-repo only.
include("${CMAKE_CURRENT_LIST_DIR}/../support/script_steps.cmake")

file(REMOVE_RECURSE "${WORK}")
file(COPY "${EXAMPLE}/" DESTINATION "${WORK}")
file(REMOVE_RECURSE "${WORK}/build" "${WORK}/target")
set(repo "-Dmaven.repo.local=${WORK}/m2")
set(env "${CMAKE_COMMAND}" -E env --unset=CI --unset=TYPESTAR_UPDATE "TYPESTAR_CLI=${TYPESTAR}"
    "TYPESTAR_JAVA_DIR=${JARS}" "MAVEN_ARGS=${repo}")
set(mvn "${MVN}" -B -o -s debian-settings.xml -Daether.offline.protocols=file "${repo}")

run(${env} sh "${WORK}/mvn-install-typestar.sh")
expect_file("${WORK}/m2/dev/typestar/typestar-agent/0.1.0/typestar-agent-0.1.0.jar")
expect_file("${WORK}/m2/dev/typestar/typestar-junit/0.1.0/typestar-junit-0.1.0.jar")

run(${env} ${CMAKE_COMMAND} -E chdir "${WORK}" ${mvn} test)
expect("Tests run: 12, Failures: 0, Errors: 0, Skipped: 0")
expect("BUILD SUCCESS")

run_failing(${env} ${CMAKE_COMMAND} -E chdir "${WORK}" ${mvn} test -Dexample.upgrade=true
            -Dtypestar.reports.dir=target/typestar-reports)
expect("Tests run: 12, Failures: 4, Errors: 0, Skipped: 0")
expect("typestar: com_example_Connection.Closed_open: the device does not conform to the spec.")
expect("BUILD FAILURE")
# typestar's JUnit-XML report under Surefire: -Dtypestar.reports.dir reaches the forked test JVM.
set(xml "${WORK}/target/typestar-reports/TEST-typestar-com_example_Connection-com.example.ConnectionSpecTest.xml")
expect_file("${xml}")
file(READ "${xml}" output)
expect("<testsuite name=\"com_example_Connection\" tests=\"12\" skipped=\"0\" failures=\"4\" errors=\"0\"")
expect("<testcase name=\"Closed_open\" classname=\"com_example_Connection.Closed\"")
