#!/bin/sh
# Learns the JVM targets from scratch with the CLI, RUNS times each, checks that the runs are
# byte-identical, and (with --write) replaces specs/targets/java_*.yaml. Fixed ports, so the specs'
# provenance (the device URL) is the same every time.
#   tests/jvm/learn.sh BUILD_DIR [RUNS] [--write]
set -eu
build=$1
runs=${2:-3}
write=${3:-}
here=$(cd "$(dirname "$0")/../.." && pwd)
jar="$build/device/jvm/typestar-agent.jar"
typestar="$build/src/cli/typestar"
work=$(mktemp -d)
trap 'for f in "$work"/*.pid; do [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; rm -rf "$work"' EXIT
export TYPESTAR_DEVICE_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
for entry in java_timer:18761:TimerPurpose java_future:18762:CompletableFuturePurpose \
             java_signature:18764:SignaturePurpose java_piped:18765:PipedStreamPurpose \
             java_watch:18766:WatchServicePurpose; do
  name=${entry%%:*}; rest=${entry#*:}; port=${rest%%:*}; purpose=typestar.jdk.${rest#*:}
  java -jar "$jar" --class-purpose "$purpose" --port "$port" > "$work/$name.out" 2>&1 &
  echo $! > "$work/$name.pid"
  until grep -q http:// "$work/$name.out" 2>/dev/null; do
    if ! kill -0 "$(cat "$work/$name.pid")" 2>/dev/null; then
      echo "learn.sh: the agent for $name did not start (port $port taken?):" >&2
      cat "$work/$name.out" >&2
      exit 1
    fi
    sleep 0.1
  done
  run=1
  while [ $run -le "$runs" ]; do
    "$typestar" learn --device "http://127.0.0.1:$port" --out "$work/$name.$run.yaml" 2>&1 | grep learned
    cmp "$work/$name.1.yaml" "$work/$name.$run.yaml"
    run=$((run + 1))
  done
  echo "$name: $runs runs byte-identical"
  if [ "$write" = --write ]; then cp "$work/$name.1.yaml" "$here/specs/targets/$name.yaml"; fi
  cmp "$work/$name.1.yaml" "$here/specs/targets/$name.yaml" && echo "$name: equal to the committed spec"
done
