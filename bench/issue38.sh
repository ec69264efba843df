#!/usr/bin/env bash
# Issue 38, "Done when": every figure of the issue's six items beside its anchor or target, in one run.
# Runs the bench programs (nothing re-implemented here), keeps their output and JSON in $OUT, then
# prints one table: item, figure, measured, anchor / target, met?
#
#   bench/issue38.sh [BUILD_DIR]      (from the repository root; BUILD_DIR default: build)
#
# Item 6 runs the device bench twice: the client as built (a loopback agent over the direct socket)
# and with --libcurl (the transport loopback agents had before), both printed.
# Environment: MODELS (default ../shared/bench/models), OUT (default BUILD_DIR/issue38), ANCHOR_BENCH
# (the device bench built at the anchor commit by bench/build_anchor.sh: item 6's anchor is then
# measured in this run, beside today's client, instead of read from the figures recorded on another
# machine).
# Needs the targets typestar_relearn_bench, typestar_lsharp_bench, typestar_learn_bench,
# typestar_ra_bench and typestar_device_bench built. A program that exits non-zero (a model not
# learned exactly, a target missed) does not stop the run: its figures are still read, and the
# table says what is missed. Exit status: 0 when every figure is met, 1 otherwise, 2 when a
# program's figures could not be read.
set -u
BUILD=${1:-build}
MODELS=${MODELS:-../shared/bench/models}
OUT=${OUT:-$BUILD/issue38}
BIN=$BUILD/bench
mkdir -p "$OUT"

run() {  # name, command...: stdout/stderr to $OUT/name.{txt,err}, wall time on stderr
    local name=$1 start end rc
    shift
    start=$(date +%s)
    "$@" >"$OUT/$name.txt" 2>"$OUT/$name.err"
    rc=$?
    end=$(date +%s)
    echo "$name: exit $rc, $((end - start)) s wall: $*" >&2
}

all_start=$(date +%s)
# item 1: the 19 one-transition upgrades re-learned seeded with the original
run relearn "$BIN/typestar_relearn_bench" --models "$MODELS" --groups upgrades --json "$OUT/relearn.json"
# item 2: L# on the 26 AALpy models with a perfect oracle, beside AALpy's default and best rule pair
run lsharp "$BIN/typestar_lsharp_bench" --models "$MODELS" --skip-random --json "$OUT/lsharp.json"
# item 3: the flake policy's verification on the 16 DroidStar stand-ins: as model devices (they declare
# themselves deterministic) and behind a wrapper that does not declare it (devices that may flake)
run learn "$BIN/typestar_learn_bench" --models "$MODELS" --groups droidstar,droidstar_may_flake --skip-random \
    --json "$OUT/learn.json"
# items 4 and 5: the symbolic register-automaton suites; RALib's learning-test targets
run ra "$BIN/typestar_ra_bench" --models "$MODELS/ralib" --budget 300000 --certify --json "$OUT/ra.json"
# item 6: the client's CPU per query and per symbol against a no-op agent
run device "$BIN/typestar_device_bench" --client-cpu-only --json "$OUT/device.json"
# the same client with libcurl for loopback agents too (HttpConfig::direct_loopback = false): the
# anchor of the rows the anchor commit's bench does not have (broker-run, broker-step)
run device_libcurl "$BIN/typestar_device_bench" --client-cpu-only --libcurl --json "$OUT/device_libcurl.json"
if [ -n "${ANCHOR_BENCH:-}" ]; then
    run device_anchor "$ANCHOR_BENCH" --client-cpu-only --json "$OUT/device_anchor.json"
else
    rm -f "$OUT/device_anchor.json"
fi
all_end=$(date +%s)

python3 - "$OUT" "$((all_end - all_start))" <<'EOF'
import json, re, sys
out, wall = sys.argv[1], sys.argv[2]
rows, broken = [], []

def load(name):
    try:
        with open(f"{out}/{name}.json") as f:
            return json.load(f)
    except Exception as e:  # the program failed before writing its JSON
        broken.append(f"{name}.json: {e}")
        return None

