#!/usr/bin/env bash
# typestar quick start. Installs what is missing (Debian 12 packages), builds, then:
#   scripts/quickstart.sh          builds only what the main job runs, then runs it (scripts/example.sh):
#                                  learn MediaPlayer simulated with real threads, check its stored spec,
#                                  and show an upgrade that fails with a proposal, a diff and pictures
#   scripts/quickstart.sh test     also installs what the tests need (JDK, Node.js), builds everything
#                                  and runs the whole test suite through ctest
# Idempotent; quick when everything is present. BUILD_DIR (default: build) and JOBS may be set.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$here/build}"
jobs="${JOBS:-$(nproc)}"
mode="${1:-example}"
case "$mode" in
    example|test) ;;
    *) echo "usage: scripts/quickstart.sh [example|test]" >&2; exit 2 ;;
esac

# What the main job builds and runs (the libraries, the CLI, examples/timer_service).
packages=(cmake g++ ninja-build pkg-config libgtest-dev libgmock-dev libyaml-cpp-dev libspdlog-dev libtinyxml2-dev
          nlohmann-json3-dev libcli11-dev libcurl4-openssl-dev libboost-dev libsqlite3-dev
          libgraphviz-dev)
# What only the tests need: the JDK and Gson for the JVM agent (device/jvm), JUnit 5 for its JUnit
# integration (typestar-junit.jar, examples/java_junit), and Node.js and npm for the Node device
# agent (device/node): Debian's `nodejs npm`, unless a `node` is already on the machine (e.g. from
# another package source); Mosquitto for the MQTT target (tests/targets/mqtt_test.cpp starts its own
# broker on a free loopback port; the package's system service is not used), and libmosquitto-dev for
# the libmosquitto client learned against it (tests/targets/mosquitto_client_test.cpp); Maven and the
# plugins the JUnit example's pom.xml builds with offline (ctest java_junit_maven_offline).
test_packages=(openjdk-17-jdk-headless libgoogle-gson-java junit5 mosquitto libmosquitto-dev
               maven libsurefire-java libmaven-compiler-plugin-java libmaven-resources-plugin-java
               libmaven-install-plugin-java)
command -v node >/dev/null 2>&1 || test_packages+=(nodejs npm)

install_missing() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "quickstart: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The npm packages of the Node agent, exactly as pinned by device/node/package-lock.json (`npm ci`),
# into device/node/node_modules (not in git). Skipped when the installed tree matches the lockfile.
install_node_modules() {
    local dir="$here/device/node" stamp="$here/device/node/node_modules/.typestar-lock"
    if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then return 0; fi
    echo "quickstart: npm ci in device/node" >&2
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp "$dir/package-lock.json" "$stamp"
}

# Boost 1.81's headers beside the system's 1.74, for the Boost.Asio upgrade check (tests/boost181,
# CMake option TYPESTAR_BOOST181): Debian's libboost1.81-dev, downloaded and unpacked into the build
# tree, never installed. Without them (no network) the check is not registered, with a warning.
fetch_boost181() {
    local dir="$build/boost1.81"
    [ -f "$dir/usr/include/boost/version.hpp" ] && return 0
    local tmp; tmp="$(mktemp -d)"
    chmod 755 "$tmp"  # apt-get download drops privileges to _apt when it can
    if ! (cd "$tmp" && apt-get download -qq libboost1.81-dev >/dev/null 2>&1); then
        local sudo=""
        [ "$(id -u)" -ne 0 ] && sudo="sudo"
        $sudo apt-get update -qq
        if ! (cd "$tmp" && apt-get download -qq libboost1.81-dev >/dev/null 2>&1); then
            echo "quickstart: warning: cannot download libboost1.81-dev; the Boost.Asio 1.81 check is skipped" >&2
            rm -rf "$tmp"
            return 0
        fi
    fi
    rm -rf "$dir.partial" && mkdir -p "$dir.partial"
    dpkg-deb -x "$tmp"/libboost1.81-dev_*.deb "$dir.partial" && rm -rf "$dir" && mv "$dir.partial" "$dir"
    rm -rf "$tmp"
}

# RelWithDebInfo with line-table debug information (-g1: file and line in backtraces, sanitizer
# reports and gdb, no variable information): about a quarter less compile time than -g. A build
# directory of your own (see "Install") keeps CMake's defaults.
configure() {
    local flags="-O2 -g1 -DNDEBUG"
    cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" >/dev/null
}

# The main job builds only what it runs (scripts/example.sh): the CLI and the timer_service example
# (its 1.0 and 2.0 test binaries); `test` builds everything.
example_targets=(typestar timer_service_tests timer_service_v2_tests)

# `test` installed the JDK, Gson, JUnit 5 and Node.js: a test family that the configure step still
# leaves out (a stale CMake cache, a package that did not install) is an error here, never a quiet
# "skipped" that ctest reports as 100% passed.
check_test_families() {
    local cache="$build/CMakeCache.txt" missing=()
    local jvm junit node
    jvm="$(sed -n 's/^TYPESTAR_JVM_SKIP_REASON:INTERNAL=//p' "$cache")"
    junit="$(sed -n 's/^TYPESTAR_JUNIT_SKIP_REASON:INTERNAL=//p' "$cache")"
    node="$(sed -n 's/^TYPESTAR_NODE_EXECUTABLE:FILEPATH=//p' "$cache")"
    [ -n "$jvm" ] && missing+=("the JVM tests ($jvm)")
    [ -z "$jvm" ] && [ -n "$junit" ] && missing+=("the JUnit tests ($junit)")
    case "$node" in ""|*NOTFOUND) missing+=("the Node tests (node not found)") ;; esac
    grep -q '^TYPESTAR_LIBMOSQUITTO_FOUND:INTERNAL=1$' "$cache" ||
        missing+=("the libmosquitto client test (libmosquitto.pc not found)")
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "quickstart: error: the packages for these tests were installed, but the build leaves them out:" >&2
    for m in "${missing[@]}"; do echo "  - $m" >&2; done
    echo "quickstart: reconfigure from scratch (rm -rf $build) or set the options (e.g. -DTYPESTAR_BUILD_JVM=AUTO)" >&2
    exit 1
}

case "$mode" in
    example)
        install_missing
        configure
        cmake --build "$build" -j "$jobs" --target "${example_targets[@]}"
        ;;
    test)
        packages+=("${test_packages[@]}")
        install_missing
        install_node_modules
        fetch_boost181
        configure
        check_test_families
        cmake --build "$build" -j "$jobs"
        ;;
esac

if [ "$mode" = example ]; then
    exec "$here/scripts/example.sh" "$build"
fi
cd "$build"
# mosquitto was installed above: the MQTT tests fail instead of skipping if they cannot find it.
export TYPESTAR_REQUIRE_MQTT=1
exec ctest --output-on-failure -j "$jobs" --timeout 600 ${CTEST_ARGS:-}
