#!/bin/sh
# Installs typestar's two jars into the local Maven repository (as dev.typestar:typestar-agent and
# dev.typestar:typestar-junit, version TYPESTAR_VERSION, default 0.1.0), offline, with Debian's
# maven-install-plugin (README: "Maven, offline"). Then: mvn -o -s debian-settings.xml
# -Daether.offline.protocols=file test. Extra Maven options (e.g. -Dmaven.repo.local=DIR) go in
# MAVEN_ARGS. TYPESTAR_JAVA_DIR: where the jars are (default /usr/local/share/typestar/java).
set -eu
cd "$(dirname "$0")"
TYPESTAR_JAVA_DIR=${TYPESTAR_JAVA_DIR:-/usr/local/share/typestar/java}
for jar in typestar-agent typestar-junit; do
  # shellcheck disable=SC2086
  mvn -B -q -o -s debian-settings.xml -Daether.offline.protocols=file ${MAVEN_ARGS:-} \
    org.apache.maven.plugins:maven-install-plugin:3.1.0:install-file \
    "-Dfile=$TYPESTAR_JAVA_DIR/$jar.jar" -DgroupId=dev.typestar "-DartifactId=$jar" \
    "-Dversion=${TYPESTAR_VERSION:-0.1.0}" -Dpackaging=jar
done
