#!/usr/bin/env bash
# Learning and checking the bundled simulated classes on a busy machine (issue 37): starts N busy
# loops (bounded in time, killed at exit), then learns each class R times with
# `typestar learn --device inproc:NAME` and compares every result with the class's committed spec
# (`typestar diff`), and checks that spec R times (`typestar check`). Prints one row per class:
#   correct    the learned spec is the committed one / the check passed
#   timing     the run ended in a timing error (the timing broke on every re-run): no spec, no verdict
#   wrong      a different spec was written, or the check failed (a false failure)
#   other      any other error (e.g. non-determinism)
#   retries    runs repeated past a late callback, summed over the runs (from --stats)
# With -T, the real targets (Boost.Asio steady_timer, TCP socket, SQLite) too: each run learns them with
# `typestar_learn_targets --check` (the committed specs/targets/*.yaml by behaviour, except where
# docs/targets/NAME_defaults.yaml holds what today's defaults learn beyond the committed bound: the TCP
# socket's 60 states) and checks the committed specs with the plugin's `targets_conformance_tests`
# binary (rows `targets`); -g names the targets (default: all three), e.g. -g "steady_timer sqlite".
# Each run's result is also printed on stderr as it ends (`load_bench: run ...`), so a bench stopped
# early still shows what it measured.
# Usage: scripts/load_bench.sh [-n LOOPS] [-r RUNS] [-c "class ..."] [-t TYPESTAR] [-x "extra learn/check args"]
#                              [-l NICE] [-u NICE] [-T] [-g "target ..."]
#   LOOPS busy loops (default 4); RUNS per class (default 3). The loops run at nice -l (default 0), the
#   runs at nice -u (default 0): equal priority by default; `-u 19` puts the load at a higher priority.
# Exit 0 when no run was wrong (timing errors are honest failures, not wrong answers), 1 otherwise.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
loops=4
runs=3
classes="asynctask countdowntimer mediaplayer sqliteopenhelper speechrecognizer"
typestar="${TYPESTAR:-$here/build/src/cli/typestar}"
extra=""
loop_nice=0
run_nice=0
real_targets=0
targets=""
while getopts "n:r:c:t:x:l:u:Tg:" opt; do
    case "$opt" in
        n) loops="$OPTARG" ;;
        r) runs="$OPTARG" ;;
        c) classes="$OPTARG" ;;
        t) typestar="$OPTARG" ;;
        x) extra="$OPTARG" ;;
        l) loop_nice="$OPTARG" ;;
        u) run_nice="$OPTARG" ;;
        T) real_targets=1 ;;
        g) targets="$OPTARG" ;;
        *) sed -n '2,22p' "$0" >&2; exit 2 ;;
    esac
done
if [[ ! -x "$typestar" ]]; then
    echo "load_bench: no typestar binary at $typestar (build the typestar target, or pass -t)" >&2
    exit 2
fi

work="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # stop the runs too (EXIT then cleans up): no row from a killed run

# Busy loops: each spins for at most three hours (bounded even if this script is killed hard).
for ((i = 0; i < loops; ++i)); do
    nice -n "$loop_nice" timeout 10800 bash -c 'while :; do :; done' &
    pids+=("$!")
done

