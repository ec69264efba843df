#!/usr/bin/env python3
"""Mutation testing for typestar: apply single source mutations one at a time, rebuild, run the
relevant tests, and report which mutations the tests kill. See docs/mutation-testing.md.

Each mutation replaces one exact piece of text in one file. By default the mutations run in a
scratch copy of the source tree (never in your checkout), built once and then incrementally. With
--in-place they run in your checkout and its existing build directory (much faster when that build
is warm); a file with uncommitted changes is refused, and the pristine bytes are written back after
each mutation whatever happened (failure, timeout, Ctrl-C, SIGTERM), atomically and with signals
held off, and the mutation's targets are rebuilt so that no later test runs a mutated binary.

    scripts/mutate.py tests/mutation/mutations.txt              # every mutation
    scripts/mutate.py tests/mutation/mutations.txt -k core-     # names containing "core-"
    scripts/mutate.py LIST --report out.md --json out.json      # also write the table
    scripts/mutate.py LIST --in-place --build build             # in the checkout, warm build

Exit status: 0 when every applicable mutation was killed, 1 when some survived, 2 on a usage error,
a broken baseline (the unmutated tests fail) or a mutation whose original text is not found once.
"""
import argparse
import configparser
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def unescape(text):
    """The list's values are single lines: `\\n` is a newline, `\\t` a tab, `\\\\` a backslash."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append({"n": "\n", "t": "\t", "\\": "\\"}.get(nxt, "\\" + nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def load_mutations(path):
    parser = configparser.ConfigParser(interpolation=None, default_section="defaults")
    parser.optionxform = str  # keep keys as written
    with open(path, encoding="utf-8") as f:
        parser.read_file(f)
    mutations = []
    for name in parser.sections():
        s = parser[name]
        missing = [k for k in ("file", "original", "replacement", "targets", "tests") if k not in s]
        if missing:
            raise SystemExit(f"{path}: mutation [{name}] lacks {', '.join(missing)}")
        mutations.append({
            "name": name,
            "file": s["file"],
            "original": unescape(s["original"]),
            "replacement": unescape(s["replacement"]),
            "targets": s["targets"].split(),
            "tests": s["tests"],
            "note": s.get("note", ""),
        })
    return mutations


def run(cmd, cwd, timeout, log, memory_mb=0):
    """Runs `cmd`; with `memory_mb`, each process it starts gets that much address space at most (a
    mutant that loops while allocating fails fast instead of taking the machine's memory)."""
    def limit():
        if memory_mb:
            size = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                           text=True, errors="replace", preexec_fn=limit)
        code, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        code, out = None, (e.stdout or "") if isinstance(e.stdout, str) else ""
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"$ {' '.join(cmd)}\n{out}\n[exit {code}, {time.monotonic() - start:.1f} s]\n")
    return code, out


def failed_tests(ctest_output):
    """Names of the failed tests in ctest's summary."""
    names, in_summary = [], False
    for line in ctest_output.splitlines():
        if "The following tests FAILED" in line:
            in_summary = True
            continue
        if in_summary:
            parts = line.strip().split(" - ", 1)
            if len(parts) == 2:
                names.append(parts[1].split(" (")[0])
    return names


