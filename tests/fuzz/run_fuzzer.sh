#!/bin/sh
# run_fuzzer.sh SECONDS FUZZER [libFuzzer arguments and corpus directories...]
# Runs a libFuzzer binary for TYPESTAR_FUZZ_SECONDS seconds when that variable is set, else for
# SECONDS (the configured default): `TYPESTAR_FUZZ_SECONDS=600 ctest -L fuzz` fuzzes 10 minutes each.
seconds=${TYPESTAR_FUZZ_SECONDS:-$1}
fuzzer=$2
shift 2
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$@"
