#!/bin/sh
# Builds and runs this example's JUnit tests with plain javac and the JUnit console launcher (no
# build tool, no network). Jars, from Debian's packages and typestar's install:
#   TYPESTAR_JAVA_DIR  typestar-agent.jar and typestar-junit.jar (default: /usr/local/share/typestar/java)
#   JAVA_LIBS          gson.jar, junit-jupiter-api.jar, junit-platform-console-standalone.jar, ...
#                      (default: /usr/share/java: libgoogle-gson-java, junit5)
# The typestar CLI is `typestar` on the PATH, or TYPESTAR_CLI. Extra JVM options (e.g.
# -Dexample.upgrade=true, the simulated upgrade; -Dtypestar.bound=3) go in EXAMPLE_JVM_OPTS; the test
# class to run in EXAMPLE_TEST_CLASS (default com.example.ConnectionSpecTest). Exit status: JUnit's.
# Reports: JUnit's own XML in $OUT/test-reports (dynamic tests named by index), and typestar's
# (typestar.reports.dir: TEST-typestar-<Spec>-<TestClass>.xml, test cases named by transition) in
# EXAMPLE_TYPESTAR_REPORTS (default $OUT/typestar-reports; set it empty for none).
set -eu
cd "$(dirname "$0")"
TYPESTAR_JAVA_DIR=${TYPESTAR_JAVA_DIR:-/usr/local/share/typestar/java}
JAVA_LIBS=${JAVA_LIBS:-/usr/share/java}
OUT=${EXAMPLE_BUILD_DIR:-build}
RUN_CP="$TYPESTAR_JAVA_DIR/typestar-agent.jar:$TYPESTAR_JAVA_DIR/typestar-junit.jar:$JAVA_LIBS/gson.jar"
# Compiling also needs JUnit's API; at run time the console launcher brings it.
CP="$RUN_CP:$JAVA_LIBS/junit-jupiter-api.jar:$JAVA_LIBS/opentest4j.jar:$JAVA_LIBS/apiguardian-api.jar"
CP="$CP:$JAVA_LIBS/junit-platform-commons.jar"
TYPESTAR_REPORTS=${EXAMPLE_TYPESTAR_REPORTS-$OUT/typestar-reports}
rm -rf "$OUT"
mkdir -p "$OUT/classes"
javac --release 17 -encoding UTF-8 -d "$OUT/classes" -cp "$CP" $(find src -name '*.java' | sort)
set --
if [ -n "$TYPESTAR_REPORTS" ]; then set -- --config "typestar.reports.dir=$TYPESTAR_REPORTS"; fi
# shellcheck disable=SC2086
exec java ${EXAMPLE_JVM_OPTS:-} -jar "$JAVA_LIBS/junit-platform-console-standalone.jar" \
  --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests \
  --class-path "$OUT/classes:$RUN_CP" --select-class "${EXAMPLE_TEST_CLASS:-com.example.ConnectionSpecTest}" \
  --reports-dir "$OUT/test-reports" "$@"