# What a TimingError says in any front end (core/error.hpp kinds: late, queued, early callbacks).
# One line per finished run on stderr, so a bench stopped early still shows what it measured.
ran() { echo "load_bench: run $1 $2 $3: $4 ($(date +%T))" >&2; }
timing_text='a timing assumption of the class\|the timing broke on each of\|tmax too small\|still queued\|tmin violated\|later than tmax\|a timing failure of the device'
start=$(date +%s)
printf '%-18s %-6s %8s %7s %6s %6s %8s\n' class phase correct timing wrong other retries
total_wrong=0
for c in $classes; do
    spec="$here/specs/$c.yaml"
    for phase in learn check; do
        correct=0 timing=0 wrong=0 other=0 retries=0
        for ((r = 0; r < runs; ++r)); do
            out="$work/$c.$phase.$r"
            if [[ "$phase" == learn ]]; then
                # shellcheck disable=SC2086
                nice -n "$run_nice" "$typestar" learn --device "inproc:$c" --out "$out.yaml" --stats "$out.json" $extra \
                    >"$out.stdout" 2>"$out.stderr"
                code=$?
                if [[ -f "$out.json" ]]; then
                    n=$(sed -n 's/.*"timing_retries": *\([0-9]*\).*/\1/p' "$out.json" | head -1)
                    retries=$((retries + ${n:-0}))
                fi
                if [[ $code -eq 0 ]]; then
                    if "$typestar" diff "$spec" "$out.yaml" >"$out.diff" 2>&1; then
                        correct=$((correct + 1)); ran "$c" "$phase" "$r" correct
                    else
                        wrong=$((wrong + 1)); ran "$c" "$phase" "$r" wrong
                        echo "load_bench: WRONG spec from learning $c (run $r): $out.diff" >&2
                        cat "$out.diff" >&2
                    fi
                    continue
                fi
            else
                # shellcheck disable=SC2086
                nice -n "$run_nice" "$typestar" check "$spec" --device "inproc:$c" $extra >"$out.stdout" 2>"$out.stderr"
                code=$?
                n=$(sed -n 's/.*, \([0-9]*\) timing retr.*/\1/p' "$out.stderr" | head -1)
                retries=$((retries + ${n:-0}))
                if [[ $code -eq 0 ]]; then
                    correct=$((correct + 1)); ran "$c" "$phase" "$r" correct
                    continue
                fi
                if [[ $code -eq 1 ]]; then
                    wrong=$((wrong + 1)); ran "$c" "$phase" "$r" wrong
                    echo "load_bench: FALSE FAILURE checking $c (run $r):" >&2
                    cat "$out.stdout" >&2
                    continue
                fi
            fi
            if grep -q "$timing_text" "$out.stderr"; then
                timing=$((timing + 1)); ran "$c" "$phase" "$r" timing
            else
                other=$((other + 1)); ran "$c" "$phase" "$r" other
                echo "load_bench: $phase $c (run $r) ended: $(tail -1 "$out.stderr")" >&2
            fi
        done
        total_wrong=$((total_wrong + wrong))
        printf '%-18s %-6s %8s %7s %6s %6s %8s\n' "$c" "$phase" "$correct/$runs" "$timing" "$wrong" "$other" "$retries"
    done
done
if [[ $real_targets -eq 1 ]]; then
    learn_targets="$here/build/src/targets/typestar_learn_targets"
    check_targets="$here/build/tests/targets/targets_conformance_tests"
    for b in "$learn_targets" "$check_targets"; do
        [[ -x "$b" ]] || { echo "load_bench: -T needs $b (build it)" >&2; exit 2; }
    done
    expected="$work/expected-targets"
    mkdir -p "$expected"
    cp "$here"/specs/targets/*.yaml "$expected/"
    for d in "$here"/docs/targets/*_defaults.yaml; do
        [[ -f "$d" ]] && cp "$d" "$expected/$(basename "$d" _defaults.yaml).yaml"
    done
    filter="*"  # the check's tests of the -g targets (one gtest suite per target)
    [[ -n "$targets" ]] && filter="$(for t in $targets; do printf '%s.*:' "$t"; done)"
    for phase in learn check; do
        correct=0 timing=0 wrong=0 other=0
        for ((r = 0; r < runs; ++r)); do
            out="$work/targets.$phase.$r"
            if [[ "$phase" == learn ]]; then
                # shellcheck disable=SC2086
                nice -n "$run_nice" "$learn_targets" --runs 1 --check --spec-dir "$expected" $targets \
                    >"$out.stdout" 2>"$out.stderr"
            else
                nice -n "$run_nice" "$check_targets" --gtest_filter="$filter" >"$out.stdout" 2>"$out.stderr"
            fi
            code=$?
            if [[ $code -eq 0 ]]; then
                correct=$((correct + 1)); ran targets "$phase" "$r" correct
            elif grep -q "$timing_text" "$out.stdout" "$out.stderr"; then
                timing=$((timing + 1)); ran targets "$phase" "$r" timing
            elif [[ $code -eq 1 ]] && ! grep -q "not deterministic\|failed:" "$out.stdout" "$out.stderr"; then
                wrong=$((wrong + 1)); ran targets "$phase" "$r" wrong
                echo "load_bench: WRONG answer in targets $phase (run $r):" >&2
                grep -E "DIFFERS|Failure|typestar:" "$out.stdout" | head -20 >&2
            else
                other=$((other + 1)); ran targets "$phase" "$r" other
                echo "load_bench: targets $phase (run $r) ended (exit $code): $(grep -h -m1 -iE 'non-determinism|error|Failure' "$out.stdout" "$out.stderr" | head -1)" >&2
            fi
        done
        total_wrong=$((total_wrong + wrong))
        printf '%-18s %-6s %8s %7s %6s %6s %8s\n' targets "$phase" "$correct/$runs" "$timing" "$wrong" "$other" "-"
    done
fi
echo "load_bench: $loops busy loop(s) at nice $loop_nice, runs at nice $run_nice, $runs run(s) per class and phase, $(( $(date +%s) - start )) s"
[[ $total_wrong -eq 0 ]]