def row(item, figure, measured, anchor, met):
    rows.append((item, figure, measured, anchor, "yes" if met else "NO"))

r = load("relearn")
if r:
    t = r["upgrades_total"]
    p, aalpy = t["perfect_seeded"], t["aalpy_adaptive"]
    row(1, "upgrades, learn --from (perfect oracle): equivalence rounds", p["rounds"],
        f"≤ 22 (AALpy adaptive L#: {aalpy['rounds']})", p["rounds"] <= 22)
    row(1, "upgrades, learn --from (perfect oracle): learning queries", p["learning_queries_executed"],
        "≤ 2,257 (before)", p["learning_queries_executed"] <= 2257)
    for key, what in (("default_seeded", "--from"), ("default_proposal", "proposal")):
        row(1, f"upgrades, Algorithm 2 as the oracle ({what}): rounds", t[key]["rounds"], "≤ 22",
            t[key]["rounds"] <= 22)
    row(1, "upgrades, Algorithm 2 as the oracle (proposal): queries / scratch",
        f"{t['default_proposal_ratio']:.3f}", "≤ 0.5", t["default_proposal_ratio"] <= 0.5)
    row(1, "upgrades, Algorithm 2 as the oracle (--from): queries / scratch",
        f"{t['default_from_ratio']:.3f}", "≤ 0.5", t["default_from_ratio"] <= 0.5)
    if "default_unchanged_ratio" in t:  # not a target: the floor the ratio above cannot go below
        u = t["default_unchanged"]["queries_executed"]
        rows.append((1, "  (--from's floor: seeded with the upgrade itself, nothing changed) / scratch",
                     f"{t['default_unchanged_ratio']:.3f}",
                     f"--from = {t['default_seeded']['queries_executed'] / u:.3f} × the floor" if u else "", "info"))

r = load("lsharp")
if r:
    t, tg = r["aalpy_vs_anchor_totals"], r["targets"]
    row(2, f"L# resets, {t['models']} AALpy models (perfect oracle)", t["lsharp_resets"],
        f"≤ {tg['issue38_resets']} (0.80 × AALpy default {t['aalpy_lsharp_resets']})",
        t["lsharp_resets"] <= tg["issue38_resets"])
    row(2, "L# input symbols, same", t["lsharp_symbols"],
        f"≤ {tg['issue38_symbols']} (AALpy best rule pair)", t["lsharp_symbols"] <= tg["issue38_symbols"])
    within = t.get("models_within_best_pair", 0)
    row(2, "models with resets ≤ 1.10 × the best rule pair's", f"{within} of {t['models']}", f"{t['models']} of {t['models']}",
        within == t["models"])
    inexact = [x["model"] for x in r.get("rows", []) if x.get("group") == "aalpy" and not x.get("exact", False)]
    row(2, "AALpy models learned exactly (L# and L*)", f"{len(inexact)} inexact", "0", not inexact)

r = load("learn")
if r:
    for key, what in (("droidstar_alg2", "model devices, declared deterministic"),
                      ("droidstar_alg2_may_flake", "devices that may flake")):
        t = r["totals"][key]
        floor = t.get("alg2_floor_queries_executed", 0)
        ratio = t["verification_queries_executed"] / floor if floor else float("inf")
        row(3, f"flake-policy verification / Algorithm 2 suite floor, {t['models']} DroidStar stand-ins ({what})",
            f"{t['verification_queries_executed']} / {floor} = {ratio:.3f}", "≤ 0.15", ratio <= 0.15)
        row(3, f"same ({what}): stand-ins learned exactly", f"{t['exact']} of {t['models']}", f"{t['models']}",
            t["exact"] == t["models"])

