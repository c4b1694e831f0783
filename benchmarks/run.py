"""The performance table: warp_interactive side by side with warp-lang, Numba and
NumPy (when installed), medians over repeated runs, ratios to each peer. Not a test.

    python benchmarks/run.py --setup-peers     # once: makes benchmarks/.peer-venv (git-ignored)
    python benchmarks/run.py [--repeat 5] [--only wpi] [--json out.json] [--membw]

Figures that need a fresh process (import, cold build, warm-cache load) run one process per
sample; the rest run in one process per toolkit (benchmarks/inproc.py). Every kernel output is
checked against NumPy. The machine's load matters: the "python loop" line is a calibration
(``sum(range(100))``, ~0.7 us on an idle core) to read the other figures against.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
PEER_VENV = os.path.join(HERE, ".peer-venv")
PEER_PY = os.path.join(PEER_VENV, "bin", "python")
PEER_PACKAGES = ["warp-lang", "numba", "numpy"]

# (key, label, unit, target, lower is better)
FIGURES = [
    ("cold_s", "cold build + first launch, one-kernel module", "s", 0.3, True),
    ("rebuild_s", "rebuild after a one-line edit", "s", 0.1, True),
    ("warm_ms", "warm-cache load + first launch", "ms", 3.0, True),
    ("import_s", "import + init", "s", 0.15, True),
    ("launch_us", "launch overhead, dim=1", "us", 2.0, True),
    ("replay_us", "recorded launch replay (record_cmd)", "us", 0.5, True),
    ("saxpy_gbs", "saxpy 10M float32 (12 B/element)", "GB/s", 60.0, False),
    ("nbody_ms", "n-body N=4096 vec3", "ms", 10.0, True),
    ("nbody_fast_ms", "n-body N=4096 vec3, fast-math", "ms", 6.5, True),
]
TOOLKITS = ["wpi", "warp", "numba", "numpy"]
NAMES = {"wpi": "warp_interactive", "warp": "warp-lang", "numba": "Numba", "numpy": "NumPy"}


def setup_peers():
    import venv
    if not os.path.exists(PEER_PY):
        venv.create(PEER_VENV, with_pip=True)
    subprocess.run([PEER_PY, "-m", "pip", "install", "-q", *PEER_PACKAGES], check=True)
    print(f"peers installed in {PEER_VENV}")


def python_for(toolkit):
    if toolkit == "wpi":
        return sys.executable
    if not os.path.exists(PEER_PY):
        return None
    mod = {"warp": "warp", "numba": "numba", "numpy": "numpy"}[toolkit]
    ok = subprocess.run([PEER_PY, "-c", f"import {mod}"], capture_output=True).returncode == 0
    return PEER_PY if ok else None


def run_json(cmd, env=None):
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- per-process figures -------------------------------------------------------------------------
IMPORTS = {
    "wpi": "import warp_interactive as wp\nwp.init()\n",
    "warp": "import warp as wp\nwp.config.quiet = True\nwp.init()\n",
    "numba": "import numba\n",
    "numpy": "import numpy\n",
}

# one-kernel module: SALT makes each cold sample a new kernel
KERNEL = {
    "wpi": '''
import warp_interactive as wp
@wp.kernel
def k(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i] + SALT
''',
    "numba": '''
import numba
@numba.njit(cache=True)
def k(x, y, a):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i] + SALT
''',
}
KERNEL["warp"] = KERNEL["wpi"].replace("import warp_interactive as wp", "import warp as wp")

DRIVER = '''
import json, os, sys, time, importlib
def clock():
    if os.environ.get("BENCH_CLOCK") != "cpu":
        return time.perf_counter()
    import resource   # CPU seconds of this process and of its finished children (the compiler)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ru.ru_utime + ru.ru_stime
sys.path.insert(0, FOLDER)
t0 = clock()
IMPORT
import numpy as np
t_import = clock() - t0
import MODNAME as m
x = np.ones(16, dtype=np.float32)
y = np.ones(16, dtype=np.float32)
def first_launch():
    global y
    y = np.ones(16, dtype=np.float32)
    PREP
    t = clock()
    LAUNCH
    return clock() - t
t_first = first_launch()
res = {"import": t_import, "first": t_first}
if EDIT:
    with open(m.__file__, "w") as f:
        f.write(EDITED)
    # a real edit comes seconds later; Python's .pyc check compares whole-second mtimes (and
    # the edit keeps the size), so without this the reload could run the stale bytecode
    _st = os.stat(m.__file__)
    os.utime(m.__file__, (_st.st_atime, _st.st_mtime + 2))
    importlib.invalidate_caches()
    m = importlib.reload(m)
    res["rebuild"] = first_launch()
CHECK
print(json.dumps(res))
'''

# (untimed preparation, timed first launch)
LAUNCH = {
    "wpi": ("wx, y = wp.array(x), wp.array(y)", "wp.launch(m.k, dim=16, inputs=[wx, y, 2.0])"),
    "warp": ("wx, y = wp.array(x, device='cpu'), wp.array(y, device='cpu')",
             "wp.launch(m.k, dim=16, inputs=[wx, y, 2.0], device='cpu')"),
    "numba": ("pass", "m.k(x, y, np.float32(2.0))"),
}


def driver_script(toolkit, folder, modname, salt, edit_salt=None):
    src = KERNEL[toolkit].replace("SALT", repr(float(salt)))
    with open(os.path.join(folder, modname + ".py"), "w") as f:
        f.write(src)
    edited = KERNEL[toolkit].replace("SALT", repr(float(edit_salt if edit_salt is not None else salt)))
    body = (DRIVER.replace("FOLDER", repr(folder)).replace("IMPORT", IMPORTS[toolkit])
            .replace("MODNAME", modname).replace("PREP", LAUNCH[toolkit][0]).replace("LAUNCH", LAUNCH[toolkit][1])
            .replace("EDITED", repr(edited)).replace("EDIT", repr(edit_salt is not None))
            .replace("CHECK", CHECK)
            .replace("SALT_LAST", repr(float(edit_salt if edit_salt is not None else salt))))
    path = os.path.join(folder, f"drive_{modname}.py")
    with open(path, "w") as f:
        f.write(body)
    return path


# the last launch computed y = 2*1 + 1 + salt from ones: checked against that value
CHECK = '''
_y = y if isinstance(y, np.ndarray) else y.numpy()
assert abs(float(_y[0]) - (3.0 + SALT_LAST)) < 1e-3, _y[0]
'''


NUMPY_IMPORT = ("import os, time, json\nc = time.process_time if os.environ.get('BENCH_CLOCK') == 'cpu' "
                "else time.perf_counter\nt = c()\nimport numpy\nprint(json.dumps(c() - t))")


def env_for(toolkit, cache):
    env = dict(os.environ)
    env["WARP_INTERACTIVE_CACHE_DIR"] = cache
    env["NUMBA_CACHE_DIR"] = cache
    env["WARP_CACHE_PATH"] = cache
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # measure imports as users have them: with .pyc files
    return env


def process_figures(toolkit, py, repeat):
    """cold, rebuild, warm and import samples (one fresh process each)."""
    if toolkit == "numpy":
        env = env_for(toolkit, tempfile.mkdtemp())
        return {"import_s": [run_json([py, "-c", NUMPY_IMPORT], env)
                             for _ in range(repeat)]}
    folder, cache = tempfile.mkdtemp(), tempfile.mkdtemp()
    env = env_for(toolkit, cache)
    if toolkit == "warp":
        env["WARP_KERNEL_CACHE"] = cache
    run_json([py, driver_script(toolkit, folder, "warmup", 0.25)], env)   # builds PCH / core once
    res = {"cold_s": [], "warm_ms": [], "import_s": [], "rebuild_s": []}
    for i in range(repeat):
        mod = f"kmod{i}"
        cold = run_json([py, driver_script(toolkit, folder, mod, 1.0 + i)], env)
        warm = run_json([py, driver_script(toolkit, folder, mod, 1.0 + i)], env)
        edit = run_json([py, driver_script(toolkit, folder, f"emod{i}", 50.0 + i, 70.0 + i)], env)
        res["cold_s"].append(cold["first"])
        res["warm_ms"].append(warm["first"] * 1e3)
        res["import_s"].append(warm["import"])
        res["rebuild_s"].append(edit["rebuild"])
    return res


def inproc_figures(toolkit, py, repeat):
    script = os.path.join(HERE, "inproc.py")
    res = run_json([py, script, toolkit, "--repeat", str(repeat)])
    if toolkit != "numpy":
        fast = run_json([py, script, toolkit, "--fast-math", "--repeat", str(repeat)])
        res["nbody_fast_ms"] = fast["nbody_ms"]
    return res


def membw_figures(saxpy_samples):
    """The ceiling table of benchmarks/membw.py, and our saxpy as a share of the best C loop."""
    ceiling = run_json([sys.executable, os.path.join(HERE, "membw.py"), "--json"])
    print("\nmemory-bandwidth ceiling (benchmarks/membw.py: hand-written C loops, same compiler "
          "and -O3 -march=native; best of 15):")
    width = max(len(k) for k in ceiling)
    for k, v in ceiling.items():
        print(f"  {k.ljust(width)} | {v:6.1f} GB/s")
    if saxpy_samples:
        ours, top = statistics.median(saxpy_samples), max(saxpy_samples)
        best = max(v for k, v in ceiling.items() if k.startswith("C saxpy"))
        print(f"  warp_interactive saxpy: best {top:.1f} GB/s = {100 * top / best:.0f}% of the best "
              f"C saxpy loop ({best:.1f} GB/s); median {ours:.1f} GB/s")
    return ceiling


# --- the table -----------------------------------------------------------------------------------
def fmt(v, unit):
    if v is None:
        return "-"
    return f"{v:.3g}" if unit != "GB/s" else f"{v:.1f}"


def table(results, toolkits):
    med = {t: {k: statistics.median(v) for k, v in results[t].items() if isinstance(v, list) and v}
           for t in toolkits}
    head = ["figure", "unit", "target"] + [NAMES[t] for t in toolkits] + \
           [f"vs {NAMES[t]}" for t in toolkits if t != "wpi"]
    rows = []
    for key, label, unit, target, lower in FIGURES:
        ours = med.get("wpi", {}).get(key)
        row = [label, unit, ("<= " if lower else ">= ") + fmt(target, unit)]
        row += [fmt(med[t].get(key), unit) for t in toolkits]
        for t in toolkits:
            if t == "wpi":
                continue
            theirs = med[t].get(key)
            if ours is None or theirs is None:
                row.append("-")
            else:   # > 1 means warp_interactive is better
                row.append(f"{(theirs / ours) if lower else (ours / theirs):.2f}x")
        ok = ours is not None and (ours <= target if lower else ours >= target)
        row[0] = ("[ok] " if ok else "[--] ") + row[0]
        rows.append(row)
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    lines = [" | ".join(str(c).ljust(w) for c, w in zip(head, widths))]
    lines.append("-+-".join("-" * w for w in widths))
    lines += [" | ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--setup-peers", action="store_true", help="create benchmarks/.peer-venv")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", nargs="*", choices=TOOLKITS, help="toolkits to run (default: all found)")
    ap.add_argument("--json", help="also write the raw samples here")
    ap.add_argument("--membw", action="store_true",
                    help="also measure the machine's memory-bandwidth ceiling (benchmarks/membw.py) "
                         "and compare the saxpy figure with it")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="cpu: CPU time instead of wall time for the single-threaded figures "
                         "(import, builds, loads, launch overheads), to read a busy machine")
    a = ap.parse_args()
    os.environ["BENCH_CLOCK"] = a.clock
    if a.setup_peers:
        setup_peers()
        return
    toolkits = []
    results = {}
    for t in a.only or TOOLKITS:
        py = python_for(t)
        if py is None:
            print(f"({NAMES[t]} not installed: python benchmarks/run.py --setup-peers)")
            continue
        print(f"running {NAMES[t]}...", file=sys.stderr, flush=True)
        res = process_figures(t, py, a.repeat)
        res.update(inproc_figures(t, py, a.repeat))
        results[t] = res
        toolkits.append(t)
    calib = min(timeit.repeat("sum(range(100))", number=20000, repeat=5)) / 20000 * 1e6
    print(f"python loop calibration: sum(range(100)) = {calib:.2f} us; cores: {os.cpu_count()}; "
          f"medians of {a.repeat} runs (saxpy: {3 * a.repeat}); clock: {a.clock}")
    print(table(results, toolkits))
    print("ratios: > 1 means warp_interactive is better than that peer")
    if a.membw:
        results["membw"] = membw_figures(results.get("wpi", {}).get("saxpy_gbs"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