def sync_tree(work):
    """Copy the checkout (sources only) into work/src; files whose bytes are equal are left alone
    so that their timestamps, and the incremental build, survive."""
    src = os.path.join(work, "src")
    skip_dirs = {".git", "build", "node_modules"}
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        dirnames[:] = [d for d in dirnames if d not in skip_dirs and not d.startswith("build")]
        os.makedirs(os.path.join(src, rel), exist_ok=True)
        for name in filenames:
            a, b = os.path.join(dirpath, name), os.path.join(src, rel, name)
            if os.path.islink(a):
                continue
            if os.path.exists(b):
                with open(a, "rb") as fa, open(b, "rb") as fb:
                    if fa.read() == fb.read():
                        continue
            shutil.copy2(a, b)
    return src


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("list", help="mutation list (INI sections, see docs/mutation-testing.md)")
    ap.add_argument("-k", "--filter", action="append", default=[],
                    help="only mutations whose name contains this (repeatable: any of them)")
    ap.add_argument("--work", default=os.environ.get("TYPESTAR_MUTATE_DIR", "/tmp/typestar-mutate"),
                    help="scratch directory: a copy of the sources and its build (default %(default)s)")
    ap.add_argument("--in-place", action="store_true",
                    help="mutate the checkout itself (clean files only) and build in --build")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="with --in-place: the configured build directory (default %(default)s)")
    ap.add_argument("-j", "--jobs", default="2", help="ninja -j (default %(default)s)")
    ap.add_argument("--build-timeout", type=int, default=1800, help="seconds per build")
    ap.add_argument("--test-timeout", type=int, default=600, help="seconds per ctest run")
    ap.add_argument("--per-test-timeout", type=int, default=120, help="seconds per test (ctest --timeout)")
    ap.add_argument("--memory-mb", type=int, default=4096,
                    help="address space per test process in MB, 0 for no limit (default %(default)s)")
    ap.add_argument("--report", help="write the kill table as Markdown here")
    ap.add_argument("--json", help="write the results as JSON here")
    args = ap.parse_args()

    mutations = [m for m in load_mutations(args.list)
                 if not args.filter or any(k in m["name"] for k in args.filter)]
    if not mutations:
        print("no mutation selected", file=sys.stderr)
        return 2
    os.makedirs(args.work, exist_ok=True)
    log = os.path.join(args.work, "mutate.log")
    open(log, "w").close()
    # SIGTERM/SIGHUP unwind like Ctrl-C, so that the `finally` below restores the mutated file.
    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)
    if args.in_place:
        src, build = ROOT, os.path.abspath(args.build)
        dirty = subprocess.run(["git", "status", "--porcelain", "--"] + sorted({m["file"] for m in mutations}),
                               cwd=ROOT, stdout=subprocess.PIPE, text=True).stdout.strip()
        if dirty:
            print(f"--in-place refuses files with uncommitted changes:\n{dirty}", file=sys.stderr)
            return 2
        if not os.path.exists(os.path.join(build, "build.ninja")):
            print(f"--in-place: {build} is not a configured build directory", file=sys.stderr)
            return 2
    else:
        src = sync_tree(args.work)
        build = os.path.join(args.work, "build")
    if not os.path.exists(os.path.join(build, "build.ninja")):
        launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
        code, out = run(["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
                        + launcher, ROOT, args.build_timeout, log)
        if code != 0:
            print(f"cmake failed, see {log}", file=sys.stderr)
            return 2

    # Every mutation must apply exactly once, to a pristine file.
    pristine = {}
    for m in mutations:
        path = os.path.join(src, m["file"])
        if m["file"] not in pristine:
            if not os.path.exists(path):
                print(f"[{m['name']}] no file {m['file']}", file=sys.stderr)
                return 2
            with open(path, encoding="utf-8") as f:
                pristine[m["file"]] = f.read()
        count = pristine[m["file"]].count(m["original"])
        m["applicable"] = count == 1
        if count != 1:
            print(f"[{m['name']}] original text found {count} times in {m['file']}: not applicable",
                  file=sys.stderr)

    def build_and_test(m):
        code, out = run(["ninja", "-C", build, f"-j{args.jobs}"] + m["targets"], ROOT, args.build_timeout, log)
        if code != 0:
            return "build-failed", []
        code, out = run(["ctest", "--test-dir", build, "-R", m["tests"], "--timeout", str(args.per_test_timeout),
                         "--output-on-failure", "-j", args.jobs], ROOT, args.test_timeout, log, args.memory_mb)
        if code is None:
            return "timeout", []
        if "No tests were found" in out:
            return "no-tests", []
        return ("failed" if code != 0 else "passed"), failed_tests(out)

    # Baseline: every target builds from the unmutated code (so no binary holds an earlier run's
    # mutation), and the selected tests pass.
    targets = sorted({t for m in mutations if m["applicable"] for t in m["targets"]})
    code, _ = run(["ninja", "-C", build, f"-j{args.jobs}"] + targets, ROOT, args.build_timeout, log)
    if code != 0:
        print(f"the unmutated tree does not build, see {log}", file=sys.stderr)
        return 2
    baseline_done = set()
    for m in mutations:
        key = (tuple(m["targets"]), m["tests"])
        if not m["applicable"] or key in baseline_done:
            continue
        status, failed = build_and_test(m)
        if status != "passed":
            print(f"baseline for [{m['name']}] is {status} {failed}: fix the tree first (log: {log})",
                  file=sys.stderr)
            return 2
        baseline_done.add(key)

    signals = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}

    def write_file(path, text):
        """Atomically, with signals held off: a file is either mutated or pristine, never half."""
        old = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
        try:
            tmp = path + ".mutate-tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
            shutil.copymode(path, tmp)
            os.replace(tmp, path)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    results = []
    for m in mutations:
        if not m["applicable"]:
            results.append({**m, "outcome": "not applicable", "killed_by": []})
            continue
        path = os.path.join(src, m["file"])
        start = time.monotonic()
        try:
            write_file(path, pristine[m["file"]].replace(m["original"], m["replacement"], 1))
            status, failed = build_and_test(m)
        finally:
            write_file(path, pristine[m["file"]])  # restored whatever happened
        # Rebuild at once, so that no later mutation runs a test binary still holding this one.
        code, _ = run(["ninja", "-C", build, f"-j{args.jobs}"] + m["targets"], ROOT, args.build_timeout, log)
        if code != 0:
            print(f"rebuilding the pristine {m['targets']} failed, see {log}", file=sys.stderr)
            return 2
        outcome = {"failed": "killed", "timeout": "killed (timeout)", "passed": "SURVIVED",
                   "build-failed": "stillborn (does not compile)", "no-tests": "no tests"}[status]
        results.append({**m, "outcome": outcome, "killed_by": failed})
        print(f"{m['name']:<40} {outcome:<28} {time.monotonic() - start:6.0f} s  {' '.join(failed[:3])}"
              f"{' ...' if len(failed) > 3 else ''}", flush=True)

    counted = [r for r in results if r["outcome"].startswith(("killed", "SURVIVED"))]
    killed = [r for r in counted if r["outcome"].startswith("killed")]
    rate = 100.0 * len(killed) / len(counted) if counted else 0.0
    print(f"\n{len(killed)} of {len(counted)} mutations killed ({rate:.0f}%); "
          f"{len(results) - len(counted)} not counted (not applicable, stillborn, no tests). Log: {log}")
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write("| mutation | file | outcome | killed by |\n|---|---|---|---|\n")
            for r in results:
                by = ", ".join(r["killed_by"][:4]) + (" …" if len(r["killed_by"]) > 4 else "")
                f.write(f"| {r['name']} | {r['file']} | {r['outcome']} | {by} |\n")
            f.write(f"\n{len(killed)} of {len(counted)} killed ({rate:.0f}%).\n")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([{k: r[k] for k in ("name", "file", "outcome", "killed_by", "note")} for r in results], f,
                      indent=2)
    return 0 if len(killed) == len(counted) else 1


if __name__ == "__main__":
    sys.exit(main())
