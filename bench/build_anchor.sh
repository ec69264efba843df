#!/usr/bin/env bash
# Builds the device bench at commit 71c764e (the client-CPU bench over the library at cb6a7de: the
# anchor of issue 38 item 6) in a worktree, so that bench/issue38.sh measures the anchor and today's
# client side by side, on the same machine, in the same run (ANCHOR_BENCH).
#
#   bench/build_anchor.sh [DIR]      (from the repository root; DIR default: ../typestar-anchor-71c764e)
#
# Prints the path of the anchor's typestar_device_bench. Takes ~6 minutes on 2 cores (92 targets).
set -eu
DIR=${1:-../typestar-anchor-71c764e}
COMMIT=71c764e
if [ ! -d "$DIR" ]; then git worktree add --detach "$DIR" "$COMMIT" >&2; fi
cmake -S "$DIR" -B "$DIR/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTYPESTAR_BUILD_TESTS=OFF \
    -DTYPESTAR_BUILD_EXAMPLES=OFF -DTYPESTAR_BUILD_TARGETS=OFF -DTYPESTAR_BUILD_AGENT=OFF -DTYPESTAR_BUILD_CLI=OFF >&2
ninja -C "$DIR/build" typestar_device_bench >&2
echo "$(cd "$DIR/build/bench" && pwd)/typestar_device_bench"
