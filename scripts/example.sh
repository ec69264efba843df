#!/usr/bin/env bash
# The main job of the quick start: learn the bundled AsyncTask example from a model device (a
# simulation of specs/asynctask.yaml), print the learned typestate and its query statistics, then
# check the stored spec against the device and compare the two. Usage: scripts/example.sh BUILD_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
typestar="$build/src/cli/typestar"
out="$build/example"
mkdir -p "$out"

echo "== typestar validate specs/*.yaml"
"$typestar" validate "$here"/specs/*.yaml

echo
echo "== typestar learn --device model:specs/asynctask.yaml (L*, Algorithm 2, B=2)"
"$typestar" learn --device "model:$here/specs/asynctask.yaml" --bound 2 --equivalence alg2 \
    --out "$out/AsyncTask.yaml" --stats "$out/AsyncTask.stats.json"
echo
echo "-- learned typestate ($out/AsyncTask.yaml):"
cat "$out/AsyncTask.yaml"
echo
echo "-- query statistics ($out/AsyncTask.stats.json):"
cat "$out/AsyncTask.stats.json"
echo
"$typestar" export "$out/AsyncTask.yaml" --format dot -o "$out/AsyncTask.dot"
echo "-- picture: $out/AsyncTask.dot (render with: dot -Tsvg $out/AsyncTask.dot)"

echo
echo "== typestar check specs/asynctask.yaml against the device (Algorithm 2, B=2)"
"$typestar" check "$here/specs/asynctask.yaml" --device "model:$here/specs/asynctask.yaml" --bound 2

echo
echo "== typestar diff specs/asynctask.yaml (stored) vs the learned spec"
"$typestar" diff "$here/specs/asynctask.yaml" "$out/AsyncTask.yaml"
