"""Every test file of warp-lang's wheel, on warp-lang and on ours, compared test by test.

    python scripts/compat_all_tests.py --side peer --jobs 2      # warp-lang's own outcomes
    python scripts/compat_all_tests.py --side ours --jobs 2      # ours, through the shim
    python scripts/compat_all_tests.py --table docs-table.md     # the comparison

The yardstick of issue "the rest of the public API": of the tests that warp-lang passes on this
machine, the share that passes on ours. Each side's per-test outcomes are kept in
``scripts/.compat-results/<side>.json`` (git-ignored) and a run resumes where the last one
stopped (``--again`` reruns chosen files), so the slow side (warp-lang builds every kernel with
its own compiler) is measured once. The files run one pytest process each, exactly as
compat_warp_tests.py runs them (same shim, same pytest options).
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import compat_warp_tests as compat

RESULTS = os.path.join(compat.HERE, ".compat-results")


def all_files(wheel):
    """Every test_*.py under the wheel's tests folder, as 'sub/test_x' names, sorted."""
    root = os.path.join(wheel, "tests")
    names = []
    for folder, _, files in os.walk(root):
        for f in files:
            if f.startswith("test_") and f.endswith(".py"):
                names.append(os.path.relpath(os.path.join(folder, f), root)[:-3])
    return sorted(names)


def outcomes(xml):
    """{test id: 'passed'|'failed'|'skipped'} from a JUnit file (errors count as failed)."""
    result = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped" and outcome == "passed":
                outcome = "skipped"
        # the class's own name: the module part differs between the sides (rootdirs differ)
        cls = (case.get("classname") or "").rsplit(".", 1)[-1]
        result[f"{cls}::{case.get('name')}"] = outcome
    return result


def run(name, side, wheel, timeout):
    """(name, {test: outcome} or {"": 'timeout'|'crashed'}, seconds) of one file on one side."""
    if side == "peer":
        root, python_path, cwd = wheel, os.path.dirname(wheel), os.path.dirname(compat.SHIM)
    else:
        root, python_path, cwd = os.path.join(compat.SHIM, "warp"), os.pathsep.join([compat.REPO, compat.SHIM]), compat.SHIM
    path = os.path.join(root, "tests", name + ".py")
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "junit.xml")
        env = dict(os.environ, PYTHONPATH=python_path, PYTHONDONTWRITEBYTECODE="1",
                   WARP_INTERACTIVE_CACHE_DIR=os.path.join(tmp, "cache"))
        cmd = [sys.executable, "-m", "pytest", "--capture=no", "-p", "no:terminal", "-p",
               "no:cacheprovider", "-p", "no:nbval", "-c", os.path.join(compat.SHIM, "pytest.ini"),
               "--rootdir", compat.SHIM, f"--junitxml={xml}", "-o", "junit_family=xunit1", path]
        try:
            subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return name, {"": "timeout"}, timeout
        found = outcomes(xml) if os.path.exists(xml) else {}
    return name, found or {"": "crashed"}, round(time.time() - start)


def load(side):
    path = os.path.join(RESULTS, side + ".json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def save(side, data):
    os.makedirs(RESULTS, exist_ok=True)
    tmp = os.path.join(RESULTS, f".{side}.json.tmp")
    with open(tmp, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
    os.replace(tmp, os.path.join(RESULTS, side + ".json"))


def measure(side, files, jobs, timeout, again):
    wheel = compat.wheel_dir()
    compat.make_shim(wheel)
    data = load(side)
    todo = [f for f in files if f not in data or f in again]
    print(f"{side}: {len(todo)} files to run ({len(files) - len(todo)} kept from earlier runs)", flush=True)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(run, name, side, wheel, timeout) for name in todo]
        for done in concurrent.futures.as_completed(futures):
            name, tests, seconds = done.result()
            data[name] = {"tests": tests, "seconds": seconds}
            save(side, data)
            passed = sum(v == "passed" for v in tests.values())
            print(f"  {name}: {passed} of {len(tests)} passed ({seconds} s)", flush=True)


def compare(ours, peer, wheel):
    """Rows (file, warp-lang passes, of those ours passes, ours total passes, note) and totals."""
    rows, total_peer, total_both = [], 0, 0
    for name in sorted(peer):
        peer_pass = {t for t, o in peer[name]["tests"].items() if o == "passed"}
        mine = ours.get(name, {}).get("tests", {})
        both = {t for t in peer_pass if mine.get(t) == "passed"}
        note = []
        if name not in ours:
            note.append("not run on ours")
        elif "" in mine:
            note.append(mine[""])
        if compat.uses_internals(os.path.join(wheel, "tests", name + ".py")):
            note.append("warp._src")
        rows.append((name, len(peer_pass), len(both), sum(o == "passed" for o in mine.values()),
                     ", ".join(note)))
        total_peer += len(peer_pass)
        total_both += len(both)
    return rows, total_peer, total_both


def table(path):
    wheel = compat.wheel_dir()
    rows, total_peer, total_both = compare(load("ours"), load("peer"), wheel)
    pct = 100.0 * total_both / total_peer if total_peer else 0.0
    lines = [f"Of the {total_peer} tests warp-lang 1.19 passes on this machine, **{total_both} "
             f"({pct:.1f}%) pass on ours** (`python scripts/compat_all_tests.py --table`).", "",
             "| file | warp-lang passes | of those, ours passes | % | note |",
             "| --- | ---: | ---: | ---: | --- |"]
    for name, p, b, _, note in rows:
        share = f"{100.0 * b / p:.0f}" if p else "-"
        lines.append(f"| {name} | {p} | {b} | {share} | {note} |")
    text = "\n".join(lines) + "\n"
    if path == "-":
        print(text)
    else:
        with open(path, "w") as f:
            f.write(text)
        print(lines[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", choices=("ours", "peer"), help="measure this side")
    ap.add_argument("--jobs", type=int, default=1, help="files run at once")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per file")
    ap.add_argument("--again", nargs="*", default=[], help="files to rerun although kept")
    ap.add_argument("--only", nargs="*", help="these files instead of the whole folder")
    ap.add_argument("--table", metavar="FILE", help="write the comparison as markdown ('-': print)")
    args = ap.parse_args()
    if args.side:
        files = args.only or all_files(compat.wheel_dir())
        measure(args.side, files, args.jobs, args.timeout, set(args.again))
    if args.table:
        table(args.table)
    if not (args.side or args.table):
        ap.error("give --side and/or --table")


if __name__ == "__main__":
    main()
