#!/usr/bin/env bash
# Regenerates what docs/upgrades/ reports for the npm upgrades: learns the older versions' specs
# (specs/node/*.yaml), checks each newer version against them, learns the proposed specs seeded with
# the old ones (docs/upgrades/specs/), and writes the `typestar diff`s (docs/upgrades/diffs/).
# Needs a build (BUILD_DIR, default build) and `npm ci` in device/node. The agents listen on fixed
# loopback ports (8765, 8766) so the specs' provenance is the same in every run.
#   bash docs/upgrades/regenerate.sh [--specs]   (--specs: also relearn specs/node/*.yaml)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
typestar="${BUILD_DIR:-$here/build}/src/cli/typestar"
export TYPESTAR_DEVICE_TOKEN="${TYPESTAR_DEVICE_TOKEN:-regenerate-$$}"
pid=""
start() {  # start PURPOSE PORT: serves it until stop
    local log; log="$(mktemp)"
    timeout 900 node "$here/device/node/agent.js" --purpose "$1" --port "$2" >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do grep -q "serving" "$log" && break; sleep 0.1; done
    grep -q "serving" "$log" || { cat "$log" >&2; exit 1; }
    rm -f "$log"
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null || true' EXIT

if [ "${1:-}" = "--specs" ]; then
    # Readable needs B = 3: its B = 2 spec fails a B = 3 suite (docs/upgrades/readable_stream.md).
    start readable-stream-2 8765; "$typestar" learn --device http://127.0.0.1:8765 --bound 3 --out "$here/specs/node/readable_stream.yaml"; stop
    start ws-7 8765; "$typestar" learn --device http://127.0.0.1:8765 --out "$here/specs/node/ws.yaml"; stop
    start net-socket 8765; "$typestar" learn --device http://127.0.0.1:8765 --out "$here/specs/node/net_socket.yaml"; stop
fi

mkdir -p "$here/docs/upgrades/specs" "$here/docs/upgrades/diffs"
upgrade() {  # upgrade OLD_SPEC PURPOSE NEW_SPEC DIFF BOUND
    start "$2" 8766
    "$typestar" check "$1" --device http://127.0.0.1:8766 || true
    "$typestar" learn --from "$1" --bound "$5" --device http://127.0.0.1:8766 --out "$3"
    stop
    "$typestar" diff "$1" "$3" >"$4" || true
}
cd "$here"
upgrade specs/node/readable_stream.yaml readable-stream-3 docs/upgrades/specs/readable_stream-3.6.2.yaml \
        docs/upgrades/diffs/readable_stream-2.3.8-to-3.6.2.md 3
upgrade specs/node/readable_stream.yaml readable-stream-4 docs/upgrades/specs/readable_stream-4.5.2.yaml \
        docs/upgrades/diffs/readable_stream-2.3.8-to-4.5.2.md 3
upgrade docs/upgrades/specs/readable_stream-3.6.2.yaml readable-stream-4 /tmp/typestar-rs-3-to-4.yaml \
        docs/upgrades/diffs/readable_stream-3.6.2-to-4.5.2.md 3
upgrade specs/node/ws.yaml ws-8 docs/upgrades/specs/ws-8.18.0.yaml docs/upgrades/diffs/ws-7.5.10-to-8.18.0.md 2
