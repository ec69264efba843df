#!/usr/bin/env bash
# The main job of the quick start, on real classes (not simulations of the specs they are checked
# against):
#   1. learn Android's MediaPlayer as simulated with real threads and delays (inproc:mediaplayer),
#      print the learned typestate, its statistics and the assumptions it relies on;
#   2. check the stored spec specs/mediaplayer.yaml against that class and diff stored vs learned;
#   3. run the GoogleTest suite of an example class (examples/timer_service) against its stored
#      spec, then against its upgraded 2.0 version: the suite fails at the transition that changed
#      and proposes the new spec, with the diff and the pictures written next to it.
# Usage: scripts/example.sh BUILD_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
typestar="$build/src/cli/typestar"
out="$build/example"
mkdir -p "$out"
export SPDLOG_LEVEL="${SPDLOG_LEVEL:-info}"

echo "== typestar validate specs/*.yaml"
"$typestar" validate "$here"/specs/*.yaml

echo
echo "== typestar learn --device inproc:mediaplayer (L#, DroidStar Algorithm 2, B=2; real threads and delays)"
"$typestar" learn --device inproc:mediaplayer --bound 2 --equivalence alg2 \
    --out "$out/MediaPlayer.yaml" --stats "$out/MediaPlayer.stats.json"
echo
echo "-- learned typestate ($out/MediaPlayer.yaml):"
cat "$out/MediaPlayer.yaml"
echo
echo "-- query statistics ($out/MediaPlayer.stats.json):"
cat "$out/MediaPlayer.stats.json"
if "$typestar" export "$out/MediaPlayer.yaml" --format svg -o "$out/MediaPlayer.svg" 2>/dev/null; then
    echo "-- picture: $out/MediaPlayer.svg"
else
    "$typestar" export "$out/MediaPlayer.yaml" --format dot -o "$out/MediaPlayer.dot"
    echo "-- picture: $out/MediaPlayer.dot"
fi

echo
echo "== typestar check specs/mediaplayer.yaml --device inproc:mediaplayer (Algorithm 2, B=2)"
"$typestar" check "$here/specs/mediaplayer.yaml" --device inproc:mediaplayer --bound 2

echo
echo "== typestar diff specs/mediaplayer.yaml (stored) vs the learned spec"
"$typestar" diff "$here/specs/mediaplayer.yaml" "$out/MediaPlayer.yaml" --picture "$out/MediaPlayer.diff.svg" \
    2>/dev/null || "$typestar" diff "$here/specs/mediaplayer.yaml" "$out/MediaPlayer.yaml" || true

timer="$build/examples/timer_service"
if [ -x "$timer/timer_service_tests" ] && [ -x "$timer/timer_service_v2_tests" ]; then
    echo
    echo "== examples/timer_service: TimerService 1.0 against its spec (one gtest test per transition)"
    "$timer/timer_service_tests" --gtest_brief=1
    echo
    echo "== the same spec against TimerService 2.0 (the upgrade): expected to fail and propose the new spec"
    # The 2.0 binary checks a copy of the 1.0 spec in $timer/upgrade/ and writes its proposal there.
    env -u CI -u TYPESTAR_UPDATE "$timer/timer_service_v2_tests" --gtest_brief=1 ||
        echo "(failed as expected: TimerService 2.0 changed its protocol; the proposal and its diff are above)"
    echo "-- written next to the stored spec:"
    ls "$timer"/upgrade/ | sed 's/^/   /' || true
fi