# item 4: the ra bench's symbolic-suite table (markdown on its stdout)
try:
    text = open(f"{out}/ra.txt").read()
    section = text.split("Symbolic register-automaton suites", 1)[1]
    found = 0
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 8 or not (cells[0].startswith("check") or cells[0].startswith("learning")):
            continue
        found += 1
        what, verdict, cpu, rss, target = cells[0], cells[1], float(cells[4]), float(cells[5]), cells[6]
        if what.startswith("learning"):
            met = verdict.startswith("learned exactly")
        elif "< 5 s" in target:
            met = verdict == "conforms" and cpu < 5
        else:
            met = verdict == "conforms" and cpu <= 60 and rss <= 1024
        row(4, what.replace("`", ""), f"{verdict[:60]}; {cpu:.2f} s, {rss:.0f} MB peak", f"{target} (before: {cells[7]})", met)
    if found == 0:
        broken.append("ra.txt: no symbolic-suite rows")
except Exception as e:
    broken.append(f"ra.txt: {e}")

r = load("ra")
if r:
    for t in (x for x in r if x.get("section") == "ralib_learning_tests"):
        n = len(t["seeds"])
        row(5, f"{t['target']}: SL* tree queries (mean of {n} seed{'s' if n > 1 else ''})", f"{t['mean_tree_queries']:.1f}",
            f"≤ {t['target_tree_queries']:.0f} (RALib SL*: {t['ralib_sl_star']})", t["mean_tree_queries"] <= t["target_tree_queries"])
        row(5, f"{t['target']}: resets (mean of {n})", f"{t['mean_resets']:.1f}",
            f"≤ {t['target_resets']:.0f} (RALib SLλ: {t['ralib_sl_lambda']})", t["mean_resets"] <= t["target_resets"])
        row(5, f"{t['target']}: learned exactly (every seed)", "yes" if t["exact"] else "no", "yes", t["exact"])

r = load("device")
measured_anchor = {}  # path -> the anchor's client figures measured in this run (ANCHOR_BENCH)
try:
    with open(f"{out}/device_anchor.json") as f:
        measured_anchor = {c["path"]: c for c in json.load(f)["client_cpu"]}
except FileNotFoundError:
    pass
libcurl = {c["path"]: c for c in (load("device_libcurl") or {}).get("client_cpu", [])}
if r:
    for c in r["client_cpu"]:
        # `override` went step by step at the anchor; the broker paths did not exist there.
        a = measured_anchor.get("step" if c["path"] == "override" else c["path"])
        l = libcurl.get(c["path"])
        if a:
            target = a["client_us_per_query"] / 2
            anchor = (f"≤ {target:.1f} per query (half of {a['client_us_per_query']:.1f} / "
                      f"{a['client_us_per_symbol']:.1f} measured in this run at {c['anchor_commit']})")
        elif l:
            target = l["client_us_per_query"] / 2
            anchor = (f"≤ {target:.1f} per query (half of {l['client_us_per_query']:.1f} / "
                      f"{l['client_us_per_symbol']:.1f} measured in this run with libcurl, as before the direct socket)")
        else:
            target = c["target_us_per_query"]
            anchor = (f"≤ {target:.1f} per query (half of {c['anchor_us_per_query']:.1f} / "
                      f"{c['anchor_us_per_symbol']:.1f} recorded at {c['anchor_commit']} on another machine)")
        row(6, f"client CPU over HTTP, no-op agent, path {c['path']} (µs per query / per symbol)",
            f"{c['client_us_per_query']:.1f} / {c['client_us_per_symbol']:.1f}" +
            (f" (libcurl in this run: {l['client_us_per_query']:.1f} / {l['client_us_per_symbol']:.1f})" if l else ""),
            anchor,
            c["client_us_per_query"] <= target)

print(f"\nIssue 38 summary ({wall} s wall for the five programs; outputs in {out}/)\n")
print("| item | figure | measured | anchor / target | met? |")
print("|---|---|---|---|---|")
for r_ in rows:
    print("| " + " | ".join(str(c) for c in r_) + " |")
for b in broken:
    print(f"NOT READ: {b}")
figures = [r_ for r_ in rows if r_[4] != "info"]  # "info" rows explain a figure; they are no target
missed = sum(1 for r_ in figures if r_[4] != "yes")
print(f"\n{len(figures) - missed} of {len(figures)} figures met.")
sys.exit(2 if broken else (1 if missed else 0))
EOF
